// Shared pieces of the 16-bit VALU executors (exec/valu16.cpp, exec/valu_unary.cpp): f16 source
// lanes with modifiers, NaN results, clamp, and the refusal of modifiers they do not model.
// Conventions (exec/valu16.cpp header): a non-packed 16-bit result occupies bits 15:0 and zeroes
// bits 31:16; omod and a destination op_sel are refused.
#pragma once

#include <cstdint>

#include "simulator/exec/fp.hpp"

namespace cdna::simulator {

inline bool nan16(std::uint32_t h) { return (h & 0x7fffu) > 0x7c00u; }
inline float f16_to_f(std::uint32_t h) {
  return as_float(f32_bits_from_f16(static_cast<std::uint16_t>(h), false));
}

inline void refuse_unmodelled(const Inst& I, bool packed) {
  if (I.omod) sim_fail("omod on a 16-bit instruction is not supported");
  if (!packed && (I.op_sel & 0x8)) sim_fail("destination op_sel (high half) on a 16-bit instruction is not supported");
}

// 16-bit source lanes (in bits 15:0): the high half when `hi`; abs/neg as f16 modifiers when
// `fp`; input denormals flushed when `flush`.
inline void src16(Wave& w, const Operand& o, bool hi, bool fp, bool flush, std::uint32_t* out) {
  Lanes t;
  const std::uint32_t* p = vsrc(w, o, t);
  for (int l = 0; l < kLanes; ++l) {
    std::uint32_t h = (hi ? p[l] >> 16 : p[l]) & 0xffffu;
    if (fp) {
      if (o.abs) h &= 0x7fffu;
      if (o.neg) h ^= 0x8000u;
      if (flush) h = ftz16(h);
    }
    out[l] = h;
  }
}

// f16 results from exact-ish f32/f64 values: NaN results take the first NaN source (quieted) or
// the canonical 0x7e00; output denormals flushed when `flush`.
inline std::uint32_t finish16(std::uint32_t h, const std::uint32_t* srcs[3], int n, int l, bool flush) {
  if (nan16(h)) {
    for (int i = 0; i < n; ++i)
      if (nan16(srcs[i][l])) return srcs[i][l] | 0x0200u;
    return 0x7e00u;
  }
  return flush ? ftz16(h) : h;
}

// VOP3 clamp of an f16 result to [0, 1] (NaN: 0 under MODE.DX10_CLAMP).
inline std::uint32_t clamp16(std::uint32_t h, bool dx10) {
  if (nan16(h)) return dx10 ? 0u : h;
  float x = f16_to_f(h);
  if (!(x > 0.0f)) return 0u;
  if (x > 1.0f) return 0x3c00u;
  return h;
}

}  // namespace cdna::simulator
