// The golden set's problems (golden/set/, docs/golden-files.md): the handed cases, a small grid,
// the crafted rounding cases and the cases of the extended definition, each with its seeds, how
// its inputs were made and the exact fact it holds; and the file name of a case's golden file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "golden/golden_file.hpp"
#include "golden/layout.hpp"
#include "numerics/bf16.hpp"
#include "reference/attention/attention.hpp"
#include "reference/attention/varlen.hpp"

namespace cdna::audit {

// One problem of the golden set.
struct GoldenCaseSpec {
  std::string id, description;
  reference::AttentionProblem problem;
  std::string seeds;      // "q=101 k=102 v=103 (reference::randn_bf16)" or "none"
  std::string inputs;     // how Q, K, V were made
  std::string reduction;  // "" for a handed case at its own shape, else what was made smaller and why
  std::optional<golden::RowsEqualV> fact;
  std::optional<reference::VarlenProblem> varlen;  // a varlen case (then `problem` is unused)
  golden::Layout layout;                           // the strides a kernel is run with (default bshd)
};

// "q=S k=S+1 v=S+2 (reference::randn_bf16 ...)": the seeds of randn_case's inputs.
std::string seeds_text(std::uint64_t seed);
// A dense case with seeded randn inputs as audit/cases/audit_cases.cpp makes them (Q seed, K seed + 1,
// V seed + 2; Q, K with std qk_std, V with v_std), scale fl32(1/sqrt(D)).
GoldenCaseSpec randn_case(std::string id, std::string description, reference::AttentionShape shape,
                          reference::Mask mask, std::uint64_t seed, double qk_std = 1.0, double v_std = 1.0);

// The golden set's cases of the extended definition (audit/golden/golden_feature_cases.cpp): varlen C05,
// padded cache C11, paged KV, windows, soft cap, sinks, Dv != D, fp8 e4m3 and e5m2, layouts.
std::vector<GoldenCaseSpec> golden_feature_cases();

// The golden set: the handed cases C01–C14 of ../shared/cases/README.md that the oracle can
// compute without varlen inputs (C05 and C11 need varlen; C14's K and V alone are 17 MB),
// reduced in shape where the full case would be large (each says how), and a small grid
// (D 64, Hq/Hkv 2/1, (Sq, Sk) in (1, 20), (5, 5), (5, 20), (17, 5); masks none and causal
// bottom-right, and causal top-left where it differs from both and from C02), and the crafted
// rounding cases R01, … (audit/cases/rounding_cases.hpp).
std::vector<GoldenCaseSpec> golden_cases();

// "C02-top-left" -> "C02-top-left.rtne.safetensors"; '/' in grid ids becomes '_'.
std::string golden_file_name(const std::string& case_id, numerics::Rounding mode);

}  // namespace cdna::audit
