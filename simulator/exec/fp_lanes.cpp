#include "simulator/exec/fp_lanes.hpp"

#include <bit>
#include <cmath>

#include <immintrin.h>

#include "simulator/exec/fp_round.hpp"

namespace cdna::simulator {
namespace {

using u32 = std::uint32_t;
using u64 = std::uint64_t;

// Runs with the host in nearest-even mode (TwoSum is exact only there); `mode` is applied by
// the final, explicit rounding of the round-to-odd double.
inline u32 emulate(u32 ua, u32 ub, u32 uc, u32 mode) {
  double p = static_cast<double>(std::bit_cast<float>(ua)) * static_cast<double>(std::bit_cast<float>(ub));
  double c = static_cast<double>(std::bit_cast<float>(uc));
  double s = p + c;
  double bv = s - p;
  double err = (p - (s - bv)) + (c - bv);
  u64 bits = std::bit_cast<u64>(zero_sign(s, std::signbit(p) || std::signbit(c), mode));
  // Round to odd: an inexact sum with an even last bit moves one ulp toward the exact value.
  u64 toward = ((err > 0) == (s > 0)) ? bits + 1 : bits - 1;
  bits = (err != 0 && (bits & 1) == 0) ? toward : bits;
  const double odd = std::bit_cast<double>(bits);
  return mode == kRoundNearest ? std::bit_cast<u32>(static_cast<float>(odd)) : f32_from_f64(odd, mode);
}

inline bool finite(u32 x) { return (x & 0x7f800000u) != 0x7f800000u; }

}  // namespace

u32 fma32_emulated(u32 a, u32 b, u32 c, u32 mode) {
  if (!finite(a) || !finite(b) || !finite(c))  // the result is NaN or infinite in every mode
    return std::bit_cast<u32>(std::fma(std::bit_cast<float>(a), std::bit_cast<float>(b), std::bit_cast<float>(c)));
  return emulate(a, b, c, mode);
}

namespace {

// Two versions selected at load time (GCC function multiversioning; the dispatcher is
// emitted here, where both versions are visible).
[[maybe_unused]] __attribute__((target("default"))) void fma_impl(const u32* a, const u32* b, const u32* c, u32* r,
                                                 u32 mode) {
  u32 special = 0;
  for (int l = 0; l < 64; ++l) {
    r[l] = emulate(a[l], b[l], c[l], mode);
    special |= (!finite(a[l]) || !finite(b[l]) || !finite(c[l])) ? 1u : 0u;
  }
  if (special)
    for (int l = 0; l < 64; ++l) r[l] = fma32_emulated(a[l], b[l], c[l], mode);
}

// The FMA instruction rounds in the host's mode (MXCSR.RC), set here to MODE's.
// Written with the 8-lane FMA intrinsic: under -frounding-math GCC treats __builtin_fmaf as a
// call that clobbers memory and will not vectorise a loop of it (-fopt-info-vec-missed).
__attribute__((target("avx2,fma"))) void fma_impl(const u32* a, const u32* b, const u32* c, u32* r,
                                                  u32 mode) {
  HostRound host_mode(mode);
  for (int l = 0; l < 64; l += 8) {
    const __m256 x = _mm256_loadu_ps(reinterpret_cast<const float*>(a + l));
    const __m256 y = _mm256_loadu_ps(reinterpret_cast<const float*>(b + l));
    const __m256 z = _mm256_loadu_ps(reinterpret_cast<const float*>(c + l));
    _mm256_storeu_ps(reinterpret_cast<float*>(r + l), _mm256_fmadd_ps(x, y, z));
  }
}

}  // namespace

void fma32_lanes(const u32* a, const u32* b, const u32* c, u32* r, u32 mode) { fma_impl(a, b, c, r, mode); }

namespace {

// Float bits -> integer key with the same order (-0 just below +0).
inline std::int32_t key(u32 x) {
  std::int32_t k = static_cast<std::int32_t>(x);
  return k ^ ((k >> 31) & 0x7fffffff);
}

// Written with all-ones/all-zero int32 masks and bitwise selects (one integer width, no
// branches, no bool temporaries) so that GCC vectorises the 64-lane loops; `quiet_snan` is
// 0x00400000 in IEEE mode and 0 otherwise.
inline std::int32_t sel(std::int32_t m, std::int32_t x, std::int32_t y) { return (m & x) | (~m & y); }

template <bool Max>
inline u32 pick(u32 ua, u32 ub, u32 quiet_snan) {
  const std::int32_t a = static_cast<std::int32_t>(ua), b = static_cast<std::int32_t>(ub);
  const std::int32_t q = static_cast<std::int32_t>(quiet_snan);
  const std::int32_t ieee = -static_cast<std::int32_t>(q != 0);
  const std::int32_t na = -static_cast<std::int32_t>((a & 0x7fffffff) > 0x7f800000);
  const std::int32_t nb = -static_cast<std::int32_t>((b & 0x7fffffff) > 0x7f800000);
  const std::int32_t sa = na & ~((a << 9) >> 31), sb = nb & ~((b << 9) >> 31);  // NaN with bit 22 clear
  const std::int32_t ka = a ^ ((a >> 31) & 0x7fffffff), kb = b ^ ((b >> 31) & 0x7fffffff);
  const std::int32_t a_wins = -static_cast<std::int32_t>(Max ? ka >= kb : ka <= kb);
  std::int32_t r = sel(a_wins, a, b);
  r = sel(nb, a, r);                                    // a quiet NaN loses to a number
  r = sel(na, sel(nb, a | 0x00400000, b), r);
  r = sel(ieee & sb, b | q, r);                         // IEEE mode: a signalling NaN wins, quieted
  r = sel(ieee & sa, a | q, r);
  return static_cast<u32>(r);
}

template <bool Max>
inline void pick_lanes(const u32* __restrict a, const u32* __restrict b, u32* __restrict r, bool ieee) {
  const u32 q = ieee ? 0x00400000u : 0u;
  for (int l = 0; l < 64; ++l) r[l] = pick<Max>(a[l], b[l], q);
}

[[maybe_unused]] __attribute__((target("default"))) void max_impl(const u32* a, const u32* b, u32* r, bool ieee) {
  pick_lanes<true>(a, b, r, ieee);
}
__attribute__((target("avx2"))) void max_impl(const u32* a, const u32* b, u32* r, bool ieee) {
  pick_lanes<true>(a, b, r, ieee);
}
[[maybe_unused]] __attribute__((target("default"))) void min_impl(const u32* a, const u32* b, u32* r, bool ieee) {
  pick_lanes<false>(a, b, r, ieee);
}
__attribute__((target("avx2"))) void min_impl(const u32* a, const u32* b, u32* r, bool ieee) {
  pick_lanes<false>(a, b, r, ieee);
}

}  // namespace

void max32_lanes(const u32* a, const u32* b, u32* r, bool ieee) { max_impl(a, b, r, ieee); }
void min32_lanes(const u32* a, const u32* b, u32* r, bool ieee) { min_impl(a, b, r, ieee); }

}  // namespace cdna::simulator
