#include "reference/decode/ball.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace cdna::reference::ball {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Lipschitz constant of silu: max silu'(z) = 1.0998 at z ≈ 2.40 (decode-bounds.md §9).
constexpr double kSiluLipschitz = 1.1;
// |silu(z)| for z ≤ −88 (where v_exp_f32 of −z·log2 e overflows) and 1 + flushed exp:
// 88·e^−88 < 2^-120 (decode-bounds.md §9).
constexpr double kSiluAbs = 0x1p-120;

double widen(double x, double rel) { return x * (1.0 + rel); }

// Absolute error per operation of the arithmetic; storage below 2^-126 errs by up to 2^-126
// whatever the arithmetic (bf16 and fp32 share fp32's exponent range).
double eta(const DecodeArithmetic& a) { return a.underflow_abs; }

}  // namespace

double bf16_to_double(std::uint16_t bits) {
  const std::uint32_t u = static_cast<std::uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

double gamma(double n, double u) {
  const double nu = n * u;
  return nu >= 1.0 ? kInf : widen(nu / (1.0 - nu), 0x1p-50);
}

void outward(Eigen::VectorXd& rad, double n) {
  const double f = 1.0 + (n + 16.0) * 0x1p-52;
  rad = (rad * f).array() + 0x1p-1000;
}

void check_range(const Ball& x, const DecodeArithmetic& a, bool& overflow) {
  if (x.size() > 0 && x.mag().maxCoeff() >= a.max_finite) overflow = true;
}

bool store_rounds(const Storage& storage, const DecodeArithmetic& a) {
  return storage.format != StorageFormat::exact && !(storage.format == StorageFormat::fp32 && a.accumulation_u >= 0x1p-24);
}

void store(Ball& x, const Storage& storage, const DecodeArithmetic& a) {
  if (!store_rounds(storage, a)) return;
  const double us = storage_unit_roundoff(storage);
  x.rad = x.rad + us * x.mag() + Eigen::VectorXd::Constant(x.size(), std::max(eta(a), 0x1p-126));
  outward(x.rad, 2);
}

Ball gemv(std::span<const std::uint16_t> w, std::int64_t rows, std::int64_t cols, const Ball& x,
          const DecodeArithmetic& a, bool& overflow) {
  const double n = static_cast<double>(cols);
  const double gk = gamma(n, a.accumulation_u), gm = gamma(n, kMidU);
  Ball y{Eigen::VectorXd(rows), Eigen::VectorXd(rows)};
  Eigen::MatrixXd x3(cols, 3);  // |m|, r, 1: |W|·x3 gives Σ|w||m|, Σ|w|r, Σ|w| per row
  x3.col(0) = x.mid.cwiseAbs();
  x3.col(1) = x.rad;
  x3.col(2).setOnes();
  Eigen::MatrixXd z;
  for_row_slices(w, rows, cols, [&](std::int64_t i0, auto blk) {
    const std::int64_t rc = blk.rows();
    y.mid.segment(i0, rc).noalias() = blk * x.mid;
    blk = blk.cwiseAbs();
    z.noalias() = blk * x3;
    for (std::int64_t i = 0; i < rc; ++i) {
      const double am = z(i, 0), ar = z(i, 1), aw = z(i, 2);
      // propagation + kernel rounding (any order) + midpoint rounding + flushes (§4)
      y.rad(i0 + i) = ar + gk * (am + ar) + gm * am + eta(a) * (n + aw);
      if ((am + ar) * (1.0 + gk) >= a.max_finite) overflow = true;
    }
  });
  outward(y.rad, n);
  return y;
}

Ball rms_norm(const Ball& x, std::span<const std::uint16_t> g, double eps,
              const DecodeArithmetic& a, bool& overflow) {
  const double h = static_cast<double>(x.size());
  const double u = a.accumulation_u, c = a.constant_rel, e = eta(a);
  const double sum_rel = (h + 4.0) * 0x1p-52;  // double sums of h nonnegative terms
  const Eigen::ArrayXd lo = (x.mid.cwiseAbs() - x.rad).array().max(0.0);
  const double s_lo = lo.square().sum() * (1.0 - sum_rel);
  const double s_hi = x.mag().array().square().sum() * (1.0 + sum_rel);
  // Σx² in the kernel (§5): within γ_h(u) relative plus h flushes.
  const double gh = gamma(h, u);
  const double ks_lo = s_lo * (1.0 - gh) - h * e, ks_hi = s_hi * (1.0 + gh) + h * e;
  // Every partial sum of the kernel's Σx² (nonnegative terms) is at most ks_hi: below
  // max_finite none overflows, at or above it one may (§5, "Overflow").
  if (!(ks_hi < a.max_finite)) overflow = true;
  // ν = Σx²/H + eps; the kernel's lower end is below the exact one (all factors ≤ 1).
  const double nu_lo = ((std::max(ks_lo, 0.0) / h + eps) * (1.0 - c) * (1.0 - u) * (1.0 - u) - 2 * e) *
                       (1.0 - 0x1p-48);
  const double nu_hi = ((ks_hi / h + eps) * (1.0 + c) * (1.0 + u) * (1.0 + u) + 2 * e) * (1.0 + 0x1p-48);
  const double et = a.transcendental_rel;
  const double rho_mid = 1.0 / std::sqrt(x.mid.squaredNorm() / h + eps);
  double rho_rad = kInf;
  if (nu_lo > 0.0 && std::isfinite(rho_mid)) {
    const double rho_lo = (1.0 / std::sqrt(nu_hi)) * (1.0 - et) * (1.0 - 0x1p-50);
    const double rho_hi = (1.0 / std::sqrt(nu_lo)) * (1.0 + et) * (1.0 + 0x1p-50);
    rho_rad = std::max(rho_hi - rho_mid, rho_mid - rho_lo) * (1.0 + 0x1p-52);
  }
  if (std::isnan(rho_mid)) rho_rad = rho_mid;
  Ball y{Eigen::VectorXd(x.size()), Eigen::VectorXd(x.size())};
  const double g2k = gamma(2, elementwise_unit(a)), g2m = gamma(2, kMidU);
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    const double gi = std::abs(bf16_to_double(g[static_cast<std::size_t>(i)]));
    const double m = x.mid(i), r = x.rad(i), am = std::abs(m);
    y.mid(i) = (bf16_to_double(g[static_cast<std::size_t>(i)]) * m) * rho_mid;
    y.rad(i) = gi * (am * rho_rad + r * rho_mid + r * rho_rad) +
               g2k * gi * (am + r) * (rho_mid + rho_rad) + 2 * e + g2m * std::abs(y.mid(i));
  }
  outward(y.rad, 8);
  return y;
}

void rope(Ball& x, Eigen::Index offset, std::int64_t d, std::int64_t p,
          const std::vector<double>& omega, const DecodeArithmetic& a) {
  const double pd = static_cast<double>(p);
  // cos/sin of the double argument p·ω against the exact angle: ω within 2^-48 relative
  // (decode_rope.hpp), ω ≤ 1, so the argument errs by ≤ p·2^-47; glibc cos/sin < 1 ULP.
  const double delta_mid = pd * 0x1p-47 + 0x1p-52;
  const double delta_p = delta_mid + a.rope_abs + a.rope_abs_per_position * pd;
  const double g2 = gamma(2, elementwise_unit(a)) + gamma(2, kMidU);
  const std::int64_t half = d / 2;
  for (std::int64_t i = 0; i < half; ++i) {
    const Eigen::Index ix = offset + i, iy = offset + i + half;
    const double angle = pd * omega[static_cast<std::size_t>(i)];
    const double delta = a.rope_omega_rel.empty() ? delta_p : delta_p + angle * a.rope_omega_rel[static_cast<std::size_t>(i)];
    const double cs = std::cos(angle), sn = std::sin(angle);
    const double mx = x.mid(ix), my = x.mid(iy), rx = x.rad(ix), ry = x.rad(iy);
    const double ax = std::abs(mx) + rx, ay = std::abs(my) + ry;
    const double common = delta * (ax + ay) + g2 * (ax + ay) * (1.0 + delta) + 2 * eta(a);
    x.mid(ix) = mx * cs - my * sn;
    x.mid(iy) = my * cs + mx * sn;
    x.rad(ix) = widen(rx * std::abs(cs) + ry * std::abs(sn) + common, 0x1p-48);
    x.rad(iy) = widen(ry * std::abs(cs) + rx * std::abs(sn) + common, 0x1p-48);
  }
}

namespace {

// Scores of one head (§7.1): midpoints σ·q·k_j and radii covering the exact and the kernel's
// fp32 score fl(fl(q·k)·fl(1/sqrt(D))).
void head_scores(const Ball& q, Eigen::Index qo, std::int64_t d, const HeadCache& kv,
                 const DecodeArithmetic& a, std::vector<double>& smid, std::vector<double>& srad,
                 bool& overflow) {
  const double dd = static_cast<double>(d), u = a.accumulation_u;
  const double sigma = 1.0 / std::sqrt(dd), sigma_up = sigma * (1.0 + 0x1p-50);
  const double gd = gamma(dd, u);
  const double kernel_rel = (1.0 + gd) * ((1.0 + a.constant_rel) * (1.0 + u) - 1.0) + gd;
  const double mid_rel = gamma(dd, kMidU) + 0x1p-50;
  for (std::int64_t j = 0; j < kv.slots; ++j) {
    const double* km = kv.k_mid + j * kv.stride;
    const double* kr = kv.k_rad + j * kv.stride;
    double dot = 0, amm = 0, prop = 0, aaa = 0, qk = 0;
    for (std::int64_t e = 0; e < d; ++e) {
      const double mq = q.mid(qo + e), rq = q.rad(qo + e), mk = km[e], rk = kr[e];
      const double aq = std::abs(mq) + rq, ak = std::abs(mk) + rk;
      dot += mq * mk;
      amm += std::abs(mq * mk);
      prop += std::abs(mq) * rk + rq * rk;  // m_q·(k − m_k) + (q − m_q)·(k − m_k)
      qk += rq * std::abs(mk);              // (q − m_q)·m_k, unless given
      aaa += aq * ak;
    }
    prop += kv.q_err ? kv.q_err[j] : qk;
    if (aaa * (1.0 + gd) >= a.max_finite) overflow = true;
    smid[static_cast<std::size_t>(j)] = sigma * dot;
    srad[static_cast<std::size_t>(j)] =
        widen(sigma_up * (prop + amm * mid_rel + aaa * kernel_rel) + (dd + 1.0) * eta(a),
              (dd + 16.0) * 0x1p-52);
  }
}

double dev_max(const std::vector<double>& dev) { return *std::max_element(dev.begin(), dev.end()); }

}  // namespace

HeadWeights head_weights(const Ball& q, Eigen::Index qo, std::int64_t d, const HeadCache& kv,
                         const DecodeArithmetic& a, bool& overflow) {
  const std::size_t n = static_cast<std::size_t>(kv.slots);
  const double nd = static_cast<double>(n), u = a.accumulation_u, e = eta(a);
  std::vector<double> smid(n), srad(n);
  head_scores(q, qo, d, kv, a, smid, srad, overflow);
  // §7.2 log-weight radii R_j against the midpoint weights w̄_j = exp(mid_j − M).
  const double m_max = *std::max_element(smid.begin(), smid.end());
  double hi_max = -kInf;
  for (std::size_t j = 0; j < n; ++j) hi_max = std::max(hi_max, smid[j] + srad[j]);
  const double g3 = gamma(3, u);
  // fl(m_raw·c·log2 e) in a fused kernel's exponent: ≤ u·|m| (natural units), doubled for the
  // constant's and the FMA's share (decode-bounds.md §15.3).
  double s_abs = 0;
  for (std::size_t j = 0; j < n; ++j) s_abs = std::max(s_abs, std::abs(smid[j]) + srad[j]);
  const double fused = a.fused_exp_argument ? 2 * u * s_abs : 0.0;
  // Online-softmax rescales: each moves a weight by the rescale's exp (ε_t, its argument's
  // roundings 2u·|m|) and the products α·acc, α·l (u each, in μ below).
  const double rescales = a.attention_key_block > 0 ? std::ceil(nd / static_cast<double>(a.attention_key_block)) - 1.0 : 0.0;
  const double rescale_r = rescales * (a.transcendental_rel / (1.0 - a.transcendental_rel) + 2 * u * s_abs);
  const double et = a.transcendental_rel / (1.0 - a.transcendental_rel);  // |ln(1 ± ε_t)|
  HeadWeights hw;
  hw.p_bar.resize(n), hw.big_r.resize(n), hw.psi.resize(n), hw.up.resize(n), hw.dev.resize(n);
  std::vector<double>& w = hw.p_bar;
  double w_sum = 0;
  for (std::size_t j = 0; j < n; ++j) {
    w[j] = std::exp(smid[j] - m_max);
    w_sum += w[j];
    hw.big_r[j] = widen(srad[j] + g3 * (hi_max - smid[j] + srad[j]) + et +
                            0x1p-53 * std::abs(smid[j] - m_max) + 0x1p-51 + 2 * e + fused + rescale_r,
                        0x1p-48);
  }
  // §7.3 the normalisation: Z ≥ z_min for every admissible weight vector.
  double down_sum = 0;
  hw.psi_max = 0;
  for (std::size_t j = 0; j < n; ++j) {
    w[j] /= w_sum;  // P̄_j
    hw.psi[j] = widen(std::expm1(hw.big_r[j]), 0x1p-50);
    hw.up[j] = widen(std::exp(hw.big_r[j]), 0x1p-50);
    hw.psi_max = std::max(hw.psi_max, hw.psi[j]);
    down_sum += w[j] * widen(-std::expm1(-hw.big_r[j]), 0x1p-50);
  }
  hw.z_min = 1.0 - widen(down_sum, (nd + 16.0) * 0x1p-52);
  double psi_sum = 0;
  for (std::size_t j = 0; j < n; ++j) psi_sum += w[j] * hw.psi[j];
  hw.z_max = 1.0 + widen(psi_sum, (nd + 16.0) * 0x1p-52);
  // |P_j − P̄_j| ≤ P̄_j·dev_j for every admissible normalised weight P_j (§7.3, second form).
  for (std::size_t j = 0; j < n; ++j)
    hw.dev[j] = hw.z_min > 0.0 ? widen(std::max(hw.up[j] / hw.z_min - 1.0, 1.0 - 1.0 / (hw.up[j] * hw.z_max)), 0x1p-48)
                               : kInf;
  hw.dev_max = dev_max(hw.dev);
  hw.gn = gamma(nd, u);
  hw.gm = gamma(2 * nd + 2, kMidU);
  // The weights rounded before P·V (attention_weights_u) scale each term by 1 ± u_p: one more
  // factor on the kernel's relative error, eager (normalised P) or fused (e_j, then rcp(l)).
  hw.mu = (1.0 + a.transcendental_rel) * (1.0 + u) * (1.0 + a.attention_weights_u) *
              std::pow((1.0 + u) * (1.0 + u), rescales) / (1.0 - hw.gn) - 1.0;
  return hw;
}

HeadColumn head_column(const HeadWeights& hw, const HeadCache& kv, std::int64_t c, const DecodeArithmetic& a,
                       bool& overflow) {
  const std::size_t n = hw.p_bar.size();
  const double nd = static_cast<double>(n), e = eta(a);
  const std::vector<double>& w = hw.p_bar;
  double om = 0;
  for (std::size_t j = 0; j < n; ++j) om += w[j] * kv.v_mid[j * kv.stride + c];
  double sum_r = 0, sum_psi = 0, big_e = 0, sum_abs = 0, a_max = 0, r_max = 0, sum_dev = 0, sum_a = 0, spread = 0;
  for (std::size_t j = 0; j < n; ++j) {
    const double mv = kv.v_mid[j * kv.stride + c], rv = kv.v_rad[j * kv.stride + c];
    const double av = std::abs(mv) + rv;
    sum_a += av;
    sum_r += w[j] * rv;
    sum_psi += w[j] * hw.psi[j] * (std::abs(mv - om) + rv);
    big_e += w[j] * hw.up[j] * av;
    sum_abs += w[j] * std::abs(mv);
    a_max = std::max(a_max, av);
    r_max = std::max(r_max, rv);
    sum_dev += w[j] * hw.dev[j] * std::abs(mv - om);
    spread = std::max(spread, std::abs(mv - om) + rv);
  }
  // The kernel's acc = Σ e_j v_j with e_j = exp2(t_j − m) ≤ 1 + ε_t: every partial sum is at
  // most (1 + ε_t)(1 + γ_n)Σ_j a_v,j; at max_finite it may overflow (§2, "Overflow").
  if (!(widen(sum_a, (nd + 16.0) * 0x1p-52) * (1.0 + a.transcendental_rel) * (1.0 + hw.gn) < a.max_finite))
    overflow = true;
  HeadColumn col{om, kInf, kInf, kInf, kInf, hw.gm * sum_abs, r_max};
  if (hw.z_min > 0.0) {
    big_e = std::min(big_e / hw.z_min, a_max);  // Σ P̂_j|v̂_j| with Σ P̂_j = 1
    // Two bounds on |Σ P_j v_j − ō| (§7.3); both hold, the smaller is used.
    col.first = (sum_r + sum_psi + hw.psi_max * col.mid_err) / hw.z_min;
    col.second = r_max + sum_dev + (1.0 + hw.dev_max) * col.mid_err;
    col.hull = widen(spread, 0x1p-51);  // Σ P_j v̂_j lies between the smallest and largest v̂_j
    col.kernel = hw.mu * big_e + hw.gn * (1.0 + hw.mu) * big_e + 4.0 * nd * e * (a_max + big_e);
  }
  return col;
}

double HeadColumn::radius(std::size_t slots) const {
  if (std::isnan(mid)) return mid;
  return widen(std::min({first, second, hull}) + kernel + mid_err, (2 * static_cast<double>(slots) + 16.0) * 0x1p-52) + 0x1p-1000;
}

void attention_head(const Ball& q, Eigen::Index qo, std::int64_t d, const HeadCache& kv,
                    const DecodeArithmetic& a, Ball& out, Eigen::Index oo, bool& overflow) {
  const HeadWeights hw = head_weights(q, qo, d, kv, a, overflow);
  for (std::int64_t c = 0; c < d; ++c) {
    const HeadColumn col = head_column(hw, kv, c, a, overflow);
    out.mid(oo + c) = col.mid;
    out.rad(oo + c) = col.radius(hw.p_bar.size());
  }
}

Ball add(const Ball& x, const Ball& y, const DecodeArithmetic& a) {
  Ball z{x.mid + y.mid, Eigen::VectorXd()};
  z.rad = x.rad + y.rad + elementwise_unit(a) * (x.mag() + y.mag()) + kMidU * z.mid.cwiseAbs();
  z.rad.array() += eta(a);
  outward(z.rad, 4);
  return z;
}

Ball silu_mul(const Ball& g, const Ball& up, const DecodeArithmetic& a) {
  const double u = a.accumulation_u, et = a.transcendental_rel, eu = elementwise_unit(a);
  // Kernel: fl(z·rcp(fl(1 + exp2(fl(−z·fl(log2 e)))))) (§9).
  const double theta = (1.0 + a.constant_rel) * (1.0 + u) - 1.0;
  Ball s{Eigen::VectorXd(g.size()), Eigen::VectorXd(g.size())};
  for (Eigen::Index i = 0; i < g.size(); ++i) {
    const double m = g.mid(i), r = g.rad(i), az = std::abs(m) + r;
    const double beta = std::exp(az * theta) * (1.0 + et) - 1.0;
    const double kappa = beta < 1.0 ? (1.0 + et) / ((1.0 - beta) * (1.0 - u)) - 1.0 : kInf;
    s.mid(i) = m / (1.0 + std::exp(-m));
    s.rad(i) = kSiluLipschitz * r + az * ((1.0 + kappa) * (1.0 + eu) - 1.0) + kSiluAbs +
               0x1p-50 * std::abs(s.mid(i)) + 0x1p-1000;
  }
  outward(s.rad, 8);
  Ball y{s.mid.cwiseProduct(up.mid), Eigen::VectorXd()};
  y.rad = s.mid.cwiseAbs().cwiseProduct(up.rad) + s.rad.cwiseProduct(up.mid.cwiseAbs()) +
          s.rad.cwiseProduct(up.rad) + eu * s.mag().cwiseProduct(up.mag()) +
          kMidU * y.mid.cwiseAbs();
  y.rad.array() += eta(a);
  outward(y.rad, 8);
  return y;
}

}  // namespace cdna::reference::ball
