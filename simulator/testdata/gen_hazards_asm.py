#!/usr/bin/env python3
# Writes hazards_asm.s (next to this script): one _bad/_ok kernel pair per hazard rule, the lint-only
# and control-flow kernels. Edit the cases here and rerun (python3 gen_hazards_asm.py); the .s is committed.
import os
K = []
def k(name, body, comment):
    K.append((name, body, comment))
PRO = "  s_load_dwordx2 s[2:3], s[0:1], 0x0\n  v_mov_b32 v0, 0\n  v_mov_b32 v1, 1.0\n  v_mov_b32 v2, 2.0\n  v_mov_b32 v3, 0x3c003c00\n  v_mov_b32 v10, 0\n  v_mov_b32 v11, 0x3ff00000\n  s_waitcnt lgkmcnt(0)\n  v_mov_b32 v4, s2\n  v_mov_b32 v5, s3\n  s_nop 7\n"
def pair(base, comment, pre, prod, gap_ok, cons, post=""):
    bad = gap_ok - 1
    def nops(n):
        out = ""
        while n > 0:
            m = min(n, 8); out += "  s_nop %d\n" % (m - 1); n -= m
        return out
    k(base + "_bad", pre + prod + nops(bad) + cons + post, comment + ": %d wait states, one too few" % bad)
    k(base + "_ok", pre + prod + nops(gap_ok) + cons + post, comment + ": %d wait states, enough" % gap_ok)

pair("trans_exp", "v_exp_f32 result -> non-transcendental VALU (trans-use, 1)", "", "  v_exp_f32 v6, v1\n", 1, "  v_add_f32 v7, v6, v1\n")
pair("trans_rcp", "v_rcp_f32 result -> non-transcendental VALU (trans-use, 1)", "", "  v_rcp_f32 v6, v2\n", 1, "  v_mul_f32 v7, v6, v6\n")
pair("wide_store", "global_store_dwordx4 data -> VALU overwrite (wide-store-data, 2)", "", "  global_store_dwordx4 v[4:5], v[0:3], off\n", 2, "  v_mov_b32 v1, 0\n")
pair("sgpr_vmem", "VALU writes SGPR -> VMEM address (valu-sgpr-vmem, 5)", "", "  v_readfirstlane_b32 s4, v4\n  v_readfirstlane_b32 s5, v5\n", 5, "  global_store_dword v0, v1, s[4:5]\n")
pair("sgpr_valu", "VALU writes SGPR -> VALU reads it (valu-sgpr-valu, 2)", "", "  v_readfirstlane_b32 s4, v1\n", 2, "  v_add_f32 v7, s4, v1\n")
pair("vcc_valu", "VALU writes VCC -> VALU reads it as a constant (valu-sgpr-valu, 2; ISA case 18)", "", "  v_cmp_eq_u32_e32 vcc, v0, v0\n", 2, "  v_add_u32_e64 v7, vcc_lo, v1\n")
pair("lane_select", "VALU writes SGPR -> v_readlane lane select (valu-sgpr-lane-select, 4)", "", "  v_readfirstlane_b32 s4, v0\n", 4, "  v_readlane_b32 s5, v1, s4\n")
pair("readlane_src", "VALU writes VGPR -> v_readlane src0 (valu-vgpr-readlane, 1)", "", "  v_mov_b32 v6, 7\n", 1, "  v_readlane_b32 s5, v6, 0\n")
pair("exec_rwlane", "VALU writes EXEC -> v_readlane (valu-exec-rwlane, 4)", "", "  v_cmpx_le_u32_e64 s[6:7], 0, v0\n", 4, "  v_readlane_b32 s5, v1, 0\n")
pair("vgpr_dpp", "VALU writes VGPR -> DPP reads it (vgpr-dpp, 2)", "", "  v_mov_b32 v6, 1\n", 2, "  v_mov_b32_dpp v7, v6 row_shr:1\n")
pair("exec_dpp", "VALU writes EXEC -> DPP (valu-exec-dpp, 5)", "", "  v_cmpx_le_u32_e64 s[6:7], 0, v0\n", 5, "  v_mov_b32_dpp v7, v1 row_shr:1\n")
pair("setreg_getreg", "s_setreg -> s_getreg of MODE (setreg-getreg, 2)", "", "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 0\n", 2, "  s_getreg_b32 s4, hwreg(HW_REG_MODE, 0, 4)\n")
pair("setreg_setreg", "s_setreg -> s_setreg of MODE (setreg-setreg, 2)", "", "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 0\n", 2, "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 0\n")
pair("m0_movrel", "SALU writes M0 -> s_movrels (salu-m0-read, 1)", "", "  s_mov_b32 m0, 0\n", 1, "  s_movrels_b32 s4, s5\n")
pair("dgemm_fma64", "DGEMM -> v_fma_f64 (dgemm-fma64, 2)", "", "  v_mfma_f64_4x4x4_4b_f64 v[12:13], v[10:11], v[10:11], 0\n", 2, "  v_fma_f64 v[14:15], v[10:11], v[10:11], v[10:11]\n")
pair("dgemm_store", "DGEMM 4x4 result -> VMEM read (mfma-result-vmem, 9)", "", "  v_mfma_f64_4x4x4_4b_f64 v[12:13], v[10:11], v[10:11], 0\n", 9, "  global_store_dwordx2 v[4:5], v[12:13], off\n")
pair("dot_use", "v_dot2 result -> another VALU (dot-result, 3)", "", "  v_dot2_f32_f16 v6, v3, v3, v1\n", 3, "  v_add_f32 v7, v6, v1\n")
pair("sdwa_use", "SDWA dst_sel:WORD_1 result -> VALU (shifted-dst-use, 1)", "", "  v_mov_b32_sdwa v6, v3 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_0\n", 1, "  v_add_u32 v7, v6, v1\n")

pair("srcc_war", "XDL MFMA reads SrcC -> VALU overwrites it (mfma-srcc-valu-war, 3 for 4 passes)", "", "  v_mfma_f32_16x16x16_bf16 v[12:15], v[0:1], v[2:3], v[16:19]\n", 3, "  v_mov_b32 v17, 0\n", "  s_nop 7\n  s_nop 7\n")
pair("exec_mfma", "VALU writes EXEC -> MFMA (valu-exec-mfma, 4)", "", "  v_cmpx_le_u32_e64 s[6:7], 0, v0\n", 4, "  v_mfma_f32_16x16x16_bf16 v[12:15], v[0:1], v[2:3], 0\n", "  s_nop 7\n  s_nop 7\n")
k("dot_chain_ok", "  v_dot2_f32_f16 v6, v3, v3, v1\n  v_dot2_f32_f16 v6, v3, v3, v6\n", "the same v_dot accumulating into its own result at once: SrcC needs no wait state (dot-result)")

# LLVM-only rules (issue 23 §3): *_llvm kernels have exactly one finding, of an LLVM-only rule;
# they run under every policy (listed under report/differential, never an error)
k("vcc_valu_llvm", "  v_cmp_eq_u32_e32 vcc, v0, v0\n  v_cndmask_b32_e32 v7, v0, v1, vcc\n", "VALU writes VCC -> v_cndmask reads it as its select mask at once (valu-sgpr-valu-mask: LLVM 2, the ISA's case 18 silent)")
k("cndmask_select_llvm", "  v_cmp_lt_i32_e64 s[6:7], v0, v1\n  s_nop 0\n  v_cndmask_b32_e64 v7, v0, v1, s[6:7]\n", "AITER's tail mask: v_cmp_e64 s[6:7], v_cndmask select mask 1 wait state later (valu-sgpr-valu-mask, LLVM only)")
k("carry_in_llvm", "  v_add_co_u32_e64 v6, s[6:7], v0, v1\n  v_addc_co_u32_e64 v7, s[8:9], v0, v1, s[6:7]\n", "carry-out -> carry-in at once (the ISA's case 18: 0; LLVM: 2): valu-sgpr-valu-mask, LLVM only")
# lint only (not run: no LDS allocated): LDS DMA loads read M0 (salu-m0-lds-dma-load, LLVM only)
k("m0_global_lds_llvm", "  s_mov_b32 m0, 0\n  global_load_lds_dword v[4:5], off\n", "SALU writes M0 -> global_load_lds_dword at once (salu-m0-lds-dma-load, LLVM only: 1); lint only")
k("store_sgpr_soffset_lint_ok", "  buffer_store_dwordx4 v[0:3], v0, s[8:11], s12 offen\n  v_mov_b32 v1, 0\n", "MUBUF store of 128 bits with an SGPR soffset: its data may be overwritten at once (wide-store-data exempts it); lint only")
k("m0_buffer_lds_llvm", "  s_mov_b32 m0, 0\n  buffer_load_dword v0, s[8:11], 0 offen lds\n", "SALU writes M0 -> buffer_load_dword lds at once, AITER's form (salu-m0-lds-dma-load, LLVM only: 1); lint only")

# only the latest writer of a register is checked (issue 23 §3): a 4-pass MFMA, then a 2-pass
# MFMA accumulating into the same registers (SrcC exactly its D: 0 wait states), then a VALU read
# 5 wait states after the second (5 needed) and 6 after the first (7 needed): not a hazard
chain = "  v_mfma_f32_16x16x16_bf16 v[12:15], v[0:1], v[2:3], 0\n  v_mfma_f32_4x4x4_16b_bf16 v[12:15], v[0:1], v[2:3], v[12:15]\n"
k("mfma_chain_latest_ok", chain + "  s_nop 4\n  v_mov_b32 v7, v12\n", "MFMA chain: the VALU read has enough wait states after the latest writer (5 of 5), fewer after the first (6 of 7)")
k("mfma_chain_latest_bad", chain + "  s_nop 3\n  v_mov_b32 v7, v12\n", "MFMA chain: 4 wait states after the latest writer (5 needed): its hazard, named against it")
k("sgpr_rewritten_bad", "  v_readfirstlane_b32 s5, v5\n  s_nop 4\n  v_readfirstlane_b32 s4, v4\n  v_readfirstlane_b32 s4, v4\n  s_nop 1\n  global_store_dword v0, v1, s[4:5]\n", "s4 written twice by a VALU, the store 2 wait states after the second (5 needed): one site, the second write")

# control flow (lint: a hazard only on the loop's back edge; one only on one side of a join)
loop = """  s_mov_b32 s8, 3
  v_readfirstlane_b32 s4, v4
  v_readfirstlane_b32 s5, v5
  s_nop 4
.L{n}_loop:
  global_store_dword v0, v1, s[4:5]
  s_sub_u32 s8, s8, 1
{gap}  v_readfirstlane_b32 s5, v5
  s_cmp_lg_u32 s8, 0
  s_cbranch_scc1 .L{n}_loop
"""
k("loop_bad", loop.format(n="lb", gap=""), "VALU writes s5 at the loop's end; the store at its top reads it 2 wait states later on the back edge (needs 5)")
k("loop_ok", loop.format(n="lo", gap="").replace("  v_readfirstlane_b32 s5, v5\n  s_cmp", "  v_readfirstlane_b32 s5, v5\n  s_nop 2\n  s_cmp"), "the same loop with 3 more wait states after the write")
join = """  v_readfirstlane_b32 s4, v4
  v_readfirstlane_b32 s5, v5
  s_nop 4
  s_cmp_eq_u32 0, 0
  s_cbranch_scc1 .L{n}_then
  s_nop 7
  s_branch .L{n}_join
.L{n}_then:
  v_readfirstlane_b32 s5, v5
{gap}.L{n}_join:
  global_store_dword v0, v1, s[4:5]
"""
k("join_bad", join.format(n="jb", gap=""), "one side of the join writes s5 right before the store that reads it (needs 5); the other waits")
k("join_ok", join.format(n="jo", gap="  s_nop 4\n"), "the same join with 5 wait states on that side")

out = ["// gfx942 kernels written by gen_hazards_asm.py, one pair per hazard rule (simulator/checks/hazard.hpp):",
       "// <case>_bad has one wait state too few, <case>_ok exactly the needed count. Assembled by",
       "// llvm-mc-19 (no compiler adds wait states). Run by hazard_rules_test.cpp (simulator) and audit/lint/lint_test.cpp",
       "// (cdna-verify lint). Argument: one 4 KiB global buffer.",
       '.amdgcn_target "amdgcn-amd-amdhsa--gfx942"', ".text", "",
       "// Every kernel starts alike: s[2:3] = the buffer, v[4:5] = its address, a few values, 8 wait states.",
       ".macro PROLOGUE", PRO.rstrip("\n"), ".endm", "",
       ".macro DESCRIPTOR name", ".p2align 6", ".amdhsa_kernel \\name", "  .amdhsa_user_sgpr_kernarg_segment_ptr 1",
       "  .amdhsa_next_free_vgpr 32", "  .amdhsa_accum_offset 32", "  .amdhsa_next_free_sgpr 16",
       ".end_amdhsa_kernel", ".endm"]
for name, body, c in K:
    out += ["", "// " + c, ".globl " + name, ".p2align 8", ".type %s,@function" % name, name + ":"]
    out.append("  PROLOGUE\n" + body.rstrip("\n") + "\n  s_endpgm")
out += ["", ".rodata"]
for name, _, _ in K:
    out += ["DESCRIPTOR " + name]
out += ["", ".amdgpu_metadata", "---", "amdhsa.version: [ 1, 2 ]", "amdhsa.target: amdgcn-amd-amdhsa--gfx942", "amdhsa.kernels:"]
for name, _, _ in K:
    out += ["  - .name: " + name, "    .symbol: %s.kd" % name, "    .kernarg_segment_size: 8",
            "    .kernarg_segment_align: 8", "    .group_segment_fixed_size: 0", "    .private_segment_fixed_size: 0",
            "    .wavefront_size: 64", "    .sgpr_count: 16", "    .vgpr_count: 32", "    .max_flat_workgroup_size: 64",
            "    .args:", "      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }"]
out += ["...", ".end_amdgpu_metadata", ""]
open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "hazards_asm.s"), "w").write("\n".join(out))
