// SDWA and DPP forms (wrappers around the plain handlers), packed (VOP3P) f32 operations,
// f16 packing, and the handler for unsupported instructions.
#include "simulator/fp.hpp"
#include "simulator/fp_lanes.hpp"

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
  }
}

namespace {

// Source lane of lane l under DPP control `ctrl`, or -1 if out of range.
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
struct Pk {
  const u32* half[2];
};
Pk pk_src(Wave& w, const Inst& I, int i, Lanes& t0, Lanes& t1) {
  const Operand& o = I.ops[1 + i];
  if (o.kind == OperandKind::Const)
    sim_fail("packed f32 instruction with a constant operand is not supported");
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
  require_rne32(w);
  Lanes t[3][2];
  Pk s[3];
  for (int i = 0; i < N; ++i) s[i] = pk_src(w, I, i, t[i][0], t[i][1]);
  u32 sel_hi = I.op_sel_hi_given ? I.op_sel_hi : 0x7;
  bool fi = w.flush_in32(), fo = w.flush_out32();
  for (int h = 0; h < 2; ++h) {
    Lanes r;
    const u32* a[3] = {nullptr, nullptr, nullptr};
    Lanes in[3];
    for (int i = 0; i < N; ++i) {
      int half = h == 0 ? (I.op_sel >> i) & 1 : (sel_hi >> i) & 1;
      const u32* p = s[i].half[half];
      for (int l = 0; l < kLanes; ++l) {
        u32 x = pk_mod(p[l], I, i, h == 1);
        in[i].u[l] = fi ? ftz32(x) : x;
      }
      a[i] = in[i].u;
    }
    if constexpr (N == 3) {
      fma32_lanes(a[0], a[1], a[2], r.u);
    } else {
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
    vwrite(w, I.ops[0], r.u, static_cast<unsigned>(h));
  }
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

}  // namespace

void register_valu_misc(HandlerTable& t) {
  auto set = [&](Opcode op, Handler h) { t[static_cast<std::size_t>(op)] = h; };
  using O = Opcode;
  set(O::v_pk_fma_f32, pk_f32<3, [](float, float, float) { return 0.0f; }>  /* fma32_lanes */);
  set(O::v_pk_mul_f32, pk_f32<2, [](float a, float b, float) { return a * b; }>);
  set(O::v_pk_add_f32, pk_f32<2, [](float a, float b, float) { return a + b; }>);
  set(O::v_pk_mov_b32, v_pk_mov_b32);
  set(O::v_pack_b32_f16, v_pack_b32_f16);
}

}  // namespace cdna::simulator
