// Exactly computed rows, an exact fact of the pass rule (docs/pass-rule.md, verdict item 1;
// derivation: docs/error-analysis.md §13). Where every score is 0 (scale 0, or a zero query row) and a row sees a power-of-two
// number n of keys whose V columns lie on a coarse enough grid, every kernel with the declared
// arithmetic (docs/error-analysis.md §1, A1–A10) computes O before its final bf16 rounding
// exactly: the mean of the visible V rows. The stored O must then be that mean rounded in the
// declared mode, bit for bit (by value where the mean is 0: the sign of a zero result is not
// defined, docs/semantics.md §5.8). This separates RTNE, RTNA and RTZ wherever a mean is a
// tie or lies above a half-ULP, which no error bound or RMS rule can (each mode errs there by
// the same amount).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "numerics/bf16.hpp"
#include "reference/attention/attention.hpp"

namespace cdna::reference {

// Per O element [B, Sq, Hq, Dv] (the layout of O): the value every correct kernel holds in fp32
// just before the final rounding of O, where the problem alone decides it, else NaN. An element
// (b, i, h, d) is decided when all hold (the reasons: docs/error-analysis.md §13, §18):
//   - scale == 0 (either sign), or q_i is all ±0 (then every score is ±0 for any finite scale,
//     soft-capped or not);
//   - the row sees n visible keys (a window's range, or a prefix), n a power of two, 1 <= n <= 2^24;
//   - head h has no finite sink (a sink makes l̂ no power of two);
//   - q_i and k_j (j < n) are finite and sum_d |q_d k_jd| <= 2^126 for every j (no score can
//     overflow fp32, so each computed score is a finite value times 0);
//   - V_jd (j < n) is finite, and with g the largest power of two dividing every nonzero V_jd:
//     g >= 2^-102 and sum_j |V_jd| < min(2^24 g, 2^126) (all zero: the value is 0).
// Then the value is sum_j V_jd / n, exact in double and in fp32; for fp8 inputs (V_jd the fp8
// values) it is fl32(dv · sum_j V_jd / n), decided only where that product is normal
// (|mean·dv| in [2^-100, 2^100)). Throws std::invalid_argument
// as validate() does.
std::vector<double> exactly_computed_o(const AttentionProblem& problem);

// The bf16 bits a kernel in `mode` stores for an fp32-exact pre-rounding value.
std::uint16_t exact_o_bits(double pre_rounding, numerics::Rounding mode);

// Whether stored bits `got` are what `mode` gives for `pre_rounding`: equal bits, or both zero
// (either sign) when pre_rounding is 0.
bool exact_o_holds(double pre_rounding, std::uint16_t got, numerics::Rounding mode);

// "is X; every kernel with the declared arithmetic computes exactly Y before rounding, so RTNE
// gives Z" (values printed in full precision), for a violation of exact_o_holds.
std::string exact_o_violation(double pre_rounding, std::uint16_t got, numerics::Rounding mode);

}  // namespace cdna::reference
