#include "reference/bound.hpp"

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

double mfma_dot_error(double depth, double abs_sum) {
  const double g = gamma(depth, kUBlock);
  return (g + kTrunc * (1 + g)) * abs_sum + depth * 0x1p-146;
}

Depths kernel_depths(std::int64_t head_dim, std::int64_t seqlen_k) {
  auto ceil_div = [](std::int64_t a, std::int64_t b) { return (a + b - 1) / b; };
  const std::int64_t sk = std::max<std::int64_t>(seqlen_k, 1);
  Depths d{static_cast<double>(ceil_div(head_dim, 8)), 0, 0, static_cast<double>(ceil_div(sk, 16))};
  // Any KV tile width of the MI300X kernels (16..128 keys): the worst of them (§3).
  for (std::int64_t w : {16, 32, 64, 128}) {
    const std::int64_t wc = std::min(w, 16 * ceil_div(sk, 16));
    const std::int64_t tiles = ceil_div(sk, wc);
    d.pv = std::max(d.pv, static_cast<double>(tiles * (ceil_div(wc, 8) + 1)));
    d.l = std::max(d.l, static_cast<double>(wc - 1 + 2 * tiles));
  }
  return d;
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

double bf16_value(std::uint16_t bits) { return static_cast<double>(numerics::f32_from_bf16(bits)); }
// max(|x|, 2^-126): bounds 2^(exponent) of the MFMA model for every finite bf16 x (§2).
double magnitude(double x) { return std::max(std::abs(x), kMin); }

// Per-row constants of the kernel model (docs/error-analysis.md §3).
struct Model {
  double u_b, g_qk, g_pv, g_l, exps, eps_n, gamma3, trunc_pv;
};

}  // namespace

AttentionBounds attention_bounds(const AttentionProblem& problem, const AttentionResult& exact,
                                 numerics::Rounding mode) {
  require_base_definition(problem, "attention_bounds");
  const AttentionShape& s = problem.shape;
  if (std::ssize(exact.o) != s.o_elements() || std::ssize(exact.lse) != s.lse_elements()) {
    throw std::invalid_argument("attention_bounds: exact result sizes do not match the shape");
  }
  const std::int64_t D = s.head_dim, Sq = s.seqlen_q, Sk = s.seqlen_k;
  const std::int64_t group = s.heads_q / s.heads_kv;
  const double scale = static_cast<double>(problem.scale);
  const double c2 = std::abs(scale) * kLog2e;  // |σ·log2 e|: scores in base 2
  const Depths depth = kernel_depths(D, Sk);
  Model m{};
  m.u_b = bf16_unit_roundoff(mode);
  m.g_qk = gamma(depth.qk, kUBlock);
  m.g_pv = gamma(depth.pv, kUBlock);
  m.g_l = gamma(depth.l, kU32);
  m.exps = depth.exps;
  m.eps_n = (1 + kUlp) * (1 + kU32) - 1;  // v_rcp_f32 (1 ULP) and the multiply; covers a RN divide
  m.gamma3 = gamma(3, kU32);
  m.trunc_pv = kTrunc * (1 + m.g_pv) * (1 + m.u_b);
  const double exp_growth = m.exps * std::log1p(kUlp);  // ln (1 + ε_e)^T
  const double exp_shrink = m.exps * std::log1p(-kUlp);  // ln (1 − ε_e)^T
  const double g_down = -(exp_shrink + std::log1p(-m.g_l)) / kLn2;  // §8, log2 units
  const double g_dot = gamma(static_cast<double>(D), 0x1p-53);  // this file's double dot products

  AttentionBounds bounds;
  bounds.o.assign(exact.o.size(), kNaN);
  bounds.o_oracle.assign(exact.o.size(), kNaN);
  bounds.lse.assign(exact.lse.size(), kNaN);
  bounds.lse_oracle.assign(exact.lse.size(), kNaN);
  bounds.o_flush.assign(exact.o.size(), 0);

  const std::size_t nk = static_cast<std::size_t>(Sk);
  std::vector<double> t(nk), xs(nk), delta1(nk), prob(nk), w_rel(nk), w_trunc(nk), p_flush(nk);
  std::vector<char> zero_weight(nk);
  for (std::int64_t b = 0; b < s.batch; ++b) {
    for (std::int64_t h = 0; h < s.heads_q; ++h) {
      const std::int64_t hk = h / group;
      for (std::int64_t i = 0; i < Sq; ++i) {
        const std::int64_t o_row = ((b * Sq + i) * s.heads_q + h) * D;
        const std::size_t lse_idx = static_cast<std::size_t>((b * s.heads_q + h) * Sq + i);
        const double lse_exact = exact.lse[lse_idx];
        auto o_at = [&](std::int64_t d) { return static_cast<std::size_t>(o_row + d); };

        if (lse_exact == -kInf) {  // no visible key: O = +0.0, LSE = -inf exactly
          for (std::int64_t d = 0; d < D; ++d) bounds.o[o_at(d)] = bounds.o_oracle[o_at(d)] = 0;
          bounds.lse[lse_idx] = bounds.lse_oracle[lse_idx] = 0;
          continue;
        }
        if (!std::isfinite(lse_exact)) {
          // NaN or +inf scores (docs/semantics.md §5.4, §5.6): no rounding is involved. A NaN LSE
          // row is NaN throughout (entries stay NaN: the result must be NaN). LSE = +inf with one
          // +inf score: O = V of that key exactly and LSE = +inf exactly (bound 0; the O entries
          // are NaN where that row is NaN: two or more +inf scores).
          if (lse_exact == kInf) {
            bounds.lse[lse_idx] = bounds.lse_oracle[lse_idx] = 0;
            for (std::int64_t d = 0; d < D; ++d)
              if (!std::isnan(exact.o[o_at(d)])) bounds.o[o_at(d)] = bounds.o_oracle[o_at(d)] = 0;
          }
          continue;
        }
        const std::int64_t n = visible_keys(problem.mask, i, Sq, Sk);  // keys 0 .. n-1
        const double lse_err = exact_lse_error(n, 128, lse_exact) + 0x1p-53 * std::abs(lse_exact);

        // §4: scores in double (bf16 products are exact; the sum errs by ≤ γ_D(2^-53)·Σ|p|).
        const std::uint16_t* qrow = &problem.q[static_cast<std::size_t>(((b * Sq + i) * s.heads_q + h) * D)];
        double t_max = -kInf, d1_max = 0, zeta = 0;
        bool overflow = false;
        for (std::int64_t j = 0; j < n; ++j) {
          const std::uint16_t* krow = &problem.k[static_cast<std::size_t>(((b * Sk + j) * s.heads_kv + hk) * D)];
          double dot = 0, adot = 0, amag = 0;
          for (std::int64_t d = 0; d < D; ++d) {
            const double qv = bf16_value(qrow[d]), kv = bf16_value(krow[d]);
            dot += qv * kv;
            adot += std::abs(qv * kv);
            amag += magnitude(qv) * magnitude(kv) + kMin;
          }
          const std::size_t js = static_cast<std::size_t>(j);
          // A −inf score weighs 0 exactly, like a masked key (docs/semantics.md §5.5): the MFMA
          // gives −inf (an infinite product, cdna3-facts.md §4) and v_exp_f32(−inf) = +0.
          zero_weight[js] = scale * dot == -kInf;
          if (zero_weight[js]) {
            t[js] = xs[js] = -kInf;
            prob[js] = delta1[js] = 0;
            continue;
          }
          const double dot_abs = std::abs(dot) + g_dot * adot;  // ≥ |q·k| exactly
          // A product ≥ 2^128 or a partial sum near fp32's limit: no finite fp32 analysis.
          overflow = overflow || !(amag * 1.01 < 0x1p127) || !(c2 * amag * 1.01 < 0x1p127);
          t[js] = scale * dot * kLog2e;
          t_max = std::max(t_max, t[js]);
          delta1[js] = c2 * ((1 + m.gamma3) * mfma_dot_error(depth.qk, amag) + m.gamma3 * dot_abs) + 0x1p-125;
          d1_max = std::max(d1_max, delta1[js]);
          // P_j of the definition, and how far this double evaluation may be from it (§8).
          const double x = scale * dot - lse_exact;
          xs[js] = x;
          prob[js] = std::exp(x);
          const double dx = std::abs(scale) * g_dot * adot * 1.01 + 0x1p-52 * (std::abs(scale * dot) + std::abs(x)) + lse_err;
          zeta = std::max(zeta, std::expm1(dx) * 1.01 + 0x1p-51);
        }
        // Weighted sums below are Σ over computed P_j ≥ 0: ≤ (true sum)·(1+ζ), and ≥ … /(1−ζ).
        const double infl = zeta < 0.5 ? (1 + gamma(static_cast<double>(n + 4), 0x1p-53)) / (1 - zeta) : kInf;

        // §5–§6: relative error φ_j of each key's fp32 weight, then of the running sum.
        double lambda = 0, delta_max = 0;
        for (std::int64_t j = 0; j < n; ++j) {
          const std::size_t js = static_cast<std::size_t>(j);
          if (zero_weight[js]) {
            w_rel[js] = w_trunc[js] = p_flush[js] = 0;
            continue;
          }
          const double delta = delta1[js] + 3 * kU32 * (t_max - t[js] + 2 * d1_max) + (m.exps + 4) * 0x1p-125;
          delta_max = std::max(delta_max, delta);
          // P_j·(1 + φ_j) = P_j·2^Δ_j·(1 + ε_e)^T, formed in one exp so that a key of negligible
          // P_j with a large Δ_j stays negligible (P_j·φ_j would be 0·inf).
          const double p_up = std::exp(xs[js] + delta * kLn2 + exp_growth);
          w_rel[js] = p_up * (1 + m.u_b) * (1 + m.g_pv) - prob[js];
          w_trunc[js] = p_up * m.trunc_pv;
          lambda += p_up * (1 + m.g_l) - prob[js];
          // §4 flushes: a key can lose its weight to a flushed v_exp_f32 result (its own p̂ or an
          // α on its path) only if its computed weight relative to the maximum can fall below
          // 2^-126. That weight is ≥ 2^(t_j − t*)·2^(−Δ_j − Δ1)·(1 − ε_e)^T ≥ P_j·2^(−Δ_j − Δ1)·(1 − ε_e)^T
          // (P_j ≤ 2^(t_j − t*)); keys above it with margin (2^-125) are never flushed.
          p_flush[js] = xs[js] - (delta + d1_max) * kLn2 + exp_shrink < -125 * kLn2 ? p_up : 0;
        }
        double flushable = 0;
        for (std::int64_t j = 0; j < n; ++j) flushable += p_flush[static_cast<std::size_t>(j)];
        lambda += flushable;  // a flushed key is missing from l̂ too
        lambda *= infl * kSelf;
        // Per flushable key, the most it can contribute to acc/l̂: its weight P_j(1 + φ_j)/(1 − λ),
        // and never more than 2^-122 (it is below 2^-126 of the maximum's weight, ≥ (1 − ε_e)^T,
        // times (1 + ε_e)^T, over l̂ ≥ ½; docs/error-analysis.md §4).
        for (std::int64_t j = 0; j < n; ++j) {
          const std::size_t js = static_cast<std::size_t>(j);
          if (p_flush[js] > 0) p_flush[js] = std::min(lambda < 1 ? p_flush[js] * infl / (1 - lambda) : kInf, 0x1p-122);
        }
        // Flushes of acc itself (fp32 denormals flushed in or out by a VALU rescale, VALU block
        // addition or the final multiply, MODE.FP_DENORM = 0; the bf16 MFMA keeps them): each
        // loses < 2^-126 of acc, < 2^-125 of acc/l̂ (l̂ ≥ ½), on at most h_pv + T + 1 operations.
        const double flush_acc = (depth.pv + m.exps + 1) * 0x1p-125;
        const double nd = static_cast<double>(n);
        const double o_factor = exact_o_error_factor(n, 128);
        const double kappa_hull = (1 + m.u_b) * (1 + m.g_pv) / (1 - m.g_l) - 1;
        const double trunc_hull = m.trunc_pv / (1 - m.g_l);

        // §7: each element of O.
        for (std::int64_t d = 0; d < D; ++d) {
          const double o_exact = exact.o[o_at(d)];
          if (std::isnan(o_exact)) continue;  // no bound: the definition gives NaN
          double e_abs = 0, nu = 0, vmax = -kInf, vmin = kInf, vabs = 0, vmag = 0, flush_keys = 0;
          for (std::int64_t j = 0; j < n; ++j) {
            const std::size_t js = static_cast<std::size_t>(j);
            if (zero_weight[js]) continue;  // its V has no effect, NaN or inf included
            const double vv = bf16_value(problem.v[static_cast<std::size_t>(((b * Sk + j) * s.heads_kv + hk) * D + d)]);
            const double av = std::abs(vv);
            e_abs += prob[js] * av;
            if (p_flush[js] > 0) flush_keys += p_flush[js] * av;
            nu += w_rel[js] * av + w_trunc[js] * magnitude(vv);
            vmax = std::max(vmax, vv);
            vmin = std::min(vmin, vv);
            vabs = std::max(vabs, av);
            vmag = std::max(vmag, magnitude(vv));
          }
          // E_d = 0 (every V of the column 0) makes the oracle exact, even where the double
          // evaluation of the weights gave up (infl = +inf): no 0·inf.
          const double oracle = (e_abs > 0 ? o_factor * e_abs * infl : 0.0) + 0x1p-53 * std::abs(o_exact);
          const double o_abs = std::abs(o_exact) + oracle;
          // Flushed keys (composed form; the hull holds for any non-negative weights, flushed
          // ones included) and flushes of acc (both forms), §6.
          flush_keys *= (1 + m.eps_n) * kSelf;
          double err = kInf;
          if (!overflow && lambda < 1) {  // composed bound (§5)
            err = (1 + m.eps_n) * (nu * infl + lambda * o_abs) / (1 - lambda) + m.eps_n * o_abs + flush_keys;
          }
          if (!overflow && std::isfinite(vmax - vmin)) {  // convex-hull bound (§6)
            const double hull = (vmax - vmin) + kappa_hull * vabs + trunc_hull * vmag;
            err = std::min(err, (1 + m.eps_n) * hull + m.eps_n * o_abs);
          }
          err += flush_acc;
          bounds.o[o_at(d)] = ((1 + m.u_b) * err + m.u_b * o_abs + 0x1p-133) * kSelf + oracle;
          bounds.o_oracle[o_at(d)] = oracle;
          bounds.o_flush[o_at(d)] = (1 + m.u_b) * (flush_keys + flush_acc) * kSelf;
        }

        // §9: LSE = ln 2 · (m̂ + log2 l̂) in fp32.
        const double y2 = lse_exact * kLog2e;
        const double y2_abs = std::abs(y2) + lse_err * kLog2e;
        const double log2_l = std::max(0.0, y2 - t_max) + 0x1p-40 * (std::abs(y2) + std::abs(t_max)) + lse_err * kLog2e;
        double zeta_l = std::min(lambda < 1 ? -std::log2(1 - lambda) : kInf, delta_max + g_down);
        zeta_l += nd * 0x1p-123;  // flushed keys in l̂ (each < 2^-126·(1 + ε_e)^T of l̂ ≥ ½)
        const double lam_log = log2_l + d1_max + zeta_l;  // ≥ |log2 l̂|
        const double e_log = kUlp * lam_log + kMin;
        const double e_y = zeta_l + e_log + kU32 * (y2_abs + zeta_l + e_log) + kMin;
        bounds.lse_oracle[lse_idx] = lse_err;
        bounds.lse[lse_idx] =
            overflow ? kInf : (kLn2 * e_y + m.gamma3 * kLn2 * (y2_abs + e_y) + kMin) * kSelf + lse_err;
      }
    }
  }
  return bounds;
}

}  // namespace cdna::reference
