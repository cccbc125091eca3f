#include <algorithm>
#include "reference/attention/exact_rows.hpp"

#include <bit>
#include <cmath>
#include <limits>
#include <sstream>

namespace cdna::reference {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double bf16_value(std::uint16_t bits) { return static_cast<double>(numerics::f32_from_bf16(bits)); }

// The visible keys of a row: first .. first + count − 1.
struct Keys {
  std::int64_t first, count;
};

// The largest power of two dividing the bf16 value x != 0 (finite): its lowest set significand
// bit. bf16 values are doubles exactly, so the double's bits give it.
double quantum(double x) {
  int e = 0;
  double m = std::frexp(std::abs(x), &e);  // x = m 2^e, m in [0.5, 1)
  // m has at most 8 significant bits: scale it to an integer and strip its trailing zeros.
  auto sig = static_cast<std::uint64_t>(std::ldexp(m, 53));
  const int tz = std::countr_zero(sig);
  return std::ldexp(1.0, e - 53 + tz);
}

// Every score of the row is finite and cannot overflow fp32 in any blocking (§13 (a)).
bool scores_finite(const AttentionProblem& p, const std::uint16_t* q, std::int64_t b, std::int64_t hk, Keys keys) {
  const AttentionShape& s = p.shape;
  for (std::int64_t j = keys.first; j < keys.first + keys.count; ++j) {
    const std::uint16_t* k = &p.k[static_cast<std::size_t>(((b * s.seqlen_k + j) * s.heads_kv + hk) * s.head_dim)];
    double sum = 0;  // |products| < 2^256 each, D of them: no double overflow
    for (std::int64_t d = 0; d < s.head_dim; ++d) sum += std::abs(element_value(p.dtype, q[d]) * element_value(p.dtype, k[d]));
    if (!(sum <= 0x1p126)) return false;  // also false for NaN and inf
  }
  return true;
}

// The column's exact mean when its visible V values lie on a grid fine enough for every
// partial sum to be exact in fp32 (§13 (c)), else NaN. fp8 V values are bf16 values exactly
// (the P·V MFMA takes them converted, §18), the same argument holds for them.
double exact_column_mean(const AttentionProblem& p, std::int64_t b, std::int64_t hk, std::int64_t d, Keys keys) {
  const AttentionShape& s = p.shape;
  double g = std::numeric_limits<double>::infinity(), abs_sum = 0, sum = 0;
  for (std::int64_t j = keys.first; j < keys.first + keys.count; ++j) {
    const double v = element_value(p.dtype, p.v[static_cast<std::size_t>(((b * s.seqlen_k + j) * s.heads_kv + hk) * s.dv() + d)]);
    if (!std::isfinite(v)) return kNaN;
    if (v == 0) continue;
    g = std::min(g, quantum(v));
    abs_sum += std::abs(v);
    sum += v;  // exact: multiples of g below 2^24 g
  }
  if (abs_sum == 0) return 0.0;
  if (!(g >= 0x1p-102) || !(abs_sum < std::min(0x1p24 * g, 0x1p126))) return kNaN;
  return sum / static_cast<double>(keys.count);  // a power of two: exact
}

// fp8 (§18): the kernel multiplies the exact mean by dv in fp32, one rounding to nearest even:
// fl32(mean·dv) in any order of the two scalings (v_rcp_f32(2^k) = 2^-k exactly), provided no
// intermediate is subnormal or overflows, else NaN (not decided).
double dequantised(double mean, double dv) {
  if (std::isnan(mean) || mean == 0 || dv == 1) return mean;
  const double x = mean * dv;  // exact in double: dv has 24 significant bits, the mean ≤ 25 (§13 (c))
  if (!(std::abs(x) >= 0x1p-100 && std::abs(x) < 0x1p100 && std::abs(mean) >= 0x1p-100)) return kNaN;
  return static_cast<double>(static_cast<float>(x));
}

}  // namespace

std::vector<double> exactly_computed_o(const AttentionProblem& problem) {
  validate(problem);
  const AttentionShape& s = problem.shape;
  std::vector<double> out(static_cast<std::size_t>(s.o_elements()), kNaN);
  const std::int64_t D = s.head_dim, Dv = s.dv(), Sq = s.seqlen_q, group = s.heads_q / s.heads_kv;
  for (std::int64_t b = 0; b < s.batch; ++b)
    for (std::int64_t i = 0; i < Sq; ++i) {
      const KeyRange r = visible_range(problem, i);
      const Keys keys{r.first, r.count};
      if (r.count < 1 || r.count > (std::int64_t{1} << 24) || !std::has_single_bit(static_cast<std::uint64_t>(r.count))) continue;
      for (std::int64_t h = 0; h < s.heads_q; ++h) {
        // A sink adds v_exp_f32(fl(s_h·log2 e) − m̂) to l̂: not a power of two (§16).
        if (!problem.sinks.empty() && problem.sinks[static_cast<std::size_t>(h)] != -std::numeric_limits<float>::infinity()) continue;
        const std::size_t q_row = static_cast<std::size_t>(((b * Sq + i) * s.heads_q + h) * D);
        const std::size_t o_row = static_cast<std::size_t>(((b * Sq + i) * s.heads_q + h) * Dv);
        // Every score ±0: σ = 0, or q_i all ±0 (σ is finite: validate()). A soft cap keeps ±0 (§15).
        const std::uint16_t sign_off = problem.dtype == ElementType::BF16 ? 0x7FFF : 0x7F;
        const bool zero_q = std::all_of(problem.q.begin() + static_cast<std::ptrdiff_t>(q_row),
                                        problem.q.begin() + static_cast<std::ptrdiff_t>(q_row) + D,
                                        [&](std::uint16_t x) { return (x & sign_off) == 0 && x != 0x80; });
        if (problem.scale != 0.0f && !zero_q) continue;
        if (!scores_finite(problem, &problem.q[q_row], b, h / group, keys)) continue;
        const double dv = descale_at(problem.descale_v, s.heads_kv, b, h / group);
        for (std::int64_t d = 0; d < Dv; ++d)
          out[o_row + static_cast<std::size_t>(d)] = dequantised(exact_column_mean(problem, b, h / group, d, keys), dv);
      }
    }
  return out;
}

std::uint16_t exact_o_bits(double pre_rounding, numerics::Rounding mode) {
  return numerics::bf16_from_f32(static_cast<float>(pre_rounding), mode);  // exact fp32 (§13)
}

bool exact_o_holds(double pre_rounding, std::uint16_t got, numerics::Rounding mode) {
  if (pre_rounding == 0) return bf16_value(got) == 0;
  return got == exact_o_bits(pre_rounding, mode);
}

std::string exact_o_violation(double pre_rounding, std::uint16_t got, numerics::Rounding mode) {
  std::ostringstream m;
  m.precision(10);
  m << "is " << bf16_value(got) << "; every kernel with the declared arithmetic computes exactly " << pre_rounding
    << " before rounding, so " << numerics::to_string(mode) << " gives " << bf16_value(exact_o_bits(pre_rounding, mode));
  return m.str();
}

}  // namespace cdna::reference
