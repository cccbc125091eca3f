// Floating-point VALU cases: f16/f32/f64 arithmetic, packed v_pk_* forms, conversions,
// transcendentals, v_dot2*, fp8/bf8 conversions. Models follow the CDNA3 ISA guide's instruction
// descriptions and are written for the tests.
//
// MODE the harness kernels start with (llvm-mc-19 defaults, checked by assembling a kernel with no
// .amdhsa_float_* directive: compute_pgm_rsrc1 = 0x00ac031f): round to nearest even for all
// types, FLOAT_DENORM_MODE_32 = 0 (f32 denormal inputs and outputs flushed to zero, sign kept),
// FLOAT_DENORM_MODE_16_64 = 3 (f16/f64 denormals kept), DX10_CLAMP = 1 (clamp turns NaN into +0),
// IEEE = 1 (min/max quiet signalling NaNs; output modifier omod is ignored by the hardware in IEEE
// mode, LLVM SIFoldOperands.cpp, so no case uses omod).
//
// Correctly rounded results come from host IEEE arithmetic where one host operation in the same
// or a wider format is provably the same rounding (+ - * / sqrt of f32 in double: 53 >= 2*24+2;
// fmaf/fma are correctly rounded), else from an exact fixed-point sum (Exact) rounded once. The
// transcendental models use long double (64-bit significand) and throw when the long-double value
// is too close to an f32 rounding boundary to decide the rounding (never a silent pass).
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>

#include "simulator/directed/cases.hpp"

namespace cdna::simulator::directed {
namespace {

// ---------------------------------------------------------------------------------------------
// Number formats and exact rounding (IEEE 754-2008 binary16/32/64; FNUZ fp8/bf8 as in
// cdna3-facts.md §6: no infinities, 0x80 the only NaN, no -0).

std::size_t z(int i) { return static_cast<std::size_t>(i); }
float f32(u32 u) { return std::bit_cast<float>(u); }
u32 b32(float f) { return std::bit_cast<u32>(f); }
double f64(u64 u) { return std::bit_cast<double>(u); }
u64 b64(double d) { return std::bit_cast<u64>(d); }

constexpr u32 kQNaN32 = 0x7fc00000u;  // default NaN (no NaN operand)
constexpr u16 kQNaN16 = 0x7e00u;
constexpr u64 kQNaN64 = 0x7ff8000000000000ull;

bool nan32(u32 u) { return (u & 0x7fffffffu) > 0x7f800000u; }
bool nan16(u16 u) { return (u & 0x7fffu) > 0x7c00u; }
bool nan64(u64 u) { return (u & 0x7fffffffffffffffull) > 0x7ff0000000000000ull; }
bool snan32(u32 u) { return nan32(u) && !(u & 0x00400000u); }
bool snan16(u16 u) { return nan16(u) && !(u & 0x0200u); }
bool snan64(u64 u) { return nan64(u) && !(u & 0x0008000000000000ull); }
u32 quiet32(u32 u) { return u | 0x00400000u; }
u16 quiet16(u16 u) { return static_cast<u16>(u | 0x0200u); }
u64 quiet64(u64 u) { return u | 0x0008000000000000ull; }
// MODE fp32 denormals = 0: a denormal becomes a zero of the same sign (inputs and results).
u32 ftz32(u32 u) { return (u & 0x7f800000u) == 0 ? (u & 0x80000000u) : u; }

// NaN result rule (payloads unpublished; IEEE 754-2008 §6.2.3 recommends keeping an input NaN's
// payload): the first NaN operand, quieted.
bool first_nan32(const std::vector<u32>& a, u32& out) {
  for (u32 x : a)
    if (nan32(x)) { out = quiet32(x); return true; }
  return false;
}
bool first_nan16(const std::vector<u16>& a, u16& out) {
  for (u16 x : a)
    if (nan16(x)) { out = quiet16(x); return true; }
  return false;
}
bool first_nan64(const std::vector<u64>& a, u64& out) {
  for (u64 x : a)
    if (nan64(x)) { out = quiet64(x); return true; }
  return false;
}

// A host f32 result: a host NaN (only from an invalid operation here) is the default NaN; a
// denormal is flushed (MODE fp32 denormals = 0).
u32 fin32(float r) { return nan32(b32(r)) ? kQNaN32 : ftz32(b32(r)); }
u64 fin64(double r) { return nan64(b64(r)) ? kQNaN64 : b64(r); }

u32 clamp32(u32 u) {
  if (nan32(u)) return 0;
  const float x = f32(u);
  return x < 0.0f ? 0u : x > 1.0f ? b32(1.0f) : u;
}
u64 clamp64(u64 u) {
  if (nan64(u)) return 0;
  const double x = f64(u);
  return x < 0.0 ? 0u : x > 1.0 ? b64(1.0) : u;
}
double h2d(u16 h);
u16 clamp16(u16 u) {
  if (nan16(u)) return 0;
  const double x = h2d(u);
  return x < 0.0 ? u16{0} : x > 1.0 ? u16{0x3c00} : u;
}

// An exact binary fixed-point number: 512-bit two's complement, bit i weighs 2^(i - kLsb).
// Holds every sum of f16 products and f32 values used here without rounding.
struct Exact {
  static constexpr int kLsb = 200;
  std::array<u32, 16> w{};

  bool negative() const { return w[15] >> 31; }
  bool zero() const {
    for (u32 x : w)
      if (x) return false;
    return true;
  }
  bool bit(int i) const { return i >= 0 && i < 512 && ((w[z(i / 32)] >> (i % 32)) & 1u); }
  void add(const Exact& o) {
    u64 c = 0;
    for (std::size_t i = 0; i < 16; ++i) {
      c += u64{w[i]} + o.w[i];
      w[i] = static_cast<u32>(c);
      c >>= 32;
    }
  }
  Exact negated() const {
    Exact r;
    for (std::size_t i = 0; i < 16; ++i) r.w[i] = ~w[i];
    Exact one;
    one.w[0] = 1;
    r.add(one);
    return r;
  }
  // += (neg ? -1 : 1) * mag * 2^e.
  void add_term(bool neg, u64 mag, int e) {
    Exact t;
    for (int i = 0; i < 64; ++i)
      if ((mag >> i) & 1u) {
        const int p = i + e + kLsb;
        if (p < 0 || p >= 500) throw std::logic_error("Exact: term out of range");
        t.w[z(p / 32)] |= 1u << (p % 32);
      }
    add(neg ? t.negated() : t);
  }
  int msb() const {
    for (int i = 511; i >= 0; --i)
      if (bit(i)) return i;
    return -1;
  }
  bool any_below(int i) const {
    for (int j = 0; j < i && j < 512; ++j)
      if (bit(j)) return true;
    return false;
  }
  // floor(|value| / 2^e) for a non-negative value (at most 64 bits).
  u64 bits_from(int e) const {
    u64 r = 0;
    const int lo = e + kLsb;
    for (int i = 63; i >= 0; --i) r = (r << 1) | (bit(lo + i) ? 1u : 0u);
    return r;
  }
};

// Finite f16/f32 values as (sign, integer significand, exponent of its unit bit).
void add_f16(Exact& x, u16 h, bool neg = false) {
  const int e = (h >> 10) & 0x1f;
  const u64 m = (h & 0x3ffu) | (e ? 0x400u : 0u);
  x.add_term(((h >> 15) != 0) != neg, m, (e ? e : 1) - 15 - 10);
}
void add_f32(Exact& x, u32 u) {
  const int e = (u >> 23) & 0xff;
  const u64 m = (u & 0x7fffffu) | (e ? 0x800000u : 0u);
  x.add_term((u >> 31) != 0, m, (e ? e : 1) - 127 - 23);
}
// (sign, significand, exponent) of a finite f16.
struct Parts {
  bool neg;
  u64 m;
  int e;
};
Parts parts16(u16 h) {
  const int e = (h >> 10) & 0x1f;
  return {(h >> 15) != 0, (h & 0x3ffu) | (e ? 0x400u : 0u), (e ? e : 1) - 25};
}
double h2d(u16 h) {
  if ((h & 0x7c00u) == 0x7c00u) return (h & 0x3ffu) ? NAN : ((h >> 15) ? -INFINITY : INFINITY);
  const Parts p = parts16(h);
  return std::ldexp(p.neg ? -static_cast<double>(p.m) : static_cast<double>(p.m), p.e);
}

// Target formats of a rounding: `man` fraction bits, exponent field of `ebits` bits with `bias`;
// IEEE (top exponent code = inf/NaN) or FNUZ (all codes finite, 0x80 NaN, no -0).
struct Fmt {
  int man, ebits, bias;
  bool fnuz;
};
constexpr Fmt kF16{10, 5, 15, false};
constexpr Fmt kF32{23, 8, 127, false};
constexpr Fmt kFp8{3, 4, 8, true};
constexpr Fmt kBf8{2, 5, 16, true};

enum class Round { NearestEven, TowardZero };

// The encoding of (-1)^neg * mant * 2^q (mant < 2^(man+2), q >= the format's least quantum),
// overflowing to inf (IEEE), max finite (IEEE toward zero) or NaN 0x80 (FNUZ).
u32 encode(bool neg, u64 mant, int q, const Fmt& f, Round rm) {
  const u32 sign = neg ? 1u << (f.man + f.ebits) : 0u;
  if (mant == 0) return f.fnuz ? 0u : sign;
  while (mant >= (u64{2} << f.man)) {
    if (mant & 1u) throw std::logic_error("encode: inexact normalisation");
    mant >>= 1;
    ++q;
  }
  const int emin_q = 1 - f.bias - f.man;  // quantum of the subnormals and the first binade
  while (mant < (u64{1} << f.man) && q > emin_q) {
    mant <<= 1;
    --q;
  }
  const u32 max_field = (1u << f.ebits) - (f.fnuz ? 1u : 2u);
  u32 field = mant >= (u64{1} << f.man) ? static_cast<u32>(q - emin_q + 1) : 0u;
  if (field > max_field) {
    if (f.fnuz) return 0x80u;
    if (rm == Round::TowardZero) return sign | (max_field << f.man) | ((1u << f.man) - 1u);
    return sign | ((max_field + 1u) << f.man);
  }
  return sign | (field << f.man) | static_cast<u32>(mant & ((u64{1} << f.man) - 1u));
}

// `x` rounded once to `f`. zero_neg: the sign of an exact zero result.
u32 round_exact(const Exact& x, const Fmt& f, Round rm = Round::NearestEven, bool zero_neg = false) {
  if (x.zero()) return f.fnuz ? 0u : (zero_neg ? 1u << (f.man + f.ebits) : 0u);
  const bool neg = x.negative();
  const Exact m = neg ? x.negated() : x;
  const int e = m.msb() - Exact::kLsb;
  const int q = std::max(e, 1 - f.bias) - f.man;
  u64 mant = m.bits_from(q);
  const bool half = m.bit(q - 1 + Exact::kLsb);
  const bool sticky = m.any_below(q - 1 + Exact::kLsb);
  if (rm == Round::NearestEven && half && (sticky || (mant & 1u))) ++mant;
  return encode(neg, mant, q, f, rm);
}

// A long-double value rounded to f32 (RNE, then MODE's denormal flush). The value carries a
// relative error below `rel`; if that interval straddles an f32 rounding boundary the rounding
// cannot be decided here and the model throws instead of guessing.
u32 round_ld(long double y, long double rel) {
  const float lo = static_cast<float>(y * (1.0L - rel));
  const float hi = static_cast<float>(y * (1.0L + rel));
  if (b32(lo) != b32(hi))
    throw std::runtime_error("model: long-double result too close to an f32 rounding boundary");
  return ftz32(b32(static_cast<float>(y)));
}
constexpr long double kRel = 0x1p-58L;  // libm long-double functions: a few ULPs of 2^-63

// ---- f32 operations (MODE: denormals flushed, round to nearest even) ----
using V = std::vector<u64>;
u32 w32(u64 x) { return static_cast<u32>(x); }
u16 w16(u64 x) { return static_cast<u16>(x); }

u32 add32(u32 a, u32 b) {
  u32 n;
  if (first_nan32({a, b}, n)) return n;
  return fin32(f32(ftz32(a)) + f32(ftz32(b)));
}
u32 sub32(u32 a, u32 b) {  // a - b; a NaN operand is returned as it is (quieted)
  u32 n;
  if (first_nan32({a, b}, n)) return n;
  return add32(a, b ^ 0x80000000u);
}
u32 mul32(u32 a, u32 b) {
  u32 n;
  if (first_nan32({a, b}, n)) return n;
  return fin32(f32(ftz32(a)) * f32(ftz32(b)));
}
u32 fma32(u32 a, u32 b, u32 c) {
  u32 n;
  if (first_nan32({a, b, c}, n)) return n;
  return fin32(std::fma(f32(ftz32(a)), f32(ftz32(b)), f32(ftz32(c))));
}
// IEEE-mode minimum/maximum (ISA guide V_MIN_F32/V_MAX_F32 pseudo-code): a signalling NaN is
// returned quieted, a quiet NaN loses to a number, -0 < +0.
template <class T, class IsNan, class IsSnan, class Quiet, class Less>
T minmax(T a, T b, bool is_max, IsNan isnan, IsSnan issnan, Quiet quiet, Less less) {
  if (issnan(a)) return quiet(a);
  if (issnan(b)) return quiet(b);
  if (isnan(a)) return b;
  if (isnan(b)) return a;
  const bool a_first = is_max ? less(b, a) : less(a, b);
  return a_first ? a : b;
}
bool less32(u32 a, u32 b) {
  const float x = f32(a), y = f32(b);
  if (x == y) return (a >> 31) > (b >> 31);  // -0 < +0
  return x < y;
}
u32 min32(u32 a, u32 b) { return minmax<u32>(ftz32(a), ftz32(b), false, nan32, snan32, quiet32, less32); }
u32 max32(u32 a, u32 b) { return minmax<u32>(ftz32(a), ftz32(b), true, nan32, snan32, quiet32, less32); }
bool less16(u16 a, u16 b) {
  const double x = h2d(a), y = h2d(b);
  if (x == y) return (a >> 15) > (b >> 15);
  return x < y;
}
u16 min16(u16 a, u16 b) { return minmax<u16>(a, b, false, nan16, snan16, quiet16, less16); }
u16 max16(u16 a, u16 b) { return minmax<u16>(a, b, true, nan16, snan16, quiet16, less16); }
bool less64(u64 a, u64 b) {
  const double x = f64(a), y = f64(b);
  if (x == y) return (a >> 63) > (b >> 63);
  return x < y;
}

// ---- f16 operations: exact value rounded once (MODE fp16 denormals kept) ----
bool inf16(u16 h) { return (h & 0x7fffu) == 0x7c00u; }
u16 add16(u16 a, u16 b) {
  u16 n;
  if (first_nan16({a, b}, n)) return n;
  if (inf16(a) && inf16(b) && (a != b)) return kQNaN16;
  if (inf16(a)) return a;
  if (inf16(b)) return b;
  Exact x;
  add_f16(x, a);
  add_f16(x, b);
  return static_cast<u16>(round_exact(x, kF16, Round::NearestEven, (a & b) >> 15));
}
u16 sub16(u16 a, u16 b, bool rev) {  // a - b (rev: b - a); NaN operands in source order
  u16 n;
  if (first_nan16({a, b}, n)) return n;
  return rev ? add16(b, a ^ 0x8000u) : add16(a, b ^ 0x8000u);
}
// a*b + c, one rounding (c absent: a*b).
u16 fma16(u16 a, u16 b, u16 c, bool has_c = true) {
  u16 n;
  if (first_nan16(has_c ? std::vector<u16>{a, b, c} : std::vector<u16>{a, b}, n)) return n;
  const bool pneg = ((a ^ b) >> 15) != 0;
  const bool pzero = (a & 0x7fffu) == 0 || (b & 0x7fffu) == 0;
  const bool pinf = inf16(a) || inf16(b);
  if (pinf && pzero) return kQNaN16;
  if (pinf) {
    if (has_c && inf16(c) && ((c >> 15) != 0) != pneg) return kQNaN16;
    return pneg ? 0xfc00u : 0x7c00u;
  }
  if (has_c && inf16(c)) return c;
  const Parts pa = parts16(a), pb = parts16(b);
  Exact x;
  x.add_term(pneg, pa.m * pb.m, pa.e + pb.e);
  if (has_c) add_f16(x, c);
  const bool zero_neg = has_c ? pneg && (c >> 15) : pneg;  // IEEE 754 §6.3, round to nearest
  return static_cast<u16>(round_exact(x, kF16, Round::NearestEven, zero_neg));
}

// ---- transcendentals (f32; MODE: denormal inputs and results flushed) ----
u32 rcp32(u32 a) {
  a = ftz32(a);
  if (nan32(a)) return quiet32(a);
  const float x = f32(a);
  if (x == 0.0f) return (a & 0x80000000u) | 0x7f800000u;
  if (std::isinf(x)) return a & 0x80000000u;
  return round_ld(1.0L / static_cast<long double>(x), kRel);
}
u32 sqrt32(u32 a) {
  a = ftz32(a);
  if (nan32(a)) return quiet32(a);
  const float x = f32(a);
  if (x == 0.0f) return a;
  if (x < 0.0f) return kQNaN32;
  if (std::isinf(x)) return a;
  return round_ld(sqrtl(static_cast<long double>(x)), kRel);
}
u32 rsq32(u32 a) {
  a = ftz32(a);
  if (nan32(a)) return quiet32(a);
  const float x = f32(a);
  if (x == 0.0f) return (a & 0x80000000u) | 0x7f800000u;
  if (x < 0.0f) return kQNaN32;
  if (std::isinf(x)) return 0;
  return round_ld(1.0L / sqrtl(static_cast<long double>(x)), kRel);
}
u32 exp32(u32 a) {  // 2^x
  a = ftz32(a);
  if (nan32(a)) return quiet32(a);
  const float x = f32(a);
  if (std::isinf(x)) return x < 0 ? 0u : a;
  return round_ld(exp2l(static_cast<long double>(x)), kRel);
}
u32 log32(u32 a) {  // log2 x
  a = ftz32(a);
  if (nan32(a)) return quiet32(a);
  const float x = f32(a);
  if (x == 0.0f) return 0xff800000u;
  if (x < 0.0f) return kQNaN32;
  if (std::isinf(x)) return a;
  return round_ld(log2l(static_cast<long double>(x)), kRel);
}
// sin(2*pi*x) (V_SIN_F32 takes revolutions). For x >= 0, x - floor(x), r - 0.5, 0.5 - r and
// 0.25 - r are exact in double, so only a well-conditioned sinl/cosl of an argument in [0, pi/4]
// is approximated; negative x by oddness.
long double sin_rev(double x) {
  if (x < 0) return -sin_rev(-x);
  double r = x - std::floor(x);  // [0, 1)
  bool neg = false;
  if (r >= 0.5) { r -= 0.5; neg = true; }      // sin(2pi(r+1/2)) = -sin(2pi r)
  if (r > 0.25) r = 0.5 - r;                   // sin(2pi(1/2 - r)) = sin(2pi r)
  const long double two_pi = 6.283185307179586476925286766559005768L;
  const long double v = r <= 0.125 ? sinl(two_pi * r) : cosl(two_pi * (0.25 - r));
  return neg ? -v : v;
}
u32 sin32(u32 a) {
  a = ftz32(a);
  if (nan32(a)) return quiet32(a);
  const float x = f32(a);
  if (std::isinf(x)) return kQNaN32;
  const u32 r = round_ld(sin_rev(x), kRel);
  // sin of an exact multiple of 1/2 revolution is an exact zero with the sign of x (an odd
  // function; IEEE 754-2008 9.2.1 gives sinPi(+n) = +0, sinPi(-n) = -0 likewise).
  return (r & 0x7fffffffu) == 0 ? (a & 0x80000000u) : r;
}
u32 cos32(u32 a) {
  a = ftz32(a);
  if (nan32(a)) return quiet32(a);
  const float x = f32(a);
  if (std::isinf(x)) return kQNaN32;
  return round_ld(sin_rev(static_cast<double>(x) + 0.25), kRel);  // exact: |x| < 2^9 here
}

// ---- conversions ----
u32 cvt_i32(double x) {  // truncate toward zero, saturate, NaN -> 0
  if (std::isnan(x)) return 0;
  const double t = std::trunc(x);
  if (t >= 2147483648.0) return 0x7fffffffu;
  if (t < -2147483648.0) return 0x80000000u;
  return static_cast<u32>(static_cast<i32>(t));
}
u32 cvt_u32(double x) {
  if (std::isnan(x) || x <= 0.0) return 0;
  const double t = std::trunc(x);
  return t >= 4294967296.0 ? 0xffffffffu : static_cast<u32>(t);
}
// f32 -> f16 (round `rm`), f32 denormal input flushed, f16 denormal result kept.
u16 f32_to_f16(u32 a, Round rm) {
  a = ftz32(a);
  if (nan32(a)) return static_cast<u16>(((a >> 16) & 0x8000u) | 0x7e00u | ((a >> 13) & 0x1ffu));
  if ((a & 0x7fffffffu) == 0x7f800000u) return static_cast<u16>(((a >> 16) & 0x8000u) | 0x7c00u);
  Exact x;
  add_f32(x, a);
  return static_cast<u16>(round_exact(x, kF16, rm, (a >> 31) != 0));
}
u32 f16_to_f32(u16 h) {
  if (nan16(h)) return (u32{h & 0x8000u} << 16) | 0x7fc00000u | (u32{h & 0x1ffu} << 13);
  return b32(static_cast<float>(h2d(h)));  // exact
}

// fp8/bf8 (FNUZ) -> f32 (exact; 0x80 -> the default NaN; no fp8 value is an f32 denormal).
u32 f8_to_f32(u32 byte, const Fmt& f) {
  byte &= 0xffu;
  if (byte == 0x80u) return kQNaN32;
  const u32 e = (byte >> f.man) & ((1u << f.ebits) - 1u);
  const u32 m = byte & ((1u << f.man) - 1u);
  const double mag = e ? std::ldexp(1.0 + m / static_cast<double>(1u << f.man), static_cast<int>(e) - f.bias)
                       : std::ldexp(static_cast<double>(m), 1 - f.bias - f.man);
  return b32(static_cast<float>((byte & 0x80u) ? -mag : mag));
}
// f32 -> fp8/bf8, round to nearest even; NaN/inf and overflow -> 0x80 (numerics/fp8.hpp's
// documented default: no saturation).
u32 f32_to_f8(u32 a, const Fmt& f) {
  if ((a & 0x7f800000u) == 0x7f800000u) return 0x80u;
  Exact x;
  add_f32(x, ftz32(a));
  return round_exact(x, f);
}
// Stochastic rounding (rule documented in numerics/fp8.hpp, after AMD's host emulation): with q
// the fp8 quantum at |x| and W = 23 - man, |result| = floor((floor(|x| 2^W / q) + (rnd mod 2^W))
// / 2^W) * q.
u32 f32_to_f8_sr(u32 a, u32 rnd, const Fmt& f) {
  if ((a & 0x7f800000u) == 0x7f800000u) return 0x80u;
  a = ftz32(a);
  if ((a & 0x7fffffffu) == 0) return 0;
  Exact x;
  add_f32(x, a & 0x7fffffffu);
  const int e = x.msb() - Exact::kLsb;
  const int q = std::max(e, 1 - f.bias) - f.man;
  const int W = 23 - f.man;
  const u64 n = x.bits_from(q - W) + (rnd & ((1u << W) - 1u));
  return encode((a >> 31) != 0, n >> W, q, f, Round::NearestEven);
}

using Fn = std::function<u64(const State&, int)>;
using Sem = std::function<u64(const std::vector<u64>&)>;

// One body line and what it does: writes `width` (1 or 2) output VGPRs from v(32+dst) on with
// f(state, lane) in every active lane; set_exec: the line is `s_mov_b64 exec, s[18:19]`.
struct Line {
  std::string text;
  int dst = -1;
  int width = 1;
  Fn f;
  bool set_exec = false;
};

Line exec_from_s18() { return {"s_mov_b64 exec, s[18:19]", -1, 1, nullptr, true}; }

Case make_case(const std::string& mn, Values v, std::vector<Line> lines,
               std::function<void(State&)> init = nullptr) {
  std::string body;
  for (const auto& l : lines) body += "  " + l.text + "\n";
  auto model = [lines](State& s) {
    for (const auto& l : lines) {
      if (l.set_exec) { s.exec = sgpr_pair(s, 2); continue; }
      std::array<u64, kLanes> r{};
      for_active(s, [&](int lane) { r[static_cast<std::size_t>(lane)] = l.f(s, lane); });
      for_active(s, [&](int lane) {
        const u64 x = r[static_cast<std::size_t>(lane)];
        if (l.width == 2) {
          set_lane_pair(s.vout[static_cast<std::size_t>(l.dst)], s.vout[static_cast<std::size_t>(l.dst + 1)], lane, x);
        } else {
          s.vout[static_cast<std::size_t>(l.dst)][static_cast<std::size_t>(lane)] = static_cast<u32>(x);
        }
      });
    }
  };
  return {mn, body, model, v, std::move(init)};
}

// ---- operands ----
struct Opd {
  std::string text;
  Fn get;
};
Opd vi(int k) { return {"v" + std::to_string(10 + k), [k](const State& s, int l) -> u64 { return s.vin[z(k)][z(l)]; }}; }
Opd vi64(int k) {
  return {"v[" + std::to_string(10 + k) + ":" + std::to_string(11 + k) + "]",
          [k](const State& s, int l) { return lane_pair(s.vin[z(k)], s.vin[z(k + 1)], l); }};
}
Opd vo(int k) { return {"v" + std::to_string(32 + k), [k](const State& s, int l) -> u64 { return s.vout[z(k)][z(l)]; }}; }
Opd vo64(int k) {
  return {"v[" + std::to_string(32 + k) + ":" + std::to_string(33 + k) + "]",
          [k](const State& s, int l) { return lane_pair(s.vout[z(k)], s.vout[z(k + 1)], l); }};
}
Opd si(int k) { return {"s" + std::to_string(16 + k), [k](const State& s, int) -> u64 { return s.sin[z(k)]; }}; }
Opd si64(int k) {
  return {"s[" + std::to_string(16 + k) + ":" + std::to_string(17 + k) + "]",
          [k](const State& s, int) { return sgpr_pair(s, k); }};
}
Opd kon(const std::string& text, u64 bits) { return {text, [bits](const State&, int) { return bits; }}; }
// DPP quad_perm [p0,p1,p2,p3]: lane l reads lane 4*(l/4) + p[l%4] (all lanes active).
const char* kQuadPerm = " quad_perm:[2,3,0,1] row_mask:0xf bank_mask:0xf";
Opd dpp(int k) {
  return {"v" + std::to_string(10 + k), [k](const State& s, int l) -> u64 {
            static const int p[4] = {2, 3, 0, 1};
            return s.vin[z(k)][z(4 * (l / 4) + p[l % 4])];
          }};
}
// The high 16 bits of an operand (VOP3 op_sel source bit).
Opd hi16(Opd o) {
  auto g = o.get;
  return {o.text, [g](const State& s, int l) { return (g(s, l) >> 16) & 0xffffu; }};
}

// Source modifiers: text and effect on the sign bit of a `bits`-wide value.
enum Mod { kNone = 0, kNeg = 1, kAbs = 2, kNegAbs = 3 };
std::string mod_text(const std::string& t, int m) {
  std::string r = (m & kAbs) ? "|" + t + "|" : t;
  return (m & kNeg) ? "-" + r : r;
}
u64 mod_value(u64 v, int m, int bits) {
  const u64 sign = u64{1} << (bits - 1);
  if (m & kAbs) v &= ~sign;
  if (m & kNeg) v ^= sign;
  return v;
}

// Result clamp of a `bits`-wide float to [0, 1] (NaN -> +0, DX10_CLAMP).
u64 clamp_value(u64 v, int bits) {
  if (bits == 16) return clamp16(static_cast<u16>(v));
  if (bits == 32) return clamp32(static_cast<u32>(v));
  return clamp64(v);
}

// A VALU line: `mn dst, srcs...suffix` with source modifiers `mods` on `sbits`-wide sources and
// a result of `dbits` bits (16-bit results zero bits 31:16).
// After a clamped result: `add 0` (IEEE: -0 + +0 = +0, any other value unchanged). Whether the
// clamp keeps a -0 result is not published (the simulator gives +0, a max(x, +0) reading; an
// IEEE [0, 1] range check would keep -0), so the cases leave that bit untested.
// Packed forms add v[64:65] = 0 (the simulator refuses constants in packed instructions).
std::string plus_zero(int dst, int dbits, bool packed = false) {
  const std::string d = dbits == 64 ? vo64(dst).text : vo(dst).text;
  if (packed)
    return "\n  v_mov_b32 v64, 0\n  v_mov_b32 v65, 0\n  v_pk_add_f" + std::to_string(dbits == 64 ? 32 : 16) + " " + d + ", " +
           d + (dbits == 64 ? ", v[64:65]" : ", v64");
  // s_nop 0: a transcendental result read by a non-transcendental VALU needs 1 wait state
  // (hazard rule trans-use, simulator/README.md).
  return "\n  s_nop 0\n  v_add_f" + std::to_string(dbits) + " " + d + ", 0, " + d;
}
u64 zero_sign(u64 v, int bits) {
  const u64 sign = u64{1} << (bits - 1);
  return v == sign ? 0 : v;
}

Line vop(const std::string& mn, int dst, int dbits, std::vector<Opd> srcs, std::vector<int> mods, int sbits,
         const std::string& suffix, Sem sem, bool clamp = false) {
  std::string t = mn + " " + (dbits == 64 ? vo64(dst).text : vo(dst).text);
  for (std::size_t i = 0; i < srcs.size(); ++i)
    t += ", " + mod_text(srcs[i].text, i < mods.size() ? mods[i] : 0);
  t += suffix;
  if (clamp) t += " clamp" + plus_zero(dst, dbits);
  auto f = [srcs, mods, sbits, dbits, sem, clamp](const State& s, int l) -> u64 {
    std::vector<u64> a;
    for (std::size_t i = 0; i < srcs.size(); ++i)
      a.push_back(mod_value(srcs[i].get(s, l), i < mods.size() ? mods[i] : 0, sbits));
    u64 r = sem(a);
    if (clamp) r = zero_sign(clamp_value(r, dbits), dbits);
    return r;
  };
  return {t, dst, dbits == 64 ? 2 : 1, f};
}


// ---- input shaping (init hooks) ----
// Signalling NaNs in a few lanes of v10..v13 (the harness supplies only quiet ones).
void add_snans32(State& s) {
  for (int k = 0; k < 4; ++k) {
    s.vin[z(k)][z(3 + 7 * k)] = 0x7f800001u;
    s.vin[z(k)][z(40 + k)] = 0xffa00005u;
  }
}
// Lanes 3+7k and 40+k get no other NaN; lanes 50 and 51 pair a quiet NaN with a signalling one
// in both orders (v10/v11), where the IEEE-mode rule returns the signalling NaN, quieted.
void add_snans16(State& s) {
  auto no_nan = [](u32& w) {
    if (nan16(w16(w))) w = (w & 0xffff0000u) | 0x3c00u;
    if (nan16(w16(w >> 16))) w = (w & 0xffffu) | 0x3c000000u;
  };
  for (int k = 0; k < 4; ++k)
    for (int l : {3 + 7 * k, 40 + k})
      for (auto& r : s.vin) no_nan(r[z(l)]);
  no_nan(s.sin[0]);
  no_nan(s.sin[1]);
  for (int k = 0; k < 4; ++k) {
    s.vin[z(k)][z(3 + 7 * k)] = 0x7c01fd01u;
    s.vin[z(k)][z(40 + k)] = 0x7e00fc10u;
  }
  s.vin[0][50] = 0x7e00fe00u;
  s.vin[1][50] = 0x7c01fd01u;
  s.vin[0][51] = 0x7c01fd01u;
  s.vin[1][51] = 0x7e00fe00u;
}
// Small signed integers (exponent arguments) in v(10+k): -170..170 plus edges.
void small_ints(State& s, int k) {
  static const u32 edges[] = {0u, 1u, 0xffffffffu, 0x80000000u, 0x7fffffffu, 200u, 0xffffff00u, 128u};
  for (int l = 0; l < kLanes; ++l)
    s.vin[z(k)][z(l)] = l < 8 ? edges[l] : static_cast<u32>((s.vin[z(k)][z(l)] % 341u) - 170u);
}
// Arguments of v_sin/v_cos: inside the documented domain |x| <= 256 revolutions (infinities and
// NaN kept: they are defined).
// Exact quarter revolutions are included (kTrigQuarters): sin(2*pi*x) is exactly 0 or +-1 there
// (the simulator once rounded x * 2pi first and returned tiny nonzeros; fixed).
constexpr bool kTrigQuarters = true;
void trig_domain(State& s) {
  for (auto& r : s.vin)
    for (auto& w : r) {
      float x = f32(w);
      if (std::isfinite(x) && std::fabs(x) > 256.0f) x = std::fmod(x, 256.0f);
      if (!kTrigQuarters && std::isfinite(x) && std::nearbyint(4.0f * x) == 4.0f * x) x += 0.015625f;
      if (std::isfinite(x)) w = b32(x);
    }
  if (kTrigQuarters) {
    s.vin[0][5] = b32(0.5f);
    s.vin[0][6] = b32(-0.25f);
    s.vin[0][7] = b32(255.75f);
  }
  for (auto& w : s.sin)
    if (std::isfinite(f32(w)) && std::nearbyint(4.0f * f32(w)) == 4.0f * f32(w)) w = b32(f32(w) + 0.015625f);
}
// v_exp_f32 arguments over the whole range (over/underflow, denormal results).
void exp_domain(State& s) {
  for (int l = 24; l < kLanes; ++l) s.vin[1][z(l)] = b32(-160.0f + 4.6875f * static_cast<float>(l - 24) + 0.1f);
  s.vin[2][30] = b32(-126.0f);
  s.vin[2][31] = b32(-149.0f);
  s.vin[2][32] = b32(127.99f);
  s.vin[2][33] = b32(128.0f);
}

// ---- generic line sets ----
struct Kinds {
  int sbits = 32, dbits = 32;
  bool float_src = true, float_dst = true;
  bool e32 = true;  // has a VOP1/VOP2 encoding (literal, DPP)
  bool clamp_line = true;  // a VOP3 clamp line (float results only)
  Opd inline_const = kon("0.5", 0x3f000000u);
  Opd literal = kon("0x40490fdb", 0x40490fdbu);  // pi
};

// Unary: v32..v39 = op(v10..v17), SGPR, VOP3 abs/neg/clamp, inline constant, literal, DPP,
// partial EXEC.
void unary(std::vector<Case>& cs, const std::string& mn, const Kinds& k, std::function<u64(u64)> op, Values v,
           std::function<void(State&)> init = nullptr) {
  const bool wide_src = k.sbits == 64;
  auto src = [&](int i) { return wide_src ? vi64(2 * (i % 4)) : vi(i); };
  Sem sem = [op](const V& a) { return op(a[0]); };
  std::vector<Line> ls;
  for (int i = 0; i < 8; ++i) ls.push_back(vop(mn, (k.dbits == 64 ? 2 : 1) * i, k.dbits, {src(i)}, {}, k.sbits, "", sem));
  int d = k.dbits == 64 ? 16 : 8;
  const int step = k.dbits == 64 ? 2 : 1;
  ls.push_back(vop(mn, d, k.dbits, {wide_src ? si64(0) : si(0)}, {}, k.sbits, "", sem));
  d += step;
  if (k.float_src) {
    ls.push_back(vop(mn + "_e64", d, k.dbits, {src(1)}, {kNegAbs}, k.sbits, "", sem));
    d += step;
    ls.push_back(vop(mn + "_e64", d, k.dbits, {src(2)}, {kNeg}, k.sbits, "", sem));
    d += step;
  }
  if (k.float_dst && k.clamp_line) {
    ls.push_back(vop(mn + "_e64", d, k.dbits, {src(3)}, {}, k.sbits, "", sem, true));
    d += step;
  }
  ls.push_back(vop(mn, d, k.dbits, {k.inline_const}, {}, k.sbits, "", sem));
  d += step;
  if (k.e32 && !wide_src && k.dbits != 64) {  // DP ALU DPP takes row_newbcast only
    ls.push_back(vop(mn, d, k.dbits, {k.literal}, {}, k.sbits, "", sem));
    d += step;
    ls.push_back(vop(mn + "_dpp", d, k.dbits, {dpp(5)}, {}, k.sbits, kQuadPerm, sem));
    d += step;
  }
  ls.push_back(exec_from_s18());
  ls.push_back(vop(mn, d, k.dbits, {src(6)}, {}, k.sbits, "", sem));
  cs.push_back(make_case(mn, v, ls, std::move(init)));
}

// Binary VOP2 (+VOP3 forms): register pairs, SGPR in src0 and (VOP3) src1, modifiers, clamp,
// inline constant, literal, DPP, partial EXEC. src1_float: src1 takes float modifiers.
void binary(std::vector<Case>& cs, const std::string& mn, const Kinds& k, std::function<u64(u64, u64)> op,
            Values v, std::function<void(State&)> init = nullptr, bool src1_float = true) {
  Sem sem = [op](const V& a) { return op(a[0], a[1]); };
  const int sb = k.sbits, db = k.dbits;
  std::vector<Line> ls;
  const int pairs[6][2] = {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {1, 0}, {3, 2}};
  int d = 0;
  for (const auto& p : pairs) ls.push_back(vop(mn, d++, db, {vi(p[0]), vi(p[1])}, {}, sb, "", sem));
  ls.push_back(vop(mn, d++, db, {si(0), vi(2)}, {}, sb, "", sem));
  ls.push_back(vop(mn + "_e64", d++, db, {vi(3), si(1)}, {}, sb, "", sem));
  ls.push_back(vop(mn + "_e64", d++, db, {vi(4), vi(5)}, {kNeg, src1_float ? kAbs : kNone}, sb, "", sem));
  ls.push_back(vop(mn + "_e64", d++, db, {vi(6), vi(7)}, {kNegAbs, src1_float ? kNeg : kNone}, sb, "", sem, k.float_dst));
  ls.push_back(vop(mn + "_e64", d++, db, {vi(5), vi(4)}, {kAbs, kNone}, sb, "", sem, k.float_dst));
  ls.push_back(vop(mn, d++, db, {k.inline_const, vi(0)}, {}, sb, "", sem));
  if (k.e32) {
    ls.push_back(vop(mn, d++, db, {k.literal, vi(1)}, {}, sb, "", sem));
    ls.push_back(vop(mn + "_dpp", d++, db, {dpp(2), vi(3)}, {}, sb, kQuadPerm, sem));
  }
  ls.push_back(exec_from_s18());
  ls.push_back(vop(mn, d++, db, {vi(4), vi(5)}, {}, sb, "", sem));
  cs.push_back(make_case(mn, v, ls, std::move(init)));
}

// Ternary VOP3 (32-bit): register triples, modifiers, clamp, SGPR, inline constant, partial EXEC.
void ternary(std::vector<Case>& cs, const std::string& mn, const Kinds& k, std::function<u64(u64, u64, u64)> op,
             Values v, std::function<void(State&)> init = nullptr, const std::string& opsel = "") {
  Sem sem = [op](const V& a) { return op(a[0], a[1], a[2]); };
  const int sb = k.sbits, db = k.dbits;
  std::vector<Line> ls;
  int d = 0;
  for (int i = 0; i < 8; ++i) ls.push_back(vop(mn, d++, db, {vi(i), vi((i + 1) % 8), vi((i + 3) % 8)}, {}, sb, "", sem));
  ls.push_back(vop(mn, d++, db, {vi(0), vi(1), vi(2)}, {kNeg, kAbs, kNegAbs}, sb, "", sem));
  ls.push_back(vop(mn, d++, db, {vi(3), vi(4), vi(5)}, {kAbs, kNeg, kNone}, sb, "", sem, true));
  ls.push_back(vop(mn, d++, db, {si(0), vi(6), vi(7)}, {}, sb, "", sem));
  ls.push_back(vop(mn, d++, db, {vi(1), si(2), si(2)}, {}, sb, "", sem));
  ls.push_back(vop(mn, d++, db, {vi(2), k.inline_const, vi(3)}, {}, sb, "", sem));
  if (!opsel.empty()) {  // 16-bit: the high halves of src0/src1
    auto o = [op](const V& a) { return op(a[0], a[1], a[2]); };
    ls.push_back(vop(mn, d++, db, {hi16(vi(4)), hi16(vi(5)), vi(6)}, {kNeg, kNone, kNone}, sb, opsel, o));
  }
  ls.push_back(exec_from_s18());
  ls.push_back(vop(mn, d++, db, {vi(4), vi(5), vi(6)}, {}, sb, "", sem));
  cs.push_back(make_case(mn, v, ls, std::move(init)));
}

// f64 VOP3 binary/ternary (n = 2 or 3 sources): pairs v[10:11]..v[16:17], s[16:17], inline 1.0,
// modifiers, clamp, partial EXEC.
void f64op(std::vector<Case>& cs, const std::string& mn, int n, Sem sem, std::function<void(State&)> init = nullptr,
           bool last_int = false) {
  auto srcs = [&](int a, int b, int c) {
    std::vector<Opd> o{vi64(a), last_int && n == 2 ? vi(b) : vi64(b)};
    if (n == 3) o.push_back(vi64(c));
    return o;
  };
  std::vector<Line> ls;
  int d = 0;
  const int rot[4][3] = {{0, 2, 4}, {2, 4, 6}, {4, 6, 0}, {6, 0, 2}};
  for (const auto& r : rot) {
    ls.push_back(vop(mn, d, 64, srcs(r[0], r[1], r[2]), {}, 64, "", sem));
    d += 2;
  }
  const int m1 = last_int ? kNone : kAbs;
  ls.push_back(vop(mn, d, 64, srcs(2, 0, 6), {kNeg, m1, kNegAbs}, 64, "", sem));
  d += 2;
  ls.push_back(vop(mn, d, 64, srcs(4, 2, 0), {kAbs, kNone, kNeg}, 64, "", sem, true));
  d += 2;
  std::vector<Opd> s1{si64(0), last_int ? vi(2) : vi64(2)};
  if (n == 3) s1.push_back(vi64(4));
  ls.push_back(vop(mn, d, 64, s1, {}, 64, "", sem));
  d += 2;
  std::vector<Opd> s2{vi64(6), last_int ? kon("4", 4) : kon("1.0", b64(1.0))};
  if (n == 3) s2.push_back(kon("-2.0", b64(-2.0)));
  ls.push_back(vop(mn, d, 64, s2, {}, 64, "", sem));
  d += 2;
  ls.push_back(exec_from_s18());
  ls.push_back(vop(mn, d, 64, srcs(0, 4, 2), {}, 64, "", sem));
  cs.push_back(make_case(mn, Values::F64, ls, std::move(init)));
}

// ---- packed (VOP3P) ----
// Element i of operand x: f32 pairs (element = dword) or f16 halves.
u64 elem(u64 x, int i, int bits) { return (x >> (i * bits)) & ((u64{1} << bits) - 1); }

struct Pk {
  std::vector<int> op_sel, op_sel_hi, neg_lo, neg_hi;
  bool clamp = false;
};
std::string pk_list(const char* name, const std::vector<int>& v) {
  std::string r = std::string(" ") + name + ":[";
  for (std::size_t i = 0; i < v.size(); ++i) r += (i ? "," : "") + std::to_string(v[i]);
  return r + "]";
}
// One packed line: dst element h (0 lo, 1 hi) = op(src j element (h ? op_sel_hi : op_sel)[j],
// negated if (h ? neg_hi : neg_lo)[j]).
Line pk_line(const std::string& mn, int dst, std::vector<Opd> srcs, int bits, const Pk& p, Sem op) {
  std::string t = mn + " " + (bits == 32 ? vo64(dst).text : vo(dst).text);
  for (const auto& s : srcs) t += ", " + s.text;
  const std::size_t n = srcs.size();
  auto def = [n](const std::vector<int>& v, int d0) { return v.empty() ? std::vector<int>(n, d0) : v; };
  const auto os = def(p.op_sel, 0), oh = def(p.op_sel_hi, 1), nl = def(p.neg_lo, 0), nh = def(p.neg_hi, 0);
  if (!p.op_sel.empty()) t += pk_list("op_sel", os);
  if (!p.op_sel_hi.empty()) t += pk_list("op_sel_hi", oh);
  if (!p.neg_lo.empty()) t += pk_list("neg_lo", nl);
  if (!p.neg_hi.empty()) t += pk_list("neg_hi", nh);
  if (p.clamp) t += " clamp" + plus_zero(dst, bits == 32 ? 64 : 16, true);
  auto f = [srcs, bits, os, oh, nl, nh, op, cl = p.clamp](const State& s, int l) -> u64 {
    u64 r = 0;
    for (int h = 0; h < 2; ++h) {
      V a;
      for (std::size_t j = 0; j < srcs.size(); ++j) {
        u64 e = elem(srcs[j].get(s, l), (h ? oh : os)[j], bits);
        if ((h ? nh : nl)[j]) e ^= u64{1} << (bits - 1);
        a.push_back(e);
      }
      u64 x = op(a);
      if (cl) x = zero_sign(clamp_value(x, bits), bits);
      r |= x << (h * bits);
    }
    return r;
  };
  return {t, dst, bits == 32 ? 2 : 1, f};
}
// v_pk_* cases: default selects, op_sel/op_sel_hi swaps, neg_lo/neg_hi, clamp, SGPR, EXEC.
void packed(std::vector<Case>& cs, const std::string& mn, int bits, int n, Sem op,
            std::function<void(State&)> init = nullptr) {
  auto reg = [bits](int k) { return bits == 32 ? vi64(2 * (k % 4)) : vi(k % 8); };
  auto srcs = [&](int a) {
    std::vector<Opd> o;
    for (int j = 0; j < n; ++j) o.push_back(reg(a + j));
    return o;
  };
  const int st = bits == 32 ? 2 : 1;
  auto ones = [n](int v) { return std::vector<int>(static_cast<std::size_t>(n), v); };
  std::vector<int> alt{1, 0, 1};
  alt.resize(z(n));
  std::vector<int> alt2{0, 1, 1};
  alt2.resize(z(n));
  std::vector<Line> ls;
  int d = 0;
  for (int a = 0; a < 4; ++a) { ls.push_back(pk_line(mn, d, srcs(a), bits, {}, op)); d += st; }
  ls.push_back(pk_line(mn, d, srcs(1), bits, {ones(1), ones(0), {}, {}}, op)); d += st;  // swap halves
  ls.push_back(pk_line(mn, d, srcs(2), bits, {alt, alt2, {}, {}}, op)); d += st;
  ls.push_back(pk_line(mn, d, srcs(3), bits, {{}, {}, alt, alt2}, op)); d += st;
  ls.push_back(pk_line(mn, d, srcs(0), bits, {ones(0), ones(0), ones(1), {}, true}, op)); d += st;
  std::vector<Opd> sg = srcs(1);
  sg[0] = bits == 32 ? si64(0) : si(0);
  ls.push_back(pk_line(mn, d, sg, bits, {}, op)); d += st;
  // The destination is the last source, whose low half also feeds the high result (op_sel_hi 0):
  // every source is read before either half is written. clang emits it for RoPE
  // (`v_pk_fma_f32 v[44:45], v[48:49], v[44:45], v[46:47] op_sel_hi:[1,0,1]`); the simulator once
  // wrote the low result first and fed it to the high one. The 32-bit forms only: a 16-bit
  // form writes one register after reading all, and its NaN lanes would pit two quiet NaNs
  // against each other in v_pk_min/max_f16, where this file's model (minmax: the second) and
  // the simulator (exec/valu16.cpp: the first, quieted) differ: an open question, not this case's.
  if (bits == 32) {
    std::vector<Opd> al = srcs(1);
    al[z(n - 1)] = vo64(0);
    std::vector<int> hi_last0 = ones(1);
    hi_last0[z(n - 1)] = 0;
    ls.push_back(pk_line(mn, 0, al, bits, {{}, hi_last0, {}, {}}, op));
  }
  ls.push_back(exec_from_s18());
  ls.push_back(pk_line(mn, d, srcs(2), bits, {}, op));
  cs.push_back(make_case(mn, bits == 32 ? Values::F32 : Values::F16, ls, std::move(init)));
}

}  // namespace

void add_valu_fp_cases(std::vector<Case>& cs) {
  const Kinds f32k;
  Kinds f16k;  // 16-bit sources and results (results zero bits 31:16, LLVM GCNSubtarget::zeroesHigh16BitsOfDest)
  f16k.sbits = f16k.dbits = 16;
  f16k.inline_const = kon("0.5", 0x3800u);
  f16k.literal = kon("0x4248", 0x4248u);  // 3.140625

  // ---- f32 rounding and transcendentals (VOP1) ----
  auto u32op = [](u32 (*f)(u32)) { return [f](u64 a) -> u64 { return f(w32(a)); }; };
  auto rnd = [](double (*g)(double)) {
    return [g](u64 a) -> u64 {
      const u32 x = ftz32(w32(a));
      if (nan32(x)) return quiet32(x);
      const float r = static_cast<float>(g(f32(x)));
      return r == 0.0f ? (x & 0x80000000u) : b32(r);  // a zero keeps the sign of the input
    };
  };
  unary(cs, "v_trunc_f32", f32k, rnd([](double x) { return std::trunc(x); }), Values::F32);
  unary(cs, "v_ceil_f32", f32k, rnd([](double x) { return std::ceil(x); }), Values::F32);
  unary(cs, "v_floor_f32", f32k, rnd([](double x) { return std::floor(x); }), Values::F32);
  unary(cs, "v_rndne_f32", f32k, rnd([](double x) { return std::nearbyint(x); }), Values::F32);
  unary(cs, "v_exp_f32", f32k, u32op(exp32), Values::F32, exp_domain);
  unary(cs, "v_log_f32", f32k, u32op(log32), Values::F32);
  unary(cs, "v_rcp_f32", f32k, u32op(rcp32), Values::F32);
  unary(cs, "v_rcp_iflag_f32", f32k, u32op(rcp32), Values::F32);
  unary(cs, "v_rsq_f32", f32k, u32op(rsq32), Values::F32);
  unary(cs, "v_sqrt_f32", f32k, u32op(sqrt32), Values::F32);
  Kinds trig = f32k;
  trig.literal = kon("0x3e800001", 0x3e800001u);  // just above 1/4 revolution
  trig.inline_const = kon("0.15915494", 0x3e22f983u);  // 1/(2pi): the other inline constants are quarter revolutions
  unary(cs, "v_sin_f32", trig, u32op(sin32), Values::F32, trig_domain);
  unary(cs, "v_cos_f32", trig, u32op(cos32), Values::F32, trig_domain);

  // ---- conversions ----
  Kinds int2f = f32k;  // integer source
  int2f.float_src = false;
  int2f.inline_const = kon("-4", 0xfffffffcu);
  int2f.literal = kon("0x1000001", 0x1000001u);  // 2^24 + 1: rounds
  unary(cs, "v_cvt_f32_i32", int2f, [](u64 a) -> u64 { return b32(static_cast<float>(static_cast<i32>(w32(a)))); }, Values::Int);
  unary(cs, "v_cvt_f32_u32", int2f, [](u64 a) -> u64 { return b32(static_cast<float>(w32(a))); }, Values::Int);
  for (int byte = 0; byte < 4; ++byte)
    unary(cs, "v_cvt_f32_ubyte" + std::to_string(byte), int2f,
          [byte](u64 a) -> u64 { return b32(static_cast<float>((a >> (8 * byte)) & 0xffu)); }, Values::Int);
  Kinds f2int = f32k;  // float source, integer result (no clamp)
  f2int.float_dst = false;
  f2int.literal = kon("0xcf000001", 0xcf000001u);  // just below INT_MIN
  unary(cs, "v_cvt_i32_f32", f2int, [](u64 a) -> u64 { return cvt_i32(f32(ftz32(w32(a)))); }, Values::F32);
  unary(cs, "v_cvt_u32_f32", f2int, [](u64 a) -> u64 { return cvt_u32(f32(ftz32(w32(a)))); }, Values::F32);
  // floor(x + 0.5) and floor(x), taken exactly in double.
  unary(cs, "v_cvt_rpi_i32_f32", f2int, [](u64 a) -> u64 { return cvt_i32(std::floor(static_cast<double>(f32(ftz32(w32(a)))) + 0.5)); }, Values::F32);
  unary(cs, "v_cvt_flr_i32_f32", f2int, [](u64 a) -> u64 { return cvt_i32(std::floor(static_cast<double>(f32(ftz32(w32(a)))))); }, Values::F32);
  Kinds f32to16 = f32k;
  f32to16.dbits = 16;
  // SIMULATOR GAP: `v_cvt_f16_f32_e64 ... clamp` is refused ("clamp/omod on v_cvt_f16_f32 is not
  // supported"), so no clamp line here.
  f32to16.clamp_line = false;
  unary(cs, "v_cvt_f16_f32", f32to16, [](u64 a) -> u64 { return f32_to_f16(w32(a), Round::NearestEven); }, Values::F32);
  Kinds f16to32 = f16k;
  f16to32.dbits = 32;
  unary(cs, "v_cvt_f32_f16", f16to32, [](u64 a) -> u64 { return f16_to_f32(w16(a)); }, Values::F16);
  Kinds i16to16 = f16k;
  i16to16.float_src = false;
  // The VOP3 clamp of v_cvt_f16_u16/v_cvt_f16_i16 clamps the result to [0, 1] (the simulator
  // once ignored it).
  i16to16.inline_const = kon("-4", 0xfffffffcu);
  unary(cs, "v_cvt_f16_u16", i16to16, [](u64 a) -> u64 {
    Exact x;
    x.add_term(false, a & 0xffffu, 0);
    return round_exact(x, kF16);
  }, Values::Int);
  unary(cs, "v_cvt_f16_i16", i16to16, [](u64 a) -> u64 {
    Exact x;
    const int v = static_cast<std::int16_t>(w16(a));
    x.add_term(v < 0, static_cast<u64>(v < 0 ? -v : v), 0);
    return round_exact(x, kF16);
  }, Values::Int);
  Kinds f16toi = f16k;
  f16toi.float_dst = false;
  unary(cs, "v_cvt_u16_f16", f16toi, [](u64 a) -> u64 {
    const double x = h2d(w16(a));
    if (std::isnan(x) || x <= 0.0) return 0;
    return x >= 65535.0 ? 0xffffu : static_cast<u64>(std::trunc(x));
  }, Values::F16);
  unary(cs, "v_cvt_i16_f16", f16toi, [](u64 a) -> u64 {
    const double x = h2d(w16(a));
    if (std::isnan(x)) return 0;
    const double t = std::trunc(x);
    return static_cast<u16>(static_cast<std::int16_t>(t >= 32767.0 ? 32767.0 : t <= -32768.0 ? -32768.0 : t));
  }, Values::F16);
  // f64 <-> f32/int (f64 denormals kept, f32 denormals flushed)
  Kinds d2s = f32k;
  d2s.sbits = 64;
  d2s.inline_const = kon("-0.5", b64(-0.5));
  unary(cs, "v_cvt_f32_f64", d2s, [](u64 a) -> u64 {
    return nan64(a) ? (static_cast<u32>(a >> 32) & 0x80000000u) | kQNaN32 : fin32(static_cast<float>(f64(a)));
  }, Values::F64);
  Kinds d2i = d2s;
  d2i.float_dst = false;
  unary(cs, "v_cvt_i32_f64", d2i, [](u64 a) -> u64 { return cvt_i32(f64(a)); }, Values::F64);
  unary(cs, "v_cvt_u32_f64", d2i, [](u64 a) -> u64 { return cvt_u32(f64(a)); }, Values::F64);
  Kinds s2d = f32k;
  s2d.dbits = 64;
  unary(cs, "v_cvt_f64_f32", s2d, [](u64 a) -> u64 {
    const u32 x = ftz32(w32(a));
    return nan32(x) ? (u64{x & 0x80000000u} << 32) | kQNaN64 : b64(static_cast<double>(f32(x)));
  }, Values::F32);
  Kinds i2d = int2f;
  i2d.dbits = 64;
  unary(cs, "v_cvt_f64_i32", i2d, [](u64 a) -> u64 { return b64(static_cast<double>(static_cast<i32>(w32(a)))); }, Values::Int);
  unary(cs, "v_cvt_f64_u32", i2d, [](u64 a) -> u64 { return b64(static_cast<double>(w32(a))); }, Values::Int);

  // ---- f32 arithmetic ----
  binary(cs, "v_add_f32", f32k, [](u64 a, u64 b) -> u64 { return add32(w32(a), w32(b)); }, Values::F32);
  binary(cs, "v_sub_f32", f32k, [](u64 a, u64 b) -> u64 { return sub32(w32(a), w32(b)); }, Values::F32);
  binary(cs, "v_subrev_f32", f32k, [](u64 a, u64 b) -> u64 {  // S1 - S0, NaN operands in source order
    u32 n;
    return first_nan32({w32(a), w32(b)}, n) ? n : sub32(w32(b), w32(a));
  }, Values::F32);
  binary(cs, "v_mul_f32", f32k, [](u64 a, u64 b) -> u64 { return mul32(w32(a), w32(b)); }, Values::F32);
  // DX9 rule (ISA guide V_MUL_LEGACY_F32): 0 times anything, infinity and NaN included, is 0.
  Kinds vop3only = f32k;  // no VOP2 encoding on gfx942: no literal, no DPP
  vop3only.e32 = false;
  binary(cs, "v_mul_legacy_f32", vop3only, [](u64 a, u64 b) -> u64 {
    if ((ftz32(w32(a)) & 0x7fffffffu) == 0 || (ftz32(w32(b)) & 0x7fffffffu) == 0) return 0;
    return mul32(w32(a), w32(b));
  }, Values::F32);
  binary(cs, "v_min_f32", f32k, [](u64 a, u64 b) -> u64 { return min32(w32(a), w32(b)); }, Values::F32, add_snans32);
  binary(cs, "v_max_f32", f32k, [](u64 a, u64 b) -> u64 { return max32(w32(a), w32(b)); }, Values::F32, add_snans32);
  binary(cs, "v_ldexp_f32", vop3only, [](u64 a, u64 b) -> u64 {
    const u32 x = ftz32(w32(a));
    if (nan32(x)) return quiet32(x);
    return fin32(std::ldexp(f32(x), static_cast<int>(std::clamp<i64>(static_cast<i32>(w32(b)), -1000, 1000))));
  }, Values::F32, [](State& s) { for (int k = 1; k < 8; k += 2) small_ints(s, k); s.sin[1] = 3; }, false);
  auto fma3 = [](u64 a, u64 b, u64 c) -> u64 { return fma32(w32(a), w32(b), w32(c)); };
  ternary(cs, "v_fma_f32", f32k, fma3, Values::F32);
  auto mn3 = [](u64 a, u64 b, u64 c) -> u64 { return min32(min32(w32(a), w32(b)), w32(c)); };
  auto mx3 = [](u64 a, u64 b, u64 c) -> u64 { return max32(max32(w32(a), w32(b)), w32(c)); };
  ternary(cs, "v_min3_f32", f32k, mn3, Values::F32, add_snans32);
  ternary(cs, "v_max3_f32", f32k, mx3, Values::F32, add_snans32);
  // ISA guide V_MED3_F32: any NaN -> min3; else the maximum of the two operands other than the max3.
  ternary(cs, "v_med3_f32", f32k, [mn3, mx3](u64 a, u64 b, u64 c) -> u64 {
    const u32 x = ftz32(w32(a)), y = ftz32(w32(b)), t = ftz32(w32(c));
    if (nan32(x) || nan32(y) || nan32(t)) return mn3(x, y, t);
    const u32 m = w32(mx3(x, y, t));
    if (m == x) return max32(y, t);
    if (m == y) return max32(x, t);
    return max32(x, y);
  }, Values::F32);
  {  // v_fmac_f32 (D += S0*S1), v_fmaak_f32 (S0*S1 + K), v_fmamk_f32 (S0*K + S1)
    std::vector<Line> ls;
    for (int i = 0; i < 4; ++i) {
      ls.push_back(vop("v_mov_b32", i, 32, {vi(i + 4)}, {}, 32, "", [](const V& a) { return a[0]; }));
      ls.push_back({"v_fmac_f32 v" + std::to_string(32 + i) + ", v" + std::to_string(10 + i) + ", v" + std::to_string(11 + i), i, 1,
                    [i](const State& s, int l) -> u64 { return fma32(s.vin[z(i)][z(l)], s.vin[z(i + 1)][z(l)], s.vout[z(i)][z(l)]); }});
    }
    ls.push_back(vop("v_mov_b32", 4, 32, {vi(7)}, {}, 32, "", [](const V& a) { return a[0]; }));
    ls.push_back({"v_fmac_f32_e64 v36, -v10, |s16| clamp" + plus_zero(4, 32), 4, 1, [](const State& s, int l) -> u64 {
                    return zero_sign(clamp32(fma32(s.vin[0][z(l)] ^ 0x80000000u, s.sin[0] & 0x7fffffffu, s.vout[4][z(l)])), 32);
                  }});
    ls.push_back(vop("v_mov_b32", 5, 32, {vi(6)}, {}, 32, "", [](const V& a) { return a[0]; }));
    ls.push_back({"v_fmac_f32 v37, 0x3e22f983, v11", 5, 1, [](const State& s, int l) -> u64 {
                    return fma32(0x3e22f983u, s.vin[1][z(l)], s.vout[5][z(l)]);
                  }});
    cs.push_back(make_case("v_fmac_f32", Values::F32, ls));
  }
  {
    std::vector<Line> ls;
    for (int i = 0; i < 6; ++i)
      ls.push_back({"v_fmaak_f32 v" + std::to_string(32 + i) + ", v" + std::to_string(10 + i) + ", v" +
                        std::to_string(11 + i) + ", 0x40490fdb",
                    i, 1, [i](const State& s, int l) -> u64 { return fma32(s.vin[z(i)][z(l)], s.vin[z(i + 1)][z(l)], 0x40490fdbu); }});
    ls.push_back({"v_fmaak_f32 v38, v17, v12, 0xc0000000", 6, 1, [](const State& s, int l) -> u64 { return fma32(s.vin[7][z(l)], s.vin[2][z(l)], 0xc0000000u); }});
    ls.push_back(exec_from_s18());
    ls.push_back({"v_fmaak_f32 v39, v13, v14, 0x7f7fffff", 7, 1, [](const State& s, int l) -> u64 { return fma32(s.vin[3][z(l)], s.vin[4][z(l)], 0x7f7fffffu); }});
    cs.push_back(make_case("v_fmaak_f32", Values::F32, ls));
  }
  {
    std::vector<Line> ls;
    for (int i = 0; i < 6; ++i)
      ls.push_back({"v_fmamk_f32 v" + std::to_string(32 + i) + ", v" + std::to_string(10 + i) + ", 0x3dcccccd, v" +
                        std::to_string(11 + i),
                    i, 1, [i](const State& s, int l) -> u64 { return fma32(s.vin[z(i)][z(l)], 0x3dcccccdu, s.vin[z(i + 1)][z(l)]); }});
    ls.push_back({"v_fmamk_f32 v38, v17, 0x00800000, v12", 6, 1, [](const State& s, int l) -> u64 { return fma32(s.vin[7][z(l)], 0x00800000u, s.vin[2][z(l)]); }});
    ls.push_back(exec_from_s18());
    ls.push_back({"v_fmamk_f32 v39, v13, 0xff800000, v14", 7, 1, [](const State& s, int l) -> u64 { return fma32(s.vin[3][z(l)], 0xff800000u, s.vin[4][z(l)]); }});
    cs.push_back(make_case("v_fmamk_f32", Values::F32, ls));
  }

  // ---- f64 (denormals kept; host double arithmetic is IEEE binary64 with RNE) ----
  auto d2 = [](double (*g)(double, double)) {
    return Sem([g](const V& a) -> u64 {
      u64 n;
      if (first_nan64({a[0], a[1]}, n)) return n;
      return fin64(g(f64(a[0]), f64(a[1])));
    });
  };
  f64op(cs, "v_add_f64", 2, d2([](double x, double y) { return x + y; }));
  f64op(cs, "v_mul_f64", 2, d2([](double x, double y) { return x * y; }));
  auto snans64 = [](State& s) {
    s.vin[0][3] = 0x00000001u; s.vin[1][3] = 0x7ff00000u;
    s.vin[2][41] = 0x00000005u; s.vin[3][41] = 0xfff40000u;
  };
  f64op(cs, "v_min_f64", 2, [](const V& a) -> u64 { return minmax<u64>(a[0], a[1], false, nan64, snan64, quiet64, less64); }, snans64);
  f64op(cs, "v_max_f64", 2, [](const V& a) -> u64 { return minmax<u64>(a[0], a[1], true, nan64, snan64, quiet64, less64); }, snans64);
  f64op(cs, "v_fma_f64", 3, [](const V& a) -> u64 {
    u64 n;
    if (first_nan64({a[0], a[1], a[2]}, n)) return n;
    return fin64(std::fma(f64(a[0]), f64(a[1]), f64(a[2])));
  });
  f64op(cs, "v_ldexp_f64", 2, [](const V& a) -> u64 {
    if (nan64(a[0])) return quiet64(a[0]);
    return fin64(std::ldexp(f64(a[0]), static_cast<int>(std::clamp<i64>(static_cast<i32>(w32(a[1])), -3000, 3000))));
  }, [](State& s) { small_ints(s, 2); small_ints(s, 4); for (auto& w : s.vin[2]) w *= 7u; }, true);
  {  // v_fmac_f64: D += S0*S1
    auto fma64 = [](u64 x, u64 y, u64 c) -> u64 {
      u64 n;
      if (first_nan64({x, y, c}, n)) return n;
      return fin64(std::fma(f64(x), f64(y), f64(c)));
    };
    std::vector<Line> ls;
    const int rot[3][3] = {{0, 2, 4}, {2, 4, 6}, {6, 0, 2}};
    int d = 0;
    for (const auto& r : rot) {
      ls.push_back(vop("v_mov_b32", d, 32, {vi(r[2])}, {}, 32, "", [](const V& a) { return a[0]; }));
      ls.push_back(vop("v_mov_b32", d + 1, 32, {vi(r[2] + 1)}, {}, 32, "", [](const V& a) { return a[0]; }));
      ls.push_back({"v_fmac_f64 " + vo64(d).text + ", " + vi64(r[0]).text + ", " + vi64(r[1]).text, d, 2,
                    [fma64, r, d](const State& s, int l) -> u64 {
                      return fma64(lane_pair(s.vin[z(r[0])], s.vin[z(r[0] + 1)], l), lane_pair(s.vin[z(r[1])], s.vin[z(r[1] + 1)], l),
                                   lane_pair(s.vout[z(d)], s.vout[z(d + 1)], l));
                    }});
      d += 2;
    }
    ls.push_back(vop("v_mov_b32", d, 32, {vi(0)}, {}, 32, "", [](const V& a) { return a[0]; }));
    ls.push_back(vop("v_mov_b32", d + 1, 32, {vi(1)}, {}, 32, "", [](const V& a) { return a[0]; }));
    ls.push_back({"v_fmac_f64_e64 v[38:39], -v[12:13], |s[16:17]| clamp" + plus_zero(6, 64), d, 2, [fma64](const State& s, int l) -> u64 {
                    return zero_sign(clamp64(fma64(lane_pair(s.vin[2], s.vin[3], l) ^ (u64{1} << 63), sgpr_pair(s, 0) & ~(u64{1} << 63),
                                         lane_pair(s.vout[6], s.vout[7], l))), 64);
                  }});
    cs.push_back(make_case("v_fmac_f64", Values::F64, ls));
  }

  // ---- f16 (VOP2 e32 on the low halves; VOP3 op_sel picks high halves) ----
  auto h2 = [](u16 (*g)(u16, u16)) { return [g](u64 a, u64 b) -> u64 { return g(w16(a), w16(b)); }; };
  binary(cs, "v_add_f16", f16k, h2(add16), Values::F16);
  binary(cs, "v_sub_f16", f16k, [](u64 a, u64 b) -> u64 { return sub16(w16(a), w16(b), false); }, Values::F16);
  binary(cs, "v_subrev_f16", f16k, [](u64 a, u64 b) -> u64 { return sub16(w16(a), w16(b), true); }, Values::F16);
  binary(cs, "v_mul_f16", f16k, [](u64 a, u64 b) -> u64 { return fma16(w16(a), w16(b), 0, false); }, Values::F16);
  binary(cs, "v_max_f16", f16k, h2(max16), Values::F16, add_snans16);
  binary(cs, "v_min_f16", f16k, h2(min16), Values::F16, add_snans16);
  ternary(cs, "v_fma_f16", f16k, [](u64 a, u64 b, u64 c) -> u64 { return fma16(w16(a), w16(b), w16(c)); }, Values::F16,
          nullptr, " op_sel:[1,1,0,0]");

  // ---- packing ----
  {
    std::vector<Line> ls;
    Sem rtz = [](const V& a) -> u64 { return f32_to_f16(w32(a[0]), Round::TowardZero) | (u64{f32_to_f16(w32(a[1]), Round::TowardZero)} << 16); };
    for (int i = 0; i < 7; ++i) ls.push_back(vop("v_cvt_pkrtz_f16_f32", i, 32, {vi(i), vi(i + 1)}, {}, 32, "", rtz));
    ls.push_back(vop("v_cvt_pkrtz_f16_f32", 7, 32, {si(0), vi(2)}, {}, 32, "", rtz));
    ls.push_back(vop("v_cvt_pkrtz_f16_f32_e64", 8, 32, {vi(3), vi(4)}, {kNegAbs, kNeg}, 32, "", rtz));
    ls.push_back(vop("v_cvt_pkrtz_f16_f32", 9, 32, {si(4), vi(5)}, {}, 32, "", rtz));  // s20 = 65535.99
    ls.push_back(exec_from_s18());
    ls.push_back(vop("v_cvt_pkrtz_f16_f32", 10, 32, {vi(6), vi(7)}, {}, 32, "", rtz));
    cs.push_back(make_case("v_cvt_pkrtz_f16_f32", Values::F32, ls, [](State& s) { s.sin[4] = 0x477fffffu; }));
  }
  {
    std::vector<Line> ls;
    Sem pk = [](const V& a) -> u64 { return (a[0] & 0xffffu) | ((a[1] & 0xffffu) << 16); };
    for (int i = 0; i < 7; ++i) ls.push_back(vop("v_pack_b32_f16", i, 32, {vi(i), vi(i + 1)}, {}, 16, "", pk));
    ls.push_back(vop("v_pack_b32_f16", 7, 32, {si(0), vi(2)}, {}, 16, "", pk));
    ls.push_back(vop("v_pack_b32_f16", 8, 32, {hi16(vi(3)), vi(4)}, {}, 16, " op_sel:[1,0,0]", pk));
    ls.push_back(vop("v_pack_b32_f16", 9, 32, {hi16(vi(5)), hi16(vi(6))}, {}, 16, " op_sel:[1,1,0]", pk));
    ls.push_back(exec_from_s18());
    ls.push_back(vop("v_pack_b32_f16", 10, 32, {vi(6), vi(7)}, {}, 16, "", pk));
    cs.push_back(make_case("v_pack_b32_f16", Values::F16, ls));
  }

  // ---- packed f32 / f16 ----
  packed(cs, "v_pk_fma_f32", 32, 3, [](const V& a) -> u64 { return fma32(w32(a[0]), w32(a[1]), w32(a[2])); });
  packed(cs, "v_pk_mul_f32", 32, 2, [](const V& a) -> u64 { return mul32(w32(a[0]), w32(a[1])); });
  packed(cs, "v_pk_add_f32", 32, 2, [](const V& a) -> u64 { return add32(w32(a[0]), w32(a[1])); });
  packed(cs, "v_pk_fma_f16", 16, 3, [](const V& a) -> u64 { return fma16(w16(a[0]), w16(a[1]), w16(a[2])); });
  packed(cs, "v_pk_add_f16", 16, 2, [](const V& a) -> u64 { return add16(w16(a[0]), w16(a[1])); });
  packed(cs, "v_pk_mul_f16", 16, 2, [](const V& a) -> u64 { return fma16(w16(a[0]), w16(a[1]), 0, false); });
  packed(cs, "v_pk_max_f16", 16, 2, [](const V& a) -> u64 { return max16(w16(a[0]), w16(a[1])); }, add_snans16);
  packed(cs, "v_pk_min_f16", 16, 2, [](const V& a) -> u64 { return min16(w16(a[0]), w16(a[1])); }, add_snans16);

  // ---- dot2: D.f32 = S0.lo*S1.lo + S0.hi*S1.hi + C, the exact sum rounded once ----
  auto dot2 = [](u32 a, u32 b, u32 c) -> u64 {
    const u16 a0 = w16(a), a1 = w16(a >> 16), b0 = w16(b), b1 = w16(b >> 16);
    c = ftz32(c);
    if (nan16(a0) || nan16(a1) || nan16(b0) || nan16(b1) || nan32(c)) return kQNaN32;
    // Infinite terms: the f32 sum of the (exact, possibly infinite) products decides inf/NaN.
    const double p0 = h2d(a0) * h2d(b0), p1 = h2d(a1) * h2d(b1);
    const double inf_sum = p0 + p1 + static_cast<double>(f32(c));
    if (!std::isfinite(p0) || !std::isfinite(p1) || std::isinf(f32(c)) || std::isnan(inf_sum))
      return std::isnan(inf_sum) ? kQNaN32 : b32(static_cast<float>(inf_sum));
    Exact x;
    const Parts q0a = parts16(a0), q0b = parts16(b0), q1a = parts16(a1), q1b = parts16(b1);
    x.add_term(q0a.neg != q0b.neg, q0a.m * q0b.m, q0a.e + q0b.e);
    x.add_term(q1a.neg != q1b.neg, q1a.m * q1b.m, q1a.e + q1b.e);
    add_f32(x, c);
    const bool zneg = (q0a.neg != q0b.neg) && (q1a.neg != q1b.neg) && (c >> 31);
    return ftz32(round_exact(x, kF32, Round::NearestEven, zneg));
  };
  auto f32_in_v12_v13 = [](State& s) {  // accumulators: f32 values (the harness gives f16 pairs)
    for (int l = 0; l < kLanes; ++l) {
      s.vin[2][z(l)] = l == 5 ? 0x7f800000u : l == 6 ? 0x00400000u : l == 7 ? 0x80000000u
                     : b32(static_cast<float>(h2d(w16(s.vin[2][z(l)]))) * 3.0f);
      s.vin[3][z(l)] = b32(static_cast<float>(l) * 0.37f - 5.0f);
    }
  };
  {
    std::vector<Line> ls;
    auto ln = [&](int d, const std::string& a, const std::string& b, const std::string& c, Fn f) {
      ls.push_back({"v_dot2_f32_f16 v" + std::to_string(32 + d) + ", " + a + ", " + b + ", " + c, d, 1, f});
    };
    auto V32 = [](int k) { return [k](const State& s, int l) { return s.vin[z(k)][z(l)]; }; };
    const int tri[4][3] = {{0, 1, 2}, {4, 5, 3}, {6, 7, 2}, {1, 0, 3}};
    for (int i = 0; i < 4; ++i) {
      auto a = V32(tri[i][0]), b = V32(tri[i][1]), c = V32(tri[i][2]);
      ln(i, vi(tri[i][0]).text, vi(tri[i][1]).text, vi(tri[i][2]).text,
         [a, b, c, dot2](const State& s, int l) -> u64 { return dot2(a(s, l), b(s, l), c(s, l)); });
    }
    ln(4, "s16", "v11", "v13", [dot2](const State& s, int l) -> u64 { return dot2(s.sin[0], s.vin[1][z(l)], s.vin[3][z(l)]); });
    // An inline constant in src2 (the f32 accumulator) is an f32 constant: 1.0 = 0x3f800000.
    ln(6, "v10", "v11", "1.0", [dot2](const State& s, int l) -> u64 { return dot2(s.vin[0][z(l)], s.vin[1][z(l)], 0x3f800000u); });
    ls.push_back(exec_from_s18());
    ln(5, "v14", "v15", "v12", [dot2](const State& s, int l) -> u64 { return dot2(s.vin[4][z(l)], s.vin[5][z(l)], s.vin[2][z(l)]); });
    cs.push_back(make_case("v_dot2_f32_f16", Values::F16, ls, f32_in_v12_v13));
  }
  {
    std::vector<Line> ls;
    const int pr[4][3] = {{0, 1, 2}, {4, 5, 3}, {6, 7, 2}, {5, 0, 3}};
    for (int i = 0; i < 4; ++i) {
      const int a = pr[i][0], b = pr[i][1], c = pr[i][2];
      ls.push_back(vop("v_mov_b32", i, 32, {vi(c)}, {}, 32, "", [](const V& x) { return x[0]; }));
      ls.push_back({"v_dot2c_f32_f16 v" + std::to_string(32 + i) + ", v" + std::to_string(10 + a) + ", v" + std::to_string(10 + b), i, 1,
                    [a, b, i, dot2](const State& s, int l) -> u64 { return dot2(s.vin[z(a)][z(l)], s.vin[z(b)][z(l)], s.vout[z(i)][z(l)]); }});
    }
    ls.push_back(vop("v_mov_b32", 4, 32, {vi(3)}, {}, 32, "", [](const V& x) { return x[0]; }));
    ls.push_back({"v_dot2c_f32_f16 v36, s16, v11", 4, 1, [dot2](const State& s, int l) -> u64 { return dot2(s.sin[0], s.vin[1][z(l)], s.vout[4][z(l)]); }});
    ls.push_back(exec_from_s18());
    ls.push_back(vop("v_mov_b32", 5, 32, {vi(2)}, {}, 32, "", [](const V& x) { return x[0]; }));
    ls.push_back({"v_dot2c_f32_f16 v37, v14, v15", 5, 1, [dot2](const State& s, int l) -> u64 { return dot2(s.vin[4][z(l)], s.vin[5][z(l)], s.vout[5][z(l)]); }});
    cs.push_back(make_case("v_dot2c_f32_f16", Values::F16, ls, f32_in_v12_v13));
  }

  // ---- fp8/bf8 (FNUZ) conversions ----
  for (int bf = 0; bf < 2; ++bf) {
    const Fmt& f = bf ? kBf8 : kFp8;
    const std::string t = bf ? "bf8" : "fp8";
    {  // v_cvt_f32_{fp8,bf8}: byte 0 (e32), bytes 1..3 (SDWA src0_sel)
      std::vector<Line> ls;
      for (int i = 0; i < 4; ++i)
        ls.push_back({"v_cvt_f32_" + t + " v" + std::to_string(32 + i) + ", v" + std::to_string(10 + i), i, 1,
                      [i, f](const State& s, int l) -> u64 { return f8_to_f32(s.vin[z(i)][z(l)], f); }});
      for (int b = 1; b < 4; ++b)
        ls.push_back({"v_cvt_f32_" + t + "_sdwa v" + std::to_string(35 + b) + ", v" + std::to_string(13 + b) + " src0_sel:BYTE_" + std::to_string(b),
                      3 + b, 1, [b, f](const State& s, int l) -> u64 { return f8_to_f32(s.vin[z(3 + b)][z(l)] >> (8 * b), f); }});
      ls.push_back({"v_cvt_f32_" + t + " v39, s16", 7, 1, [f](const State& s, int) -> u64 { return f8_to_f32(s.sin[0], f); }});
      ls.push_back(exec_from_s18());
      ls.push_back({"v_cvt_f32_" + t + " v40, v17", 8, 1, [f](const State& s, int l) -> u64 { return f8_to_f32(s.vin[7][z(l)], f); }});
      cs.push_back(make_case("v_cvt_f32_" + t, Values::Int, ls, [](State& s) { s.vin[0][3] = 0x80u; s.vin[1][4] = 0x7fu; s.vin[4][5] = 0x8000u; }));
    }
    {  // v_cvt_pk_f32_{fp8,bf8}: bytes 0,1 (e32) or 2,3 (SDWA src0_sel:WORD_1) -> two f32
      std::vector<Line> ls;
      auto pk = [f](u32 w) -> u64 { return f8_to_f32(w, f) | (u64{f8_to_f32(w >> 8, f)} << 32); };
      for (int i = 0; i < 4; ++i)
        ls.push_back({"v_cvt_pk_f32_" + t + " " + vo64(2 * i).text + ", v" + std::to_string(10 + i), 2 * i, 2,
                      [i, pk](const State& s, int l) -> u64 { return pk(s.vin[z(i)][z(l)]); }});
      ls.push_back({"v_cvt_pk_f32_" + t + "_sdwa v[40:41], v14 src0_sel:WORD_1", 8, 2,
                    [pk](const State& s, int l) -> u64 { return pk(s.vin[4][z(l)] >> 16); }});
      ls.push_back(exec_from_s18());
      ls.push_back({"v_cvt_pk_f32_" + t + " v[42:43], v15", 10, 2, [pk](const State& s, int l) -> u64 { return pk(s.vin[5][z(l)]); }});
      cs.push_back(make_case("v_cvt_pk_f32_" + t, Values::Int, ls, [](State& s) { s.vin[0][3] = 0x8080u; s.vin[4][5] = 0x80000000u; }));
    }
    // f32 inputs near the fp8 range edges (max, overflow threshold, subnormals, ties).
    auto edges = [bf](State& s) {
      static const float e4[] = {240.0f, 247.9f, 248.0f, 232.0f, 0.015625f, 0.0009765625f, 0.00048828125f, 0.000732421875f, -0.0f, 1e-3f, 3.0e5f, -250.0f};
      static const float e5[] = {57344.0f, 61439.0f, 61440.0f, 53248.0f, 3.0517578e-05f, 7.6293945e-06f, 3.8146973e-06f, 5.7220459e-06f, -0.0f, 1e-6f, 1e9f, -65536.0f};
      for (int k = 0; k < 4; ++k)
        for (int i = 0; i < 12; ++i) s.vin[z(k)][z(30 + i)] = b32((bf ? e5 : e4)[i] * (k % 2 ? -1.0f : 1.0f));
      for (int l = 0; l < kLanes; ++l) s.vin[6][z(l)] = s.vin[6][z(l)] * 2654435761u;  // random words for SR
      s.vin[6][0] = 0;
      s.vin[6][1] = 0xffffffffu;
    };
    {  // v_cvt_pk_{fp8,bf8}_f32: two f32 -> bytes of word 0 (op_sel[3] = 0) or word 1; other word kept
      std::vector<Line> ls;
      auto pk = [f](u32 a, u32 b) -> u32 { return f32_to_f8(a, f) | (f32_to_f8(b, f) << 8); };
      for (int i = 0; i < 4; ++i) {
        const bool hi = i % 2 == 1;
        ls.push_back({"v_cvt_pk_" + t + "_f32 v" + std::to_string(32 + i) + ", v" + std::to_string(10 + i) + ", v" + std::to_string(11 + i) +
                          (hi ? " op_sel:[0,0,1]" : ""),
                      i, 1, [i, hi, pk](const State& s, int l) -> u64 {
                        const u32 w = pk(s.vin[z(i)][z(l)], s.vin[z(i + 1)][z(l)]);
                        const u32 old = s.vout[z(i)][z(l)];
                        return hi ? (old & 0xffffu) | (w << 16) : (old & 0xffff0000u) | w;
                      }});
      }
      ls.push_back({"v_cvt_pk_" + t + "_f32 v36, -|v14|, s16", 4, 1, [pk](const State& s, int l) -> u64 {
                      return (s.vout[4][z(l)] & 0xffff0000u) | pk(s.vin[4][z(l)] | 0x80000000u, s.sin[0]);
                    }});
      ls.push_back(exec_from_s18());
      ls.push_back({"v_cvt_pk_" + t + "_f32 v37, v15, v16", 5, 1, [pk](const State& s, int l) -> u64 {
                      return (s.vout[5][z(l)] & 0xffff0000u) | pk(s.vin[5][z(l)], s.vin[6][z(l)]);
                    }});
      cs.push_back(make_case("v_cvt_pk_" + t + "_f32", Values::F32, ls, edges));
    }
    {  // v_cvt_sr_{fp8,bf8}_f32: S0 f32, S1 random word; byte op_sel[3:2] written, others kept
      std::vector<Line> ls;
      static const char* sel[4] = {"", " op_sel:[0,0,1,0]", " op_sel:[0,0,0,1]", " op_sel:[0,0,1,1]"};
      for (int i = 0; i < 6; ++i) {
        const int byte = i % 4;
        ls.push_back({"v_cvt_sr_" + t + "_f32 v" + std::to_string(32 + i) + ", v" + std::to_string(10 + i % 4) + ", v16" + sel[byte], i, 1,
                      [i, byte, f](const State& s, int l) -> u64 {
                        const u32 r = f32_to_f8_sr(s.vin[z(i % 4)][z(l)], s.vin[6][z(l)], f);
                        return (s.vout[z(i)][z(l)] & ~(0xffu << (8 * byte))) | (r << (8 * byte));
                      }});
      }
      ls.push_back({"v_cvt_sr_" + t + "_f32 v38, -v14, s17", 6, 1, [f](const State& s, int l) -> u64 {
                      return (s.vout[6][z(l)] & ~0xffu) | f32_to_f8_sr(s.vin[4][z(l)] ^ 0x80000000u, s.sin[1], f);
                    }});
      ls.push_back(exec_from_s18());
      ls.push_back({"v_cvt_sr_" + t + "_f32 v39, v15, v17", 7, 1, [f](const State& s, int l) -> u64 {
                      return (s.vout[7][z(l)] & ~0xffu) | f32_to_f8_sr(s.vin[5][z(l)], s.vin[7][z(l)], f);
                    }});
      cs.push_back(make_case("v_cvt_sr_" + t + "_f32", Values::F32, ls, edges));
    }
  }
}

namespace {
Kinds kinds_of(const ValuForms& f) {
  Kinds k;
  k.sbits = f.sbits;
  k.dbits = f.dbits;
  k.float_src = f.float_src;
  k.float_dst = f.float_dst;
  k.e32 = f.e32;
  k.clamp_line = f.clamp_line;
  k.inline_const = kon(f.inline_text, f.inline_bits);
  k.literal = kon(f.literal_text, f.literal_bits);
  return k;
}
}  // namespace

void add_unary_case(std::vector<Case>& cs, const std::string& mn, const ValuForms& forms,
                    std::function<u64(u64)> op, Values v, std::function<void(State&)> init) {
  unary(cs, mn, kinds_of(forms), std::move(op), v, std::move(init));
  cs.back().body = forms.prologue + cs.back().body;
}

void add_binary_case(std::vector<Case>& cs, const std::string& mn, const ValuForms& forms,
                     std::function<u64(u64, u64)> op, Values v, std::function<void(State&)> init, bool src1_float) {
  binary(cs, mn, kinds_of(forms), std::move(op), v, std::move(init), src1_float);
  cs.back().body = forms.prologue + cs.back().body;
}

}  // namespace cdna::simulator::directed
