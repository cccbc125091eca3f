// Floating-point helpers shared by the VALU executors: denormal flushing per MODE, input
// modifiers, output modifiers, NaN results, f16 conversions.
//
// Host arithmetic is IEEE binary32/binary64 with round-to-nearest-even (the host rounding
// mode is never changed); an instruction that would need another MODE rounding mode is an
// error (require_rne32 / require_rne16_64), never silently rounded to nearest.
//
// NaN results: the hardware's NaN payload propagation is not published. The model: an
// operation whose result is NaN returns the first NaN source (in operand order), quieted;
// an invalid operation on non-NaN inputs returns the canonical quiet NaN 0x7fc00000.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "simulator/wave.hpp"

namespace cdna::simulator {

inline std::uint32_t ftz32(std::uint32_t x) {
  return (x & 0x7f800000u) == 0 ? x & 0x80000000u : x;
}
inline std::uint64_t ftz64(std::uint64_t x) {
  return (x & 0x7ff0000000000000ull) == 0 ? x & 0x8000000000000000ull : x;
}
inline bool is_nan32(std::uint32_t x) { return (x & 0x7fffffffu) > 0x7f800000u; }
inline bool is_nan64(std::uint64_t x) { return (x & 0x7fffffffffffffffull) > 0x7ff0000000000000ull; }

inline void require_rne32(const Wave& w) {
  if (w.round32() != 0)
    sim_fail("MODE fp32 round mode is " + std::to_string(w.round32()) +
             " (not round-to-nearest-even); the simulator only implements nearest-even for "
             "this instruction");
}
inline void require_rne16_64(const Wave& w) {
  if (w.round16_64() != 0)
    sim_fail("MODE fp16/fp64 round mode is " + std::to_string(w.round16_64()) +
             " (not round-to-nearest-even); the simulator only implements nearest-even for "
             "this instruction");
}

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

// f32 bit pattern -> f16 bit pattern, round to nearest even; overflow -> inf; NaN -> quiet
// NaN keeping sign and the top payload bits. `flush_out` flushes f16 denormal results.
inline std::uint16_t f16_from_f32_bits(std::uint32_t x, bool flush_out) {
  std::uint32_t sign = (x >> 16) & 0x8000u;
  std::uint32_t exp = (x >> 23) & 0xffu;
  std::uint32_t mant = x & 0x7fffffu;
  if (exp == 0xff)
    return static_cast<std::uint16_t>(sign | 0x7c00u | (mant ? 0x200u | (mant >> 13) : 0u));
  int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7c00u);
  if (e <= 0) {
    if (exp == 0) return static_cast<std::uint16_t>(sign);  // f32 zero/denormal: far below f16
    std::uint32_t m = mant | 0x800000u;
    int shift = 126 - static_cast<int>(exp);  // value / 2^-24 = m >> shift
    if (shift > 24) return static_cast<std::uint16_t>(sign);
    std::uint32_t q = m >> shift;
    std::uint32_t rem = m & ((1u << shift) - 1);
    std::uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1))) ++q;
    if (flush_out && q < 0x400u) return static_cast<std::uint16_t>(sign);
    return static_cast<std::uint16_t>(sign | q);
  }
  std::uint32_t q = (static_cast<std::uint32_t>(e) << 10) | (mant >> 13);
  std::uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (q & 1))) ++q;
  return static_cast<std::uint16_t>(sign | q);
}

// Round toward zero; overflow gives the largest finite value, infinities stay infinite.
inline std::uint16_t f16_from_f32_bits_rtz(std::uint32_t x, bool flush_out) {
  std::uint32_t sign = (x >> 16) & 0x8000u;
  std::uint32_t exp = (x >> 23) & 0xffu;
  std::uint32_t mant = x & 0x7fffffu;
  if (exp == 0xff)
    return static_cast<std::uint16_t>(sign | 0x7c00u | (mant ? 0x200u | (mant >> 13) : 0u));
  int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7bffu);
  if (e <= 0) {
    if (exp == 0) return static_cast<std::uint16_t>(sign);
    int shift = 126 - static_cast<int>(exp);
    if (shift > 24) return static_cast<std::uint16_t>(sign);
    std::uint32_t q = (mant | 0x800000u) >> shift;
    if (flush_out && q < 0x400u) return static_cast<std::uint16_t>(sign);
    return static_cast<std::uint16_t>(sign | q);
  }
  return static_cast<std::uint16_t>(sign | (static_cast<std::uint32_t>(e) << 10) | (mant >> 13));
}

// f64 -> f16 bit pattern, round to nearest even (no flush; NaN quieted).
inline std::uint16_t f16_from_f64(double x) {
  std::uint64_t b = dbits(x);
  std::uint32_t sign = static_cast<std::uint32_t>(b >> 48) & 0x8000u;
  int e = static_cast<int>((b >> 52) & 0x7ff);
  std::uint64_t m = b & ((1ull << 52) - 1);
  if (e == 0x7ff)
    return static_cast<std::uint16_t>(sign | 0x7c00u | (m ? 0x200u | static_cast<std::uint32_t>(m >> 42) : 0u));
  if (e == 0) return static_cast<std::uint16_t>(sign);  // f64 subnormal: far below f16
  m |= 1ull << 52;
  int E = e - 1023;                       // x = m * 2^(E - 52)
  int qexp = std::max(E, -14) - 10;       // f16 quantum at x
  int sh = qexp - (E - 52);               // >= 42
  if (sh > 60) return static_cast<std::uint16_t>(sign);
  std::uint64_t q = m >> sh, rem = m & ((1ull << sh) - 1), half = 1ull << (sh - 1);
  if (rem > half || (rem == half && (q & 1))) ++q;
  if (E < -14) return static_cast<std::uint16_t>(sign | q);  // subnormal (q == 1024: min normal)
  std::uint64_t bits = (static_cast<std::uint64_t>(E + 15) << 10) + (q - 1024);
  if (bits >= 0x7c00u) return static_cast<std::uint16_t>(sign | 0x7c00u);
  return static_cast<std::uint16_t>(sign | bits);
}

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
