// Naive MPFR rendering of the MFMA block model; see mfma_naive_model.hpp.
#include "numerics/mfma_naive_model.hpp"

#include <mpfr.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "numerics/mpfr_format_rounding.hpp"

namespace cdna::numerics::testing {
namespace {

// Enough bits for any value the model forms exactly: terms reach from 2^-300 to 2^131.
constexpr mpfr_prec_t kPrec = 1024;

struct Mp {
  Mp() { mpfr_init2(v, kPrec); mpfr_set_zero(v, 1); }
  ~Mp() { mpfr_clear(v); }
  Mp(const Mp&) = delete;
  Mp& operator=(const Mp&) = delete;
  mpfr_t v;
};

void require_exact(int ternary) {
  if (ternary != 0) throw std::logic_error("naive MFMA model: an MPFR step was inexact");
}

// The value of an input pattern, from the format's definition (IEEE 754 binary16, or bf16 as
// the high half of a binary32).
double decode(InputFormat format, std::uint16_t bits) {
  if (format == InputFormat::Bf16) {
    return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16));
  }
  const int e = (bits >> 10) & 0x1F;
  const int m = bits & 0x3FF;
  const double sign = (bits & 0x8000) ? -1.0 : 1.0;
  if (e == 0x1F) return m == 0 ? sign * HUGE_VAL : std::numeric_limits<double>::quiet_NaN();
  if (e == 0) return sign * std::ldexp(m, -24);
  return sign * std::ldexp(1024 + m, e - 25);
}

int min_exponent(InputFormat format) { return format == InputFormat::Bf16 ? -126 : -14; }

// Exponent e of a nonzero input written s * 2^e, 1 <= |s| < 2, subnormals at the minimum
// exponent (cdna3-facts.md §4 step 2).
int model_exponent(double x, int emin) { return std::max(std::ilogb(x), emin); }

// Rounds to fp32 as IEEE 754 does (nearest even, subnormals, overflow to inf), by MPFR.
float to_f32_rtne(const mpfr_t x) {
  return static_cast<float>(round_to_format(x, 24, -126, 127, MpfrRounding::NearestEven));
}

float naive_block(InputFormat format, const std::uint16_t* a, const std::uint16_t* b,
                  std::size_t n, float c) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const int emin = min_exponent(format);

  // Special values first (step 4 and the documented choices).
  bool any_nan = std::isnan(c), pos_inf = c == inf, neg_inf = c == -inf;
  std::vector<double> x(n), y(n);
  Mp two128;
  require_exact(mpfr_set_ui_2exp(two128.v, 1, 128, MPFR_RNDN));
  for (std::size_t j = 0; j < n; ++j) {
    x[j] = decode(format, a[j]);
    y[j] = decode(format, b[j]);
    if (std::isnan(x[j]) || std::isnan(y[j])) {
      any_nan = true;
    } else if (std::isinf(x[j]) || std::isinf(y[j])) {
      if (x[j] == 0 || y[j] == 0) {
        any_nan = true;
      } else {
        ((x[j] < 0) != (y[j] < 0) ? neg_inf : pos_inf) = true;
      }
    } else {
      Mp p;
      require_exact(mpfr_set_d(p.v, x[j], MPFR_RNDN));
      require_exact(mpfr_mul_d(p.v, p.v, y[j], MPFR_RNDN));
      if (mpfr_cmpabs(p.v, two128.v) >= 0) (mpfr_sgn(p.v) < 0 ? neg_inf : pos_inf) = true;
    }
  }
  if (any_nan || (pos_inf && neg_inf)) return nan;
  if (pos_inf) return inf;
  if (neg_inf) return -inf;

  // Step 2: E, then each exact product truncated toward zero to a multiple of 2^(E-24).
  int e_max = std::numeric_limits<int>::min();
  for (std::size_t j = 0; j < n; ++j) {
    const bool zero = x[j] == 0 || y[j] == 0;
    const int e = zero ? -126 : model_exponent(x[j], emin) + model_exponent(y[j], emin);
    e_max = std::max(e_max, e);
  }
  Mp sum;
  for (std::size_t j = 0; j < n; ++j) {
    Mp p;
    require_exact(mpfr_set_d(p.v, x[j], MPFR_RNDN));
    require_exact(mpfr_mul_d(p.v, p.v, y[j], MPFR_RNDN));
    require_exact(mpfr_mul_2si(p.v, p.v, 24 - e_max, MPFR_RNDN));
    mpfr_trunc(p.v, p.v);
    require_exact(mpfr_mul_2si(p.v, p.v, e_max - 24, MPFR_RNDN));
    require_exact(mpfr_add(sum.v, sum.v, p.v, MPFR_RNDN));
  }

  // Step 3.
  const int e_c = (c == 0 || std::fabs(c) < std::ldexp(1.0f, -126)) ? -126 : std::ilogb(c);
  const int m = std::max(e_max, e_c);
  Mp block, cr;
  require_exact(mpfr_mul_2si(block.v, sum.v, 31 - m, MPFR_RNDN));
  mpfr_floor(block.v, block.v);
  require_exact(mpfr_mul_2si(block.v, block.v, m - 31, MPFR_RNDN));
  require_exact(mpfr_set_flt(cr.v, c, MPFR_RNDN));
  require_exact(mpfr_mul_2si(cr.v, cr.v, 24 - m, MPFR_RNDN));
  mpfr_floor(cr.v, cr.v);
  require_exact(mpfr_mul_2si(cr.v, cr.v, m - 24, MPFR_RNDN));
  Mp total;
  require_exact(mpfr_add(total.v, block.v, cr.v, MPFR_RNDN));
  if (mpfr_zero_p(total.v)) return 0.0f;  // documented: a zero total is +0
  return to_f32_rtne(total.v);
}

}  // namespace

float naive_mfma_dot(InputFormat format, const std::vector<std::uint16_t>& a,
                     const std::vector<std::uint16_t>& b, float c) {
  if (a.size() != b.size()) throw std::invalid_argument("naive_mfma_dot: length mismatch");
  float acc = c;
  for (std::size_t i = 0; i < a.size(); i += 8) {
    acc = naive_block(format, a.data() + i, b.data() + i, std::min<std::size_t>(8, a.size() - i), acc);
  }
  return acc;
}

}  // namespace cdna::numerics::testing
