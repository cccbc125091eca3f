// gfx942 kernels for the hazard policies (simulator/checks/hazard_policy.hpp), hand-written so that no
// compiler adds wait states; run by hazard_policy_test.cpp. Each kernel runs one wave of 64
// lanes and stores 64 fp32 values per result to its one argument (a global buffer of at least
// 512 bytes): out[lane] and, in `two_sites`, out[64 + lane].
//
// The shape of AITER FMHA v3's early read (issue 10 §2): a chain of two
// v_mfma_f32_32x32x8_bf16 accumulating into v[16:31] (8 passes on gfx942: XDL result -> VALU
// read needs 11 wait states, LLVM GCNHazardRecognizer.cpp checkMAIVALUHazards), then v_max3_f32
// reading v16/v17 after only 5. With A = B = 1.0 in bf16 every accumulator element is 8 after
// the first MFMA and 16 after the second: the read sees 16 with the new value, 8 with the old.
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text

// s[2:3] = the buffer, v6 = lane * 4, A = B = four bf16 1.0 (v[2:3]), C = v[16:31] = 0, then
// the two chained MFMAs. v0 is the work-item id on entry.
.macro CHAIN
  s_load_dwordx2 s[2:3], s[0:1], 0x0
  v_lshlrev_b32 v6, 2, v0
  v_mov_b32 v2, 0x3f803f80
  v_mov_b32 v3, 0x3f803f80
  .irp r, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31
  v_mov_b32 v\r, 0
  .endr
  v_mov_b32 v8, 0x7149f2ca   // 1e30: dominates 8 and 16
  v_mov_b32 v9, 0xf149f2ca   // -1e30: dominated by both
  s_waitcnt lgkmcnt(0)
  s_nop 1
  v_mfma_f32_32x32x8_bf16 v[16:31], v[2:3], v[2:3], v[16:31]
  v_mfma_f32_32x32x8_bf16 v[16:31], v[2:3], v[2:3], v[16:31]
.endm

.macro DESCRIPTOR name
.p2align 6
.amdhsa_kernel \name
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 48
  .amdhsa_accum_offset 48
  .amdhsa_next_free_sgpr 16
.end_amdhsa_kernel
.endm

// Early read whose result cannot depend on it: max3(v16, v17, 1e30) = 1e30 with 8 or 16.
.globl early_read_benign
.p2align 8
.type early_read_benign,@function
early_read_benign:
  CHAIN
  s_nop 4                                    // 5 wait states of the 11 needed
  v_max3_f32 v40, v16, v17, v8
  global_store_dword v6, v40, s[2:3]
  s_endpgm

// Early read whose result depends on it: max3(v16, v17, -1e30) = 16 new, 8 old.
.globl early_read_changes
.p2align 8
.type early_read_changes,@function
early_read_changes:
  CHAIN
  s_nop 4
  v_max3_f32 v40, v16, v17, v9
  global_store_dword v6, v40, s[2:3]
  s_endpgm

// The same read with the 11 wait states the rule needs: no violation.
.globl late_read
.p2align 8
.type late_read,@function
late_read:
  CHAIN
  s_nop 7
  s_nop 2
  v_max3_f32 v40, v16, v17, v9
  global_store_dword v6, v40, s[2:3]
  s_endpgm

// Two early reads: the first benign (pc of v_max3 ... v8), the second changing the output.
.globl two_sites
.p2align 8
.type two_sites,@function
two_sites:
  CHAIN
  s_nop 3
  v_max3_f32 v40, v16, v17, v8
  v_max3_f32 v41, v16, v17, v9
  v_add_u32 v7, 0x100, v6
  global_store_dword v6, v40, s[2:3]
  global_store_dword v7, v41, s[2:3]
  s_endpgm

// An early overwrite of the MFMA result (write after write): nothing is read, so there is no
// old value to give; the differential policy cannot judge it.
.globl early_overwrite
.p2align 8
.type early_overwrite,@function
early_overwrite:
  CHAIN
  s_nop 4
  v_mov_b32 v16, 0
  s_nop 7
  s_nop 7
  global_store_dword v6, v16, s[2:3]
  s_endpgm

.rodata
DESCRIPTOR early_read_benign
DESCRIPTOR early_read_changes
DESCRIPTOR late_read
DESCRIPTOR two_sites
DESCRIPTOR early_overwrite

.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.target: amdgcn-amd-amdhsa--gfx942
amdhsa.kernels:
  - .name: early_read_benign
    .symbol: early_read_benign.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 48
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: early_read_changes
    .symbol: early_read_changes.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 48
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: late_read
    .symbol: late_read.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 48
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: two_sites
    .symbol: two_sites.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 48
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
  - .name: early_overwrite
    .symbol: early_overwrite.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 48
    .max_flat_workgroup_size: 64
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
...
.end_amdgpu_metadata
