// Test-only: rounding an exact MPFR value into a binary floating-point format, the oracle side
// of the conversion and MFMA tests. MPFR does the rounding itself (mpfr_rint / mpfr_round /
// mpfr_trunc on the value scaled to the format's quantum); this header only picks the quantum
// of the format at x. It changes no MPFR exponent range, so every value stays in MPFR's default
// range (the MPFR manual leaves out-of-range variables undefined).
#pragma once

#include <mpfr.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace cdna::numerics::testing {

enum class MpfrRounding { NearestEven, NearestAway, TowardZero };

// x rounded to the format with p-bit significands, normal binades 2^emin .. 2^emax, subnormals
// (quantum 2^(emin - p + 1)) and IEEE 754 overflow: nearest modes give ±inf from
// (2 - 2^-p) * 2^emax on, toward zero gives ±largest finite. Returned as a double, exact for
// p <= 53 and formats inside the double range.
inline double round_to_format(const mpfr_t x, int p, int emin, int emax, MpfrRounding mode) {
  if (mpfr_nan_p(x)) return std::numeric_limits<double>::quiet_NaN();
  if (mpfr_inf_p(x)) return mpfr_signbit(x) ? -HUGE_VAL : HUGE_VAL;
  if (mpfr_zero_p(x)) return mpfr_signbit(x) ? -0.0 : 0.0;
  const long e = static_cast<long>(mpfr_get_exp(x)) - 1;  // x in [2^e, 2^(e+1))
  const long quantum = std::max<long>(e, emin) - (p - 1);
  mpfr_t y;
  mpfr_init2(y, std::max<mpfr_prec_t>(mpfr_get_prec(x), p + 1));
  mpfr_mul_2si(y, x, -quantum, MPFR_RNDN);  // exact: a power-of-two scaling
  switch (mode) {
    case MpfrRounding::NearestEven: mpfr_rint(y, y, MPFR_RNDN); break;
    case MpfrRounding::NearestAway: mpfr_round(y, y); break;  // MPFR: ties away from zero
    case MpfrRounding::TowardZero: mpfr_trunc(y, y); break;
  }
  mpfr_mul_2si(y, y, quantum, MPFR_RNDN);
  const double r = mpfr_get_d(y, MPFR_RNDN);  // exact for the formats used here
  mpfr_clear(y);
  if (std::fabs(r) >= std::ldexp(1.0, emax + 1)) {
    if (mode != MpfrRounding::TowardZero) return std::copysign(HUGE_VAL, r);
    return std::copysign(std::ldexp(2.0 - std::ldexp(1.0, 1 - p), emax), r);
  }
  return r;
}

}  // namespace cdna::numerics::testing
