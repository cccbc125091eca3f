#include "reference/common/mp_ball.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>

#include "numerics/bf16.hpp"

namespace cdna::reference::ball {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The radius of a result whose exact value on the midpoints was rounded once: prop + u|out|.
double with_rounding(double prop, mpfr_srcptr out) { return up(prop + rounding(out)); }

}  // namespace

MpBalls::MpBalls(std::size_t n, mpfr_prec_t precision) : m_(n), r_(n, 0.0) {
  for (__mpfr_struct& m : m_) {
    mpfr_init2(&m, precision);
    mpfr_set_zero(&m, +1);
  }
}

MpBalls::~MpBalls() {
  for (__mpfr_struct& m : m_) mpfr_clear(&m);
}

// A moved-from MpBalls is empty: the limbs belong to the new owner (mpfr_t is relocatable).
MpBalls::MpBalls(MpBalls&& other) noexcept : m_(std::move(other.m_)), r_(std::move(other.r_)) {
  other.m_.clear();
  other.r_.clear();
}

MpBalls& MpBalls::operator=(MpBalls&& other) noexcept {
  std::swap(m_, other.m_);
  std::swap(r_, other.r_);
  return *this;
}

Ball::Ball(mpfr_prec_t precision, double exact) : b_(1, precision) { set_exact(b_[0], exact); }

double up(double x) { return std::nextafter(x, kInf); }
double down(double x) { return std::nextafter(x, -kInf); }
double abs_up(mpfr_srcptr m) { return std::fabs(mpfr_get_d(m, MPFR_RNDA)); }
double abs_down(mpfr_srcptr m) { return std::fabs(mpfr_get_d(m, MPFR_RNDZ)); }
double unit_roundoff(mpfr_srcptr m) { return std::ldexp(1.0, -static_cast<int>(mpfr_get_prec(m))); }
double rounding(mpfr_srcptr m) { return up(unit_roundoff(m) * abs_up(m)); }

double bound_of_sum(double computed, double roundings) {
  return up(up(computed * up(1.0 + (roundings + 1) * 0x1p-52)) + roundings * 0x1p-1074);
}

void check_sum_length(std::size_t n, mpfr_prec_t precision) {
  if (n > (std::size_t{1} << 24) || precision < 64)
    throw std::invalid_argument("ball sum of " + std::to_string(n) + " terms at " + std::to_string(precision) +
                                " bits: need n <= 2^24 and precision >= 64");
}

void set_exact(BallRef out, double exact) {
  mpfr_set_d(out.m, exact, MPFR_RNDN);  // exact at precision >= 53
  out.r = 0;
}

void add(BallRef out, BallCRef a, BallCRef b) {
  mpfr_add(out.m, a.m, b.m, MPFR_RNDN);
  out.r = with_rounding(up(a.r + b.r), out.m);
}

void sub(BallRef out, BallCRef a, BallCRef b) {
  mpfr_sub(out.m, a.m, b.m, MPFR_RNDN);
  out.r = with_rounding(up(a.r + b.r), out.m);
}

// |xy − m_a m_b| ≤ |m_a| r_b + |m_b| r_a + r_a r_b.
void mul(BallRef out, BallCRef a, BallCRef b) {
  const double prop = up(up(up(abs_up(a.m) * b.r) + up(abs_up(b.m) * a.r)) + up(a.r * b.r));
  mpfr_mul(out.m, a.m, b.m, MPFR_RNDN);
  out.r = with_rounding(prop, out.m);
}

// |x/y − m_a/m_b| ≤ (r_a + |m_a/m_b| r_b) / (|m_b| − r_b) for |m_b| > r_b.
void div(BallRef out, BallCRef a, BallCRef b) {
  const double den = down(abs_down(b.m) - b.r);
  double prop = kInf;
  if (den > 0) {
    const double q = up(abs_up(a.m) / abs_down(b.m));
    prop = up(up(a.r + up(q * b.r)) / den);
  }
  mpfr_div(out.m, a.m, b.m, MPFR_RNDN);
  out.r = with_rounding(prop, out.m);
}

void copy(BallRef out, BallCRef a) {
  mpfr_set(out.m, a.m, MPFR_RNDN);
  out.r = up(a.r + (mpfr_get_prec(out.m) >= mpfr_get_prec(a.m) ? 0.0 : rounding(out.m)));
}

void neg(BallRef out, BallCRef a) {
  mpfr_neg(out.m, a.m, MPFR_RNDN);
  out.r = up(a.r + (mpfr_get_prec(out.m) >= mpfr_get_prec(a.m) ? 0.0 : rounding(out.m)));
}

// 1/√ is decreasing and convex on (0, ∞): |f(x) − f(m)| ≤ r·|f'(m − r)| = r/(2 (m − r)^1.5).
void rec_sqrt(BallRef out, BallCRef a) {
  const double lo = mpfr_sgn(a.m) > 0 ? down(abs_down(a.m) - a.r) : 0.0;
  double prop = kInf;
  if (lo > 0) {
    const double lo15 = down(lo * down(std::sqrt(lo)));
    prop = a.r == 0 ? 0.0 : (lo15 > 0 ? up(up(0.5 * a.r) / lo15) : kInf);
  }
  mpfr_rec_sqrt(out.m, a.m, MPFR_RNDN);
  out.r = with_rounding(prop, out.m);
}

// |e^x − e^m| ≤ e^m (e^r − 1) ≤ e^m (r + r²) for r ≤ 1, and e^m ≤ |out|/(1 − u) ≤ |out|(1 + 2^-51).
void exp(BallRef out, BallCRef a) {
  mpfr_exp(out.m, a.m, MPFR_RNDN);
  if (mpfr_zero_p(out.m) && mpfr_number_p(a.m) && a.r <= 1) {
    // Underflow below MPFR's range: e^(m + r) < e·2^(emin) is below the smallest double.
    out.r = 0x1p-1074;
    return;
  }
  const double prop = a.r > 1 ? kInf : up(up(abs_up(out.m) * up(1 + 0x1p-51)) * up(a.r + up(a.r * a.r)));
  out.r = with_rounding(prop, out.m);
}

// sin and cos are 1-Lipschitz.
void sin_cos(BallRef s, BallRef c, BallCRef a) {
  mpfr_sin_cos(s.m, c.m, a.m, MPFR_RNDN);
  s.r = with_rounding(a.r, s.m);
  c.r = with_rounding(a.r, c.m);
}

void log_of(BallRef out, double exact) {
  mpfr_set_d(out.m, exact, MPFR_RNDN);
  mpfr_log(out.m, out.m, MPFR_RNDN);  // in place: mpfr_log reads the exact input first
  out.r = rounding(out.m);
}

void pi(BallRef out) {
  mpfr_const_pi(out.m, MPFR_RNDN);
  out.r = rounding(out.m);
}

int compare(BallCRef a, BallCRef b) {
  MpBalls d(1, std::max(mpfr_get_prec(a.m), mpfr_get_prec(b.m)));
  sub(d[0], a, b);
  if (mpfr_cmp_d(d[0].m, d[0].r) > 0) return 1;
  if (mpfr_cmp_d(d[0].m, -d[0].r) < 0) return -1;
  return 0;
}

void gemv(MpBalls& y, const MpBalls& x, std::span<const std::uint16_t> w, unsigned threads) {
  const std::size_t n = x.size(), rows = y.size();
  if (w.size() != rows * n)
    throw std::invalid_argument("gemv: " + std::to_string(w.size()) + " weights for a [" + std::to_string(rows) +
                                ", " + std::to_string(n) + "] matrix");
  if (n == 0) return;
  check_sum_length(n, mpfr_get_prec(x[0].m));
  // t_j = r_j + (n + 1)u|m_j|: what one column contributes to a row's radius per unit |w_ij|.
  const double nu = static_cast<double>(n + 1) * unit_roundoff(y[0].m);
  std::vector<double> t(n);
  for (std::size_t j = 0; j < n; ++j) t[j] = up(x[j].r + up(nu * abs_up(x[j].m)));
  auto rows_from = [&](std::size_t begin, std::size_t end) {
    MpBalls wj(1, 64);  // a bf16 value is exact in 8 bits
    for (std::size_t i = begin; i < end; ++i) {
      const BallRef out = y[i];
      mpfr_set_zero(out.m, +1);
      double prop = 0;
      for (std::size_t j = 0; j < n; ++j) {
        const double wv = numerics::f32_from_bf16(w[i * n + j]);
        mpfr_set_d(wj[0].m, wv, MPFR_RNDN);
        mpfr_fma(out.m, wj[0].m, x[j].m, out.m, MPFR_RNDN);
        prop += std::fabs(wv) * t[j];
      }
      out.r = bound_of_sum(prop, static_cast<double>(n) + 1);
    }
  };
  const std::size_t parts = std::max<std::size_t>(1, std::min<std::size_t>(threads, rows));
  if (parts == 1 || rows * n < (std::size_t{1} << 16)) {
    rows_from(0, rows);
    return;
  }
  std::vector<std::thread> pool;
  for (std::size_t p = 1; p < parts; ++p) pool.emplace_back(rows_from, rows * p / parts, rows * (p + 1) / parts);
  rows_from(0, rows / parts);
  for (std::thread& th : pool) th.join();
}

}  // namespace cdna::reference::ball
