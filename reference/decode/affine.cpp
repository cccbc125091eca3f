#include "reference/decode/affine.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace cdna::reference::affine {
namespace {

using ball::RowMatrix;
using ball::bf16_to_double;
using ball::gamma;
using ball::kMidU;
constexpr double kInf = std::numeric_limits<double>::infinity();

// Zero columns up to `cols` (symbols a vector does not depend on).
void pad(Eigen::MatrixXd& g, Eigen::Index cols) {
  if (g.cols() >= cols) return;
  const Eigen::Index old = g.cols();
  g.conservativeResize(Eigen::NoChange, cols);
  g.rightCols(cols - old).setZero();
}

Eigen::VectorXd gen_abs_sum(const Eigen::MatrixXd& g) {
  if (g.cols() == 0) return Eigen::VectorXd::Zero(g.rows());
  return g.cwiseAbs().rowwise().sum();
}

}  // namespace

Eigen::VectorXd Affine::total() const { return rad + gen_abs_sum(gen); }

Affine from_ball(const ball::Ball& b) { return Affine{b.mid, b.rad, Eigen::MatrixXd(b.size(), 0)}; }

ball::Ball to_ball(const Affine& x) {
  ball::Ball b{x.mid, x.total()};
  ball::outward(b.rad, static_cast<double>(x.gen.cols()));
  return b;
}

void symbolize(Affine& x, Eigen::Index& symbols) {
  const Eigen::Index n = x.size();
  pad(x.gen, symbols);
  x.gen.conservativeResize(Eigen::NoChange, symbols + n);
  x.gen.rightCols(n) = x.rad.asDiagonal();
  x.rad.setZero();
  symbols += n;
}

void check_range(const Affine& x, const DecodeArithmetic& a, bool& overflow) {
  if (x.size() > 0 && (x.mid.cwiseAbs() + x.total()).maxCoeff() >= a.max_finite) overflow = true;
}

void store(Affine& x, const Storage& storage, const DecodeArithmetic& a) {
  if (!ball::store_rounds(storage, a)) return;
  const double us = storage_unit_roundoff(storage);
  x.rad = x.rad + us * (x.mid.cwiseAbs() + x.total()) +
          Eigen::VectorXd::Constant(x.size(), std::max(a.underflow_abs, 0x1p-126));
  ball::outward(x.rad, static_cast<double>(x.gen.cols()) + 2);
}

Affine gemv(std::span<const std::uint16_t> w, std::int64_t rows, std::int64_t cols, const Affine& x,
            const DecodeArithmetic& a, bool& overflow) {
  const double n = static_cast<double>(cols), eta = a.underflow_abs;
  const double gk = gamma(n, a.accumulation_u), gm = gamma(n, kMidU);
  const Eigen::VectorXd t = x.total();
  Affine y{Eigen::VectorXd(rows), Eigen::VectorXd(rows), Eigen::MatrixXd(rows, x.gen.cols())};
  Eigen::MatrixXd x4(cols, 4);  // |W|·[|m|, rad, total, 1]
  x4.col(0) = x.mid.cwiseAbs();
  x4.col(1) = x.rad;
  x4.col(2) = t;
  x4.col(3).setOnes();
  Eigen::MatrixXd z;
  ball::for_row_slices(w, rows, cols, [&](std::int64_t i0, auto blk) {
    const std::int64_t rc = blk.rows();
    y.mid.segment(i0, rc).noalias() = blk * x.mid;
    if (x.gen.cols() > 0) y.gen.middleRows(i0, rc).noalias() = blk * x.gen;
    blk = blk.cwiseAbs();
    z.noalias() = blk * x4;
    for (std::int64_t i = 0; i < rc; ++i) {
      const double zm = z(i, 0), zr = z(i, 1), zt = z(i, 2), zw = z(i, 3);
      // independent part through |W|, kernel rounding, rounding of W·m and W·gen, flushes (§13)
      y.rad(i0 + i) = zr + gk * (zm + zt) + gm * (zm + zt - zr) + eta * (n + zw);
      if ((zm + zt) * (1.0 + gk) >= a.max_finite) overflow = true;
    }
  });
  ball::outward(y.rad, n);
  return y;
}

Affine rms_norm(const Affine& x, std::span<const std::uint16_t> g, double eps,
                const DecodeArithmetic& a, bool& overflow) {
  const Eigen::Index n = x.size();
  const double h = static_cast<double>(n), u = a.accumulation_u, c = a.constant_rel;
  const double eta = a.underflow_abs, et = a.transcendental_rel;
  const Eigen::VectorXd t = x.total();
  const Eigen::VectorXd am = x.mid.cwiseAbs();
  // ρ at the midpoint (double) and its relative error ε_ρ ≤ (H + 16)·2^-53.
  const double rho = 1.0 / std::sqrt(x.mid.squaredNorm() / h + eps);
  const double e_rho = (h + 16.0) * kMidU;
  // sup of ρ over the box: Σx² ≥ Σ max(|m| − t, 0)² and ≥ (‖m‖ − ‖t‖)² (‖x − m‖ ≤ ‖t‖).
  const double norm_rel = (h + 8.0) * 0x1p-52;
  const double gap = x.mid.norm() * (1.0 - norm_rel) - t.norm() * (1.0 + norm_rel);
  const double s_lo = std::max((am - t).array().max(0.0).square().sum(), gap > 0 ? gap * gap : 0.0) *
                      (1.0 - (h + 4.0) * 0x1p-52);
  const double rho_max = 1.0 / std::sqrt(s_lo / h + eps) * (1.0 + 0x1p-50);
  // The kernel's Σx² (every partial sum of nonnegative terms) is at most Σ(|m| + t)²·(1 + γ_H)
  // plus H flushes: at or above max_finite it may overflow (decode-bounds.md §5, "Overflow").
  const double s_hi = (am + t).array().square().sum() * (1.0 + (h + 4.0) * 0x1p-52);
  if (!(s_hi * (1.0 + gamma(h, u)) + h * eta < a.max_finite)) overflow = true;
  // The kernel's ρ̂ against ρ(x̂): ν̂/ν within [lo_f, hi_f].
  const double flush = (h + 2.0) * eta / eps;
  const double gh = gamma(h, u);
  const double lo_f = (1.0 - gh) * (1.0 - c) * (1.0 - u) * (1.0 - u) - flush;
  const double hi_f = (1.0 + gh) * (1.0 + c) * (1.0 + u) * (1.0 + u) + flush;
  const double kappa = lo_f > 0 ? std::max(1.0 / std::sqrt(lo_f) * (1.0 + et) - 1.0,
                                           1.0 - 1.0 / std::sqrt(hi_f) * (1.0 - et)) * (1.0 + 0x1p-40)
                                : kInf;
  const double kern = (1.0 + kappa) * (1.0 + gamma(2, elementwise_unit(a))) - 1.0;
  const double m_norm = x.mid.norm() * (1.0 + (h + 8.0) * 0x1p-52);
  const double d_norm = t.norm() * (1.0 + (h + 8.0) * 0x1p-52);
  const double rho_up = rho * (1.0 + e_rho);
  // Linear part J = diag(g ρ)(I − m mᵀ ρ²/H) applied to gen; |J| to rad.
  const double k2 = rho * rho / h;
  Affine y{Eigen::VectorXd(n), Eigen::VectorXd(n), Eigen::MatrixXd()};
  Eigen::VectorXd gv(n);
  for (Eigen::Index i = 0; i < n; ++i) gv(i) = bf16_to_double(g[static_cast<std::size_t>(i)]);
  y.gen = x.gen;
  const Eigen::VectorXd gen_abs = gen_abs_sum(x.gen);
  if (x.gen.cols() > 0) {
    const Eigen::RowVectorXd mc = x.mid.transpose() * x.gen;
    y.gen.noalias() -= (x.mid * k2) * mc;
  }
  y.gen = (gv * rho).asDiagonal() * y.gen;
  const double m_rad = am.dot(x.rad) * (1.0 + (h + 4.0) * 0x1p-52);
  const double m_gen = am.dot(gen_abs) * (1.0 + (h + 4.0) * 0x1p-52);
  const double k2_up = k2 * (1.0 + 4.0 * e_rho);
  const double r3 = rho_up * rho_up * rho_up / h, rmax3 = rho_max * rho_max * rho_max / h;
  for (Eigen::Index i = 0; i < n; ++i) {
    const double ag = std::abs(gv(i));
    y.mid(i) = (gv(i) * x.mid(i)) * rho;
    const double lin_rad = ag * rho_up * (x.rad(i) + am(i) * m_rad * k2_up);
    const double remainder = ag * (t(i) * r3 * m_norm * d_norm + (am(i) + t(i)) * rmax3 * d_norm * d_norm);
    const double kernel = ag * (am(i) + t(i)) * rho_max * kern + 2 * eta;
    const double mid_err = (e_rho + 0x1p-51) * std::abs(y.mid(i)) * (1.0 + 0x1p-40);
    const double coef_err = (4.0 * h + 64.0) * 0x1p-52 * ag * rho_up * (gen_abs(i) + am(i) * m_gen * k2_up);
    y.rad(i) = lin_rad + remainder + kernel + mid_err + coef_err;
  }
  if (!(lo_f > 0)) y.rad.setConstant(kInf);
  ball::outward(y.rad, h + 8.0);
  return y;
}

void rope(Affine& x, Eigen::Index offset, std::int64_t d, std::int64_t p,
          const std::vector<double>& omega, const DecodeArithmetic& a) {
  const double pd = static_cast<double>(p);
  const double delta_p = pd * 0x1p-47 + 0x1p-52 + a.rope_abs + a.rope_abs_per_position * pd;
  const double g2 = gamma(2, elementwise_unit(a)) + gamma(2, kMidU), g2m = gamma(2, kMidU);
  const std::int64_t half = d / 2;
  const Eigen::VectorXd t = x.total(), gabs = gen_abs_sum(x.gen);
  for (std::int64_t i = 0; i < half; ++i) {
    const Eigen::Index ix = offset + i, iy = offset + i + half;
    const double angle = pd * omega[static_cast<std::size_t>(i)];
    const double delta = a.rope_omega_rel.empty() ? delta_p : delta_p + angle * a.rope_omega_rel[static_cast<std::size_t>(i)];
    const double cs = std::cos(angle), sn = std::sin(angle), acs = std::abs(cs), asn = std::abs(sn);
    const double mx = x.mid(ix), my = x.mid(iy);
    const double ax = std::abs(mx) + t(ix), ay = std::abs(my) + t(iy);
    const double common = delta * (ax + ay) + g2 * (ax + ay) * (1.0 + delta) + 2 * a.underflow_abs;
    const double coef = g2m * (acs + asn) * (gabs(ix) + gabs(iy));
    x.mid(ix) = mx * cs - my * sn;
    x.mid(iy) = my * cs + mx * sn;
    const double rx = x.rad(ix), ry = x.rad(iy);
    x.rad(ix) = (rx * acs + ry * asn + common + coef) * (1.0 + 0x1p-48);
    x.rad(iy) = (ry * acs + rx * asn + common + coef) * (1.0 + 0x1p-48);
    if (x.gen.cols() > 0) {
      const Eigen::RowVectorXd gx = x.gen.row(ix), gy = x.gen.row(iy);
      x.gen.row(ix) = cs * gx - sn * gy;
      x.gen.row(iy) = cs * gy + sn * gx;
    }
  }
}

Affine add(const Affine& x, const Affine& y, const DecodeArithmetic& a) {
  const Eigen::Index cols = std::max(x.gen.cols(), y.gen.cols());
  Eigen::MatrixXd gx = x.gen, gy = y.gen;
  pad(gx, cols);
  pad(gy, cols);
  Affine z{x.mid + y.mid, Eigen::VectorXd(), gx + gy};
  z.rad = x.rad + y.rad +
          elementwise_unit(a) * (x.mid.cwiseAbs() + x.total() + y.mid.cwiseAbs() + y.total()) +
          kMidU * (z.mid.cwiseAbs() + gen_abs_sum(gx) + gen_abs_sum(gy));
  z.rad.array() += a.underflow_abs;
  ball::outward(z.rad, static_cast<double>(cols) + 4);
  return z;
}

Affine silu_mul(const Affine& g, const Affine& up, const DecodeArithmetic& a) {
  const Eigen::Index n = g.size();
  const double u = a.accumulation_u, et = a.transcendental_rel, eu = elementwise_unit(a);
  const double theta = (1.0 + a.constant_rel) * (1.0 + u) - 1.0;
  // s = silu(g): slope silu'(m) on the symbols, |silu''| ≤ 1/2 for the remainder (§13).
  const Eigen::VectorXd tg = g.total(), gabs = gen_abs_sum(g.gen);
  Affine s{Eigen::VectorXd(n), Eigen::VectorXd(n), Eigen::MatrixXd()};
  Eigen::VectorXd slope(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const double m = g.mid(i), az = std::abs(m) + tg(i);
    const double sig = 1.0 / (1.0 + std::exp(-m));
    slope(i) = sig * (1.0 + m * (1.0 - sig));
    const double beta = std::exp(az * theta) * (1.0 + et) - 1.0;
    const double kappa = beta < 1.0 ? (1.0 + et) / ((1.0 - beta) * (1.0 - u)) - 1.0 : kInf;
    s.mid(i) = m / (1.0 + std::exp(-m));
    s.rad(i) = std::abs(slope(i)) * g.rad(i) + 0.25 * tg(i) * tg(i) +
               az * ((1.0 + kappa) * (1.0 + eu) - 1.0) + 0x1p-120 +  // kernel
               0x1p-50 * std::abs(s.mid(i)) + 0x1p-1000 +         // midpoint
               0x1p-48 * (1.0 + std::abs(m)) * tg(i);  // slope's error, slope·gen rounding
  }
  s.gen = slope.asDiagonal() * g.gen;
  ball::outward(s.rad, 8);
  // s ⊙ up, linearised: u_m·ds + s_m·du, remainder |ds||du|.
  const Eigen::Index cols = std::max(s.gen.cols(), up.gen.cols());
  Eigen::MatrixXd gs = s.gen, gu = up.gen;
  pad(gs, cols);
  pad(gu, cols);
  const Eigen::VectorXd ts = s.total(), tu = up.total();
  Affine y{s.mid.cwiseProduct(up.mid), Eigen::VectorXd(), up.mid.asDiagonal() * gs};
  y.gen.noalias() += s.mid.asDiagonal() * gu;
  const Eigen::VectorXd as = s.mid.cwiseAbs(), au = up.mid.cwiseAbs();
  y.rad = au.cwiseProduct(s.rad) + as.cwiseProduct(up.rad) + ts.cwiseProduct(tu) +
          eu * (as + ts).cwiseProduct(au + tu) + kMidU * y.mid.cwiseAbs() +
          0x1p-52 * (au.cwiseProduct(gen_abs_sum(gs)) + as.cwiseProduct(gen_abs_sum(gu)));
  y.rad.array() += a.underflow_abs;
  ball::outward(y.rad, static_cast<double>(cols) + 8);
  return y;
}

}  // namespace cdna::reference::affine
