// fp32 <-> bf16 / fp16 conversions and bf16 ULP helpers (contract: numerics/bf16.hpp).
#include "numerics/bf16.hpp"

#include <bit>
#include <cmath>
#include <limits>

namespace cdna::numerics {

std::string_view to_string(Rounding mode) {
  switch (mode) {
    case Rounding::RTNE: return "RTNE";
    case Rounding::RTNA: return "RTNA";
    case Rounding::RTZ: return "RTZ";
  }
  return "?";  // unreachable for valid enumerators
}

std::optional<Rounding> parse_rounding(std::string_view name) {
  auto iequal = [](std::string_view x, std::string_view y) {
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i) {
      char cx = x[i];
      if (cx >= 'a' && cx <= 'z') cx = static_cast<char>(cx - 'a' + 'A');
      if (cx != y[i]) return false;
    }
    return true;
  };
  for (Rounding mode : kAllRoundings) {
    if (iequal(name, to_string(mode))) return mode;
  }
  return std::nullopt;
}

std::uint16_t bf16_from_f32(float x, Rounding mode) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(x);
  // NaN test on the bits, so it holds whatever the floating-point environment.
  const bool nan = (u & 0x7FFFFFFFu) > 0x7F800000u;
  switch (mode) {
    case Rounding::RTNE:
      // No uint32 wrap-around: the largest non-NaN u is 0xFF800000.
      return nan ? std::uint16_t{0x7FFF}
                 : static_cast<std::uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
    case Rounding::RTNA:
      return nan ? std::uint16_t{0x7FFF} : static_cast<std::uint16_t>((u + 0x8000u) >> 16);
    case Rounding::RTZ:
      return static_cast<std::uint16_t>(u >> 16);
  }
  return 0x7FFF;  // unreachable for valid enumerators
}

float f32_from_bf16(std::uint16_t bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

std::uint16_t f16_from_f32_rtne(float x) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(x);
  const auto sign = static_cast<std::uint16_t>((u >> 16) & 0x8000u);
  const std::uint32_t exp = (u >> 23) & 0xFFu;
  const std::uint32_t man = u & 0x7FFFFFu;
  if (exp == 0xFF) {
    if (man == 0) return static_cast<std::uint16_t>(sign | 0x7C00u);
    // Quiet bit set, upper payload bits kept (IEEE 754-2019 §6.2.3 recommends preserving
    // what fits; x86 F16C does the same).
    return static_cast<std::uint16_t>(sign | 0x7E00u | (man >> 13));
  }
  // |x| = sig * 2^(e - 23) with sig < 2^24 (fp32 subnormals: exponent -126, no hidden bit).
  const std::uint32_t sig = exp == 0 ? man : (man | 0x800000u);
  const int e = exp == 0 ? -126 : static_cast<int>(exp) - 127;
  // fp16 quantum at this magnitude: 2^(e-10) for normals, 2^-24 below 2^-14.
  const int quantum_exp = (e < -14 ? -14 : e) - 10;
  const int shift = quantum_exp - (e - 23);  // >= 13
  std::uint32_t q;
  if (shift >= 32) {
    q = 0;  // below 2^-25 (half the least subnormal): rounds to zero
  } else {
    q = sig >> shift;
    const std::uint32_t rem = sig & ((1u << shift) - 1u);
    const std::uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1u))) ++q;
  }
  // q * 2^quantum_exp; the encoding of a value with quantum 2^(qe) is (qe + 24) << 10 plus q,
  // which also absorbs a carry into the next binade (q == 2^11) and subnormal -> normal.
  if (q == 0) return sign;
  const std::uint32_t bits = (static_cast<std::uint32_t>(quantum_exp + 24) << 10) + q;
  if (bits >= 0x7C00u) return static_cast<std::uint16_t>(sign | 0x7C00u);  // overflow -> inf
  return static_cast<std::uint16_t>(sign | bits);
}

float f32_from_f16(std::uint16_t bits) {
  const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
  const std::uint32_t exp = (bits >> 10) & 0x1Fu;
  const std::uint32_t man = bits & 0x3FFu;
  if (exp == 0x1F) {
    return std::bit_cast<float>(sign | 0x7F800000u | (man << 13));
  }
  if (exp == 0) {
    // man * 2^-24 is exact in fp32.
    const float mag = std::ldexp(static_cast<float>(man), -24);
    return sign ? -mag : mag;
  }
  return std::bit_cast<float>(sign | ((exp + 112u) << 23) | (man << 13));
}

double bf16_ulp(double x) {
  if (std::isnan(x)) return std::numeric_limits<double>::quiet_NaN();
  if (std::isinf(x)) return std::numeric_limits<double>::infinity();
  if (x == 0.0) return std::ldexp(1.0, -133);
  const int e = std::ilogb(x);  // exact binade of x, also for double subnormals
  if (e < -126) return std::ldexp(1.0, -133);
  return std::ldexp(1.0, e - 7);
}

double bf16_ulp_distance(std::uint16_t bf16_bits, double x) {
  const double v = static_cast<double>(f32_from_bf16(bf16_bits));
  const bool v_special = std::isnan(v) || std::isinf(v);
  const bool x_special = std::isnan(x) || std::isinf(x);
  if (v_special || x_special) {
    const bool same = (std::isnan(v) && std::isnan(x)) || v == x;
    return same ? 0.0 : std::numeric_limits<double>::infinity();
  }
  // The ULP is a power of two, so the division is exact; |v - x| carries one double rounding.
  return std::fabs(v - x) / bf16_ulp(x);
}

}  // namespace cdna::numerics
