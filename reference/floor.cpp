#include "reference/floor.hpp"

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
        double max_s = -std::numeric_limits<double>::infinity();
        for (std::int64_t j = 0; j < n; ++j) {
          const std::uint16_t* k = &problem.k[static_cast<std::size_t>(((b * Sk + j) * s.heads_kv + hk) * D)];
          double dot = 0;
          for (std::int64_t d = 0; d < D; ++d) dot += bf16_value(q[d]) * bf16_value(k[d]);
          score[static_cast<std::size_t>(j)] = scale * dot;
          max_s = std::max(max_s, scale * dot);
        }
        if (!std::isfinite(max_s)) {
          for (std::int64_t d = 0; d < D; ++d) o_row[d] = std::numeric_limits<double>::quiet_NaN();
          continue;
        }
        double l = 0;
        for (std::int64_t j = 0; j < n; ++j) {
          const double p = static_cast<double>(static_cast<float>(std::exp(score[static_cast<std::size_t>(j)] - max_s)));
          l += p;
          p_tilde[static_cast<std::size_t>(j)] = round_bf16(p, mode);
        }
        std::fill(acc.begin(), acc.end(), 0.0);
        for (std::int64_t j = 0; j < n; ++j) {
          const std::uint16_t* v = &problem.v[static_cast<std::size_t>(((b * Sk + j) * s.heads_kv + hk) * D)];
          for (std::int64_t d = 0; d < D; ++d) acc[static_cast<std::size_t>(d)] += p_tilde[static_cast<std::size_t>(j)] * bf16_value(v[d]);
        }
        for (std::int64_t d = 0; d < D; ++d) o_row[d] = round_bf16(acc[static_cast<std::size_t>(d)] / l, mode);
      }
    }
  }
  return out;
}

double relative_rms_error(std::span<const double> got, std::span<const double> exact) {
  if (got.size() != exact.size()) throw std::invalid_argument("relative_rms_error: sizes differ");
  double err2 = 0, ref2 = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!std::isfinite(exact[i])) continue;
    const double e = got[i] - exact[i];
    err2 += e * e;
    ref2 += exact[i] * exact[i];
  }
  if (ref2 == 0) return err2 == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  return std::sqrt(err2 / ref2);
}

}  // namespace cdna::reference
