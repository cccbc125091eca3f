// The cases `cdna-verify audit` runs: a default matrix over real models' head layouts, and the
// handed edge cases C01–C14 of ../shared/cases/README.md translated into problems, and the
// crafted rounding-mode cases.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <optional>

#include "device/attention_launcher.hpp"
#include "reference/attention/attention.hpp"
#include "reference/attention/varlen.hpp"

namespace cdna::audit {

// A case's output widened to double (bf16 O and fp32 LSE widen exactly; the oracle's result is
// already double), in the case's layout: dense O [B, Sq, Hq, Dv], LSE [B, Hq, Sq]; varlen
// O [rows_q, Hq, Dv], LSE [Hq, rows_q]. The kernel's and the oracle's output are checked alike.
struct CaseOutput {
  std::vector<double> o, lse;
};
CaseOutput widen(const device::AttentionOutput& out);

struct AuditCase {
  std::string id;           // "C03", or "llama3-8b/sq17-sk128/causal"
  std::string description;  // one line: what it checks
  std::uint64_t seed = 0;   // Q uses seed, K seed + 1, V seed + 2 (reference::randn_bf16)
  reference::AttentionProblem problem;
  // The kernel must reject this problem (C13: unsupported head dims); running it is a failure.
  bool expect_rejection = false;
  // Non-empty: the case needs a feature no launcher input can express for this kernel;
  // reported as rejected with this reason, counted apart from pass and fail.
  std::string unsupported_feature;
  // Set: the case is this varlen (or paged) problem, run through the kernel's varlen launcher
  // (device::run_attention_varlen) and judged with reference::compare_varlen; `problem` is then
  // its base (heads, dims, features) with Sq, Sk the largest sequence's, for the reports only.
  std::optional<reference::VarlenProblem> varlen;
  // Set: another problem of the same kind (dense `twin`, varlen `varlen_twin`) whose output must
  // equal this case's bit for bit (C11: zeros instead of NaN in unused slots; P01: the packed
  // form of the paged cache; SC01: finite instead of NaN masked keys).
  std::optional<reference::AttentionProblem> twin;
  std::optional<reference::VarlenProblem> varlen_twin;
  // Case-specific exact facts of the handed cases on an output (kernel's or oracle's): "" if they
  // hold, else one line naming the first element that breaks them.
  std::function<std::string(const CaseOutput&)> exact_facts;
  // > 0: a production shape whose every row the exact oracle cannot evaluate in an audit's time:
  // this many seeded query rows per (batch, head) are judged exactly (seed `seed`), the others by
  // the facts derivable without the oracle (reference/attention/sampled_compare.hpp; docs/pass-rule.md).
  std::int64_t sample_rows = 0;
};

// "" if `a` and `b` are equal bit for bit (O bits and LSE bits), else one line naming the first
// element that differs.
std::string bitwise_difference(const device::AttentionOutput& a, const device::AttentionOutput& b);
// The same for exact results (doubles, NaN equal to NaN of any payload).
std::string bitwise_difference(const CaseOutput& a, const CaseOutput& b);

// A case of `shape` and `mask`, scale fp32(1/√D), inputs reference::fill_randn(seed, qk_std,
// v_std) (V with Dv columns).
AuditCase make_case(std::string id, std::string description, reference::AttentionShape shape, reference::Mask mask,
                    std::uint64_t seed, double qk_std = 1.0, double v_std = 1.0);

// Llama-3-8B (Hq 32, Hkv 8, D 128) and Llama-3.2-1B (Hq 32, Hkv 8, D 64) at sequence lengths
// sized for the simulator, no mask and causal bottom-right.
std::vector<AuditCase> default_matrix();

// Shapes around the peer kernels' query tiles: Sq, Sk ∈ {1, 255, 256, 257, 384, 385, 1000}
// (B 1, heads 1/1, D 128), no mask and causal bottom-right; B 2, heads 8/2 at three of them; and
// the varlen problems of varlen_tile_cases and the paged decode batches of
// paged_decode_tile_cases (feature_cases.hpp).
std::vector<AuditCase> tile_cases();

// C01–C14 (C02 and C13 as two problems each; C05 and C11 varlen), then the crafted rounding
// cases R01, … (audit/cases/rounding_cases.hpp), then the feature cases W01 … F02
// (audit/cases/feature_cases.hpp).
std::vector<AuditCase> handed_cases();

}  // namespace cdna::audit
