// fp8/bf8 (FNUZ) conversions; contract and sources: numerics/fp8.hpp.
//
// Encoding identity used by both roundings: a magnitude r * 2^qe with qe = max(e, emin) - F
// (the fp8 quantum at exponent e) and 0 <= r <= 2^(F+1) has the code
//     ((qe - emin + F) << F) + r
// because for a subnormal (qe = emin - F) the code is r itself, for a normal the exponent
// field is e - emin + 1 and r carries the implicit bit, and r == 2^(F+1) (a rounding carry)
// lands on the next exponent field with mantissa 0. Codes above 0x7F overflow.
#include "numerics/fp8.hpp"

#include <bit>
#include <stdexcept>

namespace cdna::numerics {
namespace {

constexpr std::uint32_t kF32QuietNaN = 0x7FC00000u;
constexpr std::uint32_t kF32PosInf = 0x7F800000u;
constexpr std::uint32_t kMaxCode = 0x7Fu;  // ±max for both kinds

// The magnitude code of r * 2^qe (see the file comment); qe and the result as ints so an
// overflowing exponent stays representable.
inline int encode(int qe, int emin, int frac, std::uint32_t r) {
  return ((qe - emin + frac) << frac) + static_cast<int>(r);
}

inline std::uint8_t finish(std::uint32_t sign, int code, Fp8Overflow overflow) {
  if (code > static_cast<int>(kMaxCode)) {
    return overflow == Fp8Overflow::Saturate ? static_cast<std::uint8_t>(sign << 7 | kMaxCode)
                                             : kFp8NaN;
  }
  if (code == 0) return 0;  // no -0
  return static_cast<std::uint8_t>(sign << 7 | static_cast<std::uint32_t>(code));
}

// A normal fp32 input as sign, 24-bit significand and exponent (see split()).
struct Split {
  std::uint32_t sign;
  std::uint32_t sig;  // 24-bit significand of |x| (implicit bit set)
  int e;              // |x| in [2^e, 2^(e+1))
};

}  // namespace

std::string_view to_string(Fp8Kind kind) { return kind == Fp8Kind::Fp8 ? "Fp8" : "Bf8"; }

float f32_from_fp8(std::uint8_t bits, Fp8Kind kind) {
  if (bits == kFp8NaN) return std::bit_cast<float>(kF32QuietNaN);
  const Fp8Format fmt = fp8_format(kind);
  const int frac = fmt.mantissa_bits;
  const std::uint32_t sign = static_cast<std::uint32_t>(bits >> 7) << 31;
  const std::uint32_t ef = (bits & 0x7Fu) >> frac;
  std::uint32_t man = bits & ((1u << frac) - 1u);
  if (ef == 0 && man == 0) return 0.0f;  // 0x00 (0x80 was handled)
  int e = static_cast<int>(ef) - fmt.bias;
  if (ef == 0) {
    // Subnormal m * 2^(emin - F): normalise so the leading 1 becomes the implicit bit.
    const int lead = std::bit_width(man) - 1;  // 0 .. F-1
    e = fmt.emin - (frac - lead);
    man = (man << (frac - lead)) & ((1u << frac) - 1u);
  }
  const std::uint32_t out = sign | static_cast<std::uint32_t>(e + 127) << 23 | man << (23 - frac);
  return std::bit_cast<float>(out);
}

namespace {

// Returns true and fills `s` for a finite nonzero normal fp32 input; otherwise sets `special`
// to the result for NaN/inf (0x80) or zero/fp32-subnormal (0x00).
inline bool split(float x, Split& s, std::uint8_t& special) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(x);
  const std::uint32_t mag = u & 0x7FFFFFFFu;
  if (mag >= kF32PosInf) {
    special = kFp8NaN;  // NaN and ±inf (header comment)
    return false;
  }
  if (mag < 0x00800000u) {
    special = 0;  // ±0 and fp32 subnormals (< 2^-126): far below half the least fp8 subnormal
    return false;
  }
  s.sign = u >> 31;
  s.sig = (mag & 0x7FFFFFu) | 0x800000u;
  s.e = static_cast<int>(mag >> 23) - 127;
  return true;
}

}  // namespace

std::uint8_t fp8_from_f32_rne(float x, Fp8Kind kind, Fp8Overflow overflow) {
  Split s;
  std::uint8_t special;
  if (!split(x, s, special)) return special;
  const Fp8Format fmt = fp8_format(kind);
  const int frac = fmt.mantissa_bits;
  const int qe = (s.e > fmt.emin ? s.e : fmt.emin) - frac;
  // |x| = sig * 2^(e - 23); bits of sig below 2^qe: sh = qe - (e - 23) >= 23 - F >= 20.
  const int sh = qe - (s.e - 23);
  if (sh >= 25) return 0;  // |x| < 2^(qe-1): below half the quantum, rounds to 0
  const std::uint32_t r0 = s.sig >> sh;
  const std::uint32_t rem = s.sig & ((1u << sh) - 1u);
  const std::uint32_t half = 1u << (sh - 1);
  const std::uint32_t r = r0 + ((rem > half) | ((rem == half) & r0 & 1u));
  return finish(s.sign, encode(qe, fmt.emin, frac, r), overflow);
}

std::uint8_t fp8_from_f32_sr(float x, std::uint32_t random, Fp8Kind kind, Fp8Overflow overflow) {
  Split s;
  std::uint8_t special;
  if (!split(x, s, special)) return special;
  const Fp8Format fmt = fp8_format(kind);
  const int frac = fmt.mantissa_bits;
  const int w = 23 - frac;  // bits below the kept ones after alignment
  const int qe = (s.e > fmt.emin ? s.e : fmt.emin) - frac;
  // Align: shift right by d = max(0, emin - e) (truncating what falls out), so that the low w
  // bits of t are the w bits just below the fp8 quantum.
  const int d = qe - (s.e - 23) - w;
  const std::uint32_t t = d >= 24 ? 0u : s.sig >> d;
  const std::uint32_t r = (t + (random & ((1u << w) - 1u))) >> w;
  return finish(s.sign, encode(qe, fmt.emin, frac, r), overflow);
}

std::uint32_t cvt_pk_fp8_f32(float src0, float src1, std::uint32_t old, bool high_word,
                             Fp8Kind kind, Fp8Overflow overflow) {
  const std::uint32_t lo = fp8_from_f32_rne(src0, kind, overflow);
  const std::uint32_t hi = fp8_from_f32_rne(src1, kind, overflow);
  const std::uint32_t word = lo | hi << 8;
  return high_word ? (old & 0x0000FFFFu) | word << 16 : (old & 0xFFFF0000u) | word;
}

std::uint32_t cvt_sr_fp8_f32(float src0, std::uint32_t random, std::uint32_t old,
                             unsigned byte_sel, Fp8Kind kind, Fp8Overflow overflow) {
  if (byte_sel > 3) throw std::invalid_argument("cvt_sr_fp8_f32: byte_sel must be 0..3");
  const unsigned shift = 8 * byte_sel;
  const std::uint32_t byte = fp8_from_f32_sr(src0, random, kind, overflow);
  return (old & ~(0xFFu << shift)) | byte << shift;
}

float cvt_f32_fp8(std::uint32_t src, unsigned byte_sel, Fp8Kind kind) {
  if (byte_sel > 3) throw std::invalid_argument("cvt_f32_fp8: byte_sel must be 0..3");
  return f32_from_fp8(static_cast<std::uint8_t>(src >> (8 * byte_sel)), kind);
}

std::array<float, 2> cvt_pk_f32_fp8(std::uint32_t src, bool high_word, Fp8Kind kind) {
  const std::uint32_t word = high_word ? src >> 16 : src & 0xFFFFu;
  return {f32_from_fp8(static_cast<std::uint8_t>(word), kind),
          f32_from_fp8(static_cast<std::uint8_t>(word >> 8), kind)};
}

}  // namespace cdna::numerics
