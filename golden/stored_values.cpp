#include "golden/stored_values.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>

#include "numerics/bf16.hpp"
#include "reference/attention/varlen.hpp"

namespace cdna::golden {
namespace {

double bf16_value(std::uint16_t bits) { return static_cast<double>(numerics::f32_from_bf16(bits)); }
double value(reference::ElementType dtype, std::uint16_t bits) { return reference::element_value(dtype, bits); }

bool finite_bits(reference::ElementType dtype, const std::vector<std::uint16_t>& t, std::size_t at, std::int64_t n) {
  for (std::int64_t d = 0; d < n; ++d)
    if (!std::isfinite(value(dtype, t[at + static_cast<std::size_t>(d)]))) return false;
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

// The values of one dense problem (a dense file, or one sequence of a varlen file).
struct DenseValues {
  const reference::AttentionProblem& p;
  const std::vector<double>& o_exact;
  const std::vector<double>& lse_exact;
  const std::vector<double>& o_bound;
  const std::vector<double>& lse_bound;
  const std::vector<double>& o_floor;
};

std::string dense_problem(const DenseValues& x) {
  const reference::AttentionProblem& p = x.p;
  const reference::AttentionShape& s = p.shape;
  const std::int64_t D = s.head_dim, Dv = s.dv(), group = s.heads_q / s.heads_kv;
  for (std::int64_t b = 0; b < s.batch; ++b)
    for (std::int64_t h = 0; h < s.heads_q; ++h)
      for (std::int64_t i = 0; i < s.seqlen_q; ++i) {
        const std::int64_t hk = h / group;
        const reference::KeyRange keys = reference::visible_range(p, i);
        const std::int64_t n = keys.count;
        const auto q_at = static_cast<std::size_t>(((b * s.seqlen_q + i) * s.heads_q + h) * D);
        bool finite = finite_bits(p.dtype, p.q, q_at, D);
        // Real inputs are descale x value (fp8); the bound sees the scores of the real values.
        const double dqk = reference::descale_at(p.descale_q, s.heads_kv, b, hk) *
                           reference::descale_at(p.descale_k, s.heads_kv, b, hk);
        double max_dot = 0;  // max over visible keys of sum_d |Q_d K_d|
        double max_v = 0;    // max over visible keys of |V| (real: dv x the value)
        const double dv = reference::descale_at(p.descale_v, s.heads_kv, b, hk);
        for (std::int64_t j = keys.first; j < keys.first + n; ++j) {
          const auto k_at = static_cast<std::size_t>(((b * s.seqlen_k + j) * s.heads_kv + hk) * D);
          const auto v_at = static_cast<std::size_t>(((b * s.seqlen_k + j) * s.heads_kv + hk) * Dv);
          finite = finite && finite_bits(p.dtype, p.k, k_at, D) && finite_bits(p.dtype, p.v, v_at, Dv);
          double dot = 0;
          for (std::int64_t d = 0; d < D; ++d)
            dot += std::abs(value(p.dtype, p.q[q_at + static_cast<std::size_t>(d)]) *
                            value(p.dtype, p.k[k_at + static_cast<std::size_t>(d)]));
          max_dot = std::max(max_dot, dot * dqk);
          for (std::int64_t d = 0; d < Dv; ++d)
            max_v = std::max(max_v, std::abs(dv * value(p.dtype, p.v[v_at + static_cast<std::size_t>(d)])));
        }
        // Where reference::attention_bounds gives up (docs/golden-files.md, "Stored values"): fp32
        // may overflow (2^128; 2^120 leaves its margins room) in a score or its product by the
        // scale (with a cap: by scale/c, and fl(c·log2 e) itself), in the P·V accumulator (n keys of
        // V up to max_v) or in the sink's fl(s_h·log2 e); or scores so large that its double
        // evaluation of P_j = exp(s_j - LSE) is no longer within a factor 1.5 (|s| ~ 2^49).
        const double scale = std::abs(static_cast<double>(p.scale));
        const double cap = static_cast<double>(p.softcap);
        const double sink_h = p.sinks.empty() ? 0.0 : std::abs(static_cast<double>(p.sinks[static_cast<std::size_t>(h)]));
        const bool may_be_inf = !finite || !(max_dot * std::max(1.0, 2.0 * (cap > 0 ? scale / cap : scale)) < 0x1p120) ||
                                !(scale * static_cast<double>(D) * max_dot < 0x1p40) || !(cap < 0x1p120) ||
                                !(static_cast<double>(n) * max_v < 0x1p120) || (std::isfinite(sink_h) && !(sink_h < 0x1p120));
        // A finite sink is part of the normaliser: a row without a visible key then has LSE = s_h
        // (docs/semantics.md, sinks); -inf means no sink.
        const double sink = p.sinks.empty() ? -INFINITY : static_cast<double>(p.sinks[static_cast<std::size_t>(h)]);
        const auto lse_at = static_cast<std::size_t>((b * s.heads_q + h) * s.seqlen_q + i);
        std::ostringstream row;
        row << "b=" << b << " h=" << h << " i=" << i;
        const double lse = x.lse_exact[lse_at];
        if (finite && n > 0 && !std::isfinite(lse))
          return "lse_exact " + row.str() + " is " + fmt(lse) + ", but the row sees " + std::to_string(n) +
                 " key(s) and its inputs are finite (the definition gives a finite LSE)";
        if (finite && n == 0 && lse != sink)
          return "lse_exact " + row.str() + " is " + fmt(lse) + ", but the row sees no key (the definition gives " +
                 (std::isinf(sink) ? std::string("-inf") : "its sink " + fmt(sink)) + ")";
        if (auto why = bound_problem(x.lse_bound[lse_at], lse, may_be_inf); !why.empty())
          return "lse_bound " + row.str() + " = " + fmt(x.lse_bound[lse_at]) + " " + why;
        // Without keys LSE is -inf exactly; with a finite sink it is s_h, which a kernel computes
        // (log of exp(s_h)) within a bound the bound's own rules give (docs/error-analysis.md).
        if (n == 0 && finite && std::isinf(sink) && x.lse_bound[lse_at] != 0)
          return "lse_bound " + row.str() + " = " + fmt(x.lse_bound[lse_at]) + ", but a row without keys is exact (0)";
        const auto o_row = static_cast<std::size_t>(((b * s.seqlen_q + i) * s.heads_q + h) * Dv);
        for (std::int64_t d = 0; d < Dv; ++d) {
          const std::size_t at = o_row + static_cast<std::size_t>(d);
          const double o = x.o_exact[at];
          const std::string where = " " + row.str() + " d=" + std::to_string(d);
          if (finite && !std::isfinite(o))
            return "o_exact" + where + " is " + fmt(o) + ", but the row's inputs are finite (the definition gives a "
                   "finite O)";
          if (finite && n == 0 && (o != 0 || std::signbit(o)))
            return "o_exact" + where + " is " + fmt(o) + ", but the row sees no key (the definition gives +0.0)";
          if (auto why = bound_problem(x.o_bound[at], o, may_be_inf); !why.empty())
            return "o_bound" + where + " = " + fmt(x.o_bound[at]) + " " + why;
          if (n == 0 && finite && x.o_bound[at] != 0)
            return "o_bound" + where + " = " + fmt(x.o_bound[at]) + ", but a row without keys is exact (0)";
          const double fl = x.o_floor[at];
          if (!is_bf16_value(fl)) return "o_floor" + where + " = " + fmt(fl) + " is not a bf16 value";
          if (std::isfinite(o) && !std::isfinite(fl))
            return "o_floor" + where + " is " + fmt(fl) + ", but the exact value is finite";
        }
      }
  return "";
}

}  // namespace

std::string stored_values_problem(const GoldenFile& g) {
  if (!g.varlen) return dense_problem({g.problem, g.exact.o, g.exact.lse, g.o_bound, g.lse_bound, g.o_floor});
  // Per sequence, in its own coordinates; rows no sequence owns have no defined value.
  const reference::VarlenProblem& vp = *g.varlen;
  for (std::int64_t b = 0; b < vp.sequences(); ++b) {
    const reference::AttentionProblem p = reference::sequence_problem(vp, b);
    std::vector<double> o_exact, lse_exact, o_bound, lse_bound, o_floor, unused;
    reference::gather_sequence(vp, b, g.exact.o, g.exact.lse, o_exact, lse_exact);
    reference::gather_sequence(vp, b, g.o_bound, g.lse_bound, o_bound, lse_bound);
    reference::gather_sequence(vp, b, g.o_floor, g.lse_bound, o_floor, unused);
    if (std::string why = dense_problem({p, o_exact, lse_exact, o_bound, lse_bound, o_floor}); !why.empty())
      return "sequence " + std::to_string(b) + ": " + why;
  }
  return "";
}

}  // namespace cdna::golden
