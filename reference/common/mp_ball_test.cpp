// Ball arithmetic encloses: for inputs anywhere in the input balls (their ends, midpoints and
// inner points), each operation's result at 2000 bits lies within the output ball computed at
// 64 bits. 2000-bit results err by < 2^-1900 relative, far below every radius checked.
#include "reference/common/mp_ball.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

namespace cdna::reference::ball {
namespace {

constexpr mpfr_prec_t kLow = 64, kHigh = 2000;

// A ball at 64 bits with a midpoint of 64 random bits and a radius of `rel` times its size.
struct Input {
  MpBalls b{1, kLow};
  Input(std::mt19937_64& gen, double scale, double rel) {
    mpfr_set_ui(b[0].m, gen(), MPFR_RNDN);
    mpfr_div_2ui(b[0].m, b[0].m, 64, MPFR_RNDN);  // [0, 1)
    mpfr_sub_d(b[0].m, b[0].m, 0.5, MPFR_RNDN);
    mpfr_mul_d(b[0].m, b[0].m, scale, MPFR_RNDN);
    b[0].r = rel * std::fabs(mpfr_get_d(b[0].m, MPFR_RNDN));
  }
  // A point of the ball: m + t·r at 2000 bits.
  void point(mpfr_ptr x, double t) const {
    mpfr_set_d(x, t * b[0].r, MPFR_RNDN);
    mpfr_add(x, x, b[0].m, MPFR_RNDN);
  }
};

// |f(x) − m| ≤ r for x = every combination of points of the inputs.
void expect_encloses(BallCRef out, mpfr_srcptr exact, const std::string& what) {
  MpBalls d(1, kHigh);
  mpfr_sub(d[0].m, exact, out.m, MPFR_RNDN);
  mpfr_abs(d[0].m, d[0].m, MPFR_RNDN);
  EXPECT_LE(mpfr_cmp_d(d[0].m, out.r), 0) << what << ": |error| " << mpfr_get_d(d[0].m, MPFR_RNDN) << " > radius " << out.r;
}

constexpr double kPoints[] = {-1.0, -0.5, 0.0, 0.75, 1.0};

using Binary = void (*)(BallRef, BallCRef, BallCRef);
using HighBinary = int (*)(mpfr_ptr, mpfr_srcptr, mpfr_srcptr, mpfr_rnd_t);

TEST(MpBall, BinaryOperationsEnclose) {
  const std::tuple<const char*, Binary, HighBinary> ops[] = {
      {"add", add, mpfr_add}, {"sub", sub, mpfr_sub}, {"mul", mul, mpfr_mul}, {"div", div, mpfr_div}};
  std::mt19937_64 gen(1);
  MpBalls x(1, kHigh), y(1, kHigh), z(1, kHigh), out(1, kLow);
  for (const auto& [name, op, high] : ops)
    for (int trial = 0; trial < 200; ++trial) {
      // Radii from exact (0) to 2^-20 relative; scales across 2^±30.
      const double rel = trial % 3 == 0 ? 0.0 : std::ldexp(1.0, -20 - trial % 40);
      const Input a(gen, std::ldexp(1.0, trial % 61 - 30), rel), b(gen, std::ldexp(1.0, 30 - trial % 61), rel);
      op(out[0], a.b[0], b.b[0]);
      for (double s : kPoints)
        for (double t : kPoints) {
          a.point(x[0].m, s);
          b.point(y[0].m, t);
          high(z[0].m, x[0].m, y[0].m, MPFR_RNDN);
          expect_encloses(out[0], z[0].m, std::string(name) + " trial " + std::to_string(trial));
        }
    }
}

TEST(MpBall, UnaryOperationsEnclose) {
  std::mt19937_64 gen(2);
  MpBalls x(1, kHigh), z(1, kHigh), z2(1, kHigh), out(1, kLow), out2(1, kLow), pos(1, kLow);
  for (int trial = 0; trial < 300; ++trial) {
    const double rel = trial % 3 == 0 ? 0.0 : std::ldexp(1.0, -20 - trial % 40);
    const Input a(gen, std::ldexp(1.0, trial % 20 - 6), rel);
    // rec_sqrt on |a| (a positive ball with the same radius).
    mpfr_abs(pos[0].m, a.b[0].m, MPFR_RNDN);
    pos[0].r = a.b[0].r;
    rec_sqrt(out[0], pos[0]);
    for (double s : kPoints) {
      a.point(x[0].m, s);
      mpfr_abs(x[0].m, x[0].m, MPFR_RNDN);
      mpfr_rec_sqrt(z[0].m, x[0].m, MPFR_RNDN);
      expect_encloses(out[0], z[0].m, "rec_sqrt trial " + std::to_string(trial));
    }
    exp(out[0], a.b[0]);
    sin_cos(out[0], out2[0], a.b[0]);
    MpBalls e(1, kLow);
    exp(e[0], a.b[0]);
    for (double s : kPoints) {
      a.point(x[0].m, s);
      mpfr_exp(z[0].m, x[0].m, MPFR_RNDN);
      expect_encloses(e[0], z[0].m, "exp trial " + std::to_string(trial));
      mpfr_sin_cos(z[0].m, z2[0].m, x[0].m, MPFR_RNDN);
      expect_encloses(out[0], z[0].m, "sin trial " + std::to_string(trial));
      expect_encloses(out2[0], z2[0].m, "cos trial " + std::to_string(trial));
    }
  }
  log_of(out[0], 500000.0);
  mpfr_set_d(z[0].m, 500000.0, MPFR_RNDN);
  mpfr_log(z[0].m, z[0].m, MPFR_RNDN);
  expect_encloses(out[0], z[0].m, "log");
  pi(out[0]);
  mpfr_const_pi(z[0].m, MPFR_RNDN);
  expect_encloses(out[0], z[0].m, "pi");
}

TEST(MpBall, RoundingAloneIsCovered) {
  // Exact inputs whose sum is not a 64-bit number: the radius is the rounding error's bound.
  MpBalls a(1, kLow), b(1, kLow), out(1, kLow), exact(1, kHigh);
  set_exact(a[0], 1.0);
  set_exact(b[0], 0x1p-100);
  add(out[0], a[0], b[0]);
  EXPECT_GT(out[0].r, 0.0);
  mpfr_set_d(exact[0].m, 1.0, MPFR_RNDN);
  mpfr_add_d(exact[0].m, exact[0].m, 0x1p-100, MPFR_RNDN);
  expect_encloses(out[0], exact[0].m, "1 + 2^-100");
}

// Row i of y = W x and Σ x_j² at 2000 bits, for x at the points s of the input balls.
void check_dot_and_gemv(double odd_radius) {
  std::mt19937_64 gen(3);
  const std::size_t n = 300, rows = 7;
  MpBalls x(n, kLow), y(rows, kLow), d(1, kLow), hx(n, kHigh), acc(1, kHigh), t(1, kHigh);
  std::vector<std::uint16_t> w(rows * n);
  for (auto& v : w) v = static_cast<std::uint16_t>(gen() & 0x3FFF) | static_cast<std::uint16_t>(gen() & 0x8000);
  std::vector<Input> in;
  for (std::size_t j = 0; j < n; ++j) in.emplace_back(gen, 4.0, j % 2 ? odd_radius : 0.0);
  for (std::size_t j = 0; j < n; ++j) {
    mpfr_set(x[j].m, in[j].b[0].m, MPFR_RNDN);
    x[j].r = in[j].b[0].r;
  }
  gemv(y, x, w, 2);
  dot(d[0], n, [&](std::size_t j) { return BallCRef(x[j]); }, [&](std::size_t j) { return BallCRef(x[j]); });
  for (double s : kPoints) {
    for (std::size_t j = 0; j < n; ++j) in[j].point(hx[j].m, j % 3 ? s : -s);
    for (std::size_t i = 0; i < rows; ++i) {
      mpfr_set_zero(acc[0].m, 1);
      for (std::size_t j = 0; j < n; ++j) {
        const std::uint32_t bits = static_cast<std::uint32_t>(w[i * n + j]) << 16;
        float f;
        std::memcpy(&f, &bits, 4);
        mpfr_mul_d(t[0].m, hx[j].m, f, MPFR_RNDN);
        mpfr_add(acc[0].m, acc[0].m, t[0].m, MPFR_RNDN);
      }
      expect_encloses(y[i], acc[0].m, "gemv row " + std::to_string(i));
    }
    mpfr_set_zero(acc[0].m, 1);
    for (std::size_t j = 0; j < n; ++j) {
      mpfr_sqr(t[0].m, hx[j].m, MPFR_RNDN);
      mpfr_add(acc[0].m, acc[0].m, t[0].m, MPFR_RNDN);
    }
    expect_encloses(d[0], acc[0].m, "dot");
  }
}

TEST(MpBall, DotAndGemvEnclose) {
  check_dot_and_gemv(0.0);  // exact inputs: only the 64-bit roundings of the sums
  check_dot_and_gemv(0x1p-30);
}

TEST(MpBall, UnboundableRadiiAreInfinite) {
  MpBalls a(1, kLow), b(1, kLow), out(1, kLow);
  set_exact(a[0], 1.0);
  set_exact(b[0], 0.5);
  b[0].r = 0.5;  // the divisor's ball reaches 0
  div(out[0], a[0], b[0]);
  EXPECT_TRUE(std::isinf(out[0].r));
  rec_sqrt(out[0], b[0]);
  EXPECT_TRUE(std::isinf(out[0].r));
  a[0].r = 2;  // exp radius > 1
  exp(out[0], a[0]);
  EXPECT_TRUE(std::isinf(out[0].r));
  EXPECT_EQ(compare(a[0], b[0]), 0);
  a[0].r = 0;
  b[0].r = 0;
  EXPECT_EQ(compare(a[0], b[0]), 1);
  EXPECT_EQ(compare(b[0], a[0]), -1);
}

}  // namespace
}  // namespace cdna::reference::ball
