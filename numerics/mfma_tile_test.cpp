// The tile form (numerics/mfma_tile.hpp) against the per-element model it must equal bit for
// bit (mfma_dot_bf16 / mfma_dot_f16, the definition): random tiles of every CDNA3 block shape
// and of odd shapes, and tiles with one crafted output per branch of the tile code (each case
// says which). Every output of every tile is compared; a failure names the tile, i, j and both
// bit patterns.
#include "numerics/mfma_tile.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cfenv>
#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#endif
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "numerics/mfma.hpp"

namespace cdna::numerics {
namespace {

using Bits = std::vector<std::uint16_t>;

struct Fmt {
  const char* name;
  int frac, exp_bits;
  float (*dot)(std::span<const std::uint16_t>, std::span<const std::uint16_t>, float);
  void (*tile)(std::span<const std::uint16_t>, std::span<const std::uint16_t>, std::span<float>,
               int, int, int);
  int bias() const { return (1 << (exp_bits - 1)) - 1; }
  std::uint16_t exp_mask() const { return static_cast<std::uint16_t>((1 << exp_bits) - 1); }
};
const Fmt kBf16{"bf16", 7, 8, mfma_dot_bf16, mfma_tile_bf16};
const Fmt kF16{"f16", 10, 5, mfma_dot_f16, mfma_tile_f16};

// The bits of x in format f; x must be exactly representable (else the test is wrong: throws).
std::uint16_t enc(const Fmt& f, double x) {
  const std::uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  if (std::isnan(x)) return static_cast<std::uint16_t>(f.exp_mask() << f.frac | 1 << (f.frac - 1));
  if (std::isinf(x)) return static_cast<std::uint16_t>(sign | f.exp_mask() << f.frac);
  if (x == 0) return sign;
  int e;
  std::frexp(std::fabs(x), &e);
  e -= 1;  // |x| = 1.m * 2^e
  const int emin = 1 - f.bias();
  const bool sub = e < emin;
  const double mant = sub ? std::ldexp(std::fabs(x), f.frac - emin)
                          : (std::ldexp(std::fabs(x), -e) - 1) * (1 << f.frac);
  if (mant != std::floor(mant) || e + f.bias() >= f.exp_mask())
    throw std::logic_error("enc: " + std::to_string(x) + " is not a " + f.name + " value");
  const int biased = sub ? 0 : e + f.bias();
  return static_cast<std::uint16_t>(sign | biased << f.frac | static_cast<int>(mant));
}

struct Tile {
  int m, n, k;
  Bits a, b;  // [m][k], [n][k]
  std::vector<float> c;
};

// Compares the tile form with the definition on every output; returns the number of mismatches
// (the first few are printed with their bits).
int mismatches(const Fmt& f, const Tile& t, const std::string& label) {
  std::vector<float> got = t.c;
  f.tile(t.a, t.b, got, t.m, t.n, t.k);
  int bad = 0;
  for (int i = 0; i < t.m; ++i)
    for (int j = 0; j < t.n; ++j) {
      const auto ku = static_cast<std::size_t>(t.k);
      const float want = f.dot(std::span(t.a).subspan(static_cast<std::size_t>(i) * ku, ku),
                               std::span(t.b).subspan(static_cast<std::size_t>(j) * ku, ku),
                               t.c[static_cast<std::size_t>(i * t.n + j)]);
      const auto w = std::bit_cast<std::uint32_t>(want);
      const auto g = std::bit_cast<std::uint32_t>(got[static_cast<std::size_t>(i * t.n + j)]);
      if (w != g && ++bad <= 3)
        ADD_FAILURE() << f.name << " " << label << " " << t.m << "x" << t.n << "x" << t.k
                      << " output (" << i << ", " << j << "): tile 0x" << std::hex << g
                      << ", per-element model 0x" << w;
    }
  return bad;
}

// Random inputs of one of several profiles (chosen per tile), so that some tiles take the
// vector path throughout and others hit the special values.
enum class Profile { Narrow, Wide, AnyBits, Specials, Subnormal };
constexpr Profile kProfiles[] = {Profile::Narrow, Profile::Wide, Profile::AnyBits,
                                 Profile::Specials, Profile::Subnormal};

std::uint16_t random_input(const Fmt& f, Profile p, std::mt19937& rng) {
  auto u = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int sign = u(0, 1) << 15, man = u(0, (1 << f.frac) - 1);
  const int top = f.exp_mask() - 1;
  int ef = 0;
  switch (p) {
    case Profile::Narrow: ef = f.bias() + u(-3, 3); break;
    case Profile::Wide: ef = u(1, top); break;
    case Profile::AnyBits: return static_cast<std::uint16_t>(u(0, 0xFFFF));
    case Profile::Subnormal: ef = u(0, 1) != 0 ? 0 : u(1, 4); break;
    case Profile::Specials: {
      const int r = u(0, 99);
      if (r < 3) return static_cast<std::uint16_t>(sign);                      // ±0
      if (r == 3) return static_cast<std::uint16_t>(sign | f.exp_mask() << f.frac);  // ±inf
      if (r == 4) return static_cast<std::uint16_t>(f.exp_mask() << f.frac | 1);     // NaN
      if (r == 5) return static_cast<std::uint16_t>(sign | man);                 // subnormal
      if (r == 6) ef = top;                                                      // huge
      else ef = f.bias() + u(-3, 3);
      break;
    }
  }
  return static_cast<std::uint16_t>(sign | ef << f.frac | man);
}

float random_c(std::mt19937& rng) {
  auto u = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const std::uint32_t sign = static_cast<std::uint32_t>(u(0, 1)) << 31;
  const auto man = static_cast<std::uint32_t>(u(0, (1 << 23) - 1));
  std::uint32_t ef;
  switch (u(0, 7)) {
    case 0: return std::bit_cast<float>(sign);                                  // ±0
    case 1: ef = static_cast<std::uint32_t>(127 + u(-4, 4)); break;             // like products
    case 2: ef = static_cast<std::uint32_t>(127 + u(10, 60)); break;            // dominating
    case 3: ef = static_cast<std::uint32_t>(127 - u(20, 60)); break;            // negligible
    case 4: ef = 0; break;                                                      // subnormal
    case 5: return std::bit_cast<float>(static_cast<std::uint32_t>(rng()));    // any bits
    default: ef = static_cast<std::uint32_t>(u(1, 254)); break;
  }
  return std::bit_cast<float>(sign | ef << 23 | man);
}

Tile random_tile(const Fmt& f, int m, int n, int k, Profile p, std::mt19937& rng) {
  Tile t{m, n, k, Bits(static_cast<std::size_t>(m * k)), Bits(static_cast<std::size_t>(n * k)),
         std::vector<float>(static_cast<std::size_t>(m * n))};
  for (auto& x : t.a) x = random_input(f, p, rng);
  for (auto& x : t.b) x = random_input(f, p, rng);
  for (auto& x : t.c) x = random_c(rng);
  return t;
}

// The shapes of the dense bf16/f16 MFMA blocks (M x N x K per matrix block), then odd ones:
// k not a multiple of 8 (a short last block), n not a multiple of any vector width.
struct Shape { int m, n, k; };
constexpr Shape kShapes[] = {{16, 16, 16}, {32, 32, 8}, {32, 32, 4}, {16, 16, 4}, {4, 4, 4},
                             {1, 1, 1},    {5, 7, 13},  {3, 33, 17}, {64, 64, 64}};

void random_tiles(const Fmt& f, int tiles_per_shape) {
  std::mt19937 rng(20261201);
  int bad = 0;
  for (const Shape& s : kShapes)
    for (int r = 0; r < tiles_per_shape; ++r) {
      const Profile p = kProfiles[r % std::size(kProfiles)];
      bad += mismatches(f, random_tile(f, s.m, s.n, s.k, p, rng),
                        "random tile " + std::to_string(r));
    }
  EXPECT_EQ(bad, 0);
}

// 150 tiles per shape and format: about 4 * 10^5 outputs, about a second each.
TEST(MfmaTile, Bf16RandomTilesEqualPerElementModel) { random_tiles(kBf16, 150); }
TEST(MfmaTile, F16RandomTilesEqualPerElementModel) { random_tiles(kF16, 150); }

// ---- crafted outputs: each case puts one (A row, B column, C) into output (2, 3) of a 16 x 16
// x 16 tile of narrow random filler (whose other outputs are compared too). ----

struct Crafted {
  const char* name;  // and the branch of mfma_tile.cpp it reaches
  std::vector<double> a, b;  // k = 16 values each, missing ones are 0
  double c;
};

std::vector<Crafted> crafted_cases(const Fmt& f) {
  const double big = f.frac == 7 ? 0x1.FEp127 : 65504.0;    // the format's largest value
  const double tiny = std::ldexp(1.0, 1 - f.bias() - f.frac);  // its smallest subnormal
  const double emax = f.frac == 7 ? 0x1p127 : 0x1p15;
  const double large = f.frac == 7 ? 0x1p60 : 0x1p15;  // products near 2^120 (bf16), 2^30 (f16)
  std::vector<Crafted> cases{
      {"equal exponents, no truncation", {1.5, 1.25, 1.75, 1, 1.5, 1.25, 1.125, 1},
       {1.25, 1.5, 1, 1.75, 1.125, 1, 1.5, 1.25}, 1.5},
      {"spread beyond 24 bits: a product truncated away (d >= 26)", {1, 0x1p-13, 0x1p-15},
       {1, 0x1p-13, 0x1p-14}, 0},
      {"spread beyond 31 bits: d clamped to 31", {1, 0x1p-14, -0x1p-14}, {1, 0x1p-14, 0x1p-14}, 0},
      {"truncation toward zero of a negative product", {1, -1.5}, {1, 0x1p-24}, 0},
      {"subnormal inputs and subnormal result", {tiny, tiny * 3}, {1, 0.5}, 0},
      {"every nonzero product below 2^-126 plus a zero product (E = -126)", {tiny, 0}, {tiny, 1},
       0},
      {"subnormal products only (E below -126)", {tiny, tiny}, {tiny, tiny}, 0},
      {"zeros everywhere, c = -0: total +0", {-0.0, 0.0}, {1, -0.0}, -0.0},
      {"signed zeros with a nonzero c", {-0.0, -0.0}, {-0.0, 1}, -2.5},
      {"NaN input", {1, NAN}, {1, 1}, 1},
      {"inf input", {1, INFINITY}, {1, 2}, 1},
      {"inf times zero", {INFINITY}, {0.0}, 1},
      {"inf of both signs", {INFINITY, 1}, {1, -INFINITY}, 0},
      {"inf c", {1}, {1}, INFINITY},
      {"-inf c and +inf product", {INFINITY}, {1}, -INFINITY},
      {"NaN c", {1}, {1}, NAN},
      {"product >= 2^128: E >= 127 goes to the definition", {big, 1}, {big, 1}, 0},
      {"exponent 127 but finite", {emax, 1}, {1, 1}, 0},
      {"sum overflows fp32 in the rounding", {big, big, big, big}, {big, big, big, big}, 0},
      {"c near FLT_MAX plus a product (bf16: overflow)", {large, large}, {large, large},
       0x1.FFFFFEp127},
      {"c dominating (M - E - 7 > 0, S floored)", {1.5, -1.25}, {1, 0x1p-3}, 0x1p12},
      {"c dominating, negative S floored to -1 (shift >= 31)", {-1, 0}, {0x1p-3, 0}, 0x1p60},
      {"c negligible, floored to 2^(M-24)", {1.5, 1.25}, {1, 1}, 0x1.234568p-10},
      {"c negligible and negative: floor gives -1 unit", {1.5}, {1}, -0x1p-60},
      {"cancellation to zero", {1.5, 1.5}, {2, -2}, 0},
      {"cancellation of c: total zero is +0", {1.5}, {2}, -3},
      {"sign asymmetry (cdna3-facts.md E1')", {2}, {2}, -(1 + 0x1p-23)},
      {"second block takes the first block's result", {1, 0, 0, 0, 0, 0, 0, 0, 0x1p-12},
       {1, 0, 0, 0, 0, 0, 0, 0, 0x1p-12}, 0x1p-30},
  };
  // bf16 only (f16 products are >= 2^-48): nonzero products below 2^-126, a zero product makes
  // E = -126 and truncates 1.5 * 2^-150 to 2^-150, which decides the rounding to fp32.
  if (f.frac == 7)
    cases.push_back({"zero product sets E = -126 above the nonzero products",
                     {0x1p-100, 1.5 * 0x1p-100, 0}, {0x1p-27, 0x1p-50, 1}, 0});
  return cases;
}

void crafted_tiles(const Fmt& f) {
  std::mt19937 rng(14);
  for (const Crafted& cc : crafted_cases(f)) {
    Tile t = random_tile(f, 16, 16, 16, Profile::Narrow, rng);
    for (int kk = 0; kk < 16; ++kk) {
      const auto at = [](const std::vector<double>& v, int i) {
        return i < static_cast<int>(v.size()) ? v[static_cast<std::size_t>(i)] : 0.0;
      };
      t.a[static_cast<std::size_t>(2 * 16 + kk)] = enc(f, at(cc.a, kk));
      t.b[static_cast<std::size_t>(3 * 16 + kk)] = enc(f, at(cc.b, kk));
    }
    t.c[2 * 16 + 3] = static_cast<float>(cc.c);
    EXPECT_EQ(mismatches(f, t, cc.name), 0) << cc.name;
  }
}

TEST(MfmaTile, Bf16CraftedOutputsEqualPerElementModel) { crafted_tiles(kBf16); }
TEST(MfmaTile, F16CraftedOutputsEqualPerElementModel) { crafted_tiles(kF16); }

// Under a non-default host rounding mode the tile form falls back to the definition.
TEST(MfmaTile, OtherHostRoundingModeGivesTheSameBits) {
  std::mt19937 rng(7);
  int bad = 0;
  for (int mode : {FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO}) {
    for (int r = 0; r < 20; ++r) {
      const Tile t = random_tile(kBf16, 16, 16, 16, Profile::Narrow, rng);
      std::fesetround(mode);  // the definition is integer arithmetic: the mode cannot touch it
      bad += mismatches(kBf16, t, "rounding mode " + std::to_string(mode));
      std::fesetround(FE_TONEAREST);
    }
  }
  EXPECT_EQ(bad, 0);
}

#if defined(__SSE__) || defined(__x86_64__)
// With MXCSR's FTZ or DAZ set (a host built with -ffast-math) float arithmetic flushes
// subnormals; the tile form must then fall back to the definition, which keeps them.
TEST(MfmaTile, FlushToZeroHostGivesTheSameBits) {
  std::mt19937 rng(11);
  const unsigned saved = _mm_getcsr();
  int bad = 0;
  for (unsigned bits : {1u << 15, 1u << 6, (1u << 15) | (1u << 6)}) {
    for (int r = 0; r < 20; ++r) {
      const Tile t = random_tile(kBf16, 16, 16, 16, Profile::Subnormal, rng);
      _mm_setcsr(saved | bits);  // the definition is integer arithmetic: FTZ/DAZ cannot touch it
      bad += mismatches(kBf16, t, "MXCSR bits " + std::to_string(bits));
      _mm_setcsr(saved);
    }
  }
  EXPECT_EQ(bad, 0);
}
#endif

TEST(MfmaTile, KZeroLeavesCUnchanged) {
  std::vector<float> c{1.5f, -0.0f};
  mfma_tile_bf16({}, {}, c, 1, 2, 0);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(c[1]), 0x80000000u);
  EXPECT_EQ(c[0], 1.5f);
}

TEST(MfmaTile, BadSizesThrowNamingThem) {
  Bits a(16), b(16);
  std::vector<float> c(16);
  EXPECT_THROW(mfma_tile_bf16(a, b, c, 4, 4, 5), std::invalid_argument);   // a holds 16, not 20
  EXPECT_THROW(mfma_tile_f16(a, b, c, 65, 4, 0), std::invalid_argument);   // m > 64
  EXPECT_THROW(mfma_tile_f16(a, b, c, 0, 4, 4), std::invalid_argument);    // m < 1
  try {
    mfma_tile_bf16(a, b, std::span(c).first(15), 4, 4, 4);
    ADD_FAILURE() << "no throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("got 16, 16, 15"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace cdna::numerics
