// Attention and o_proj in affine forms (docs/decode-bounds.md §16): the scores' dependence on
// the query's symbols is carried through a linearised softmax, and the softmax's second-order
// remainder is bounded after W_o, through the projected values, instead of element by element.
#include <algorithm>
#include <cmath>
#include <limits>

#include "reference/decode/affine.hpp"

namespace cdna::reference::affine {
namespace {

using ball::gamma;
using ball::kMidU;
using Rows = Eigen::Map<const ball::RowMatrix, 0, Eigen::OuterStride<>>;
constexpr double kInf = std::numeric_limits<double>::infinity();

double widen(double x, double rel) { return x * (1.0 + rel); }

Rows keys(const ball::HeadCache& kv, std::int64_t d) { return {kv.k_mid, kv.slots, d, Eigen::OuterStride<>(kv.stride)}; }
Rows values(const ball::HeadCache& kv, std::int64_t d) { return {kv.v_mid, kv.slots, d, Eigen::OuterStride<>(kv.stride)}; }

// One head of §16: o's rows h·D … h·D + D − 1 (mid, rad, gen), rem.t2[h], rem.mass[h] and
// rem.component; the head falls back to §7's box where that is the narrower.
void head(const Affine& q, const ball::Ball& qb, std::int64_t h, std::int64_t d, const ball::HeadCache& kv,
          const DecodeArithmetic& a, bool& overflow, Affine& o, AttentionRemainder& rem) {
  const std::int64_t n = kv.slots, off = h * d;
  const double nd = static_cast<double>(n), dd = static_cast<double>(d), sigma = 1.0 / std::sqrt(dd);
  const Eigen::Index S = q.gen.cols();
  const Rows k = keys(kv, d), v = values(kv, d);
  // Ĝ = K·G_q [n, S] in double: τ̂_j = σ̃ Σ_s Ĝ_js ε_s is the symbolic part of score j (§16.1).
  Eigen::MatrixXd kg = Eigen::MatrixXd::Zero(n, S);
  if (S > 0) kg.noalias() = k * q.gen.middleRows(off, d);
  const Eigen::VectorXd g_hat = S > 0 ? kg.cwiseAbs().rowwise().sum().eval() : Eigen::VectorXd::Zero(n);
  const Eigen::VectorXd gq_abs = S > 0 ? q.gen.middleRows(off, d).cwiseAbs().rowwise().sum().eval() : Eigen::VectorXd::Zero(d);
  // |(q − m_q)·m_k,j| ≤ ĝ_j + |K|(δ_q + γ_D(2^-53)Σ|G_q|) (§13's bound, now used as the score's).
  const Eigen::VectorXd err = g_hat + k.cwiseAbs() * (q.rad.segment(off, d) + gamma(dd, kMidU) * gq_abs);
  std::vector<double> q_err(static_cast<std::size_t>(n));
  for (std::int64_t j = 0; j < n; ++j) q_err[static_cast<std::size_t>(j)] = widen(err(j), (static_cast<double>(S) + 16.0) * 0x1p-52) + 0x1p-1000;
  ball::HeadCache kc = kv;
  kc.q_err = q_err.data();
  const ball::HeadWeights hw = ball::head_weights(qb, off, d, kc, a, overflow);
  const std::vector<double>& pb = hw.p_bar;
  // R^ind_j = R_j − σ̃(1 − 2^-50)ĝ_j ≥ every term of R_j but the symbolic one (§16.1); T = max R_j.
  std::vector<double> r_ind(static_cast<std::size_t>(n));
  double t_max = 0;
  for (std::int64_t j = 0; j < n; ++j) {
    const std::size_t js = static_cast<std::size_t>(j);
    r_ind[js] = std::max(0.0, widen(hw.big_r[js] - sigma * (1.0 - 0x1p-50) * g_hat(j), 0x1p-51));
    t_max = std::max(t_max, hw.big_r[js]);
  }
  const double rel = (nd + 4.0) * 0x1p-52;  // |P̂_j − P̄_j| ≤ rel·P̄_j: the double normalisation
  const double t2 = t_max * t_max * (1.0 + 0x1p-50);
  std::vector<double> mass(static_cast<std::size_t>(n));
  for (std::int64_t j = 0; j < n; ++j) mass[static_cast<std::size_t>(j)] = widen(pb[static_cast<std::size_t>(j)] * (1.0 + hw.dev[static_cast<std::size_t>(j)]), rel + 0x1p-50);
  const double g_coef = gamma(nd + 2.0, kMidU);
  Eigen::VectorXd coef(n);
  Eigen::MatrixXd gen(d, S);
  Eigen::VectorXd xi(d), comp(d), mid(d), box(d);
  double sum_aff = 0, sum_box = 0;
  for (std::int64_t c = 0; c < d; ++c) {
    const ball::HeadColumn col = ball::head_column(hw, kv, c, a, overflow);
    mid(c) = col.mid;
    box(c) = col.radius(static_cast<std::size_t>(n));
    double s_spread = 0, s_ind = 0, s_var = 0, s_coef = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      const std::size_t js = static_cast<std::size_t>(j);
      const double dv = v(j, c) - col.mid, adv = std::abs(dv);
      coef(j) = pb[js] * dv;  // a_j = P̄_j(v_j − ō)
      s_spread += pb[js] * adv;
      s_ind += pb[js] * (adv + col.mid_err) * r_ind[js];
      s_var += mass[js] * dv * dv;
      s_coef += std::abs(coef(j)) * g_hat(j);
    }
    if (S > 0) gen.row(c).noalias() = sigma * (coef.transpose() * kg);
    // ∇f·ι, the coefficients' own errors (P̄ for P̂, ō for the exact mean, the double products),
    // the values' radii, the kernel's P·V error and the midpoint's.
    const double coef_err = (rel * s_spread + (1.0 + rel) * col.mid_err) * t_max + g_coef * sigma * s_coef * (1.0 + 0x1p-50);
    xi(c) = widen((1.0 + rel) * s_ind + coef_err + col.r_max + col.kernel + col.mid_err, (2.0 * nd + dd + 16.0) * 0x1p-52) + 0x1p-1000;
    comp(c) = widen(t2 * std::sqrt(s_var), 0x1p-48);
    sum_aff += xi(c) + comp(c) + (S > 0 ? gen.row(c).cwiseAbs().sum() : 0.0);
    sum_box += box(c);
  }
  o.mid.segment(off, d) = mid;
  const std::size_t hs = static_cast<std::size_t>(h);
  if (hw.z_min > 0.0 && std::isfinite(sum_aff) && sum_aff < sum_box) {
    o.rad.segment(off, d) = xi;
    if (S > 0) o.gen.middleRows(off, d) = gen;
    rem.component.segment(off, d) = comp;
    rem.t2[hs] = t2;
    rem.mass[hs] = std::move(mass);
  } else {  // §7's box: no symbols, no remainder
    o.rad.segment(off, d) = box;
    rem.component.segment(off, d).setZero();
    rem.t2[hs] = 0;
  }
  for (std::int64_t c = 0; c < d; ++c)
    if (std::isnan(mid(c))) o.rad(off + c) = mid(c);
}

}  // namespace

Affine attention(const Affine& q, std::int64_t d, std::span<const ball::HeadCache> heads,
                 const DecodeArithmetic& a, bool& overflow, AttentionRemainder& rem) {
  const std::int64_t hq = std::ssize(heads);
  const Eigen::Index S = q.gen.cols();
  Affine o{Eigen::VectorXd(hq * d), Eigen::VectorXd(hq * d), Eigen::MatrixXd::Zero(hq * d, S)};
  rem.t2.assign(static_cast<std::size_t>(hq), 0.0);
  rem.mass.assign(static_cast<std::size_t>(hq), {});
  rem.component = Eigen::VectorXd::Zero(hq * d);
  const ball::Ball qb = to_ball(q);
  for (std::int64_t h = 0; h < hq; ++h) head(q, qb, h, d, heads[static_cast<std::size_t>(h)], a, overflow, o, rem);
  return o;
}

Affine attention_projection(const Affine& o, const AttentionRemainder& rem, std::span<const ball::HeadCache> heads,
                            std::int64_t d, std::span<const std::uint16_t> w_o, std::int64_t rows,
                            const Storage& storage, const DecodeArithmetic& a, bool& overflow,
                            Eigen::Index& symbols) {
  const std::int64_t hq = std::ssize(heads), cols = hq * d;
  const double n = static_cast<double>(cols);
  // ô = round(o_lin + R): the store's error is relative to |ô| ≤ |ō| + t + |R| (§3).
  Affine os = o;
  store(os, storage, a);
  if (ball::store_rounds(storage, a)) os.rad += storage_unit_roundoff(storage) * rem.component;
  const Eigen::VectorXd mag = os.mid.cwiseAbs() + os.total() + rem.component;
  if (mag.size() > 0 && mag.maxCoeff() >= a.max_finite) overflow = true;
  symbolize(os, symbols);
  Affine y = gemv(w_o, rows, cols, os, a, overflow);
  // W_o·R row by row (§16.2): Σ_h T_h²·(sd of the projected values u_hj = W_o,h·v_hj under the
  // masses P̄(1 + dev), + their double rounding); the kernel's γ_n(u)|W_o||R|; the range.
  const double gk = gamma(n, a.accumulation_u), gd = gamma(static_cast<double>(d), kMidU);
  Eigen::MatrixXd x2(cols, 2);
  x2.col(0) = rem.component;
  x2.col(1) = mag;
  Eigen::MatrixXd z, u, au;
  ball::for_row_slices(w_o, rows, cols, [&](std::int64_t i0, auto blk) {
    const std::int64_t rc = blk.rows();
    Eigen::VectorXd extra = Eigen::VectorXd::Zero(rc);
    for (std::int64_t h = 0; h < hq; ++h) {
      const std::size_t hs = static_cast<std::size_t>(h);
      if (rem.t2[hs] == 0) continue;
      const Rows v = values(heads[hs], d);
      const std::vector<double>& m = rem.mass[hs];
      u.noalias() = blk.middleCols(h * d, d) * v.transpose();                // [rc, slots]
      au.noalias() = blk.middleCols(h * d, d).cwiseAbs() * v.cwiseAbs().transpose();
      double m_sum = 0;
      for (double mj : m) m_sum += mj;
      for (std::int64_t i = 0; i < rc; ++i) {
        double center = 0, var = 0, a_max = 0;
        for (std::size_t j = 0; j < m.size(); ++j) center += m[j] * u(i, static_cast<Eigen::Index>(j));
        center /= m_sum;  // any center bounds the variance from above (§16.2)
        for (std::size_t j = 0; j < m.size(); ++j) {
          const double dj = u(i, static_cast<Eigen::Index>(j)) - center;
          var += m[j] * dj * dj;
          a_max = std::max(a_max, au(i, static_cast<Eigen::Index>(j)));
        }
        extra(i) += rem.t2[hs] * (widen(std::sqrt(var), (static_cast<double>(m.size()) + 16.0) * 0x1p-52) + gd * a_max);
      }
    }
    blk = blk.cwiseAbs();
    z.noalias() = blk * x2;
    for (std::int64_t i = 0; i < rc; ++i) {
      y.rad(i0 + i) += extra(i) + gk * z(i, 0);
      if (z(i, 1) * (1.0 + gk) >= a.max_finite) overflow = true;
    }
  });
  ball::outward(y.rad, n + 2.0 * static_cast<double>(hq));
  return y;
}

}  // namespace cdna::reference::affine
