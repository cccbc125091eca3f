// Wait-state hazards around MFMA (cdna3-facts.md §5), written as single asm statements so the
// compiler cannot add wait states of its own. Kernels named *_ok have enough; the others do not.
#include <hip/hip_runtime.h>

typedef short s4 __attribute__((ext_vector_type(4)));

#define ZERO_ACC "v_mov_b32 v0, 0\n\tv_mov_b32 v1, 0\n\tv_mov_b32 v2, 0\n\tv_mov_b32 v3, 0\n\ts_nop 1\n\t"
#define MFMA16 "v_mfma_f32_16x16x16_bf16 v[0:3], %1, %2, v[0:3]\n\t"
#define KERNEL(name, body)                                                               \
  extern "C" __global__ void name(const s4* a, const s4* b, float* o) {                  \
    int l = threadIdx.x;                                                                 \
    float r;                                                                             \
    asm volatile(body : "=&v"(r) : "v"(a[l]), "v"(b[l]) : "v0", "v1", "v2", "v3", "v4", \
                 "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13", "v14", "v15", \
                 "v16", "v17", "v18", "v19", "vcc");                                     \
    o[l] = r;                                                                            \
  }

// MFMA result -> VALU read: 7 wait states for a 4-pass MFMA.
KERNEL(result_read_nop6_ok, ZERO_ACC MFMA16 "s_nop 6\n\tv_mov_b32 %0, v2")
KERNEL(result_read_nop5, ZERO_ACC MFMA16 "s_nop 5\n\tv_mov_b32 %0, v2")
KERNEL(result_read_none, ZERO_ACC MFMA16 "v_mov_b32 %0, v1")
// Unrelated instructions count as wait states too.
KERNEL(result_read_counted_ok, ZERO_ACC MFMA16 "v_mov_b32 v4, 1\n\ts_nop 4\n\tv_mov_b32 v5, 2\n\tv_add_u32 %0, v4, v3")
// MFMA result -> VALU write of the same register (WAW).
KERNEL(result_overwrite, ZERO_ACC MFMA16 "s_nop 2\n\tv_mov_b32 v0, 1\n\ts_nop 7\n\tv_mov_b32 %0, v0")
// MFMA result -> MFMA SrcA.
KERNEL(result_to_srca, ZERO_ACC MFMA16 "s_nop 3\n\tv_mfma_f32_16x16x16_bf16 v[4:7], v[0:1], %2, v[4:7]\n\ts_nop 7\n\tv_mov_b32 %0, v4")
// MFMA result -> MFMA SrcC, the same registers: no wait states.
KERNEL(chained_srcc_ok, ZERO_ACC MFMA16 MFMA16 "s_nop 6\n\tv_mov_b32 %0, v0")
// MFMA result -> MFMA SrcC, partial overlap: 5.
KERNEL(partial_srcc, ZERO_ACC "v_mov_b32 v4, 0\n\tv_mov_b32 v5, 0\n\t" MFMA16 "s_nop 2\n\tv_mfma_f32_16x16x16_bf16 v[2:5], %1, %2, v[2:5]\n\ts_nop 7\n\tv_mov_b32 %0, v2")
// MFMA reads SrcC -> VALU overwrites it: 3.
KERNEL(srcc_overwrite, ZERO_ACC "v_mfma_f32_16x16x16_bf16 v[4:7], %1, %2, v[0:3]\n\ts_nop 0\n\tv_mov_b32 v1, 0\n\ts_nop 7\n\tv_mov_b32 %0, v4")
// VALU write -> MFMA read: 2.
KERNEL(valu_to_mfma, ZERO_ACC "v_mov_b32 v0, 0\n\t" MFMA16 "s_nop 7\n\tv_mov_b32 %0, v0")
KERNEL(valu_to_mfma_nop1_ok, ZERO_ACC "v_mov_b32 v0, 0\n\ts_nop 1\n\t" MFMA16 "s_nop 7\n\tv_mov_b32 %0, v0")
// 32x32x8 needs 11.
KERNEL(big_result_nop7, "v_mov_b32 v0, 0\n\ts_nop 1\n\tv_mfma_f32_32x32x8_bf16 v[0:15], %1, %2, 0\n\ts_nop 7\n\tv_mov_b32 %0, v3")
KERNEL(big_result_nop7_nop2_ok, "v_mfma_f32_32x32x8_bf16 v[0:15], %1, %2, 0\n\ts_nop 7\n\ts_nop 2\n\tv_mov_b32 %0, v3")
// v_smfmac (4 passes): its SrcC is its D, so accumulating back to back needs nothing; the index
// VGPR gets the SrcA/SrcB rules (7 after an MFMA result) and the VALU-write rule (2).
#define SMFMAC(d, idx) "v_smfmac_f32_16x16x32_bf16 " d ", %1, v[8:11], " idx "\n\t"
KERNEL(smfmac_chained_ok, ZERO_ACC SMFMAC("v[0:3]", "v16") SMFMAC("v[0:3]", "v16") "s_nop 6\n\tv_mov_b32 %0, v0")
KERNEL(smfmac_index_from_mfma, ZERO_ACC MFMA16 "s_nop 3\n\t" SMFMAC("v[4:7]", "v0") "s_nop 7\n\tv_mov_b32 %0, v4")
KERNEL(smfmac_index_from_valu, ZERO_ACC "v_mov_b32 v16, 0\n\t" SMFMAC("v[4:7]", "v16") "s_nop 7\n\tv_mov_b32 %0, v4")
KERNEL(smfmac_result_read, ZERO_ACC SMFMAC("v[4:7]", "v16") "s_nop 5\n\tv_mov_b32 %0, v5")
// VALU write of EXEC -> MFMA: 4.
KERNEL(exec_to_mfma, ZERO_ACC "s_nop 1\n\tv_cmpx_le_u32_e64 vcc, 0, v0\n\t" MFMA16 "s_nop 7\n\tv_mov_b32 %0, v0")
// A global store of the result too early (VMEM read).
extern "C" __global__ void store_too_early(const s4* a, const s4* b, float* o) {
  int l = threadIdx.x;
  asm volatile(ZERO_ACC MFMA16 "s_nop 3\n\tglobal_store_dword %0, v0, off"
               : : "v"(o + l), "v"(a[l]), "v"(b[l]) : "v0", "v1", "v2", "v3", "memory");
}
