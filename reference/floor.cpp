#include "reference/floor.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace cdna::reference {
namespace {

double bf16_value(std::uint16_t bits) { return static_cast<double>(numerics::f32_from_bf16(bits)); }

double round_bf16(double x, numerics::Rounding mode) {
  return static_cast<double>(numerics::f32_from_bf16(numerics::bf16_from_f32(static_cast<float>(x), mode)));
}

}  // namespace

std::vector<double> attention_floor_output(const AttentionProblem& problem, numerics::Rounding mode) {
  validate(problem);
  require_base_definition(problem, "the floor model");
  const AttentionShape& s = problem.shape;
  const std::int64_t D = s.head_dim, Sq = s.seqlen_q, Sk = s.seqlen_k;
  const std::int64_t group = s.heads_q / s.heads_kv;
  const double scale = static_cast<double>(problem.scale);
  std::vector<double> out(static_cast<std::size_t>(s.o_elements()), 0.0);
  std::vector<double> score(static_cast<std::size_t>(Sk)), p_tilde(static_cast<std::size_t>(Sk));
  std::vector<double> acc(static_cast<std::size_t>(D));

  for (std::int64_t b = 0; b < s.batch; ++b) {
    for (std::int64_t h = 0; h < s.heads_q; ++h) {
      const std::int64_t hk = h / group;
      for (std::int64_t i = 0; i < Sq; ++i) {
        double* o_row = &out[static_cast<std::size_t>(((b * Sq + i) * s.heads_q + h) * D)];
        const std::int64_t n = visible_keys(problem.mask, i, Sq, Sk);
        if (n == 0) continue;  // +0.0
        const std::uint16_t* q = &problem.q[static_cast<std::size_t>(((b * Sq + i) * s.heads_q + h) * D)];
        // Scores in double: bf16 products are exact, and the classification of docs/semantics.md
        // §5 (NaN, ±inf) follows IEEE exactly as the definition's does (no double overflow:
        // |q·k| < 2^256 per product, D < 2^31 terms).
        double max_s = -std::numeric_limits<double>::infinity();
        std::int64_t n_nan = 0, n_pos_inf = 0, inf_key = -1;
        for (std::int64_t j = 0; j < n; ++j) {
          const std::uint16_t* k = &problem.k[static_cast<std::size_t>(((b * Sk + j) * s.heads_kv + hk) * D)];
          double dot = 0;
          for (std::int64_t d = 0; d < D; ++d) dot += bf16_value(q[d]) * bf16_value(k[d]);
          const double sj = scale * dot;
          score[static_cast<std::size_t>(j)] = sj;
          if (std::isnan(sj)) ++n_nan;
          if (sj == std::numeric_limits<double>::infinity()) {
            ++n_pos_inf;
            inf_key = j;
          }
          if (!std::isnan(sj)) max_s = std::max(max_s, sj);
        }
        // The non-finite classes of §5, where the definition's value involves no rounding of P
        // or O: the ideal kernel gives the definition's value itself.
        if (n_nan > 0 || n_pos_inf > 1) {  // §5.4, §5.6 (two or more +inf scores)
          for (std::int64_t d = 0; d < D; ++d) o_row[d] = std::numeric_limits<double>::quiet_NaN();
          continue;
        }
        if (n_pos_inf == 1) {  // §5.6: one +inf score, O = V of that key (bf16, so exact)
          const std::uint16_t* v = &problem.v[static_cast<std::size_t>(((b * Sk + inf_key) * s.heads_kv + hk) * D)];
          for (std::int64_t d = 0; d < D; ++d) o_row[d] = bf16_value(v[d]);
          continue;
        }
        if (max_s == -std::numeric_limits<double>::infinity()) continue;  // §5.5: all -inf, O = +0.0
        double l = 0;
        for (std::int64_t j = 0; j < n; ++j) {
          const double p = static_cast<double>(static_cast<float>(std::exp(score[static_cast<std::size_t>(j)] - max_s)));
          l += p;
          p_tilde[static_cast<std::size_t>(j)] = round_bf16(p, mode);
        }
        std::fill(acc.begin(), acc.end(), 0.0);
        for (std::int64_t j = 0; j < n; ++j) {
          // A −inf score weighs 0 exactly (§5.5): its V has no effect, even NaN or inf.
          if (score[static_cast<std::size_t>(j)] == -std::numeric_limits<double>::infinity()) continue;
          const std::uint16_t* v = &problem.v[static_cast<std::size_t>(((b * Sk + j) * s.heads_kv + hk) * D)];
          for (std::int64_t d = 0; d < D; ++d) acc[static_cast<std::size_t>(d)] += p_tilde[static_cast<std::size_t>(j)] * bf16_value(v[d]);
        }
        for (std::int64_t d = 0; d < D; ++d) o_row[d] = round_bf16(acc[static_cast<std::size_t>(d)] / l, mode);
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
    double e = std::isfinite(got[i]) ? std::abs(got[i] - exact[i]) : std::numeric_limits<double>::infinity();
    if (!discount.empty()) e = std::max(0.0, e - discount[i]);
    err2 += e * e;
    ref2 += exact[i] * exact[i];
  }
  if (ref2 == 0) return err2 == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  return std::sqrt(err2 / ref2);
}

}  // namespace cdna::reference
