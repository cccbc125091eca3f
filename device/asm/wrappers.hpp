// One-instruction inline-asm wrappers for gfx942 device code (kernel-designs.md, "one-instruction
// asm wrapper" class). Each asm statement emits exactly one machine instruction, so the compiler
// schedules around it but cannot reorder, split or fuse it.
//
// The compiler's hazard recognizer does not look inside inline asm (LLVM GCNHazardRecognizer.cpp;
// cdna3-facts.md §5), so the wait states an MFMA needs are the caller's job: the wait wrappers
// below take the guarded registers as operands, which pins them between producer and consumer.
#pragma once

#include <hip/hip_runtime.h>

namespace cdna::device::asm_ops {

typedef float floatx4 __attribute__((ext_vector_type(4)));
typedef short shortx4 __attribute__((ext_vector_type(4)));
typedef float floatx2 __attribute__((ext_vector_type(2)));

// acc = A·B + acc for one 16x16x16 bf16 block (cdna3-facts.md §4 operand layout): lane l holds
// A[l%16][4(l/16)+0..3] in `a`, B[4(l/16)+0..3][l%16] in `b`, and acc[r] = D[4(l/16)+r][l%16].
// 4 passes on gfx942 (LLVM SISchedule.td). Its result may only feed the srcC of the next MFMA of
// the same chain (no wait states needed there, cdna3-facts.md §5); the last MFMA of a chain is
// mfma_f32_16x16x16_bf16_then_wait. A spill of `acc` between two chained MFMAs would still be a
// hazard; the simulator's checker would report it (no build does this today).
__device__ __forceinline__ void mfma_f32_16x16x16_bf16(floatx4& acc, shortx4 a, shortx4 b) {
  asm volatile("v_mfma_f32_16x16x16_bf16 %0, %1, %2, %0" : "+v"(acc) : "v"(a), "v"(b));
}

// The same MFMA followed, in the same asm statement, by the wait states a VALU/VMEM/LDS access
// of its result needs: 7 after a 4-pass XDL MFMA (cdna3-facts.md §5, LLVM GCNHazardRecognizer
// checkMAIVALUHazards); s_nop 6 gives 7. Use it for the last MFMA of a chain whose result
// anything but another MFMA's srcC reads. Two instructions in one statement, deliberately:
// with the wait in a separate statement the register allocator may put a spill store of the
// result between them (clang-19 -O1 did: scratch_store of the accumulator right after the
// MFMA, a read inside the hazard window that the compiler cannot see), and nothing can come
// between two instructions of one asm statement.
__device__ __forceinline__ void mfma_f32_16x16x16_bf16_then_wait(floatx4& acc, shortx4 a, shortx4 b) {
  asm volatile("v_mfma_f32_16x16x16_bf16 %0, %1, %2, %0\n\ts_nop 6" : "+v"(acc) : "v"(a), "v"(b));
}

// Wait states between a VALU write of a VGPR and an MFMA reading it: 2 (cdna3-facts.md §5);
// s_nop 1 gives 2. `x` is the VALU-written operand.
__device__ __forceinline__ void wait_valu_to_mfma(shortx4& x) {
  asm volatile("s_nop 1" : "+v"(x));
}
__device__ __forceinline__ void wait_valu_to_mfma(floatx4& x) {
  asm volatile("s_nop 1" : "+v"(x));
}

// The transcendental wrappers end with s_nop 0: on gfx942 a non-transcendental VALU that reads a
// transcendental result needs 1 wait state (LLVM GCNHazardRecognizer checkVALUHazards,
// hasTransForwardingHazard; rule trans-use, simulator/README.md), and the compiler does not look
// inside the asm statement to insert it.
// 2^x, "1 ULP", denormals flushed (CDNA3 ISA guide, VOP1 V_EXP_F32; cdna3-facts.md §6).
__device__ __forceinline__ float v_exp_f32(float x) {
  float r;
#ifdef CDNA_MUTANT_NO_TRANS_WAIT  // mutation testing (docs/mutation-testing.md): the s_nop left out
  asm volatile("v_exp_f32 %0, %1" : "=v"(r) : "v"(x));
#else
  asm volatile("v_exp_f32 %0, %1\n\ts_nop 0" : "=v"(r) : "v"(x));
#endif
  return r;
}

// log2(x), "1 ULP", denormals flushed (V_LOG_F32).
__device__ __forceinline__ float v_log_f32(float x) {
  float r;
  asm volatile("v_log_f32 %0, %1\n\ts_nop 0" : "=v"(r) : "v"(x));
  return r;
}

// 1/x, "1 ULP" (V_RCP_F32).
__device__ __forceinline__ float v_rcp_f32(float x) {
  float r;
  asm volatile("v_rcp_f32 %0, %1\n\ts_nop 0" : "=v"(r) : "v"(x));
  return r;
}

// 1/sqrt(x), "1 ULP", denormals flushed (VOP1 V_RSQ_F32; cdna3-facts.md §6).
__device__ __forceinline__ float v_rsq_f32(float x) {
  float r;
  asm volatile("v_rsq_f32 %0, %1\n\ts_nop 0" : "=v"(r) : "v"(x));
  return r;
}

// acc = a·b + acc on two fp32 lanes at once, each a fused multiply-add rounded once to nearest
// even (VOP3P V_PK_FMA_F32, gfx90a and later; default op_sel pairs low with low, high with high).
// The decode GEMV's only arithmetic (docs/decode-semantics.md §2): bf16 weights widened to fp32
// make every product exact before the single rounding of the add.
__device__ __forceinline__ void v_pk_fma_f32(floatx2& acc, floatx2 a, floatx2 b) {
  asm("v_pk_fma_f32 %0, %1, %2, %0" : "+v"(acc) : "v"(a), "v"(b));
}

}  // namespace cdna::device::asm_ops
