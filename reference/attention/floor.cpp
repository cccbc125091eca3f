#include "reference/attention/floor.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace cdna::reference {
namespace {

double round_bf16(double x, numerics::Rounding mode) {
  return static_cast<double>(numerics::f32_from_bf16(numerics::bf16_from_f32(static_cast<float>(x), mode)));
}

}  // namespace

std::vector<double> attention_floor_output(const AttentionProblem& problem, numerics::Rounding mode) {
  validate(problem);
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const AttentionShape& s = problem.shape;
  const std::int64_t D = s.head_dim, Dv = s.dv(), Sq = s.seqlen_q, Sk = s.seqlen_k;
  const std::int64_t group = s.heads_q / s.heads_kv;
  const double cap = static_cast<double>(problem.softcap);
  std::vector<double> out(static_cast<std::size_t>(s.o_elements()), 0.0);
  std::vector<double> score(static_cast<std::size_t>(Sk)), p_tilde(static_cast<std::size_t>(Sk));
  std::vector<double> acc(static_cast<std::size_t>(Dv));
  auto value = [&](std::uint16_t bits) { return element_value(problem.dtype, bits); };

  for (std::int64_t b = 0; b < s.batch; ++b) {
    for (std::int64_t h = 0; h < s.heads_q; ++h) {
      const std::int64_t hk = h / group;
      // The dequantised problem (fp8: real inputs are descale × value; docs/semantics.md).
      const double sigma = static_cast<double>(problem.scale) * descale_at(problem.descale_q, s.heads_kv, b, hk) *
                           descale_at(problem.descale_k, s.heads_kv, b, hk);
      const double dv = descale_at(problem.descale_v, s.heads_kv, b, hk);
      const double sink = problem.sinks.empty() ? -kInf : static_cast<double>(problem.sinks[static_cast<std::size_t>(h)]);
      for (std::int64_t i = 0; i < Sq; ++i) {
        double* o_row = &out[static_cast<std::size_t>(((b * Sq + i) * s.heads_q + h) * Dv)];
        const KeyRange range = visible_range(problem, i);
        if (range.count == 0) continue;  // +0.0 (with or without a sink)
        const std::int64_t j0 = range.first, j1 = range.first + range.count;
        const std::uint16_t* q = &problem.q[static_cast<std::size_t>(((b * Sq + i) * s.heads_q + h) * D)];
        // Scores in double: bf16 and fp8 products are exact, and the classification of
        // docs/semantics.md §5 (NaN, ±inf) follows IEEE exactly as the definition's does (no
        // double overflow: |q·k| < 2^256 per product, D < 2^31 terms). A soft cap maps ±inf to
        // ±c, so a capped row has no infinite score.
        double max_s = -kInf;
        std::int64_t n_nan = 0, n_pos_inf = 0, inf_key = -1;
        for (std::int64_t j = j0; j < j1; ++j) {
          const std::uint16_t* k = &problem.k[static_cast<std::size_t>(((b * Sk + j) * s.heads_kv + hk) * D)];
          double dot = 0;
          for (std::int64_t d = 0; d < D; ++d) dot += value(q[d]) * value(k[d]);
          double sj = sigma * dot;
          if (cap > 0) sj = cap * std::tanh(sj / cap);
          score[static_cast<std::size_t>(j)] = sj;
          if (std::isnan(sj)) ++n_nan;
          if (sj == kInf) {
            ++n_pos_inf;
            inf_key = j;
          }
          if (!std::isnan(sj)) max_s = std::max(max_s, sj);
        }
        // The non-finite classes of §5, where the definition's value involves no rounding of P
        // or O: the ideal kernel gives the definition's value itself.
        if (n_nan > 0 || n_pos_inf > 1) {  // §5.4, §5.6 (two or more +inf scores)
          for (std::int64_t d = 0; d < Dv; ++d) o_row[d] = std::numeric_limits<double>::quiet_NaN();
          continue;
        }
        if (n_pos_inf == 1) {  // §5.6: one +inf score, O = V of that key (dv × an fp8 value: exact)
          const std::uint16_t* v = &problem.v[static_cast<std::size_t>(((b * Sk + inf_key) * s.heads_kv + hk) * Dv)];
          for (std::int64_t d = 0; d < Dv; ++d) o_row[d] = dv * value(v[d]);
          continue;
        }
        if (max_s == -kInf) continue;  // §5.5: all -inf, O = +0.0 (a sink changes only LSE)
        // The sink is in the running maximum and enters the normaliser only, unrounded:
        // exp(s_h − M) with M = max(max_s, s_h) (docs/error-analysis.md §16).
        max_s = std::max(max_s, sink);
        double l = sink == -kInf ? 0.0 : std::exp(sink - max_s);
        for (std::int64_t j = j0; j < j1; ++j) {
          const double p = static_cast<double>(static_cast<float>(std::exp(score[static_cast<std::size_t>(j)] - max_s)));
          l += p;
          p_tilde[static_cast<std::size_t>(j)] = round_bf16(p, mode);
        }
        std::fill(acc.begin(), acc.end(), 0.0);
        for (std::int64_t j = j0; j < j1; ++j) {
          // A −inf score weighs 0 exactly (§5.5): its V has no effect, even NaN or inf.
          if (score[static_cast<std::size_t>(j)] == -kInf) continue;
          const std::uint16_t* v = &problem.v[static_cast<std::size_t>(((b * Sk + j) * s.heads_kv + hk) * Dv)];
          for (std::int64_t d = 0; d < Dv; ++d) acc[static_cast<std::size_t>(d)] += p_tilde[static_cast<std::size_t>(j)] * dv * value(v[d]);
        }
        for (std::int64_t d = 0; d < Dv; ++d) o_row[d] = round_bf16(acc[static_cast<std::size_t>(d)] / l, mode);
      }
    }
  }
  return out;
}

double relative_rms_error(std::span<const double> got, std::span<const double> exact,
                          std::span<const double> discount) {
  if (got.size() != exact.size() || (!discount.empty() && discount.size() != exact.size())) {
    throw std::invalid_argument("relative_rms_error: sizes differ");
  }
  double err2 = 0, ref2 = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!std::isfinite(exact[i])) continue;
    if (!discount.empty() && std::isinf(discount[i])) continue;  // beyond the arithmetic's range: not judged
    double e = std::isfinite(got[i]) ? std::abs(got[i] - exact[i]) : std::numeric_limits<double>::infinity();
    if (!discount.empty()) e = std::max(0.0, e - discount[i]);
    err2 += e * e;
    ref2 += exact[i] * exact[i];
  }
  if (ref2 == 0) return err2 == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  return std::sqrt(err2 / ref2);
}

}  // namespace cdna::reference
