// Ball arithmetic for the exact decode oracle: an MPFR midpoint m at precision p and a double
// radius r with |m − x| ≤ r for the real value x the computation stands for (running error
// analysis; Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed., §3.3).
//
// Every operation rounds its midpoint once to nearest at p bits (MPFR's correctly rounded
// +, −, ×, ÷, fma, exp, log, sin/cos, rec_sqrt: relative error ≤ u = 2^-p) and returns the
// radius of the exact result on the input balls plus that rounding. Radii are computed in double
// and rounded upward (each result moved one ULP up with nextafter, which covers round-to-nearest
// and subnormal results), so a returned radius is never below the true bound. A radius that
// cannot be bounded (a divisor or a square-root argument whose ball reaches 0, an exp argument
// radius > 1, a double overflow) is +inf; NaN midpoints give NaN radii.
#pragma once

#include <mpfr.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace cdna::reference::ball {

struct BallCRef {
  mpfr_srcptr m;
  double r;
};
struct BallRef {
  mpfr_ptr m;
  double& r;
  operator BallCRef() const { return {m, r}; }
};

// n balls at precision p (midpoints 0, radii 0).
class MpBalls {
 public:
  MpBalls(std::size_t n, mpfr_prec_t precision);
  ~MpBalls();
  MpBalls(MpBalls&& other) noexcept;
  MpBalls& operator=(MpBalls&& other) noexcept;
  MpBalls(const MpBalls&) = delete;
  MpBalls& operator=(const MpBalls&) = delete;

  std::size_t size() const { return r_.size(); }
  BallRef operator[](std::size_t i) { return {&m_[i], r_[i]}; }
  BallCRef operator[](std::size_t i) const { return {&m_[i], r_[i]}; }

 private:
  std::vector<__mpfr_struct> m_;
  std::vector<double> r_;
};

// One ball (a scalar), for the scalar parts of the computation.
class Ball {
 public:
  explicit Ball(mpfr_prec_t precision) : b_(1, precision) {}
  Ball(mpfr_prec_t precision, double exact);  // m = exact (a double is exact at p ≥ 53), r = 0
  operator BallRef() { return b_[0]; }
  operator BallCRef() const { return b_[0]; }
  mpfr_srcptr mid() const { return b_[0].m; }
  double rad() const { return b_[0].r; }

 private:
  MpBalls b_;
};

// Radius helpers: x rounded up / down by one ULP (a bound on the real result of one double
// operation rounded to nearest, subnormals included); |m| as a double upper / lower bound.
double up(double x);
double down(double x);
double abs_up(mpfr_srcptr m);
double abs_down(mpfr_srcptr m);
// u·|m| rounded up, u = 2^-prec(m): the error of rounding m's exact value to nearest at prec(m).
double rounding(mpfr_srcptr m);
// An upper bound on the real value S of a sum of nonnegative terms, each a product of two doubles
// or a sum of such products, whose double evaluation (round to nearest) gave `computed` with at
// most `roundings` roundings on any one product's path to the result: every rounding of a normal
// result loses at most a factor (1 − 2^-53), a subnormal product at most 2^-1075 (and sums of
// subnormals are exact), so S ≤ computed·(1 + (roundings + 1)·2^-52) + roundings·2^-1074 for
// roundings ≤ 2^40, rounded up.
double bound_of_sum(double computed, double roundings);
// 2^-prec(m) as a double.
double unit_roundoff(mpfr_srcptr m);
// Throws std::invalid_argument unless n ≤ 2^24 and precision ≥ 64 (so n·u ≤ 2^-40, γ_n ≤ (n+1)u).
void check_sum_length(std::size_t n, mpfr_prec_t precision);

void set_exact(BallRef out, double exact);  // precision ≥ 53
void add(BallRef out, BallCRef a, BallCRef b);
void sub(BallRef out, BallCRef a, BallCRef b);
void mul(BallRef out, BallCRef a, BallCRef b);
void div(BallRef out, BallCRef a, BallCRef b);
void copy(BallRef out, BallCRef a);           // exact when prec(out) ≥ prec(a.m)
void neg(BallRef out, BallCRef a);            // exact when prec(out) ≥ prec(a.m)
void rec_sqrt(BallRef out, BallCRef a);       // 1/√a; needs the ball of a inside (0, ∞)
void exp(BallRef out, BallCRef a);            // needs a.r ≤ 1
void sin_cos(BallRef sin, BallRef cos, BallCRef a);
void log_of(BallRef out, double exact);       // log of an exact double > 0
void pi(BallRef out);

// Decides a real comparison from balls: -1 if every point of a is below every point of b, +1 if
// above, 0 if the balls overlap (undecided at this precision).
int compare(BallCRef a, BallCRef b);

// Dot product Σ_j a_j b_j of n pairs of balls given by accessors (j -> BallCRef): the midpoint is
// the recursive sum of exact products (mpfr_fma, one rounding per term), radius
// Σ(|m_a| r_b + |m_b| r_a + r_a r_b) + γ_n Σ|m_a||m_b| with γ_n ≤ (n + 1)u (Higham, Lemma 3.1;
// needs n·u ≤ 2^-40, checked: n ≤ 2^24 and p ≥ 64).
template <class A, class B>
void dot(BallRef out, std::size_t n, A a, B b) {
  check_sum_length(n, mpfr_get_prec(out.m));
  const double u = unit_roundoff(out.m);
  mpfr_set_zero(out.m, +1);
  double prop = 0, mag = 0;
  for (std::size_t j = 0; j < n; ++j) {
    const BallCRef x = a(j), y = b(j);
    mpfr_fma(out.m, x.m, y.m, out.m, MPFR_RNDN);
    const double ax = abs_up(x.m), ay = abs_up(y.m);
    prop += ax * y.r + ay * x.r + x.r * y.r;
    mag += ax * ay;
  }
  // On any path: one product, two additions inside a prop term, n of the running sum.
  const auto nd = static_cast<double>(n);
  out.r = up(bound_of_sum(prop, nd + 3) + up(static_cast<double>(n + 1) * u * bound_of_sum(mag, nd + 1)));
}

// y = W x for the row-major [y.size(), x.size()] matrix W of exact bf16 values (bit patterns):
// midpoints as in dot, radius Σ_j |w_ij| (r_j + (n + 1)u|m_j|). Rows are split over `threads`
// threads (0: one); results do not depend on it.
void gemv(MpBalls& y, const MpBalls& x, std::span<const std::uint16_t> w_bf16, unsigned threads);

}  // namespace cdna::reference::ball
