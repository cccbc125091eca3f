// What `golden verify` and `golden check` decide about one golden file (docs/golden-files.md): a
// file verified (its stored exact values, bound and floor re-derived, its stored o_kernel judged
// under the pass rule and, given an executor, re-run bit for bit), and a candidate output of any
// implementation judged against the file under a peer convention profile (docs/profiles.md).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "audit/golden/golden_kernel.hpp"
#include "device/executor.hpp"
#include "golden/golden_file.hpp"
#include "reference/attention/profiles.hpp"

namespace cdna::audit {

struct GoldenVerification {
  // The file's problem has no O element and no LSE value: nothing to judge, nothing verified
  // (never a pass: docs/pass-rule.md "Outcome").
  bool nothing_judged = false;
  std::string problem;      // "" when the file verifies; else the first problem found, one line
  std::string kernel_note;  // ", o_kernel passes (judged ...)", ", kernel bits reproduced on X"
  bool kernel_rerun = false;  // the stored o_kernel's kernel ran again on the executor
};

// Verifies `g`: golden::verify_reference_values (oracle threads `threads`, 0: the hardware's);
// then a stored o_kernel against the pass rule; then, with `executor`, the kernel named by the
// file's provenance "kernel_adapter" (default attention-fwd) run again, its O and LSE bits equal to
// the stored ones. `kernels` caches each kernel's code objects across files. The oracle's errors
// propagate (std::runtime_error, one line).
GoldenVerification verify_golden_file(const golden::GoldenFile& g, unsigned threads, device::Executor* executor,
                                      std::map<std::string, CodeObjects>& kernels);

// The exit code of `golden verify` over its files (audit/output/exit_codes.hpp): 1 if one failed;
// else 2 (NOTHING JUDGED) if one held an empty problem; else 0.
int golden_verify_exit_code(int failed, int empty);

// A candidate's O (bf16 bits, the file's O layout) and optional LSE (fp32, in `profile`'s LSE
// layout for a dense file, the file's for a varlen one) judged against `g`: mapped to the
// definition's conventions by the profile (rows without a visible key, LSE layout; a varlen file
// is judged under ours only), then golden::judge_candidate, with the profile's own failures added.
golden::CandidateVerdict judge_golden_candidate(const golden::GoldenFile& g, const reference::Profile& profile,
                                                std::vector<std::uint16_t> o, std::optional<std::vector<float>> lse);

}  // namespace cdna::audit
