// bf16 and fp16 storage formats and the fp32 -> bf16 conversions MI300X kernels use.
//
// Sources: cdna3-facts.md §6 (the integer formulations of RTNE, RTNA, RTZ as AITER's
// `how_v3_bf16_cvt` 0/1/2; gfx942 has no f32->bf16 instruction); IEEE 754-2019 for fp16.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace cdna::numerics {

// bf16 rounding modes of a kernel, numbered as AITER's `how_v3_bf16_cvt`.
enum class Rounding : std::uint8_t { RTNE = 0, RTNA = 1, RTZ = 2 };

inline constexpr Rounding kAllRoundings[] = {Rounding::RTNE, Rounding::RTNA, Rounding::RTZ};

// "RTNE", "RTNA", "RTZ".
std::string_view to_string(Rounding mode);
// Inverse of to_string, case-insensitive; nullopt for anything else.
std::optional<Rounding> parse_rounding(std::string_view name);

// fp32 -> bf16 bit pattern, exactly as the kernels compute it on the fp32 bits u:
//   RTNE: (u + 0x7FFF + ((u >> 16) & 1)) >> 16, NaN -> 0x7FFF
//   RTNA: (u + 0x8000) >> 16,                   NaN -> 0x7FFF
//   RTZ:  u >> 16 (no NaN clean-up: a NaN with payload only in the low 16 bits becomes ±inf)
std::uint16_t bf16_from_f32(float x, Rounding mode);
// bf16 bit pattern -> fp32 (exact).
float f32_from_bf16(std::uint16_t bits);

// fp32 -> fp16 bit pattern, IEEE round to nearest even, subnormals kept, overflow to ±inf,
// NaN -> quiet NaN with the sign kept (and the upper 9 payload bits, as x86 F16C does).
std::uint16_t f16_from_f32_rtne(float x);
// fp16 bit pattern -> fp32 (exact).
float f32_from_f16(std::uint16_t bits);

// Distance in bf16 ULPs between a bf16 value and an exact value x, where one ULP is the
// spacing of bf16 at x (2^(e-7) for |x| in [2^e, 2^(e+1)), 2^-133 below the normal range).
// Returns +inf if either is NaN or inf and they differ, 0 if both are NaN or the same
// infinity. Computed in double: |value - x| carries at most one double rounding.
double bf16_ulp_distance(std::uint16_t bf16_bits, double x);
// The bf16 ULP at x, as above (2^-133 at 0); +inf for ±inf, NaN for NaN.
double bf16_ulp(double x);

}  // namespace cdna::numerics
