// Vector ALU floating point: f32/f64 arithmetic, min/max, fma, compares, class tests,
// conversions and the transcendental unit (v_exp/log/rcp/rsq/sqrt/sin/cos_f32).
//
// Rounding: f32 operations follow MODE's fp32 round mode and f64 operations the fp64/fp16 one,
// with the host's FPU switched to that mode for the instruction (HostRound; this file is
// compiled with -frounding-math). Conversions round in the mode of their destination format
// (v_cvt_f16_f32: fp16/fp64 field, as LLVM's SIModeRegister sets FP_ROUND_MODE_DP for it;
// v_cvt_f32_f64: the fp32 field, a modelling choice: the ISA guide does not say).
// v_cvt_pkrtz_f16_f32 always rounds toward zero.
//
// Transcendentals (simulator/exec/transcendental.hpp): correctly rounded to nearest even whatever
// MODE's round mode, or the seeded 1-ULP envelope (SchedulerOptions::transcendental_envelope),
// then denormals flushed (inputs and results) as the ISA guide states.
#include <algorithm>
#include <cmath>
#include <limits>

#include "simulator/exec/fp.hpp"
#include "simulator/exec/handlers.hpp"
#include "simulator/exec/fp_lanes.hpp"
#include "simulator/exec/transcendental.hpp"

namespace cdna::simulator {
namespace {

using u32 = std::uint32_t;
using u64 = std::uint64_t;
using i32 = std::int32_t;

// ---- generic f32 shapes

template <auto F>
void f1(Wave& w, const Inst& I) {  // D = F(S0), rounding op
  HostRound host_mode(w.round32());
  Lanes ta, r;
  const u32* a = fsrc32(w, I.ops[1], ta, w.flush_in32());
  for (int l = 0; l < kLanes; ++l) r.u[l] = fbits(F(as_float(a[l])));
  fix_nans32(r.u, a, nullptr, nullptr);
  fdst32(w, I, r.u, w.flush_out32());
}
template <auto F>
void f2(Wave& w, const Inst& I) {
  HostRound host_mode(w.round32());
  Lanes ta, tb, r;
  bool fi = w.flush_in32();
  const u32* a = fsrc32(w, I.ops[I.src0], ta, fi);
  const u32* b = fsrc32(w, I.ops[I.src0 + 1], tb, fi);
  for (int l = 0; l < kLanes; ++l) r.u[l] = fbits(F(as_float(a[l]), as_float(b[l])));
  fix_nans32(r.u, a, b, nullptr);
  fdst32(w, I, r.u, w.flush_out32());
}
template <auto F>
void f3(Wave& w, const Inst& I) {
  HostRound host_mode(w.round32());
  Lanes ta, tb, tc, r;
  bool fi = w.flush_in32();
  const u32* a = fsrc32(w, I.ops[I.src0], ta, fi);
  const u32* b = fsrc32(w, I.ops[I.src0 + 1], tb, fi);
  const u32* c = fsrc32(w, I.ops[I.src0 + 2], tc, fi);
  for (int l = 0; l < kLanes; ++l) r.u[l] = fbits(F(as_float(a[l]), as_float(b[l]), as_float(c[l])));
  fix_nans32(r.u, a, b, c);
  fdst32(w, I, r.u, w.flush_out32());
}

// v_fmac_f32: D = S0 * S1 + D
void v_fmac_f32(Wave& w, const Inst& I) {
  Lanes ta, tb, tc, r;
  bool fi = w.flush_in32();
  const u32* a = fsrc32(w, I.ops[1], ta, fi);
  const u32* b = fsrc32(w, I.ops[2], tb, fi);
  Operand d = I.ops[0];
  d.neg = d.abs = false;
  const u32* c = fsrc32(w, d, tc, fi);
  fma32_lanes(a, b, c, r.u, w.round32());
  HostRound host_mode(w.round32());  // omod
  fix_nans32(r.u, a, b, c);
  fdst32(w, I, r.u, w.flush_out32());
}

// Fused multiply-add: ops = vdst, src0, src1, src2 (v_fmamk/v_fmaak spell the constant as a
// source in the same order).
void v_fma_f32(Wave& w, const Inst& I) {
  Lanes ta, tb, tc, r;
  bool fi = w.flush_in32();
  const u32* a = fsrc32(w, I.ops[1], ta, fi);
  const u32* b = fsrc32(w, I.ops[2], tb, fi);
  const u32* c = fsrc32(w, I.ops[3], tc, fi);
  fma32_lanes(a, b, c, r.u, w.round32());
  HostRound host_mode(w.round32());  // omod
  fix_nans32(r.u, a, b, c);
  fdst32(w, I, r.u, w.flush_out32());
}

// ---- min/max (IEEE mode: a signalling NaN gives a quiet NaN; a quiet NaN loses to a
// number). -0 is treated as less than +0.
inline bool is_snan32(u32 x) { return is_nan32(x) && !(x & 0x00400000u); }

template <bool Max>
u32 fminmax(u32 a, u32 b, bool ieee) {
  bool na = is_nan32(a), nb = is_nan32(b);
  if (na || nb) {
    if (ieee && is_snan32(a)) return a | 0x00400000u;
    if (ieee && is_snan32(b)) return b | 0x00400000u;
    if (na && nb) return a | 0x00400000u;
    return na ? b : a;
  }
  float x = as_float(a), y = as_float(b);
  if (x == y) {  // equal, or +0/-0
    bool sa = a >> 31, sb = b >> 31;
    if (Max) return sa && !sb ? b : a;
    return !sa && sb ? b : a;
  }
  return Max ? (x > y ? a : b) : (x < y ? a : b);
}

template <bool Max>
void v_minmax_f32(Wave& w, const Inst& I) {
  Lanes ta, tb, r;
  bool fi = w.flush_in32();
  const u32* a = fsrc32(w, I.ops[1], ta, fi);
  const u32* b = fsrc32(w, I.ops[2], tb, fi);
  if (Max) max32_lanes(a, b, r.u, w.ieee());
  else min32_lanes(a, b, r.u, w.ieee());
  fdst32(w, I, r.u, w.flush_out32());
}
template <int Kind>  // 0 min3, 1 max3, 2 med3
void v_minmax3_f32(Wave& w, const Inst& I) {
  Lanes ta, tb, tc, r;
  bool fi = w.flush_in32();
  bool ieee = w.ieee();
  const u32* a = fsrc32(w, I.ops[1], ta, fi);
  const u32* b = fsrc32(w, I.ops[2], tb, fi);
  const u32* c = fsrc32(w, I.ops[3], tc, fi);
  for (int l = 0; l < kLanes; ++l) {
    if (Kind == 0) {
      r.u[l] = fminmax<false>(fminmax<false>(a[l], b[l], ieee), c[l], ieee);
    } else if (Kind == 1) {
      r.u[l] = fminmax<true>(fminmax<true>(a[l], b[l], ieee), c[l], ieee);
    } else if (is_nan32(a[l]) || is_nan32(b[l]) || is_nan32(c[l])) {
      // ISA: with any NaN source, med3 returns min3.
      r.u[l] = fminmax<false>(fminmax<false>(a[l], b[l], ieee), c[l], ieee);
    } else {
      u32 mx = fminmax<true>(fminmax<true>(a[l], b[l], ieee), c[l], ieee);
      if (mx == a[l]) r.u[l] = fminmax<true>(b[l], c[l], ieee);
      else if (mx == b[l]) r.u[l] = fminmax<true>(a[l], c[l], ieee);
      else r.u[l] = fminmax<true>(a[l], b[l], ieee);
    }
  }
  fdst32(w, I, r.u, w.flush_out32());
}

// ---- transcendental unit: flushes input and output denormals regardless of MODE.

template <Trans F>
void vtrans(Wave& w, const Inst& I) {
  Lanes ta, r;
  const u32* a = fsrc32(w, I.ops[1], ta, true);
  if (w.env->transcendental_envelope) {
    const u64 seed = *w.env->transcendental_envelope;
    for (int l = 0; l < kLanes; ++l) r.u[l] = trans_envelope(F, a[l], seed);
  } else {
    for (int l = 0; l < kLanes; ++l) r.u[l] = trans_nearest(F, a[l]);
  }
  fix_nans32(r.u, a, nullptr, nullptr);
  fdst32(w, I, r.u, true);
}

// ---- rounding to integral (exact; no rounding mode involved)
template <auto F>
void fround(Wave& w, const Inst& I) {
  Lanes ta, r;
  const u32* a = fsrc32(w, I.ops[1], ta, w.flush_in32());
  for (int l = 0; l < kLanes; ++l) r.u[l] = is_nan32(a[l]) ? a[l] | 0x00400000u : fbits(F(as_float(a[l])));
  fdst32(w, I, r.u, w.flush_out32());
}

// ---- conversions

template <bool Signed>
u32 cvt_int_from_f32(float x) {
  if (std::isnan(x)) return 0;
  if (Signed) {
    if (x >= 2147483648.0f) return 0x7fffffffu;
    if (x < -2147483648.0f) return 0x80000000u;
    return static_cast<u32>(static_cast<i32>(x));
  }
  if (x >= 4294967296.0f) return 0xffffffffu;
  if (x <= 0.0f) return 0;
  return static_cast<u32>(x);
}

template <auto F>
void cvt_to_int(Wave& w, const Inst& I) {  // f32 -> integer bits
  Lanes ta, r;
  const u32* a = fsrc32(w, I.ops[1], ta, w.flush_in32());
  for (int l = 0; l < kLanes; ++l) r.u[l] = F(as_float(a[l]));
  vwrite(w, I.ops[0], r.u);
}
template <auto F>
void cvt_from_int(Wave& w, const Inst& I) {  // integer bits -> f32 (rounds)
  HostRound host_mode(w.round32());
  Lanes ta, r;
  const u32* a = vsrc(w, I.ops[1], ta);
  for (int l = 0; l < kLanes; ++l) r.u[l] = fbits(F(a[l]));
  fdst32(w, I, r.u, w.flush_out32());
}

void v_cvt_f16_f32(Wave& w, const Inst& I) {
  Lanes ta, r;
  const u32* a = fsrc32(w, I.ops[1], ta, w.flush_in32());
  const bool fo = w.flush_out16_64();
  const u32 mode = w.round16_64();
  for (int l = 0; l < kLanes; ++l) {  // high half zeroed
    const u32 h = f16_from_f64(static_cast<double>(as_float(a[l])), mode);
    r.u[l] = fo ? ftz16(h) : h;
  }
  if (I.clamp || I.omod) sim_fail("clamp/omod on v_cvt_f16_f32 is not supported");
  vwrite(w, I.ops[0], r.u);
}
void v_cvt_f32_f16(Wave& w, const Inst& I) {
  Lanes ta, r;
  const u32* a = vsrc(w, I.ops[1], ta);
  const Operand& o = I.ops[1];
  bool fi = w.flush_in16_64();
  for (int l = 0; l < kLanes; ++l) {
    std::uint16_t h = static_cast<std::uint16_t>(a[l]);
    if (o.abs) h &= 0x7fff;
    if (o.neg) h ^= 0x8000;
    r.u[l] = f32_bits_from_f16(h, fi);
  }
  fdst32(w, I, r.u, w.flush_out32());
}
void v_cvt_pkrtz_f16_f32(Wave& w, const Inst& I) {
  Lanes ta, tb, r;
  bool fi = w.flush_in32();
  bool fo = w.flush_out16_64();
  const u32* a = fsrc32(w, I.ops[1], ta, fi);
  const u32* b = fsrc32(w, I.ops[2], tb, fi);
  auto rtz = [fo](u32 x) {
    const u32 h = f16_from_f64(static_cast<double>(as_float(x)), kRoundZero);
    return fo ? ftz16(h) : h;
  };
  for (int l = 0; l < kLanes; ++l) r.u[l] = rtz(a[l]) | (rtz(b[l]) << 16);
  vwrite(w, I.ops[0], r.u);
}

// ---- f64

template <auto F>
void d2(Wave& w, const Inst& I) {
  HostRound host_mode(w.round16_64());
  Lanes64 a, b, r;
  bool fi = w.flush_in16_64();
  fsrc64(w, I.ops[1], a, fi);
  fsrc64(w, I.ops[2], b, fi);
  for (int l = 0; l < kLanes; ++l) r.u[l] = dbits(F(as_double(a.u[l]), as_double(b.u[l])));
  fix_nans64(r.u, a.u, b.u, nullptr);
  fdst64(w, I, r, w.flush_out16_64());
}
void v_fma_f64(Wave& w, const Inst& I) {
  HostRound host_mode(w.round16_64());
  Lanes64 a, b, c, r;
  bool fi = w.flush_in16_64();
  fsrc64(w, I.ops[1], a, fi);
  fsrc64(w, I.ops[2], b, fi);
  fsrc64(w, I.ops[3], c, fi);
  for (int l = 0; l < kLanes; ++l) r.u[l] = dbits(std::fma(as_double(a.u[l]), as_double(b.u[l]), as_double(c.u[l])));
  fix_nans64(r.u, a.u, b.u, c.u);
  fdst64(w, I, r, w.flush_out16_64());
}
void v_fmac_f64(Wave& w, const Inst& I) {
  HostRound host_mode(w.round16_64());
  Lanes64 a, b, c, r;
  bool fi = w.flush_in16_64();
  fsrc64(w, I.ops[1], a, fi);
  fsrc64(w, I.ops[2], b, fi);
  Operand d = I.ops[0];
  d.neg = d.abs = false;
  fsrc64(w, d, c, fi);
  for (int l = 0; l < kLanes; ++l) r.u[l] = dbits(std::fma(as_double(a.u[l]), as_double(b.u[l]), as_double(c.u[l])));
  fix_nans64(r.u, a.u, b.u, c.u);
  fdst64(w, I, r, w.flush_out16_64());
}
template <bool Max>
void v_minmax_f64(Wave& w, const Inst& I) {
  Lanes64 a, b, r;
  bool fi = w.flush_in16_64();
  fsrc64(w, I.ops[1], a, fi);
  fsrc64(w, I.ops[2], b, fi);
  bool ieee = w.ieee();
  for (int l = 0; l < kLanes; ++l) {
    u64 x = a.u[l], y = b.u[l];
    bool nx = is_nan64(x), ny = is_nan64(y);
    constexpr u64 q = 0x0008000000000000ull;
    if (nx || ny) {
      if (ieee && nx && !(x & q)) r.u[l] = x | q;
      else if (ieee && ny && !(y & q)) r.u[l] = y | q;
      else if (nx && ny) r.u[l] = x | q;
      else r.u[l] = nx ? y : x;
    } else if (as_double(x) == as_double(y)) {
      bool sx = x >> 63, sy = y >> 63;
      r.u[l] = Max ? (sx && !sy ? y : x) : (!sx && sy ? y : x);
    } else {
      r.u[l] = Max ? (as_double(x) > as_double(y) ? x : y) : (as_double(x) < as_double(y) ? x : y);
    }
  }
  fdst64(w, I, r, w.flush_out16_64());
}
void v_ldexp_f64(Wave& w, const Inst& I) {
  HostRound host_mode(w.round16_64());
  Lanes64 a, r;
  Lanes tb;
  fsrc64(w, I.ops[1], a, w.flush_in16_64());
  const u32* b = vsrc(w, I.ops[2], tb);
  for (int l = 0; l < kLanes; ++l) {
    i32 e = static_cast<i32>(b[l]);
    e = std::clamp(e, -4096, 4096);
    r.u[l] = is_nan64(a.u[l]) ? a.u[l] | 0x0008000000000000ull : dbits(std::ldexp(as_double(a.u[l]), e));
  }
  fdst64(w, I, r, w.flush_out16_64());
}
void v_ldexp_f32(Wave& w, const Inst& I) {
  HostRound host_mode(w.round32());
  Lanes ta, tb, r;
  const u32* a = fsrc32(w, I.ops[1], ta, w.flush_in32());
  const u32* b = vsrc(w, I.ops[2], tb);
  for (int l = 0; l < kLanes; ++l) {
    i32 e = std::clamp(static_cast<i32>(b[l]), -512, 512);
    r.u[l] = is_nan32(a[l]) ? a[l] | 0x00400000u : fbits(std::ldexp(as_float(a[l]), e));
  }
  fdst32(w, I, r.u, w.flush_out32());
}
void v_cvt_f64_f32(Wave& w, const Inst& I) {
  Lanes ta;
  Lanes64 r;
  const u32* a = fsrc32(w, I.ops[1], ta, w.flush_in32());
  for (int l = 0; l < kLanes; ++l)
    r.u[l] = is_nan32(a[l]) ? dbits(static_cast<double>(as_float(a[l] | 0x00400000u)))
                            : dbits(static_cast<double>(as_float(a[l])));
  fdst64(w, I, r, false);
}
void v_cvt_f32_f64(Wave& w, const Inst& I) {
  HostRound host_mode(w.round32());
  Lanes64 a;
  Lanes r;
  fsrc64(w, I.ops[1], a, w.flush_in16_64());
  for (int l = 0; l < kLanes; ++l)
    r.u[l] = is_nan64(a.u[l]) ? (static_cast<u32>(a.u[l] >> 32) & 0x80000000u) | 0x7fc00000u |
                                    static_cast<u32>((a.u[l] >> 29) & 0x3fffffu)
                              : fbits(static_cast<float>(as_double(a.u[l])));
  fdst32(w, I, r.u, w.flush_out32());
}
template <bool Signed>
void v_cvt_int_f64(Wave& w, const Inst& I) {
  Lanes64 a;
  Lanes r;
  fsrc64(w, I.ops[1], a, w.flush_in16_64());
  for (int l = 0; l < kLanes; ++l) {
    double x = as_double(a.u[l]);
    u32 v;
    if (std::isnan(x)) v = 0;
    else if (Signed) v = x >= 2147483647.0 ? 0x7fffffffu : x <= -2147483648.0 ? 0x80000000u
                                                         : static_cast<u32>(static_cast<i32>(x));
    else v = x >= 4294967295.0 ? 0xffffffffu : x <= 0.0 ? 0u : static_cast<u32>(x);
    r.u[l] = v;
  }
  vwrite(w, I.ops[0], r.u);
}
template <bool Signed>
void v_cvt_f64_int(Wave& w, const Inst& I) {
  Lanes ta;
  Lanes64 r;
  const u32* a = vsrc(w, I.ops[1], ta);
  for (int l = 0; l < kLanes; ++l)
    r.u[l] = dbits(Signed ? static_cast<double>(static_cast<i32>(a[l])) : static_cast<double>(a[l]));
  fdst64(w, I, r, false);
}

// ---- compares

enum class FCmp { F, LT, EQ, LE, GT, LG, GE, O, U, NGE, NLG, NGT, NLE, NEQ, NLT, TRU };

template <FCmp C, class T>
bool fcmp(T a, T b) {
  bool un = std::isnan(a) || std::isnan(b);
  switch (C) {
    case FCmp::F: return false;
    case FCmp::LT: return a < b;
    case FCmp::EQ: return a == b;
    case FCmp::LE: return a <= b;
    case FCmp::GT: return a > b;
    case FCmp::LG: return !un && a != b;
    case FCmp::GE: return a >= b;
    case FCmp::O: return !un;
    case FCmp::U: return un;
    case FCmp::NGE: return !(a >= b);
    case FCmp::NLG: return un || a == b;
    case FCmp::NGT: return !(a > b);
    case FCmp::NLE: return !(a <= b);
    case FCmp::NEQ: return !(a == b);
    case FCmp::NLT: return !(a < b);
    case FCmp::TRU: return true;
  }
  return false;
}

template <FCmp C, bool X>
void vcmp_f32(Wave& w, const Inst& I) {
  Lanes ta, tb;
  bool fi = w.flush_in32();
  const u32* a = fsrc32(w, I.ops[1], ta, fi);
  const u32* b = fsrc32(w, I.ops[2], tb, fi);
  u64 bits = 0;
  for (int l = 0; l < kLanes; ++l) bits |= u64{fcmp<C>(as_float(a[l]), as_float(b[l]))} << l;
  bits &= w.exec();
  write_s64(w, I.ops[0], bits);
  if (X) w.set_exec(bits);
}
template <FCmp C, bool X>
void vcmp_f64(Wave& w, const Inst& I) {
  Lanes64 a, b;
  bool fi = w.flush_in16_64();
  fsrc64(w, I.ops[1], a, fi);
  fsrc64(w, I.ops[2], b, fi);
  u64 bits = 0;
  for (int l = 0; l < kLanes; ++l) bits |= u64{fcmp<C>(as_double(a.u[l]), as_double(b.u[l]))} << l;
  bits &= w.exec();
  write_s64(w, I.ops[0], bits);
  if (X) w.set_exec(bits);
}

// Class bits: 0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -denormal, 5 -0, 6 +0, 7 +denormal,
// 8 +normal, 9 +inf. The class of the source as stored (not flushed).
u32 class_bit32(u32 x) {
  bool neg = x >> 31;
  u32 e = (x >> 23) & 0xff, m = x & 0x7fffff;
  if (e == 0xff) return m ? ((m & 0x400000) ? 1 : 0) : (neg ? 2 : 9);
  if (e == 0) return m ? (neg ? 4 : 7) : (neg ? 5 : 6);
  return neg ? 3 : 8;
}
u32 class_bit64(u64 x) {
  bool neg = x >> 63;
  u64 e = (x >> 52) & 0x7ff, m = x & 0xfffffffffffffull;
  if (e == 0x7ff) return m ? ((m >> 51) & 1 ? 1 : 0) : (neg ? 2 : 9);
  if (e == 0) return m ? (neg ? 4 : 7) : (neg ? 5 : 6);
  return neg ? 3 : 8;
}
template <bool X>
void v_cmp_class_f32(Wave& w, const Inst& I) {
  Lanes ta, tb;
  const u32* a = fsrc32(w, I.ops[1], ta, false);
  const u32* b = vsrc(w, I.ops[2], tb);
  u64 bits = 0;
  for (int l = 0; l < kLanes; ++l) bits |= u64{(b[l] >> class_bit32(a[l])) & 1} << l;
  bits &= w.exec();
  write_s64(w, I.ops[0], bits);
  if (X) w.set_exec(bits);
}
template <bool X>
void v_cmp_class_f64(Wave& w, const Inst& I) {
  Lanes64 a;
  Lanes tb;
  fsrc64(w, I.ops[1], a, false);
  const u32* b = vsrc(w, I.ops[2], tb);
  u64 bits = 0;
  for (int l = 0; l < kLanes; ++l) bits |= u64{(b[l] >> class_bit64(a.u[l])) & 1} << l;
  bits &= w.exec();
  write_s64(w, I.ops[0], bits);
  if (X) w.set_exec(bits);
}

}  // namespace

void register_valu_fp(HandlerTable& t) {
  auto set = [&](Opcode op, Handler h) { t[static_cast<std::size_t>(op)] = h; };
  using O = Opcode;
  set(O::v_add_f32, f2<([](float a, float b) { return a + b; })>);
  set(O::v_sub_f32, f2<([](float a, float b) { return a - b; })>);
  set(O::v_subrev_f32, f2<([](float a, float b) { return b - a; })>);
  set(O::v_mul_f32, f2<([](float a, float b) { return a * b; })>);
  // Legacy multiply: 0 * anything (including inf and NaN) is 0.
  set(O::v_mul_legacy_f32, f2<([](float a, float b) { return (a == 0.0f || b == 0.0f) ? 0.0f : a * b; })>);
  set(O::v_fma_f32, v_fma_f32);
  set(O::v_fmaak_f32, v_fma_f32);
  set(O::v_fmamk_f32, v_fma_f32);
  set(O::v_fmac_f32, v_fmac_f32);
  set(O::v_min_f32, v_minmax_f32<false>);
  set(O::v_max_f32, v_minmax_f32<true>);
  set(O::v_min3_f32, v_minmax3_f32<0>);
  set(O::v_max3_f32, v_minmax3_f32<1>);
  set(O::v_med3_f32, v_minmax3_f32<2>);
  set(O::v_ldexp_f32, v_ldexp_f32);

  set(O::v_exp_f32, vtrans<Trans::Exp2>);
  set(O::v_log_f32, vtrans<Trans::Log2>);
  set(O::v_rcp_f32, vtrans<Trans::Rcp>);
  set(O::v_rcp_iflag_f32, vtrans<Trans::Rcp>);
  set(O::v_rsq_f32, vtrans<Trans::Rsq>);
  set(O::v_sqrt_f32, vtrans<Trans::Sqrt>);
  set(O::v_sin_f32, vtrans<Trans::Sin>);
  set(O::v_cos_f32, vtrans<Trans::Cos>);
  // The legacy forms: the ISA guide gives the same formula (2^x, log2 x) and no further
  // difference; modelled as v_exp_f32/v_log_f32 (simulator/README.md, modelling choices).
  set(O::v_exp_legacy_f32, vtrans<Trans::Exp2>);
  set(O::v_log_legacy_f32, vtrans<Trans::Log2>);

  set(O::v_trunc_f32, fround<([](float x) { return std::trunc(x); })>);
  set(O::v_ceil_f32, fround<([](float x) { return std::ceil(x); })>);
  set(O::v_floor_f32, fround<([](float x) { return std::floor(x); })>);
  set(O::v_rndne_f32, fround<([](float x) { return std::nearbyint(x); })>);

  set(O::v_cvt_f32_i32, cvt_from_int<([](u32 a) { return static_cast<float>(static_cast<i32>(a)); })>);
  set(O::v_cvt_f32_u32, cvt_from_int<([](u32 a) { return static_cast<float>(a); })>);
  set(O::v_cvt_f32_ubyte0, cvt_from_int<([](u32 a) { return static_cast<float>(a & 0xff); })>);
  set(O::v_cvt_f32_ubyte1, cvt_from_int<([](u32 a) { return static_cast<float>((a >> 8) & 0xff); })>);
  set(O::v_cvt_f32_ubyte2, cvt_from_int<([](u32 a) { return static_cast<float>((a >> 16) & 0xff); })>);
  set(O::v_cvt_f32_ubyte3, cvt_from_int<([](u32 a) { return static_cast<float>(a >> 24); })>);
  set(O::v_cvt_i32_f32, cvt_to_int<([](float x) { return cvt_int_from_f32<true>(x); })>);
  set(O::v_cvt_u32_f32, cvt_to_int<([](float x) { return cvt_int_from_f32<false>(x); })>);
  set(O::v_cvt_rpi_i32_f32, cvt_to_int<([](float x) { return cvt_int_from_f32<true>(std::floor(x + 0.5f)); })>);
  set(O::v_cvt_flr_i32_f32, cvt_to_int<([](float x) { return cvt_int_from_f32<true>(std::floor(x)); })>);
  set(O::v_cvt_f16_f32, v_cvt_f16_f32);
  set(O::v_cvt_f32_f16, v_cvt_f32_f16);
  set(O::v_cvt_pkrtz_f16_f32, v_cvt_pkrtz_f16_f32);

  set(O::v_add_f64, d2<([](double a, double b) { return a + b; })>);
  set(O::v_mul_f64, d2<([](double a, double b) { return a * b; })>);
  set(O::v_fma_f64, v_fma_f64);
  set(O::v_fmac_f64, v_fmac_f64);
  set(O::v_min_f64, v_minmax_f64<false>);
  set(O::v_max_f64, v_minmax_f64<true>);
  set(O::v_ldexp_f64, v_ldexp_f64);
  set(O::v_cvt_f64_f32, v_cvt_f64_f32);
  set(O::v_cvt_f32_f64, v_cvt_f32_f64);
  set(O::v_cvt_i32_f64, v_cvt_int_f64<true>);
  set(O::v_cvt_u32_f64, v_cvt_int_f64<false>);
  set(O::v_cvt_f64_i32, v_cvt_f64_int<true>);
  set(O::v_cvt_f64_u32, v_cvt_f64_int<false>);

#define FC(suffix, C)                                          \
  set(O::v_cmp_##suffix##_f32, vcmp_f32<FCmp::C, false>);      \
  set(O::v_cmpx_##suffix##_f32, vcmp_f32<FCmp::C, true>);      \
  set(O::v_cmp_##suffix##_f64, vcmp_f64<FCmp::C, false>);     \
  set(O::v_cmpx_##suffix##_f64, vcmp_f64<FCmp::C, true>);
  FC(f, F) FC(lt, LT) FC(eq, EQ) FC(le, LE) FC(gt, GT) FC(lg, LG) FC(ge, GE) FC(o, O)
  FC(u, U) FC(nge, NGE) FC(nlg, NLG) FC(ngt, NGT) FC(nle, NLE) FC(neq, NEQ) FC(nlt, NLT)
  FC(tru, TRU)
#undef FC
  set(O::v_cmp_class_f32, v_cmp_class_f32<false>);
  set(O::v_cmpx_class_f32, v_cmp_class_f32<true>);
  set(O::v_cmp_class_f64, v_cmp_class_f64<false>);
  set(O::v_cmpx_class_f64, v_cmp_class_f64<true>);
}

}  // namespace cdna::simulator
