#include "golden/stored_values.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>

#include "numerics/bf16.hpp"

namespace cdna::golden {
namespace {

double bf16_value(std::uint16_t bits) { return static_cast<double>(numerics::f32_from_bf16(bits)); }

bool finite_bits(const std::vector<std::uint16_t>& t, std::size_t at, std::int64_t n) {
  for (std::int64_t d = 0; d < n; ++d)
    if (!std::isfinite(bf16_value(t[at + static_cast<std::size_t>(d)]))) return false;
  return true;
}

// A double holding a bf16 value: the value survives float and bf16 conversion unchanged.
bool is_bf16_value(double x) {
  if (std::isnan(x)) return true;
  const float f = static_cast<float>(x);
  if (static_cast<double>(f) != x) return false;
  return bf16_value(numerics::bf16_from_f32(f, numerics::Rounding::RTZ)) == x;
}

// A stored bound next to its exact value: "" or why it is impossible. may_be_inf: the row has a
// non-finite input or scores that may overflow fp32.
std::string bound_problem(double bound, double exact, bool may_be_inf) {
  if (std::isnan(exact)) return std::isnan(bound) ? "" : "is not NaN, but the exact value is NaN";
  if (std::isnan(bound)) return "is NaN, but the exact value is not";
  if (bound < 0) return "is negative";
  if (std::isinf(bound) && std::isfinite(exact) && !may_be_inf)
    return "is +inf, but the row's inputs are finite and its scores cannot overflow fp32";
  return "";
}

std::string fmt(double x) { return full_precision(x); }  // short name for messages

}  // namespace

std::string stored_values_problem(const GoldenFile& g) {
  const reference::AttentionProblem& p = g.problem;
  const reference::AttentionShape& s = p.shape;
  const std::int64_t D = s.head_dim, group = s.heads_q / s.heads_kv;
  for (std::int64_t b = 0; b < s.batch; ++b)
    for (std::int64_t h = 0; h < s.heads_q; ++h)
      for (std::int64_t i = 0; i < s.seqlen_q; ++i) {
        const std::int64_t hk = h / group;
        const std::int64_t n = reference::visible_keys(p.mask, i, s.seqlen_q, s.seqlen_k);
        const auto q_at = static_cast<std::size_t>(((b * s.seqlen_q + i) * s.heads_q + h) * D);
        bool finite = finite_bits(p.q, q_at, D);
        double max_dot = 0;  // max over visible keys of sum_d |Q_d K_d|
        for (std::int64_t j = 0; j < n; ++j) {
          const auto kv_at = static_cast<std::size_t>(((b * s.seqlen_k + j) * s.heads_kv + hk) * D);
          finite = finite && finite_bits(p.k, kv_at, D) && finite_bits(p.v, kv_at, D);
          double dot = 0;
          for (std::int64_t d = 0; d < D; ++d)
            dot += std::abs(bf16_value(p.q[q_at + static_cast<std::size_t>(d)]) *
                            bf16_value(p.k[kv_at + static_cast<std::size_t>(d)]));
          max_dot = std::max(max_dot, dot);
        }
        // Where reference::attention_bounds gives up (docs/golden-files.md, "Stored values"): fp32
        // may overflow (2^128; 2^120 leaves its margins room), or scores so large that its double
        // evaluation of P_j = exp(s_j - LSE) is no longer within a factor 1.5 (|s| ~ 2^49).
        const double scale = std::abs(static_cast<double>(p.scale));
        const bool may_be_inf = !finite || !(max_dot * std::max(1.0, 2.0 * scale) < 0x1p120) ||
                                !(scale * static_cast<double>(D) * max_dot < 0x1p40);
        const auto lse_at = static_cast<std::size_t>((b * s.heads_q + h) * s.seqlen_q + i);
        std::ostringstream row;
        row << "b=" << b << " h=" << h << " i=" << i;
        const double lse = g.exact.lse[lse_at];
        if (finite && n > 0 && !std::isfinite(lse))
          return "lse_exact " + row.str() + " is " + fmt(lse) + ", but the row sees " + std::to_string(n) +
                 " key(s) and its inputs are finite (the definition gives a finite LSE)";
        if (finite && n == 0 && lse != -INFINITY)
          return "lse_exact " + row.str() + " is " + fmt(lse) + ", but the row sees no key (the definition gives -inf)";
        if (auto why = bound_problem(g.lse_bound[lse_at], lse, may_be_inf); !why.empty())
          return "lse_bound " + row.str() + " = " + fmt(g.lse_bound[lse_at]) + " " + why;
        if (n == 0 && finite && g.lse_bound[lse_at] != 0)
          return "lse_bound " + row.str() + " = " + fmt(g.lse_bound[lse_at]) + ", but a row without keys is exact (0)";
        for (std::int64_t d = 0; d < D; ++d) {
          const std::size_t at = q_at + static_cast<std::size_t>(d);
          const double o = g.exact.o[at];
          const std::string where = " " + row.str() + " d=" + std::to_string(d);
          if (finite && !std::isfinite(o))
            return "o_exact" + where + " is " + fmt(o) + ", but the row's inputs are finite (the definition gives a "
                   "finite O)";
          if (finite && n == 0 && (o != 0 || std::signbit(o)))
            return "o_exact" + where + " is " + fmt(o) + ", but the row sees no key (the definition gives +0.0)";
          if (auto why = bound_problem(g.o_bound[at], o, may_be_inf); !why.empty())
            return "o_bound" + where + " = " + fmt(g.o_bound[at]) + " " + why;
          if (n == 0 && finite && g.o_bound[at] != 0)
            return "o_bound" + where + " = " + fmt(g.o_bound[at]) + ", but a row without keys is exact (0)";
          const double fl = g.o_floor[at];
          if (!is_bf16_value(fl)) return "o_floor" + where + " = " + fmt(fl) + " is not a bf16 value";
          if (std::isfinite(o) && !std::isfinite(fl))
            return "o_floor" + where + " is " + fmt(fl) + ", but the exact value is finite";
        }
      }
  return "";
}

}  // namespace cdna::golden
