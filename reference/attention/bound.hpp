// The certified bound (oracles.md, "Bound"): a per-element upper bound on |kernel − exact| for
// any online-softmax attention kernel with the declared CDNA3 arithmetic — bf16 MFMA (block
// model, cdna3-facts.md §4) for Q·Kᵀ and P·V in any blocking (fp8 inputs: the fp8 MFMA's blocks
// of 16 for Q·Kᵀ), fp32 VALU, 1-ULP v_exp_f32 / v_log_f32 / v_rcp_f32 with their flush of
// results below 2^-126 (cdna3-facts.md §6), the declared soft-cap tanh, sink term and descale
// multiplies, and the declared bf16 rounding of P and of the stored O. Derivation, assumptions
// and sources: docs/error-analysis.md (Higham, ASNA 2nd ed. §3.1, §3.5; Blanchard, Higham &
// Higham 2021); the extended features: §14–§18 there.
#pragma once

#include <cstdint>
#include <vector>

#include "numerics/bf16.hpp"
#include "reference/attention/attention.hpp"

namespace cdna::reference {

// The per-element bounds compare_attention applies, for a kernel that rounds P and O in
// `mode`: o [B, Sq, Hq, Dv] bounds |O_kernel - O_exact|, lse [B, Hq, Sq] bounds
// |LSE_kernel - LSE_exact|; each includes the oracle's own stated error, which o_oracle and
// lse_oracle give alone (the distance of `exact` from the exact value, its rounding to double
// included). Rows with no visible key (exact LSE = -inf) have bound 0 (O must be +0.0 and LSE
// -inf exactly); with a finite sink s_h such a row has O bound 0 and an LSE bound of a few fp32
// roundings of s_h (docs/error-analysis.md §17); where the exact value is NaN the entries are NaN (no bound: the result must
// be NaN); +inf where no finite bound holds (scores that may overflow fp32).
// Throws std::invalid_argument if `exact` does not match the shape.
// o_flush [B, Sq, Hq, Dv] is the part of o due to flushes the declared arithmetic allows
// (v_exp_f32 results below 2^-126, and fp32 denormals under MODE.FP_DENORM = 0;
// docs/error-analysis.md §4, §6): the pass rule's floor comparison discounts it
// (docs/pass-rule.md, rule 4), so that a kernel that flushes exactly as declared never fails it.
struct AttentionBounds {
  std::vector<double> o, lse;
  std::vector<double> o_oracle, lse_oracle;
  std::vector<double> o_flush;
};
AttentionBounds attention_bounds(const AttentionProblem& problem, const AttentionResult& exact,
                                 numerics::Rounding mode);

// Building blocks of the bound, exposed for the unit tests (docs/error-analysis.md §1–§2).
namespace bound_terms {

inline constexpr double kU32 = 0x1p-24;                  // fp32 unit roundoff (RTNE)
inline constexpr double kUBlock = 0x1p-24 + 0x1p-30;     // one MFMA block node: RN and C's 2^-31
inline constexpr double kTrunc = 0x1p-21 + 0x1p-24 + 0x1p-31;  // bf16 block truncation, per Σ|fresh|
// fp8/bf8 blocks of 16 (cdna3-facts.md §4; docs/error-analysis.md §18): the even and the odd
// half each truncated (2^-21 of their own Σ|fresh| together), the two halves floored to
// 2^(E−24) (2^-23), C floored to 2^(E−24) or dropped below 2^(E−25) (2^-24), the sum's 2^-31.
inline constexpr double kTrunc8 = 0x1p-21 + 0x1p-23 + 0x1p-24 + 0x1p-31;
inline constexpr double kUlp = 0x1p-23 / (1 - 0x1p-23);  // 1 ULP, relative to the exact result

// Higham's γ_n(u) = n·u / (1 − n·u) (ASNA §3.1, Lemma 3.1); +inf when n·u ≥ 1.
double gamma(double n, double u);
// Relative error of bf16 rounding in `mode`: 2^-8 (RTNE, RTNA), 2^-7 (RTZ).
double bf16_unit_roundoff(numerics::Rounding mode);
// Bound on |ŝ − Σ_k a_k b_k| for an MFMA dot product whose products are grouped into blocks
// combined along paths of at most `depth` block or fp32 nodes (§2), given the sum of the
// per-product magnitudes `abs_sum` (A = Σ ā_k·b̄_k + k·2^-126, x̄ = max(|x|, 2^emin), emin the
// input format's smallest normal exponent: -126 bf16, -7 fp8 E4M3FNUZ, -15 bf8 E5M2FNUZ) and
// the block's truncation constant: kTrunc (bf16, blocks of 8) or kTrunc8 (fp8/bf8, blocks of 16).
double mfma_dot_error(double depth, double abs_sum, double trunc = kTrunc);

// Depths of the kernel model (§3): Q·K paths, P·V paths, running-sum paths, exp count per key.
struct Depths {
  double qk, pv, l, exps;
};
// For a row seeing keys 0 .. seqlen_k − 1 with bf16 Q·K (blocks of 8).
Depths kernel_depths(std::int64_t head_dim, std::int64_t seqlen_k);
// For a row seeing the keys `range` (a window: tiles aligned at key 0, §3), with Q·K blocks of
// `qk_block` products (8 bf16, 16 fp8).
Depths kernel_depths(std::int64_t head_dim, KeyRange range, std::int64_t qk_block);

// The largest |th − tanh(y)| of the declared soft-cap tanh, th = 1 − 2·v_rcp_f32(fl(v_exp_f32(
// fl(y·fl(2 log2 e))) + 1)), over every fp32 y (docs/error-analysis.md §15): about 12.5·2^-24.
double tanh_abs_error();

}  // namespace bound_terms

}  // namespace cdna::reference
