// The audit: runs the default matrix and the handed cases (audit/cases/) on one executor or
// several at once (--jobs, one per worker thread) and compares each kernel output with the exact
// oracle under the pass rule of docs/pass-rule.md, into an AuditResult (audit/report/audit_result.hpp,
// whose writers make report.json, report.md and report.html).
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "audit/cases/shard.hpp"
#include "audit/report/audit_result.hpp"
#include "device/executor.hpp"
#include "numerics/bf16.hpp"
#include "simulator/checks/hazard_policy.hpp"

namespace cdna::audit {

struct AuditOptions {
  std::vector<numerics::Rounding> modes{std::begin(numerics::kAllRoundings), std::end(numerics::kAllRoundings)};
  std::string case_filter;  // ECMAScript regex searched in case ids; empty: every case
  bool matrix = true;       // run the default matrix
  bool handed = true;       // run C01–C14
  bool tiles = true;        // run the shapes around the peers' query tiles (tile_cases)
  bool paged = false;       // run the paged decode batches (paged_decode_tile_cases) when `tiles` does not
  bool production = false;  // run the kernel's production cases (audit/cases/production_cases.hpp), sampled
  // The kernel audited: an adapter name (adapters/kernel_adapter.hpp, adapter_names()).
  std::string kernel = "attention-fwd";
  // Code object source (a file or a directory, as KernelAdapter::load takes it) for every mode;
  // empty: the adapter's default. A mode in `code_objects` uses that source instead.
  std::filesystem::path code_object_source;
  std::map<numerics::Rounding, std::filesystem::path> code_objects;
  std::ostream* progress = nullptr;  // one line per case and mode while running
  // Peer convention profile the outputs are judged under (reference/attention/profiles.hpp, docs/profiles.md).
  std::string profile = "ours";
  // Run only the cases of this shard (audit/cases/shard.hpp); nullopt: every matched case.
  std::optional<ShardSpec> shard;
  // Threads of each case's oracle (reference::ExactOptions::threads; 0: the hardware's). Its
  // result does not depend on them: each row is evaluated alone.
  unsigned oracle_threads = 0;
};

// The attention cases of `audit --set SET` (default, all, matrix, handed, tiles, paged,
// production, decode) for options.kernel: "default" is the matrix and the handed cases, and for a
// peer kernel the shapes around its query tiles (ours has its own tiles of 16-64 rows, covered by
// the matrix; "all" adds them for any kernel); for aiter-pa, whose kernels take paged decode
// problems only, "default" is "paged": the paged decode batches alone (tiles includes them);
// "decode" selects no attention case.
void select_case_set(AuditOptions& options, const std::string& set);
// Whether `--set SET` runs the decode cases (audit/decode/decode_audit.hpp): they audit our
// monokernel, with our attention kernel's default and full sets, or alone (--set decode).
bool set_runs_decode_cases(const std::string& set, const std::string& kernel);

// What the executor's hazard policy found in the launches since the last call: a one-line
// summary ("" if nothing), if a site changed the output the failure line
// (audit/run/hazard_verdict.hpp hazard_failure), and the sites themselves.
struct CaseHazards {
  std::string summary, failure;
  std::string verdict = "-";  // audit/run/hazard_verdict.hpp hazard_verdict
  std::uint64_t documented = 0, llvm_only = 0;
  std::vector<simulator::HazardViolation> sites;
};

// One worker of the audit: an executor of its own and the callbacks reading that executor's
// state, both optional: `wave_instructions` of its last run, `hazards` since the last call.
struct AuditWorker {
  device::Executor* executor = nullptr;
  std::function<std::uint64_t()> wave_instructions;
  std::function<CaseHazards()> hazards;
};

// Runs the cases on the workers, one thread per worker (one worker: on the calling thread, in
// case order, as before --jobs). A case — the oracle once, then every mode — runs on one worker,
// which takes the next case when it is done (audit/run/case_jobs.hpp; several workers take the
// costliest cases first, by B*Hq*Sq*Sk*D, so that no long case runs alone at the end); each
// worker has its own adapter, loaded like the first. The rows come back in case order and the
// progress lines count finished rows ("case k of n"), so everything but the times is the same
// for any number of workers. A kernel run that throws is a failed row. Throws
// std::runtime_error (one line) before running any case if a code object cannot be read or
// parsed, lacks a kernel, or records a mode other than the one it is audited for
// (adapters/code_object_mode.hpp); std::regex_error for a bad case_filter; std::invalid_argument
// for no worker; and the oracle's error, if it throws, for the first such case in the order the
// cases are taken (case order for one worker).
AuditResult run_audit(const AuditOptions& options, const std::vector<AuditWorker>& workers);
// The same on one executor.
AuditResult run_audit(const AuditOptions& options, device::Executor& executor,
                      const std::function<std::uint64_t()>& wave_instructions = {},
                      const std::function<CaseHazards()>& hazards = {});

}  // namespace cdna::audit
