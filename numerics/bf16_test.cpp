// bf16/fp16 conversions against MPFR (the oracle for every finite input) and against the
// integer rules of cdna3-facts.md §6 for NaN. The MPFR side rounds the exact fp32 value to
// 8 (bf16) or 11 (fp16) bits inside the format's exponent range, subnormals included.
#include "numerics/bf16.hpp"

#include <gtest/gtest.h>
#include <mpfr.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "numerics/mpfr_format_rounding.hpp"

namespace cdna::numerics {
namespace {

bool is_f32_nan(std::uint32_t u) { return (u & 0x7FFFFFFFu) > 0x7F800000u; }

// RAII mpfr_t.
struct Mp {
  explicit Mp(mpfr_prec_t prec) { mpfr_init2(v, prec); }
  ~Mp() { mpfr_clear(v); }
  Mp(const Mp&) = delete;
  Mp& operator=(const Mp&) = delete;
  mpfr_t v;
};

// x (exact in MPFR) rounded by MPFR into a format; see mpfr_format_rounding.hpp.
double mpfr_round_into(float x, int p, int emin, int emax, testing::MpfrRounding mode) {
  Mp src(24);
  EXPECT_EQ(mpfr_set_flt(src.v, x, MPFR_RNDN), 0);
  return testing::round_to_format(src.v, p, emin, emax, mode);
}

// bf16 rounding of a non-NaN fp32 value by MPFR, as bf16 bits: 8-bit significands, the fp32
// exponent range (normal 2^-126 .. 2^127, least subnormal 2^-133).
std::uint16_t mpfr_bf16(float x, Rounding mode) {
  const testing::MpfrRounding m = mode == Rounding::RTNE   ? testing::MpfrRounding::NearestEven
                                  : mode == Rounding::RTNA ? testing::MpfrRounding::NearestAway
                                                           : testing::MpfrRounding::TowardZero;
  const auto r = static_cast<float>(mpfr_round_into(x, 8, -126, 127, m));  // exact
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(r);
  EXPECT_EQ(bits & 0xFFFFu, 0u) << "MPFR result not a bf16 value";
  return static_cast<std::uint16_t>(bits >> 16);
}

// fp16 RTNE by MPFR: 11-bit precision, normal binades 2^-14..2^15, least subnormal 2^-24.
std::uint16_t mpfr_f16(float x) {
  const double r = mpfr_round_into(x, 11, -14, 15, testing::MpfrRounding::NearestEven);
  // Encode r as fp16 without the code under test: sign, then magnitude / quantum.
  const std::uint16_t sign = std::signbit(r) ? 0x8000 : 0;
  const double m = std::fabs(r);
  if (std::isinf(m)) return static_cast<std::uint16_t>(sign | 0x7C00);
  if (m < std::ldexp(1.0, -14)) {
    return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(std::ldexp(m, 24)));
  }
  const int e = std::ilogb(m);
  const auto man = static_cast<std::uint16_t>(std::ldexp(m, 10 - e) - 1024.0);
  return static_cast<std::uint16_t>(sign | ((e + 15) << 10) | man);
}

// The fp32 patterns the bf16 agreement test walks: for every high half, low halves at and
// around the tie 0x8000, the extremes and random ones (so all ties, near-ties, subnormals,
// the overflow boundary 0x7F7F8000, infinities and NaNs with payload in either half appear),
// then uniformly random patterns.
std::vector<std::uint32_t> bf16_patterns() {
  std::mt19937 rng(20240611);
  std::vector<std::uint32_t> out;
  const std::uint32_t lows[] = {0x0000, 0x0001, 0x0002, 0x3FFF, 0x4000, 0x7FFE, 0x7FFF,
                                0x8000, 0x8001, 0x8002, 0xC000, 0xFFFE, 0xFFFF};
  out.reserve(65536 * 15 + 300000);
  for (std::uint32_t hi = 0; hi < 65536; ++hi) {
    for (std::uint32_t lo : lows) out.push_back(hi << 16 | lo);
    out.push_back(hi << 16 | (rng() & 0xFFFFu));
    out.push_back(hi << 16 | (rng() & 0xFFFFu));
  }
  for (int i = 0; i < 300000; ++i) out.push_back(static_cast<std::uint32_t>(rng()));
  return out;
}

TEST(Bf16Conversion, AgreesWithMpfrOnAMillionPatterns) {
  const std::vector<std::uint32_t> patterns = bf16_patterns();
  ASSERT_GE(patterns.size(), 1000000u);
  std::size_t checked = 0, failures = 0;
  for (std::uint32_t u : patterns) {
    if (is_f32_nan(u)) continue;  // NaN rules: separate tests
    const float x = std::bit_cast<float>(u);
    for (Rounding mode : kAllRoundings) {
      const std::uint16_t want = mpfr_bf16(x, mode);
      const std::uint16_t got = bf16_from_f32(x, mode);
      ++checked;
      if (got != want && ++failures <= 20) {
        ADD_FAILURE() << to_string(mode) << " u=0x" << std::hex << u << " got 0x" << got
                      << " want 0x" << want;
      }
    }
  }
  EXPECT_EQ(failures, 0u);
  EXPECT_GE(checked, 3000000u);
}

TEST(Bf16Conversion, HandPickedTiesAndOverflow) {
  // 1 + 2^-8 is halfway between bf16 1.0 (even) and 1.0078125 (odd).
  EXPECT_EQ(bf16_from_f32(std::bit_cast<float>(0x3F808000u), Rounding::RTNE), 0x3F80);
  EXPECT_EQ(bf16_from_f32(std::bit_cast<float>(0x3F808000u), Rounding::RTNA), 0x3F81);
  EXPECT_EQ(bf16_from_f32(std::bit_cast<float>(0x3F808000u), Rounding::RTZ), 0x3F80);
  // Halfway above an odd value: both nearest modes go up.
  EXPECT_EQ(bf16_from_f32(std::bit_cast<float>(0x3F818000u), Rounding::RTNE), 0x3F82);
  EXPECT_EQ(bf16_from_f32(std::bit_cast<float>(0xBF818000u), Rounding::RTNA), 0xBF82);
  // Halfway between the largest finite bf16 (odd) and 2^128: nearest modes overflow.
  EXPECT_EQ(bf16_from_f32(std::bit_cast<float>(0x7F7F8000u), Rounding::RTNE), 0x7F80);
  EXPECT_EQ(bf16_from_f32(std::bit_cast<float>(0xFF7F8000u), Rounding::RTNA), 0xFF80);
  EXPECT_EQ(bf16_from_f32(std::bit_cast<float>(0x7F7F7FFFu), Rounding::RTNE), 0x7F7F);
  // RTZ never overflows a finite value.
  EXPECT_EQ(bf16_from_f32(std::numeric_limits<float>::max(), Rounding::RTZ), 0x7F7F);
  // Subnormal tie: 0x00008000 is half of the least bf16 subnormal 0x0001 -> to even (0).
  EXPECT_EQ(bf16_from_f32(std::bit_cast<float>(0x00008000u), Rounding::RTNE), 0x0000);
  EXPECT_EQ(bf16_from_f32(std::bit_cast<float>(0x00008000u), Rounding::RTNA), 0x0001);
  // Largest subnormal tie rounds up into the least normal.
  EXPECT_EQ(bf16_from_f32(std::bit_cast<float>(0x007F8000u), Rounding::RTNE), 0x0080);
  // Infinities are kept by every mode.
  for (Rounding mode : kAllRoundings) {
    EXPECT_EQ(bf16_from_f32(std::numeric_limits<float>::infinity(), mode), 0x7F80);
    EXPECT_EQ(bf16_from_f32(-std::numeric_limits<float>::infinity(), mode), 0xFF80);
  }
}

TEST(Bf16Conversion, NanRulesPerMode) {
  std::mt19937 rng(7);
  std::vector<std::uint32_t> nans = {0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0xFF800001u,
                                     0x7F80FFFFu, 0x7F810000u, 0x7FFFFFFFu, 0xFFFFFFFFu,
                                     0x7F808000u, 0xFF80FFFFu};
  for (int i = 0; i < 100000; ++i) {
    const std::uint32_t payload = (static_cast<std::uint32_t>(rng()) & 0x7FFFFFu) | 1u;
    nans.push_back((rng() & 1u ? 0xFF800000u : 0x7F800000u) | payload);
  }
  for (std::uint32_t u : nans) {
    ASSERT_TRUE(is_f32_nan(u));
    const float x = std::bit_cast<float>(u);
    // RTNE and RTNA replace any NaN, whatever its sign, by 0x7FFF.
    EXPECT_EQ(bf16_from_f32(x, Rounding::RTNE), 0x7FFF) << std::hex << u;
    EXPECT_EQ(bf16_from_f32(x, Rounding::RTNA), 0x7FFF) << std::hex << u;
    // RTZ keeps the high half as it is.
    EXPECT_EQ(bf16_from_f32(x, Rounding::RTZ), u >> 16) << std::hex << u;
  }
  // Payload only in the low 16 bits: RTZ turns the NaN into an infinity of its sign.
  EXPECT_EQ(bf16_from_f32(std::bit_cast<float>(0x7F800001u), Rounding::RTZ), 0x7F80);
  EXPECT_EQ(bf16_from_f32(std::bit_cast<float>(0xFF80FFFFu), Rounding::RTZ), 0xFF80);
  // Payload reaching the high half: RTZ keeps a NaN with its sign.
  EXPECT_EQ(bf16_from_f32(std::bit_cast<float>(0xFFC00001u), Rounding::RTZ), 0xFFC0);
}

TEST(Bf16Conversion, RoundTripEveryBf16) {
  for (std::uint32_t h = 0; h < 65536; ++h) {
    const auto bits = static_cast<std::uint16_t>(h);
    const float x = f32_from_bf16(bits);
    // Decoding: the bf16 pattern is the high half of the fp32 pattern.
    ASSERT_EQ(std::bit_cast<std::uint32_t>(x), h << 16);
    const bool nan = (h & 0x7FFFu) > 0x7F80u;
    for (Rounding mode : kAllRoundings) {
      // RTZ keeps every pattern; nearest modes canonicalise NaN.
      const std::uint16_t want = (nan && mode != Rounding::RTZ) ? 0x7FFF : bits;
      ASSERT_EQ(bf16_from_f32(x, mode), want) << to_string(mode) << " 0x" << std::hex << h;
    }
  }
}

TEST(Bf16Rounding, ToStringAndParse) {
  EXPECT_EQ(to_string(Rounding::RTNE), "RTNE");
  EXPECT_EQ(to_string(Rounding::RTNA), "RTNA");
  EXPECT_EQ(to_string(Rounding::RTZ), "RTZ");
  EXPECT_EQ(parse_rounding("RTNE"), Rounding::RTNE);
  EXPECT_EQ(parse_rounding("rtna"), Rounding::RTNA);
  EXPECT_EQ(parse_rounding("Rtz"), Rounding::RTZ);
  for (Rounding mode : kAllRoundings) EXPECT_EQ(parse_rounding(to_string(mode)), mode);
  EXPECT_EQ(parse_rounding(""), std::nullopt);
  EXPECT_EQ(parse_rounding("RTN"), std::nullopt);
  EXPECT_EQ(parse_rounding("RTNE "), std::nullopt);
  EXPECT_EQ(parse_rounding("RTZZ"), std::nullopt);
  EXPECT_EQ(parse_rounding("nearest"), std::nullopt);
  // Numeric AITER codes are not names.
  EXPECT_EQ(parse_rounding("0"), std::nullopt);
}

// ---- fp16 ----

// fp32 patterns for the fp16 test: every fp16 value, the exact midpoints between neighbours
// (ties, also among subnormals and at the overflow boundary 65520) and the floats next to them,
// a structured sweep of the fp16 exponent range, and random patterns.
std::vector<float> f16_patterns() {
  std::vector<float> out;
  auto value = [](std::uint32_t h) {  // fp16 magnitude h (no inf/NaN) decoded independently
    const std::uint32_t e = h >> 10, m = h & 0x3FFu;
    return e == 0 ? std::ldexp(static_cast<double>(m), -24)
                  : std::ldexp(static_cast<double>(m | 0x400u), static_cast<int>(e) - 25);
  };
  for (std::uint32_t h = 0; h < 0x7C00; ++h) {
    const double lo = value(h);
    const double hi = h + 1 == 0x7C00 ? 65536.0 : value(h + 1);  // 65536: next binade start
    const auto mid = static_cast<float>((lo + hi) / 2);         // exact
    for (float v : {static_cast<float>(lo), mid, std::nextafter(mid, 0.0f),
                    std::nextafter(mid, std::numeric_limits<float>::infinity())}) {
      out.push_back(v);
      out.push_back(-v);
    }
  }
  std::mt19937 rng(99);
  for (std::uint32_t ef = 0x60; ef <= 0x90; ++ef) {
    for (std::uint32_t hi10 = 0; hi10 < 1024; ++hi10) {
      for (std::uint32_t lo13 : {0x0000u, 0x0001u, 0x0FFFu, 0x1000u, 0x1001u, 0x1FFFu}) {
        const std::uint32_t u = ef << 23 | hi10 << 13 | lo13;
        out.push_back(std::bit_cast<float>(u));
        out.push_back(std::bit_cast<float>(u | 0x80000000u));
      }
    }
  }
  for (int i = 0; i < 200000; ++i) {
    const auto u = static_cast<std::uint32_t>(rng());
    if (!is_f32_nan(u)) out.push_back(std::bit_cast<float>(u));
  }
  out.push_back(std::numeric_limits<float>::infinity());
  out.push_back(-std::numeric_limits<float>::infinity());
  out.push_back(std::numeric_limits<float>::max());
  out.push_back(std::numeric_limits<float>::denorm_min());
  return out;
}

TEST(F16Conversion, RtneAgreesWithMpfr) {
  const std::vector<float> patterns = f16_patterns();
  ASSERT_GE(patterns.size(), 500000u);
  std::size_t failures = 0;
  for (float x : patterns) {
    const std::uint16_t want = mpfr_f16(x);
    const std::uint16_t got = f16_from_f32_rtne(x);
    if (got != want && ++failures <= 20) {
      ADD_FAILURE() << "x=" << x << " (0x" << std::hex << std::bit_cast<std::uint32_t>(x)
                    << ") got 0x" << got << " want 0x" << want;
    }
  }
  EXPECT_EQ(failures, 0u);
}

TEST(F16Conversion, HandPickedValues) {
  EXPECT_EQ(f16_from_f32_rtne(1.0f), 0x3C00);
  EXPECT_EQ(f16_from_f32_rtne(-2.0f), 0xC000);
  EXPECT_EQ(f16_from_f32_rtne(65504.0f), 0x7BFF);
  EXPECT_EQ(f16_from_f32_rtne(65519.996f), 0x7BFF);  // below the tie 65520
  EXPECT_EQ(f16_from_f32_rtne(65520.0f), 0x7C00);    // tie with odd 0x7BFF -> inf
  EXPECT_EQ(f16_from_f32_rtne(1e10f), 0x7C00);
  EXPECT_EQ(f16_from_f32_rtne(std::ldexp(1.0f, -24)), 0x0001);  // least subnormal
  EXPECT_EQ(f16_from_f32_rtne(std::ldexp(1.0f, -25)), 0x0000);  // tie -> even 0
  EXPECT_EQ(f16_from_f32_rtne(std::ldexp(3.0f, -25)), 0x0002);  // tie 1.5 -> even 2
  EXPECT_EQ(f16_from_f32_rtne(-std::ldexp(1.0f, -26)), 0x8000);  // -0 kept
  EXPECT_EQ(f16_from_f32_rtne(std::ldexp(1023.5f, -24)), 0x0400);  // into the least normal
  EXPECT_EQ(f16_from_f32_rtne(1.0f + std::ldexp(1.0f, -11)), 0x3C00);  // tie -> even
  EXPECT_EQ(f16_from_f32_rtne(1.0f + std::ldexp(3.0f, -11)), 0x3C02);  // tie -> even (up)
}

TEST(F16Conversion, NanIsQuietWithSignKept) {
  std::mt19937 rng(5);
  for (int i = 0; i < 100000; ++i) {
    const std::uint32_t payload = (static_cast<std::uint32_t>(rng()) & 0x7FFFFFu) | 1u;
    const std::uint32_t sign = rng() & 1u ? 0x80000000u : 0u;
    const std::uint32_t u = sign | 0x7F800000u | payload;
    const std::uint16_t h = f16_from_f32_rtne(std::bit_cast<float>(u));
    ASSERT_EQ(h & 0x7E00u, 0x7E00u) << std::hex << u;       // exponent all ones, quiet bit
    ASSERT_EQ((h & 0x8000u) != 0, sign != 0) << std::hex << u;  // sign kept
    ASSERT_EQ(h & 0x1FFu, (payload >> 13) & 0x1FFu) << std::hex << u;  // upper payload kept
  }
}

TEST(F16Conversion, DecodeAndRoundTripEveryF16) {
  for (std::uint32_t h = 0; h < 65536; ++h) {
    const auto bits = static_cast<std::uint16_t>(h);
    const float x = f32_from_f16(bits);
    const std::uint32_t e = (h >> 10) & 0x1Fu, m = h & 0x3FFu;
    const bool neg = (h & 0x8000u) != 0;
    if (e == 0x1F) {
      ASSERT_TRUE(m == 0 ? std::isinf(x) : std::isnan(x)) << std::hex << h;
      ASSERT_EQ(std::signbit(x), neg);
      // A NaN comes back quiet with the payload kept.
      const std::uint16_t want = m == 0 ? bits : static_cast<std::uint16_t>(bits | 0x0200u);
      ASSERT_EQ(f16_from_f32_rtne(x), want) << std::hex << h;
      continue;
    }
    const double mag = e == 0 ? std::ldexp(static_cast<double>(m), -24)
                              : std::ldexp(static_cast<double>(m | 0x400u), static_cast<int>(e) - 25);
    ASSERT_EQ(static_cast<double>(x), neg ? -mag : mag) << std::hex << h;
    ASSERT_EQ(std::signbit(x), neg);
    ASSERT_EQ(f16_from_f32_rtne(x), bits) << std::hex << h;
  }
}

// ---- ULP helpers ----

TEST(Bf16Ulp, SpacingPerBinade) {
  EXPECT_EQ(bf16_ulp(1.0), std::ldexp(1.0, -7));
  EXPECT_EQ(bf16_ulp(1.99), std::ldexp(1.0, -7));
  EXPECT_EQ(bf16_ulp(2.0), std::ldexp(1.0, -6));
  EXPECT_EQ(bf16_ulp(-3.0), std::ldexp(1.0, -6));
  EXPECT_EQ(bf16_ulp(0.75), std::ldexp(1.0, -8));
  EXPECT_EQ(bf16_ulp(std::ldexp(1.0, -126)), std::ldexp(1.0, -133));
  EXPECT_EQ(bf16_ulp(std::ldexp(1.0, -127)), std::ldexp(1.0, -133));
  EXPECT_EQ(bf16_ulp(std::ldexp(1.0, -1000)), std::ldexp(1.0, -133));
  EXPECT_EQ(bf16_ulp(0.0), std::ldexp(1.0, -133));
  EXPECT_EQ(bf16_ulp(std::ldexp(1.5, 127)), std::ldexp(1.0, 120));
  EXPECT_TRUE(std::isinf(bf16_ulp(std::numeric_limits<double>::infinity())));
  EXPECT_TRUE(std::isnan(bf16_ulp(std::numeric_limits<double>::quiet_NaN())));
}

TEST(Bf16Ulp, Distance) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(bf16_ulp_distance(0x3F80, 1.0), 0.0);
  EXPECT_EQ(bf16_ulp_distance(0x3F81, 1.0), 1.0);
  EXPECT_EQ(bf16_ulp_distance(0x3F80, 1.0 + std::ldexp(1.0, -8)), 0.5);
  // The ULP is taken at x: below 1 it is half as large.
  EXPECT_EQ(bf16_ulp_distance(0x3F80, 1.0 - std::ldexp(1.0, -8)), 1.0);
  EXPECT_EQ(bf16_ulp_distance(0xBF80, 1.0), 2.0 / std::ldexp(1.0, -7));
  EXPECT_EQ(bf16_ulp_distance(0x0001, 0.0), 1.0);  // least subnormal vs 0
  EXPECT_EQ(bf16_ulp_distance(0x7F80, inf), 0.0);
  EXPECT_EQ(bf16_ulp_distance(0xFF80, -inf), 0.0);
  EXPECT_EQ(bf16_ulp_distance(0x7F80, -inf), inf);
  EXPECT_EQ(bf16_ulp_distance(0x7F7F, inf), inf);
  EXPECT_EQ(bf16_ulp_distance(0x7F80, 1.0), inf);
  EXPECT_EQ(bf16_ulp_distance(0x7FC0, 1.0), inf);
  EXPECT_EQ(bf16_ulp_distance(0x3F80, nan), inf);
  EXPECT_EQ(bf16_ulp_distance(0x7FC0, nan), 0.0);
}

}  // namespace
}  // namespace cdna::numerics
