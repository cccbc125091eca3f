// gfx942 kernels written by gen_hazards_asm.py, one pair per hazard rule (simulator/checks/hazard.hpp):
// <case>_bad has one wait state too few, <case>_ok exactly the needed count. Assembled by
// llvm-mc-19 (no compiler adds wait states). Run by hazard_rules_test.cpp (simulator) and audit/lint/lint_test.cpp
// (cdna-verify lint). Argument: one 4 KiB global buffer.
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text

// Every kernel starts alike: s[2:3] = the buffer, v[4:5] = its address, a few values, 8 wait states.
.macro PROLOGUE
  s_load_dwordx2 s[2:3], s[0:1], 0x0
  v_mov_b32 v0, 0
  v_mov_b32 v1, 1.0
  v_mov_b32 v2, 2.0
  v_mov_b32 v3, 0x3c003c00
  v_mov_b32 v10, 0
  v_mov_b32 v11, 0x3ff00000
  s_waitcnt lgkmcnt(0)
  v_mov_b32 v4, s2
  v_mov_b32 v5, s3
  s_nop 7
.endm

.macro DESCRIPTOR name
.p2align 6
.amdhsa_kernel \name
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 32
  .amdhsa_accum_offset 32
  .amdhsa_next_free_sgpr 16
.end_amdhsa_kernel
.endm

// v_exp_f32 result -> non-transcendental VALU (trans-use, 1): 0 wait states, one too few
.globl trans_exp_bad
.p2align 8
.type trans_exp_bad,@function
trans_exp_bad:
  PROLOGUE
  v_exp_f32 v6, v1
  v_add_f32 v7, v6, v1
  s_endpgm

// v_exp_f32 result -> non-transcendental VALU (trans-use, 1): 1 wait states, enough
.globl trans_exp_ok
.p2align 8
.type trans_exp_ok,@function
trans_exp_ok:
  PROLOGUE
  v_exp_f32 v6, v1
  s_nop 0
  v_add_f32 v7, v6, v1
  s_endpgm

// v_rcp_f32 result -> non-transcendental VALU (trans-use, 1): 0 wait states, one too few
.globl trans_rcp_bad
.p2align 8
.type trans_rcp_bad,@function
trans_rcp_bad:
  PROLOGUE
  v_rcp_f32 v6, v2
  v_mul_f32 v7, v6, v6
  s_endpgm

// v_rcp_f32 result -> non-transcendental VALU (trans-use, 1): 1 wait states, enough
.globl trans_rcp_ok
.p2align 8
.type trans_rcp_ok,@function
trans_rcp_ok:
  PROLOGUE
  v_rcp_f32 v6, v2
  s_nop 0
  v_mul_f32 v7, v6, v6
  s_endpgm

// global_store_dwordx4 data -> VALU overwrite (wide-store-data, 2): 1 wait states, one too few
.globl wide_store_bad
.p2align 8
.type wide_store_bad,@function
wide_store_bad:
  PROLOGUE
  global_store_dwordx4 v[4:5], v[0:3], off
  s_nop 0
  v_mov_b32 v1, 0
  s_endpgm

// global_store_dwordx4 data -> VALU overwrite (wide-store-data, 2): 2 wait states, enough
.globl wide_store_ok
.p2align 8
.type wide_store_ok,@function
wide_store_ok:
  PROLOGUE
  global_store_dwordx4 v[4:5], v[0:3], off
  s_nop 1
  v_mov_b32 v1, 0
  s_endpgm

// VALU writes SGPR -> VMEM address (valu-sgpr-vmem, 5): 4 wait states, one too few
.globl sgpr_vmem_bad
.p2align 8
.type sgpr_vmem_bad,@function
sgpr_vmem_bad:
  PROLOGUE
  v_readfirstlane_b32 s4, v4
  v_readfirstlane_b32 s5, v5
  s_nop 3
  global_store_dword v0, v1, s[4:5]
  s_endpgm

// VALU writes SGPR -> VMEM address (valu-sgpr-vmem, 5): 5 wait states, enough
.globl sgpr_vmem_ok
.p2align 8
.type sgpr_vmem_ok,@function
sgpr_vmem_ok:
  PROLOGUE
  v_readfirstlane_b32 s4, v4
  v_readfirstlane_b32 s5, v5
  s_nop 4
  global_store_dword v0, v1, s[4:5]
  s_endpgm

// VALU writes SGPR -> VALU reads it (valu-sgpr-valu, 2): 1 wait states, one too few
.globl sgpr_valu_bad
.p2align 8
.type sgpr_valu_bad,@function
sgpr_valu_bad:
  PROLOGUE
  v_readfirstlane_b32 s4, v1
  s_nop 0
  v_add_f32 v7, s4, v1
  s_endpgm

// VALU writes SGPR -> VALU reads it (valu-sgpr-valu, 2): 2 wait states, enough
.globl sgpr_valu_ok
.p2align 8
.type sgpr_valu_ok,@function
sgpr_valu_ok:
  PROLOGUE
  v_readfirstlane_b32 s4, v1
  s_nop 1
  v_add_f32 v7, s4, v1
  s_endpgm

// VALU writes VCC -> VALU reads it as a constant (valu-sgpr-valu, 2; ISA case 18): 1 wait states, one too few
.globl vcc_valu_bad
.p2align 8
.type vcc_valu_bad,@function
vcc_valu_bad:
  PROLOGUE
  v_cmp_eq_u32_e32 vcc, v0, v0
  s_nop 0
  v_add_u32_e64 v7, vcc_lo, v1
  s_endpgm

// VALU writes VCC -> VALU reads it as a constant (valu-sgpr-valu, 2; ISA case 18): 2 wait states, enough
.globl vcc_valu_ok
.p2align 8
.type vcc_valu_ok,@function
vcc_valu_ok:
  PROLOGUE
  v_cmp_eq_u32_e32 vcc, v0, v0
  s_nop 1
  v_add_u32_e64 v7, vcc_lo, v1
  s_endpgm

// VALU writes SGPR -> v_readlane lane select (valu-sgpr-lane-select, 4): 3 wait states, one too few
.globl lane_select_bad
.p2align 8
.type lane_select_bad,@function
lane_select_bad:
  PROLOGUE
  v_readfirstlane_b32 s4, v0
  s_nop 2
  v_readlane_b32 s5, v1, s4
  s_endpgm

// VALU writes SGPR -> v_readlane lane select (valu-sgpr-lane-select, 4): 4 wait states, enough
.globl lane_select_ok
.p2align 8
.type lane_select_ok,@function
lane_select_ok:
  PROLOGUE
  v_readfirstlane_b32 s4, v0
  s_nop 3
  v_readlane_b32 s5, v1, s4
  s_endpgm

// VALU writes VGPR -> v_readlane src0 (valu-vgpr-readlane, 1): 0 wait states, one too few
.globl readlane_src_bad
.p2align 8
.type readlane_src_bad,@function
readlane_src_bad:
  PROLOGUE
  v_mov_b32 v6, 7
  v_readlane_b32 s5, v6, 0
  s_endpgm

// VALU writes VGPR -> v_readlane src0 (valu-vgpr-readlane, 1): 1 wait states, enough
.globl readlane_src_ok
.p2align 8
.type readlane_src_ok,@function
readlane_src_ok:
  PROLOGUE
  v_mov_b32 v6, 7
  s_nop 0
  v_readlane_b32 s5, v6, 0
  s_endpgm

// VALU writes EXEC -> v_readlane (valu-exec-rwlane, 4): 3 wait states, one too few
.globl exec_rwlane_bad
.p2align 8
.type exec_rwlane_bad,@function
exec_rwlane_bad:
  PROLOGUE
  v_cmpx_le_u32_e64 s[6:7], 0, v0
  s_nop 2
  v_readlane_b32 s5, v1, 0
  s_endpgm

// VALU writes EXEC -> v_readlane (valu-exec-rwlane, 4): 4 wait states, enough
.globl exec_rwlane_ok
.p2align 8
.type exec_rwlane_ok,@function
exec_rwlane_ok:
  PROLOGUE
  v_cmpx_le_u32_e64 s[6:7], 0, v0
  s_nop 3
  v_readlane_b32 s5, v1, 0
  s_endpgm

// VALU writes VGPR -> DPP reads it (vgpr-dpp, 2): 1 wait states, one too few
.globl vgpr_dpp_bad
.p2align 8
.type vgpr_dpp_bad,@function
vgpr_dpp_bad:
  PROLOGUE
  v_mov_b32 v6, 1
  s_nop 0
  v_mov_b32_dpp v7, v6 row_shr:1
  s_endpgm

// VALU writes VGPR -> DPP reads it (vgpr-dpp, 2): 2 wait states, enough
.globl vgpr_dpp_ok
.p2align 8
.type vgpr_dpp_ok,@function
vgpr_dpp_ok:
  PROLOGUE
  v_mov_b32 v6, 1
  s_nop 1
  v_mov_b32_dpp v7, v6 row_shr:1
  s_endpgm

// VALU writes EXEC -> DPP (valu-exec-dpp, 5): 4 wait states, one too few
.globl exec_dpp_bad
.p2align 8
.type exec_dpp_bad,@function
exec_dpp_bad:
  PROLOGUE
  v_cmpx_le_u32_e64 s[6:7], 0, v0
  s_nop 3
  v_mov_b32_dpp v7, v1 row_shr:1
  s_endpgm

// VALU writes EXEC -> DPP (valu-exec-dpp, 5): 5 wait states, enough
.globl exec_dpp_ok
.p2align 8
.type exec_dpp_ok,@function
exec_dpp_ok:
  PROLOGUE
  v_cmpx_le_u32_e64 s[6:7], 0, v0
  s_nop 4
  v_mov_b32_dpp v7, v1 row_shr:1
  s_endpgm

// s_setreg -> s_getreg of MODE (setreg-getreg, 2): 1 wait states, one too few
.globl setreg_getreg_bad
.p2align 8
.type setreg_getreg_bad,@function
setreg_getreg_bad:
  PROLOGUE
  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 0
  s_nop 0
  s_getreg_b32 s4, hwreg(HW_REG_MODE, 0, 4)
  s_endpgm

// s_setreg -> s_getreg of MODE (setreg-getreg, 2): 2 wait states, enough
.globl setreg_getreg_ok
.p2align 8
.type setreg_getreg_ok,@function
setreg_getreg_ok:
  PROLOGUE
  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 0
  s_nop 1
  s_getreg_b32 s4, hwreg(HW_REG_MODE, 0, 4)
  s_endpgm

// s_setreg -> s_setreg of MODE (setreg-setreg, 2): 1 wait states, one too few
.globl setreg_setreg_bad
.p2align 8
.type setreg_setreg_bad,@function
setreg_setreg_bad:
  PROLOGUE
  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 0
  s_nop 0
  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 0
  s_endpgm

// s_setreg -> s_setreg of MODE (setreg-setreg, 2): 2 wait states, enough
.globl setreg_setreg_ok
.p2align 8
.type setreg_setreg_ok,@function
setreg_setreg_ok:
  PROLOGUE
  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 0
  s_nop 1
  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 0
  s_endpgm

// SALU writes M0 -> s_movrels (salu-m0-read, 1): 0 wait states, one too few
.globl m0_movrel_bad
.p2align 8
.type m0_movrel_bad,@function
m0_movrel_bad:
  PROLOGUE
  s_mov_b32 m0, 0
  s_movrels_b32 s4, s5
  s_endpgm

// SALU writes M0 -> s_movrels (salu-m0-read, 1): 1 wait states, enough
.globl m0_movrel_ok
.p2align 8
.type m0_movrel_ok,@function
m0_movrel_ok:
  PROLOGUE
  s_mov_b32 m0, 0
  s_nop 0
  s_movrels_b32 s4, s5
  s_endpgm

// DGEMM -> v_fma_f64 (dgemm-fma64, 2): 1 wait states, one too few
.globl dgemm_fma64_bad
.p2align 8
.type dgemm_fma64_bad,@function
dgemm_fma64_bad:
  PROLOGUE
  v_mfma_f64_4x4x4_4b_f64 v[12:13], v[10:11], v[10:11], 0
  s_nop 0
  v_fma_f64 v[14:15], v[10:11], v[10:11], v[10:11]
  s_endpgm

// DGEMM -> v_fma_f64 (dgemm-fma64, 2): 2 wait states, enough
.globl dgemm_fma64_ok
.p2align 8
.type dgemm_fma64_ok,@function
dgemm_fma64_ok:
  PROLOGUE
  v_mfma_f64_4x4x4_4b_f64 v[12:13], v[10:11], v[10:11], 0
  s_nop 1
  v_fma_f64 v[14:15], v[10:11], v[10:11], v[10:11]
  s_endpgm

// DGEMM 4x4 result -> VMEM read (mfma-result-vmem, 9): 8 wait states, one too few
.globl dgemm_store_bad
.p2align 8
.type dgemm_store_bad,@function
dgemm_store_bad:
  PROLOGUE
  v_mfma_f64_4x4x4_4b_f64 v[12:13], v[10:11], v[10:11], 0
  s_nop 7
  global_store_dwordx2 v[4:5], v[12:13], off
  s_endpgm

// DGEMM 4x4 result -> VMEM read (mfma-result-vmem, 9): 9 wait states, enough
.globl dgemm_store_ok
.p2align 8
.type dgemm_store_ok,@function
dgemm_store_ok:
  PROLOGUE
  v_mfma_f64_4x4x4_4b_f64 v[12:13], v[10:11], v[10:11], 0
  s_nop 7
  s_nop 0
  global_store_dwordx2 v[4:5], v[12:13], off
  s_endpgm

// v_dot2 result -> another VALU (dot-result, 3): 2 wait states, one too few
.globl dot_use_bad
.p2align 8
.type dot_use_bad,@function
dot_use_bad:
  PROLOGUE
  v_dot2_f32_f16 v6, v3, v3, v1
  s_nop 1
  v_add_f32 v7, v6, v1
  s_endpgm

// v_dot2 result -> another VALU (dot-result, 3): 3 wait states, enough
.globl dot_use_ok
.p2align 8
.type dot_use_ok,@function
dot_use_ok:
  PROLOGUE
  v_dot2_f32_f16 v6, v3, v3, v1
  s_nop 2
  v_add_f32 v7, v6, v1
  s_endpgm

// SDWA dst_sel:WORD_1 result -> VALU (shifted-dst-use, 1): 0 wait states, one too few
.globl sdwa_use_bad
.p2align 8
.type sdwa_use_bad,@function
sdwa_use_bad:
  PROLOGUE
  v_mov_b32_sdwa v6, v3 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_0
  v_add_u32 v7, v6, v1
  s_endpgm

// SDWA dst_sel:WORD_1 result -> VALU (shifted-dst-use, 1): 1 wait states, enough
.globl sdwa_use_ok
.p2align 8
.type sdwa_use_ok,@function
sdwa_use_ok:
  PROLOGUE
  v_mov_b32_sdwa v6, v3 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_0
  s_nop 0
  v_add_u32 v7, v6, v1
  s_endpgm

// XDL MFMA reads SrcC -> VALU overwrites it (mfma-srcc-valu-war, 3 for 4 passes): 2 wait states, one too few
.globl srcc_war_bad
.p2align 8
.type srcc_war_bad,@function
srcc_war_bad:
  PROLOGUE
  v_mfma_f32_16x16x16_bf16 v[12:15], v[0:1], v[2:3], v[16:19]
  s_nop 1
  v_mov_b32 v17, 0
  s_nop 7
  s_nop 7
  s_endpgm

// XDL MFMA reads SrcC -> VALU overwrites it (mfma-srcc-valu-war, 3 for 4 passes): 3 wait states, enough
.globl srcc_war_ok
.p2align 8
.type srcc_war_ok,@function
srcc_war_ok:
  PROLOGUE
  v_mfma_f32_16x16x16_bf16 v[12:15], v[0:1], v[2:3], v[16:19]
  s_nop 2
  v_mov_b32 v17, 0
  s_nop 7
  s_nop 7
  s_endpgm

// VALU writes EXEC -> MFMA (valu-exec-mfma, 4): 3 wait states, one too few
.globl exec_mfma_bad
.p2align 8
.type exec_mfma_bad,@function
exec_mfma_bad:
  PROLOGUE
  v_cmpx_le_u32_e64 s[6:7], 0, v0
  s_nop 2
  v_mfma_f32_16x16x16_bf16 v[12:15], v[0:1], v[2:3], 0
  s_nop 7
  s_nop 7
  s_endpgm

// VALU writes EXEC -> MFMA (valu-exec-mfma, 4): 4 wait states, enough
.globl exec_mfma_ok
.p2align 8
.type exec_mfma_ok,@function
exec_mfma_ok:
  PROLOGUE
  v_cmpx_le_u32_e64 s[6:7], 0, v0
  s_nop 3
  v_mfma_f32_16x16x16_bf16 v[12:15], v[0:1], v[2:3], 0
  s_nop 7
  s_nop 7
  s_endpgm

// the same v_dot accumulating into its own result at once: SrcC needs no wait state (dot-result)
.globl dot_chain_ok
.p2align 8
.type dot_chain_ok,@function
dot_chain_ok:
  PROLOGUE
  v_dot2_f32_f16 v6, v3, v3, v1
  v_dot2_f32_f16 v6, v3, v3, v6
  s_endpgm

// VALU writes VCC -> v_cndmask reads it as its select mask at once (valu-sgpr-valu-mask: LLVM 2, the ISA's case 18 silent)
.globl vcc_valu_llvm
.p2align 8
.type vcc_valu_llvm,@function
vcc_valu_llvm:
  PROLOGUE
  v_cmp_eq_u32_e32 vcc, v0, v0
  v_cndmask_b32_e32 v7, v0, v1, vcc
  s_endpgm

// AITER's tail mask: v_cmp_e64 s[6:7], v_cndmask select mask 1 wait state later (valu-sgpr-valu-mask, LLVM only)
.globl cndmask_select_llvm
.p2align 8
.type cndmask_select_llvm,@function
cndmask_select_llvm:
  PROLOGUE
  v_cmp_lt_i32_e64 s[6:7], v0, v1
  s_nop 0
  v_cndmask_b32_e64 v7, v0, v1, s[6:7]
  s_endpgm

// carry-out -> carry-in at once (the ISA's case 18: 0; LLVM: 2): valu-sgpr-valu-mask, LLVM only
.globl carry_in_llvm
.p2align 8
.type carry_in_llvm,@function
carry_in_llvm:
  PROLOGUE
  v_add_co_u32_e64 v6, s[6:7], v0, v1
  v_addc_co_u32_e64 v7, s[8:9], v0, v1, s[6:7]
  s_endpgm

// SALU writes M0 -> global_load_lds_dword at once (salu-m0-lds-dma-load, LLVM only: 1); lint only
.globl m0_global_lds_llvm
.p2align 8
.type m0_global_lds_llvm,@function
m0_global_lds_llvm:
  PROLOGUE
  s_mov_b32 m0, 0
  global_load_lds_dword v[4:5], off
  s_endpgm

// MUBUF store of 128 bits with an SGPR soffset: its data may be overwritten at once (wide-store-data exempts it); lint only
.globl store_sgpr_soffset_lint_ok
.p2align 8
.type store_sgpr_soffset_lint_ok,@function
store_sgpr_soffset_lint_ok:
  PROLOGUE
  buffer_store_dwordx4 v[0:3], v0, s[8:11], s12 offen
  v_mov_b32 v1, 0
  s_endpgm

// SALU writes M0 -> buffer_load_dword lds at once, AITER's form (salu-m0-lds-dma-load, LLVM only: 1); lint only
.globl m0_buffer_lds_llvm
.p2align 8
.type m0_buffer_lds_llvm,@function
m0_buffer_lds_llvm:
  PROLOGUE
  s_mov_b32 m0, 0
  buffer_load_dword v0, s[8:11], 0 offen lds
  s_endpgm

// MFMA chain: the VALU read has enough wait states after the latest writer (5 of 5), fewer after the first (6 of 7)
.globl mfma_chain_latest_ok
.p2align 8
.type mfma_chain_latest_ok,@function
mfma_chain_latest_ok:
  PROLOGUE
  v_mfma_f32_16x16x16_bf16 v[12:15], v[0:1], v[2:3], 0
  v_mfma_f32_4x4x4_16b_bf16 v[12:15], v[0:1], v[2:3], v[12:15]
  s_nop 4
  v_mov_b32 v7, v12
  s_endpgm

// MFMA chain: 4 wait states after the latest writer (5 needed): its hazard, named against it
.globl mfma_chain_latest_bad
.p2align 8
.type mfma_chain_latest_bad,@function
mfma_chain_latest_bad:
  PROLOGUE
  v_mfma_f32_16x16x16_bf16 v[12:15], v[0:1], v[2:3], 0
  v_mfma_f32_4x4x4_16b_bf16 v[12:15], v[0:1], v[2:3], v[12:15]
  s_nop 3
  v_mov_b32 v7, v12
  s_endpgm

// s4 written twice by a VALU, the store 2 wait states after the second (5 needed): one site, the second write
.globl sgpr_rewritten_bad
.p2align 8
.type sgpr_rewritten_bad,@function
sgpr_rewritten_bad:
  PROLOGUE
  v_readfirstlane_b32 s5, v5
  s_nop 4
  v_readfirstlane_b32 s4, v4
  v_readfirstlane_b32 s4, v4
  s_nop 1
  global_store_dword v0, v1, s[4:5]
  s_endpgm

// VALU writes s5 at the loop's end; the store at its top reads it 2 wait states later on the back edge (needs 5)
.globl loop_bad
.p2align 8
.type loop_bad,@function
loop_bad:
  PROLOGUE
  s_mov_b32 s8, 3
  v_readfirstlane_b32 s4, v4
  v_readfirstlane_b32 s5, v5
  s_nop 4
.Llb_loop:
  global_store_dword v0, v1, s[4:5]
  s_sub_u32 s8, s8, 1
  v_readfirstlane_b32 s5, v5
  s_cmp_lg_u32 s8, 0
  s_cbranch_scc1 .Llb_loop
  s_endpgm

// the same loop with 3 more wait states after the write
.globl loop_ok
.p2align 8
.type loop_ok,@function
loop_ok:
  PROLOGUE
  s_mov_b32 s8, 3
  v_readfirstlane_b32 s4, v4
  v_readfirstlane_b32 s5, v5
  s_nop 4
.Llo_loop:
  global_store_dword v0, v1, s[4:5]
  s_sub_u32 s8, s8, 1
  v_readfirstlane_b32 s5, v5
  s_nop 2
  s_cmp_lg_u32 s8, 0
  s_cbranch_scc1 .Llo_loop
  s_endpgm

// one side of the join writes s5 right before the store that reads it (needs 5); the other waits
.globl join_bad
.p2align 8
.type join_bad,@function
join_bad:
  PROLOGUE
  v_readfirstlane_b32 s4, v4
  v_readfirstlane_b32 s5, v5
  s_nop 4
  s_cmp_eq_u32 0, 0
  s_cbranch_scc1 .Ljb_then
  s_nop 7
  s_branch .Ljb_join
.Ljb_then:
  v_readfirstlane_b32 s5, v5
.Ljb_join:
  global_store_dword v0, v1, s[4:5]
  s_endpgm

// the same join with 5 wait states on that side
.globl join_ok
.p2align 8
.type join_ok,@function
join_ok:
  PROLOGUE
  v_readfirstlane_b32 s4, v4
  v_readfirstlane_b32 s5, v5
  s_nop 4
  s_cmp_eq_u32 0, 0
  s_cbranch_scc1 .Ljo_then
  s_nop 7
  s_branch .Ljo_join
.Ljo_then:
  v_readfirstlane_b32 s5, v5
  s_nop 4
.Ljo_join:
  global_store_dword v0, v1, s[4:5]
  s_endpgm

.rodata
DESCRIPTOR trans_exp_bad
DESCRIPTOR trans_exp_ok
DESCRIPTOR trans_rcp_bad
DESCRIPTOR trans_rcp_ok
DESCRIPTOR wide_store_bad
DESCRIPTOR wide_store_ok
DESCRIPTOR sgpr_vmem_bad
DESCRIPTOR sgpr_vmem_ok
DESCRIPTOR sgpr_valu_bad
DESCRIPTOR sgpr_valu_ok
DESCRIPTOR vcc_valu_bad
DESCRIPTOR vcc_valu_ok
DESCRIPTOR lane_select_bad
DESCRIPTOR lane_select_ok
DESCRIPTOR readlane_src_bad
DESCRIPTOR readlane_src_ok
DESCRIPTOR exec_rwlane_bad
DESCRIPTOR exec_rwlane_ok
DESCRIPTOR vgpr_dpp_bad
DESCRIPTOR vgpr_dpp_ok
DESCRIPTOR exec_dpp_bad
DESCRIPTOR exec_dpp_ok
DESCRIPTOR setreg_getreg_bad
DESCRIPTOR setreg_getreg_ok
DESCRIPTOR setreg_setreg_bad
DESCRIPTOR setreg_setreg_ok
DESCRIPTOR m0_movrel_bad
DESCRIPTOR m0_movrel_ok
DESCRIPTOR dgemm_fma64_bad
DESCRIPTOR dgemm_fma64_ok
DESCRIPTOR dgemm_store_bad
DESCRIPTOR dgemm_store_ok
DESCRIPTOR dot_use_bad
DESCRIPTOR dot_use_ok
DESCRIPTOR sdwa_use_bad
DESCRIPTOR sdwa_use_ok
DESCRIPTOR srcc_war_bad
DESCRIPTOR srcc_war_ok
DESCRIPTOR exec_mfma_bad
DESCRIPTOR exec_mfma_ok
DESCRIPTOR dot_chain_ok
DESCRIPTOR vcc_valu_llvm
DESCRIPTOR cndmask_select_llvm
DESCRIPTOR carry_in_llvm
DESCRIPTOR m0_global_lds_llvm
DESCRIPTOR store_sgpr_soffset_lint_ok
DESCRIPTOR m0_buffer_lds_llvm
DESCRIPTOR mfma_chain_latest_ok
DESCRIPTOR mfma_chain_latest_bad
DESCRIPTOR sgpr_rewritten_bad
DESCRIPTOR loop_bad
DESCRIPTOR loop_ok
DESCRIPTOR join_bad
DESCRIPTOR join_ok

.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.target: amdgcn-amd-amdhsa--gfx942
amdhsa.kernels:
  - .name: trans_exp_bad
    .symbol: trans_exp_bad.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: trans_exp_ok
    .symbol: trans_exp_ok.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: trans_rcp_bad
    .symbol: trans_rcp_bad.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: trans_rcp_ok
    .symbol: trans_rcp_ok.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: wide_store_bad
    .symbol: wide_store_bad.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: wide_store_ok
    .symbol: wide_store_ok.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: sgpr_vmem_bad
    .symbol: sgpr_vmem_bad.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: sgpr_vmem_ok
    .symbol: sgpr_vmem_ok.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: sgpr_valu_bad
    .symbol: sgpr_valu_bad.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: sgpr_valu_ok
    .symbol: sgpr_valu_ok.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: vcc_valu_bad
    .symbol: vcc_valu_bad.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: vcc_valu_ok
    .symbol: vcc_valu_ok.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: lane_select_bad
    .symbol: lane_select_bad.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: lane_select_ok
    .symbol: lane_select_ok.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: readlane_src_bad
    .symbol: readlane_src_bad.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: readlane_src_ok
    .symbol: readlane_src_ok.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: exec_rwlane_bad
    .symbol: exec_rwlane_bad.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: exec_rwlane_ok
    .symbol: exec_rwlane_ok.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: vgpr_dpp_bad
    .symbol: vgpr_dpp_bad.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: vgpr_dpp_ok
    .symbol: vgpr_dpp_ok.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: exec_dpp_bad
    .symbol: exec_dpp_bad.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: exec_dpp_ok
    .symbol: exec_dpp_ok.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: setreg_getreg_bad
    .symbol: setreg_getreg_bad.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: setreg_getreg_ok
    .symbol: setreg_getreg_ok.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: setreg_setreg_bad
    .symbol: setreg_setreg_bad.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: setreg_setreg_ok
    .symbol: setreg_setreg_ok.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: m0_movrel_bad
    .symbol: m0_movrel_bad.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: m0_movrel_ok
    .symbol: m0_movrel_ok.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: dgemm_fma64_bad
    .symbol: dgemm_fma64_bad.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: dgemm_fma64_ok
    .symbol: dgemm_fma64_ok.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: dgemm_store_bad
    .symbol: dgemm_store_bad.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: dgemm_store_ok
    .symbol: dgemm_store_ok.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: dot_use_bad
    .symbol: dot_use_bad.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: dot_use_ok
    .symbol: dot_use_ok.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: sdwa_use_bad
    .symbol: sdwa_use_bad.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: sdwa_use_ok
    .symbol: sdwa_use_ok.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: srcc_war_bad
    .symbol: srcc_war_bad.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: srcc_war_ok
    .symbol: srcc_war_ok.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: exec_mfma_bad
    .symbol: exec_mfma_bad.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: exec_mfma_ok
    .symbol: exec_mfma_ok.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: dot_chain_ok
    .symbol: dot_chain_ok.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: vcc_valu_llvm
    .symbol: vcc_valu_llvm.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: cndmask_select_llvm
    .symbol: cndmask_select_llvm.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: carry_in_llvm
    .symbol: carry_in_llvm.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: m0_global_lds_llvm
    .symbol: m0_global_lds_llvm.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: store_sgpr_soffset_lint_ok
    .symbol: store_sgpr_soffset_lint_ok.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: m0_buffer_lds_llvm
    .symbol: m0_buffer_lds_llvm.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: mfma_chain_latest_ok
    .symbol: mfma_chain_latest_ok.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: mfma_chain_latest_bad
    .symbol: mfma_chain_latest_bad.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: sgpr_rewritten_bad
    .symbol: sgpr_rewritten_bad.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: loop_bad
    .symbol: loop_bad.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: loop_ok
    .symbol: loop_ok.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: join_bad
    .symbol: join_bad.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: join_ok
    .symbol: join_ok.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
...
.end_amdgpu_metadata
