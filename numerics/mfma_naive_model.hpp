// Test-only second implementation of the MFMA models (cdna3-facts.md §4) for every CDNA3 input
// type, and of the fp8/bf8 conversions (numerics/fp8.hpp), written deliberately naively: every
// value is an exact MPFR number (or, for i8, an int64) and every step of a model is one MPFR
// operation on values (not bits), so it shares no code or tricks with numerics/mfma.cpp or
// numerics/fp8.cpp. The conventions mfma.hpp and fp8.hpp document for unpublished details are
// reproduced as stated there.
#pragma once

#include <cstdint>
#include <vector>

#include "numerics/fp8.hpp"  // the Fp8Kind enum only: no conversion code is shared

namespace cdna::numerics::testing {

enum class InputFormat { Bf16, F16 };

// d = c + sum a[k]*b[k] under the block model; a and b are bit patterns of equal length.
float naive_mfma_dot(InputFormat format, const std::vector<std::uint16_t>& a,
                     const std::vector<std::uint16_t>& b, float c);

// ---- The other CDNA3 MFMA input types (models and conventions: numerics/mfma.hpp) ----

// fp8/bf8 inputs: blocks of 16, even/odd half sums, the c drop rule; inputs decoded with the
// hand formula of naive_fp8_value.
float naive_mfma_dot_fp8(const std::vector<std::uint8_t>& a, Fp8Kind a_kind,
                         const std::vector<std::uint8_t>& b, Fp8Kind b_kind, float c);
// xf32: each input truncated toward zero to an 11-bit significand (tf32), then the bf16 model
// with blocks of 4.
float naive_mfma_dot_xf32(const std::vector<float>& a, const std::vector<float>& b, float c);
// i8: the exact sum in int64, then reduced modulo 2^32 or clamped.
std::int32_t naive_mfma_dot_i8(const std::vector<std::int8_t>& a,
                               const std::vector<std::int8_t>& b, std::int32_t c,
                               bool saturate);
// f32: one exact MPFR multiply-add per k, rounded to fp32 nearest even; flush as documented.
float naive_mfma_dot_f32(const std::vector<float>& a, const std::vector<float>& b, float c,
                         bool flush_denormals);
// f64: one exact MPFR multiply-add per k, rounded to binary64 nearest even.
double naive_mfma_dot_f64(const std::vector<double>& a, const std::vector<double>& b, double c);

// ---- sparse v_smfmac_* (numerics/smfmac.hpp): A stored 4:2 compressed ----
// For every group g of 4 dense k, the two stored entries a[2g], a[2g+1] multiply b[4g + sel[2g]]
// and b[4g + sel[2g+1]]; those K/2 pairs, in stored order, go through the naive dense model of
// the type above. |a| = |sel| = K/2, |b| = K, sel in 0..3 (std::invalid_argument otherwise).
float naive_smfmac_dot(InputFormat format, const std::vector<std::uint16_t>& a,
                       const std::vector<std::uint8_t>& sel, const std::vector<std::uint16_t>& b,
                       float c);
float naive_smfmac_dot_fp8(const std::vector<std::uint8_t>& a, Fp8Kind a_kind,
                           const std::vector<std::uint8_t>& sel,
                           const std::vector<std::uint8_t>& b, Fp8Kind b_kind, float c);
std::int32_t naive_smfmac_dot_i8(const std::vector<std::int8_t>& a,
                                 const std::vector<std::uint8_t>& sel,
                                 const std::vector<std::int8_t>& b, std::int32_t c);

// ---- fp8/bf8 conversion oracles (numerics/fp8.hpp), written from the definitions ----

// The value of a pattern from the format's defining formula (NaN for 0x80).
double naive_fp8_value(std::uint8_t bits, Fp8Kind kind);
// Round to nearest even by MPFR, then the code found by searching all codes for that value.
std::uint8_t naive_fp8_from_f32_rne(float x, Fp8Kind kind, bool saturate);
// Stochastic rounding in value terms: floor((floor(|x| 2^W / q) + (random mod 2^W)) / 2^W) q,
// W = 23 - F, q the fp8 quantum at |x|, then the code found by search.
std::uint8_t naive_fp8_from_f32_sr(float x, std::uint32_t random, Fp8Kind kind, bool saturate);

}  // namespace cdna::numerics::testing
