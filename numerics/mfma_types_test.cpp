// The MFMA models for fp8/bf8, xf32, i8, f32 and f64 inputs (numerics/mfma.hpp): hand-derived
// cases (each expected value is derived in its comment) and agreement with the naive MPFR
// model (mfma_naive_model.cpp) on random and adversarial blocks.
//
// Agreement volume (all in the default run, the naive model being fast): fp8 650,000 blocks of
// 16 (all four kind combinations), xf32 300,000 blocks of 4, f32 40,000 and f64 30,000
// sequential dots, i8 40,000 dots: about 1.06 * 10^6 blocks, about 6 s on the 2-core machine.
#include "numerics/mfma.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "numerics/mfma_naive_model.hpp"

namespace cdna::numerics {
namespace {

namespace naive = testing;

using Bytes = std::vector<std::uint8_t>;
constexpr Fp8Kind kFp8 = Fp8Kind::Fp8;
constexpr Fp8Kind kBf8 = Fp8Kind::Bf8;
constexpr std::uint32_t kF32NaN = 0x7FC00000u;

float f32(std::uint32_t bits) { return std::bit_cast<float>(bits); }
std::uint32_t bits_of(float x) { return std::bit_cast<std::uint32_t>(x); }
double f64(std::uint64_t bits) { return std::bit_cast<double>(bits); }
std::uint64_t bits_of(double x) { return std::bit_cast<std::uint64_t>(x); }
float p2f(int e) { return std::ldexp(1.0f, e); }
double p2d(int e) { return std::ldexp(1.0, e); }

Bytes padded(std::initializer_list<std::uint8_t> head, std::size_t k) {
  Bytes v(head);
  v.resize(k, 0x00);
  return v;
}

std::uint32_t fp8_dot(const Bytes& a, Fp8Kind ak, const Bytes& b, Fp8Kind bk, std::uint32_t c) {
  return bits_of(mfma_dot_fp8(a, ak, b, bk, f32(c)));
}

// ---- fp8 / bf8: hand-derived ----
// Fp8 (E4M3FNUZ) codes used: 1.0 = 0x40, 32 = 0x68 (field 13), 2^-10 = 0x01 (least subnormal),
// -2^-10 = 0x81, 240 = 0x7F. Bf8 (E5M2FNUZ): 1.0 = 0x40, 2^-12 = 0x10 (field 4).

TEST(MfmaFp8, OddHalfIsFlooredOntoTheCommonExponent) {
  // Even half: 32 * 1 = 2^5, E_even = 5. Odd half: -2^-10 * 2^-10 = -2^-20; both inputs are
  // subnormal, so the product's model exponent is -7 + -7 = -14 = E_odd and the half sum is
  // exact. E = 5: the odd sum is floored to a multiple of 2^(5-24) = 2^-19: floor(-1/2) = -1,
  // i.e. -2^-19. Total 32 - 2^-19, which fp32 holds (binade [16, 32), ULP 2^-19): 0x41FFFFFF.
  // Correctly rounded, 32 - 2^-20 is a tie that goes to 32 (0x42000000).
  EXPECT_EQ(fp8_dot(padded({0x68, 0x81}, 16), kFp8, padded({0x40, 0x01}, 16), kFp8, 0u),
            0x41FFFFFFu);
  // The same tiny product in the even half (position 2): it is truncated toward zero to the
  // 2^-19 grid inside the half, i.e. to 0: total 32 (0x42000000).
  EXPECT_EQ(fp8_dot(padded({0x68, 0x00, 0x81}, 16), kFp8, padded({0x40, 0x00, 0x01}, 16), kFp8,
                    0u),
            0x42000000u);
  // A positive tiny odd product floors to 0: 32 exactly.
  EXPECT_EQ(fp8_dot(padded({0x68, 0x01}, 16), kFp8, padded({0x40, 0x01}, 16), kFp8, 0u),
            0x42000000u);
}

TEST(MfmaFp8, SmallAccumulatorIsDropped) {
  // 1 * 1: E = 0, M = 0. c = -2^-25 (0xB3000000): e_c = -25 = M - 25, kept, floored to the
  // 2^-24 grid: -2^-24. Total 1 - 2^-24 = 0x3F7FFFFF (exact; correctly rounded 1 - 2^-25 would
  // tie to 1.0).
  EXPECT_EQ(fp8_dot(padded({0x40}, 16), kFp8, padded({0x40}, 16), kFp8, 0xB3000000u),
            0x3F7FFFFFu);
  // c = -2^-26 (0xB2800000): e_c = -26 < M - 25, dropped entirely: 1.0.
  EXPECT_EQ(fp8_dot(padded({0x40}, 16), kFp8, padded({0x40}, 16), kFp8, 0xB2800000u),
            0x3F800000u);
  // The bf16 model has no drop rule: there -2^-26 floors to -2^-24 and gives 0x3F7FFFFF.
  const std::vector<std::uint16_t> one{0x3F80};
  EXPECT_EQ(bits_of(mfma_dot_bf16(one, one, f32(0xB2800000u))), 0x3F7FFFFFu);
  // A large c is kept and the products are floored onto its grid instead: c = 2^30, product
  // -(2^-10 * 2^-10): E = -14, M = 30, the block sum -2^-20 floors to -2^(30-31) = -1/2;
  // 2^30 - 1/2 rounds (fp32 ULP 64 there) to 2^30: 0x4E800000.
  EXPECT_EQ(fp8_dot(padded({0x81}, 16), kFp8, padded({0x01}, 16), kFp8, 0x4E800000u),
            0x4E800000u);
}

TEST(MfmaFp8, BlocksOf16) {
  // Bf8 x Bf8, k = 32. Block 1 holds 1*1 and 2^-12 * 2^-12 = 2^-24 (even half; the product's
  // model exponent is -24, on the 2^(0-24) grid exactly): 1 + 2^-24 ties to 1.0. Block 2 holds
  // two 2^-24 products (E = -24): c = 1.0 plus 2^-23 is exact, 1 + 2^-23 = 0x3F800001.
  // All three terms in one block would give 1 + 3 * 2^-24, a tie that goes to 1 + 2^-22.
  const Bytes a = padded({0x40, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                          0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x10},
                         32);
  EXPECT_EQ(fp8_dot(a, kBf8, a, kBf8, 0u), 0x3F800001u);
  // k = 16 with the three small products at 2, 10 and 12: one block, 1 + 3 * 2^-24 ties to
  // 1 + 2^-22 (0x3F800002). (Blocks of 8 would give 1.0, then 1 + 2^-23.)
  const Bytes b = padded({0x40, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10,
                          0x00, 0x10},
                         16);
  EXPECT_EQ(fp8_dot(b, kBf8, b, kBf8, 0u), 0x3F800002u);
  EXPECT_EQ(bits_of(naive::naive_mfma_dot_fp8(a, kBf8, a, kBf8, 0.0f)), 0x3F800001u);
  EXPECT_EQ(bits_of(naive::naive_mfma_dot_fp8(b, kBf8, b, kBf8, 0.0f)), 0x3F800002u);
}

TEST(MfmaFp8, KindsAreDecodedPerOperand) {
  // 0x48 is 2.0 as Fp8 (field 9) and 4.0 as Bf8 (field 18); 0x44 is 1.5 as Fp8 (field 8,
  // m = 4) and 2.0 as Bf8 (field 17, m = 0). Products: 3, 4, 6, 8.
  const Bytes a{0x48}, b{0x44};
  EXPECT_EQ(mfma_dot_fp8(a, kFp8, b, kFp8, 0.0f), 3.0f);
  EXPECT_EQ(mfma_dot_fp8(a, kFp8, b, kBf8, 0.0f), 4.0f);
  EXPECT_EQ(mfma_dot_fp8(a, kBf8, b, kFp8, 0.0f), 6.0f);
  EXPECT_EQ(mfma_dot_fp8(a, kBf8, b, kBf8, 0.0f), 8.0f);
  // Largest magnitudes: 240 * 57344 = 13762560 = 105 * 2^17, exact in fp32: 0x4B520000.
  EXPECT_EQ(fp8_dot({0x7F}, kFp8, {0x7F}, kBf8, 0u), 0x4B520000u);
  // Least subnormals: 2^-10 * 2^-10 = 2^-20 (0x35800000); Bf8: 2^-17 * 2^-17 = 2^-34
  // (0x2E800000).
  EXPECT_EQ(fp8_dot({0x01}, kFp8, {0x01}, kFp8, 0u), 0x35800000u);
  EXPECT_EQ(fp8_dot({0x01}, kBf8, {0x01}, kBf8, 0u), 0x2E800000u);
}

TEST(MfmaFp8, SpecialValuesAndShapes) {
  Bytes a(16, 0x40), b(16, 0x40);
  a[5] = 0x80;  // NaN
  EXPECT_EQ(fp8_dot(a, kFp8, b, kBf8, 0u), kF32NaN);
  EXPECT_EQ(fp8_dot(b, kBf8, a, kFp8, 0x7F800000u), kF32NaN);       // NaN beats an infinite c
  EXPECT_EQ(fp8_dot(b, kFp8, b, kFp8, 0xFF800000u), 0xFF800000u);   // -inf c stays
  EXPECT_EQ(fp8_dot(b, kFp8, b, kFp8, 0x7FC00001u), kF32NaN);       // NaN c
  // Sum of 16 * 240 * 240 = 921600 plus c = max fp32: rounds back to max (ULP there 2^104).
  const Bytes m(16, 0x7F);
  EXPECT_EQ(fp8_dot(m, kFp8, m, kFp8, 0x7F7FFFFFu), 0x7F7FFFFFu);
  // A zero total is +0: 1*1 + (-1).
  EXPECT_EQ(fp8_dot({0x40}, kFp8, {0x40}, kFp8, 0xBF800000u), 0x00000000u);
  // k = 0 returns c unchanged; mismatched lengths throw.
  EXPECT_EQ(fp8_dot({}, kFp8, {}, kFp8, 0x12345678u), 0x12345678u);
  EXPECT_THROW(mfma_dot_fp8(Bytes(16), kFp8, Bytes(15), kFp8, 0.0f), std::invalid_argument);
  // The naive model reproduces every hand-derived case of this file's fp8 part.
  EXPECT_EQ(bits_of(naive::naive_mfma_dot_fp8(padded({0x68, 0x81}, 16), kFp8,
                                              padded({0x40, 0x01}, 16), kFp8, 0.0f)),
            0x41FFFFFFu);
  EXPECT_EQ(bits_of(naive::naive_mfma_dot_fp8(padded({0x40}, 16), kFp8, padded({0x40}, 16), kFp8,
                                              f32(0xB2800000u))),
            0x3F800000u);
}

// ---- xf32: hand-derived ----

TEST(MfmaXf32, InputsAreTruncatedToTf32) {
  // a = 1 + 2^-10 + 2^-12 (0x3F802800): clearing the low 13 bits leaves 1 + 2^-10
  // (0x3F802000); times 1: 0x3F802000. (fp32 arithmetic would give 0x3F802800.)
  EXPECT_EQ(bits_of(mfma_dot_xf32(std::vector<float>{f32(0x3F802800u)}, std::vector<float>{1.0f},
                                  0.0f)),
            0x3F802000u);
  // Truncation is toward zero for negative inputs too: -(1 + 2^-10 + 2^-12) -> -(1 + 2^-10).
  EXPECT_EQ(bits_of(mfma_dot_xf32(std::vector<float>{f32(0xBF802800u)}, std::vector<float>{1.0f},
                                  0.0f)),
            0xBF802000u);
  // A subnormal with payload only in the low 13 bits becomes 0: the result is c.
  EXPECT_EQ(bits_of(mfma_dot_xf32(std::vector<float>{f32(0x00001FFFu)},
                                  std::vector<float>{1.0f}, 0.25f)),
            0x3E800000u);
  // 0x00002001 -> 0x00002000 = 2^13 * 2^-149 = 2^-136; times 2^10: 2^-126 = 0x00800000.
  EXPECT_EQ(bits_of(mfma_dot_xf32(std::vector<float>{f32(0x00002001u)},
                                  std::vector<float>{1024.0f}, 0.0f)),
            0x00800000u);
}

TEST(MfmaXf32, BlocksOf4) {
  // k = 8: 1 + 2^-24 in each block of 4 rounds (tie) to 1.0: 0x3F800000. Both 2^-24 terms in
  // one block: 1 + 2^-23 = 0x3F800001.
  const std::vector<float> ones(8, 1.0f);
  EXPECT_EQ(bits_of(mfma_dot_xf32(std::vector<float>{1, p2f(-24), 0, 0, p2f(-24), 0, 0, 0}, ones,
                                  0.0f)),
            0x3F800000u);
  EXPECT_EQ(bits_of(mfma_dot_xf32(std::vector<float>{1, p2f(-24), p2f(-24), 0, 0, 0, 0, 0}, ones,
                                  0.0f)),
            0x3F800001u);
  // The worked example E1' of cdna3-facts.md with tf32 inputs: 2*2 - (1 + 2^-23). E = 2 = M;
  // c floored to a multiple of 2^(2-24) is -(1 + 2^-22); 4 - 1 - 2^-22 = 3 - 2^-22, exact in
  // fp32 (ULP 2^-22 in [2, 4)): 0x403FFFFF.
  EXPECT_EQ(bits_of(mfma_dot_xf32(std::vector<float>{2.0f}, std::vector<float>{2.0f},
                                  f32(0xBF800001u))),
            0x403FFFFFu);
}

TEST(MfmaXf32, SpecialValues) {
  const std::vector<float> one{1.0f};
  // 0x7F800001 (a NaN with payload only in the cleared bits) truncates to +inf (documented).
  EXPECT_EQ(bits_of(mfma_dot_xf32(std::vector<float>{f32(0x7F800001u)}, one, 0.0f)), 0x7F800000u);
  EXPECT_EQ(bits_of(mfma_dot_xf32(std::vector<float>{f32(0x7FC00000u)}, one, 0.0f)), kF32NaN);
  // 2^127 * 2 = 2^128: an infinite product.
  EXPECT_EQ(bits_of(mfma_dot_xf32(std::vector<float>{p2f(127)}, std::vector<float>{2.0f}, 0.0f)),
            0x7F800000u);
  EXPECT_EQ(bits_of(mfma_dot_xf32(std::vector<float>{INFINITY, -INFINITY},
                                  std::vector<float>{1.0f, 1.0f}, 0.0f)),
            kF32NaN);
  EXPECT_THROW(mfma_dot_xf32(std::vector<float>(4), std::vector<float>(3), 0.0f),
               std::invalid_argument);
}

// ---- i8: hand-derived ----

TEST(MfmaI8, ExactSumsWrapOrSaturate) {
  using V = std::vector<std::int8_t>;
  // 127*127 + (-128)*(-128) = 16129 + 16384 = 32513.
  EXPECT_EQ(mfma_dot_i8(V{127, -128}, V{127, -128}, 0), 32513);
  // 32 * (-128)*(-128) = 524288.
  EXPECT_EQ(mfma_dot_i8(V(32, -128), V(32, -128), 0), 524288);
  // INT32_MAX + 1: wraps to INT32_MIN, saturates at INT32_MAX.
  constexpr std::int32_t kMax = std::numeric_limits<std::int32_t>::max();
  constexpr std::int32_t kMin = std::numeric_limits<std::int32_t>::min();
  EXPECT_EQ(mfma_dot_i8(V{1}, V{1}, kMax), kMin);
  EXPECT_EQ(mfma_dot_i8(V{1}, V{1}, kMax, I8Overflow::Saturate), kMax);
  // INT32_MIN + 32 * (-128 * 127) = -2^31 - 520192: wraps to 2^31 - 520192 = 2146963456.
  EXPECT_EQ(mfma_dot_i8(V(32, -128), V(32, 127), kMin), 2146963456);
  EXPECT_EQ(mfma_dot_i8(V(32, -128), V(32, 127), kMin, I8Overflow::Saturate), kMin);
  // An intermediate excursion does not matter (exact sum): MAX + 1 - 1 = MAX in both modes.
  EXPECT_EQ(mfma_dot_i8(V{1, 1}, V{1, -1}, kMax, I8Overflow::Saturate), kMax);
  EXPECT_EQ(mfma_dot_i8(V{}, V{}, -7), -7);
  EXPECT_THROW(mfma_dot_i8(V(2), V(1), 0), std::invalid_argument);
}

// ---- f32: hand-derived ----

TEST(MfmaF32, SequentialFmaRoundsEachStep) {
  const std::vector<float> ones{1.0f, 1.0f};
  // 1 + 2^-24 ties to 1.0 at each of the two steps: 1.0 (0x3F800000); one rounding of the
  // exact 1 + 2^-23 would give 0x3F800001.
  EXPECT_EQ(bits_of(mfma_dot_f32(std::vector<float>{p2f(-24), p2f(-24)}, ones, 1.0f, false)),
            0x3F800000u);
  // Fused: (1 + 2^-23)^2 - (1 + 2^-22) = 2^-46 exactly (0x28800000); a separately rounded
  // product (1 + 2^-22) would give 0.
  const std::vector<float> a{f32(0x3F800001u)};
  EXPECT_EQ(bits_of(mfma_dot_f32(a, a, f32(0xBF800002u), false)), 0x28800000u);
}

TEST(MfmaF32, DenormalModes) {
  // Subnormal input 2^-127 (0x00400000) times 2^10: kept, 2^-117 = 0x05000000; flushed, +0.
  const std::vector<float> sub{f32(0x00400000u)}, k1024{1024.0f};
  EXPECT_EQ(bits_of(mfma_dot_f32(sub, k1024, 0.0f, false)), 0x05000000u);
  EXPECT_EQ(bits_of(mfma_dot_f32(sub, k1024, 0.0f, true)), 0x00000000u);
  // Subnormal result 2^-63 * 2^-64 = 2^-127: kept 0x00400000; flushed to a zero of its sign.
  EXPECT_EQ(bits_of(mfma_dot_f32(std::vector<float>{p2f(-63)}, std::vector<float>{p2f(-64)},
                                 0.0f, false)),
            0x00400000u);
  EXPECT_EQ(bits_of(mfma_dot_f32(std::vector<float>{-p2f(-63)}, std::vector<float>{p2f(-64)},
                                 0.0f, true)),
            0x80000000u);
  // Subnormal c: 0*0 + 2^-149 = 2^-149 (kept); flushed, +0 + +0 = +0. With c = -2^-149 and a
  // product -0: flushed c is -0, and -0 + -0 = -0.
  const std::vector<float> zero{0.0f}, negzero{-0.0f};
  EXPECT_EQ(bits_of(mfma_dot_f32(zero, zero, f32(0x00000001u), false)), 0x00000001u);
  EXPECT_EQ(bits_of(mfma_dot_f32(zero, zero, f32(0x00000001u), true)), 0x00000000u);
  EXPECT_EQ(bits_of(mfma_dot_f32(negzero, zero, f32(0x80000001u), true)), 0x80000000u);
  EXPECT_EQ(bits_of(mfma_dot_f32(zero, zero, f32(0x80000001u), true)), 0x00000000u);
}

TEST(MfmaF32, SpecialValues) {
  EXPECT_EQ(bits_of(mfma_dot_f32(std::vector<float>{f32(0x7F800123u)}, std::vector<float>{1.0f},
                                 0.0f, false)),
            kF32NaN);  // canonical NaN
  EXPECT_EQ(bits_of(mfma_dot_f32(std::vector<float>{INFINITY}, std::vector<float>{1.0f},
                                 -INFINITY, false)),
            kF32NaN);
  EXPECT_EQ(bits_of(mfma_dot_f32(std::vector<float>{p2f(127)}, std::vector<float>{2.0f}, 0.0f,
                                 true)),
            0x7F800000u);
  EXPECT_THROW(mfma_dot_f32(std::vector<float>(1), std::vector<float>(2), 0.0f, false),
               std::invalid_argument);
}

// ---- f64: hand-derived ----

TEST(MfmaF64, SequentialFmaDenormalsKept) {
  // 1 + 2^-53 ties to 1.0 twice: 0x3FF0000000000000.
  EXPECT_EQ(bits_of(mfma_dot_f64(std::vector<double>{p2d(-53), p2d(-53)},
                                 std::vector<double>{1.0, 1.0}, 1.0)),
            0x3FF0000000000000u);
  // (1 + 2^-52)^2 - (1 + 2^-51) = 2^-104: biased exponent 919 = 0x397.
  const std::vector<double> a{1.0 + p2d(-52)};
  EXPECT_EQ(bits_of(mfma_dot_f64(a, a, -(1.0 + p2d(-51)))), 0x3970000000000000u);
  // 2^-1000 * 2^-70 = 2^-1070 = 2^4 * 2^-1074: subnormal pattern 0x10.
  EXPECT_EQ(bits_of(mfma_dot_f64(std::vector<double>{p2d(-1000)}, std::vector<double>{p2d(-70)},
                                 0.0)),
            0x10u);
  EXPECT_EQ(bits_of(mfma_dot_f64(std::vector<double>{f64(0x7FF0000000000001u)},
                                 std::vector<double>{1.0}, 0.0)),
            0x7FF8000000000000u);
  EXPECT_THROW(mfma_dot_f64(std::vector<double>(1), std::vector<double>(2), 0.0),
               std::invalid_argument);
}

// The second implementation must reproduce the hand-derived values too, or its agreement means
// nothing (a selection across types; the fp8 ones are checked next to their cases above).
TEST(MfmaNaiveModel, ReproducesHandDerivedCases) {
  EXPECT_EQ(bits_of(naive::naive_mfma_dot_fp8(padded({0x68, 0x00, 0x81}, 16), kFp8,
                                              padded({0x40, 0x00, 0x01}, 16), kFp8, 0.0f)),
            0x42000000u);
  EXPECT_EQ(bits_of(naive::naive_mfma_dot_fp8(padded({0x40}, 16), kFp8, padded({0x40}, 16), kFp8,
                                              f32(0xB3000000u))),
            0x3F7FFFFFu);
  EXPECT_EQ(bits_of(naive::naive_mfma_dot_xf32({f32(0x3F802800u)}, {1.0f}, 0.0f)), 0x3F802000u);
  EXPECT_EQ(bits_of(naive::naive_mfma_dot_xf32({1, p2f(-24), 0, 0, p2f(-24), 0, 0, 0},
                                               std::vector<float>(8, 1.0f), 0.0f)),
            0x3F800000u);
  EXPECT_EQ(bits_of(naive::naive_mfma_dot_xf32({2.0f}, {2.0f}, f32(0xBF800001u))), 0x403FFFFFu);
  EXPECT_EQ(bits_of(naive::naive_mfma_dot_xf32({f32(0x7F800001u)}, {1.0f}, 0.0f)), 0x7F800000u);
  EXPECT_EQ(naive::naive_mfma_dot_i8(std::vector<std::int8_t>(32, -128),
                                     std::vector<std::int8_t>(32, 127),
                                     std::numeric_limits<std::int32_t>::min(), false),
            2146963456);
  EXPECT_EQ(bits_of(naive::naive_mfma_dot_f32({p2f(-24), p2f(-24)}, {1.0f, 1.0f}, 1.0f, false)),
            0x3F800000u);
  EXPECT_EQ(bits_of(naive::naive_mfma_dot_f32({f32(0x3F800001u)}, {f32(0x3F800001u)},
                                              f32(0xBF800002u), false)),
            0x28800000u);
  EXPECT_EQ(bits_of(naive::naive_mfma_dot_f32({-p2f(-63)}, {p2f(-64)}, 0.0f, true)), 0x80000000u);
  EXPECT_EQ(bits_of(naive::naive_mfma_dot_f32({-0.0f}, {0.0f}, f32(0x80000001u), true)),
            0x80000000u);
  EXPECT_EQ(bits_of(naive::naive_mfma_dot_f64({1.0 + p2d(-52)}, {1.0 + p2d(-52)},
                                              -(1.0 + p2d(-51)))),
            0x3970000000000000u);
  EXPECT_EQ(bits_of(naive::naive_mfma_dot_f64({p2d(-1000)}, {p2d(-70)}, 0.0)), 0x10u);
}

// ---- agreement with the naive model ----

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : g_(seed) {}
  std::uint64_t uniform(std::uint64_t lo, std::uint64_t hi) {
    return std::uniform_int_distribution<std::uint64_t>(lo, hi)(g_);
  }
  int uniform_int(int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(g_);
  }
  bool coin(int one_in = 2) { return uniform(0, static_cast<std::uint64_t>(one_in - 1)) == 0; }
  std::uint32_t bits32() { return static_cast<std::uint32_t>(g_()); }
  std::uint64_t bits64() { return g_(); }

 private:
  std::mt19937_64 g_;
};

// An fp32 accumulator: ±0, subnormal, or a normal with exponent e (clamped to the fp32 range)
// and a random (often odd) mantissa.
std::uint32_t accumulator(Rng& r, int e) {
  const std::uint32_t sign = r.coin() ? 0x80000000u : 0u;
  std::uint32_t man = r.bits32() & 0x7FFFFFu;
  if (r.coin(4)) man |= 1u;
  const int roll = r.uniform_int(0, 99);
  if (roll < 8) return sign;
  if (roll < 13) return sign | man;
  return sign | static_cast<std::uint32_t>(std::clamp(e + 127, 1, 254)) << 23 | man;
}

std::string hex_list(const Bytes& v) {
  std::string s;
  char buf[8];
  for (std::uint8_t x : v) {
    std::snprintf(buf, sizeof buf, "%02x ", x);
    s += buf;
  }
  return s;
}

// ---- fp8 ----

struct Fp8Case {
  Bytes a, b;
  Fp8Kind ak, bk;
  std::uint32_t c;
};

std::uint8_t fp8_element(Rng& r, Fp8Kind kind, int center, int spread) {
  const int max_field = kind == kFp8 ? 15 : 31;
  const int frac = kind == kFp8 ? 3 : 2;
  const std::uint32_t sign = r.coin() ? 0x80u : 0u;
  const auto man = static_cast<std::uint32_t>(r.uniform(0, (1u << frac) - 1));
  const int roll = r.uniform_int(0, 99);
  if (roll < 7) return 0x00;
  if (roll < 13) return man == 0 ? 0x00 : static_cast<std::uint8_t>(sign | man);  // subnormal
  const int lo = std::clamp(center - spread, 1, max_field);
  const int hi = std::clamp(center + spread, 1, max_field);
  const auto field = static_cast<std::uint32_t>(r.uniform_int(lo, hi));
  return static_cast<std::uint8_t>(sign | field << frac | man);
}

Fp8Case fp8_case(Rng& r) {
  Fp8Case cs;
  cs.ak = r.coin() ? kFp8 : kBf8;
  cs.bk = r.coin() ? kFp8 : kBf8;
  const std::size_t ks[] = {1, 2, 3, 5, 8, 15, 16, 16, 16, 16, 17, 32, 32, 32, 48};
  const std::size_t k = ks[r.uniform(0, std::size(ks) - 1)];
  const int scenario = r.uniform_int(0, 9);
  const int spreads[] = {0, 1, 2, 4, 8, 31};
  const int spread = spreads[r.uniform(0, std::size(spreads) - 1)];
  const int a_center = r.uniform_int(1, cs.ak == kFp8 ? 15 : 31);
  const int b_center = r.uniform_int(1, cs.bk == kFp8 ? 15 : 31);
  cs.a.resize(k);
  cs.b.resize(k);
  for (std::size_t j = 0; j < k; ++j) {
    cs.a[j] = fp8_element(r, cs.ak, a_center, spread);
    cs.b[j] = fp8_element(r, cs.bk, b_center, spread);
  }
  if (scenario == 1 || scenario == 2) {
    // Cancellation: scenario 1 pairs neighbours (one product in each half), scenario 2 pairs
    // j with j + 2 (both in one half); sometimes one code off.
    const std::size_t step = scenario == 1 ? 1 : 2;
    for (std::size_t j = step; j < k; j += 2 * step) {
      if (cs.a[j - step] == 0) continue;  // 0 ^ 0x80 would be the NaN
      cs.a[j] = static_cast<std::uint8_t>(cs.a[j - step] ^ 0x80u);
      cs.b[j] = cs.b[j - step];
      if (r.coin(3) && (cs.a[j] & 0x7Fu) > 1 && (cs.a[j] & 0x7Fu) < 0x7F) {
        cs.a[j] = static_cast<std::uint8_t>(cs.a[j] + (r.coin() ? 1 : -1));
      }
    }
  }
  // The exponent of the largest product magnitude, to place c relative to it.
  double pmax = 0;
  for (std::size_t j = 0; j < k; ++j) {
    const double p = std::fabs(naive::naive_fp8_value(cs.a[j], cs.ak) *
                               naive::naive_fp8_value(cs.b[j], cs.bk));
    if (!std::isnan(p)) pmax = std::max(pmax, p);
  }
  const int e_p = pmax > 0 ? std::ilogb(pmax) : -30;
  int offset = r.uniform_int(-45, 45);
  if (scenario == 3) offset = r.uniform_int(-6, 6);       // comparable magnitudes
  if (scenario == 4) offset = r.uniform_int(-28, -22);    // around the drop threshold
  if (scenario == 5) offset = r.uniform_int(20, 27);      // products near c's ULP: ties
  cs.c = accumulator(r, e_p + offset);
  if (scenario == 6) cs.c = accumulator(r, r.uniform_int(120, 127));  // overflow edge
  if (scenario == 9 && r.coin(3)) {
    if (r.coin()) {
      (r.coin() ? cs.a : cs.b)[r.uniform(0, k - 1)] = 0x80;
    } else {
      const std::uint32_t specials[] = {0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC00001u};
      cs.c = specials[r.uniform(0, 3)];
    }
  }
  return cs;
}

std::size_t agree_fp8(std::uint64_t seed, std::size_t min_blocks) {
  Rng r(seed);
  std::size_t blocks = 0, failures = 0;
  while (blocks < min_blocks) {
    const Fp8Case cs = fp8_case(r);
    blocks += std::max<std::size_t>(1, (cs.a.size() + 15) / 16);
    const std::uint32_t got = fp8_dot(cs.a, cs.ak, cs.b, cs.bk, cs.c);
    const std::uint32_t want =
        bits_of(naive::naive_mfma_dot_fp8(cs.a, cs.ak, cs.b, cs.bk, f32(cs.c)));
    const bool both_nan = std::isnan(f32(got)) && std::isnan(f32(want));
    if (got != want && !both_nan && ++failures <= 10) {
      ADD_FAILURE() << to_string(cs.ak) << "x" << to_string(cs.bk) << " a=[" << hex_list(cs.a)
                    << "] b=[" << hex_list(cs.b) << "] c=0x" << std::hex << cs.c << " got 0x"
                    << got << " want 0x" << want;
    }
  }
  EXPECT_EQ(failures, 0u);
  return blocks;
}

TEST(MfmaAgreement, Fp8AllKindCombinations) {
  EXPECT_GE(agree_fp8(101, 650000), 650000u);
}

// ---- xf32 ----

float f32_element(Rng& r, int center, int spread) {
  const std::uint32_t sign = r.coin() ? 0x80000000u : 0u;
  const std::uint32_t man = r.bits32() & 0x7FFFFFu;
  const int roll = r.uniform_int(0, 99);
  if (roll < 7) return f32(sign);
  if (roll < 12) return f32(sign | man);  // subnormal (or zero)
  const int lo = std::clamp(center - spread, 1, 254), hi = std::clamp(center + spread, 1, 254);
  return f32(sign | static_cast<std::uint32_t>(r.uniform_int(lo, hi)) << 23 | man);
}

struct F32Case {
  std::vector<float> a, b;
  std::uint32_t c;
};

// Shared by xf32 and f32: exponent windows around a centre for a, around 1 for b; pairwise
// cancellation; c placed relative to the products; exact ties; specials.
F32Case f32_case(Rng& r, const std::size_t* ks, std::size_t nks, bool underflow_bias) {
  F32Case cs;
  const std::size_t k = ks[r.uniform(0, nks - 1)];
  const int scenario = r.uniform_int(0, 9);
  const int spreads[] = {0, 1, 3, 8, 12, 30};
  const int spread = spreads[r.uniform(0, std::size(spreads) - 1)];
  int center = r.uniform_int(1, 254);
  if (scenario == 8) center = r.uniform_int(230, 254);                 // overflow edge
  if (scenario == 7 && underflow_bias) center = r.uniform_int(1, 30);  // results near 2^-126
  cs.a.resize(k);
  cs.b.resize(k);
  for (std::size_t j = 0; j < k; ++j) {
    cs.a[j] = f32_element(r, center, spread);
    cs.b[j] = f32_element(r, 127, scenario == 7 ? 2 : spread);
  }
  if (scenario == 1) {
    for (std::size_t j = 1; j < k; j += 2) {
      cs.a[j] = -cs.a[j - 1];
      cs.b[j] = cs.b[j - 1];
      if (r.coin()) cs.a[j] = std::nextafter(cs.a[j], r.coin() ? 1e30f : -1e30f);
    }
  }
  int offset = r.uniform_int(-40, 40);
  if (scenario == 3) offset = r.uniform_int(-6, 6);
  if (scenario == 8) offset = r.uniform_int(-2, 2);
  cs.c = accumulator(r, center - 127 + offset);
  if (scenario == 2) {
    // Exact ties: c plus products ±2^(e_c - 24 - s), s in {0, 1, 2}, from powers of two.
    const int e_c = r.uniform_int(-100, 100);
    cs.c = (r.coin() ? 0x80000000u : 0u) | static_cast<std::uint32_t>(e_c + 127) << 23 |
           (r.bits32() & 0x7FFFFFu);
    std::fill(cs.a.begin(), cs.a.end(), 0.0f);
    std::fill(cs.b.begin(), cs.b.end(), 0.0f);
    for (std::size_t j = 0; j < std::min<std::size_t>(k, 4); ++j) {
      const int t = e_c - 24 - r.uniform_int(0, 2);
      cs.a[j] = (r.coin() ? -1.0f : 1.0f) * p2f(t / 2);
      cs.b[j] = p2f(t - t / 2);
    }
  }
  if (scenario == 9 && r.coin(3)) {
    const float specials[] = {INFINITY, -INFINITY, f32(0x7FC00000u), f32(0x7F800001u),
                              f32(0xFF801FFFu), f32(0x7FA00000u), 0.0f};
    (r.coin() ? cs.a : cs.b)[r.uniform(0, k - 1)] = specials[r.uniform(0, std::size(specials) - 1)];
    if (r.coin(4)) {
      const std::uint32_t c_specials[] = {0x7F800000u, 0xFF800000u, 0x7FC00000u};
      cs.c = c_specials[r.uniform(0, 2)];
    }
  }
  return cs;
}

std::string float_list(const std::vector<float>& v) {
  std::string s;
  char buf[16];
  for (float x : v) {
    std::snprintf(buf, sizeof buf, "%08x ", bits_of(x));
    s += buf;
  }
  return s;
}

TEST(MfmaAgreement, Xf32) {
  Rng r(202);
  const std::size_t ks[] = {1, 2, 3, 4, 4, 4, 5, 8, 8, 12, 16};
  std::size_t blocks = 0, failures = 0;
  while (blocks < 300000) {
    const F32Case cs = f32_case(r, ks, std::size(ks), false);
    blocks += (cs.a.size() + 3) / 4;
    const std::uint32_t got = bits_of(mfma_dot_xf32(cs.a, cs.b, f32(cs.c)));
    const std::uint32_t want = bits_of(naive::naive_mfma_dot_xf32(cs.a, cs.b, f32(cs.c)));
    const bool both_nan = std::isnan(f32(got)) && std::isnan(f32(want));
    if (got != want && !both_nan && ++failures <= 10) {
      ADD_FAILURE() << "a=[" << float_list(cs.a) << "] b=[" << float_list(cs.b) << "] c=0x"
                    << std::hex << cs.c << " got 0x" << got << " want 0x" << want;
    }
  }
  EXPECT_EQ(failures, 0u);
}

// ---- f32 ----

TEST(MfmaAgreement, F32BothDenormalModes) {
  Rng r(303);
  const std::size_t ks[] = {1, 1, 2, 2, 4};
  std::size_t cases = 0, failures = 0;
  while (cases < 40000) {
    const F32Case cs = f32_case(r, ks, std::size(ks), true);
    for (bool flush : {false, true}) {
      ++cases;
      const std::uint32_t got = bits_of(mfma_dot_f32(cs.a, cs.b, f32(cs.c), flush));
      const std::uint32_t want = bits_of(naive::naive_mfma_dot_f32(cs.a, cs.b, f32(cs.c), flush));
      const bool both_nan = std::isnan(f32(got)) && std::isnan(f32(want));
      if (got != want && !both_nan && ++failures <= 10) {
        ADD_FAILURE() << "flush=" << flush << " a=[" << float_list(cs.a) << "] b=["
                      << float_list(cs.b) << "] c=0x" << std::hex << cs.c << " got 0x" << got
                      << " want 0x" << want;
      }
    }
  }
  EXPECT_EQ(failures, 0u);
}

// ---- f64 ----

double f64_element(Rng& r, int center, int spread) {
  const std::uint64_t sign = r.coin() ? 0x8000000000000000u : 0u;
  const std::uint64_t man = r.bits64() & 0xFFFFFFFFFFFFFu;
  const int roll = r.uniform_int(0, 99);
  if (roll < 7) return f64(sign);
  if (roll < 12) return f64(sign | man);
  const int lo = std::clamp(center - spread, 1, 2046), hi = std::clamp(center + spread, 1, 2046);
  return f64(sign | static_cast<std::uint64_t>(r.uniform_int(lo, hi)) << 52 | man);
}

TEST(MfmaAgreement, F64) {
  Rng r(404);
  std::size_t cases = 0, failures = 0;
  while (cases < 30000) {
    ++cases;
    const std::size_t k = r.coin() ? 1 : (r.coin() ? 2 : 4);
    const int scenario = r.uniform_int(0, 9);
    const int spreads[] = {0, 2, 10, 60, 400};
    const int spread = spreads[r.uniform(0, std::size(spreads) - 1)];
    int center = r.uniform_int(1, 2046);
    if (scenario == 7) center = r.uniform_int(1, 60);  // subnormal results
    if (scenario == 8) center = r.uniform_int(2000, 2046);
    std::vector<double> a(k), b(k);
    for (std::size_t j = 0; j < k; ++j) {
      a[j] = f64_element(r, center, spread);
      b[j] = f64_element(r, 1023, scenario == 7 ? 2 : spread);
    }
    const int e_c = std::clamp(center - 1023 + r.uniform_int(-60, 60), -1022, 1023);
    const double frac = std::ldexp(static_cast<double>(r.bits64() >> 12), -52);  // [0, 1)
    double c = (r.coin() ? -1.0 : 1.0) * std::ldexp(1.0 + frac, e_c);
    if (scenario == 2) {  // exact ties: c + ±2^(e_c - 53 - s)
      std::fill(a.begin(), a.end(), 0.0);
      for (std::size_t j = 0; j < k; ++j) {
        const int t = e_c - 53 - r.uniform_int(0, 2);
        a[j] = (r.coin() ? -1.0 : 1.0) * p2d(t / 2);
        b[j] = p2d(t - t / 2);
      }
    }
    if (scenario == 3) c = r.coin() ? 0.0 : -0.0;
    if (scenario == 9 && r.coin(3)) {
      const double specials[] = {INFINITY, -INFINITY, f64(0x7FF8000000000000u),
                                 f64(0x7FF0000000000001u), 0.0};
      (r.coin() ? a : b)[r.uniform(0, k - 1)] = specials[r.uniform(0, std::size(specials) - 1)];
      if (r.coin(4)) c = r.coin() ? INFINITY : -INFINITY;
    }
    const std::uint64_t got = bits_of(mfma_dot_f64(a, b, c));
    const std::uint64_t want = bits_of(naive::naive_mfma_dot_f64(a, b, c));
    const bool both_nan = std::isnan(f64(got)) && std::isnan(f64(want));
    if (got != want && !both_nan && ++failures <= 10) {
      ADD_FAILURE() << std::hex << "a0=0x" << bits_of(a[0]) << " b0=0x" << bits_of(b[0])
                    << " c=0x" << bits_of(c) << " got 0x" << got << " want 0x" << want;
    }
  }
  EXPECT_EQ(failures, 0u);
}

// ---- i8 ----

TEST(MfmaAgreement, I8BothOverflowModes) {
  Rng r(505);
  std::size_t cases = 0, failures = 0;
  constexpr std::int64_t kMax = std::numeric_limits<std::int32_t>::max();
  while (cases < 40000) {
    const std::size_t ks[] = {1, 4, 16, 32};
    const std::size_t k = ks[r.uniform(0, 3)];
    std::vector<std::int8_t> a(k), b(k);
    const bool extreme = r.coin(5);
    for (std::size_t j = 0; j < k; ++j) {
      a[j] = static_cast<std::int8_t>(extreme ? (r.coin() ? -128 : 127) : r.uniform_int(-128, 127));
      b[j] = static_cast<std::int8_t>(extreme ? (r.coin() ? -128 : 127) : r.uniform_int(-128, 127));
    }
    std::int32_t c = static_cast<std::int32_t>(r.bits32());
    if (r.coin(3)) {  // near either limit, so the sum crosses it about half the time
      const std::int64_t near = (r.coin() ? kMax : -kMax - 1) + r.uniform_int(-600000, 600000);
      c = static_cast<std::int32_t>(std::clamp<std::int64_t>(near, -kMax - 1, kMax));
    }
    for (bool sat : {false, true}) {
      ++cases;
      const std::int32_t got =
          mfma_dot_i8(a, b, c, sat ? I8Overflow::Saturate : I8Overflow::Wrap);
      const std::int32_t want = naive::naive_mfma_dot_i8(a, b, c, sat);
      if (got != want && ++failures <= 10) {
        ADD_FAILURE() << "k=" << k << " c=" << c << " sat=" << sat << " got " << got << " want "
                      << want;
      }
    }
  }
  EXPECT_EQ(failures, 0u);
}

}  // namespace
}  // namespace cdna::numerics
