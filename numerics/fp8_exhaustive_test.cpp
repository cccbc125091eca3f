// fp32 -> fp8/bf8 on every fp32 bit pattern (numerics_fp8_exhaustive_test, label "slow"), or on
// every CDNA_FP8_STRIDE-th pattern (numerics_fp8_strided_test, default run), against a second
// formulation in double arithmetic: the exact value |x| is divided by the fp8 quantum q at |x|
// (a power of two, so exact), rounded to an integer by rint (nearest even) or, for stochastic
// rounding, floored on the 2^-W grid, offset by the random value and floored again; the code is
// then rebuilt from the rounded value with ilogb. It shares nothing with the integer code of
// fp8.cpp. MPFR is too slow for 2^32 inputs; fp8_test.cpp compares against MPFR on > 10^6.
//
// Per pattern and kind: RNE in both overflow modes and SR (random value = a hash of the
// pattern) in both modes.
//
// Measured on the 2-core development machine (RelWithDebInfo, 2 threads): the full sweep takes
// about 640 s of CPU (19 min wall with other builds running, about 5.5 min on an idle machine),
// hence label "slow"; stride 61 takes about 7 s of CPU (default run).
#include "numerics/fp8.hpp"

#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <thread>
#include <vector>

#ifndef CDNA_FP8_STRIDE
#define CDNA_FP8_STRIDE 1
#endif
// Distinct ctest names for the two builds of this file.
#if CDNA_FP8_STRIDE == 1
#define CDNA_FP8_SUITE Fp8Exhaustive
#else
#define CDNA_FP8_SUITE Fp8Strided
#endif

namespace cdna::numerics {
namespace {

struct Ref {
  std::uint8_t to_nan, saturated;  // result under Fp8Overflow::ToNaN / ::Saturate
};

// The code of a nonzero magnitude r that the format holds (r <= max), sign applied.
std::uint8_t code_of(double r, bool negative, int emin, int frac) {
  int code;
  if (r < std::ldexp(1.0, emin)) {
    code = static_cast<int>(std::ldexp(r, frac - emin));  // subnormal: r / 2^(emin - F)
  } else {
    const int e = std::ilogb(r);
    const int m = static_cast<int>(std::ldexp(r, frac - e)) - (1 << frac);
    code = (e - emin + 1) << frac | m;
  }
  return static_cast<std::uint8_t>(negative ? code | 0x80 : code);
}

Ref finish(double r, bool negative, Fp8Kind kind) {
  const int emin = kind == Fp8Kind::Fp8 ? -7 : -15, frac = kind == Fp8Kind::Fp8 ? 3 : 2;
  const double max = kind == Fp8Kind::Fp8 ? 240.0 : 57344.0;
  if (r == 0) return {0, 0};
  if (r > max) return {0x80, code_of(max, negative, emin, frac)};
  const std::uint8_t c = code_of(r, negative, emin, frac);
  return {c, c};
}

// Nearest even.
Ref reference_rne(std::uint32_t u, Fp8Kind kind) {
  const double v = static_cast<double>(std::bit_cast<float>(u));
  if (std::isnan(v) || std::isinf(v)) return {0x80, 0x80};
  if (v == 0) return {0, 0};
  const int emin = kind == Fp8Kind::Fp8 ? -7 : -15, frac = kind == Fp8Kind::Fp8 ? 3 : 2;
  const int qexp = std::max(std::ilogb(v), emin) - frac;
  const double n = std::rint(std::ldexp(std::fabs(v), -qexp));  // FE_TONEAREST: ties to even
  return finish(std::ldexp(n, qexp), v < 0, kind);
}

// Stochastic: floor(|x| 2^W / q) + (random mod 2^W), floored on the quantum.
Ref reference_sr(std::uint32_t u, std::uint32_t random, Fp8Kind kind) {
  const double v = static_cast<double>(std::bit_cast<float>(u));
  if (std::isnan(v) || std::isinf(v)) return {0x80, 0x80};
  if (v == 0) return {0, 0};
  const int emin = kind == Fp8Kind::Fp8 ? -7 : -15, frac = kind == Fp8Kind::Fp8 ? 3 : 2;
  const int w = 23 - frac;
  const int qexp = std::max(std::ilogb(v), emin) - frac;
  const double t = std::floor(std::ldexp(std::fabs(v), w - qexp)) +
                   static_cast<double>(random & ((1u << w) - 1u));
  const double n = std::floor(std::ldexp(t, -w));
  return finish(std::ldexp(n, qexp), v < 0, kind);
}

std::uint32_t hash(std::uint32_t u) {
  u ^= u >> 16;
  u *= 0x7FEB352Du;
  u ^= u >> 15;
  u *= 0x846CA68Bu;
  u ^= u >> 16;
  return u;
}

struct Tally {
  std::uint64_t checked = 0, mismatches = 0;
  std::uint32_t first_bad = 0;
  void add(bool ok, std::uint32_t u) {
    ++checked;
    if (!ok && mismatches++ == 0) first_bad = u;
  }
};

TEST(CDNA_FP8_SUITE, Fp32PatternsBothKindsBothRoundingsBothOverflowModes) {
  ASSERT_EQ(std::fegetround(), FE_TONEAREST);
  constexpr unsigned kThreads = 2;
  constexpr std::uint64_t kTotal = std::uint64_t{1} << 32;
  constexpr std::uint64_t kStride = CDNA_FP8_STRIDE;
  // [thread][kind][rne, sr]
  std::array<std::array<std::array<Tally, 2>, 2>, kThreads> tallies{};
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &tallies] {
      for (std::uint64_t i = t * kStride; i < kTotal; i += kThreads * kStride) {
        const auto u = static_cast<std::uint32_t>(i);
        const float x = std::bit_cast<float>(u);
        const std::uint32_t random = hash(u);
        for (int k = 0; k < 2; ++k) {
          const Fp8Kind kind = kAllFp8Kinds[k];
          const Ref rne = reference_rne(u, kind);
          auto& tk = tallies[t][static_cast<std::size_t>(k)];
          tk[0].add(fp8_from_f32_rne(x, kind, Fp8Overflow::ToNaN) == rne.to_nan &&
                        fp8_from_f32_rne(x, kind, Fp8Overflow::Saturate) == rne.saturated,
                    u);
          const Ref sr = reference_sr(u, random, kind);
          tk[1].add(fp8_from_f32_sr(x, random, kind, Fp8Overflow::ToNaN) == sr.to_nan &&
                        fp8_from_f32_sr(x, random, kind, Fp8Overflow::Saturate) == sr.saturated,
                    u);
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  std::uint64_t checked = 0;
  for (unsigned t = 0; t < kThreads; ++t) {
    for (int k = 0; k < 2; ++k) {
      for (int r = 0; r < 2; ++r) {
        const Tally& tl = tallies[t][static_cast<std::size_t>(k)][static_cast<std::size_t>(r)];
        checked += tl.checked;
        EXPECT_EQ(tl.mismatches, 0u) << to_string(kAllFp8Kinds[k]) << (r ? " SR" : " RNE")
                                     << " first mismatch at 0x" << std::hex << tl.first_bad;
      }
    }
  }
  EXPECT_EQ(checked, 4 * ((kTotal + kStride - 1) / kStride));
}

}  // namespace
}  // namespace cdna::numerics
