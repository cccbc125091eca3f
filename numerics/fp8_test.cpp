// fp8/bf8 (FNUZ) conversions (numerics/fp8.hpp): hand-derived cases (each expected value is
// derived in its comment), the decode of all 256 codes of both kinds against the defining
// formula, and round-to-nearest-even and stochastic rounding against MPFR oracles written from
// the definitions (mfma_naive_model.cpp) on more than 10^6 inputs each, ties, overflow, NaN,
// infinities and subnormals included. All 2^32 fp32 patterns: fp8_exhaustive_test.cpp.
#include "numerics/fp8.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "numerics/mfma_naive_model.hpp"

namespace cdna::numerics {
namespace {

using testing::naive_fp8_from_f32_rne;
using testing::naive_fp8_from_f32_sr;
using testing::naive_fp8_value;

constexpr Fp8Kind kFp8 = Fp8Kind::Fp8;
constexpr Fp8Kind kBf8 = Fp8Kind::Bf8;
constexpr Fp8Overflow kNaN = Fp8Overflow::ToNaN;
constexpr Fp8Overflow kSat = Fp8Overflow::Saturate;

float f32(std::uint32_t bits) { return std::bit_cast<float>(bits); }
std::uint32_t bits_of(float x) { return std::bit_cast<std::uint32_t>(x); }
float p2(int e) { return std::ldexp(1.0f, e); }

// ---- decode ----

TEST(Fp8Decode, HandDerivedValues) {
  // Fp8 = E4M3FNUZ: s eeee mmm, bias 8; subnormals 2^-7 * m/8.
  EXPECT_EQ(bits_of(f32_from_fp8(0x00, kFp8)), 0u);           // +0
  EXPECT_EQ(bits_of(f32_from_fp8(0x80, kFp8)), 0x7FC00000u);  // the only NaN (pattern chosen)
  EXPECT_EQ(f32_from_fp8(0x01, kFp8), p2(-10));                // 2^-7 * 1/8
  EXPECT_EQ(f32_from_fp8(0x07, kFp8), 7 * p2(-10));            // 2^-7 * 7/8 = 0.0068359375
  EXPECT_EQ(f32_from_fp8(0x08, kFp8), p2(-7));                 // e = 1: least normal
  EXPECT_EQ(f32_from_fp8(0x38, kFp8), 0.5f);                   // e = 7
  EXPECT_EQ(f32_from_fp8(0x40, kFp8), 1.0f);                   // e = 8
  EXPECT_EQ(f32_from_fp8(0x44, kFp8), 1.5f);                   // e = 8, m = 4
  EXPECT_EQ(f32_from_fp8(0x7F, kFp8), 240.0f);                 // e = 15, m = 7: 128 * 1.875
  EXPECT_EQ(f32_from_fp8(0xFF, kFp8), -240.0f);
  EXPECT_EQ(f32_from_fp8(0x81, kFp8), -p2(-10));
  // Bf8 = E5M2FNUZ: s eeeee mm, bias 16; subnormals 2^-15 * m/4.
  EXPECT_EQ(bits_of(f32_from_fp8(0x80, kBf8)), 0x7FC00000u);
  EXPECT_EQ(f32_from_fp8(0x01, kBf8), p2(-17));                // 2^-15 * 1/4
  EXPECT_EQ(f32_from_fp8(0x03, kBf8), 3 * p2(-17));
  EXPECT_EQ(f32_from_fp8(0x04, kBf8), p2(-15));                // e = 1
  EXPECT_EQ(f32_from_fp8(0x3C, kBf8), 0.5f);                   // e = 15
  EXPECT_EQ(f32_from_fp8(0x40, kBf8), 1.0f);                   // e = 16
  EXPECT_EQ(f32_from_fp8(0x7F, kBf8), 57344.0f);               // e = 31, m = 3: 2^15 * 1.75
  EXPECT_EQ(f32_from_fp8(0xC2, kBf8), -1.5f);
}

// Every code of both kinds against the defining formula (naive_fp8_value uses ldexp on
// (1 + m/2^F) and m/2^F, nothing from fp8.cpp).
TEST(Fp8Decode, All256CodesMatchTheFormula) {
  for (Fp8Kind kind : kAllFp8Kinds) {
    for (int code = 0; code < 256; ++code) {
      const auto b = static_cast<std::uint8_t>(code);
      const float got = f32_from_fp8(b, kind);
      const double want = naive_fp8_value(b, kind);
      if (code == 0x80) {
        EXPECT_TRUE(std::isnan(got) && std::isnan(want));
        continue;
      }
      EXPECT_EQ(static_cast<double>(got), want) << to_string(kind) << " code " << code;
      EXPECT_FALSE(code != 0 && got == 0.0f) << "only 0x00 is zero";
    }
  }
}

// The two conversions are consistent: every code except 0x80 survives a round trip through
// fp32 under both roundings (any random value: the fp32 value has no bits below the quantum).
TEST(Fp8Decode, RoundTripOfEveryCode) {
  std::mt19937 rng(7);
  for (Fp8Kind kind : kAllFp8Kinds) {
    for (int code = 0; code < 256; ++code) {
      if (code == 0x80) continue;
      const auto b = static_cast<std::uint8_t>(code);
      const float v = f32_from_fp8(b, kind);
      EXPECT_EQ(fp8_from_f32_rne(v, kind), b);
      EXPECT_EQ(fp8_from_f32_sr(v, static_cast<std::uint32_t>(rng()), kind), b);
      EXPECT_EQ(fp8_from_f32_sr(v, 0xFFFFFFFFu, kind), b);
    }
  }
}

// ---- round to nearest even ----

TEST(Fp8Rne, HandDerivedCases) {
  // Exact values.
  EXPECT_EQ(fp8_from_f32_rne(1.0f, kFp8), 0x40);
  EXPECT_EQ(fp8_from_f32_rne(-2.0f, kFp8), 0xC8);  // e = 9
  EXPECT_EQ(fp8_from_f32_rne(1.0f, kBf8), 0x40);
  // Fp8 quantum at [1, 2) is 1/8. 1 + 1/16 is a tie between 1 (m = 0, even) and 1.125: 0x40.
  EXPECT_EQ(fp8_from_f32_rne(1.0625f, kFp8), 0x40);
  // 1 + 3/16: tie between 1.125 (m = 1, odd) and 1.25 (m = 2): up, 0x42.
  EXPECT_EQ(fp8_from_f32_rne(1.1875f, kFp8), 0x42);
  // Just above the tie 1 + 1/16 goes up: 0x41.
  EXPECT_EQ(fp8_from_f32_rne(std::nextafter(1.0625f, 2.0f), kFp8), 0x41);
  // Bf8 quantum at [1, 2) is 1/4: 1.125 ties to 1.0 (0x40); 1.375 ties up to 1.5 (0x42).
  EXPECT_EQ(fp8_from_f32_rne(1.125f, kBf8), 0x40);
  EXPECT_EQ(fp8_from_f32_rne(1.375f, kBf8), 0x42);
  // Rounding carry into the next binade: 2 - 1/16 ties between 1.875 (m = 7, odd) and 2.0:
  // 2.0 = 0x48.
  EXPECT_EQ(fp8_from_f32_rne(1.9375f, kFp8), 0x48);
  // Subnormals (Fp8 quantum 2^-10 below 2^-7): 2^-11 is a tie between 0 and 2^-10: 0.
  EXPECT_EQ(fp8_from_f32_rne(p2(-11), kFp8), 0x00);
  EXPECT_EQ(fp8_from_f32_rne(std::nextafter(p2(-11), 1.0f), kFp8), 0x01);
  // 3 * 2^-11: tie between 1 and 2 units of 2^-10: 2 (even) = 0x02.
  EXPECT_EQ(fp8_from_f32_rne(3 * p2(-11), kFp8), 0x02);
  // 7.5 * 2^-10: tie between 0x07 (odd) and 8 * 2^-10 = 2^-7, the least normal 0x08.
  EXPECT_EQ(fp8_from_f32_rne(7.5f * p2(-10), kFp8), 0x08);
  // Negative values that round to zero give +0: there is no -0 (0x80 is NaN).
  EXPECT_EQ(fp8_from_f32_rne(-p2(-11), kFp8), 0x00);
  EXPECT_EQ(fp8_from_f32_rne(-0.0f, kFp8), 0x00);
  EXPECT_EQ(fp8_from_f32_rne(-p2(-18), kBf8), 0x00);  // Bf8: 2^-18 ties 0 / 2^-17 -> 0
  EXPECT_EQ(fp8_from_f32_rne(-3 * p2(-18), kBf8), 0x82);  // 1.5 units of 2^-17 -> 2 (even)
  // fp32 subnormals give 0 in every mode.
  EXPECT_EQ(fp8_from_f32_rne(f32(0x00000001u), kFp8), 0x00);
  EXPECT_EQ(fp8_from_f32_rne(f32(0x807FFFFFu), kBf8, kSat), 0x00);
}

TEST(Fp8Rne, OverflowAndSpecials) {
  // Fp8: max 240 = 1.875 * 2^7; the next step would be 256; the midpoint 248 ties to 256
  // (240 has odd m = 7) and overflows; just below 248 rounds to 240.
  EXPECT_EQ(fp8_from_f32_rne(240.0f, kFp8), 0x7F);
  EXPECT_EQ(fp8_from_f32_rne(std::nextafter(248.0f, 0.0f), kFp8), 0x7F);
  EXPECT_EQ(fp8_from_f32_rne(248.0f, kFp8), 0x80);
  EXPECT_EQ(fp8_from_f32_rne(248.0f, kFp8, kSat), 0x7F);
  EXPECT_EQ(fp8_from_f32_rne(-248.0f, kFp8), 0x80);
  EXPECT_EQ(fp8_from_f32_rne(-248.0f, kFp8, kSat), 0xFF);
  EXPECT_EQ(fp8_from_f32_rne(3.0e38f, kFp8, kSat), 0x7F);
  // Bf8: max 57344 = 1.75 * 2^15; midpoint to 65536 is 61440 (ties away from odd m = 3).
  EXPECT_EQ(fp8_from_f32_rne(std::nextafter(61440.0f, 0.0f), kBf8), 0x7F);
  EXPECT_EQ(fp8_from_f32_rne(61440.0f, kBf8), 0x80);
  EXPECT_EQ(fp8_from_f32_rne(-61440.0f, kBf8, kSat), 0xFF);
  // NaN and infinities give 0x80 in both modes (documented choice).
  for (Fp8Overflow ov : {kNaN, kSat}) {
    for (Fp8Kind kind : kAllFp8Kinds) {
      EXPECT_EQ(fp8_from_f32_rne(std::numeric_limits<float>::quiet_NaN(), kind, ov), 0x80);
      EXPECT_EQ(fp8_from_f32_rne(f32(0xFF800001u), kind, ov), 0x80);  // signalling, negative
      EXPECT_EQ(fp8_from_f32_rne(std::numeric_limits<float>::infinity(), kind, ov), 0x80);
      EXPECT_EQ(fp8_from_f32_rne(-std::numeric_limits<float>::infinity(), kind, ov), 0x80);
    }
  }
}

// ---- stochastic rounding ----

TEST(Fp8Sr, HandDerivedCases) {
  // Fp8, x = 1 + 1/16: significand 0x880000, kept bits 0x880000 >> 20 = 8 (1.0), the 20
  // dropped bits 0x80000 (half a quantum). Up (to 1.125 = 0x41) iff (random mod 2^20) +
  // 0x80000 >= 2^20, i.e. random mod 2^20 >= 0x80000. The upper 12 bits are ignored.
  EXPECT_EQ(fp8_from_f32_sr(1.0625f, 0x0007FFFFu, kFp8), 0x40);
  EXPECT_EQ(fp8_from_f32_sr(1.0625f, 0x00080000u, kFp8), 0x41);
  EXPECT_EQ(fp8_from_f32_sr(1.0625f, 0xFFF00000u, kFp8), 0x40);
  EXPECT_EQ(fp8_from_f32_sr(1.0625f, 0xFFF7FFFFu, kFp8), 0x40);
  EXPECT_EQ(fp8_from_f32_sr(-1.0625f, 0x00080000u, kFp8), 0xC1);
  // Bf8, same x: W = 21 dropped bits hold 0x80000 (a quarter quantum); up (to 1.25 = 0x41) iff
  // random mod 2^21 >= 0x200000 - 0x80000 = 0x180000.
  EXPECT_EQ(fp8_from_f32_sr(1.0625f, 0x0017FFFFu, kBf8), 0x40);
  EXPECT_EQ(fp8_from_f32_sr(1.0625f, 0x00180000u, kBf8), 0x41);
  EXPECT_EQ(fp8_from_f32_sr(1.0625f, 0xFFE00000u, kBf8), 0x40);
  // Fp8 subnormal range: x = 2^-12, a quarter of the least subnormal 2^-10. The significand
  // 0x800000 is shifted right by emin - e = -7 + 12 = 5 to 0x40000: up to 0x01 iff
  // random mod 2^20 >= 0xC0000.
  EXPECT_EQ(fp8_from_f32_sr(p2(-12), 0x000BFFFFu, kFp8), 0x00);
  EXPECT_EQ(fp8_from_f32_sr(p2(-12), 0x000C0000u, kFp8), 0x01);
  // The bit shifted out by that alignment is truncated: 2^-12 * (1 + 2^-23) has significand
  // 0x800001 and gives the same 0x40000, so the same threshold.
  EXPECT_EQ(fp8_from_f32_sr(std::nextafter(p2(-12), 1.0f), 0x000BFFFFu, kFp8), 0x00);
  // Overflow: 244 = 1.90625 * 2^7, significand 0xF40000, kept 15 (240), dropped 0x40000; the
  // carry (random mod 2^20 >= 0xC0000) gives 256 > 240: NaN, or 240 when saturating.
  EXPECT_EQ(fp8_from_f32_sr(244.0f, 0x000BFFFFu, kFp8), 0x7F);
  EXPECT_EQ(fp8_from_f32_sr(244.0f, 0x000C0000u, kFp8), 0x80);
  EXPECT_EQ(fp8_from_f32_sr(244.0f, 0x000C0000u, kFp8, kSat), 0x7F);
  EXPECT_EQ(fp8_from_f32_sr(-244.0f, 0x000C0000u, kFp8, kSat), 0xFF);
  // Specials.
  EXPECT_EQ(fp8_from_f32_sr(std::numeric_limits<float>::quiet_NaN(), 0, kFp8), 0x80);
  EXPECT_EQ(fp8_from_f32_sr(std::numeric_limits<float>::infinity(), 0, kBf8, kSat), 0x80);
  EXPECT_EQ(fp8_from_f32_sr(-0.0f, 0xFFFFFFFFu, kFp8), 0x00);
  EXPECT_EQ(fp8_from_f32_sr(f32(0x80000001u), 0xFFFFFFFFu, kBf8), 0x00);  // fp32 subnormal
}

// Exactly unbiased on the W-bit grid: over all 2^W values of the low random bits, the number
// of round-ups equals the dropped fraction in units of 2^-W quanta (so E[result] = x whenever
// x has no bits below that grid).
TEST(Fp8Sr, RoundUpCountEqualsDroppedFraction) {
  struct Case {
    float x;
    Fp8Kind kind;
    std::uint32_t expected_ups;  // dropped bits, derived in the comment
  };
  const Case cases[] = {
      {1.0625f, kFp8, 0x80000},          // 1/16 = half of the 1/8 quantum: 2^19 of 2^20
      {1.0f + 3 * p2(-23), kFp8, 3},     // 3 * 2^-23 = 3 * 2^-20 quanta
      {p2(-12), kFp8, 0x40000},          // a quarter of the subnormal quantum
      {1.0625f, kBf8, 0x80000},          // 1/16 = a quarter of 1/4: 2^19 of 2^21
      {-(3.0f + 0.25f), kBf8, 0x100000},  // 3.25: quantum 1/2 at [2, 4), dropped 1/4 = 2^20
  };
  for (const Case& cs : cases) {
    const int w = cs.kind == kFp8 ? 20 : 21;
    const std::uint8_t down = fp8_from_f32_sr(cs.x, 0, cs.kind);
    std::uint32_t ups = 0;
    for (std::uint32_t r = 0; r < (1u << w); ++r) {
      // Random upper bits must not matter.
      ups += fp8_from_f32_sr(cs.x, r | (r * 2654435761u) << w, cs.kind) != down;
    }
    EXPECT_EQ(ups, cs.expected_ups) << cs.x << " " << to_string(cs.kind);
  }
}

// ---- register-level forms ----

TEST(Fp8Instructions, PackedForms) {
  // fp8(1.0) = 0x40 and fp8(-2.0) = 0xC8: the word is 0xC840 (src1 in the upper byte).
  EXPECT_EQ(cvt_pk_fp8_f32(1.0f, -2.0f, 0xAABBCCDDu, false, kFp8), 0xAABBC840u);
  EXPECT_EQ(cvt_pk_fp8_f32(1.0f, -2.0f, 0xAABBCCDDu, true, kFp8), 0xC840CCDDu);
  EXPECT_EQ(cvt_pk_fp8_f32(248.0f, 1.0f, 0u, false, kFp8), 0x4080u);
  EXPECT_EQ(cvt_pk_fp8_f32(248.0f, 1.0f, 0u, false, kFp8, kSat), 0x407Fu);
  EXPECT_EQ(cvt_sr_fp8_f32(1.0f, 0u, 0x11223344u, 2, kFp8), 0x11403344u);
  EXPECT_EQ(cvt_sr_fp8_f32(1.0625f, 0x80000u, 0x11223344u, 0, kFp8), 0x11223341u);
  EXPECT_EQ(cvt_sr_fp8_f32(1.0f, 0u, 0x11223344u, 3, kBf8), 0x40223344u);
  EXPECT_THROW(cvt_sr_fp8_f32(1.0f, 0u, 0u, 4, kFp8), std::invalid_argument);
  EXPECT_EQ(cvt_f32_fp8(0x7F400000u, 3, kFp8), 240.0f);
  EXPECT_EQ(cvt_f32_fp8(0x7F400000u, 2, kFp8), 1.0f);
  EXPECT_EQ(cvt_f32_fp8(0x7F400000u, 0, kFp8), 0.0f);
  EXPECT_THROW(cvt_f32_fp8(0u, 4, kFp8), std::invalid_argument);
  const auto lo = cvt_pk_f32_fp8(0xC8407F38u, false, kFp8);  // bytes 0x38, 0x7F
  EXPECT_EQ(lo[0], 0.5f);
  EXPECT_EQ(lo[1], 240.0f);
  const auto hi = cvt_pk_f32_fp8(0xC8407F38u, true, kFp8);  // bytes 0x40, 0xC8
  EXPECT_EQ(hi[0], 1.0f);
  EXPECT_EQ(hi[1], -2.0f);
}

// ---- against MPFR ----

// Inputs for the oracle comparisons of one kind: every fp8 midpoint (ties) and its fp32
// neighbours, values around the overflow threshold, random patterns across the whole fp32
// range (overflow, zero, NaN, inf, fp32 subnormals) and random patterns concentrated on the
// exponents that map into the format (subnormal range included).
std::vector<float> oracle_inputs(Fp8Kind kind, std::size_t random_count, std::uint32_t seed) {
  std::vector<float> xs;
  for (int code = 0; code < 0x7F; ++code) {
    const double lo = naive_fp8_value(static_cast<std::uint8_t>(code), kind);
    const double hi = naive_fp8_value(static_cast<std::uint8_t>(code + 1), kind);
    const auto mid = static_cast<float>((lo + hi) / 2);  // exact: few significant bits
    for (float s : {1.0f, -1.0f}) {
      xs.push_back(s * mid);
      xs.push_back(s * std::nextafter(mid, 0.0f));
      xs.push_back(s * std::nextafter(mid, 1e30f));
      xs.push_back(s * static_cast<float>(hi));
    }
  }
  const float max = kind == kFp8 ? 240.0f : 57344.0f;
  const float over = kind == kFp8 ? 248.0f : 61440.0f;
  for (float v : {max, over, 2 * max}) {
    for (float s : {1.0f, -1.0f}) {
      xs.push_back(s * v);
      xs.push_back(s * std::nextafter(v, 0.0f));
      xs.push_back(s * std::nextafter(v, 1e30f));
    }
  }
  for (std::uint32_t u : {0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFFFFFFFu, 0x7F800001u,
                          0x00000001u, 0x80000001u, 0x007FFFFFu, 0x00800000u, 0x80000000u}) {
    xs.push_back(f32(u));
  }
  std::mt19937_64 rng(seed);
  // Exponent fields that reach the format: from below half the least subnormal to above the
  // overflow threshold.
  const int lo_field = kind == kFp8 ? 127 - 14 : 127 - 21;
  const int hi_field = kind == kFp8 ? 127 + 9 : 127 + 17;
  for (std::size_t i = 0; i < random_count; ++i) {
    std::uint32_t u = static_cast<std::uint32_t>(rng());
    if (i % 4 != 0) {  // 3 of 4 in the interesting band
      const auto span = static_cast<std::uint64_t>(hi_field - lo_field + 1);
      const auto field = static_cast<std::uint32_t>(lo_field + static_cast<int>(rng() % span));
      u = (u & 0x807FFFFFu) | field << 23;
      // Short mantissas hit ties and exact values far more often than uniform ones.
      if (i % 8 == 1) u &= 0xFFFF0000u;
    }
    xs.push_back(f32(u));
  }
  return xs;
}

TEST(Fp8Rne, AgreesWithMpfrOnMoreThanAMillionInputs) {
  std::size_t checked = 0;
  for (Fp8Kind kind : kAllFp8Kinds) {
    const std::vector<float> xs = oracle_inputs(kind, 550000, kind == kFp8 ? 11 : 12);
    std::size_t failures = 0;
    for (float x : xs) {
      for (bool sat : {false, true}) {
        const std::uint8_t got = fp8_from_f32_rne(x, kind, sat ? kSat : kNaN);
        const std::uint8_t want = naive_fp8_from_f32_rne(x, kind, sat);
        if (got != want && ++failures <= 10) {
          ADD_FAILURE() << to_string(kind) << " x=0x" << std::hex << bits_of(x) << " sat=" << sat
                        << " got 0x" << int{got} << " want 0x" << int{want};
        }
      }
    }
    EXPECT_EQ(failures, 0u) << to_string(kind);
    checked += xs.size();
  }
  EXPECT_GE(checked, 1000000u);
}

TEST(Fp8Sr, AgreesWithMpfrOnMoreThanAMillionInputs) {
  std::size_t checked = 0;
  for (Fp8Kind kind : kAllFp8Kinds) {
    const std::vector<float> xs = oracle_inputs(kind, 280000, kind == kFp8 ? 21 : 22);
    const int w = kind == kFp8 ? 20 : 21;
    std::mt19937 rng(kind == kFp8 ? 31 : 32);
    std::size_t failures = 0;
    for (float x : xs) {
      // A random value, and the two values either side of this input's round-up threshold
      // (derived here in double: the dropped fraction f of |x| on the 2^-W grid; up iff
      // (random mod 2^W) >= 2^W - f), each with random upper bits.
      std::uint32_t randoms[3] = {static_cast<std::uint32_t>(rng()), 0, 0};
      if (std::isfinite(x) && x != 0) {
        const int bias = kind == kFp8 ? 8 : 16, frac = kind == kFp8 ? 3 : 2;
        const int qexp = std::max(std::ilogb(x), 1 - bias) - frac;
        const double scaled = std::floor(std::ldexp(std::fabs(static_cast<double>(x)), w - qexp));
        const auto f = static_cast<std::uint32_t>(std::fmod(scaled, std::ldexp(1.0, w)));
        const std::uint32_t high = static_cast<std::uint32_t>(rng()) << w;
        randoms[1] = high | (((1u << w) - f) & ((1u << w) - 1u));
        randoms[2] = high | ((randoms[1] - 1u) & ((1u << w) - 1u));
      }
      for (std::uint32_t r : randoms) {
        for (bool sat : {false, true}) {
          const std::uint8_t got = fp8_from_f32_sr(x, r, kind, sat ? kSat : kNaN);
          const std::uint8_t want = naive_fp8_from_f32_sr(x, r, kind, sat);
          if (got != want && ++failures <= 10) {
            ADD_FAILURE() << to_string(kind) << " x=0x" << std::hex << bits_of(x) << " r=0x" << r
                          << " sat=" << sat << " got 0x" << int{got} << " want 0x" << int{want};
          }
        }
        ++checked;
      }
    }
    EXPECT_EQ(failures, 0u) << to_string(kind);
  }
  EXPECT_GE(checked, 1000000u);
}

}  // namespace
}  // namespace cdna::numerics
