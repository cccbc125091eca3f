// The sparse MFMA element (numerics/smfmac.hpp): hand-derived cases for the 4:2 gather, and
// agreement with the naive MPFR model (mfma_naive_model.hpp, naive_smfmac_*) on random and
// adversarial blocks: every input type of the gfx942 v_smfmac_* (f16, bf16, the four fp8/bf8
// kind pairs, i8) at both stored lengths (K/2 = 16 and 8 for f16/bf16, 32 and 16 for 8-bit),
// random indices including repeated and descending ones within a group.
//
// Volume: CDNA_SMFMAC_BLOCKS blocks of the dense model (bf16/f16: 8 products, fp8: 16 products,
// i8: one dot), 240,000 in the default run (2.5 s wall, 0.8 s CPU on the loaded 2-core
// machine) and 1,200,000 (12 s wall, 4 s CPU) in
// the `slow`-labelled build numerics_smfmac_long_test.
#include "numerics/smfmac.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "numerics/mfma_naive_model.hpp"

#ifndef CDNA_SMFMAC_BLOCKS
#define CDNA_SMFMAC_BLOCKS 240000
#endif

namespace cdna::numerics {
namespace {

namespace naive = testing;
using Sel = std::vector<std::uint8_t>;

std::uint32_t bits_of(float x) { return std::bit_cast<std::uint32_t>(x); }
float f32(std::uint32_t u) { return std::bit_cast<float>(u); }
bool same(float x, float y) { return bits_of(x) == bits_of(y) || (std::isnan(x) && std::isnan(y)); }

// ---- hand-derived cases ----

TEST(Smfmac, GatherPicksTheIndexedBEntry) {
  // bf16 1.0 = 0x3F80, 2.0 = 0x4000. Stored a = {1, 1} for group 0 with indices {3, 1}:
  // products 1*b[3] + 1*b[1] with b = {0, 2, 0, 4}: 2 + 4 = 6 (exact, 0x40C00000).
  const std::vector<std::uint16_t> a = {0x3F80, 0x3F80};
  const std::vector<std::uint16_t> b = {0x0000, 0x4000, 0x0000, 0x4080};
  const Sel sel = {3, 1};
  EXPECT_EQ(bits_of(smfmac_dot_bf16(a, sel, b, 0.0f)), 0x40C00000u);
  EXPECT_EQ(bits_of(naive::naive_smfmac_dot(naive::InputFormat::Bf16, a, sel, b, 0.0f)), 0x40C00000u);
  // Same index twice: both stored entries multiply b[1]: 2 + 2 = 4 (0x40800000).
  EXPECT_EQ(bits_of(smfmac_dot_bf16(a, Sel{1, 1}, b, 0.0f)), 0x40800000u);
}

TEST(Smfmac, GroupsAdvanceByFourDenseK) {
  // i8: a = {1, 2, 3, 4} (two groups), sel = {0, 2, 1, 3}: 1*b[0] + 2*b[2] + 3*b[5] + 4*b[7]
  // with b[k] = k + 1: 1 + 6 + 18 + 32 = 57, plus c = 100.
  const std::vector<std::int8_t> a = {1, 2, 3, 4}, b = {1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_EQ(smfmac_dot_i8(a, Sel{0, 2, 1, 3}, b, 100), 157);
  EXPECT_EQ(naive::naive_smfmac_dot_i8(a, Sel{0, 2, 1, 3}, b, 100), 157);
}

TEST(Smfmac, ProductsFormBlocksInStoredOrder) {
  // f16, 16 stored entries, all indices 0, b = 1 (0x3C00) everywhere. a[0] = 2^10 (0x6400),
  // a[1..8] = 2^-14 (0x0400), the rest 0. Gathered, the products form two blocks of 8.
  // Block 1: E = 10, the seven 2^-14 are multiples of 2^(E-24) and kept: 2^10 + 7*2^-14; the
  // fp32 ulp at 2^10 is 2^-13, so this is 3.5 ulp above 2^10: the tie goes to even, 4 ulp:
  // 2^10 + 2^-11 = 0x44800004. Block 2: the product 2^-14 (0.5 ulp) plus c = 0x44800004 (both on
  // the 2^(10-31) and 2^(10-24) grids) is 4.5 ulp: tie to even, 4 ulp: 0x44800004.
  std::vector<std::uint16_t> a(16, 0), b(32, 0x3C00);
  a[0] = 0x6400;
  for (int e = 1; e <= 8; ++e) a[static_cast<std::size_t>(e)] = 0x0400;
  const Sel sel(16, 0);
  EXPECT_EQ(bits_of(smfmac_dot_f16(a, sel, b, 0.0f)), 0x44800004u);
  EXPECT_EQ(bits_of(naive::naive_smfmac_dot(naive::InputFormat::F16, a, sel, b, 0.0f)), 0x44800004u);
}

TEST(Smfmac, ShapeErrors) {
  const std::vector<std::uint16_t> a(4, 0), b(8, 0), short_b(6, 0);
  EXPECT_THROW(smfmac_dot_f16(a, Sel(4, 0), short_b, 0.0f), std::invalid_argument);
  EXPECT_THROW(smfmac_dot_f16(a, Sel(3, 0), b, 0.0f), std::invalid_argument);
  EXPECT_THROW(smfmac_dot_f16(a, Sel{0, 1, 2, 4}, b, 0.0f), std::invalid_argument);
}

// ---- agreement with the naive model ----

class Gen {
 public:
  explicit Gen(std::uint64_t seed) : g_(seed) {}
  std::uint64_t uniform(std::uint64_t lo, std::uint64_t hi) {
    return std::uniform_int_distribution<std::uint64_t>(lo, hi)(g_);
  }
  bool coin(std::uint64_t one_in = 2) { return uniform(0, one_in - 1) == 0; }

  // Indices: random (repeats allowed), or ascending distinct pairs, or descending pairs.
  Sel sel(std::size_t n) {
    Sel s(n);
    const auto mode = uniform(0, 2);
    for (std::size_t e = 0; e < n; e += 2) {
      std::uint8_t x = static_cast<std::uint8_t>(uniform(0, 3)), y = static_cast<std::uint8_t>(uniform(0, 3));
      if (mode == 1 && x == y) y = static_cast<std::uint8_t>((x + 1) % 4);
      if (mode == 1 && x > y) std::swap(x, y);
      if (mode == 2 && x < y) std::swap(x, y);
      s[e] = x;
      s[e + 1] = y;
    }
    return s;
  }

  // A 16-bit pattern of `frac` fraction bits and `emax` max biased exponent, around `center`.
  std::uint16_t half(int frac, int emax, int center, int spread, bool specials) {
    const std::uint32_t sign = coin() ? 0x8000u : 0u;
    const std::uint32_t man = static_cast<std::uint32_t>(uniform(0, (1u << frac) - 1));
    const auto roll = uniform(0, 99);
    if (roll < 8) return static_cast<std::uint16_t>(sign);
    if (roll < 14) return static_cast<std::uint16_t>(sign | man);
    if (specials && roll < 16) {  // inf or NaN
      const std::uint32_t payload = coin() ? 0u : 1u << (frac - 1);
      return static_cast<std::uint16_t>(sign | static_cast<std::uint32_t>(emax + 1) << frac | payload);
    }
    const auto lo = static_cast<std::uint64_t>(std::max(1, center - spread));
    const auto hi = static_cast<std::uint64_t>(std::min(emax, center + spread));
    return static_cast<std::uint16_t>(sign | static_cast<std::uint32_t>(uniform(lo, hi)) << frac | man);
  }

  // Accumulator: zero, subnormal, or a normal around 2^e_center; rarely inf/NaN.
  float acc(int e_center, bool specials) {
    const std::uint32_t sign = coin() ? 0x80000000u : 0u;
    const std::uint32_t man = static_cast<std::uint32_t>(uniform(0, 0x7FFFFF)) | (coin() ? 1u : 0u);
    const auto roll = uniform(0, 99);
    if (roll < 8) return f32(sign);
    if (roll < 13) return f32(sign | man);
    if (specials && roll < 15) return f32(coin() ? 0x7FC00000u : sign | 0x7F800000u);
    const int e = std::clamp(e_center + static_cast<int>(uniform(0, 60)) - 30, -126, 127);
    return f32(sign | static_cast<std::uint32_t>(e + 127) << 23 | man);
  }

 private:
  std::mt19937_64 g_;
};

std::string hex_list(const auto& v) {
  std::string s;
  char buf[16];
  for (auto x : v) {
    std::snprintf(buf, sizeof buf, "%x ", static_cast<unsigned>(x) & 0xffffu);
    s += buf;
  }
  return s;
}

// Runs `blocks` dense-model blocks of f16 (bf16 = false) or bf16.
void agree_16bit(bool bf, std::uint64_t seed, std::size_t target) {
  Gen r(seed);
  const int frac = bf ? 7 : 10, emax = bf ? 254 : 30, bias = bf ? 127 : 15;
  std::size_t blocks = 0, failures = 0;
  while (blocks < target) {
    const std::size_t n = r.coin() ? 16 : 8;  // 16x16x32 and 32x32x16 store K/2 = 16 and 8
    const int scenario = static_cast<int>(r.uniform(0, 5));
    const int spreads[] = {0, 2, 6, 12, 30};
    const int spread = spreads[r.uniform(0, 4)];
    const int center = scenario == 4 && bf ? static_cast<int>(r.uniform(235, 254))
                                           : static_cast<int>(r.uniform(1, static_cast<std::uint64_t>(emax)));
    std::vector<std::uint16_t> a(n), b(2 * n);
    for (auto& x : a) x = r.half(frac, emax, center, spread, scenario == 5);
    for (auto& x : b) x = r.half(frac, emax, bias, spread, scenario == 5);
    const Sel sel = r.sel(n);
    if (scenario == 1)  // cancellation: the second entry of each group negates the first
      for (std::size_t e = 1; e < n; e += 2) {
        a[e] = static_cast<std::uint16_t>(a[e - 1] ^ 0x8000u);
        b[4 * (e / 2) + sel[e]] = b[4 * (e / 2) + sel[e - 1]];
      }
    const float c = r.acc(center - bias, scenario == 5);
    const auto fmt = bf ? naive::InputFormat::Bf16 : naive::InputFormat::F16;
    const float want = naive::naive_smfmac_dot(fmt, a, sel, b, c);
    const float got = bf ? smfmac_dot_bf16(a, sel, b, c) : smfmac_dot_f16(a, sel, b, c);
    blocks += n / 8;
    if (!same(got, want) && ++failures <= 10)
      ADD_FAILURE() << "a=[" << hex_list(a) << "] sel=[" << hex_list(sel) << "] b=[" << hex_list(b)
                    << "] c=" << std::hex << bits_of(c) << " got " << bits_of(got) << " want " << bits_of(want);
  }
  EXPECT_EQ(failures, 0u);
}

TEST(SmfmacAgreement, F16) { agree_16bit(false, 11, CDNA_SMFMAC_BLOCKS / 4); }
TEST(SmfmacAgreement, Bf16) { agree_16bit(true, 12, CDNA_SMFMAC_BLOCKS / 4); }

TEST(SmfmacAgreement, Fp8AllKindPairs) {
  Gen r(13);
  std::size_t blocks = 0, failures = 0;
  const std::size_t target = CDNA_SMFMAC_BLOCKS * 3 / 8;
  while (blocks < target) {
    const std::size_t n = r.coin() ? 32 : 16;  // 16x16x64 and 32x32x32 store K/2 = 32 and 16
    const Fp8Kind ka = r.coin() ? Fp8Kind::Fp8 : Fp8Kind::Bf8, kb = r.coin() ? Fp8Kind::Fp8 : Fp8Kind::Bf8;
    const bool nan_ok = r.coin(20);
    std::vector<std::uint8_t> a(n), b(2 * n);
    // Whole-range codes (subnormals, zeros, both signs), or a narrow exponent window.
    const bool narrow = r.coin();
    const auto base = static_cast<std::uint8_t>(r.uniform(0, 0x70));
    auto code = [&]() {
      std::uint8_t x = narrow ? static_cast<std::uint8_t>((base + r.uniform(0, 15)) | (r.coin() ? 0x80 : 0))
                              : static_cast<std::uint8_t>(r.uniform(0, 255));
      if (x == 0x80 && !nan_ok) x = 0;  // 0x80 is the FNUZ NaN
      return x;
    };
    for (auto& x : a) x = code();
    for (auto& x : b) x = code();
    const Sel sel = r.sel(n);
    const float c = r.acc(static_cast<int>(r.uniform(0, 40)) - 20, nan_ok);
    const float want = naive::naive_smfmac_dot_fp8(a, ka, sel, b, kb, c);
    const float got = smfmac_dot_fp8(a, ka, sel, b, kb, c);
    blocks += n / 16;
    if (!same(got, want) && ++failures <= 10)
      ADD_FAILURE() << "a=[" << hex_list(a) << "] sel=[" << hex_list(sel) << "] b=[" << hex_list(b)
                    << "] c=" << std::hex << bits_of(c) << " got " << bits_of(got) << " want " << bits_of(want);
  }
  EXPECT_EQ(failures, 0u);
}

TEST(SmfmacAgreement, I8) {
  Gen r(14);
  std::size_t failures = 0;
  for (std::size_t done = 0; done < CDNA_SMFMAC_BLOCKS / 8; ++done) {
    const std::size_t n = r.coin() ? 32 : 16;
    std::vector<std::int8_t> a(n), b(2 * n);
    const bool extreme = r.coin(4);  // all -128 / 127: the largest sums, wrap of c near the edge
    auto any = [&] { return static_cast<std::int8_t>(static_cast<int>(r.uniform(0, 255)) - 128); };
    for (auto& x : a) x = extreme ? static_cast<std::int8_t>(r.coin() ? -128 : 127) : any();
    for (auto& x : b) x = extreme ? std::int8_t{-128} : any();
    const Sel sel = r.sel(n);
    const auto c = static_cast<std::int32_t>(static_cast<std::uint32_t>(r.uniform(0, 0xFFFFFFFFu)));
    if (smfmac_dot_i8(a, sel, b, c) != naive::naive_smfmac_dot_i8(a, sel, b, c) && ++failures <= 10)
      ADD_FAILURE() << "i8 mismatch a=[" << hex_list(a) << "] sel=[" << hex_list(sel) << "]";
  }
  EXPECT_EQ(failures, 0u);
}

}  // namespace
}  // namespace cdna::numerics
