// MFMA through one-instruction inline asm (the accumulator tied in/out), followed by the
// wait states the compiler cannot see (cdna3-facts.md §5).
#include <hip/hip_runtime.h>

typedef short s4 __attribute__((ext_vector_type(4)));
typedef _Float16 h4 __attribute__((ext_vector_type(4)));
typedef float f4 __attribute__((ext_vector_type(4)));
typedef float f16x __attribute__((ext_vector_type(16)));

// D = A B + C, 16x16x16 bf16, accumulator in VGPRs.
extern "C" __global__ void mfma_16x16x16_bf16(const s4* a, const s4* b, f4* c) {
  int l = threadIdx.x;
  f4 acc = c[l];
  s4 av = a[l], bv = b[l];
  asm volatile("v_mfma_f32_16x16x16_bf16 %0, %1, %2, %0\n\ts_nop 7" : "+v"(acc) : "v"(av), "v"(bv));
  c[l] = acc;
}

// The same with the accumulator in AGPRs, applied twice (C of the second is D of the first).
extern "C" __global__ void mfma_16x16x16_bf16_agpr_twice(const s4* a, const s4* b, f4* c) {
  int l = threadIdx.x;
  f4 acc = c[l];
  s4 av = a[l], bv = b[l];
  asm volatile("v_mfma_f32_16x16x16_bf16 %0, %1, %2, %0\n\t"
               "s_nop 4\n\t"
               "v_mfma_f32_16x16x16_bf16 %0, %1, %2, %0\n\ts_nop 7"
               : "+a"(acc) : "v"(av), "v"(bv));
  c[l] = acc;
}

// D = A B (C is the inline constant 0).
extern "C" __global__ void mfma_16x16x16_bf16_zero_c(const s4* a, const s4* b, f4* d) {
  int l = threadIdx.x;
  f4 acc;
  s4 av = a[l], bv = b[l];
  asm volatile("v_mfma_f32_16x16x16_bf16 %0, %1, %2, 0\n\ts_nop 7" : "=v"(acc) : "v"(av), "v"(bv));
  d[l] = acc;
}

extern "C" __global__ void mfma_32x32x8_bf16(const s4* a, const s4* b, f16x* c) {
  int l = threadIdx.x;
  f16x acc = c[l];
  s4 av = a[l], bv = b[l];
  asm volatile("v_mfma_f32_32x32x8_bf16 %0, %1, %2, %0\n\ts_nop 7\n\ts_nop 7\n\ts_nop 3"
               : "+v"(acc) : "v"(av), "v"(bv));
  c[l] = acc;
}

extern "C" __global__ void mfma_16x16x16_f16(const h4* a, const h4* b, f4* c) {
  int l = threadIdx.x;
  f4 acc = c[l];
  h4 av = a[l], bv = b[l];
  asm volatile("v_mfma_f32_16x16x16_f16 %0, %1, %2, %0\n\ts_nop 7" : "+v"(acc) : "v"(av), "v"(bv));
  c[l] = acc;
}

extern "C" __global__ void mfma_32x32x8_f16(const h4* a, const h4* b, f16x* c) {
  int l = threadIdx.x;
  f16x acc = c[l];
  h4 av = a[l], bv = b[l];
  asm volatile("v_mfma_f32_32x32x8_f16 %0, %1, %2, %0\n\ts_nop 7\n\ts_nop 7\n\ts_nop 3"
               : "+a"(acc) : "v"(av), "v"(bv));
  c[l] = acc;
}

// The compiler's own MFMA (builtin), accumulator chosen by the compiler.
extern "C" __global__ void mfma_builtin_16x16x16_bf16(const s4* a, const s4* b, f4* c) {
  int l = threadIdx.x;
  c[l] = __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(a[l], b[l], c[l], 0, 0, 0);
}

// ---- every other CDNA3 MFMA: one kernel each, lane l loads its A, B and C registers from
// a[l], b[l], c[l], runs the instruction with the accumulator tied, stores D to c[l]. 24 wait
// states after each MFMA cover every variant (cdna3-facts.md §5: at most 19).
typedef int i1;
typedef int i2 __attribute__((ext_vector_type(2)));
typedef float f1;
typedef float f16v __attribute__((ext_vector_type(16)));
typedef float f32v __attribute__((ext_vector_type(32)));
typedef double d1;
typedef double d4 __attribute__((ext_vector_type(4)));

#define CDNA_MFMA_WAIT "\n\ts_nop 7\n\ts_nop 7\n\ts_nop 7"
#define CDNA_MFMA_KERNEL(name, insn, AT, CT, cons)                                     \
  extern "C" __global__ void name(const AT* a, const AT* b, CT* c) {                  \
    int l = threadIdx.x;                                                               \
    CT acc = c[l];                                                                     \
    AT av = a[l], bv = b[l];                                                           \
    asm volatile(insn " %0, %1, %2, %0" CDNA_MFMA_WAIT : cons(acc) : "v"(av), "v"(bv)); \
    c[l] = acc;                                                                        \
  }

CDNA_MFMA_KERNEL(mfma_32x32x4_2b_f16, "v_mfma_f32_32x32x4_2b_f16", i2, f32v, "+a")
CDNA_MFMA_KERNEL(mfma_16x16x4_4b_f16, "v_mfma_f32_16x16x4_4b_f16", i2, f16v, "+v")
CDNA_MFMA_KERNEL(mfma_4x4x4_16b_f16, "v_mfma_f32_4x4x4_16b_f16", i2, f4, "+a")
CDNA_MFMA_KERNEL(mfma_32x32x4_2b_bf16, "v_mfma_f32_32x32x4_2b_bf16", i2, f32v, "+v")
CDNA_MFMA_KERNEL(mfma_16x16x4_4b_bf16, "v_mfma_f32_16x16x4_4b_bf16", i2, f16v, "+a")
CDNA_MFMA_KERNEL(mfma_4x4x4_16b_bf16, "v_mfma_f32_4x4x4_16b_bf16", i2, f4, "+v")
CDNA_MFMA_KERNEL(mfma_16x16x8_xf32, "v_mfma_f32_16x16x8_xf32", i2, f4, "+v")
CDNA_MFMA_KERNEL(mfma_32x32x4_xf32, "v_mfma_f32_32x32x4_xf32", i2, f16v, "+a")
CDNA_MFMA_KERNEL(mfma_16x16x32_fp8_fp8, "v_mfma_f32_16x16x32_fp8_fp8", i2, f4, "+v")
CDNA_MFMA_KERNEL(mfma_16x16x32_fp8_bf8, "v_mfma_f32_16x16x32_fp8_bf8", i2, f4, "+a")
CDNA_MFMA_KERNEL(mfma_16x16x32_bf8_fp8, "v_mfma_f32_16x16x32_bf8_fp8", i2, f4, "+v")
CDNA_MFMA_KERNEL(mfma_16x16x32_bf8_bf8, "v_mfma_f32_16x16x32_bf8_bf8", i2, f4, "+a")
CDNA_MFMA_KERNEL(mfma_32x32x16_fp8_fp8, "v_mfma_f32_32x32x16_fp8_fp8", i2, f16v, "+v")
CDNA_MFMA_KERNEL(mfma_32x32x16_fp8_bf8, "v_mfma_f32_32x32x16_fp8_bf8", i2, f16v, "+a")
CDNA_MFMA_KERNEL(mfma_32x32x16_bf8_fp8, "v_mfma_f32_32x32x16_bf8_fp8", i2, f16v, "+v")
CDNA_MFMA_KERNEL(mfma_32x32x16_bf8_bf8, "v_mfma_f32_32x32x16_bf8_bf8", i2, f16v, "+a")
CDNA_MFMA_KERNEL(mfma_16x16x32_i8, "v_mfma_i32_16x16x32_i8", i2, f4, "+v")
CDNA_MFMA_KERNEL(mfma_32x32x16_i8, "v_mfma_i32_32x32x16_i8", i2, f16v, "+a")
CDNA_MFMA_KERNEL(mfma_32x32x4_2b_i8, "v_mfma_i32_32x32x4_2b_i8", i1, f32v, "+v")
CDNA_MFMA_KERNEL(mfma_16x16x4_4b_i8, "v_mfma_i32_16x16x4_4b_i8", i1, f16v, "+a")
CDNA_MFMA_KERNEL(mfma_4x4x4_16b_i8, "v_mfma_i32_4x4x4_16b_i8", i1, f4, "+v")
CDNA_MFMA_KERNEL(mfma_16x16x4_f32, "v_mfma_f32_16x16x4_f32", f1, f4, "+a")
CDNA_MFMA_KERNEL(mfma_32x32x2_f32, "v_mfma_f32_32x32x2_f32", f1, f16v, "+v")
CDNA_MFMA_KERNEL(mfma_32x32x1_2b_f32, "v_mfma_f32_32x32x1_2b_f32", f1, f32v, "+a")
CDNA_MFMA_KERNEL(mfma_16x16x1_4b_f32, "v_mfma_f32_16x16x1_4b_f32", f1, f16v, "+v")
CDNA_MFMA_KERNEL(mfma_4x4x1_16b_f32, "v_mfma_f32_4x4x1_16b_f32", f1, f4, "+a")
CDNA_MFMA_KERNEL(mfma_16x16x4_f64, "v_mfma_f64_16x16x4_f64", d1, d4, "+v")
CDNA_MFMA_KERNEL(mfma_4x4x4_4b_f64, "v_mfma_f64_4x4x4_4b_f64", d1, d1, "+a")

// v_mfma_f32_16x16x4_f32 with MODE.FP_DENORM(fp32) set to 0 (flush in and out) first, and with
// the split mode 1 (refused by the simulator).
extern "C" __global__ void mfma_16x16x4_f32_flush(const f1* a, const f1* b, f4* c) {
  int l = threadIdx.x;
  f4 acc = c[l];
  f1 av = a[l], bv = b[l];
  asm volatile("s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 0\n\t"
               "v_mfma_f32_16x16x4_f32 %0, %1, %2, %0" CDNA_MFMA_WAIT
               "\n\ts_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 3"
               : "+v"(acc) : "v"(av), "v"(bv));
  c[l] = acc;
}
extern "C" __global__ void mfma_16x16x4_f32_mode1(const f1* a, const f1* b, f4* c) {
  int l = threadIdx.x;
  f4 acc = c[l];
  f1 av = a[l], bv = b[l];
  asm volatile("s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 1\n\t"
               "v_mfma_f32_16x16x4_f32 %0, %1, %2, %0" CDNA_MFMA_WAIT
               "\n\ts_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 3"
               : "+v"(acc) : "v"(av), "v"(bv));
  c[l] = acc;
}
