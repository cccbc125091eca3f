// VOP3 saturating integer add/sub (v_add/sub_i32, v_add/sub_i16) and the integer packing
// conversions v_cvt_pk_i16_i32 / v_cvt_pk_u16_u32. Semantics: CDNA3 ISA guide, VOP3 opcodes
// (V_ADD_I32: "D.i = S0.i + S1.i", clamp saturates in the signed domain; V_CVT_PK_I16_I32:
// "D = {sat16(S1.i), sat16(S0.i)}", low half from S0). The 16-bit forms follow exec/valu16.cpp's
// conventions: result in bits 15:0, bits 31:16 zero, source op_sel picks a high half, a
// destination op_sel is refused.
#include <algorithm>
#include <cmath>

#include "simulator/exec/fp.hpp"
#include "simulator/exec/handlers.hpp"
#include "simulator/exec/valu16.hpp"
#include "simulator/state/wave.hpp"

namespace cdna::simulator {
namespace {

using u32 = std::uint32_t;
using i32 = std::int32_t;
using i64 = std::int64_t;

// v_add_i32 (Sub = false) / v_sub_i32: wraps, or saturates to [INT32_MIN, INT32_MAX] with clamp.
template <bool Sub>
void v_addsub_i32(Wave& w, const Inst& I) {
  if (I.omod) sim_fail("omod on an integer instruction is not supported");
  Lanes ta, tb, r;
  const u32* a = vsrc(w, I.ops[1], ta);
  const u32* b = vsrc(w, I.ops[2], tb);
  for (int l = 0; l < kLanes; ++l) {
    const i64 x = Sub ? i64{static_cast<i32>(a[l])} - static_cast<i32>(b[l])
                      : i64{static_cast<i32>(a[l])} + static_cast<i32>(b[l]);
    r.u[l] = static_cast<u32>(I.clamp ? std::clamp<i64>(x, INT32_MIN, INT32_MAX) : x);
  }
  vwrite(w, I.ops[0], r.u);
}

// v_add_i16 / v_sub_i16: 16-bit signed, wraps or saturates with clamp.
template <bool Sub>
void v_addsub_i16(Wave& w, const Inst& I) {
  refuse_unmodelled(I, false);
  Lanes a, b, r;
  src16(w, I.ops[1], I.op_sel & 1, false, false, a.u);
  src16(w, I.ops[2], (I.op_sel >> 1) & 1, false, false, b.u);
  for (int l = 0; l < kLanes; ++l) {
    const i32 x = static_cast<std::int16_t>(a.u[l]), y = static_cast<std::int16_t>(b.u[l]);
    const i32 s = Sub ? x - y : x + y;
    r.u[l] = static_cast<u32>(I.clamp ? std::clamp(s, -32768, 32767) : s) & 0xffffu;
  }
  vwrite(w, I.ops[0], r.u);
}

// v_cvt_pk_i16_i32 (Signed) / v_cvt_pk_u16_u32: each 32-bit source saturated to 16 bits.
template <bool Signed>
void v_cvt_pk_16(Wave& w, const Inst& I) {
  if (I.omod || I.clamp) sim_fail("clamp/omod on v_cvt_pk_*16 is not supported");
  Lanes ta, tb, r;
  const u32* a = vsrc(w, I.ops[1], ta);
  const u32* b = vsrc(w, I.ops[2], tb);
  auto sat = [](u32 x) -> u32 {
    if (Signed) return static_cast<u32>(std::clamp(static_cast<i32>(x), -32768, 32767)) & 0xffffu;
    return std::min(x, 0xffffu);
  };
  for (int l = 0; l < kLanes; ++l) r.u[l] = sat(a[l]) | sat(b[l]) << 16;
  vwrite(w, I.ops[0], r.u);
}

// Normalised 16-bit integer (ISA guide: f32_to_snorm/unorm): NaN -> 0, clamp to [-1, 1] or
// [0, 1], scale by 32767 or 65535, round to nearest even (the rounding is not published: our
// choice, README, the same as v_cvt_norm_*16_f16).
template <bool Signed>
u32 norm16(double x) {
  if (std::isnan(x)) return 0;
  const double c = std::clamp(x, Signed ? -1.0 : 0.0, 1.0) * (Signed ? 32767.0 : 65535.0);
  return static_cast<u32>(static_cast<i32>(std::nearbyint(c))) & 0xffffu;
}

// v_cvt_pknorm_{i16,u16}_f32: D = {norm(S1.f32), norm(S0.f32)}.
template <bool Signed>
void v_cvt_pknorm_f32(Wave& w, const Inst& I) {
  if (I.omod || I.clamp) sim_fail("clamp/omod on v_cvt_pknorm_* is not supported");
  Lanes ta, tb, r;
  const u32* a = fsrc32(w, I.ops[1], ta, w.flush_in32());
  const u32* b = fsrc32(w, I.ops[2], tb, w.flush_in32());
  for (int l = 0; l < kLanes; ++l) r.u[l] = norm16<Signed>(as_float(a[l])) | norm16<Signed>(as_float(b[l])) << 16;
  vwrite(w, I.ops[0], r.u);
}

// v_cvt_pknorm_{i16,u16}_f16: the same on f16 sources (op_sel picks their halves).
template <bool Signed>
void v_cvt_pknorm_f16(Wave& w, const Inst& I) {
  if (I.omod || I.clamp) sim_fail("clamp/omod on v_cvt_pknorm_* is not supported");
  if (I.op_sel & 0x8) sim_fail("destination op_sel on v_cvt_pknorm_*_f16 is not supported");
  Lanes a, b, r;
  src16(w, I.ops[1], I.op_sel & 1, true, w.flush_in16_64(), a.u);
  src16(w, I.ops[2], (I.op_sel >> 1) & 1, true, w.flush_in16_64(), b.u);
  for (int l = 0; l < kLanes; ++l)
    r.u[l] = norm16<Signed>(f16_to_f(a.u[l])) | norm16<Signed>(f16_to_f(b.u[l])) << 16;
  vwrite(w, I.ops[0], r.u);
}

// v_cvt_pkaccum_u8_f32 D, S0, S1: byte S1[1:0] of D becomes u8(S0), the other bytes stay (ISA
// guide: "SQ translates to V_CVT_PK_U8_F32" with D as the third source). u8 as there: round to
// nearest even, saturate to [0, 255], NaN -> 0.
void v_cvt_pkaccum_u8_f32(Wave& w, const Inst& I) {
  if (I.omod || I.clamp) sim_fail("clamp/omod on v_cvt_pkaccum_u8_f32 is not supported");
  Lanes ta, tb, r;
  const u32* a = fsrc32(w, I.ops[1], ta, w.flush_in32());
  const u32* b = vsrc(w, I.ops[2], tb);
  const u32* d = w.row(I.ops[0].reg);
  for (int l = 0; l < kLanes; ++l) {
    const float x = as_float(a[l]);
    const u32 v = std::isnan(x) ? 0u : static_cast<u32>(std::nearbyint(std::clamp(x, 0.0f, 255.0f)));
    const u32 sh = 8 * (b[l] & 3u);
    r.u[l] = (d[l] & ~(0xffu << sh)) | (v << sh);
  }
  vwrite(w, I.ops[0], r.u);
}

}  // namespace

void register_valu_sat(HandlerTable& t) {
  auto set = [&](Opcode op, Handler h) { t[static_cast<std::size_t>(op)] = h; };
  using O = Opcode;
  set(O::v_add_i32, v_addsub_i32<false>);
  set(O::v_sub_i32, v_addsub_i32<true>);
  set(O::v_add_i16, v_addsub_i16<false>);
  set(O::v_sub_i16, v_addsub_i16<true>);
  set(O::v_cvt_pk_i16_i32, v_cvt_pk_16<true>);
  set(O::v_cvt_pk_u16_u32, v_cvt_pk_16<false>);
  set(O::v_cvt_pknorm_i16_f32, v_cvt_pknorm_f32<true>);
  set(O::v_cvt_pknorm_u16_f32, v_cvt_pknorm_f32<false>);
  set(O::v_cvt_pknorm_i16_f16, v_cvt_pknorm_f16<true>);
  set(O::v_cvt_pknorm_u16_f16, v_cvt_pknorm_f16<false>);
  set(O::v_cvt_pkaccum_u8_f32, v_cvt_pkaccum_u8_f32);
}

}  // namespace cdna::simulator
