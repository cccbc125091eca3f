// Floating-point helpers shared by the VALU executors: denormal flushing per MODE, input
// modifiers, output modifiers, NaN results, f16 conversions.
//
// Rounding: every VALU operation that rounds follows MODE's round mode (fp_round.hpp): f32 and
// f64 arithmetic on the host's FPU switched to that mode (HostRound), f16 results and sums
// computed exactly or rounded to odd in double and then rounded explicitly (narrow_f64).
// Denormal flushing happens after rounding: a result that rounds to a subnormal becomes a zero
// of its sign (so a tiny positive result in round-up mode gives +0, not the smallest normal).
//
// NaN results: the hardware's NaN payload propagation is not published. The model: an
// operation whose result is NaN returns the first NaN source (in operand order), quieted;
// an invalid operation on non-NaN inputs returns the canonical quiet NaN 0x7fc00000.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "simulator/exec/fp_round.hpp"
#include "simulator/state/wave.hpp"

namespace cdna::simulator {

inline std::uint32_t ftz32(std::uint32_t x) {
  return (x & 0x7f800000u) == 0 ? x & 0x80000000u : x;
}
inline std::uint64_t ftz64(std::uint64_t x) {
  return (x & 0x7ff0000000000000ull) == 0 ? x & 0x8000000000000000ull : x;
}
inline bool is_nan32(std::uint32_t x) { return (x & 0x7fffffffu) > 0x7f800000u; }
inline bool is_nan64(std::uint64_t x) { return (x & 0x7fffffffffffffffull) > 0x7ff0000000000000ull; }

// f32 source lanes with abs/neg applied and input denormals flushed when `flush`.
inline const std::uint32_t* fsrc32(Wave& w, const Operand& o, Lanes& tmp, bool flush) {
  const std::uint32_t* p = vsrc(w, o, tmp);
  if (!o.neg && !o.abs && !flush) return p;
  std::uint32_t andm = o.abs ? 0x7fffffffu : ~0u;
  std::uint32_t xorm = o.neg ? 0x80000000u : 0u;
  for (int l = 0; l < kLanes; ++l) {
    std::uint32_t x = (p[l] & andm) ^ xorm;
    tmp.u[l] = flush ? ftz32(x) : x;
  }
  return tmp.u;
}

inline void fsrc64(Wave& w, const Operand& o, Lanes64& out, bool flush) {
  vsrc64(w, o, out);
  std::uint64_t andm = o.abs ? 0x7fffffffffffffffull : ~0ull;
  std::uint64_t xorm = o.neg ? 0x8000000000000000ull : 0ull;
  for (int l = 0; l < kLanes; ++l) {
    std::uint64_t x = (out.u[l] & andm) ^ xorm;
    out.u[l] = flush ? ftz64(x) : x;
  }
}

// Replaces NaN results by the first NaN source (quieted), else by the canonical NaN.
inline void fix_nans32(std::uint32_t* r, const std::uint32_t* a, const std::uint32_t* b,
                       const std::uint32_t* c) {
  std::uint32_t any = 0;
  for (int l = 0; l < kLanes; ++l) any |= is_nan32(r[l]) ? 1u : 0u;
  if (!any) return;
  for (int l = 0; l < kLanes; ++l) {
    if (!is_nan32(r[l])) continue;
    if (a && is_nan32(a[l])) r[l] = a[l] | 0x00400000u;
    else if (b && is_nan32(b[l])) r[l] = b[l] | 0x00400000u;
    else if (c && is_nan32(c[l])) r[l] = c[l] | 0x00400000u;
    else r[l] = 0x7fc00000u;
  }
}
inline void fix_nans64(std::uint64_t* r, const std::uint64_t* a, const std::uint64_t* b,
                       const std::uint64_t* c) {
  for (int l = 0; l < kLanes; ++l) {
    if (!is_nan64(r[l])) continue;
    constexpr std::uint64_t q = 0x0008000000000000ull;
    if (a && is_nan64(a[l])) r[l] = a[l] | q;
    else if (b && is_nan64(b[l])) r[l] = b[l] | q;
    else if (c && is_nan64(c[l])) r[l] = c[l] | q;
    else r[l] = 0x7ff8000000000000ull;
  }
}

// Output modifiers (omod, clamp), output denormal flush, write under EXEC.
inline void fdst32(Wave& w, const Inst& I, std::uint32_t* r, bool flush_out) {
  if (I.omod) {
    float m = I.omod == 1 ? 2.0f : I.omod == 2 ? 4.0f : 0.5f;
    for (int l = 0; l < kLanes; ++l) r[l] = is_nan32(r[l]) ? r[l] : fbits(as_float(r[l]) * m);
  }
  if (I.clamp) {
    bool dx10 = w.dx10_clamp();
    for (int l = 0; l < kLanes; ++l) {
      float x = as_float(r[l]);
      if (is_nan32(r[l])) r[l] = dx10 ? 0u : r[l];
      else if (!(x > 0.0f)) r[l] = 0u;
      else if (x > 1.0f) r[l] = 0x3f800000u;
    }
  }
  if (flush_out)
    for (int l = 0; l < kLanes; ++l) r[l] = ftz32(r[l]);
  vwrite(w, I.ops[0], r);
}

inline void fdst64(Wave& w, const Inst& I, Lanes64& r, bool flush_out) {
  if (I.omod) {
    double m = I.omod == 1 ? 2.0 : I.omod == 2 ? 4.0 : 0.5;
    for (int l = 0; l < kLanes; ++l) r.u[l] = is_nan64(r.u[l]) ? r.u[l] : dbits(as_double(r.u[l]) * m);
  }
  if (I.clamp) {
    bool dx10 = w.dx10_clamp();
    for (int l = 0; l < kLanes; ++l) {
      double x = as_double(r.u[l]);
      if (is_nan64(r.u[l])) r.u[l] = dx10 ? 0u : r.u[l];
      else if (!(x > 0.0)) r.u[l] = 0u;
      else if (x > 1.0) r.u[l] = dbits(1.0);
    }
  }
  if (flush_out)
    for (int l = 0; l < kLanes; ++l) r.u[l] = ftz64(r.u[l]);
  vwrite64(w, I.ops[0], r);
}

// ---- f16

// f16 bit pattern with a subnormal flushed to zero of the same sign.
inline std::uint32_t ftz16(std::uint32_t h) { return (h & 0x7c00u) == 0 ? h & 0x8000u : h; }

inline std::uint32_t f32_bits_from_f16(std::uint16_t h, bool flush_in) {
  std::uint32_t sign = (std::uint32_t{h} & 0x8000u) << 16;
  std::uint32_t exp = (h >> 10) & 0x1fu;
  std::uint32_t mant = h & 0x3ffu;
  if (exp == 0x1f) return sign | 0x7f800000u | (mant << 13);
  if (exp == 0) {
    if (mant == 0 || flush_in) return sign;
    int sh = 0;
    while (!(mant & 0x400u)) {
      mant <<= 1;
      ++sh;
    }
    mant &= 0x3ffu;
    return sign | (static_cast<std::uint32_t>(127 - 15 + 1 - sh) << 23) | (mant << 13);
  }
  return sign | ((exp - 15 + 127) << 23) | (mant << 13);
}

}  // namespace cdna::simulator
