#include "simulator/fp_lanes.hpp"

#include <bit>
#include <cmath>

namespace cdna::simulator {
namespace {

using u32 = std::uint32_t;
using u64 = std::uint64_t;

inline u32 emulate(u32 ua, u32 ub, u32 uc) {
  double p = static_cast<double>(std::bit_cast<float>(ua)) * static_cast<double>(std::bit_cast<float>(ub));
  double c = static_cast<double>(std::bit_cast<float>(uc));
  double s = p + c;
  double bv = s - p;
  double err = (p - (s - bv)) + (c - bv);
  u64 bits = std::bit_cast<u64>(s);
  // Round to odd: an inexact sum with an even last bit moves one ulp toward the exact value.
  u64 toward = ((err > 0) == (s > 0)) ? bits + 1 : bits - 1;
  bits = (err != 0 && (bits & 1) == 0) ? toward : bits;
  return std::bit_cast<u32>(static_cast<float>(std::bit_cast<double>(bits)));
}

inline bool finite(u32 x) { return (x & 0x7f800000u) != 0x7f800000u; }

}  // namespace

u32 fma32_emulated(u32 a, u32 b, u32 c) {
  if (!finite(a) || !finite(b) || !finite(c))
    return std::bit_cast<u32>(std::fma(std::bit_cast<float>(a), std::bit_cast<float>(b), std::bit_cast<float>(c)));
  return emulate(a, b, c);
}

namespace {

// Two versions selected at load time (GCC function multiversioning; the dispatcher is
// emitted here, where both versions are visible).
__attribute__((target("default"))) void fma_impl(const u32* a, const u32* b, const u32* c, u32* r) {
  u32 special = 0;
  for (int l = 0; l < 64; ++l) {
    r[l] = emulate(a[l], b[l], c[l]);
    special |= (!finite(a[l]) || !finite(b[l]) || !finite(c[l])) ? 1u : 0u;
  }
  if (special)
    for (int l = 0; l < 64; ++l) r[l] = fma32_emulated(a[l], b[l], c[l]);
}

__attribute__((target("avx2,fma"))) void fma_impl(const u32* a, const u32* b, const u32* c, u32* r) {
  for (int l = 0; l < 64; ++l)
    r[l] = std::bit_cast<u32>(__builtin_fmaf(std::bit_cast<float>(a[l]), std::bit_cast<float>(b[l]),
                                             std::bit_cast<float>(c[l])));
}

}  // namespace

void fma32_lanes(const u32* a, const u32* b, const u32* c, u32* r) { fma_impl(a, b, c, r); }

namespace {

// Float bits -> integer key with the same order (-0 just below +0).
inline std::int32_t key(u32 x) {
  std::int32_t k = static_cast<std::int32_t>(x);
  return k ^ ((k >> 31) & 0x7fffffff);
}
inline bool nan(u32 x) { return (x & 0x7fffffffu) > 0x7f800000u; }
inline bool snan(u32 x) { return nan(x) && !(x & 0x00400000u); }

template <bool Max>
inline u32 pick(u32 a, u32 b, bool ieee) {
  bool na = nan(a), nb = nan(b);
  u32 ordered = Max ? (key(a) >= key(b) ? a : b) : (key(a) <= key(b) ? a : b);
  u32 r = na ? (nb ? (a | 0x00400000u) : b) : (nb ? a : ordered);
  r = (ieee && snan(b)) ? (b | 0x00400000u) : r;
  r = (ieee && snan(a)) ? (a | 0x00400000u) : r;
  return r;
}

__attribute__((target("default"))) void max_impl(const u32* a, const u32* b, u32* r, bool ieee) {
  for (int l = 0; l < 64; ++l) r[l] = pick<true>(a[l], b[l], ieee);
}
__attribute__((target("avx2"))) void max_impl(const u32* a, const u32* b, u32* r, bool ieee) {
  for (int l = 0; l < 64; ++l) r[l] = pick<true>(a[l], b[l], ieee);
}
__attribute__((target("default"))) void min_impl(const u32* a, const u32* b, u32* r, bool ieee) {
  for (int l = 0; l < 64; ++l) r[l] = pick<false>(a[l], b[l], ieee);
}
__attribute__((target("avx2"))) void min_impl(const u32* a, const u32* b, u32* r, bool ieee) {
  for (int l = 0; l < 64; ++l) r[l] = pick<false>(a[l], b[l], ieee);
}

}  // namespace

void max32_lanes(const u32* a, const u32* b, u32* r, bool ieee) { max_impl(a, b, r, ieee); }
void min32_lanes(const u32* a, const u32* b, u32* r, bool ieee) { min_impl(a, b, r, ieee); }

}  // namespace cdna::simulator
