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

// acc = A·B + acc for one 16x16x16 bf16 block (cdna3-facts.md §4 operand layout): lane l holds
// A[l%16][4(l/16)+0..3] in `a`, B[4(l/16)+0..3][l%16] in `b`, and acc[r] = D[4(l/16)+r][l%16].
// 4 passes on gfx942 (LLVM SISchedule.td).
__device__ __forceinline__ void mfma_f32_16x16x16_bf16(floatx4& acc, shortx4 a, shortx4 b) {
  asm volatile("v_mfma_f32_16x16x16_bf16 %0, %1, %2, %0" : "+v"(acc) : "v"(a), "v"(b));
}

// Wait states after a 4-pass XDL MFMA before a VALU/VMEM/LDS access of its result: 7
// (cdna3-facts.md §5, checkMAIVALUHazards); s_nop 6 gives 7. `x` is the MFMA's result.
// Known defect: nothing stops the register allocator from spilling `x` between the MFMA and this
// wait; at -O1 it does (scratch_store of the result right after the MFMA), which the simulator
// reports as a hazard (simulator_attention_test, O1BuildHazardIsReported). -O2/-O3 builds are clean.
__device__ __forceinline__ void wait_mfma_result(floatx4& x) {
  asm volatile("s_nop 6" : "+v"(x));
}

// Wait states between a VALU write of a VGPR and an MFMA reading it: 2 (cdna3-facts.md §5);
// s_nop 1 gives 2. `x` is the VALU-written operand.
__device__ __forceinline__ void wait_valu_to_mfma(shortx4& x) {
  asm volatile("s_nop 1" : "+v"(x));
}
__device__ __forceinline__ void wait_valu_to_mfma(floatx4& x) {
  asm volatile("s_nop 1" : "+v"(x));
}

// 2^x, "1 ULP", denormals flushed (CDNA3 ISA guide, VOP1 V_EXP_F32; cdna3-facts.md §6).
__device__ __forceinline__ float v_exp_f32(float x) {
  float r;
  asm volatile("v_exp_f32 %0, %1" : "=v"(r) : "v"(x));
  return r;
}

// log2(x), "1 ULP", denormals flushed (V_LOG_F32).
__device__ __forceinline__ float v_log_f32(float x) {
  float r;
  asm volatile("v_log_f32 %0, %1" : "=v"(r) : "v"(x));
  return r;
}

// 1/x, "1 ULP" (V_RCP_F32).
__device__ __forceinline__ float v_rcp_f32(float x) {
  float r;
  asm volatile("v_rcp_f32 %0, %1" : "=v"(r) : "v"(x));
  return r;
}

}  // namespace cdna::device::asm_ops
