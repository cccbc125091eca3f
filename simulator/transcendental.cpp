#include "simulator/transcendental.hpp"

#include <mpfr.h>

#include <bit>
#include <cmath>
#include <limits>

#include "simulator/fp_round.hpp"

namespace cdna::simulator {
namespace {

using u32 = std::uint32_t;
using u64 = std::uint64_t;

constexpr long double kTwoPi = 6.283185307179586476925286766559005768L;

// sin(2*pi*g) for |g| <= 1/4 (the argument keeps its relative accuracy).
double sin_turns(long double g) { return static_cast<double>(std::sin(kTwoPi * g)); }

// The approximation of f(x) in double (relative error below 2^-50), or the exact special value.
double approx(Trans f, float x) {
  const double d = static_cast<double>(x);
  switch (f) {
    case Trans::Exp2: return std::exp2(d);
    case Trans::Log2: return x == 0.0f ? -std::numeric_limits<double>::infinity() : std::log2(d);
    case Trans::Rcp: return 1.0 / d;
    case Trans::Rsq:
      return x == 0.0f ? std::copysign(std::numeric_limits<double>::infinity(), d) : 1.0 / std::sqrt(d);
    case Trans::Sqrt: return std::sqrt(d);
    case Trans::Sin:
    case Trans::Cos: {
      if (std::isinf(x)) return std::numeric_limits<double>::quiet_NaN();
      // Exact reductions (each result is representable in long double's 64 bits): turns into
      // [-1/2, 1/2], then to a quarter turn around zero.
      long double t = std::fmod(static_cast<long double>(x), 1.0L);
      if (t > 0.5L) t -= 1.0L;
      if (t < -0.5L) t += 1.0L;
      double r;
      if (f == Trans::Sin) {
        long double g = t > 0.25L ? 0.5L - t : t < -0.25L ? -0.5L - t : t;  // sin(pi - a) = sin(a)
        r = sin_turns(g);
        return r == 0.0 ? std::copysign(0.0, d) : r;
      }
      r = sin_turns(0.25L - std::fabs(t));  // cos(a) = sin(pi/2 - a); exact for |t| >= 1/8
      return r == 0.0 ? 0.0 : r;
    }
  }
  return 0.0;
}

// Scoped MPFR exponent range of binary32 (emin/emax are per thread in MPFR).
class F32Range {
 public:
  F32Range() : emin_(mpfr_get_emin()), emax_(mpfr_get_emax()) {
    mpfr_set_emin(-148);
    mpfr_set_emax(128);
  }
  ~F32Range() {
    mpfr_set_emin(emin_);
    mpfr_set_emax(emax_);
  }

 private:
  mpfr_exp_t emin_, emax_;
};

// f(x) by MPFR rounded to f32 under `mode`; only called for x where f(x) is finite and nonzero.
u32 by_mpfr(Trans f, float x, u32 mode, bool* exact) {
  const mpfr_rnd_t rnd = mode == kRoundUp ? MPFR_RNDU : mode == kRoundDown ? MPFR_RNDD
                         : mode == kRoundZero ? MPFR_RNDZ : MPFR_RNDN;
  F32Range range;
  mpfr_t a, r;
  mpfr_init2(a, 24);
  mpfr_init2(r, 24);
  mpfr_set_flt(a, x, MPFR_RNDN);
  int t = 0;
  switch (f) {
    case Trans::Exp2: t = mpfr_exp2(r, a, rnd); break;
    case Trans::Log2: t = mpfr_log2(r, a, rnd); break;
    case Trans::Rcp: t = mpfr_ui_div(r, 1, a, rnd); break;
    case Trans::Rsq: t = mpfr_rec_sqrt(r, a, rnd); break;
    case Trans::Sqrt: t = mpfr_sqrt(r, a, rnd); break;
    case Trans::Sin: t = mpfr_sinu(r, a, 1, rnd); break;
    case Trans::Cos: t = mpfr_cosu(r, a, 1, rnd); break;
  }
  t = mpfr_subnormalize(r, t, rnd);
  if (exact) *exact = t == 0;
  const u32 bits = std::bit_cast<u32>(mpfr_get_flt(r, MPFR_RNDN));  // representable: exact
  mpfr_clear(a);
  mpfr_clear(r);
  return bits;
}

// Whether the rounding of y under `mode` may differ from that of the exact value (which lies
// within y * (1 +- 2^-50)): y lies within 2^-44 of a rounding boundary.
bool ambiguous(double y, u32 mode) {
  constexpr double kMargin = 0x1p-44;
  return f32_from_f64(y * (1 - kMargin), mode) != f32_from_f64(y * (1 + kMargin), mode);
}

bool special(double y) { return !std::isfinite(y) || y == 0.0; }

}  // namespace

u32 trans_nearest(Trans f, u32 x) {
  const float xf = std::bit_cast<float>(x);
  const double y = approx(f, xf);
  if (special(y)) return std::bit_cast<u32>(static_cast<float>(y));
  // Fast path: the boundaries of nearest rounding are the midpoints between floats.
  constexpr double kMargin = 0x1p-44;
  const float lo = static_cast<float>(y * (1 - kMargin)), hi = static_cast<float>(y * (1 + kMargin));
  if (std::bit_cast<u32>(lo) == std::bit_cast<u32>(hi)) return std::bit_cast<u32>(lo);
  return by_mpfr(f, xf, kRoundNearest, nullptr);
}

u32 trans_envelope(Trans f, u32 x, u64 seed) {
  const u32 nearest = trans_nearest(f, x);
  const float xf = std::bit_cast<float>(x);
  const double y = approx(f, xf);
  if (special(y) || (nearest & 0x7fffffffu) == 0 || (nearest & 0x7fffffffu) == 0x7f800000u) return nearest;
  u32 down, up;
  if (!ambiguous(y, kRoundDown) && !ambiguous(y, kRoundUp)) {
    down = f32_from_f64(y, kRoundDown);
    up = f32_from_f64(y, kRoundUp);
  } else {
    bool exact = false;
    down = by_mpfr(f, xf, kRoundDown, &exact);
    if (exact) return down;
    up = by_mpfr(f, xf, kRoundUp, nullptr);
  }
  // splitmix64 finaliser of (seed, function, input): a fixed choice per input, like hardware.
  u64 h = seed ^ (static_cast<u64>(f) << 32) ^ x;
  h += 0x9e3779b97f4a7c15ull;
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
  h ^= h >> 31;
  u32 pick = (h & 1) ? up : down;
  if ((pick & 0x7fffffffu) == 0x7f800000u) pick = pick == up ? down : up;
  return pick;
}

}  // namespace cdna::simulator
