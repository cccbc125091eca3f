// SDWA and DPP forms (wrappers around the plain handlers), packed (VOP3P) f32 operations,
// f16 packing, v_dot2_f32_f16 / v_dot2c_f32_f16, the fp8/bf8 conversions, and the handler for
// unsupported instructions.
#include <algorithm>
#include <atomic>
#include <cmath>

#include "numerics/fp8.hpp"
#include "simulator/exec/dot2.hpp"
#include "simulator/exec/handlers.hpp"
#include "simulator/exec/fp.hpp"
#include "simulator/exec/fp_lanes.hpp"

namespace cdna::simulator {

using u32 = std::uint32_t;
using u64 = std::uint64_t;

void exec_unsupported(Wave& w, const Inst& I) {
  const Program& p = *w.env->program;
  auto it = p.index_of.find(I.address);
  std::string reason = it != p.index_of.end() ? p.reason[it->second] : std::string{};
  sim_fail("unsupported instruction" + (reason.empty() ? std::string{} : ": " + reason));
}

namespace {

// SDWA operand select: 0-3 BYTE_n, 4-5 WORD_n, 6 DWORD.
inline u32 sdwa_select(u32 x, unsigned sel, bool sext) {
  if (sel < 4) {
    u32 b = (x >> (8 * sel)) & 0xff;
    return sext ? static_cast<u32>(static_cast<std::int32_t>(static_cast<std::int8_t>(b))) : b;
  }
  if (sel < 6) {
    u32 h = (x >> (16 * (sel - 4))) & 0xffff;
    return sext ? static_cast<u32>(static_cast<std::int32_t>(static_cast<std::int16_t>(h))) : h;
  }
  return x;
}

inline u32 sdwa_place(u32 r, u32 old, unsigned sel, unsigned unused) {
  if (sel == 6) return r;
  unsigned shift = sel < 4 ? 8 * sel : 16 * (sel - 4);
  unsigned width = sel < 4 ? 8 : 16;
  u32 field_mask = ((1u << width) - 1) << shift;
  u32 field = (r << shift) & field_mask;
  if (unused == 2) return (old & ~field_mask) | field;  // UNUSED_PRESERVE
  if (unused == 1) {                                     // UNUSED_SEXT
    bool neg = (r >> (width - 1)) & 1;
    u32 above = (shift + width >= 32) ? 0u : (~0u << (shift + width));
    return field | (neg ? above : 0u);
  }
  return field;  // UNUSED_PAD
}

}  // namespace

void exec_sdwa(Wave& w, const Inst& I) {
  const Inst& d = w.env->program->aux[I.aux];
  if (I.op == Opcode::v_fmac_f32 || I.op == Opcode::v_mac_f32)
    sim_fail("SDWA form of an accumulating instruction is not supported");
  int nsrc = std::min(2, static_cast<int>(I.nops) - static_cast<int>(I.src0));
  for (int s = 0; s < nsrc; ++s) {
    const Operand& o = I.ops[I.src0 + s];
    Lanes t;
    const u32* p = vsrc(w, o, t);
    u32* dst = w.row(kScratchRow0 + static_cast<u32>(s));
    unsigned sel = s == 0 ? I.src0_sel : I.src1_sel;
    for (int l = 0; l < kLanes; ++l) dst[l] = sdwa_select(p[l], sel, o.sext);
  }
  d.fn(w, d);
  if (d.ops[0].kind == OperandKind::Vreg && d.ops[0].reg == kScratchRow0 + 4) {
    const u32* r = w.row(kScratchRow0 + 4);
    const u32* old = w.row(I.ops[0].reg);
    Lanes out;
    for (int l = 0; l < kLanes; ++l) out.u[l] = sdwa_place(r[l], old[l], I.dst_sel, I.dst_unused);
    vwrite(w, I.ops[0], out.u);
    if (I.op == Opcode::v_cvt_pk_f32_fp8 || I.op == Opcode::v_cvt_pk_f32_bf8) {
      // Two-register result (the second derived row); dst_sel applies to neither half.
      if (I.dst_sel != 6) sim_fail("SDWA dst_sel on a 64-bit result is not supported");
      vwrite(w, I.ops[0], w.row(kScratchRow0 + 5), 1);
    }
  }
}

namespace {

// Source lane of lane l under DPP control `ctrl`, or -1 if out of range; -2 for a code this
// function does not know. Codes: LLVM SIDefines.h (AMDGPU::DPP::DppCtrl); row_newbcast:n
// (0x150 + n, gfx90a and gfx94x only: lane n of each row read by the whole row) as LLVM's
// AMDGPUModifierSyntax.rst "row_newbcast" describes it.
inline int dpp_source(unsigned ctrl, int l) {
  int r = l & 15;
  if (ctrl <= 0xff) return (l & ~3) | ((ctrl >> (2 * (l & 3))) & 3);
  if (ctrl >= 0x101 && ctrl <= 0x10f) {  // row_shl
    int n = static_cast<int>(ctrl & 15);
    return r + n > 15 ? -1 : l + n;
  }
  if (ctrl >= 0x111 && ctrl <= 0x11f) {  // row_shr
    int n = static_cast<int>(ctrl & 15);
    return r < n ? -1 : l - n;
  }
  if (ctrl >= 0x121 && ctrl <= 0x12f) {  // row_ror
    int n = static_cast<int>(ctrl & 15);
    return (l & ~15) | ((r - n + 16) & 15);
  }
  if (ctrl >= 0x150 && ctrl <= 0x15f) return (l & ~15) | static_cast<int>(ctrl & 15);  // row_newbcast
  switch (ctrl) {
    case 0x130: return l == 63 ? -1 : l + 1;  // wave_shl:1
    case 0x134: return (l + 1) & 63;          // wave_rol:1
    case 0x138: return l == 0 ? -1 : l - 1;   // wave_shr:1
    case 0x13c: return (l + 63) & 63;         // wave_ror:1
    case 0x140: return (l & ~15) | (15 - r);  // row_mirror
    case 0x141: return (l & ~7) | (7 - (l & 7));  // row_half_mirror
    case 0x142: return l < 16 ? -1 : (l & ~15) - 1;  // row_bcast:15
    case 0x143: return l < 32 ? -1 : 31;      // row_bcast:31
    default: return -2;
  }
}

}  // namespace

// DPP: src0 is read from another lane. A lane whose source lane is out of range or inactive
// in EXEC reads 0 when bound_ctrl is set and is not written otherwise; row_mask/bank_mask
// disable writes.
void exec_dpp(Wave& w, const Inst& I) {
  const Inst& d = w.env->program->aux[I.aux];
  const Operand& o = I.ops[I.src0];
  if (o.kind != OperandKind::Vreg) sim_fail("DPP source is not a VGPR");
  if (I.op == Opcode::v_fmac_f32 || I.op == Opcode::v_mac_f32)
    sim_fail("DPP form of an accumulating instruction is not supported");
  const u32* src = w.row(o.reg);
  u32* tmp = w.row(kScratchRow0);
  u64 exec = w.exec();
  u64 enable = 0;
  for (int l = 0; l < kLanes; ++l) {
    if (!((I.row_mask >> (l >> 4)) & 1) || !((I.bank_mask >> ((l & 15) >> 2)) & 1)) continue;
    int sl = dpp_source(I.dpp_ctrl, l);
    if (sl == -2) sim_fail("DPP control " + hex(I.dpp_ctrl) + " not supported");
    if (sl >= 0 && ((exec >> sl) & 1)) {
      tmp[l] = src[sl];
      enable |= 1ull << l;
    } else if (I.bound_ctrl) {
      tmp[l] = 0;
      enable |= 1ull << l;
    }
  }
  w.set_exec(exec & enable);
  d.fn(w, d);
  if (w.exec() != (exec & enable)) sim_fail("DPP form of an EXEC-writing instruction is not supported");
  w.set_exec(exec);
}

namespace {

// ---- VOP3P packed f32: each source is a register pair; op_sel picks the half that feeds
// the low result, op_sel_hi the half that feeds the high result.
// An inline constant is a 32-bit value (LLVM encodes it as for an f32 operand,
// AMDGPUMCCodeEmitter getLitEncoding, OPERAND_REG_INLINE_C_V2FP32) that a half select of 0
// reads; LLVM's code generation relies on that, folding a splat constant as the operand with
// op_sel_hi 0 (llc-19 -mcpu=gfx942: fma(<2 x float> %v, splat 2.0, splat 1.0) gives
// `v_pk_fma_f32 v[0:1], s[2:3], 2.0, 1.0 op_sel_hi:[1,0,0]`). What a half select of 1 reads
// from a constant is not published: refused (nullptr half, pk_f32).
struct Pk {
  const u32* half[2];
};
Pk pk_src(Wave& w, const Inst& I, int i, Lanes& t0, Lanes& t1) {
  const Operand& o = I.ops[1 + i];
  if (o.kind == OperandKind::Const) {
    std::fill(t0.u, t0.u + kLanes, o.k32);
    return Pk{{t0.u, nullptr}};
  }
  Pk p;
  p.half[0] = vsrc(w, o, t0, 0);
  p.half[1] = vsrc(w, o, t1, 1);
  return p;
}

inline u32 pk_mod(u32 x, const Inst& I, int i, bool hi) {
  bool neg = ((hi ? I.neg_hi : I.neg_lo) >> i) & 1;
  return neg ? x ^ 0x80000000u : x;
}

template <int N, auto F>
void pk_f32(Wave& w, const Inst& I) {
  const u32 mode = w.round32();
  Lanes t[3][2];
  Pk s[3];
  for (int i = 0; i < N; ++i) s[i] = pk_src(w, I, i, t[i][0], t[i][1]);
  u32 sel_hi = I.op_sel_hi_given ? I.op_sel_hi : 0x7;
  bool fi = w.flush_in32(), fo = w.flush_out32();
  // Both halves are computed before either is written: the sources are pointers into the VGPR
  // file, and with op_sel_hi 0 the high half reads a source's low register, which may be the
  // destination's low register (clang emits v_pk_fma_f32 v[44:45], v[48:49], v[44:45], ...
  // op_sel_hi:[1,0,1] for RoPE).
  Lanes res[2];
  for (int h = 0; h < 2; ++h) {
    Lanes& r = res[h];
    const u32* a[3] = {nullptr, nullptr, nullptr};
    Lanes in[3];
    for (int i = 0; i < N; ++i) {
      int half = h == 0 ? (I.op_sel >> i) & 1 : (sel_hi >> i) & 1;
      const u32* p = s[i].half[half];
      if (!p)
        sim_fail("packed f32 instruction reading the high half of an inline constant (op_sel or "
                 "op_sel_hi bit 1 on a constant operand): not published; LLVM emits op_sel_hi 0 there");
      for (int l = 0; l < kLanes; ++l) {
        u32 x = pk_mod(p[l], I, i, h == 1);
        in[i].u[l] = fi ? ftz32(x) : x;
      }
      a[i] = in[i].u;
    }
    if constexpr (N == 3) {
      fma32_lanes(a[0], a[1], a[2], r.u, mode);
    } else {
      HostRound host_mode(mode);
      for (int l = 0; l < kLanes; ++l)
        r.u[l] = fbits(F(as_float(a[0][l]), N > 1 ? as_float(a[1][l]) : 0.0f, 0.0f));
    }
    fix_nans32(r.u, a[0], a[1], a[2]);
    if (I.clamp)
      for (int l = 0; l < kLanes; ++l) {
        float x = as_float(r.u[l]);
        if (is_nan32(r.u[l])) r.u[l] = w.dx10_clamp() ? 0u : r.u[l];
        else if (!(x > 0.0f)) r.u[l] = 0u;
        else if (x > 1.0f) r.u[l] = 0x3f800000u;
      }
    if (fo)
      for (int l = 0; l < kLanes; ++l) r.u[l] = ftz32(r.u[l]);
  }
  vwrite(w, I.ops[0], res[0].u, 0);
  vwrite(w, I.ops[0], res[1].u, 1);
}

void v_pk_mov_b32(Wave& w, const Inst& I) {
  Lanes t[4], r0, r1;
  const u32* a = vsrc(w, I.ops[1], t[0], I.op_sel & 1, I.ops[1].kind != OperandKind::Vreg);
  const u32* b = vsrc(w, I.ops[2], t[1], (I.op_sel >> 1) & 1, I.ops[2].kind != OperandKind::Vreg);
  std::memcpy(r0.u, a, sizeof r0.u);
  std::memcpy(r1.u, b, sizeof r1.u);
  vwrite(w, I.ops[0], r0.u, 0);
  vwrite(w, I.ops[0], r1.u, 1);
}

// v_pack_b32_f16: D = {S1.f16, S0.f16}; op_sel[i] takes the high half of source i.
void v_pack_b32_f16(Wave& w, const Inst& I) {
  Lanes ta, tb, r;
  const u32* a = vsrc(w, I.ops[1], ta);
  const u32* b = vsrc(w, I.ops[2], tb);
  auto h = [&](u32 x, int i) {
    const Operand& o = I.ops[1 + i];
    u32 v = ((I.op_sel >> i) & 1) ? x >> 16 : x & 0xffff;
    if (o.abs) v &= 0x7fff;
    if (o.neg) v ^= 0x8000;
    return v;
  };
  for (int l = 0; l < kLanes; ++l) r.u[l] = h(a[l], 0) | (h(b[l], 1) << 16);
  vwrite(w, I.ops[0], r.u);
}


// ---- v_dot2_f32_f16 (VOP3P) / v_dot2c_f32_f16 (VOP2): D = a.lo*b.lo + a.hi*b.hi + C in f32.
// The f16 products are exact in f32 (22-bit significands). How the hardware rounds the sum is
// unpublished (cdna3-facts.md §6): Dot2Rounding::Once (default) rounds the exact c + p0 + p1 once
// to f32, nearest even; Dot2Rounding::Sequential rounds (c + p0) then (+ p1), nearest even each.
// The envelope between them is under 1 ulp of the result plus 1 ulp of |c + p0| (one extra
// rounding). MODE: rounding must be nearest even; f16 inputs follow the fp16 denormal mode, c
// and the result the fp32 one. NaN/inf results follow the VALU rule (first NaN source quieted,
// else the canonical NaN).
std::atomic<Dot2Rounding> g_dot2{Dot2Rounding::Once};

// Exact sum of three doubles rounded once to f32 under `mode`: round-to-odd in double (53 >=
// 24 + 3 bits, so the second rounding is exact in every mode), then one explicit rounding.
float sum3_to_f32(double a, double b, double c, u32 mode) {
  auto two_sum = [](double x, double y, double& e) {
    double s = x + y;
    double bb = s - x;
    e = (x - (s - bb)) + (y - bb);
    return s;
  };
  double e1, e2, e3, e4;
  double s = two_sum(a, b, e1);
  double t = two_sum(s, c, e2);
  double u = two_sum(e2, e1, e3);
  double v = two_sum(t, u, e4);
  double r = e4 + e3;  // sign and nonzero-ness of the exact residual
  const bool any_neg = std::signbit(a) || std::signbit(b) || std::signbit(c);
  auto to_f32 = [mode](double x) { return as_float(f32_from_f64(x, mode)); };
  if (r == 0.0 || !std::isfinite(v)) return to_f32(zero_sign(v, any_neg, mode));
  if (v == 0.0) return to_f32(r);  // t == -u: the residual is the exact sum
  std::uint64_t bits = std::bit_cast<std::uint64_t>(v);
  if ((r < 0) != (v < 0)) bits -= 1;  // |exact| < |v|: truncate toward zero
  bits |= 1;                          // sticky (round to odd)
  return to_f32(std::bit_cast<double>(bits));
}

template <bool Vop2>
void dot2_f32_f16(Wave& w, const Inst& I) {
  const u32 rmode = w.round32();
  if (I.clamp || I.neg_lo || I.neg_hi || I.op_sel || I.op_sel_hi_given || I.omod)
    sim_fail("v_dot2_f32_f16 with op_sel/op_sel_hi/neg/clamp/omod modifiers is not supported");
  const Operand& d = I.ops[0];
  const Operand& c_op = Vop2 ? I.ops[0] : I.ops[I.src0 + 2];
  Lanes ta, tb, tc, r;
  const u32* a = vsrc(w, I.ops[I.src0], ta);
  const u32* b = vsrc(w, I.ops[I.src0 + 1], tb);
  const u32* c = vsrc(w, c_op, tc);
  const bool fi16 = w.flush_in16_64(), fi32 = w.flush_in32(), fo32 = w.flush_out32();
  const Dot2Rounding mode = g_dot2.load(std::memory_order_relaxed);
  for (int l = 0; l < kLanes; ++l) {
    float a0 = as_float(f32_bits_from_f16(static_cast<std::uint16_t>(a[l]), fi16));
    float a1 = as_float(f32_bits_from_f16(static_cast<std::uint16_t>(a[l] >> 16), fi16));
    float b0 = as_float(f32_bits_from_f16(static_cast<std::uint16_t>(b[l]), fi16));
    float b1 = as_float(f32_bits_from_f16(static_cast<std::uint16_t>(b[l] >> 16), fi16));
    u32 cb = fi32 ? ftz32(c[l]) : c[l];
    float cf = as_float(cb);
    double p0 = static_cast<double>(a0) * b0, p1 = static_cast<double>(a1) * b1;
    float res;
    if (!std::isfinite(p0) || !std::isfinite(p1) || !std::isfinite(cf)) {
      res = static_cast<float>(p0 + p1 + cf);
    } else if (mode == Dot2Rounding::Once) {
      res = sum3_to_f32(static_cast<double>(cf), p0, p1, rmode);
    } else {
      res = sum3_to_f32(static_cast<double>(sum3_to_f32(static_cast<double>(cf), p0, 0.0, rmode)), p1, 0.0, rmode);
    }
    u32 rb = fbits(res);
    if (is_nan32(rb)) {
      rb = is_nan32(cb) ? (cb | 0x00400000u) : 0x7fc00000u;
      const u32 h[4] = {a[l] & 0xffffu, a[l] >> 16, b[l] & 0xffffu, b[l] >> 16};
      for (u32 x : h)
        if ((x & 0x7fffu) > 0x7c00u) { rb = f32_bits_from_f16(static_cast<std::uint16_t>(x | 0x200u), false); break; }
    }
    r.u[l] = fo32 ? ftz32(rb) : rb;
  }
  vwrite(w, d, r.u);
}

// ---- fp8/bf8 conversions (numerics/fp8.hpp; cdna3-facts.md §6). v_cvt_pk_{fp8,bf8}_f32:
// op_sel[3] (printed third) selects the destination word, the other word is kept;
// v_cvt_sr_{fp8,bf8}_f32: op_sel[2] | op_sel[3] << 1 selects the destination byte. Overflow:
// Fp8Overflow::ToNaN (the MODE bit that would select saturation is not modelled); clamp is
// refused. v_cvt_f32_{fp8,bf8} and v_cvt_pk_f32_{fp8,bf8}: byte 0 / word 0 in the e32 form,
// other bytes through SDWA src0_sel (the SDWA wrapper); VOP3 op_sel is refused.
using numerics::Fp8Kind;

template <Fp8Kind K>
void cvt_pk_fp8(Wave& w, const Inst& I) {
  if (I.clamp || I.omod) sim_fail("v_cvt_pk_fp8/bf8_f32 with clamp/omod is not supported");
  Lanes ta, tb, r;
  const bool fi = w.flush_in32();
  const u32* a = fsrc32(w, I.ops[1], ta, fi);
  const u32* b = fsrc32(w, I.ops[2], tb, fi);
  const u32* old = w.row(I.ops[0].reg);
  const bool hi = (I.op_sel >> 2) & 1;
  for (int l = 0; l < kLanes; ++l)
    r.u[l] = numerics::cvt_pk_fp8_f32(as_float(a[l]), as_float(b[l]), old[l], hi, K);
  vwrite(w, I.ops[0], r.u);
}

template <Fp8Kind K>
void cvt_sr_fp8(Wave& w, const Inst& I) {
  if (I.clamp || I.omod) sim_fail("v_cvt_sr_fp8/bf8_f32 with clamp/omod is not supported");
  if (I.ops[2].neg || I.ops[2].abs) sim_fail("v_cvt_sr: modifiers on the random operand");
  Lanes ta, tb, r;
  const u32* a = fsrc32(w, I.ops[1], ta, w.flush_in32());
  const u32* b = vsrc(w, I.ops[2], tb);
  const u32* old = w.row(I.ops[0].reg);
  const unsigned sel = ((I.op_sel >> 2) & 1u) | (((I.op_sel >> 3) & 1u) << 1);
  for (int l = 0; l < kLanes; ++l)
    r.u[l] = numerics::cvt_sr_fp8_f32(as_float(a[l]), b[l], old[l], sel, K);
  vwrite(w, I.ops[0], r.u);
}

template <Fp8Kind K, bool Pk>
void cvt_from_fp8(Wave& w, const Inst& I) {
  if (I.op_sel || I.clamp || I.omod || I.ops[1].neg || I.ops[1].abs)
    sim_fail("v_cvt_f32_fp8/bf8 with VOP3 modifiers (op_sel/clamp/omod/neg/abs) is not supported");
  Lanes t, r0, r1;
  const u32* a = vsrc(w, I.ops[1], t);
  for (int l = 0; l < kLanes; ++l) {
    if constexpr (Pk) {
      auto f = numerics::cvt_pk_f32_fp8(a[l], false, K);
      r0.u[l] = fbits(f[0]);
      r1.u[l] = fbits(f[1]);
    } else {
      r0.u[l] = fbits(numerics::cvt_f32_fp8(a[l], 0, K));
    }
  }
  vwrite(w, I.ops[0], r0.u, 0);
  if constexpr (Pk) vwrite(w, I.ops[0], r1.u, 1);
}

}  // namespace

void set_dot2_rounding(Dot2Rounding r) { g_dot2.store(r); }
Dot2Rounding dot2_rounding() { return g_dot2.load(); }

void register_valu_misc(HandlerTable& t) {
  auto set = [&](Opcode op, Handler h) { t[static_cast<std::size_t>(op)] = h; };
  using O = Opcode;
  set(O::v_pk_fma_f32, pk_f32<3, [](float, float, float) { return 0.0f; }>  /* fma32_lanes */);
  set(O::v_pk_mul_f32, pk_f32<2, [](float a, float b, float) { return a * b; }>);
  set(O::v_pk_add_f32, pk_f32<2, [](float a, float b, float) { return a + b; }>);
  set(O::v_pk_mov_b32, v_pk_mov_b32);
  set(O::v_pack_b32_f16, v_pack_b32_f16);
  set(O::v_dot2_f32_f16, dot2_f32_f16<false>);
  set(O::v_dot2c_f32_f16, dot2_f32_f16<true>);
  set(O::v_cvt_pk_fp8_f32, cvt_pk_fp8<Fp8Kind::Fp8>);
  set(O::v_cvt_pk_bf8_f32, cvt_pk_fp8<Fp8Kind::Bf8>);
  set(O::v_cvt_sr_fp8_f32, cvt_sr_fp8<Fp8Kind::Fp8>);
  set(O::v_cvt_sr_bf8_f32, cvt_sr_fp8<Fp8Kind::Bf8>);
  set(O::v_cvt_f32_fp8, cvt_from_fp8<Fp8Kind::Fp8, false>);
  set(O::v_cvt_f32_bf8, cvt_from_fp8<Fp8Kind::Bf8, false>);
  set(O::v_cvt_pk_f32_fp8, cvt_from_fp8<Fp8Kind::Fp8, true>);
  set(O::v_cvt_pk_f32_bf8, cvt_from_fp8<Fp8Kind::Bf8, true>);
}

}  // namespace cdna::simulator
