// Vector ALU, integer and bit operations, moves, lane operations and integer compares
// (VOP1/VOP2/VOP3/VOPC). Every handler computes all 64 lanes into a buffer and writes the
// lanes active in EXEC, so the loops vectorise.
#include <algorithm>
#include <bit>
#include <cstring>

#include "simulator/state/wave.hpp"
#include "simulator/exec/handlers.hpp"

namespace cdna::simulator {
namespace {

using u32 = std::uint32_t;
using u64 = std::uint64_t;
using i32 = std::int32_t;
using i64 = std::int64_t;

inline i32 s32(u32 x) { return static_cast<i32>(x); }
inline u32 sext24(u32 x) { return static_cast<u32>(static_cast<i32>(x << 8) >> 8); }

template <auto F>
void v1(Wave& w, const Inst& I) {
  Lanes ta, r;
  const u32* a = vsrc(w, I.ops[1], ta);
  for (int l = 0; l < kLanes; ++l) r.u[l] = F(a[l]);
  vwrite(w, I.ops[0], r.u);
}
template <auto F>
void v2(Wave& w, const Inst& I) {
  Lanes ta, tb, r;
  const u32* a = vsrc(w, I.ops[I.src0], ta);
  const u32* b = vsrc(w, I.ops[I.src0 + 1], tb);
  for (int l = 0; l < kLanes; ++l) r.u[l] = F(a[l], b[l]);
  vwrite(w, I.ops[0], r.u);
}
template <auto F>
void v3(Wave& w, const Inst& I) {
  Lanes ta, tb, tc, r;
  const u32* a = vsrc(w, I.ops[I.src0], ta);
  const u32* b = vsrc(w, I.ops[I.src0 + 1], tb);
  const u32* c = vsrc(w, I.ops[I.src0 + 2], tc);
  for (int l = 0; l < kLanes; ++l) r.u[l] = F(a[l], b[l], c[l]);
  vwrite(w, I.ops[0], r.u);
}

// v_add/sub/subrev_u32: F gives the exact result; the VOP3 clamp bit saturates it to the
// unsigned 32-bit range (ISA guide, V_ADD_U32: "Supports saturation (unsigned 32-bit integer
// domain)").
template <auto F>
void v2_usat(Wave& w, const Inst& I) {
  Lanes ta, tb, r;
  const u32* a = vsrc(w, I.ops[I.src0], ta);
  const u32* b = vsrc(w, I.ops[I.src0 + 1], tb);
  for (int l = 0; l < kLanes; ++l) {
    const i64 x = F(a[l], b[l]);
    r.u[l] = I.clamp ? static_cast<u32>(std::clamp<i64>(x, 0, 0xffffffffll)) : static_cast<u32>(x);
  }
  vwrite(w, I.ops[0], r.u);
}

// ---- carry chains: ops = vdst, carry-out, src0, src1 [, carry-in]
template <int Kind>
void v_carry(Wave& w, const Inst& I) {
  Lanes ta, tb, r;
  const u32* a = vsrc(w, I.ops[2], ta);
  const u32* b = vsrc(w, I.ops[3], tb);
  u64 cin = (Kind >= 3) ? read_s64(w, I.ops[4]) : 0;
  u64 cout = 0;
  for (int l = 0; l < kLanes; ++l) {
    u64 ci = (cin >> l) & 1;
    u64 x = a[l], y = b[l];
    u64 res;
    bool c;
    switch (Kind) {
      case 0: res = x + y; c = (res >> 32) != 0; break;             // add_co
      case 1: res = x - y; c = y > x; break;                        // sub_co
      case 2: res = y - x; c = x > y; break;                        // subrev_co
      case 3: res = x + y + ci; c = (res >> 32) != 0; break;        // addc_co
      case 4: res = x - y - ci; c = y + ci > x; break;              // subb_co
      default: res = y - x - ci; c = x + ci > y; break;             // subbrev_co
    }
    r.u[l] = static_cast<u32>(res);
    cout |= u64{c} << l;
  }
  vwrite(w, I.ops[0], r.u);
  write_mask(w, I.ops[1], cout);
}

// ---- compares: ops = sdst (vcc or SGPR pair), src0, src1
template <auto F, bool X>
void vcmp32(Wave& w, const Inst& I) {
  Lanes ta, tb;
  const u32* a = vsrc(w, I.ops[1], ta);
  const u32* b = vsrc(w, I.ops[2], tb);
  u64 bits = 0;
  for (int l = 0; l < kLanes; ++l) bits |= u64{F(a[l], b[l])} << l;
  bits &= w.exec();
  write_s64(w, I.ops[0], bits);
  if (X) w.set_exec(bits);
}
template <auto F, bool X>
void vcmp64(Wave& w, const Inst& I) {
  Lanes64 a, b;
  vsrc64(w, I.ops[1], a);
  vsrc64(w, I.ops[2], b);
  u64 bits = 0;
  for (int l = 0; l < kLanes; ++l) bits |= u64{F(a.u[l], b.u[l])} << l;
  bits &= w.exec();
  write_s64(w, I.ops[0], bits);
  if (X) w.set_exec(bits);
}
template <bool X>
void vcmp_const(Wave& w, const Inst& I, bool value) {
  u64 bits = value ? w.exec() : 0;
  write_s64(w, I.ops[0], bits);
  if (X) w.set_exec(bits);
}
void vcmp_false(Wave& w, const Inst& I) { vcmp_const<false>(w, I, false); }
void vcmp_true(Wave& w, const Inst& I) { vcmp_const<false>(w, I, true); }
void vcmpx_false(Wave& w, const Inst& I) { vcmp_const<true>(w, I, false); }
void vcmpx_true(Wave& w, const Inst& I) { vcmp_const<true>(w, I, true); }

// ---- v_cndmask_b32: D = mask[l] ? S1 : S0 (float abs/neg allowed in VOP3)
void v_cndmask_b32(Wave& w, const Inst& I) {
  Lanes ta, tb, r;
  const u32* a = vsrc(w, I.ops[1], ta);
  const u32* b = vsrc(w, I.ops[2], tb);
  u64 m = read_s64(w, I.ops[3]);
  const Operand& oa = I.ops[1];
  const Operand& ob = I.ops[2];
  u32 aand = oa.abs ? 0x7fffffffu : ~0u, axor = oa.neg ? 0x80000000u : 0;
  u32 band = ob.abs ? 0x7fffffffu : ~0u, bxor = ob.neg ? 0x80000000u : 0;
  for (int l = 0; l < kLanes; ++l)
    r.u[l] = ((m >> l) & 1) ? ((b[l] & band) ^ bxor) : ((a[l] & aand) ^ axor);
  vwrite(w, I.ops[0], r.u);
}

// ---- moves and lane operations
void v_nop(Wave&, const Inst&) {}
void v_mov_b32(Wave& w, const Inst& I) {
  Lanes t;
  vwrite(w, I.ops[0], vsrc(w, I.ops[1], t));
}
void v_mov_b64(Wave& w, const Inst& I) {
  Lanes64 a;
  vsrc64(w, I.ops[1], a);
  vwrite64(w, I.ops[0], a);
}
void v_swap_b32(Wave& w, const Inst& I) {
  Lanes a, b;
  std::memcpy(a.u, w.row(I.ops[0].reg), sizeof a.u);
  std::memcpy(b.u, w.row(I.ops[1].reg), sizeof b.u);
  vwrite(w, I.ops[0], b.u);
  vwrite(w, I.ops[1], a.u);
}
void v_readfirstlane_b32(Wave& w, const Inst& I) {
  Lanes t;
  const u32* a = vsrc(w, I.ops[1], t);
  u64 e = w.exec();
  int lane = e ? std::countr_zero(e) : 0;
  write_s32(w, I.ops[0], a[lane]);
}
void v_readlane_b32(Wave& w, const Inst& I) {
  Lanes t;
  const u32* a = vsrc(w, I.ops[1], t);
  write_s32(w, I.ops[0], a[read_s32(w, I.ops[2]) & 63]);
}
void v_writelane_b32(Wave& w, const Inst& I) {  // ignores EXEC
  w.row(I.ops[0].reg)[read_s32(w, I.ops[2]) & 63] = read_s32(w, I.ops[1]);
}
template <bool Hi>
void v_mbcnt(Wave& w, const Inst& I) {  // the mask S0 may be a VGPR: read per lane
  Lanes ta, tb, r;
  const u32* s = vsrc(w, I.ops[1], ta);
  const u32* b = vsrc(w, I.ops[2], tb);
  for (int l = 0; l < kLanes; ++l) {
    u64 below = l == 0 ? 0 : (~0ull >> (64 - l));  // lanes < l
    u32 part = Hi ? static_cast<u32>(below >> 32) : static_cast<u32>(below);
    r.u[l] = static_cast<u32>(std::popcount(s[l] & part)) + b[l];
  }
  vwrite(w, I.ops[0], r.u);
}

// ---- 64-bit integer
template <auto F>
void v64_shift(Wave& w, const Inst& I) {  // D = F(S1.u64, S0[5:0])
  Lanes ta;
  Lanes64 b, r;
  const u32* a = vsrc(w, I.ops[1], ta);
  vsrc64(w, I.ops[2], b);
  for (int l = 0; l < kLanes; ++l) r.u[l] = F(b.u[l], a[l] & 63);
  vwrite64(w, I.ops[0], r);
}
void v_lshl_add_u64(Wave& w, const Inst& I) {  // D = (S0 << S1[2:0]) + S2
  Lanes64 a, c, r;
  Lanes tb;
  vsrc64(w, I.ops[1], a);
  const u32* b = vsrc(w, I.ops[2], tb);
  vsrc64(w, I.ops[3], c);
  for (int l = 0; l < kLanes; ++l) r.u[l] = (a.u[l] << (b[l] & 7)) + c.u[l];
  vwrite64(w, I.ops[0], r);
}
template <bool Signed>
void v_mad_64_32(Wave& w, const Inst& I) {  // vdst, sdst, S0, S1, S2(64)
  Lanes ta, tb;
  Lanes64 c, r;
  const u32* a = vsrc(w, I.ops[2], ta);
  const u32* b = vsrc(w, I.ops[3], tb);
  vsrc64(w, I.ops[4], c);
  u64 carry = 0;
  // {carry, D} = S0 * S1 + S2 as a 65-bit result (signed: sign-extended operands).
  for (int l = 0; l < kLanes; ++l) {
    u64 p = Signed ? static_cast<u64>(i64{s32(a[l])} * s32(b[l])) : u64{a[l]} * b[l];
    u64 c64 = c.u[l];
    u64 sum = p + c64;
    u64 cout = sum < p ? 1 : 0;
    u64 bit64 = Signed ? ((p >> 63) ^ (c64 >> 63) ^ cout) : cout;
    r.u[l] = sum;
    carry |= (bit64 & 1) << l;
  }
  vwrite64(w, I.ops[0], r);
  write_mask(w, I.ops[1], carry);
}

u32 byte_permute(u64 data, u32 sel) {
  sel &= 0xff;
  if (sel >= 13) return 0xff;
  if (sel == 12) return 0x00;
  if (sel == 11) return (data >> 63) & 1 ? 0xff : 0;
  if (sel == 10) return (data >> 47) & 1 ? 0xff : 0;
  if (sel == 9) return (data >> 31) & 1 ? 0xff : 0;
  if (sel == 8) return (data >> 15) & 1 ? 0xff : 0;
  return static_cast<u32>(data >> (8 * sel)) & 0xff;
}

u32 med3_u(u32 a, u32 b, u32 c) { return std::max(std::min(a, b), std::min(std::max(a, b), c)); }
i32 med3_i(i32 a, i32 b, i32 c) { return std::max(std::min(a, b), std::min(std::max(a, b), c)); }

u32 bfe_u(u32 s, u32 off, u32 width) {
  off &= 31;
  width &= 31;
  if (width == 0) return 0;
  return (s >> off) & ((1u << width) - 1);
}
u32 bfe_i(u32 s, u32 off, u32 width) {
  off &= 31;
  width &= 31;
  if (width == 0) return 0;
  // Arithmetic shift (ISA guide: tmp = (S0.i32 >> offset) & mask, then sign-extended from bit
  // width-1): a field reaching past bit 31 extends the sign of S0.
  u32 f = static_cast<u32>(s32(s) >> off) & ((1u << width) - 1);
  if ((f >> (width - 1)) & 1) f |= ~((1u << width) - 1);
  return f;
}

// v_accvgpr_read/write/mov: moves between the VGPR and AGPR halves of the unified file.
void v_accvgpr_move(Wave& w, const Inst& I) {
  Lanes t;
  vwrite(w, I.ops[0], vsrc(w, I.ops[1], t));
}

}  // namespace

void register_valu(HandlerTable& t) {
  auto set = [&](Opcode op, Handler h) { t[static_cast<std::size_t>(op)] = h; };
  using O = Opcode;
  set(O::v_nop, v_nop);
  set(O::v_mov_b32, v_mov_b32);
  set(O::v_mov_b64, v_mov_b64);
  set(O::v_swap_b32, v_swap_b32);
  set(O::v_readfirstlane_b32, v_readfirstlane_b32);
  set(O::v_readlane_b32, v_readlane_b32);
  set(O::v_writelane_b32, v_writelane_b32);
  set(O::v_mbcnt_lo_u32_b32, v_mbcnt<false>);
  set(O::v_mbcnt_hi_u32_b32, v_mbcnt<true>);
  set(O::v_accvgpr_read_b32, v_accvgpr_move);
  set(O::v_accvgpr_write_b32, v_accvgpr_move);
  set(O::v_accvgpr_mov_b32, v_accvgpr_move);
  set(O::v_cndmask_b32, v_cndmask_b32);

  // VOP1
  set(O::v_not_b32, v1<([](u32 a) { return ~a; })>);
  set(O::v_bfrev_b32, v1<([](u32 a) {
        u32 d = 0;
        for (int i = 0; i < 32; ++i) d |= ((a >> i) & 1) << (31 - i);
        return d; })>);
  set(O::v_ffbh_u32, v1<([](u32 a) { return a ? static_cast<u32>(std::countl_zero(a)) : ~0u; })>);
  set(O::v_ffbl_b32, v1<([](u32 a) { return a ? static_cast<u32>(std::countr_zero(a)) : ~0u; })>);
  set(O::v_ffbh_i32, v1<([](u32 a) {
        u32 x = (a >> 31) ? ~a : a;
        return (a == 0 || a == ~0u) ? ~0u : static_cast<u32>(std::countl_zero(x)); })>);

  // VOP2 / VOP3 integer
  set(O::v_add_u32, v2_usat<([](u32 a, u32 b) { return i64{a} + b; })>);
  set(O::v_sub_u32, v2_usat<([](u32 a, u32 b) { return i64{a} - b; })>);
  set(O::v_subrev_u32, v2_usat<([](u32 a, u32 b) { return i64{b} - a; })>);
  set(O::v_add_co_u32, v_carry<0>);
  set(O::v_sub_co_u32, v_carry<1>);
  set(O::v_subrev_co_u32, v_carry<2>);
  set(O::v_addc_co_u32, v_carry<3>);
  set(O::v_subb_co_u32, v_carry<4>);
  set(O::v_subbrev_co_u32, v_carry<5>);
  set(O::v_and_b32, v2<([](u32 a, u32 b) { return a & b; })>);
  set(O::v_or_b32, v2<([](u32 a, u32 b) { return a | b; })>);
  set(O::v_xor_b32, v2<([](u32 a, u32 b) { return a ^ b; })>);
  set(O::v_xnor_b32, v2<([](u32 a, u32 b) { return ~(a ^ b); })>);
  set(O::v_lshlrev_b32, v2<([](u32 a, u32 b) { return b << (a & 31); })>);
  set(O::v_lshrrev_b32, v2<([](u32 a, u32 b) { return b >> (a & 31); })>);
  set(O::v_ashrrev_i32, v2<([](u32 a, u32 b) { return static_cast<u32>(s32(b) >> (a & 31)); })>);
  set(O::v_min_i32, v2<([](u32 a, u32 b) { return s32(a) < s32(b) ? a : b; })>);
  set(O::v_max_i32, v2<([](u32 a, u32 b) { return s32(a) > s32(b) ? a : b; })>);
  set(O::v_min_u32, v2<([](u32 a, u32 b) { return a < b ? a : b; })>);
  set(O::v_max_u32, v2<([](u32 a, u32 b) { return a > b ? a : b; })>);
  set(O::v_mul_u32_u24, v2<([](u32 a, u32 b) { return (a & 0xffffff) * (b & 0xffffff); })>);
  set(O::v_mul_hi_u32_u24, v2<([](u32 a, u32 b) {
        return static_cast<u32>((u64{a & 0xffffff} * (b & 0xffffff)) >> 32); })>);
  set(O::v_mul_i32_i24, v2<([](u32 a, u32 b) {
        return static_cast<u32>(i64{s32(sext24(a))} * s32(sext24(b))); })>);
  set(O::v_mul_hi_i32_i24, v2<([](u32 a, u32 b) {
        return static_cast<u32>(static_cast<u64>(i64{s32(sext24(a))} * s32(sext24(b))) >> 32); })>);
  set(O::v_mul_lo_u32, v2<([](u32 a, u32 b) { return a * b; })>);
  set(O::v_mul_hi_u32, v2<([](u32 a, u32 b) { return static_cast<u32>((u64{a} * b) >> 32); })>);
  set(O::v_mul_hi_i32, v2<([](u32 a, u32 b) {
        return static_cast<u32>(static_cast<u64>(i64{s32(a)} * s32(b)) >> 32); })>);
  set(O::v_bcnt_u32_b32, v2<([](u32 a, u32 b) { return static_cast<u32>(std::popcount(a)) + b; })>);
  set(O::v_bfm_b32, v2<([](u32 a, u32 b) { return static_cast<u32>(((1ull << (a & 31)) - 1) << (b & 31)); })>);

  // VOP3 three-source integer
  set(O::v_mad_u32_u24, v3<([](u32 a, u32 b, u32 c) { return (a & 0xffffff) * (b & 0xffffff) + c; })>);
  set(O::v_mad_i32_i24, v3<([](u32 a, u32 b, u32 c) {
        return static_cast<u32>(i64{s32(sext24(a))} * s32(sext24(b))) + c; })>);
  set(O::v_alignbit_b32, v3<([](u32 a, u32 b, u32 c) {
        return static_cast<u32>(((u64{a} << 32) | b) >> (c & 31)); })>);
  set(O::v_alignbyte_b32, v3<([](u32 a, u32 b, u32 c) {
        return static_cast<u32>(((u64{a} << 32) | b) >> (8 * (c & 3))); })>);
  set(O::v_min3_i32, v3<([](u32 a, u32 b, u32 c) { return static_cast<u32>(std::min({s32(a), s32(b), s32(c)})); })>);
  set(O::v_max3_i32, v3<([](u32 a, u32 b, u32 c) { return static_cast<u32>(std::max({s32(a), s32(b), s32(c)})); })>);
  set(O::v_med3_i32, v3<([](u32 a, u32 b, u32 c) { return static_cast<u32>(med3_i(s32(a), s32(b), s32(c))); })>);
  set(O::v_min3_u32, v3<([](u32 a, u32 b, u32 c) { return std::min({a, b, c}); })>);
  set(O::v_max3_u32, v3<([](u32 a, u32 b, u32 c) { return std::max({a, b, c}); })>);
  set(O::v_med3_u32, v3<([](u32 a, u32 b, u32 c) { return med3_u(a, b, c); })>);
  set(O::v_sad_u32, v3<([](u32 a, u32 b, u32 c) { return (a > b ? a - b : b - a) + c; })>);
  set(O::v_xad_u32, v3<([](u32 a, u32 b, u32 c) { return (a ^ b) + c; })>);
  set(O::v_lshl_add_u32, v3<([](u32 a, u32 b, u32 c) { return (a << (b & 31)) + c; })>);
  set(O::v_add_lshl_u32, v3<([](u32 a, u32 b, u32 c) { return (a + b) << (c & 31); })>);
  set(O::v_add3_u32, v3<([](u32 a, u32 b, u32 c) { return a + b + c; })>);
  set(O::v_lshl_or_b32, v3<([](u32 a, u32 b, u32 c) { return (a << (b & 31)) | c; })>);
  set(O::v_and_or_b32, v3<([](u32 a, u32 b, u32 c) { return (a & b) | c; })>);
  set(O::v_or3_b32, v3<([](u32 a, u32 b, u32 c) { return a | b | c; })>);
  set(O::v_perm_b32, v3<([](u32 a, u32 b, u32 c) {
        u64 data = (u64{a} << 32) | b;
        return byte_permute(data, c) | (byte_permute(data, c >> 8) << 8) |
               (byte_permute(data, c >> 16) << 16) | (byte_permute(data, c >> 24) << 24); })>);
  set(O::v_bfe_u32, v3<([](u32 a, u32 b, u32 c) { return bfe_u(a, b, c); })>);
  set(O::v_bfe_i32, v3<([](u32 a, u32 b, u32 c) { return bfe_i(a, b, c); })>);
  set(O::v_bfi_b32, v3<([](u32 a, u32 b, u32 c) { return (a & b) | (~a & c); })>);

  // 64-bit
  set(O::v_lshlrev_b64, v64_shift<([](u64 x, u32 s) { return x << s; })>);
  set(O::v_lshrrev_b64, v64_shift<([](u64 x, u32 s) { return x >> s; })>);
  set(O::v_ashrrev_i64, v64_shift<([](u64 x, u32 s) { return static_cast<u64>(static_cast<i64>(x) >> s); })>);
  set(O::v_lshl_add_u64, v_lshl_add_u64);
  set(O::v_mad_u64_u32, v_mad_64_32<false>);
  set(O::v_mad_i64_i32, v_mad_64_32<true>);

  // VOPC integer
#define CMP32(name, X, expr) set(O::name, vcmp32<([](u32 a, u32 b) -> bool { return expr; }), X>);
#define CMP64(name, X, expr) set(O::name, vcmp64<([](u64 a, u64 b) -> bool { return expr; }), X>);
  CMP32(v_cmp_lt_i32, false, s32(a) < s32(b))
  CMP32(v_cmp_eq_i32, false, a == b)
  CMP32(v_cmp_le_i32, false, s32(a) <= s32(b))
  CMP32(v_cmp_gt_i32, false, s32(a) > s32(b))
  CMP32(v_cmp_ne_i32, false, a != b)
  CMP32(v_cmp_ge_i32, false, s32(a) >= s32(b))
  CMP32(v_cmp_lt_u32, false, a < b)
  CMP32(v_cmp_eq_u32, false, a == b)
  CMP32(v_cmp_le_u32, false, a <= b)
  CMP32(v_cmp_gt_u32, false, a > b)
  CMP32(v_cmp_ne_u32, false, a != b)
  CMP32(v_cmp_ge_u32, false, a >= b)
  CMP32(v_cmpx_lt_i32, true, s32(a) < s32(b))
  CMP32(v_cmpx_eq_i32, true, a == b)
  CMP32(v_cmpx_le_i32, true, s32(a) <= s32(b))
  CMP32(v_cmpx_gt_i32, true, s32(a) > s32(b))
  CMP32(v_cmpx_ne_i32, true, a != b)
  CMP32(v_cmpx_ge_i32, true, s32(a) >= s32(b))
  CMP32(v_cmpx_lt_u32, true, a < b)
  CMP32(v_cmpx_eq_u32, true, a == b)
  CMP32(v_cmpx_le_u32, true, a <= b)
  CMP32(v_cmpx_gt_u32, true, a > b)
  CMP32(v_cmpx_ne_u32, true, a != b)
  CMP32(v_cmpx_ge_u32, true, a >= b)
  CMP32(v_cmp_lt_u16, false, (a & 0xffff) < (b & 0xffff))
  CMP32(v_cmp_eq_u16, false, (a & 0xffff) == (b & 0xffff))
  CMP32(v_cmp_le_u16, false, (a & 0xffff) <= (b & 0xffff))
  CMP32(v_cmp_gt_u16, false, (a & 0xffff) > (b & 0xffff))
  CMP32(v_cmp_ne_u16, false, (a & 0xffff) != (b & 0xffff))
  CMP32(v_cmp_ge_u16, false, (a & 0xffff) >= (b & 0xffff))
  CMP32(v_cmp_lt_i16, false, static_cast<std::int16_t>(a) < static_cast<std::int16_t>(b))
  CMP32(v_cmp_eq_i16, false, (a & 0xffff) == (b & 0xffff))
  CMP32(v_cmp_le_i16, false, static_cast<std::int16_t>(a) <= static_cast<std::int16_t>(b))
  CMP32(v_cmp_gt_i16, false, static_cast<std::int16_t>(a) > static_cast<std::int16_t>(b))
  CMP32(v_cmp_ne_i16, false, (a & 0xffff) != (b & 0xffff))
  CMP32(v_cmp_ge_i16, false, static_cast<std::int16_t>(a) >= static_cast<std::int16_t>(b))
  CMP64(v_cmp_lt_i64, false, static_cast<i64>(a) < static_cast<i64>(b))
  CMP64(v_cmp_eq_i64, false, a == b)
  CMP64(v_cmp_le_i64, false, static_cast<i64>(a) <= static_cast<i64>(b))
  CMP64(v_cmp_gt_i64, false, static_cast<i64>(a) > static_cast<i64>(b))
  CMP64(v_cmp_ne_i64, false, a != b)
  CMP64(v_cmp_ge_i64, false, static_cast<i64>(a) >= static_cast<i64>(b))
  CMP64(v_cmp_lt_u64, false, a < b)
  CMP64(v_cmp_eq_u64, false, a == b)
  CMP64(v_cmp_le_u64, false, a <= b)
  CMP64(v_cmp_gt_u64, false, a > b)
  CMP64(v_cmp_ne_u64, false, a != b)
  CMP64(v_cmp_ge_u64, false, a >= b)
  CMP64(v_cmpx_lt_i64, true, static_cast<i64>(a) < static_cast<i64>(b))
  CMP64(v_cmpx_eq_i64, true, a == b)
  CMP64(v_cmpx_le_i64, true, static_cast<i64>(a) <= static_cast<i64>(b))
  CMP64(v_cmpx_gt_i64, true, static_cast<i64>(a) > static_cast<i64>(b))
  CMP64(v_cmpx_ne_i64, true, a != b)
  CMP64(v_cmpx_ge_i64, true, static_cast<i64>(a) >= static_cast<i64>(b))
  CMP64(v_cmpx_lt_u64, true, a < b)
  CMP64(v_cmpx_eq_u64, true, a == b)
  CMP64(v_cmpx_le_u64, true, a <= b)
  CMP64(v_cmpx_gt_u64, true, a > b)
  CMP64(v_cmpx_ne_u64, true, a != b)
  CMP64(v_cmpx_ge_u64, true, a >= b)
  CMP32(v_cmpx_lt_u16, true, (a & 0xffff) < (b & 0xffff))
  CMP32(v_cmpx_eq_u16, true, (a & 0xffff) == (b & 0xffff))
  CMP32(v_cmpx_le_u16, true, (a & 0xffff) <= (b & 0xffff))
  CMP32(v_cmpx_gt_u16, true, (a & 0xffff) > (b & 0xffff))
  CMP32(v_cmpx_ne_u16, true, (a & 0xffff) != (b & 0xffff))
  CMP32(v_cmpx_ge_u16, true, (a & 0xffff) >= (b & 0xffff))
  CMP32(v_cmpx_lt_i16, true, static_cast<std::int16_t>(a) < static_cast<std::int16_t>(b))
  CMP32(v_cmpx_eq_i16, true, (a & 0xffff) == (b & 0xffff))
  CMP32(v_cmpx_le_i16, true, static_cast<std::int16_t>(a) <= static_cast<std::int16_t>(b))
  CMP32(v_cmpx_gt_i16, true, static_cast<std::int16_t>(a) > static_cast<std::int16_t>(b))
  CMP32(v_cmpx_ne_i16, true, (a & 0xffff) != (b & 0xffff))
  CMP32(v_cmpx_ge_i16, true, static_cast<std::int16_t>(a) >= static_cast<std::int16_t>(b))
#undef CMP32
#undef CMP64
  for (Opcode op : {O::v_cmp_f_i32, O::v_cmp_f_u32, O::v_cmp_f_i64, O::v_cmp_f_u64, O::v_cmp_f_i16, O::v_cmp_f_u16})
    set(op, vcmp_false);
  for (Opcode op : {O::v_cmp_t_i32, O::v_cmp_t_u32, O::v_cmp_t_i64, O::v_cmp_t_u64, O::v_cmp_t_i16, O::v_cmp_t_u16})
    set(op, vcmp_true);
  for (Opcode op : {O::v_cmpx_f_i32, O::v_cmpx_f_u32, O::v_cmpx_f_i64, O::v_cmpx_f_u64, O::v_cmpx_f_i16, O::v_cmpx_f_u16})
    set(op, vcmpx_false);
  for (Opcode op : {O::v_cmpx_t_i32, O::v_cmpx_t_u32, O::v_cmpx_t_i64, O::v_cmpx_t_u64, O::v_cmpx_t_i16, O::v_cmpx_t_u16})
    set(op, vcmpx_true);
}

}  // namespace cdna::simulator
