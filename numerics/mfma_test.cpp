// The MFMA block model: the worked examples of cdna3-facts.md §4 bit for bit, hand-derived
// edge cases (each expected value is derived in its comment), and agreement with the naive
// MPFR model (mfma_naive_model.cpp) on random and adversarial blocks.
#include "numerics/mfma.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "numerics/mfma_naive_model.hpp"

namespace cdna::numerics {
namespace {

using testing::InputFormat;
using testing::naive_mfma_dot;
using Bits = std::vector<std::uint16_t>;

float f32(std::uint32_t bits) { return std::bit_cast<float>(bits); }
std::uint32_t bits_of(float x) { return std::bit_cast<std::uint32_t>(x); }

std::uint32_t bf16_dot(const Bits& a, const Bits& b, std::uint32_t c) {
  return bits_of(mfma_dot_bf16(a, b, f32(c)));
}
std::uint32_t f16_dot(const Bits& a, const Bits& b, std::uint32_t c) {
  return bits_of(mfma_dot_f16(a, b, f32(c)));
}
std::uint32_t naive_dot(InputFormat f, const Bits& a, const Bits& b, std::uint32_t c) {
  return bits_of(naive_mfma_dot(f, a, b, f32(c)));
}

// bf16 patterns used below (sign | biased exponent << 7 | mantissa).
constexpr std::uint16_t kOne = 0x3F80, kTwo = 0x4000, kZero = 0x0000;
constexpr std::uint16_t kP2m25 = 0x3300;  // 2^-25
constexpr std::uint16_t kP2m24 = 0x3380;  // 2^-24
constexpr std::uint16_t kP2p10 = 0x4480;  // 2^10
constexpr std::uint16_t kP2p127 = 0x7F00;
constexpr std::uint16_t kInf = 0x7F80, kNegInf = 0xFF80, kNaN = 0x7FC0;
constexpr std::uint32_t kF32NaN = 0x7FC00000u;

Bits padded(std::initializer_list<std::uint16_t> head, std::size_t k) {
  Bits v(head);
  v.resize(k, kZero);
  return v;
}

// ---- cdna3-facts.md §4 worked examples ----

struct Example {
  const char* name;
  Bits a, b;
  std::uint32_t c, d;
};

std::vector<Example> worked_examples() {
  return {
      {"E1", padded({kTwo}, 8), padded({kTwo}, 8), 0x3F800001u, 0x40A00000u},
      {"E1'", padded({kTwo}, 8), padded({kTwo}, 8), 0xBF800001u, 0x403FFFFFu},
      {"E2", Bits{kOne, kP2m25, kP2m25, kP2m25, kP2m25, kP2m25, kP2m25, kP2m25}, Bits(8, kOne), 0u,
       0x3F800000u},
      {"E3", padded({kOne, kP2m24, 0, 0, 0, 0, 0, 0, kP2m24}, 16), Bits(16, kOne), 0u, 0x3F800000u},
      {"E4", padded({kP2p10}, 8), Bits(8, kOne), 0xBF800001u, 0x447FBFFFu},
  };
}

TEST(MfmaModel, WorkedExamplesBitForBit) {
  for (const Example& e : worked_examples()) {
    EXPECT_EQ(bf16_dot(e.a, e.b, e.c), e.d) << e.name;
  }
}

// The second implementation must reproduce them too, or its agreement means nothing.
TEST(MfmaModel, NaiveModelReproducesWorkedExamples) {
  for (const Example& e : worked_examples()) {
    EXPECT_EQ(naive_dot(InputFormat::Bf16, e.a, e.b, e.c), e.d) << e.name;
  }
}

// ---- block structure ----

TEST(MfmaModel, ShortKIsOneBlock) {
  // k = 4, one block: E = 0, both 2^-24 products survive truncation to 2^-24, the exact sum
  // 1 + 2^-23 is an fp32 value. (Two blocks would round 1 + 2^-24 to 1 first, as in E3.)
  EXPECT_EQ(bf16_dot({kOne, kP2m24, kP2m24, kZero}, Bits(4, kOne), 0u), 0x3F800001u);
  // The same products split across the two blocks of k = 16 give 1.0 (E3 pattern).
  EXPECT_EQ(bf16_dot(padded({kOne, kP2m24, 0, 0, 0, 0, 0, 0, kP2m24}, 16), Bits(16, kOne), 0u),
            0x3F800000u);
  // k = 1: 2 * 2 + (1 + 2^-23): C is floored to 2^(2-24), result 5.0 (as E1).
  EXPECT_EQ(bf16_dot({kTwo}, {kTwo}, 0x3F800001u), 0x40A00000u);
}

TEST(MfmaModel, EmptyAndMismatchedLengths) {
  EXPECT_EQ(bf16_dot({}, {}, 0x7FC00123u), 0x7FC00123u);  // k = 0 returns c unchanged
  const Bits a(8, kOne), b(7, kOne);
  EXPECT_THROW(mfma_dot_bf16(a, b, 0.0f), std::invalid_argument);
  EXPECT_THROW(mfma_dot_f16(a, b, 0.0f), std::invalid_argument);
}

// ---- subnormals ----

TEST(MfmaModel, SubnormalInputsAreKept) {
  // 2^-133 (least bf16 subnormal) * 1 = 2^-133 = 2^16 * 2^-149: fp32 bits 0x00010000.
  EXPECT_EQ(bf16_dot({0x0001}, {kOne}, 0u), 0x00010000u);
  // Two of them: 2^-132, bits 0x00020000.
  EXPECT_EQ(bf16_dot({0x0001, 0x0001}, {kOne, kOne}, 0u), 0x00020000u);
  // 2^-133 * 2^-133 = 2^-266 is far below the least fp32 subnormal: +0.
  EXPECT_EQ(bf16_dot({0x0001}, {0x0001}, 0u), 0x00000000u);
  // A subnormal C alone passes through: 2^-149.
  EXPECT_EQ(bf16_dot({kZero}, {kOne}, 0x00000001u), 0x00000001u);
  // -2^-149 + 2^-30: M = -30, C floored to 2^-54 becomes -2^-54; 2^-30 - 2^-54 is exact in
  // fp32 (binade 2^-31, ULP 2^-54): exponent field 96, mantissa all ones -> 0x307FFFFF.
  // (Correct rounding would give 2^-30 = 0x30800000.)
  EXPECT_EQ(bf16_dot({0x3080}, {kOne}, 0x80000001u), 0x307FFFFFu);
}

TEST(MfmaModel, ZeroProductCountsWithExponentMinus126) {
  // x = -1.5 * 2^-100 (0x8DC0), y = 2^-50 (0x2680): product -0.75 * 2^-149 with exponent -150.
  // Alone: E = -150, nothing truncated; M = -126; nearest fp32 is -2^-149 (0x80000001).
  EXPECT_EQ(bf16_dot({0x8DC0}, {0x2680}, 0u), 0x80000001u);
  // With a zero product beside it (documented convention, mfma.hpp): E = -126, the product is
  // truncated toward zero to -2^-150, a tie between -0 and -2^-149 that goes to even: -0.
  EXPECT_EQ(bf16_dot({0x8DC0, kZero}, {0x2680, kOne}, 0u), 0x80000000u);
}

TEST(MfmaModel, ZeroTotalIsPositiveZero) {
  // Documented convention: an exactly zero total gives +0, even from -0 + (-0 products).
  EXPECT_EQ(bf16_dot({0x8000}, {kOne}, 0x80000000u), 0x00000000u);
  // 2 * 2 - 4 = 0 exactly.
  EXPECT_EQ(bf16_dot({kTwo}, {kTwo}, 0xC0800000u), 0x00000000u);
}

// ---- sign asymmetry of the floor roundings ----

TEST(MfmaModel, SignAsymmetry) {
  // E1' negated: -(2*2) + (1 + 2^-23). C floored to 2^-22 is 1, total -3 exactly: 0xC0400000,
  // while -(E1') would be -2.9999998 (0xC03FFFFF).
  EXPECT_EQ(bf16_dot(padded({0xC000}, 8), padded({kTwo}, 8), 0x3F800001u), 0xC0400000u);
  // Mirror of the subnormal case: -2^-30 + 2^-149: C floored to 2^-54 is 0, result -2^-30
  // (0xB0800000), not -(0x307FFFFF).
  EXPECT_EQ(bf16_dot({0xB080}, {kOne}, 0x00000001u), 0xB0800000u);
}

// ---- overflow ----

TEST(MfmaModel, OverflowGivesInfinity) {
  // 2^127 * 2 = 2^128: an infinite product.
  EXPECT_EQ(bf16_dot({kP2p127}, {kTwo}, 0u), 0x7F800000u);
  EXPECT_EQ(bf16_dot({kP2p127}, {0xC000}, 0u), 0xFF800000u);
  // Infinite products of both signs: NaN.
  EXPECT_TRUE(std::isnan(f32(bf16_dot({kP2p127, kP2p127}, {kTwo, 0xC000}, 0u))));
  // 2^127 * 1.9921875 < 2^128 stays finite and exact: 0x7F7F0000.
  EXPECT_EQ(bf16_dot({kP2p127}, {0x3FFF}, 0u), 0x7F7F0000u);
  // Two finite products summing past the fp32 range: (2^128 - 2^120) * 2 rounds to inf.
  EXPECT_EQ(bf16_dot({0x7F7F, 0x7F7F}, {kOne, kOne}, 0u), 0x7F800000u);
  // Largest fp32 (odd mantissa) plus half its ULP, 2^103: a tie that goes up, to inf.
  EXPECT_EQ(bf16_dot({0x7300}, {kOne}, 0x7F7FFFFFu), 0x7F800000u);
  // A product just below 2^128 with C = -max stays finite: 2^127*1.9921875 - (2^128 - 2^104).
  EXPECT_FALSE(std::isinf(f32(bf16_dot({kP2p127}, {0x3FFF}, 0xFF7FFFFFu))));
}

// ---- NaN and infinity ----

TEST(MfmaModel, NanPropagation) {
  for (std::size_t pos = 0; pos < 16; ++pos) {
    Bits a(16, kOne), b(16, kOne);
    a[pos] = kNaN;
    EXPECT_EQ(bf16_dot(a, b, 0u), kF32NaN) << "NaN in a at " << pos;
    a[pos] = kOne;
    b[pos] = 0xFFC1;  // negative NaN with payload
    EXPECT_EQ(bf16_dot(a, b, 0u), kF32NaN) << "NaN in b at " << pos;
  }
  EXPECT_EQ(bf16_dot(Bits(16, kOne), Bits(16, kOne), 0xFF800001u), kF32NaN);  // NaN C
  EXPECT_EQ(bf16_dot({kNaN}, {kZero}, 0u), kF32NaN);
  EXPECT_EQ(bf16_dot({kInf}, {kNaN}, 0u), kF32NaN);
}

TEST(MfmaModel, InfinityRules) {
  EXPECT_EQ(bf16_dot({kInf}, {kTwo}, 0u), 0x7F800000u);
  EXPECT_EQ(bf16_dot({kInf}, {0xC000}, 0u), 0xFF800000u);
  EXPECT_EQ(bf16_dot({kNegInf}, {kNegInf}, 0u), 0x7F800000u);
  EXPECT_EQ(bf16_dot({kInf}, {kZero}, 0u), kF32NaN);               // inf * 0
  EXPECT_EQ(bf16_dot({0x8000}, {kNegInf}, 0u), kF32NaN);           // -0 * -inf
  EXPECT_EQ(bf16_dot({kInf, kNegInf}, {kOne, kOne}, 0u), kF32NaN);  // +inf and -inf
  EXPECT_EQ(bf16_dot({kOne}, {kOne}, 0x7F800000u), 0x7F800000u);    // C = +inf stays
  EXPECT_EQ(bf16_dot({kNegInf}, {kOne}, 0x7F800000u), kF32NaN);     // C +inf, product -inf
  // An overflowing finite product is an infinity as well: +inf C and -2^128 give NaN.
  EXPECT_EQ(bf16_dot({kP2p127}, {0xC000}, 0x7F800000u), kF32NaN);
  // Infinity from block 1 is the C of block 2 and survives it.
  EXPECT_EQ(bf16_dot(padded({kInf}, 16), Bits(16, kOne), 0u), 0x7F800000u);
}

// ---- f16 ----

TEST(MfmaModel, F16Variant) {
  constexpr std::uint16_t h1 = 0x3C00, hHalf = 0x3800, hSub = 0x0001;  // 1, 0.5, 2^-24
  // E2 analogue: 1 + 7 * (2^-24 * 0.5): each 2^-25 product is below 2^(0-24) and truncated.
  EXPECT_EQ(f16_dot({h1, hSub, hSub, hSub, hSub, hSub, hSub, hSub},
                    {h1, hHalf, hHalf, hHalf, hHalf, hHalf, hHalf, hHalf}, 0u),
            0x3F800000u);
  // E3 analogue (k = 16): 1 + 2^-24 ties to 1 in block 1, again in block 2.
  EXPECT_EQ(f16_dot(padded({h1, hSub, 0, 0, 0, 0, 0, 0, hSub}, 16), Bits(16, h1), 0u),
            0x3F800000u);
  // One block of 4: 1 + 2 * 2^-24 = 1 + 2^-23 exactly.
  EXPECT_EQ(f16_dot({h1, hSub, hSub, 0}, Bits(4, h1), 0u), 0x3F800001u);
  // Subnormal * subnormal: 2^-48, fp32 exponent field 79 -> 0x27800000.
  EXPECT_EQ(f16_dot({hSub}, {hSub}, 0u), 0x27800000u);
  // 65504^2 = 4290774016 is exact in fp32: 0x4F7FC004.
  EXPECT_EQ(f16_dot({0x7BFF}, {0x7BFF}, 0u), 0x4F7FC004u);
  // E1' analogue with f16 2.0 (0x4000): 4 - (1 + 2^-23) -> 0x403FFFFF.
  EXPECT_EQ(f16_dot({0x4000}, {0x4000}, 0xBF800001u), 0x403FFFFFu);
  // Specials.
  EXPECT_EQ(f16_dot({0x7C00}, {h1}, 0u), 0x7F800000u);
  EXPECT_EQ(f16_dot({0xFC00}, {h1}, 0u), 0xFF800000u);
  EXPECT_EQ(f16_dot({0x7C00}, {0x0000}, 0u), kF32NaN);
  EXPECT_EQ(f16_dot({0x7E00}, {h1}, 0u), kF32NaN);
  EXPECT_EQ(f16_dot({0x7C00, 0xFC00}, {h1, h1}, 0u), kF32NaN);
}

// ---- agreement with the naive model ----

// Random and adversarial cases. Inputs are drawn per element from an exponent window around
// a base (so products overlap partially: truncation at every depth), with zeros, subnormals and
// sign flips; some cases cancel products pairwise, some place the exact total on an fp32 tie,
// some put C far above or below the products, some sit at the overflow edge, a few carry
// specials.
class CaseGen {
 public:
  CaseGen(InputFormat f, std::uint32_t seed) : f_(f), rng_(seed) {}

  struct Case {
    Bits a, b;
    std::uint32_t c;
  };

  Case next() {
    Case out;
    const std::size_t ks[] = {1, 2, 3, 4, 5, 7, 8, 8, 8, 16, 16, 16, 32};
    const std::size_t k = ks[uniform(0, std::size(ks) - 1)];
    const int scenario = static_cast<int>(uniform(0, 9));
    const int exp_max = f_ == InputFormat::Bf16 ? 254 : 30;
    const int center = scenario == 8 && f_ == InputFormat::Bf16
                           ? static_cast<int>(uniform(230, 254))  // near overflow
                           : static_cast<int>(uniform(1, static_cast<std::uint64_t>(exp_max)));
    const int spreads[] = {0, 1, 3, 8, 12, 30};
    const int spread = spreads[uniform(0, std::size(spreads) - 1)];
    out.a.resize(k);
    out.b.resize(k);
    for (std::size_t j = 0; j < k; ++j) {
      out.a[j] = element(center, spread, exp_max);
      out.b[j] = element(f_ == InputFormat::Bf16 ? 127 : 15, spread, exp_max);
    }
    if (scenario == 1) {  // pairwise cancellation, exact or one ULP off
      for (std::size_t j = 1; j < k; j += 2) {
        out.a[j] = static_cast<std::uint16_t>(out.a[j - 1] ^ 0x8000u);
        out.b[j] = out.b[j - 1];
        if (uniform(0, 1)) out.a[j] = static_cast<std::uint16_t>(out.a[j] + (uniform(0, 1) ? 1 : -1));
      }
    }
    out.c = accumulator(scenario, center);
    if (scenario == 2) make_tie(out);
    if (scenario == 9 && uniform(0, 3) == 0) inject_special(out);
    return out;
  }

 private:
  std::uint64_t uniform(std::uint64_t lo, std::uint64_t hi) {
    return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng_);
  }

  int frac_bits() const { return f_ == InputFormat::Bf16 ? 7 : 10; }

  std::uint16_t pattern(bool neg, int biased, std::uint32_t man) const {
    return static_cast<std::uint16_t>((neg ? 0x8000u : 0u) |
                                      static_cast<std::uint32_t>(biased) << frac_bits() | man);
  }

  std::uint16_t element(int center, int spread, int exp_max) {
    const bool neg = uniform(0, 1) != 0;
    const std::uint32_t man = static_cast<std::uint32_t>(uniform(0, (1u << frac_bits()) - 1));
    const std::uint64_t roll = uniform(0, 99);
    if (roll < 8) return pattern(neg, 0, 0);    // ±0
    if (roll < 14) return pattern(neg, 0, man);  // subnormal (or zero)
    const int lo = std::max(1, center - spread), hi = std::min(exp_max, center + spread);
    return pattern(neg, static_cast<int>(uniform(static_cast<std::uint64_t>(lo),
                                                 static_cast<std::uint64_t>(hi))),
                   man);
  }

  std::uint32_t accumulator(int scenario, int center) {
    const std::uint32_t sign = uniform(0, 1) ? 0x80000000u : 0u;
    std::uint32_t man = static_cast<std::uint32_t>(uniform(0, 0x7FFFFF));
    if (uniform(0, 3) == 0) man |= 1u;  // odd: flooring C to a coarser grid matters
    const std::uint64_t roll = uniform(0, 99);
    if (roll < 8) return sign;                                  // ±0
    if (roll < 14) return sign | man;                           // subnormal
    // C placed around the product scale (b is centred at 1, so products scale like a).
    const int bias = f_ == InputFormat::Bf16 ? 127 : 15;
    const int product_exp = center - bias;
    int offset = static_cast<int>(uniform(0, 80)) - 40;
    if (scenario == 3) offset = static_cast<int>(uniform(0, 12)) - 6;  // C comparable
    if (scenario == 8) offset = static_cast<int>(uniform(0, 4)) - 2;
    const int biased = std::clamp(product_exp + offset + 127, 1, 254);
    return sign | static_cast<std::uint32_t>(biased) << 23 | man;
  }

  // Replaces the case by C plus products whose exact total is C + half an fp32 ULP of C
  // (or a multiple of a quarter ULP), so the final rounding sees an exact tie.
  void make_tie(Case& cs) {
    const bool bf = f_ == InputFormat::Bf16;
    // Exponent range of C such that 2^(e_c - 26) .. 2^(e_c - 24) are products of two normals.
    const int e_c = bf ? static_cast<int>(uniform(0, 200)) - 100 : static_cast<int>(uniform(0, 50)) - 2;
    const std::uint32_t sign = uniform(0, 1) ? 0x80000000u : 0u;
    cs.c = sign | static_cast<std::uint32_t>(e_c + 127) << 23 |
           static_cast<std::uint32_t>(uniform(0, 0x7FFFFF));
    const int bias = bf ? 127 : 15;
    std::fill(cs.a.begin(), cs.a.end(), std::uint16_t{0});
    std::fill(cs.b.begin(), cs.b.end(), std::uint16_t{0});
    const std::size_t n = std::min<std::size_t>(cs.a.size(), 4);
    for (std::size_t j = 0; j < n; ++j) {
      // Products ±2^(e_c - 24 - s) with s in {0, 1, 2}: sums of such land on quarter ULPs.
      const int t = e_c - 24 - static_cast<int>(uniform(0, 2));
      const int ta = t / 2, tb = t - ta;
      cs.a[j] = pattern(uniform(0, 1) != 0, ta + bias, 0);
      cs.b[j] = pattern(false, tb + bias, 0);
    }
  }

  void inject_special(Case& cs) {
    const bool bf = f_ == InputFormat::Bf16;
    const std::uint16_t inf = bf ? 0x7F80 : 0x7C00, nan = bf ? 0x7FC0 : 0x7E00;
    const std::uint16_t choices[] = {inf, static_cast<std::uint16_t>(inf | 0x8000u), nan, 0x0000};
    const std::size_t j = uniform(0, cs.a.size() - 1);
    (uniform(0, 1) ? cs.a : cs.b)[j] = choices[uniform(0, 3)];
    if (uniform(0, 4) == 0) {
      const std::uint32_t cs_choices[] = {0x7F800000u, 0xFF800000u, 0x7FC00000u};
      cs.c = cs_choices[uniform(0, 2)];
    }
  }

  InputFormat f_;
  std::mt19937_64 rng_;
};

void agree_on_random_blocks(InputFormat f, std::uint32_t seed, std::size_t min_blocks) {
  CaseGen gen(f, seed);
  std::size_t blocks = 0, failures = 0;
  while (blocks < min_blocks) {
    const CaseGen::Case cs = gen.next();
    blocks += (cs.a.size() + 7) / 8;
    const std::uint32_t want = naive_dot(f, cs.a, cs.b, cs.c);
    const std::uint32_t got = f == InputFormat::Bf16 ? bf16_dot(cs.a, cs.b, cs.c)
                                                     : f16_dot(cs.a, cs.b, cs.c);
    const bool both_nan = std::isnan(f32(want)) && std::isnan(f32(got));
    if (got != want && !both_nan && ++failures <= 10) {
      std::string a, b;
      for (std::size_t j = 0; j < cs.a.size(); ++j) {
        char buf[16];
        std::snprintf(buf, sizeof buf, "%04x ", cs.a[j]);
        a += buf;
        std::snprintf(buf, sizeof buf, "%04x ", cs.b[j]);
        b += buf;
      }
      ADD_FAILURE() << "a=[" << a << "] b=[" << b << "] c=0x" << std::hex << cs.c << " got 0x"
                    << got << " want 0x" << want;
    }
  }
  EXPECT_EQ(failures, 0u);
}

TEST(MfmaModel, Bf16AgreesWithNaiveModel) {
  agree_on_random_blocks(InputFormat::Bf16, 1234, 120000);
}

TEST(MfmaModel, F16AgreesWithNaiveModel) {
  agree_on_random_blocks(InputFormat::F16, 5678, 60000);
}

}  // namespace
}  // namespace cdna::numerics
