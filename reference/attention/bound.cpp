#include "reference/attention/bound.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>

namespace cdna::reference {
namespace bound_terms {

double gamma(double n, double u) {
  const double nu = n * u;
  return nu < 1 ? nu / (1 - nu) : std::numeric_limits<double>::infinity();
}

double bf16_unit_roundoff(numerics::Rounding mode) {
  return mode == numerics::Rounding::RTZ ? 0x1p-7 : 0x1p-8;
}

double mfma_dot_error(double depth, double abs_sum, double trunc) {
  const double g = gamma(depth, kUBlock);
  return (g + trunc * (1 + g)) * abs_sum + depth * 0x1p-146;
}

Depths kernel_depths(std::int64_t head_dim, std::int64_t seqlen_k) {
  return kernel_depths(head_dim, KeyRange{0, seqlen_k}, 8);
}

Depths kernel_depths(std::int64_t head_dim, KeyRange range, std::int64_t qk_block) {
  auto ceil_div = [](std::int64_t a, std::int64_t b) { return (a + b - 1) / b; };
  const std::int64_t n = std::max<std::int64_t>(range.count, 1), first = std::max<std::int64_t>(range.first, 0);
  Depths d{static_cast<double>(ceil_div(head_dim, qk_block)), 0, 0, 0};
  // Any KV tile width of the MI300X kernels (16..128 keys), tiles aligned at key 0: the worst of
  // them (§3). A window's keys first .. first + n − 1 touch (first + n − 1)/W − first/W + 1 tiles;
  // tiles, blocks and terms without a visible key change nothing (exact zeros, §3).
  for (std::int64_t w : {16, 32, 64, 128}) {
    const std::int64_t wc = std::min(w, 16 * ceil_div(n, 16));  // visible keys of one tile, at most
    const std::int64_t tiles = (first + n - 1) / w - first / w + 1;
    const std::int64_t blocks = std::min(w / 8, ceil_div(wc, 8) + (first % 8 != 0 ? 1 : 0));
    d.pv = std::max(d.pv, static_cast<double>(tiles * (blocks + 1)));
    d.l = std::max(d.l, static_cast<double>(wc - 1 + 2 * tiles));
    if (w == 16) d.exps = static_cast<double>(tiles);
  }
  return d;
}

double tanh_abs_error() {
  // §15: (i) the argument's two roundings, damped by tanh' (≤ 2γ₂/(e(1 − γ₂)) ≤ 0.75γ₂);
  // (ii)–(iii) v_exp, the add and v_rcp: 2/(E + 1) within η of 2/(2^z + 1) ≤ 2; (iv) 1 − t: exact
  // (Sterbenz) for t ≥ ½, else ≤ u; and a flushed subnormal argument (< 2^-126).
  const double eta = (1 + kUlp) / ((1 - kUlp) * (1 - kU32)) - 1;
  return 0.75 * gamma(2, kU32) + 2 * eta + kU32 + 0x1p-126;
}

}  // namespace bound_terms

namespace {

using namespace bound_terms;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kLn2 = std::numbers::ln2;
constexpr double kLog2e = std::numbers::log2e;
constexpr double kMin = 0x1p-126;       // smallest fp32 normal: flush threshold, subnormal exponent
constexpr double kSelf = 1 + 0x1p-40;   // this file's own double rounding (a few hundred operations)

// max(|x|, 2^emin): bounds 2^(exponent) of the MFMA model for every finite input x of a format
// whose smallest normal exponent is emin (§2, §18).
double magnitude(double x, double min_normal = kMin) { return std::max(std::abs(x), min_normal); }

// 2^emin of the Q·K MFMA's input format (numerics/mfma.hpp: subnormal fp8 inputs use the
// format's minimum exponent, −7 for E4M3FNUZ and −15 for E5M2FNUZ).
double qk_min_normal(ElementType t) {
  switch (t) {
    case ElementType::FP8_E4M3FNUZ: return 0x1p-7;
    case ElementType::FP8_E5M2FNUZ: return 0x1p-15;
    case ElementType::BF16: break;
  }
  return kMin;
}

// How the kernel turns its fp32 Q·K MFMA result into a base-2 score, for one (batch, KV head):
// §4 (bf16), §15 (soft cap), §18 (fp8 descale). Every multiply by an fp32 factor rounds (and may
// flush); `amp` bounds the growth of a flushed intermediate and of partial products through the
// factors still to come, in any order: Π max(1, |factor|).
struct ScoreModel {
  bool fp8 = false;
  double sigma = 0;      // σ·dq·dk, the real score per unit of the raw MFMA result
  double cap = 0;        // c, or 0 (no soft cap)
  double g_mul = 0;      // γ_n(u) of the n roundings up to the score (no cap) or up to y = s/c (cap)
  double flush = 0;      // flushes of those multiplies, in the units of their result
  double amp = 0;        // Π max(1, |factor|) over those factors
  double trunc = kTrunc, min_normal = kMin;
};

ScoreModel score_model(const AttentionProblem& p, std::int64_t b, std::int64_t hk) {
  ScoreModel m;
  const std::int64_t hkv = p.shape.heads_kv;
  m.fp8 = p.dtype != ElementType::BF16;
  const double dq = descale_at(p.descale_q, hkv, b, hk), dk = descale_at(p.descale_k, hkv, b, hk);
  m.sigma = static_cast<double>(p.scale) * dq * dk;
  m.cap = static_cast<double>(p.softcap);
  // Roundings: the constant fl(σ·log2 e) or fl(σ/c) and its product, or σ and fl(log2 e) apart
  // (3 with log2 e; §1 A1, §15), and one product each by dq, dk for fp8 (§18).
  const int n = (m.cap > 0 ? 2 : 3) + (m.fp8 ? 2 : 0);
  m.g_mul = gamma(n, kU32);
  const double first = m.cap > 0 ? std::abs(static_cast<double>(p.scale)) / m.cap : std::abs(static_cast<double>(p.scale));
  m.amp = std::max(1.0, first) * std::max(1.0, dq) * std::max(1.0, dk) * (m.cap > 0 ? 1.0 : kLog2e) * (1 + m.g_mul);
  m.flush = n * kMin * m.amp;
  m.trunc = m.fp8 ? kTrunc8 : kTrunc;
  m.min_normal = qk_min_normal(p.dtype);
  return m;
}

// One visible key's exact score and the kernel's error on it (§4, §15, §18).
struct KeyScore {
  double s = 0;        // the definition's score (capped), natural units, in double
  double t = 0;        // s·log2 e
  double delta1 = 0;   // |ŝ₂ − t|: the kernel's base-2 score error
  double dx = 0;       // error of this file's double evaluation of s − LSE (before LSE's own)
  bool zero_weight = false;  // −inf score without a cap: weighs 0 exactly (§9)
  bool overflow = false;     // no finite fp32 analysis (A10)
};

KeyScore key_score(const ScoreModel& m, const Depths& depth, double dot, double adot, double amag, double g_dot) {
  KeyScore k;
  const double raw = m.sigma * dot;  // σ·dq·dk·q·k: the uncapped real score
  if (m.cap == 0) {
    if (raw == -kInf) {
      // The MFMA gives −inf (an infinite product, cdna3-facts.md §4), v_exp_f32(−inf) = +0.
      k.zero_weight = true;
      k.s = k.t = -kInf;
      return k;
    }
    const double dot_abs = std::abs(dot) + g_dot * adot;  // ≥ |q·k| exactly
    k.overflow = !(amag * 1.01 < 0x1p127) || !(m.amp * amag * 1.01 < 0x1p127);
    k.s = raw;
    k.t = raw * kLog2e;
    k.delta1 = std::abs(m.sigma) * kLog2e *
                   ((1 + m.g_mul) * mfma_dot_error(depth.qk, amag, m.trunc) + m.g_mul * dot_abs) + m.flush;
    k.dx = std::abs(m.sigma) * g_dot * adot * 1.01 + 0x1p-50 * std::abs(raw);
    return k;
  }
  // Soft cap (§15): y = raw/c, th = tanh y by the declared formula, ŝ₂ = fl(th·fl(c·log2 e)).
  const double y = raw / m.cap, th = std::tanh(y);
  double e_th = 0;  // |th_kernel − tanh y|
  if (std::isinf(dot)) {
    // An infinite raw score: the MFMA and fl(σ/c) keep it infinite, v_exp gives +inf or +0, so
    // th = ±1 exactly (§15) — the cap's limit, the definition's value.
  } else {
    const double dot_abs = std::abs(dot) + g_dot * adot;
    k.overflow = !(amag * 1.01 < 0x1p127) || !(m.amp * amag * 1.01 < 0x1p127);
    const double sc = std::abs(m.sigma) / m.cap;
    const double e_y = sc * ((1 + m.g_mul) * mfma_dot_error(depth.qk, amag, m.trunc) + m.g_mul * dot_abs) + m.flush;
    const double slope = 1 / std::pow(std::cosh(std::max(0.0, std::abs(y) - e_y)), 2);  // max tanh' on [y ± e_y]
    e_th = tanh_abs_error() + std::min(2.0, e_y * slope);
    k.dx = sc * g_dot * adot * 1.01 * m.cap;  // through tanh' ≤ 1, times c
  }
  const double g2 = gamma(2, kU32);
  k.s = m.cap * th;
  k.t = k.s * kLog2e;
  k.delta1 = m.cap * kLog2e * ((1 + g2) * e_th + g2 * std::abs(th)) + 2 * kMin;
  // tanh and the product by c in double (relative to the capped score), and raw's own rounding
  // through tanh': c·sech²(y)·|y|·2^-52 ≤ 2^-52·|c·tanh y| (y·sech² y ≤ tanh y), so relative too.
  k.dx += 0x1p-50 * std::abs(k.s);
  // fl(c·log2 e) must be finite (A10): a cap beyond 2^127/log2 e has no finite fp32 analysis.
  k.overflow = k.overflow || !(m.cap * kLog2e * 1.01 < 0x1p127);
  return k;
}

// The sink term of §16: its logit s_h, its exact base-2 logit t_s and the error Δ1_s of the
// kernel's ŝ₂,s = fl(s_h·fl(log2 e)); `overflow`: ŝ₂,s may be ±inf in fp32 (A10).
struct SinkTerm {
  bool present = false, overflow = false;
  double s = 0, t = 0, delta1 = 0;
};

SinkTerm sink_term(const AttentionProblem& p, std::int64_t h) {
  SinkTerm st;
  if (p.sinks.empty() || p.sinks[static_cast<std::size_t>(h)] == -std::numeric_limits<float>::infinity()) return st;
  st.present = true;
  st.s = static_cast<double>(p.sinks[static_cast<std::size_t>(h)]);
  st.t = st.s * kLog2e;
  st.delta1 = gamma(2, kU32) * std::abs(st.t) + kMin;
  st.overflow = !(std::abs(st.t) + st.delta1 < 0x1p127);
  return st;
}

// Bound on |LSE_kernel − s_h| for a row with no weighted key and a finite sink (§17): the kernel
// takes the sink as its only term, m̂ = ŝ₂_s = fl(s_h·fl(log2 e)), l̂ = v_exp_f32(0), or writes s_h.
double empty_sink_lse_bound(double sink) {
  return (gamma(5, kU32) * std::abs(sink) + 1.1 * kUlp + 0x1p-124) * kSelf;
}

// One O column's sums over the row's weighted keys (§5–§7), V in real units.
struct ColumnSums {
  double e_abs = 0;       // Σ P_j|V_jd| (the oracle's scale)
  double nu = 0;          // ν_d of §5
  double flush_keys = 0;  // Σ over flushable keys of c_j|V_jd| (§4)
  double vmax = -std::numeric_limits<double>::infinity(), vmin = std::numeric_limits<double>::infinity();
  double vabs = 0, vmag = 0;  // max |V_jd| and max V̄_jd
  double acc_abs = 0;         // Σ_j ω̄_j·V̄_jd: the most |acc_d| can reach, real units (§6 "Range")
};

// The row's constants of §5–§7.
struct RowFactors {
  double u_b, eps_n, lambda, infl, o_factor, kappa_hull, trunc_hull, flush_acc;
  bool overflow;
  double acc_limit;  // |acc_d| (real units) at which fp32 may overflow: 2^128·(1 − γ_pv − τ − 2^-23)·dv
};

struct ElementBound {
  double bound, oracle, flush;
};

// §5 (composed), §6 (hull, flushes) and §7 (the stored O) for one element with exact value o_exact.
ElementBound o_element_bound(double o_exact, ColumnSums c, const RowFactors& r) {
  // E_d = 0 (every V of the column 0) makes the oracle exact, even where the double evaluation
  // of the weights gave up (infl = +inf): no 0·inf.
  const double oracle = (c.e_abs > 0 ? r.o_factor * c.e_abs * r.infl : 0.0) + 0x1p-53 * std::abs(o_exact);
  const double o_abs = std::abs(o_exact) + oracle;
  // §6 "Range": where acc (or O, or a V value times dv) may reach fp32's range the declared
  // arithmetic may overflow and nothing is claimed (the flush allowance +inf: not in rule 4).
  if (r.overflow || !(c.acc_abs < r.acc_limit) || !(c.vmag * 1.001 < 0x1p128)) return {kInf, oracle, kInf};
  // Flushed keys (composed form; the hull holds for any non-negative weights, flushed ones
  // included) and flushes of acc (both forms), §6.
  c.flush_keys *= (1 + r.eps_n) * kSelf;
  double err = kInf;
  if (!r.overflow && r.lambda < 1) {  // composed bound (§5)
    err = (1 + r.eps_n) * (c.nu * r.infl + r.lambda * o_abs) / (1 - r.lambda) + r.eps_n * o_abs + c.flush_keys;
  }
  if (!r.overflow && std::isfinite(c.vmax - c.vmin)) {  // convex-hull bound (§6)
    const double hull = (c.vmax - c.vmin) + r.kappa_hull * c.vabs + r.trunc_hull * c.vmag;
    err = std::min(err, (1 + r.eps_n) * hull + r.eps_n * o_abs);
  }
  err += r.flush_acc;
  return {((1 + r.u_b) * err + r.u_b * o_abs + 0x1p-133) * kSelf + oracle, oracle,
          (1 + r.u_b) * (c.flush_keys + r.flush_acc) * kSelf};
}

// §8: LSE = ln 2 · (m̂ + log2 l̂) in fp32. delta_max: the largest argument error Δ_j (the sink's
// included), g_down: −log2((1 − ε_e)^T (1 − γ_l)); terms: the keys and the sink in l̂.
double lse_bound(double lse_exact, double lse_err, double t_max, double d1_max, double lambda, double delta_max,
                 double g_down, double terms) {
  const double y2 = lse_exact * kLog2e;
  const double y2_abs = std::abs(y2) + lse_err * kLog2e;
  const double log2_l = std::max(0.0, y2 - t_max) + 0x1p-40 * (std::abs(y2) + std::abs(t_max)) + lse_err * kLog2e;
  double zeta_l = std::min(lambda < 1 ? -std::log2(1 - lambda) : kInf, delta_max + g_down);
  zeta_l += terms * 0x1p-123;  // flushed terms in l̂ (each < 2^-126·(1 + ε_e)^T of l̂ ≥ ½)
  const double lam_log = log2_l + d1_max + zeta_l;  // ≥ |log2 l̂|
  const double e_log = kUlp * lam_log + kMin;
  const double e_y = zeta_l + e_log + kU32 * (y2_abs + zeta_l + e_log) + kMin;
  return (kLn2 * e_y + gamma(3, kU32) * kLn2 * (y2_abs + e_y) + kMin) * kSelf + lse_err;
}

}  // namespace

AttentionBounds attention_bounds(const AttentionProblem& problem, const AttentionResult& exact,
                                 numerics::Rounding mode) {
  validate(problem);
  const AttentionShape& s = problem.shape;
  if (std::ssize(exact.o) != s.o_elements() || std::ssize(exact.lse) != s.lse_elements()) {
    throw std::invalid_argument("attention_bounds: exact result sizes do not match the shape");
  }
  const std::int64_t D = s.head_dim, Dv = s.dv(), Sq = s.seqlen_q, Sk = s.seqlen_k;
  const std::int64_t group = s.heads_q / s.heads_kv;
  const double u_b = bf16_unit_roundoff(mode);
  const double g_dot = gamma(static_cast<double>(D), 0x1p-53);  // this file's double dot products
  const bool fp8 = problem.dtype != ElementType::BF16;
  // v_rcp_f32 (1 ULP) and the multiply (covers a RN divide); fp8: and the multiply by dv (§18).
  const double eps_n = (1 + kUlp) * (1 + kU32) * (fp8 ? 1 + kU32 : 1.0) - 1;

  AttentionBounds bounds;
  bounds.o.assign(exact.o.size(), kNaN);
  bounds.o_oracle.assign(exact.o.size(), kNaN);
  bounds.lse.assign(exact.lse.size(), kNaN);
  bounds.lse_oracle.assign(exact.lse.size(), kNaN);
  bounds.o_flush.assign(exact.o.size(), 0);

  const std::size_t nk = static_cast<std::size_t>(Sk);
  std::vector<KeyScore> ks(nk);
  std::vector<double> xs(nk), prob(nk), w_rel(nk), w_trunc(nk), p_flush(nk), w_acc(nk);
  for (std::int64_t b = 0; b < s.batch; ++b) {
    for (std::int64_t h = 0; h < s.heads_q; ++h) {
      const std::int64_t hk = h / group;
      const ScoreModel sm = score_model(problem, b, hk);
      const double dv = descale_at(problem.descale_v, s.heads_kv, b, hk);
      const SinkTerm sink = sink_term(problem, h);
      for (std::int64_t i = 0; i < Sq; ++i) {
        const std::int64_t o_row = ((b * Sq + i) * s.heads_q + h) * Dv;
        const std::size_t lse_idx = static_cast<std::size_t>((b * s.heads_q + h) * Sq + i);
        const double lse_exact = exact.lse[lse_idx];
        auto o_at = [&](std::int64_t d) { return static_cast<std::size_t>(o_row + d); };
        auto exact_facts = [&](double lse_bound) {  // O = +0.0 (and LSE) where nothing is rounded
          for (std::int64_t d = 0; d < Dv; ++d) bounds.o[o_at(d)] = bounds.o_oracle[o_at(d)] = 0;
          bounds.lse[lse_idx] = lse_bound;
          bounds.lse_oracle[lse_idx] = 0;
        };

        if (lse_exact == -kInf) {  // no visible key: O = +0.0, LSE = -inf exactly
          exact_facts(0);
          continue;
        }
        if (!std::isfinite(lse_exact)) {
          // NaN or +inf scores (docs/semantics.md §5.4, §5.6): no rounding is involved. A NaN LSE
          // row is NaN throughout (entries stay NaN: the result must be NaN). LSE = +inf with one
          // +inf score: O = V of that key exactly and LSE = +inf exactly (bound 0; the O entries
          // are NaN where that row is NaN: two or more +inf scores).
          if (lse_exact == kInf) {
            bounds.lse[lse_idx] = bounds.lse_oracle[lse_idx] = 0;
            for (std::int64_t d = 0; d < Dv; ++d)
              if (!std::isnan(exact.o[o_at(d)])) bounds.o[o_at(d)] = bounds.o_oracle[o_at(d)] = 0;
          }
          continue;
        }
        const KeyRange range = visible_range(problem, i);
        const std::int64_t n = range.count;
        // The oracle's terms: the visible keys and the sink, a weight like theirs (§10, §16).
        const std::int64_t terms = n + (sink.present ? 1 : 0);
        const double lse_err = exact_lse_error(terms, 128, lse_exact) + 0x1p-53 * std::abs(lse_exact);
        // §17: no visible key and a finite sink: O = +0.0, LSE = s_h within a few fp32 roundings.
        auto empty_with_sink = [&] {
          exact_facts(sink.overflow ? kInf : empty_sink_lse_bound(sink.s) + lse_err);
          bounds.lse_oracle[lse_idx] = lse_err;
        };
        if (n == 0) {
          empty_with_sink();
          continue;
        }
        Depths depth = kernel_depths(D, range, fp8 ? 16 : 8);
        if (sink.present) {  // §16: the sink in the running maximum, first or after the last tile
          depth.exps += 1;  // one more α̂ on every path (or the sink's own exponential)
          depth.pv += 1;    // that α̂'s multiply of acc
          depth.l += 2;     // its multiply of l̂ and the sink's add
        }
        const double g_pv = gamma(depth.pv, kUBlock), g_l = gamma(depth.l, kU32);
        const double trunc_pv = kTrunc * (1 + g_pv) * (1 + u_b);
        const double exp_shrink = depth.exps * std::log1p(-kUlp);  // ln (1 − ε_e)^T
        const double g_down = -(exp_shrink + std::log1p(-g_l)) / kLn2;  // §8, log2 units

        // §4: scores in double (the products of bf16 or fp8 values are exact; the sum errs by
        // ≤ γ_D(2^-53)·Σ|p|).
        const std::size_t q_at = static_cast<std::size_t>(((b * Sq + i) * s.heads_q + h) * D);
        double t_max = -kInf, d1_max = 0, zeta = 0;
        bool overflow = sink.present && sink.overflow;
        for (std::int64_t j = range.first; j < range.first + n; ++j) {
          const std::size_t k_at = static_cast<std::size_t>(((b * Sk + j) * s.heads_kv + hk) * D);
          double dot = 0, adot = 0, amag = 0;
          for (std::int64_t d = 0; d < D; ++d) {
            const double qv = element_value(problem.dtype, problem.q[q_at + static_cast<std::size_t>(d)]);
            const double kv = element_value(problem.dtype, problem.k[k_at + static_cast<std::size_t>(d)]);
            dot += qv * kv;
            adot += std::abs(qv * kv);
            amag += magnitude(qv, sm.min_normal) * magnitude(kv, sm.min_normal) + kMin;
          }
          const std::size_t js = static_cast<std::size_t>(j);
          ks[js] = key_score(sm, depth, dot, adot, amag, g_dot);
          if (ks[js].zero_weight) {
            prob[js] = 0;
            continue;
          }
          overflow = overflow || ks[js].overflow;
          t_max = std::max(t_max, ks[js].t);
          d1_max = std::max(d1_max, ks[js].delta1);
          // P_j of the definition, and how far this double evaluation may be from it (§8).
          xs[js] = ks[js].s - lse_exact;
          prob[js] = std::exp(xs[js]);
          const double dx = ks[js].dx + 0x1p-52 * std::abs(xs[js]) + lse_err;
          zeta = std::max(zeta, std::expm1(dx) * 1.01 + 0x1p-51);
        }
        if (t_max == -kInf) {  // every visible score −inf: weighs nothing; LSE is the sink's
          if (sink.present) empty_with_sink();
          continue;  // no sink: the exact LSE is −inf, handled above
        }
        if (sink.present) {  // the sink's probability exp(s_h − LSE) in double, like a key's
          const double x = sink.s - lse_exact;
          zeta = std::max(zeta, std::expm1(0x1p-52 * (std::abs(sink.s) + std::abs(x)) + lse_err) * 1.01 + 0x1p-51);
        }
        // The kernel's final maximum m̂ is within Δ1 of t* (§4); with a sink both take it (§16).
        const double t_top = sink.present ? std::max(t_max, sink.t) : t_max;
        const double d1_top = sink.present ? std::max(d1_max, sink.delta1) : d1_max;
        // Weighted sums below are Σ over computed P_j ≥ 0: ≤ (true sum)·(1+ζ), and ≥ … /(1−ζ).
        const double infl = zeta < 0.5 ? (1 + gamma(static_cast<double>(n + 5), 0x1p-53)) / (1 - zeta) : kInf;

        // §5–§6: relative error φ_j of each key's fp32 weight, then of the running sum.
        double lambda = 0, delta_max = 0, flushable = 0;
        auto weigh = [&](double x, double delta, double exps) {  // P(1 + φ) in one exp (§5)
          return std::exp(x + delta * kLn2 + exps * std::log1p(kUlp));
        };
        auto can_flush = [&](double x, double delta, double exps) {  // §4 flushes
          return x - (delta + d1_top) * kLn2 + exps * std::log1p(-kUlp) < -125 * kLn2;
        };
        for (std::int64_t j = range.first; j < range.first + n; ++j) {
          const std::size_t js = static_cast<std::size_t>(j);
          if (ks[js].zero_weight) {
            w_rel[js] = w_trunc[js] = p_flush[js] = w_acc[js] = 0;
            continue;
          }
          const double delta = ks[js].delta1 + 3 * kU32 * (t_top - ks[js].t + 2 * d1_top) + (depth.exps + 4) * 0x1p-125;
          delta_max = std::max(delta_max, delta);
          // P_j·(1 + φ_j) = P_j·2^Δ_j·(1 + ε_e)^T, formed in one exp so that a key of negligible
          // P_j with a large Δ_j stays negligible (P_j·φ_j would be 0·inf).
          const double p_up = weigh(xs[js], delta, depth.exps);
          w_rel[js] = p_up * (1 + u_b) * (1 + g_pv) - prob[js];
          w_trunc[js] = p_up * trunc_pv;
          lambda += p_up * (1 + g_l) - prob[js];
          // §4 flushes: a key can lose its weight to a flushed v_exp_f32 result (its own p̂ or an
          // α on its path) only if its computed weight relative to the maximum can fall below
          // 2^-126. That weight is ≥ 2^(t_j − t*)·2^(−Δ_j − Δ1)·(1 − ε_e)^T ≥ P_j·2^(−Δ_j − Δ1)·(1 − ε_e)^T
          // (P_j ≤ 2^(t_j − t*)); keys above it with margin (2^-125) are never flushed.
          p_flush[js] = can_flush(xs[js], delta, depth.exps) ? p_up : 0;
          // §6 "Range": the kernel's weight ω_j relative to its final maximum, at most
          // min(1, 2^(t_j − m̂ + Δ_j))·(1 + ε_e)^T (every exponent argument is ≤ 0), m̂ ≥ t* − Δ1.
          const double up = xs[js] + (delta + std::max(0.0, lse_exact * kLog2e - t_top) + d1_top) * kLn2;
          w_acc[js] = std::exp(std::min(0.0, up) + depth.exps * std::log1p(kUlp)) * (1 + u_b);
          flushable += p_flush[js];
        }
        // §16: the sink, one more term of l̂ (V = 0) whose argument ŝ₂,s − m̂ ≤ 0 has the error of
        // a key's (§4) with the sink's Δ1_s, and the same exponentials on its path.
        double sink_delta = 0;
        if (sink.present) {
          sink_delta = sink.delta1 + 3 * kU32 * (t_top - sink.t + 2 * d1_top) + (depth.exps + 4) * 0x1p-125;
          const double x = sink.s - lse_exact, p_s = std::exp(x), p_up = weigh(x, sink_delta, depth.exps);
          lambda += p_up * (1 + g_l) - p_s;
          if (can_flush(x, sink_delta, depth.exps)) flushable += p_up;
        }
        lambda += flushable;  // a flushed key is missing from l̂ too
        lambda *= infl * kSelf;
        // Per flushable key, the most it can contribute to acc/l̂: its weight P_j(1 + φ_j)/(1 − λ),
        // and never more than 2^-122 (it is below 2^-126 of the maximum's weight, ≥ (1 − ε_e)^T,
        // times (1 + ε_e)^T, over l̂ ≥ ½; docs/error-analysis.md §4).
        for (std::int64_t j = range.first; j < range.first + n; ++j) {
          const std::size_t js = static_cast<std::size_t>(j);
          if (p_flush[js] > 0) p_flush[js] = std::min(lambda < 1 ? p_flush[js] * infl / (1 - lambda) : kInf, 0x1p-122);
        }
        // Flushes of acc itself (fp32 denormals flushed in or out by a VALU rescale, VALU block
        // addition or the final multiply, MODE.FP_DENORM = 0; the bf16 MFMA keeps them): each
        // loses < 2^-126 of acc, < 2^-125 of acc/l̂ (l̂ ≥ ½), on at most h_pv + T + 1 operations;
        // fp8: one more, the multiply by dv, and all of them in units of V's fp8 values (×dv).
        const double flush_acc = (depth.pv + depth.exps + (fp8 ? 2 : 1)) * 0x1p-125 * std::max(dv, 1.0);
        const RowFactors rf{u_b,     eps_n, lambda, infl, exact_o_error_factor(terms, 128),
                            (1 + u_b) * (1 + g_pv) / (1 - g_l) - 1, trunc_pv / (1 - g_l), flush_acc, overflow,
                            0x1p128 * (1 - g_pv - kTrunc - 0x1p-23) * dv};

        // §7: each element of O. V values are real (dv × the fp8 value for fp8, §18).
        for (std::int64_t d = 0; d < Dv; ++d) {
          const double o_exact = exact.o[o_at(d)];
          if (std::isnan(o_exact)) continue;  // no bound: the definition gives NaN
          ColumnSums c;
          if (sink.present) c.vmax = c.vmin = 0;  // the sink weighs V = 0 (§16)
          for (std::int64_t j = range.first; j < range.first + n; ++j) {
            const std::size_t js = static_cast<std::size_t>(j);
            if (ks[js].zero_weight) continue;  // its V has no effect, NaN or inf included
            const double v8 = element_value(problem.dtype, problem.v[static_cast<std::size_t>(((b * Sk + j) * s.heads_kv + hk) * Dv + d)]);
            const double vv = dv * v8;  // exact in double (an fp32 times an 8-bit significand)
            const double av = std::abs(vv), mv = dv * magnitude(v8);
            c.e_abs += prob[js] * av;
            if (p_flush[js] > 0) c.flush_keys += p_flush[js] * av;
            c.nu += w_rel[js] * av + w_trunc[js] * mv;
            c.vmax = std::max(c.vmax, vv);
            c.vmin = std::min(c.vmin, vv);
            c.vabs = std::max(c.vabs, av);
            c.vmag = std::max(c.vmag, mv);
            c.acc_abs += w_acc[js] * mv;
          }
          const ElementBound e = o_element_bound(o_exact, c, rf);
          bounds.o[o_at(d)] = e.bound;
          bounds.o_oracle[o_at(d)] = e.oracle;
          bounds.o_flush[o_at(d)] = e.flush;
        }
        bounds.lse_oracle[lse_idx] = lse_err;
        bounds.lse[lse_idx] = overflow ? kInf
                                       : lse_bound(lse_exact, lse_err, t_top, d1_top, lambda, std::max(delta_max, sink_delta),
                                                   g_down, static_cast<double>(terms + 1));
      }
    }
  }
  return bounds;
}

}  // namespace cdna::reference
