// Vector ALU unary f16/f32/f64 operations: rounding to integral (trunc/ceil/floor/rndne), fract,
// frexp_mant/frexp_exp, v_ldexp_f16, the f16 transcendentals, v_rcp/rsq/sqrt_f64, v_clrexcp.
//
// Semantics: CDNA3 ISA guide, VOP1/VOP2 opcode descriptions. Rounding to integral is exact (no
// rounding mode involved). v_fract_* computes S0 - floor(S0) rounded under MODE's round mode
// ("Obey round mode") and clamped below 1.0: 0x3f7fffff / 0x3fefffffffffffff as the guide
// states for f32/f64; 0x3bff for f16, for which the guide says nothing but LLVM replaces
// fmin(x - floor(x), nextafter(1.0, 0)) by v_fract in every legal type, f16 included
// (AMDGPUCodeGenPrepare.cpp, matchFractPat). v_frexp_*: the C frexp() decomposition
// (significand in [0.5, 1) with the sign, exponent such that S0 = significand * 2^exponent),
// 0 for the exponent of ±0, ±inf and NaN, the significand of ±0, ±inf and NaN being S0 itself
// (the guide's pseudo-code returns S0 unchanged); LLVM lowers llvm.frexp to these instructions
// on gfx9 without fixups (SIISelLowering::lowerFFREXP), which assumes C semantics for zeros and
// denormals. MODE's denormal field of the format flushes inputs and outputs as for every other
// non-transcendental VALU operation. NaN results: the NaN source quieted, else the canonical NaN
// (fp.hpp); f16 transcendentals: transcendental.hpp. This file is compiled with -frounding-math
// (v_fract under HostRound).
#include <algorithm>
#include <cmath>
#include <string>

#include "simulator/exec/fp.hpp"
#include "simulator/exec/handlers.hpp"
#include "simulator/exec/transcendental.hpp"
#include "simulator/exec/valu16.hpp"

namespace cdna::simulator {
namespace {

using u32 = std::uint32_t;
using u64 = std::uint64_t;
using i32 = std::int32_t;

// Nearest-even integral value of x (exact; independent of the host rounding mode): remainder()
// is exact and rounds the quotient to nearest even; the sign of x is kept for zero results.
double rint_even(double x) {
  if (!(std::fabs(x) < 0x1p52)) return x;  // integral already, inf or NaN
  return std::copysign(x - std::remainder(x, 1.0), x);
}

// Refuses output modifiers on instructions whose result they cannot meaningfully apply to
// (integer exponents) or whose effect the guide does not describe (frexp significands).
void refuse_out_mods(const Inst& I, const char* what) {
  if (I.clamp || I.omod) sim_fail(std::string("clamp/omod on ") + what + " is not supported");
}

// ---- f16 (result in bits 15:0, bits 31:16 zeroed)

// D.f16 = F(S0.f16) where F returns an f16 bit pattern from the value (exactly representable
// results, or results F rounds itself under `mode`).
template <auto F>
void f16_unary(Wave& w, const Inst& I) {
  refuse_unmodelled(I, false);
  const u32 mode = w.round16_64();
  const bool fo = w.flush_out16_64();
  Lanes a, r;
  src16(w, I.ops[1], I.op_sel & 1, true, w.flush_in16_64(), a.u);
  const u32* srcs[3] = {a.u, nullptr, nullptr};
  for (int l = 0; l < kLanes; ++l) {
    const u32 h = finish16(F(a.u[l], mode), srcs, 1, l, fo);
    r.u[l] = I.clamp ? clamp16(h, w.dx10_clamp()) : h;
  }
  vwrite(w, I.ops[0], r.u);
}

double h2d(u32 h) { return static_cast<double>(f16_to_f(h)); }
u32 d2h(double x, u32 mode) { return f16_from_f64(x, mode); }

u32 trunc16(u32 h, u32) { return d2h(std::trunc(h2d(h)), kRoundNearest); }
u32 ceil16(u32 h, u32) { return d2h(std::ceil(h2d(h)), kRoundNearest); }
u32 floor16(u32 h, u32) { return d2h(std::floor(h2d(h)), kRoundNearest); }
u32 rndne16(u32 h, u32) { return d2h(rint_even(h2d(h)), kRoundNearest); }
// x + -floor(x) is exact in double (both terms are multiples of 2^-24 below 2^16); an exact
// zero takes the sign IEEE addition gives it under `mode` (zero_sign).
u32 fract16(u32 h, u32 mode) {
  const double x = h2d(h), f = std::floor(x);
  const u32 r = d2h(zero_sign(x - f, std::signbit(x) || !std::signbit(f), mode), mode);
  return r == 0x3c00u ? 0x3bffu : r;  // only 1.0 exceeds the clamp (the result is >= 0 or NaN)
}

void v_frexp_mant_f16(Wave& w, const Inst& I) {
  refuse_out_mods(I, "v_frexp_mant_f16");
  refuse_unmodelled(I, false);
  Lanes a, r;
  src16(w, I.ops[1], I.op_sel & 1, true, w.flush_in16_64(), a.u);
  for (int l = 0; l < kLanes; ++l) {
    const u32 h = a.u[l];
    int e = 0;
    r.u[l] = (h & 0x7c00u) == 0x7c00u || (h & 0x7fffu) == 0 ? h : d2h(std::frexp(h2d(h), &e), kRoundNearest);
  }
  vwrite(w, I.ops[0], r.u);
}
void v_frexp_exp_i16_f16(Wave& w, const Inst& I) {
  refuse_out_mods(I, "v_frexp_exp_i16_f16");
  refuse_unmodelled(I, false);
  Lanes a, r;
  src16(w, I.ops[1], I.op_sel & 1, true, w.flush_in16_64(), a.u);
  for (int l = 0; l < kLanes; ++l) {
    const u32 h = a.u[l];
    int e = 0;
    if ((h & 0x7c00u) != 0x7c00u) std::frexp(h2d(h), &e);
    r.u[l] = static_cast<u32>(e) & 0xffffu;
  }
  vwrite(w, I.ops[0], r.u);
}

// v_ldexp_f16: D.f16 = S0.f16 * 2^S1.i16, rounded once under MODE's fp16 round mode. The
// exponent is clamped to [-64, 64] first: beyond that every nonzero f16 value overflows or lies
// below half the smallest subnormal either way, so the rounding is unchanged, and the product
// is exact in double.
void v_ldexp_f16(Wave& w, const Inst& I) {
  refuse_unmodelled(I, false);
  if (I.ops[2].neg || I.ops[2].abs) sim_fail("neg/abs on the integer operand of v_ldexp_f16 is not supported");
  const u32 mode = w.round16_64();
  const bool fo = w.flush_out16_64();
  Lanes a, b, r;
  src16(w, I.ops[1], I.op_sel & 1, true, w.flush_in16_64(), a.u);
  src16(w, I.ops[2], (I.op_sel >> 1) & 1, false, false, b.u);
  const u32* srcs[3] = {a.u, nullptr, nullptr};
  for (int l = 0; l < kLanes; ++l) {
    const int e = std::clamp(static_cast<int>(static_cast<std::int16_t>(b.u[l])), -64, 64);
    const u32 h = finish16(d2h(std::ldexp(h2d(a.u[l]), e), mode), srcs, 1, l, fo);
    r.u[l] = I.clamp ? clamp16(h, w.dx10_clamp()) : h;
  }
  vwrite(w, I.ops[0], r.u);
}

// f16 transcendentals: correctly rounded or the seeded 1-ULP envelope (transcendental.hpp);
// f16 denormals as MODE's fp16/fp64 field says ("denormals are supported").
template <Trans T>
void vtrans16(Wave& w, const Inst& I) {
  refuse_unmodelled(I, false);
  const bool fo = w.flush_out16_64();
  Lanes a, r;
  src16(w, I.ops[1], I.op_sel & 1, true, w.flush_in16_64(), a.u);
  const auto& env = w.env->transcendental_envelope;
  for (int l = 0; l < kLanes; ++l) {
    u32 h = env ? trans_envelope16(T, a.u[l], *env) : trans_nearest16(T, a.u[l]);
    h = fo ? ftz16(h) : h;
    r.u[l] = I.clamp ? clamp16(h, w.dx10_clamp()) : h;
  }
  vwrite(w, I.ops[0], r.u);
}

// ---- f32

void v_fract_f32(Wave& w, const Inst& I) {
  HostRound host_mode(w.round32());
  Lanes ta, r;
  const u32* a = fsrc32(w, I.ops[1], ta, w.flush_in32());
  constexpr float kBelowOne = 0x1.fffffep-1f;
  for (int l = 0; l < kLanes; ++l) {
    const float x = as_float(a[l]);
    const float d = x - std::floor(x);  // NaN for a NaN or infinite x
    r.u[l] = std::isnan(d) ? 0x7fc00000u : fbits(std::fmin(d, kBelowOne));
  }
  fix_nans32(r.u, a, nullptr, nullptr);
  fdst32(w, I, r.u, w.flush_out32());
}
void v_frexp_mant_f32(Wave& w, const Inst& I) {
  refuse_out_mods(I, "v_frexp_mant_f32");
  Lanes ta, r;
  const u32* a = fsrc32(w, I.ops[1], ta, w.flush_in32());
  for (int l = 0; l < kLanes; ++l) {
    const float x = as_float(a[l]);
    int e = 0;
    r.u[l] = std::isfinite(x) && x != 0.0f ? fbits(std::frexp(x, &e)) : a[l];
  }
  vwrite(w, I.ops[0], r.u);
}
void v_frexp_exp_i32_f32(Wave& w, const Inst& I) {
  refuse_out_mods(I, "v_frexp_exp_i32_f32");
  Lanes ta, r;
  const u32* a = fsrc32(w, I.ops[1], ta, w.flush_in32());
  for (int l = 0; l < kLanes; ++l) {
    int e = 0;
    if (std::isfinite(as_float(a[l]))) std::frexp(as_float(a[l]), &e);
    r.u[l] = static_cast<u32>(e);
  }
  vwrite(w, I.ops[0], r.u);
}

// ---- f64

template <auto F>
void d_round(Wave& w, const Inst& I) {  // exact
  Lanes64 a, r;
  fsrc64(w, I.ops[1], a, w.flush_in16_64());
  for (int l = 0; l < kLanes; ++l)
    r.u[l] = is_nan64(a.u[l]) ? a.u[l] | 0x0008000000000000ull : dbits(F(as_double(a.u[l])));
  fdst64(w, I, r, w.flush_out16_64());
}
void v_fract_f64(Wave& w, const Inst& I) {
  HostRound host_mode(w.round16_64());
  Lanes64 a, r;
  fsrc64(w, I.ops[1], a, w.flush_in16_64());
  constexpr double kBelowOne = 0x1.fffffffffffffp-1;
  for (int l = 0; l < kLanes; ++l) {
    const double x = as_double(a.u[l]);
    const double d = x - std::floor(x);
    r.u[l] = std::isnan(d) ? 0x7ff8000000000000ull : dbits(std::fmin(d, kBelowOne));
  }
  fix_nans64(r.u, a.u, nullptr, nullptr);
  fdst64(w, I, r, w.flush_out16_64());
}
void v_frexp_mant_f64(Wave& w, const Inst& I) {
  refuse_out_mods(I, "v_frexp_mant_f64");
  Lanes64 a, r;
  fsrc64(w, I.ops[1], a, w.flush_in16_64());
  for (int l = 0; l < kLanes; ++l) {
    const double x = as_double(a.u[l]);
    int e = 0;
    r.u[l] = std::isfinite(x) && x != 0.0 ? dbits(std::frexp(x, &e)) : a.u[l];
  }
  vwrite64(w, I.ops[0], r);
}
void v_frexp_exp_i32_f64(Wave& w, const Inst& I) {
  refuse_out_mods(I, "v_frexp_exp_i32_f64");
  Lanes64 a;
  Lanes r;
  fsrc64(w, I.ops[1], a, w.flush_in16_64());
  for (int l = 0; l < kLanes; ++l) {
    int e = 0;
    if (std::isfinite(as_double(a.u[l]))) std::frexp(as_double(a.u[l]), &e);
    r.u[l] = static_cast<u32>(e);
  }
  vwrite(w, I.ops[0], r.u);
}

// v_rcp/rsq/sqrt_f64: correctly rounded, or the seeded 2^29-ULP envelope (transcendental.hpp).
template <Trans T>
void vtrans64(Wave& w, const Inst& I) {
  Lanes64 a, r;
  fsrc64(w, I.ops[1], a, w.flush_in16_64());
  const auto& env = w.env->transcendental_envelope;
  for (int l = 0; l < kLanes; ++l) r.u[l] = env ? trans_envelope64(T, a.u[l], *env) : trans_nearest64(T, a.u[l]);
  fix_nans64(r.u, a.u, nullptr, nullptr);
  fdst64(w, I, r, w.flush_out16_64());
}

// v_clrexcp clears the wave's VALU exception state; the simulator keeps none (no exception
// flags, traps or TRAPSTS excp bits are modelled), so nothing changes.
void v_clrexcp(Wave&, const Inst&) {}

}  // namespace

void register_valu_unary(HandlerTable& t) {
  auto set = [&](Opcode op, Handler h) { t[static_cast<std::size_t>(op)] = h; };
  using O = Opcode;
  set(O::v_trunc_f16, f16_unary<trunc16>);
  set(O::v_ceil_f16, f16_unary<ceil16>);
  set(O::v_floor_f16, f16_unary<floor16>);
  set(O::v_rndne_f16, f16_unary<rndne16>);
  set(O::v_fract_f16, f16_unary<fract16>);
  set(O::v_frexp_mant_f16, v_frexp_mant_f16);
  set(O::v_frexp_exp_i16_f16, v_frexp_exp_i16_f16);
  set(O::v_ldexp_f16, v_ldexp_f16);
  set(O::v_exp_f16, vtrans16<Trans::Exp2>);
  set(O::v_log_f16, vtrans16<Trans::Log2>);
  set(O::v_rcp_f16, vtrans16<Trans::Rcp>);
  set(O::v_rsq_f16, vtrans16<Trans::Rsq>);
  set(O::v_sqrt_f16, vtrans16<Trans::Sqrt>);
  set(O::v_sin_f16, vtrans16<Trans::Sin>);
  set(O::v_cos_f16, vtrans16<Trans::Cos>);

  set(O::v_fract_f32, v_fract_f32);
  set(O::v_frexp_mant_f32, v_frexp_mant_f32);
  set(O::v_frexp_exp_i32_f32, v_frexp_exp_i32_f32);

  set(O::v_trunc_f64, d_round<([](double x) { return std::trunc(x); })>);
  set(O::v_ceil_f64, d_round<([](double x) { return std::ceil(x); })>);
  set(O::v_floor_f64, d_round<([](double x) { return std::floor(x); })>);
  set(O::v_rndne_f64, d_round<rint_even>);
  set(O::v_fract_f64, v_fract_f64);
  set(O::v_frexp_mant_f64, v_frexp_mant_f64);
  set(O::v_frexp_exp_i32_f64, v_frexp_exp_i32_f64);
  set(O::v_rcp_f64, vtrans64<Trans::Rcp>);
  set(O::v_rsq_f64, vtrans64<Trans::Rsq>);
  set(O::v_sqrt_f64, vtrans64<Trans::Sqrt>);

  set(O::v_clrexcp, v_clrexcp);
}

}  // namespace cdna::simulator
