// One instruction (or a short sequence) per kernel through inline asm, for instruction-level
// tests. Every kernel reads a[t], b[t], c[t] and writes o[t] (t = work-item, one wave).
// The s_nop after an asm VALU that writes an SGPR (compares, v_mad_u64_u32), before a DPP that
// reads a loaded VGPR, between two s_setreg and after an M0 write: gfx942 wait states
// (simulator/README.md "Hazard rules"), which the compiler does not add around asm statements.
#include <hip/hip_runtime.h>
#include <stdint.h>

#define ARGS const uint32_t *a, const uint32_t *b, const uint32_t *c, uint32_t *o
#define K1(name, text)                                                   \
  extern "C" __global__ void name(ARGS) {                                \
    int t = threadIdx.x;                                                 \
    uint32_t r;                                                          \
    asm volatile(text : "=v"(r) : "v"(a[t]));                            \
    o[t] = r;                                                            \
  }
#define K2(name, text)                                                   \
  extern "C" __global__ void name(ARGS) {                                \
    int t = threadIdx.x;                                                 \
    uint32_t r;                                                          \
    asm volatile(text : "=v"(r) : "v"(a[t]), "v"(b[t]));                 \
    o[t] = r;                                                            \
  }
#define K3(name, text)                                                   \
  extern "C" __global__ void name(ARGS) {                                \
    int t = threadIdx.x;                                                 \
    uint32_t r;                                                          \
    asm volatile(text : "=v"(r) : "v"(a[t]), "v"(b[t]), "v"(c[t]));     \
    o[t] = r;                                                            \
  }
// Old value of the destination is c[t] (for instructions that keep some lanes or bits).
#define K1_KEEP(name, text)                                              \
  extern "C" __global__ void name(ARGS) {                                \
    int t = threadIdx.x;                                                 \
    uint32_t r = c[t];                                                   \
    asm volatile(text : "+v"(r) : "v"(a[t]));                            \
    o[t] = r;                                                            \
  }
#define K2_KEEP(name, text)                                              \
  extern "C" __global__ void name(ARGS) {                                \
    int t = threadIdx.x;                                                 \
    uint32_t r = c[t];                                                   \
    asm volatile(text : "+v"(r) : "v"(a[t]), "v"(b[t]));                 \
    o[t] = r;                                                            \
  }

// ---- VOP3 integer
K3(perm_b32, "v_perm_b32 %0, %1, %2, %3")
K3(alignbit_b32, "v_alignbit_b32 %0, %1, %2, %3")
K3(alignbyte_b32, "v_alignbyte_b32 %0, %1, %2, %3")
K3(bfe_u32, "v_bfe_u32 %0, %1, %2, %3")
K3(bfe_i32, "v_bfe_i32 %0, %1, %2, %3")
K3(bfi_b32, "v_bfi_b32 %0, %1, %2, %3")
K3(lshl_or_b32, "v_lshl_or_b32 %0, %1, %2, %3")
K3(and_or_b32, "v_and_or_b32 %0, %1, %2, %3")
K3(or3_b32, "v_or3_b32 %0, %1, %2, %3")
K3(add3_u32, "v_add3_u32 %0, %1, %2, %3")
K3(lshl_add_u32, "v_lshl_add_u32 %0, %1, %2, %3")
K3(add_lshl_u32, "v_add_lshl_u32 %0, %1, %2, %3")
K3(xad_u32, "v_xad_u32 %0, %1, %2, %3")
K3(med3_i32, "v_med3_i32 %0, %1, %2, %3")
K3(med3_u32, "v_med3_u32 %0, %1, %2, %3")
K3(min3_i32, "v_min3_i32 %0, %1, %2, %3")
K3(max3_u32, "v_max3_u32 %0, %1, %2, %3")
K3(mad_u32_u24, "v_mad_u32_u24 %0, %1, %2, %3")
K3(mad_i32_i24, "v_mad_i32_i24 %0, %1, %2, %3")
K3(sad_u32, "v_sad_u32 %0, %1, %2, %3")
K2(mul_hi_u32, "v_mul_hi_u32 %0, %1, %2")
K2(mul_hi_i32, "v_mul_hi_i32 %0, %1, %2")
K2(mul_lo_u32, "v_mul_lo_u32 %0, %1, %2")
K2(mul_i32_i24, "v_mul_i32_i24_e32 %0, %1, %2")
K2(mul_hi_i32_i24, "v_mul_hi_i32_i24_e32 %0, %1, %2")
K2(mul_u32_u24, "v_mul_u32_u24_e32 %0, %1, %2")
K2(mul_hi_u32_u24, "v_mul_hi_u32_u24_e32 %0, %1, %2")
K2(bcnt_u32_b32, "v_bcnt_u32_b32 %0, %1, %2")
K2(bfm_b32, "v_bfm_b32 %0, %1, %2")
K2(ashrrev_i32, "v_ashrrev_i32_e32 %0, %1, %2")
K2(lshrrev_b32, "v_lshrrev_b32_e32 %0, %1, %2")
K2(lshlrev_b32, "v_lshlrev_b32_e32 %0, %1, %2")
K2(xnor_b32, "v_xnor_b32_e32 %0, %1, %2")
K2(subrev_u32, "v_subrev_u32_e32 %0, %1, %2")
K2(min_i32, "v_min_i32_e32 %0, %1, %2")
K2(max_u32, "v_max_u32_e32 %0, %1, %2")
K1(ffbh_u32, "v_ffbh_u32_e32 %0, %1")
K1(ffbl_b32, "v_ffbl_b32_e32 %0, %1")
K1(ffbh_i32, "v_ffbh_i32_e32 %0, %1")
K1(bfrev_b32, "v_bfrev_b32_e32 %0, %1")
K1(not_b32, "v_not_b32_e32 %0, %1")
K1(mov_b32_literal, "v_add_u32_e32 %0, 0x12345678, %1")
K1(inline_neg16, "v_add_u32_e32 %0, -16, %1")

// ---- f32 with modifiers, f16 packing
K3(fma_f32_mods, "v_fma_f32 %0, -|%1|, %2, -%3")
K2(mul_f32_omod, "v_mul_f32_e64 %0, %1, %2 mul:2")
K2(add_f32_clamp, "v_add_f32_e64 %0, %1, %2 clamp")
K2(sub_f32_div2, "v_sub_f32_e64 %0, %1, %2 div:2")
K3(med3_f32, "v_med3_f32 %0, %1, %2, %3")
K3(max3_f32, "v_max3_f32 %0, %1, %2, %3")
K2(ldexp_f32, "v_ldexp_f32 %0, %1, %2")
K2(cvt_pkrtz, "v_cvt_pkrtz_f16_f32 %0, %1, %2")
K2(pack_b32_f16, "v_pack_b32_f16 %0, %1, %2")
K2(pack_b32_f16_opsel, "v_pack_b32_f16 %0, %1, -%2 op_sel:[1,1]")
K1(cvt_f16_f32, "v_cvt_f16_f32_e32 %0, %1")
K1(cvt_f32_f16, "v_cvt_f32_f16_e32 %0, %1")
K1(cvt_u32_f32, "v_cvt_u32_f32_e32 %0, %1")
K1(cvt_i32_f32, "v_cvt_i32_f32_e32 %0, %1")
K1(cvt_f32_ubyte2, "v_cvt_f32_ubyte2_e32 %0, %1")
K1(rndne_f32, "v_rndne_f32_e32 %0, %1")
K1(sqrt_f32, "v_sqrt_f32_e32 %0, %1")
K1(mul_f32_inline_inv2pi, "v_mul_f32_e32 %0, 0.15915494, %1")

// ---- compares and cndmask with modifiers (mask in an SGPR pair)
extern "C" __global__ void cndmask_mods(ARGS) {
  int t = threadIdx.x;
  uint32_t r;
  uint64_t m;
  asm volatile("v_cmp_gt_u32_e64 %1, %2, %3\n\ts_nop 1\n\tv_cndmask_b32_e64 %0, -%4, |%5|, %1"
               : "=v"(r), "=&s"(m) : "v"(a[t]), "v"(b[t]), "v"(c[t]), "v"(a[t]));
  o[t] = r;
}
extern "C" __global__ void cmp_class_f32(ARGS) {
  int t = threadIdx.x;
  uint64_t m;
  asm volatile("v_cmp_class_f32_e64 %0, %1, %2\n\ts_nop 1" : "=s"(m) : "v"(a[t]), "v"(b[t]));
  o[t] = (uint32_t)((m >> t) & 1);
}
extern "C" __global__ void cmp_u_f32(ARGS) {
  int t = threadIdx.x;
  uint64_t m;
  asm volatile("v_cmp_u_f32_e64 %0, %1, %2\n\ts_nop 1" : "=s"(m) : "v"(a[t]), "v"(b[t]));
  o[t] = (uint32_t)((m >> t) & 1);
}
extern "C" __global__ void cmp_nlt_f32(ARGS) {
  int t = threadIdx.x;
  uint64_t m;
  asm volatile("v_cmp_nlt_f32_e64 %0, %1, %2\n\ts_nop 1" : "=s"(m) : "v"(a[t]), "v"(b[t]));
  o[t] = (uint32_t)((m >> t) & 1);
}
// v_cmpx: EXEC becomes the compare; only the lanes still active write 0x77 over c[t].
extern "C" __global__ void cmpx_write(ARGS) {
  int t = threadIdx.x;
  uint32_t r = c[t];
  uint64_t saved, cmp;
  asm volatile("s_mov_b64 %1, exec\n\tv_cmpx_lt_u32_e64 %2, %3, %4\n\tv_mov_b32_e32 %0, 0x77\n\ts_mov_b64 exec, %1"
               : "+v"(r), "=&s"(saved), "=&s"(cmp) : "v"(a[t]), "v"(b[t]));
  o[t] = r;
}

// ---- 64-bit
extern "C" __global__ void mad_u64_u32(ARGS) {
  int t = threadIdx.x;
  uint64_t r, cc;
  uint64_t add = ((uint64_t)c[t] << 32) | c[t];
  asm volatile("v_mad_u64_u32 %0, %1, %2, %3, %4\n\ts_nop 1" : "=v"(r), "=s"(cc) : "v"(a[t]), "v"(b[t]), "v"(add));
  o[3 * t] = (uint32_t)r;
  o[3 * t + 1] = (uint32_t)(r >> 32);
  o[3 * t + 2] = (uint32_t)((cc >> t) & 1);
}
extern "C" __global__ void mad_i64_i32(ARGS) {
  int t = threadIdx.x;
  uint64_t r, cc;
  uint64_t add = ((uint64_t)c[t] << 32) | b[t];
  asm volatile("v_mad_i64_i32 %0, %1, %2, %3, %4\n\ts_nop 1" : "=v"(r), "=s"(cc) : "v"(a[t]), "v"(b[t]), "v"(add));
  o[3 * t] = (uint32_t)r;
  o[3 * t + 1] = (uint32_t)(r >> 32);
  o[3 * t + 2] = (uint32_t)((cc >> t) & 1);
}
extern "C" __global__ void lshl_add_u64(ARGS) {
  int t = threadIdx.x;
  uint64_t x = ((uint64_t)b[t] << 32) | a[t], y = ((uint64_t)a[t] << 32) | c[t], r;
  asm volatile("v_lshl_add_u64 %0, %1, 3, %2" : "=v"(r) : "v"(x), "v"(y));
  o[2 * t] = (uint32_t)r;
  o[2 * t + 1] = (uint32_t)(r >> 32);
}
extern "C" __global__ void add_co_chain(ARGS) {
  int t = threadIdx.x;
  uint32_t lo, hi;
  asm volatile("v_add_co_u32_e32 %0, vcc, %2, %3\n\ts_nop 1\n\tv_addc_co_u32_e32 %1, vcc, %4, %5, vcc"
               : "=&v"(lo), "=v"(hi) : "v"(a[t]), "v"(b[t]), "v"(c[t]), "v"(a[t]) : "vcc");
  o[2 * t] = lo;
  o[2 * t + 1] = hi;
}
extern "C" __global__ void sub_co_chain(ARGS) {
  int t = threadIdx.x;
  uint32_t lo, hi;
  asm volatile("v_sub_co_u32_e32 %0, vcc, %2, %3\n\ts_nop 1\n\tv_subb_co_u32_e32 %1, vcc, %4, %5, vcc"
               : "=&v"(lo), "=v"(hi) : "v"(a[t]), "v"(b[t]), "v"(c[t]), "v"(a[t]) : "vcc");
  o[2 * t] = lo;
  o[2 * t + 1] = hi;
}
extern "C" __global__ void pk_mul_f32_opsel(ARGS) {
  int t = threadIdx.x;
  float2 x = make_float2(__uint_as_float(a[t]), __uint_as_float(b[t]));
  float2 y = make_float2(__uint_as_float(c[t]), __uint_as_float(a[t] ^ 0x80000000u));
  float2 r;
  asm volatile("v_pk_mul_f32 %0, %1, %2 op_sel_hi:[1,0]" : "=v"(r) : "v"(x), "v"(y));
  o[2 * t] = __float_as_uint(r.x);
  o[2 * t + 1] = __float_as_uint(r.y);
}
extern "C" __global__ void pk_fma_f32_neg(ARGS) {
  int t = threadIdx.x;
  float2 x = make_float2(__uint_as_float(a[t]), __uint_as_float(b[t]));
  float2 y = make_float2(__uint_as_float(c[t]), __uint_as_float(a[t]));
  float2 z = make_float2(__uint_as_float(b[t]), __uint_as_float(c[t]));
  float2 r;
  asm volatile("v_pk_fma_f32 %0, %1, %2, %3 op_sel:[1,0,0] neg_lo:[0,0,1] neg_hi:[1,0,0]"
               : "=v"(r) : "v"(x), "v"(y), "v"(z));
  o[2 * t] = __float_as_uint(r.x);
  o[2 * t + 1] = __float_as_uint(r.y);
}
extern "C" __global__ void pk_mov_b32(ARGS) {
  int t = threadIdx.x;
  uint64_t x = ((uint64_t)b[t] << 32) | a[t], y = ((uint64_t)a[t] << 32) | c[t], r;
  asm volatile("v_pk_mov_b32 %0, %1, %2 op_sel:[1,0]" : "=v"(r) : "v"(x), "v"(y));
  o[2 * t] = (uint32_t)r;
  o[2 * t + 1] = (uint32_t)(r >> 32);
}

// ---- SDWA
K2(sdwa_add_sel, "v_add_u32_sdwa %0, %1, %2 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_1 src1_sel:WORD_1")
K2(sdwa_sext, "v_add_u32_sdwa %0, sext(%1), %2 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:BYTE_3")
K2_KEEP(sdwa_preserve, "v_and_b32_sdwa %0, %1, %2 dst_sel:BYTE_2 dst_unused:UNUSED_PRESERVE src0_sel:DWORD src1_sel:DWORD")
K2(sdwa_pad_word1, "v_or_b32_sdwa %0, %1, %2 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:WORD_0 src1_sel:BYTE_2")
K2(sdwa_dst_sext, "v_sub_u32_sdwa %0, %1, %2 dst_sel:BYTE_1 dst_unused:UNUSED_SEXT src0_sel:DWORD src1_sel:DWORD")
K1(sdwa_vop1, "v_cvt_f32_u32_sdwa %0, %1 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1")
extern "C" __global__ void sdwa_vopc(ARGS) {
  int t = threadIdx.x;
  uint64_t m;
  asm volatile("v_cmp_eq_u32_sdwa %0, %1, %2 src0_sel:BYTE_0 src1_sel:BYTE_1\n\ts_nop 1" : "=s"(m) : "v"(a[t]), "v"(b[t]));
  o[t] = (uint32_t)((m >> t) & 1);
}

// ---- DPP (old value c[t] kept where a lane is not written)
K1_KEEP(dpp_quad_perm, "s_nop 1\n\tv_mov_b32_dpp %0, %1 quad_perm:[3,0,2,1] row_mask:0xf bank_mask:0xf")
K1_KEEP(dpp_row_shl, "s_nop 1\n\tv_mov_b32_dpp %0, %1 row_shl:3 row_mask:0xf bank_mask:0xf")
K1_KEEP(dpp_row_shr_bound, "s_nop 1\n\tv_mov_b32_dpp %0, %1 row_shr:2 row_mask:0xf bank_mask:0xf bound_ctrl:1")
K1_KEEP(dpp_row_ror, "s_nop 1\n\tv_mov_b32_dpp %0, %1 row_ror:5 row_mask:0xf bank_mask:0xf")
K1_KEEP(dpp_row_mirror, "s_nop 1\n\tv_mov_b32_dpp %0, %1 row_mirror row_mask:0xf bank_mask:0xf")
K1_KEEP(dpp_row_half_mirror, "s_nop 1\n\tv_mov_b32_dpp %0, %1 row_half_mirror row_mask:0xf bank_mask:0xf")
K1_KEEP(dpp_row_bcast15, "s_nop 1\n\tv_mov_b32_dpp %0, %1 row_bcast:15 row_mask:0xa bank_mask:0xf")
K1_KEEP(dpp_row_bcast31, "s_nop 1\n\tv_mov_b32_dpp %0, %1 row_bcast:31 row_mask:0xc bank_mask:0xf")
K1_KEEP(dpp_wave_shr, "s_nop 1\n\tv_mov_b32_dpp %0, %1 wave_shr:1 row_mask:0xf bank_mask:0xf")
K1_KEEP(dpp_wave_rol, "s_nop 1\n\tv_mov_b32_dpp %0, %1 wave_rol:1 row_mask:0xf bank_mask:0xf")
K1_KEEP(dpp_masks, "s_nop 1\n\tv_mov_b32_dpp %0, %1 quad_perm:[1,1,1,1] row_mask:0x5 bank_mask:0x6")
K2_KEEP(dpp_add, "s_nop 1\n\tv_add_u32_dpp %0, %1, %2 row_shr:1 row_mask:0xf bank_mask:0xf")

// ---- lane operations
extern "C" __global__ void lane_ops(ARGS) {
  int t = threadIdx.x;
  uint32_t x = a[t];
  uint32_t first, l13, m;
  asm volatile("v_readfirstlane_b32 %0, %1" : "=s"(first) : "v"(x));
  asm volatile("v_readlane_b32 %0, %1, 13" : "=s"(l13) : "v"(x));
  uint32_t w = b[t];
  asm volatile("v_writelane_b32 %0, %1, 7" : "+v"(w) : "s"(l13));
  asm volatile("v_mbcnt_lo_u32_b32 %0, -1, 0\n\tv_mbcnt_hi_u32_b32 %0, -1, %0" : "=&v"(m));
  o[4 * t] = first;
  o[4 * t + 1] = l13;
  o[4 * t + 2] = w;
  o[4 * t + 3] = m;
}

// ---- scalar ALU on uniform operands (kernel arguments); o[0..] = results
extern "C" __global__ void scalar_ops(uint32_t* o, uint32_t x, uint32_t y, uint64_t z) {
  if (threadIdx.x != 0) return;
  uint32_t r[12];
  uint64_t r64[3];
  asm volatile("s_bfe_u32 %0, %1, %2" : "=s"(r[0]) : "s"(x), "s"(y));
  asm volatile("s_bfe_i32 %0, %1, %2" : "=s"(r[1]) : "s"(x), "s"(y));
  asm volatile("s_lshl2_add_u32 %0, %1, %2" : "=s"(r[2]) : "s"(x), "s"(y));
  asm volatile("s_mul_hi_u32 %0, %1, %2" : "=s"(r[3]) : "s"(x), "s"(y));
  asm volatile("s_mul_hi_i32 %0, %1, %2" : "=s"(r[4]) : "s"(x), "s"(y));
  asm volatile("s_absdiff_i32 %0, %1, %2" : "=s"(r[5]) : "s"(x), "s"(y));
  asm volatile("s_cmp_lt_u32 %1, %2\n\ts_cselect_b32 %0, %1, %2" : "=s"(r[6]) : "s"(x), "s"(y));
  asm volatile("s_pack_lh_b32_b16 %0, %1, %2" : "=s"(r[7]) : "s"(x), "s"(y));
  asm volatile("s_flbit_i32 %0, %1" : "=s"(r[8]) : "s"(x));
  asm volatile("s_ff1_i32_b64 %0, %1" : "=s"(r[9]) : "s"(z));
  asm volatile("s_bcnt1_i32_b64 %0, %1" : "=s"(r[10]) : "s"(z));
  asm volatile("s_movk_i32 %0, 0x8001\n\ts_addk_i32 %0, 0x7fff" : "=s"(r[11]));
  asm volatile("s_bfe_u64 %0, %1, %2" : "=s"(r64[0]) : "s"(z), "s"(y));
  asm volatile("s_ashr_i64 %0, %1, %2" : "=s"(r64[1]) : "s"(z), "s"(x));
  asm volatile("s_brev_b64 %0, %1" : "=s"(r64[2]) : "s"(z));
  for (int i = 0; i < 12; ++i) o[i] = r[i];
  for (int i = 0; i < 3; ++i) {
    o[12 + 2 * i] = (uint32_t)r64[i];
    o[13 + 2 * i] = (uint32_t)(r64[i] >> 32);
  }
}

// ---- carry / overflow flags of scalar adds: o[0..3]
extern "C" __global__ void scalar_carry(uint32_t* o, uint32_t x, uint32_t y) {
  if (threadIdx.x != 0) return;
  uint32_t lo, hi, ov, sub;
  asm volatile("s_add_u32 %0, %2, %3\n\ts_addc_u32 %1, 0, 0" : "=s"(lo), "=s"(hi) : "s"(x), "s"(y));
  asm volatile("s_add_i32 %0, %1, %2\n\ts_cselect_b32 %0, 1, 0" : "=s"(ov) : "s"(x), "s"(y));
  asm volatile("s_sub_u32 %0, %1, %2\n\ts_cselect_b32 %0, 1, 0" : "=s"(sub) : "s"(x), "s"(y));
  o[0] = lo;
  o[1] = hi;
  o[2] = ov;
  o[3] = sub;
}

// ---- MODE: flush fp32 denormals with s_setreg, then multiply.
extern "C" __global__ void mode_flush(ARGS) {
  int t = threadIdx.x;
  uint32_t r, mode;
  asm volatile("s_getreg_b32 %1, hwreg(HW_REG_MODE, 4, 2)\n\t"
               "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 0\n\t"
               "v_mul_f32_e32 %0, %2, %3\n\ts_nop 0\n\t"  // setreg after setreg: 2 wait states
               "s_setreg_b32 hwreg(HW_REG_MODE, 4, 2), %1"
               : "=&v"(r), "=&s"(mode) : "v"(a[t]), "v"(b[t]));
  o[t] = r;
}
// ---- LDS: read2/write2, b64/b128, byte/short, atomics, permute
extern "C" __global__ void lds_ops(ARGS) {
  __shared__ uint32_t s[1024];
  int t = threadIdx.x;
  for (int i = t; i < 1024; i += 64) s[i] = 0;  // the LDS the asm below uses starts at 0
  __syncthreads();
  uint32_t addr = (uint32_t)t * 8;
  asm volatile("ds_write2_b32 %0, %1, %2 offset0:0 offset1:1" : : "v"(addr), "v"(a[t]), "v"(b[t]) : "memory");
  uint64_t x;
  uint32_t raddr = (uint32_t)((t ^ 1) * 8);
  asm volatile("s_waitcnt lgkmcnt(0)\n\tds_read2_b32 %0, %1 offset0:1 offset1:0\n\ts_waitcnt lgkmcnt(0)"
               : "=v"(x) : "v"(raddr) : "memory");
  uint32_t x0 = (uint32_t)x, x1 = (uint32_t)(x >> 32);
  uint32_t sum;
  asm volatile("ds_add_rtn_u32 %0, %1, %2 offset:2048\n\ts_waitcnt lgkmcnt(0)" : "=v"(sum) : "v"(0u), "v"(c[t] & 0xff) : "memory");
  uint32_t perm;
  asm volatile("ds_permute_b32 %0, %1, %2\n\ts_waitcnt lgkmcnt(0)" : "=v"(perm) : "v"((uint32_t)((63 - t) * 4)), "v"(a[t]));
  uint32_t bytev;
  asm volatile("ds_write_b8 %1, %2 offset:3000\n\ts_waitcnt lgkmcnt(0)\n\tds_read_i8 %0, %1 offset:3000\n\ts_waitcnt lgkmcnt(0)"
               : "=v"(bytev) : "v"((uint32_t)t), "v"(a[t]) : "memory");
  o[5 * t] = x0;
  o[5 * t + 1] = x1;
  o[5 * t + 2] = sum;
  o[5 * t + 3] = perm;
  o[5 * t + 4] = bytev;
  if (a[t] == 0x12345u && b[t] == 7u) o[5 * t] = s[t];  // keeps s (never true in the test)
}

// ---- global: sub-dword loads/stores, d16, atomics with return
extern "C" __global__ void global_ops(ARGS) {
  int t = threadIdx.x;
  const uint8_t* ab = (const uint8_t*)a;
  const int16_t* bs = (const int16_t*)b;
  uint32_t v = (uint32_t)(int8_t)ab[t * 3] + (uint32_t)bs[t] * 3u;
  o[t] = v;
  uint32_t old = atomicAdd(&o[64 + (t & 7)], 1u);
  o[128 + t] = old < 64 ? 1u : 0u;  // every old value is a count below 64
  atomicMax(&o[200], c[t]);
  atomicMin(&o[201], c[t]);
  atomicXor(&o[202], c[t]);
  unsigned long long* p64 = (unsigned long long*)&o[204];
  atomicAdd(p64, (unsigned long long)c[t] << 16);
  uint32_t prev = atomicCAS(&o[210], (uint32_t)t, (uint32_t)t + 1);
  o[256 + t] = prev;
  ((uint16_t*)&o[320])[t] = (uint16_t)(a[t] >> 5);
}

// ---- more scalar ALU and control flow: o[0..] = results
typedef int int16v __attribute__((ext_vector_type(16)));
extern "C" __global__ void scalar_more(uint32_t* o, const uint32_t* table, int32_t x, int32_t y) {
  if (threadIdx.x != 0) return;
  uint32_t r[10];
  uint64_t sel;
  asm volatile("s_abs_i32 %0, %1" : "=s"(r[0]) : "s"(x));
  asm volatile("s_cmp_eq_u32 %1, %2\n\ts_cselect_b64 %0, -1, 0" : "=s"(sel) : "s"(x), "s"(y));
  asm volatile("s_cmp_ge_i32 %1, %2\n\ts_cselect_b32 %0, 1, 0" : "=s"(r[1]) : "s"(x), "s"(y));
  asm volatile("s_cmp_ge_u32 %1, %2\n\ts_cselect_b32 %0, 1, 0" : "=s"(r[2]) : "s"(x), "s"(y));
  asm volatile("s_cmp_lt_i32 %1, %2\n\ts_cselect_b32 %0, 1, 0" : "=s"(r[3]) : "s"(x), "s"(y));
  asm volatile("s_lshl_b32 %0, %1, %2" : "=s"(r[4]) : "s"(x), "s"(y));
  asm volatile("s_min_i32 %0, %1, %2" : "=s"(r[5]) : "s"(x), "s"(y));
  asm volatile("s_or_b32 %0, %1, %2" : "=s"(r[6]) : "s"(x), "s"(y));
  asm volatile("s_sub_i32 %0, %1, %2" : "=s"(r[7]) : "s"(x), "s"(y));
  // s_cbranch_vccnz / s_branch: r[8] = (x > y) ? 11 : 22 computed by branches on VCC.
  uint64_t m;
  asm volatile("v_mov_b32_e32 v1, %3\n\t"
               "v_cmp_gt_i32_e64 %1, %2, v1\n\t"
               "s_mov_b64 vcc, %1\n\t"
               "s_cbranch_vccnz 1f\n\t"
               "s_mov_b32 %0, 22\n\t"
               "s_branch 2f\n"
               "1:\n\t"
               "s_mov_b32 %0, 11\n"
               "2:"
               : "=s"(r[8]), "=&s"(m) : "s"(x), "s"(y) : "v1", "vcc");
  int16v t16;
  asm volatile("s_load_dwordx16 %0, %1, 0x40\n\ts_waitcnt lgkmcnt(0)" : "=s"(t16) : "s"(table));
  r[9] = (uint32_t)(t16[0] + t16[5] + t16[15]);
  for (int i = 0; i < 10; ++i) o[i] = r[i];
  o[10] = (uint32_t)sel;
  o[11] = (uint32_t)(sel >> 32);
}

// ---- forms of the extended (varlen / paged / window) attention kernels (simulator/tests/kernels_test.cpp):
// s_max_i32, s_cmp_gt_i32, s_cmp_eq_u64 and the VOPC v_cmp_le_u32. o[0..2] scalar, o[4 + t] per lane.
extern "C" __global__ void varlen_kernel_forms(uint32_t* o, const uint32_t* b, int32_t x, int32_t y,
                                               uint64_t p, uint64_t q) {
  const int t = threadIdx.x;
  uint32_t mx, gt, eq;
  asm volatile("s_max_i32 %0, %1, %2" : "=s"(mx) : "s"(x), "s"(y));
  asm volatile("s_cmp_gt_i32 %1, %2\n\ts_cselect_b32 %0, 1, 0" : "=s"(gt) : "s"(x), "s"(y));
  asm volatile("s_cmp_eq_u64 %1, %2\n\ts_cselect_b32 %0, 1, 0" : "=s"(eq) : "s"(p), "s"(q));
  uint64_t m;
  asm volatile("v_cmp_le_u32_e32 vcc, %1, %2\n\ts_mov_b64 %0, vcc" : "=s"(m) : "v"(b[t]), "v"((uint32_t)x) : "vcc");
  if (t == 0) {
    o[0] = mx;
    o[1] = gt;
    o[2] = eq;
  }
  o[4 + t] = (uint32_t)((m >> t) & 1);
}

// ---- unsigned 16-bit loads and more compares: o[4t..4t+3]
extern "C" __global__ void loads_and_compares(ARGS) {
  int t = threadIdx.x;
  const uint16_t* us = (const uint16_t*)a;
  uint64_t m1, m2, m3, m4, m5, m6;
  asm volatile("v_cmp_ge_i32_e64 %0, %1, %2\n\ts_nop 1" : "=s"(m1) : "v"(b[t]), "v"(c[t]));
  asm volatile("v_cmp_ge_i32_e32 vcc, %1, %2\n\ts_mov_b64 %0, vcc" : "=s"(m2) : "v"(b[t]), "v"(c[t]) : "vcc");
  asm volatile("v_cmp_neq_f32_e64 %0, %1, %2\n\ts_nop 1" : "=s"(m3) : "v"(b[t]), "v"(c[t]));
  asm volatile("v_cmp_o_f32_e64 %0, %1, %1\n\ts_nop 1" : "=s"(m4) : "v"(b[t]));
  // The VOPC form of v_cmp_o_f32 and the VOP3 form of v_cmp_eq_u32 (both in the attention code
  // objects, simulator/tests/kernels_test.cpp).
  asm volatile("v_cmp_o_f32_e32 vcc, %1, %1\n\ts_mov_b64 %0, vcc" : "=s"(m5) : "v"(b[t]) : "vcc");
  asm volatile("v_cmp_eq_u32_e64 %0, %1, %2\n\ts_nop 1" : "=s"(m6) : "v"(b[t]), "v"(c[t] & 3u ? c[t] : b[t]));
  o[4 * t] = (uint32_t)us[t * 2 + 1] * 5u;
  o[4 * t + 1] = (uint32_t)(((m1 >> t) & 1) | (((m2 >> t) & 1) << 1));
  o[4 * t + 2] = (uint32_t)((m3 >> t) & 1);
  o[4 * t + 3] = (uint32_t)(((m4 >> t) & 1) | (((m5 >> t) & 1) << 1) | (((m6 >> t) & 1) << 2));
}

// ---- forms of the attention kernel's non-finite paths (simulator/tests/kernels_test.cpp): 16-bit
// and f32 compares, s_cmp_lg_u32 with s_cbranch_scc0, s_cbranch_vccz, u16 maxima. o[4t..4t+3]
extern "C" __global__ void compares_and_branches(ARGS) {
  int t = threadIdx.x;
  // Low halves equal in about 1/4 of the lanes; the high halves differ (a u16 compare ignores them).
  const uint32_t y = (c[t] & 3u) ? b[t] : ((a[t] & 0xffffu) | (~a[t] & 0xffff0000u));
  uint64_t m1, m2, m3, m4;
  uint32_t r1, r1b, r2, r3;
  asm volatile("v_cmp_eq_u16_e32 vcc, %1, %2\n\ts_mov_b64 %0, vcc" : "=s"(m1) : "v"(a[t]), "v"(y) : "vcc");
  asm volatile("v_cmp_eq_u16_e64 %0, %1, %2\n\ts_nop 1" : "=s"(m2) : "v"(a[t]), "v"(y));
  asm volatile("v_cmp_lg_f32_e32 vcc, %1, %2\n\ts_mov_b64 %0, vcc" : "=s"(m3) : "v"(b[t]), "v"(c[t]) : "vcc");
  asm volatile("v_cmp_neq_f32_e32 vcc, %1, %2\n\ts_mov_b64 %0, vcc" : "=s"(m4) : "v"(b[t]), "v"(c[t]) : "vcc");
  // r1 = lo(m3) != lo(m4) ? 11 : 22, r1b the same of (lo(m3), lo(m3)); r2 = m1 == 0 ? 33 : 44;
  // r3 = m1 ^ m2 == 0 ? 55 : 66 (each branch is taken in one and not taken in another).
  asm volatile("s_cmp_lg_u32 %1, %2\n\ts_cbranch_scc0 1f\n\ts_mov_b32 %0, 11\n\ts_branch 2f\n"
               "1:\n\ts_mov_b32 %0, 22\n2:"
               : "=s"(r1) : "s"((uint32_t)m3), "s"((uint32_t)m4));
  asm volatile("s_cmp_lg_u32 %1, %2\n\ts_cbranch_scc0 1f\n\ts_mov_b32 %0, 11\n\ts_branch 2f\n"
               "1:\n\ts_mov_b32 %0, 22\n2:"
               : "=s"(r1b) : "s"((uint32_t)m3), "s"((uint32_t)m3));
  asm volatile("s_mov_b64 vcc, %1\n\ts_cbranch_vccz 1f\n\ts_mov_b32 %0, 44\n\ts_branch 2f\n"
               "1:\n\ts_mov_b32 %0, 33\n2:"
               : "=s"(r2) : "s"(m1) : "vcc");
  asm volatile("s_xor_b64 vcc, %1, %2\n\ts_cbranch_vccz 1f\n\ts_mov_b32 %0, 66\n\ts_branch 2f\n"
               "1:\n\ts_mov_b32 %0, 55\n2:"
               : "=s"(r3) : "s"(m1), "s"(m2) : "vcc", "scc");
  o[4 * t] = (uint32_t)(((m1 >> t) & 1) | (((m2 >> t) & 1) << 1));
  o[4 * t + 1] = (uint32_t)(((m3 >> t) & 1) | (((m4 >> t) & 1) << 1));
  o[4 * t + 2] = r1 | r1b << 8;
  o[4 * t + 3] = r2 | r3 << 8;
  // The V exponent scan's u16 maxima and the +inf tests' VOP3 f32 compare: o[256 + 2t..].
  const uint32_t z = (c[t] & 4u) ? c[t] : b[t];  // equal to b in about half of the lanes
  uint32_t mx, mx3;
  uint64_t m5;
  asm volatile("v_max_u16_e32 %0, %1, %2" : "=v"(mx) : "v"(a[t]), "v"(b[t]));
  asm volatile("v_max3_u16 %0, %1, %2, %3" : "=v"(mx3) : "v"(a[t]), "v"(b[t]), "v"(c[t]));
  // s_nop 1: a VALU reading the mask SGPRs needs 2 wait states (rule valu-sgpr-valu), and clang
  // does not see inside this asm statement.
  asm volatile("v_cmp_eq_f32_e64 %0, %1, %2\n\ts_nop 1" : "=s"(m5) : "v"(b[t]), "v"(z));
  o[256 + 2 * t] = mx & 0xffffu;
  o[256 + 2 * t + 1] = (mx3 & 0xffffu) | (uint32_t)((m5 >> t) & 1) << 16;
}

// ---- 16-bit: f16 and i16/u16 arithmetic, packed, compares, conversions
K2(add_f16, "v_add_f16_e32 %0, %1, %2")
K2(sub_f16, "v_sub_f16_e32 %0, %1, %2")
K2(mul_f16, "v_mul_f16_e32 %0, %1, %2")
K2(max_f16, "v_max_f16_e32 %0, %1, %2")
K2(min_f16, "v_min_f16_e32 %0, %1, %2")
K3(fma_f16, "v_fma_f16 %0, %1, %2, %3")
K3(fma_f16_opsel, "v_fma_f16 %0, %1, -%2, %3 op_sel:[1,1,0,0]")
K2(add_u16, "v_add_u16_e32 %0, %1, %2")
K2(sub_u16, "v_sub_u16_e32 %0, %1, %2")
K2(mul_lo_u16, "v_mul_lo_u16_e32 %0, %1, %2")
K2(lshlrev_b16, "v_lshlrev_b16_e32 %0, %1, %2")
K2(ashrrev_i16, "v_ashrrev_i16_e32 %0, %1, %2")
K2(max_i16, "v_max_i16_e32 %0, %1, %2")
K2(min_u16, "v_min_u16_e32 %0, %1, %2")
K2(pk_add_f16, "v_pk_add_f16 %0, %1, %2")
K2(pk_mul_f16_mods, "v_pk_mul_f16 %0, %1, %2 op_sel:[1,0] op_sel_hi:[0,1] neg_lo:[1,0]")
K3(pk_fma_f16, "v_pk_fma_f16 %0, %1, %2, %3")
K2(pk_max_f16, "v_pk_max_f16 %0, %1, %2")
K2(pk_add_u16, "v_pk_add_u16 %0, %1, %2")
K2(pk_mul_lo_u16, "v_pk_mul_lo_u16 %0, %1, %2")
K2(pk_ashrrev_i16, "v_pk_ashrrev_i16 %0, %1, %2")
K2(pk_max_i16, "v_pk_max_i16 %0, %1, %2")
K1(cvt_f16_u16, "v_cvt_f16_u16_e32 %0, %1")
K1(cvt_i16_f16, "v_cvt_i16_f16_e32 %0, %1")
extern "C" __global__ void cmp_f16(ARGS) {
  int t = threadIdx.x;
  uint64_t lt, cls;
  asm volatile("v_cmp_lt_f16_e64 %0, %1, %2\n\ts_nop 1" : "=s"(lt) : "v"(a[t]), "v"(b[t]));
  asm volatile("v_cmp_class_f16_e64 %0, %1, %2\n\ts_nop 1" : "=s"(cls) : "v"(a[t]), "v"(c[t]));
  o[t] = (uint32_t)((lt >> t) & 1) | ((uint32_t)((cls >> t) & 1) << 1);
}

// ---- v_dot2_f32_f16 / v_dot2c_f32_f16 and the fp8/bf8 conversions
K3(dot2_f32_f16, "v_dot2_f32_f16 %0, %1, %2, %3")
K2_KEEP(dot2c_f32_f16, "v_dot2c_f32_f16 %0, %1, %2")
K2_KEEP(cvt_pk_fp8_f32_w0, "v_cvt_pk_fp8_f32 %0, %1, %2")
K2_KEEP(cvt_pk_fp8_f32_w1, "v_cvt_pk_fp8_f32 %0, %1, %2 op_sel:[0,0,1]")
K2_KEEP(cvt_pk_bf8_f32_w0, "v_cvt_pk_bf8_f32 %0, %1, %2")
K2_KEEP(cvt_pk_bf8_f32_w1, "v_cvt_pk_bf8_f32 %0, %1, %2 op_sel:[0,0,1]")
K2_KEEP(cvt_sr_fp8_f32_b0, "v_cvt_sr_fp8_f32 %0, %1, %2")
K2_KEEP(cvt_sr_fp8_f32_b1, "v_cvt_sr_fp8_f32 %0, %1, %2 op_sel:[0,0,1,0]")
K2_KEEP(cvt_sr_fp8_f32_b2, "v_cvt_sr_fp8_f32 %0, %1, %2 op_sel:[0,0,0,1]")
K2_KEEP(cvt_sr_bf8_f32_b3, "v_cvt_sr_bf8_f32 %0, %1, %2 op_sel:[0,0,1,1]")
K1(cvt_f32_fp8_b0, "v_cvt_f32_fp8 %0, %1")
K1(cvt_f32_bf8_b0, "v_cvt_f32_bf8 %0, %1")
K1(cvt_f32_fp8_b2, "v_cvt_f32_fp8_sdwa %0, %1 src0_sel:BYTE_2")
K1(cvt_f32_bf8_b3, "v_cvt_f32_bf8_sdwa %0, %1 src0_sel:BYTE_3")
// Two results per work-item: o[2t], o[2t+1].
extern "C" __global__ void cvt_pk_f32_fp8_w0(ARGS) {
  int t = threadIdx.x;
  uint64_t r;
  asm volatile("v_cvt_pk_f32_fp8 %0, %1" : "=v"(r) : "v"(a[t]));
  o[2 * t] = static_cast<uint32_t>(r);
  o[2 * t + 1] = static_cast<uint32_t>(r >> 32);
}
extern "C" __global__ void cvt_pk_f32_bf8_w1(ARGS) {
  int t = threadIdx.x;
  uint64_t r;
  asm volatile("v_cvt_pk_f32_bf8_sdwa %0, %1 src0_sel:WORD_1" : "=v"(r) : "v"(a[t]));
  o[2 * t] = static_cast<uint32_t>(r);
  o[2 * t + 1] = static_cast<uint32_t>(r >> 32);
}

// ---- MUBUF buffer loads/stores with a raw V# (stride 0, swizzle off) built from a pointer and
// num_records; o[8t + k] gets the results. dst is written by the stores.
typedef int cdna_v4i __attribute__((ext_vector_type(4)));
__device__ inline cdna_v4i cdna_vsharp(const void* p, uint32_t num_records, uint32_t stride) {
  uint64_t a = reinterpret_cast<uint64_t>(p);
  return cdna_v4i{static_cast<int>(a), static_cast<int>(((a >> 32) & 0xffff) | (stride << 16)),
                  static_cast<int>(num_records), 0x00027000};
}
extern "C" __global__ void buffer_ops(const uint32_t* src, uint32_t* dst, uint32_t* o,
                                      uint32_t n_src, uint32_t n_dst) {
  __shared__ uint32_t lds[64 + 4];
  int t = threadIdx.x;
  cdna_v4i rs = cdna_vsharp(src, n_src, 0), rd = cdna_vsharp(dst, n_dst, 0);
  uint32_t r0, r1, r2, r3, r5;
  uint64_t r4;
  uint32_t off4 = 4 * t, off3 = 3 * t, off2 = 2 * t, off8 = 8 * t;
  asm volatile("buffer_load_dword %0, %1, %2, 0 offen\n\ts_waitcnt vmcnt(0)" : "=v"(r0) : "v"(off4), "s"(rs));
  asm volatile("buffer_load_ubyte %0, %1, %2, 0 offen offset:1\n\ts_waitcnt vmcnt(0)" : "=v"(r1) : "v"(off3), "s"(rs));
  asm volatile("buffer_load_sshort %0, %1, %2, 0 offen\n\ts_waitcnt vmcnt(0)" : "=v"(r2) : "v"(off2), "s"(rs));
  asm volatile("buffer_load_sbyte %0, %1, %2, 0 offen offset:2\n\ts_waitcnt vmcnt(0)" : "=v"(r3) : "v"(off3), "s"(rs));
  asm volatile("buffer_load_dwordx2 %0, %1, %2, 0 offen\n\ts_waitcnt vmcnt(0)" : "=v"(r4) : "v"(off8), "s"(rs));
  // soffset: a scalar 8 added to the address and counted by the range check.
  asm volatile("buffer_load_dword %0, %1, %2, %3 offen\n\ts_waitcnt vmcnt(0)" : "=v"(r5) : "v"(off4), "s"(rs), "s"(8));
  asm volatile("buffer_store_dword %0, %1, %2, 0 offen\n\ts_waitcnt vmcnt(0)" : : "v"(r0 + 1), "v"(off4), "s"(rd) : "memory");
  asm volatile("buffer_store_short %0, %1, %2, 0 offen offset:256\n\ts_waitcnt vmcnt(0)" : : "v"(r0), "v"(off2), "s"(rd) : "memory");
  // LDS-direct: lane l's dword lands at LDS M0 + 16 + 4l.
  typedef __attribute__((address_space(3))) uint32_t lds_u32;
  uint32_t lds_base = static_cast<uint32_t>(reinterpret_cast<uintptr_t>((lds_u32*)lds));
  asm volatile("s_mov_b32 m0, %0\n\ts_nop 0\n\tbuffer_load_dword %1, %2, 0 offen offset:16 lds\n\ts_waitcnt vmcnt(0)"
               : : "s"(lds_base), "v"(off4), "s"(rs) : "memory");
  __syncthreads();
  o[8 * t + 0] = r0;
  o[8 * t + 1] = r1;
  o[8 * t + 2] = r2;
  o[8 * t + 3] = r3;
  o[8 * t + 4] = static_cast<uint32_t>(r4);
  o[8 * t + 5] = static_cast<uint32_t>(r4 >> 32);
  o[8 * t + 6] = r5;
  o[8 * t + 7] = lds[t + 4];
}
// The compiler's raw buffer builtins (clang 19): load src[t] (0 beyond n_src), store it + 1.
extern "C" __global__ void buffer_builtin(const uint32_t* src, uint32_t* dst, uint32_t* o,
                                          uint32_t n_src, uint32_t n_dst) {
  int t = threadIdx.x;
  __amdgpu_buffer_rsrc_t rs = __builtin_amdgcn_make_buffer_rsrc(const_cast<uint32_t*>(src), 0, n_src, 0x00027000);
  __amdgpu_buffer_rsrc_t rd = __builtin_amdgcn_make_buffer_rsrc(dst, 0, n_dst, 0x00027000);
  uint32_t x = __builtin_amdgcn_raw_buffer_load_b32(rs, 4 * t, 0, 0);
  __builtin_amdgcn_raw_buffer_store_b32(x + 1, rd, 4 * t, 0, 0);
  o[t] = x;
}
