// The directed cases, one family per file (cases_<family>.cpp). Each family function appends
// its cases; all_cases() is their concatenation in a fixed order (kernel i = all_cases()[i]).
#pragma once

#include <functional>
#include <string>
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
void add_valu_sat_cases(std::vector<Case>& cases);     // v_add/sub_i32/i16 (clamp), v_cvt_pk_*16, v_trig_preop_f64
void add_vmem_range_cases(std::vector<Case>& cases);   // buffer range check with SOFFSET/inst offset, each form
void add_launch_cases(std::vector<Case>& cases);       // unified VGPR file aliasing, v_pk_fma_f32 inline constants

std::vector<Case> all_cases();

// ---- case builders shared between families ----
// Forms of the generic VALU line sets of cases_valu_fp.cpp: `bits`-wide sources and result,
// float source modifiers, a VOP3 clamp line, a VOP1/VOP2 encoding (literal, DPP), the inline
// constant and literal used (text and bit pattern), and lines put before the case's own ones
// (for example a MODE setting; they do not enter the model).
struct ValuForms {
  int sbits = 32, dbits = 32;
  bool float_src = true, float_dst = true, e32 = true, clamp_line = true;
  std::string inline_text = "0.5";
  u64 inline_bits = 0x3f000000u;
  std::string literal_text = "0x40490fdb";
  u64 literal_bits = 0x40490fdbu;
  std::string prologue;
};
// A unary case (v32.. = op(v10..v17), SGPR, VOP3 modifiers/clamp, constants, DPP, partial EXEC)
// and a binary one (VOP2/VOP3 pairs; src1_float: src1 takes float modifiers), cases_valu_fp.cpp.
void add_unary_case(std::vector<Case>& cases, const std::string& mnemonic, const ValuForms& forms,
                    std::function<u64(u64)> op, Values values, std::function<void(State&)> init = nullptr);
void add_binary_case(std::vector<Case>& cases, const std::string& mnemonic, const ValuForms& forms,
                     std::function<u64(u64, u64)> op, Values values, std::function<void(State&)> init = nullptr,
                     bool src1_float = true);
// The v_cmp*/v_cmpx* case of cases_vopc.cpp for `mnemonic` (e.g. "v_cmpx_lt_f16").
Case vopc_case(const std::string& mnemonic);

}  // namespace cdna::simulator::directed
