// 16-bit VALU: f16 and i16/u16 arithmetic (VOP2/VOP3), packed 16-bit (VOP3P), f16 compares
// and conversions.
//
// Results of the non-packed forms occupy bits 15:0 and zero bits 31:16: on gfx9 these
// instructions zero the high half (LLVM GCNSubtarget::zeroesHigh16BitsOfDest, "derived from
// experimentation"). A destination op_sel (write the high half) is refused, as are omod and
// constants in packed forms, whose exact hardware behaviour this file does not model.
//
// f16 arithmetic: add, sub and mul are exact in f64 (a sum of two f16 spans at most 41 bits, a
// product 22) and rounded once to f16 under MODE's fp16/fp64 round mode (narrow_f64); fma rounds
// the exact value to odd in f64 first (53 >= 11 + 3 bits, so the second rounding is exact in
// every mode). MODE's fp16/fp64 denormal field flushes inputs and (after rounding) results.
#include <cmath>

#include "simulator/exec/fp.hpp"
#include "simulator/exec/handlers.hpp"
#include "simulator/exec/valu16.hpp"

namespace cdna::simulator {
namespace {

using u32 = std::uint32_t;
using u64 = std::uint64_t;

// KeepNan: F already chose the NaN result (min/max), finish16 must not replace it.
template <int N, auto F, bool KeepNan = false>
void f16_op(Wave& w, const Inst& I) {
  refuse_unmodelled(I, false);
  const u32 mode = w.round16_64();
  bool fi = w.flush_in16_64(), fo = w.flush_out16_64();
  Lanes s[3], r;
  const u32* srcs[3];
  for (int i = 0; i < N; ++i) {
    src16(w, I.ops[1 + i], (I.op_sel >> i) & 1, true, fi, s[i].u);
    srcs[i] = s[i].u;
  }
  for (int l = 0; l < kLanes; ++l) {
    u32 h = F(srcs, l, mode);
    h = KeepNan && nan16(h) ? h : finish16(h, srcs, N, l, fo);
    r.u[l] = I.clamp ? clamp16(h, w.dx10_clamp()) : h;
  }
  vwrite(w, I.ops[0], r.u);
}

inline double f16_to_d(u32 h) { return static_cast<double>(f16_to_f(h)); }
inline bool neg16(u32 h) { return (h & 0x8000u) != 0; }

// Exact sum of two f16 values rounded to f16 under `mode` (the host sum runs in nearest-even,
// exact here; zero_sign gives an exact zero its sign for the mode).
inline u32 sum16(u32 a, u32 b, u32 mode) {
  return f16_from_f64(zero_sign(f16_to_d(a) + f16_to_d(b), neg16(a) || neg16(b), mode), mode);
}
u32 add16(const u32* s[3], int l, u32 m) { return sum16(s[0][l], s[1][l], m); }
u32 sub16(const u32* s[3], int l, u32 m) { return sum16(s[0][l], s[1][l] ^ 0x8000u, m); }
u32 subrev16(const u32* s[3], int l, u32 m) { return sum16(s[1][l], s[0][l] ^ 0x8000u, m); }
u32 mul16(const u32* s[3], int l, u32 m) { return f16_from_f64(f16_to_d(s[0][l]) * f16_to_d(s[1][l]), m); }
// Exact product in f64, sum rounded to odd (TwoSum decides the last bit), then one rounding to
// f16 under `mode`: the correctly rounded fma.
u32 fma16(const u32* s[3], int l, u32 mode) {
  double p = f16_to_d(s[0][l]) * f16_to_d(s[1][l]);
  double c = f16_to_d(s[2][l]);
  double sum = p + c;
  if (!std::isfinite(p) || !std::isfinite(c)) return f16_from_f64(sum, mode);
  double bv = sum - p;
  double err = (p - (sum - bv)) + (c - bv);
  std::uint64_t bits = dbits(zero_sign(sum, std::signbit(p) || std::signbit(c), mode));
  if (err != 0 && (bits & 1) == 0) bits = ((err > 0) == (sum > 0)) ? bits + 1 : bits - 1;
  return f16_from_f64(as_double(bits), mode);
}

// min/max on f16 bits with the rules of the f32 forms (fp_lanes.cpp): -0 < +0; a quiet NaN
// loses to a number; two NaNs give the first, quieted; in IEEE mode a signalling NaN wins,
// quieted (src0's first). ISA guide V_MIN_F16/V_MAX_F16 with MODE.IEEE.
inline int key16(u32 h) { return (h & 0x8000u) ? -static_cast<int>(h & 0x7fffu) - 1 : static_cast<int>(h); }
template <bool Max, bool Ieee>
u32 minmax16(const u32* s[3], int l, u32) {
  u32 a = s[0][l], b = s[1][l];
  bool na = nan16(a), nb = nan16(b);
  if (Ieee && na && !(a & 0x0200u)) return a | 0x0200u;
  if (Ieee && nb && !(b & 0x0200u)) return b | 0x0200u;
  if (na && nb) return a | 0x0200u;
  if (na) return b;
  if (nb) return a;
  return Max ? (key16(a) >= key16(b) ? a : b) : (key16(a) <= key16(b) ? a : b);
}
// The handler picks the IEEE or non-IEEE rule from the wave's MODE at run time.
template <bool Max>
void v_minmax_f16(Wave& w, const Inst& I) {
  w.ieee() ? f16_op<2, minmax16<Max, true>, true>(w, I) : f16_op<2, minmax16<Max, false>, true>(w, I);
}

// ---- integer 16-bit
// Sat: what the clamp bit does. 0: nothing modelled; 1: unsigned, 2: signed saturation of the
// exact result, which F then returns as an i32 bit pattern (ISA guide, V_ADD_U16/V_SUB_U16:
// "Supports saturation"; LLVM VOP3PInstructions.td selects uaddsat/saddsat/usubsat/ssubsat
// as V_PK_{ADD,SUB}_{U,I}16 with the clamp bit).
template <int Sat>
u32 sat16(u32 exact) {
  const std::int32_t x = static_cast<std::int32_t>(exact);
  const std::int32_t lo = Sat == 1 ? 0 : -0x8000, hi = Sat == 1 ? 0xffff : 0x7fff;
  return static_cast<u32>(x < lo ? lo : x > hi ? hi : x) & 0xffffu;
}
template <auto F, int Sat = 0>
void i16_op(Wave& w, const Inst& I) {
  refuse_unmodelled(I, false);
  Lanes a, b, r;
  src16(w, I.ops[1], I.op_sel & 1, false, false, a.u);
  src16(w, I.ops[2], (I.op_sel >> 1) & 1, false, false, b.u);
  const bool sat = Sat != 0 && I.clamp;
  for (int l = 0; l < kLanes; ++l) r.u[l] = sat ? sat16<Sat>(F(a.u[l], b.u[l])) : F(a.u[l], b.u[l]) & 0xffffu;
  vwrite(w, I.ops[0], r.u);
}
inline std::int32_t s16(u32 x) { return static_cast<std::int16_t>(static_cast<std::uint16_t>(x)); }

// ---- packed 16-bit: op_sel picks the half feeding the low result, op_sel_hi the high one.
template <int N, auto F, bool Fp, int Sat = 0, bool KeepNan = false>
void pk16(Wave& w, const Inst& I) {
  const u32 mode = w.round16_64();
  if (I.omod) sim_fail("omod on a packed instruction is not supported");
  for (int i = 0; i < N; ++i)
    if (I.ops[1 + i].kind == OperandKind::Const)
      sim_fail("packed 16-bit instruction with a constant operand is not supported");
  bool fi = Fp && w.flush_in16_64(), fo = Fp && w.flush_out16_64();
  u32 sel_hi = I.op_sel_hi_given ? I.op_sel_hi : 0x7;
  Lanes out;
  for (int half = 0; half < 2; ++half) {
    Lanes s[3];
    const u32* srcs[3];
    for (int i = 0; i < N; ++i) {
      bool hi = half == 0 ? (I.op_sel >> i) & 1 : (sel_hi >> i) & 1;
      Operand o = I.ops[1 + i];
      o.neg = Fp && (((half == 0 ? I.neg_lo : I.neg_hi) >> i) & 1);
      o.abs = false;
      src16(w, o, hi, Fp, fi, s[i].u);
      srcs[i] = s[i].u;
    }
    for (int l = 0; l < kLanes; ++l) {
      u32 h = F(srcs, l, mode);
      h = (Sat != 0 && I.clamp) ? sat16<Sat>(h) : h & 0xffffu;
      if (Fp) {
        h = KeepNan && nan16(h) ? h : finish16(h, srcs, N, l, fo);
        if (I.clamp) h = clamp16(h, w.dx10_clamp());
      }
      out.u[l] = half == 0 ? h : (out.u[l] | (h << 16));
    }
  }
  vwrite(w, I.ops[0], out.u);
}

template <bool Max>
void v_pk_minmax_f16(Wave& w, const Inst& I) {
  w.ieee() ? pk16<2, minmax16<Max, true>, true, 0, true>(w, I) : pk16<2, minmax16<Max, false>, true, 0, true>(w, I);
}
template <auto Op>
u32 int2(const u32* s[3], int l, u32) { return Op(s[0][l], s[1][l]); }

// ---- compares and class on f16 (low halves)
enum class C { F, LT, EQ, LE, GT, LG, GE, O, U, NEQ, NLT, NLE, NGT, NGE, NLG, TRU };
// X: v_cmpx_* (the mask also goes to EXEC).
template <C K, bool X = false>
void vcmp16(Wave& w, const Inst& I) {
  Lanes a, b;
  bool fi = w.flush_in16_64();
  src16(w, I.ops[1], I.op_sel & 1, true, fi, a.u);
  src16(w, I.ops[2], (I.op_sel >> 1) & 1, true, fi, b.u);
  u64 bits = 0;
  for (int l = 0; l < kLanes; ++l) {
    float x = f16_to_f(a.u[l]), y = f16_to_f(b.u[l]);
    bool un = std::isnan(x) || std::isnan(y);
    bool r = false;
    switch (K) {
      case C::LT: r = x < y; break;
      case C::EQ: r = x == y; break;
      case C::LE: r = x <= y; break;
      case C::GT: r = x > y; break;
      case C::LG: r = !un && x != y; break;
      case C::GE: r = x >= y; break;
      case C::O: r = !un; break;
      case C::U: r = un; break;
      case C::NEQ: r = !(x == y); break;
      case C::NLT: r = !(x < y); break;
      case C::NLE: r = !(x <= y); break;
      case C::NGT: r = !(x > y); break;
      case C::NGE: r = !(x >= y); break;
      case C::NLG: r = un || x == y; break;
      case C::F: r = false; break;
      case C::TRU: r = true; break;
    }
    bits |= u64{r} << l;
  }
  bits &= w.exec();
  write_s64(w, I.ops[0], bits);
  if (X) w.set_exec(bits);
}
template <bool X>
void v_cmp_class_f16(Wave& w, const Inst& I) {
  Lanes a, b;
  src16(w, I.ops[1], false, true, false, a.u);
  const u32* m = vsrc(w, I.ops[2], b);
  u64 bits = 0;
  for (int l = 0; l < kLanes; ++l) {
    u32 h = a.u[l];
    bool neg = h >> 15;
    u32 e = (h >> 10) & 0x1f, f = h & 0x3ff;
    u32 k = e == 0x1f ? (f ? ((f & 0x200) ? 1u : 0u) : (neg ? 2u : 9u))
            : e == 0 ? (f ? (neg ? 4u : 7u) : (neg ? 5u : 6u))
                     : (neg ? 3u : 8u);
    bits |= u64{(m[l] >> k) & 1} << l;
  }
  bits &= w.exec();
  write_s64(w, I.ops[0], bits);
  if (X) w.set_exec(bits);
}

// ---- conversions
template <bool Signed>
void cvt_f16_from_int(Wave& w, const Inst& I) {
  refuse_unmodelled(I, false);
  const u32 mode = w.round16_64();
  Lanes a, r;
  src16(w, I.ops[1], I.op_sel & 1, false, false, a.u);
  bool fo = w.flush_out16_64();
  for (int l = 0; l < kLanes; ++l) {
    double x = Signed ? static_cast<double>(s16(a.u[l])) : static_cast<double>(a.u[l]);
    u32 h = f16_from_f64(x, mode);
    h = fo ? ftz16(h) : h;
    r.u[l] = I.clamp ? clamp16(h, w.dx10_clamp()) : h;  // VOP3 clamp: to [0, 1]
  }
  vwrite(w, I.ops[0], r.u);
}
template <bool Signed>
void cvt_int_from_f16(Wave& w, const Inst& I) {
  refuse_unmodelled(I, false);
  Lanes a, r;
  src16(w, I.ops[1], I.op_sel & 1, true, w.flush_in16_64(), a.u);
  for (int l = 0; l < kLanes; ++l) {
    float x = f16_to_f(a.u[l]);
    u32 v;
    if (std::isnan(x)) v = 0;
    else if (Signed) v = static_cast<u32>(static_cast<std::int32_t>(std::fmax(-32768.0f, std::fmin(32767.0f, std::trunc(x))))) & 0xffffu;
    else v = static_cast<u32>(std::fmax(0.0f, std::fmin(65535.0f, std::trunc(x))));
    r.u[l] = v;
  }
  vwrite(w, I.ops[0], r.u);
}

}  // namespace

void register_valu16(HandlerTable& t) {
  auto set = [&](Opcode op, Handler h) { t[static_cast<std::size_t>(op)] = h; };
  using O = Opcode;
  set(O::v_add_f16, f16_op<2, add16>);
  set(O::v_sub_f16, f16_op<2, sub16>);
  set(O::v_subrev_f16, f16_op<2, subrev16>);
  set(O::v_mul_f16, f16_op<2, mul16>);
  set(O::v_fma_f16, f16_op<3, fma16>);
  set(O::v_max_f16, v_minmax_f16<true>);
  set(O::v_min_f16, v_minmax_f16<false>);

  set(O::v_add_u16, i16_op<([](u32 a, u32 b) { return a + b; }), 1>);
  set(O::v_sub_u16, i16_op<([](u32 a, u32 b) { return a - b; }), 1>);
  set(O::v_mul_lo_u16, i16_op<([](u32 a, u32 b) { return a * b; })>);
  set(O::v_lshlrev_b16, i16_op<([](u32 a, u32 b) { return b << (a & 15); })>);
  set(O::v_lshrrev_b16, i16_op<([](u32 a, u32 b) { return b >> (a & 15); })>);
  set(O::v_ashrrev_i16, i16_op<([](u32 a, u32 b) { return static_cast<u32>(s16(b) >> (a & 15)); })>);
  set(O::v_max_u16, i16_op<([](u32 a, u32 b) { return a > b ? a : b; })>);
  set(O::v_min_u16, i16_op<([](u32 a, u32 b) { return a < b ? a : b; })>);
  set(O::v_max_i16, i16_op<([](u32 a, u32 b) { return s16(a) > s16(b) ? a : b; })>);
  set(O::v_min_i16, i16_op<([](u32 a, u32 b) { return s16(a) < s16(b) ? a : b; })>);

  set(O::v_pk_add_f16, pk16<2, add16, true>);
  set(O::v_pk_mul_f16, pk16<2, mul16, true>);
  set(O::v_pk_fma_f16, pk16<3, fma16, true>);
  set(O::v_pk_max_f16, v_pk_minmax_f16<true>);
  set(O::v_pk_min_f16, v_pk_minmax_f16<false>);
  set(O::v_pk_add_u16, pk16<2, int2<([](u32 a, u32 b) { return a + b; })>, false, 1>);
  set(O::v_pk_sub_u16, pk16<2, int2<([](u32 a, u32 b) { return a - b; })>, false, 1>);
  set(O::v_pk_add_i16, pk16<2, int2<([](u32 a, u32 b) { return static_cast<u32>(s16(a) + s16(b)); })>, false, 2>);
  set(O::v_pk_sub_i16, pk16<2, int2<([](u32 a, u32 b) { return static_cast<u32>(s16(a) - s16(b)); })>, false, 2>);
  set(O::v_pk_mul_lo_u16, pk16<2, int2<([](u32 a, u32 b) { return a * b; })>, false>);
  set(O::v_pk_lshlrev_b16, pk16<2, int2<([](u32 a, u32 b) { return b << (a & 15); })>, false>);
  set(O::v_pk_lshrrev_b16, pk16<2, int2<([](u32 a, u32 b) { return b >> (a & 15); })>, false>);
  set(O::v_pk_ashrrev_i16, pk16<2, int2<([](u32 a, u32 b) { return static_cast<u32>(s16(b) >> (a & 15)); })>, false>);
  set(O::v_pk_max_u16, pk16<2, int2<([](u32 a, u32 b) { return a > b ? a : b; })>, false>);
  set(O::v_pk_min_u16, pk16<2, int2<([](u32 a, u32 b) { return a < b ? a : b; })>, false>);
  set(O::v_pk_max_i16, pk16<2, int2<([](u32 a, u32 b) { return s16(a) > s16(b) ? a : b; })>, false>);
  set(O::v_pk_min_i16, pk16<2, int2<([](u32 a, u32 b) { return s16(a) < s16(b) ? a : b; })>, false>);

#define FC16(suffix, K)                                \
  set(O::v_cmp_##suffix##_f16, vcmp16<C::K>);          \
  set(O::v_cmpx_##suffix##_f16, vcmp16<C::K, true>);
  FC16(f, F) FC16(lt, LT) FC16(eq, EQ) FC16(le, LE) FC16(gt, GT) FC16(lg, LG) FC16(ge, GE)
  FC16(o, O) FC16(u, U) FC16(neq, NEQ) FC16(nlt, NLT) FC16(nle, NLE) FC16(ngt, NGT)
  FC16(nge, NGE) FC16(nlg, NLG) FC16(tru, TRU)
#undef FC16
  set(O::v_cmp_class_f16, v_cmp_class_f16<false>);
  set(O::v_cmpx_class_f16, v_cmp_class_f16<true>);

  set(O::v_cvt_f16_u16, cvt_f16_from_int<false>);
  set(O::v_cvt_f16_i16, cvt_f16_from_int<true>);
  set(O::v_cvt_u16_f16, cvt_int_from_f16<false>);
  set(O::v_cvt_i16_f16, cvt_int_from_f16<true>);
}

}  // namespace cdna::simulator
