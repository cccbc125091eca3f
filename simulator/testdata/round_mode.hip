// MODE round/denormal tests: each kernel writes MODE bits 7:0 from its `mode` argument with
// s_setreg_b32, then runs one floating-point instruction per work-item (t = global id).
// 32-bit kernels read a[t], b[t], c[t] and write o[t]; 64-bit kernels likewise on 64-bit words.
#include <hip/hip_runtime.h>
#include <stdint.h>

#define ARGS const uint32_t *a, const uint32_t *b, const uint32_t *c, uint32_t *o, uint32_t mode
#define ARGS64 const uint64_t *a, const uint64_t *b, const uint64_t *c, uint64_t *o, uint32_t mode
#define TID int t = blockIdx.x * blockDim.x + threadIdx.x
#define SETMODE "s_setreg_b32 hwreg(HW_REG_MODE, 0, 8), %[m]\n\t"

#define K1(name, text)                                                            \
  extern "C" __global__ void name(ARGS) {                                         \
    TID;                                                                          \
    uint32_t r;                                                                   \
    asm volatile(SETMODE text : "=v"(r) : "v"(a[t]), [m] "s"(mode));              \
    o[t] = r;                                                                     \
  }
#define K2(name, text)                                                            \
  extern "C" __global__ void name(ARGS) {                                         \
    TID;                                                                          \
    uint32_t r;                                                                   \
    asm volatile(SETMODE text : "=v"(r) : "v"(a[t]), "v"(b[t]), [m] "s"(mode));   \
    o[t] = r;                                                                     \
  }
#define K3(name, text)                                                                      \
  extern "C" __global__ void name(ARGS) {                                                   \
    TID;                                                                                    \
    uint32_t r;                                                                             \
    asm volatile(SETMODE text : "=v"(r) : "v"(a[t]), "v"(b[t]), "v"(c[t]), [m] "s"(mode)); \
    o[t] = r;                                                                               \
  }
// Accumulating forms: the destination starts as c[t].
#define K2_ACC(name, text)                                                        \
  extern "C" __global__ void name(ARGS) {                                         \
    TID;                                                                          \
    uint32_t r = c[t];                                                            \
    asm volatile(SETMODE text : "+v"(r) : "v"(a[t]), "v"(b[t]), [m] "s"(mode));   \
    o[t] = r;                                                                     \
  }
#define D2(name, text)                                                            \
  extern "C" __global__ void name(ARGS64) {                                       \
    TID;                                                                          \
    uint64_t r;                                                                   \
    asm volatile(SETMODE text : "=v"(r) : "v"(a[t]), "v"(b[t]), [m] "s"(mode));   \
    o[t] = r;                                                                     \
  }
#define D3(name, text)                                                                      \
  extern "C" __global__ void name(ARGS64) {                                                 \
    TID;                                                                                    \
    uint64_t r;                                                                             \
    asm volatile(SETMODE text : "=v"(r) : "v"(a[t]), "v"(b[t]), "v"(c[t]), [m] "s"(mode)); \
    o[t] = r;                                                                               \
  }

// ---- f32
K2(add_f32, "v_add_f32_e32 %0, %1, %2")
K2(sub_f32, "v_sub_f32_e32 %0, %1, %2")
K2(subrev_f32, "v_subrev_f32_e32 %0, %1, %2")
K2(mul_f32, "v_mul_f32_e32 %0, %1, %2")
K2(mul_legacy_f32, "v_mul_legacy_f32 %0, %1, %2")
K3(fma_f32, "v_fma_f32 %0, %1, %2, %3")
K2_ACC(fmac_f32, "v_fmac_f32_e32 %0, %1, %2")
K2(ldexp_f32, "v_ldexp_f32 %0, %1, %2")
K1(cvt_f32_i32, "v_cvt_f32_i32_e32 %0, %1")
K1(cvt_f32_u32, "v_cvt_f32_u32_e32 %0, %1")
K1(cvt_f16_f32, "v_cvt_f16_f32_e32 %0, %1")
K2(cvt_pkrtz_f16_f32, "v_cvt_pkrtz_f16_f32 %0, %1, %2")
K3(dot2_f32_f16, "v_dot2_f32_f16 %0, %1, %2, %3")
K2_ACC(dot2c_f32_f16, "v_dot2c_f32_f16_e32 %0, %1, %2")

// ---- f16 (low halves; packed forms use both)
K2(add_f16, "v_add_f16_e32 %0, %1, %2")
K2(sub_f16, "v_sub_f16_e32 %0, %1, %2")
K2(subrev_f16, "v_subrev_f16_e32 %0, %1, %2")
K2(mul_f16, "v_mul_f16_e32 %0, %1, %2")
K3(fma_f16, "v_fma_f16 %0, %1, %2, %3")
K2(pk_add_f16, "v_pk_add_f16 %0, %1, %2")
K2(pk_mul_f16, "v_pk_mul_f16 %0, %1, %2")
K3(pk_fma_f16, "v_pk_fma_f16 %0, %1, %2, %3")
K1(cvt_f16_u16, "v_cvt_f16_u16_e32 %0, %1")
K1(cvt_f16_i16, "v_cvt_f16_i16_e32 %0, %1")

// ---- transcendentals (MODE's round mode must not change them)
K1(exp_f32, "v_exp_f32_e32 %0, %1")
K1(log_f32, "v_log_f32_e32 %0, %1")
K1(rcp_f32, "v_rcp_f32_e32 %0, %1")
K1(rsq_f32, "v_rsq_f32_e32 %0, %1")
K1(sqrt_f32, "v_sqrt_f32_e32 %0, %1")
K1(sin_f32, "v_sin_f32_e32 %0, %1")
K1(cos_f32, "v_cos_f32_e32 %0, %1")

// ---- f64 and packed f32 (64-bit words)
D2(add_f64, "v_add_f64 %0, %1, %2")
D2(mul_f64, "v_mul_f64 %0, %1, %2")
D3(fma_f64, "v_fma_f64 %0, %1, %2, %3")
extern "C" __global__ void fmac_f64(ARGS64) {
  TID;
  uint64_t r = c[t];
  asm volatile(SETMODE "v_fmac_f64_e32 %0, %1, %2" : "+v"(r) : "v"(a[t]), "v"(b[t]), [m] "s"(mode));
  o[t] = r;
}
extern "C" __global__ void ldexp_f64(ARGS64) {
  TID;
  uint64_t r;
  asm volatile(SETMODE "v_ldexp_f64 %0, %1, %2" : "=v"(r) : "v"(a[t]), "v"((uint32_t)b[t]), [m] "s"(mode));
  o[t] = r;
}
extern "C" __global__ void cvt_f32_f64(ARGS64) {
  TID;
  uint32_t r;
  asm volatile(SETMODE "v_cvt_f32_f64_e32 %0, %1" : "=v"(r) : "v"(a[t]), [m] "s"(mode));
  o[t] = r;
}
D2(pk_add_f32, "v_pk_add_f32 %0, %1, %2")
D2(pk_mul_f32, "v_pk_mul_f32 %0, %1, %2")
D3(pk_fma_f32, "v_pk_fma_f32 %0, %1, %2, %3")

// ---- MODE round trip: o[0] = MODE[7:0] after writing `mode`; o[1] = the same after writing
// only bits 3:2 (the fp64/fp16 round field) with 1; o[2] = MODE[3:2] read as a 2-bit field.
extern "C" __global__ void mode_roundtrip(ARGS) {
  uint32_t r0, r1, r2;
  // s_nop 1: s_getreg after s_setreg of the same register needs 2 wait states (hazard rule
  // setreg-getreg, simulator/README.md).
  asm volatile(SETMODE "s_nop 1\n\ts_getreg_b32 %0, hwreg(HW_REG_MODE, 0, 8)\n\t"
               "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 2, 2), 1\n\ts_nop 1\n\t"
               "s_getreg_b32 %1, hwreg(HW_REG_MODE, 0, 8)\n\t"
               "s_getreg_b32 %2, hwreg(HW_REG_MODE, 2, 2)"
               : "=&s"(r0), "=&s"(r1), "=&s"(r2) : [m] "s"(mode));
  if (threadIdx.x == 0) {
    o[0] = r0;
    o[1] = r1;
    o[2] = r2;
  }
}
