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
