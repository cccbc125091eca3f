#include "simulator/exec/transcendental.hpp"

#include <mpfr.h>

#include <bit>
#include <cmath>
#include <limits>

#include "simulator/exec/fp_round.hpp"

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

// A binary format for MPFR: precision and exponent range in MPFR's convention (x = m * 2^e,
// 1/2 <= m < 1), and the field widths of its encoding.
struct Format {
  int prec;
  mpfr_exp_t emin, emax;
  int man, exp;
};
constexpr Format kF16{11, -23, 16, 10, 5};
constexpr Format kF32{24, -148, 128, 23, 8};
constexpr Format kF64{53, -1073, 1024, 52, 11};

// Scoped MPFR exponent range of `fmt` (emin/emax are per thread in MPFR).
class MpfrRange {
 public:
  explicit MpfrRange(const Format& fmt) : emin_(mpfr_get_emin()), emax_(mpfr_get_emax()) {
    mpfr_set_emin(fmt.emin);
    mpfr_set_emax(fmt.emax);
  }
  ~MpfrRange() {
    mpfr_set_emin(emin_);
    mpfr_set_emax(emax_);
  }
  MpfrRange(const MpfrRange&) = delete;
  MpfrRange& operator=(const MpfrRange&) = delete;

 private:
  mpfr_exp_t emin_, emax_;
};

// Bits of a double that is representable in `fmt` (exact, so the mode does not matter).
u64 encode(double y, const Format& fmt) {
  return fmt.man == 52 ? std::bit_cast<u64>(y) : narrow_f64(y, fmt.man, fmt.exp, kRoundNearest);
}

// f(x) by MPFR rounded to `fmt` under `mode`; only called for x where f(x) is finite and nonzero
// (x is exact in double).
u64 by_mpfr(Trans f, double x, const Format& fmt, u32 mode, bool* exact) {
  const mpfr_rnd_t rnd = mode == kRoundUp ? MPFR_RNDU : mode == kRoundDown ? MPFR_RNDD
                         : mode == kRoundZero ? MPFR_RNDZ : MPFR_RNDN;
  MpfrRange range(fmt);
  mpfr_t a, r;
  mpfr_init2(a, 53);
  mpfr_init2(r, fmt.prec);
  mpfr_set_d(a, x, MPFR_RNDN);
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
  const u64 bits = encode(mpfr_get_d(r, MPFR_RNDN), fmt);  // representable: exact
  mpfr_clear(a);
  mpfr_clear(r);
  return bits;
}
u32 by_mpfr(Trans f, float x, u32 mode, bool* exact) {
  return static_cast<u32>(by_mpfr(f, static_cast<double>(x), kF32, mode, exact));
}

// splitmix64 finaliser of (seed, function tag, input): a fixed choice per input, like hardware.
u64 mix(u64 seed, u64 tag, u64 x) {
  u64 h = seed ^ (tag << 32) ^ x;
  h += 0x9e3779b97f4a7c15ull;
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
  return h ^ (h >> 31);
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
  const u64 h = mix(seed, static_cast<u64>(f), x);
  u32 pick = (h & 1) ? up : down;
  if ((pick & 0x7fffffffu) == 0x7f800000u) pick = pick == up ? down : up;
  return pick;
}

// ---- f16

namespace {

// Invalid results and zero signs follow the f16 functional examples of the CDNA3 ISA guide.
constexpr u32 kInvalid16 = 0xfe00u;  // the ISA guide's examples: sqrt(-inf), log(-1), sin(inf)

double half_value(u32 h) {
  const int e = static_cast<int>((h >> 10) & 0x1f);
  const double m = static_cast<double>(h & 0x3ff);
  const double v = e == 31 ? ((h & 0x3ff) ? std::numeric_limits<double>::quiet_NaN()
                                          : std::numeric_limits<double>::infinity())
                   : e == 0 ? std::ldexp(m, -24)
                            : std::ldexp(1024.0 + m, e - 25);
  return (h & 0x8000u) ? -v : v;
}

u32 round16(double y, u32 mode) { return narrow_f64(y, 10, 5, mode); }

// The result of a special (NaN, infinite or zero) approximation.
u32 special16(double y) { return std::isnan(y) ? kInvalid16 : round16(y, kRoundNearest); }

bool ambiguous16(double y, u32 mode) {
  constexpr double kMargin = 0x1p-44;
  return round16(y * (1 - kMargin), mode) != round16(y * (1 + kMargin), mode);
}

}  // namespace

u32 trans_nearest16(Trans f, u32 h) {
  h &= 0xffffu;
  const double x = half_value(h);
  if (std::isnan(x)) return h | 0x0200u;
  const double y = approx(f, static_cast<float>(x));  // x is exact in f32
  // The guide's examples: sin(-65504) = +0 (0xfbff -> 0x0000), sin(-0) = -0.
  if (f == Trans::Sin && y == 0.0 && x != 0.0) return 0;
  if (special(y)) return special16(y);
  if (!ambiguous16(y, kRoundNearest)) return round16(y, kRoundNearest);
  return static_cast<u32>(by_mpfr(f, x, kF16, kRoundNearest, nullptr));
}

u32 trans_envelope16(Trans f, u32 h, u64 seed) {
  const u32 nearest = trans_nearest16(f, h);
  h &= 0xffffu;
  const double x = half_value(h);
  if (std::isnan(x)) return nearest;
  const double y = approx(f, static_cast<float>(x));
  if (special(y) || (nearest & 0x7fffu) == 0 || (nearest & 0x7fffu) == 0x7c00u) return nearest;
  u32 down, up;
  if (!ambiguous16(y, kRoundDown) && !ambiguous16(y, kRoundUp)) {
    down = round16(y, kRoundDown);
    up = round16(y, kRoundUp);
  } else {
    bool exact = false;
    down = static_cast<u32>(by_mpfr(f, x, kF16, kRoundDown, &exact));
    if (exact) return down;
    up = static_cast<u32>(by_mpfr(f, x, kF16, kRoundUp, nullptr));
  }
  if (down == up) return nearest;  // exact
  u32 pick = (mix(seed, 0x10u | static_cast<u64>(f), h) & 1) ? up : down;
  if ((pick & 0x7fffu) == 0x7c00u) pick = pick == up ? down : up;
  return pick;
}

// ---- f64

u64 trans_nearest64(Trans f, u64 xb) {
  const double x = std::bit_cast<double>(xb);
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (std::isnan(x)) return xb;
  switch (f) {
    case Trans::Rcp: return std::bit_cast<u64>(1.0 / x);  // IEEE division: correctly rounded
    case Trans::Sqrt: return std::bit_cast<u64>(std::sqrt(x));  // IEEE sqrt; sqrt(-0) = -0
    case Trans::Rsq:
      if (x == 0.0) return std::bit_cast<u64>(std::copysign(kInf, x));
      if (x < 0.0) return std::bit_cast<u64>(std::numeric_limits<double>::quiet_NaN());
      if (std::isinf(x)) return 0;
      return by_mpfr(f, x, kF64, kRoundNearest, nullptr);
    default: break;
  }
  return std::bit_cast<u64>(std::numeric_limits<double>::quiet_NaN());  // not an f64 function
}

u64 trans_envelope64(Trans f, u64 xb, u64 seed) {
  const u64 nearest = trans_nearest64(f, xb);
  const double r = std::bit_cast<double>(nearest);
  if (!std::isfinite(r) || r == 0.0) return nearest;
  bool exact = false;
  by_mpfr(f, std::bit_cast<double>(xb), kF64, kRoundNearest, &exact);
  if (exact) return nearest;
  constexpr std::int64_t kSpan = (std::int64_t{1} << 28) - 1;
  const auto k = static_cast<std::int64_t>(mix(seed, 0x20u | static_cast<u64>(f), xb) % (2 * kSpan + 1)) - kSpan;
  constexpr u64 kSign = 0x8000000000000000ull, kInfBits = 0x7ff0000000000000ull;
  const auto mag = static_cast<std::int64_t>(nearest & ~kSign);
  std::int64_t moved = mag + k;
  if (moved <= 0 || moved >= static_cast<std::int64_t>(kInfBits)) moved = mag - k;  // stay finite, same sign
  return (nearest & kSign) | static_cast<u64>(moved);
}

}  // namespace cdna::simulator
