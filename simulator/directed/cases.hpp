// The directed cases, one family per file (cases_<family>.cpp). Each family function appends
// its cases; all_cases() is their concatenation in a fixed order (kernel i = all_cases()[i]).
#pragma once

#include <vector>

#include "simulator/directed/harness.hpp"

namespace cdna::simulator::directed {

void add_scalar_cases(std::vector<Case>& cases);    // SOP1/SOP2/SOPC/SOPK/SOPP, SMEM
void add_valu_int_cases(std::vector<Case>& cases);  // integer/bit VOP1/VOP2/VOP3/VOP3P, lanes, DPP, SDWA
void add_valu_fp_cases(std::vector<Case>& cases);   // f16/f32/f64 arithmetic, conversions, transcendentals, dot2, fp8
void add_vopc_cases(std::vector<Case>& cases);      // v_cmp*, v_cmpx*
void add_mfma_cases(std::vector<Case>& cases);      // v_mfma_*, v_accvgpr_*
void add_lds_cases(std::vector<Case>& cases);       // ds_*
void add_vmem_cases(std::vector<Case>& cases);      // global_*, flat_*, scratch_*, buffer_*
void add_valu_unary_cases(std::vector<Case>& cases);   // f16/f64 unary math, frexp/fract, more v_cmpx
void add_valu_three_cases(std::vector<Case>& cases);   // div_scale/fmas/fixup, fma_mix, 16-bit mads, media
void add_vmem_forms_cases(std::vector<Case>& cases);   // VMEM atomics, d16/format, MTBUF, loads to LDS
void add_ds_atomic_cases(std::vector<Case>& cases);    // DS atomics, addtid
void add_salu_smem_cases(std::vector<Case>& cases);    // movrel, gpr_idx, quadmask, SMEM stores/atomics
void add_mfma_sparse_cases(std::vector<Case>& cases);  // MFMA cbsz/abid/blgp, v_smfmac_*

std::vector<Case> all_cases();

}  // namespace cdna::simulator::directed
