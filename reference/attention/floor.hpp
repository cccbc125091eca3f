// The floor model (oracles.md, "Floor"): the output of an ideal kernel that rounds only where
// the definition forces a bf16 kernel to round — the probabilities P before the P·V product
// and the stored O — in the kernel's declared mode, and is exact everywhere else. A correct
// kernel's relative RMS error sits near the floor's (AOTriton's authors measured correct
// kernels at 0.7–1.02× floor); the verdict allows 2× (oracles.md, "Verdict").
#pragma once

#include <span>
#include <vector>

#include "numerics/bf16.hpp"
#include "reference/attention/attention.hpp"

namespace cdna::reference {

// The ideal kernel's O [B, Sq, Hq, Dv] as doubles holding bf16 values:
//   M = max(max_visible S, s_h),  p_j = fl32(exp(S_j − M)),  p̃_j = bf16(p_j, mode),
//   O = bf16(fl32(Σ_j p̃_j V_j / (Σ_j p_j + exp(s_h − M))), mode),
// on the dequantised problem (fp8: S_j = σ·dq·dk·q·k_j, V_j = dv × the fp8 values), S_j the
// soft-capped score c·tanh(S_j/c) where a cap is given, the sink s_h only where a sink is given
// (in the maximum, as the declared kernel's; its term unrounded: it enters no product); docs/error-analysis.md §14–§18;
// with the sums and the exponential in double (their error, ≤ 2^-50 relative, is far below the
// bf16 roundings modelled). Rows with no visible key, or only −inf scores, are +0.0; a row with
// one +inf score is V of that key (docs/semantics.md §5.6: no rounding is involved); a row with a
// NaN score or two or more +inf scores is NaN, as the definition's.
std::vector<double> attention_floor_output(const AttentionProblem& problem, numerics::Rounding mode);

// Relative RMS error ‖e‖₂ / ‖exact‖₂ over the elements whose exact value is finite, e = |got −
// exact| (+inf where got is NaN or infinite), less `discount` per element where one is given
// (e = max(0, |got − exact| − discount): the pass rule's flush allowance, docs/pass-rule.md rule 4;
// an element whose discount is +inf, beyond the declared arithmetic's range, is left out);
// 0 when ‖exact‖₂ = 0 and e = 0 there, +inf when ‖exact‖₂ = 0 and some e > 0. Throws
// std::invalid_argument if the sizes differ.
double relative_rms_error(std::span<const double> got, std::span<const double> exact,
                          std::span<const double> discount = {});

}  // namespace cdna::reference
