// The gfx942 hazard rules, one function each, and the table of them (simulator/checks/hazard.hpp).
// Source: LLVM llvm/lib/Target/AMDGPU/GCNHazardRecognizer.cpp, the paths GCNSubtarget.h enables
// for gfx940/gfx942 (hasGFX940Insts, hasGFX90AInsts, generation GFX9), read for this table; each
// rule also names its class (HazardSource): the CDNA3 ISA guide's row, or LLVM only
// (simulator/README.md "Hazard rules").
// Each function opens with its rule; every count is named;
// the MFMA counts are functions of the producer's passes (LLVM SISchedule.td, cdna3-facts.md §5).
// The list with the rules not modelled and why: simulator/README.md "Hazard rules".
#include <algorithm>

#include "simulator/checks/hazard.hpp"

namespace cdna::simulator {
namespace {

using R = HazardInfo;

bool overlaps(VRange a, VRange b) {
  return a.n && b.n && a.row < b.row + b.n && b.row < a.row + a.n;
}
// Whether the consumer reads (or, with `or_writes`, writes) a register of `w`.
bool touches(const HazardInfo& c, VRange w, bool or_writes = false) {
  for (int i = 0; i < c.nreads; ++i)
    if (overlaps(c.reads[i], w)) return true;
  return or_writes && overlaps(c.write, w);
}
// The producer's result as the shared register, when the consumer touches it.
bool meets_result(const HazardInfo& p, const HazardInfo& c, Clash& at, bool or_writes = false) {
  if (!touches(c, p.write, or_writes)) return false;
  at.v = p.write;
  return true;
}
int first_common(SMask a, SMask b) {
  const std::uint64_t lo = a.lo & b.lo, hi = a.hi & b.hi;
  if (lo) return __builtin_ctzll(lo);
  if (hi) return 64 + __builtin_ctzll(hi);
  return -1;
}
constexpr int kExec = 126, kVcc = 106;
bool writes_exec(const HazardInfo& p) { return p.swrite.meets(SMask::of(kExec, 2)); }
bool writes_vcc(const HazardInfo& p) { return p.swrite.meets(SMask::of(kVcc, 2)); }
int passes(const HazardInfo& m) { return m.passes; }
bool is_xdl(const HazardInfo& m) { return m.roles & R::kXdl; }
bool is_dgemm(const HazardInfo& m) { return m.roles & R::kDgemm; }

// ---- MFMA pass-count functions (GCNHazardRecognizer.cpp GFX940_* helpers and the DGEMM consts)

// XDL result -> VALU read or write, VMEM/LDS read, MFMA SrcA/SrcB: passes + 3 (5/7/11/19).
int xdl_result_wait_states(int p) { return p + 3; }
// SGEMM (f32 MFMA, not XDL on gfx940) result -> the same consumers: passes + 2 (4/6/10/18).
int sgemm_result_wait_states(int p) { return p + 2; }
// DGEMM result -> VALU read or write: 6 (4x4, 4 passes), 11 (16x16, 8 passes).
constexpr int kDgemm4x4ResultValuWaitStates = 6, kDgemm16x16ResultValuWaitStates = 11;
// DGEMM result -> VMEM/LDS read: 9 and 18.
constexpr int kDgemm4x4ResultMemWaitStates = 9, kDgemm16x16ResultMemWaitStates = 18;
// DGEMM result -> MFMA SrcA/SrcB: 6 and 11.
constexpr int kDgemm4x4ResultSrcABWaitStates = 6, kDgemm16x16ResultSrcABWaitStates = 11;
// XDL result -> MFMA SrcC, overlapping but not the same registers: passes + 1 (3/5/9/17).
int xdl_partial_srcc_wait_states(int p) { return p + 1; }
// SGEMM result -> non-XDL MFMA SrcC, partial overlap: passes (2/4/8/16).
int sgemm_partial_srcc_wait_states(int p) { return p; }
// DGEMM result -> non-XDL MFMA SrcC, partial overlap: 4 (4x4), 9 (16x16).
constexpr int kDgemm4x4PartialSrcCWaitStates = 4, kDgemm16x16PartialSrcCWaitStates = 9;
// 2-pass MFMA result -> MFMA SrcC, the same registers: 2; DGEMM 4x4 -> DGEMM 4x4: 4.
constexpr int kTwoPassFullSrcCWaitStates = 2, kDgemm4x4FullSrcCWaitStates = 4;
// XDL MFMA reads SrcC -> VALU overwrites it (WAR): 1/3/7/15 for 2/4/8/16 passes.
int xdl_srcc_war_wait_states(int p) { return p == 2 ? 1 : p == 4 ? 3 : p == 8 ? 7 : 15; }

int mfma_result_to_valu(int p, const HazardInfo& m) {
  if (is_dgemm(m)) return p <= 4 ? kDgemm4x4ResultValuWaitStates : kDgemm16x16ResultValuWaitStates;
  return is_xdl(m) ? xdl_result_wait_states(p) : sgemm_result_wait_states(p);
}
int mfma_result_to_mem(int p, const HazardInfo& m) {
  if (is_dgemm(m)) return p <= 4 ? kDgemm4x4ResultMemWaitStates : kDgemm16x16ResultMemWaitStates;
  return is_xdl(m) ? xdl_result_wait_states(p) : sgemm_result_wait_states(p);
}

// ---- the rules

// MFMA result -> VALU that reads or writes it (checkMAIVALUHazards, RAW and WAW).
int rule_mfma_result_valu(const HazardInfo& p, const HazardInfo& c, Clash& at) {
  return meets_result(p, c, at, true) ? mfma_result_to_valu(passes(p), p) : 0;
}
// MFMA result -> VMEM/FLAT/LDS instruction that reads it or loads into it (checkMAIVALUHazards).
int rule_mfma_result_mem(const HazardInfo& p, const HazardInfo& c, Clash& at) {
  return meets_result(p, c, at, true) ? mfma_result_to_mem(passes(p), p) : 0;
}
// MFMA result -> MFMA SrcA/SrcB (checkMAIHazards90A).
int rule_mfma_result_srcab(const HazardInfo& p, const HazardInfo& c, Clash& at) {
  if (!overlaps(c.reads[0], p.write) && !overlaps(c.reads[1], p.write)) return 0;
  at.v = p.write;
  if (is_dgemm(p)) return passes(p) <= 4 ? kDgemm4x4ResultSrcABWaitStates : kDgemm16x16ResultSrcABWaitStates;
  return is_xdl(p) ? xdl_result_wait_states(passes(p)) : sgemm_result_wait_states(passes(p));
}
// MFMA result -> v_smfmac index VGPR (an ordinary source to checkMAIHazards90A: SrcA/SrcB numbers).
int rule_mfma_result_smfmac_index(const HazardInfo& p, const HazardInfo& c, Clash& at) {
  if (!overlaps(c.reads[3], p.write)) return 0;
  at.v = p.write;
  return is_xdl(p) ? xdl_result_wait_states(passes(p)) : sgemm_result_wait_states(passes(p));
}
// MFMA result -> MFMA SrcC, exactly the same registers: 2 after a 2-pass MFMA, 4 between DGEMM
// 4x4s, else 0 (checkMAIHazards90A FullReg).
int rule_mfma_result_srcc_full(const HazardInfo& p, const HazardInfo& c, Clash& at) {
  const VRange cc = c.reads[2];
  if (!(cc.n && cc.row == p.write.row && cc.n == p.write.n)) return 0;
  at.v = p.write;
  if (is_dgemm(p) && is_dgemm(c) && passes(p) == 4 && passes(c) == 4) return kDgemm4x4FullSrcCWaitStates;
  return passes(p) == 2 ? kTwoPassFullSrcCWaitStates : 0;
}
// MFMA result -> MFMA SrcC overlapping it partially (checkMAIHazards90A, gfx940: XDL producer
// passes + 1; SGEMM or DGEMM producer only before a non-XDL consumer).
int rule_mfma_result_srcc_partial(const HazardInfo& p, const HazardInfo& c, Clash& at) {
  const VRange cc = c.reads[2];
  if (!overlaps(cc, p.write) || (cc.row == p.write.row && cc.n == p.write.n)) return 0;
  at.v = p.write;
  if (is_dgemm(p))
    return is_xdl(c) ? 0 : passes(p) <= 4 ? kDgemm4x4PartialSrcCWaitStates : kDgemm16x16PartialSrcCWaitStates;
  if (is_xdl(p)) return xdl_partial_srcc_wait_states(passes(p));
  return is_xdl(c) ? 0 : sgemm_partial_srcc_wait_states(passes(p));
}
// XDL MFMA reads SrcC -> VALU overwrites it (checkMAIVALUHazards, IsSMFMAReadAsCFn, WAR).
int rule_mfma_srcc_valu_war(const HazardInfo& p, const HazardInfo& c, Clash& at) {
  if (!is_xdl(p) || !overlaps(c.write, p.reads[2])) return 0;
  at.v = p.reads[2];
  return xdl_srcc_war_wait_states(passes(p));
}
// VALU (not v_dot) writes a VGPR -> MFMA reads it: 2 (checkMAIHazards90A,
// LegacyVALUNotDotWritesVGPRWaitStates).
constexpr int kValuWritesVgprMfmaWaitStates = 2;
int rule_valu_vgpr_mfma(const HazardInfo& p, const HazardInfo& c, Clash& at) {
  if (p.roles & R::kDot) return 0;
  return meets_result(p, c, at) ? kValuWritesVgprMfmaWaitStates : 0;
}
// VALU writes EXEC -> MFMA: 4 (checkMAIHazards90A, VALUWritesExecWaitStates).
constexpr int kValuWritesExecMfmaWaitStates = 4;
int rule_valu_exec_mfma(const HazardInfo& p, const HazardInfo&, Clash&) {
  if (!writes_exec(p)) return 0;
  return kValuWritesExecMfmaWaitStates;
}
// VALU writes VCC -> v_div_fmas (reads VCC): 4 (checkDivFMasHazards).
constexpr int kDivFmasWaitStates = 4;
int rule_valu_vcc_div_fmas(const HazardInfo& p, const HazardInfo&, Clash&) {
  if (!writes_vcc(p)) return 0;
  return kDivFmasWaitStates;
}
// Transcendental VALU writes a VGPR -> a non-transcendental VALU reads it: 1
// (checkVALUHazards, hasTransForwardingHazard = GFX940Insts).
constexpr int kTransDefWaitStates = 1;
int rule_trans_use(const HazardInfo& p, const HazardInfo& c, Clash& at) {
  if (c.roles & R::kTrans) return 0;
  return meets_result(p, c, at) ? kTransDefWaitStates : 0;
}
// VALU writes a VGPR at a shift (SDWA dst_sel not DWORD, VOP3 op_sel dst) -> VALU reads it: 1
// (checkVALUHazards, hasDstSelForwardingHazard = GFX940Insts).
constexpr int kShift16DefWaitStates = 1;
int rule_shifted_dst_use(const HazardInfo& p, const HazardInfo& c, Clash& at) {
  return meets_result(p, c, at) ? kShift16DefWaitStates : 0;
}
// VMEM store of more than 64 bits (with no SGPR soffset for MUBUF) -> VALU writes a VGPR of its
// data: 2 on gfx940 (checkVALUHazardsHelper / createsVALUHazard; 1 on older GCN).
constexpr int kWideStoreDataWaitStates = 2;
int rule_wide_store_data(const HazardInfo& p, const HazardInfo& c, Clash& at) {
  if (!overlaps(c.write, p.store_data)) return 0;
  at.v = p.store_data;
  return kWideStoreDataWaitStates;
}
// VALU writes an SGPR -> VMEM reads it (address, resource, offset): 5 (checkVMEMHazards,
// hasVMEMReadSGPRVALUDefHazard).
constexpr int kVmemSgprWaitStates = 5;
int rule_valu_sgpr_vmem(const HazardInfo& p, const HazardInfo& c, Clash& at) {
  at.sreg = first_common(p.swrite, c.sread);
  return at.sreg >= 0 ? kVmemSgprWaitStates : 0;
}
// VALU writes an SGPR or VCC -> VALU reads it as a constant: 2 (ISA §4.5 case 18; LLVM
// checkVALUHazards, hasVDecCoExecHazard = GFX940Insts, VALUWriteSGPRVALUReadWaitstates).
constexpr int kValuSgprValuWaitStates = 2;
int rule_valu_sgpr_valu(const HazardInfo& p, const HazardInfo& c, Clash& at) {
  at.sreg = first_common(p.swrite, SMask{c.sread.lo & ~c.smask.lo, c.sread.hi & ~c.smask.hi});
  return at.sreg >= 0 ? kValuSgprValuWaitStates : 0;
}
// The same write -> a VALU reading it as a lane mask (v_cndmask select, carry-in, v_div_fmas
// VCC): 2 in LLVM (any SGPR operand); the ISA's case 18 asks 0 for a carry-in and says nothing
// of a select mask: LLVM only.
int rule_valu_sgpr_valu_mask(const HazardInfo& p, const HazardInfo& c, Clash& at) {
  at.sreg = first_common(p.swrite, c.smask);
  return at.sreg >= 0 ? kValuSgprValuWaitStates : 0;
}
// VALU writes the SGPR a v_readlane/v_writelane uses as lane select: 4 (checkRWLaneHazards).
constexpr int kRwLaneSelectWaitStates = 4;
int rule_valu_sgpr_lane_select(const HazardInfo& p, const HazardInfo& c, Clash& at) {
  if (c.lane_select == 0xffff || !p.swrite.meets(SMask::of(c.lane_select, 1))) return 0;
  at.sreg = c.lane_select;
  return kRwLaneSelectWaitStates;
}
// VALU writes a VGPR -> v_readlane/v_readfirstlane reads it as src0: 1 (checkVALUHazards,
// VALUWriteVGPRReadlaneRead).
constexpr int kValuVgprReadlaneWaitStates = 1;
int rule_valu_vgpr_readlane(const HazardInfo& p, const HazardInfo& c, Clash& at) {
  if (!(c.roles & R::kReadLane) || !overlaps(c.reads[0], p.write)) return 0;
  at.v = p.write;
  return kValuVgprReadlaneWaitStates;
}
// VALU writes EXEC -> v_readlane/v_readfirstlane/v_writelane: 4 (checkVALUHazards,
// VALUWriteEXECRWLane).
constexpr int kValuExecRwLaneWaitStates = 4;
int rule_valu_exec_rwlane(const HazardInfo& p, const HazardInfo&, Clash&) {
  if (!writes_exec(p)) return 0;
  return kValuExecRwLaneWaitStates;
}
// Any instruction writes a VGPR -> a DPP instruction reads it: 2 (checkDPPHazards,
// DppVgprWaitStates).
constexpr int kDppVgprWaitStates = 2;
int rule_vgpr_dpp(const HazardInfo& p, const HazardInfo& c, Clash& at) {
  return meets_result(p, c, at) ? kDppVgprWaitStates : 0;
}
// VALU writes EXEC -> DPP: 5 (checkDPPHazards, DppExecWaitStates).
constexpr int kDppExecWaitStates = 5;
int rule_valu_exec_dpp(const HazardInfo& p, const HazardInfo&, Clash&) {
  if (!writes_exec(p)) return 0;
  return kDppExecWaitStates;
}
// s_setreg -> s_getreg of the same hardware register: 2 (checkGetRegHazards).
constexpr int kGetRegWaitStates = 2;
int rule_setreg_getreg(const HazardInfo& p, const HazardInfo& c, Clash&) {
  return p.hwreg == c.hwreg ? kGetRegWaitStates : 0;
}
// s_setreg -> s_setreg of the same hardware register: 2 on GFX9 (checkSetRegHazards,
// getSetRegWaitStates).
constexpr int kSetRegWaitStates = 2;
int rule_setreg_setreg(const HazardInfo& p, const HazardInfo& c, Clash&) {
  return p.hwreg == c.hwreg ? kSetRegWaitStates : 0;
}
// SALU writes M0 -> s_movrel, ds_*_addtid, LDS DMA, s_sendmsg, s_ttracedata: 1
// (checkReadM0Hazards, hasReadM0MovRelInterp/SendMsg/LdsDma hazards on GFX9).
constexpr int kReadM0WaitStates = 1;
int rule_salu_m0(const HazardInfo& p, const HazardInfo&, Clash& at) {
  constexpr int kM0Index = 124;
  if (!p.swrite.meets(SMask::of(kM0Index, 1))) return 0;
  at.sreg = kM0Index;
  return kReadM0WaitStates;
}
// DGEMM -> v_fma_f64/v_fmac_f64: 2 (checkMAIVALUHazards, DMFMAToFMA64WaitStates).
constexpr int kDgemmToFma64WaitStates = 2;
int rule_dgemm_fma64(const HazardInfo&, const HazardInfo&, Clash&) { return kDgemmToFma64WaitStates; }
// v_dot writes a VGPR -> the same v_dot reads it as SrcA/SrcB, or another VALU reads or writes
// it: 3 (checkMAIVALUHazards, DotWriteSameDotReadSrcAB / DotWriteDifferentVALURead/Write).
constexpr int kDotWriteWaitStates = 3;
int rule_dot_result(const HazardInfo& p, const HazardInfo& c, Clash& at) {
  if (c.op == p.op) {  // the same v_dot: SrcC (the last source) may follow at once
    for (int i = 0; i + 1 < c.nreads; ++i)
      if (overlaps(c.reads[i], p.write)) at.v = p.write;
    return at.v.n ? kDotWriteWaitStates : 0;
  }
  return meets_result(p, c, at, true) ? kDotWriteWaitStates : 0;
}

constexpr std::string_view kLlvm = "LLVM GCNHazardRecognizer.cpp ";
std::vector<HazardRule> make_rules() {
  const std::uint32_t valu_like = R::kValu | R::kMfma;
  // `isa`: where the CDNA3 ISA guide states the rule ("" for an LLVM-only rule); `fn`: the LLVM
  // function that implements it. The case numbers 10, 16, 18 and 106 are those issue 23 §3
  // quotes from the guide; the other rows are the guide's rows as summarised in cdna3-facts.md
  // §5 (§7.5) and the MI200 guide's §4.5 table, their numbers not re-read in the CDNA3 edition.
  const auto isa = [](std::string_view where, std::string_view fn, std::string_view more = {}) {
    return "CDNA3 ISA " + std::string(where) + "; " + std::string(kLlvm) + std::string(fn) + std::string(more);
  };
  const auto llvm_only = [](std::string_view fn, std::string_view why) {
    return "LLVM only: " + std::string(kLlvm) + std::string(fn) + " (" + std::string(why) + ")";
  };
  constexpr auto I = HazardSource::Isa, L = HazardSource::LlvmOnly;
  constexpr auto V = Superseded::ByVgprWrite, S = Superseded::BySgprWrite, N = Superseded::Never;
  const std::string xdl_valu = "§7.5 table, case 106 (MFMA result -> VALU)";
  const std::string mfma_table = "§7.5 table (MFMA dependencies)";
  return {
      {"mfma-result-valu", R::kMfma, R::kValu, rule_mfma_result_valu, 19,
       "VALU access of the MFMA result", isa(xdl_valu, "checkMAIVALUHazards"), I, V},
      {"mfma-result-vmem", R::kMfma, R::kVmem, rule_mfma_result_mem, 19,
       "VMEM access of the MFMA result", isa(mfma_table, "checkMAIVALUHazards"), I, V},
      {"mfma-result-lds", R::kMfma, R::kLds, rule_mfma_result_mem, 19,
       "LDS access of the MFMA result", isa(mfma_table, "checkMAIVALUHazards"), I, V},
      {"mfma-result-srcab", R::kMfma, R::kMfma, rule_mfma_result_srcab, 19,
       "MFMA SrcA/SrcB read of the MFMA result", isa(mfma_table, "checkMAIHazards90A"), I, V},
      {"mfma-result-smfmac-index", R::kMfma, R::kSmfmac, rule_mfma_result_smfmac_index, 19,
       "v_smfmac index read of the MFMA result", isa(mfma_table, "checkMAIHazards90A"), I, V},
      {"mfma-result-srcc-full", R::kMfma, R::kMfma, rule_mfma_result_srcc_full, 4,
       "MFMA SrcC reading the result of a 2-pass MFMA", isa(mfma_table, "checkMAIHazards90A"), I, V},
      {"mfma-result-srcc-partial", R::kMfma, R::kMfma, rule_mfma_result_srcc_partial, 17,
       "MFMA SrcC partially overlapping the MFMA result", isa(mfma_table, "checkMAIHazards90A"), I, V},
      {"mfma-srcc-valu-war", R::kXdl, R::kValu, rule_mfma_srcc_valu_war, 15,
       "VALU overwrite of the MFMA's SrcC", isa(mfma_table, "checkMAIVALUHazards"), I, N},
      {"valu-vgpr-mfma", R::kValuVgpr, R::kMfma, rule_valu_vgpr_mfma, 2,
       "MFMA read of a VALU result", isa(mfma_table, "checkMAIHazards90A"), I, V},
      {"valu-exec-mfma", R::kValuExec, R::kMfma, rule_valu_exec_mfma, 4,
       "MFMA after a VALU write of EXEC", isa(mfma_table, "checkMAIHazards90A"), I, N},
      {"valu-vcc-div-fmas", R::kValuSgpr, R::kDivFmas, rule_valu_vcc_div_fmas, 4,
       "v_div_fmas read of VCC", isa("§4.5 table (VALU writes VCC -> v_div_fmas)", "checkDivFMasHazards"), I, S},
      {"trans-use", R::kTrans, valu_like, rule_trans_use, 1,
       "VALU read of a transcendental result", isa("§4.5 table", "checkVALUHazards", " (TransDefWaitstates)"), I, V},
      {"shifted-dst-use", R::kShiftedDst, valu_like, rule_shifted_dst_use, 1,
       "VALU read of an SDWA/op_sel partial result", isa("§4.5 table", "checkVALUHazards", " (Shift16DefWaitstates)"), I, V},
      {"wide-store-data", R::kWideStore, valu_like, rule_wide_store_data, 2,
       "VALU overwrite of the data of a >64-bit store", isa("§4.5 table (store data of more than 64 bits)", "checkVALUHazardsHelper"), I, N},
      {"valu-sgpr-vmem", R::kValuSgpr, R::kVmem, rule_valu_sgpr_vmem, 5,
       "VMEM read of an SGPR a VALU wrote", isa("§4.5 table, case 10 (VALU writes SGPR -> VMEM reads it)", "checkVMEMHazards"), I, S},
      {"valu-sgpr-valu", R::kValuSgpr, R::kReadsSgpr, rule_valu_sgpr_valu, 2,
       "VALU read (as a constant) of an SGPR a VALU wrote",
       isa("§4.5 table, case 18 (read as constant: 2)", "checkVALUHazards", " (VALUWriteSGPRVALUReadWaitstates)"), I, S},
      {"valu-sgpr-valu-mask", R::kValuSgpr, R::kReadsSgpr, rule_valu_sgpr_valu_mask, 2,
       "VALU read (as a lane mask) of an SGPR a VALU wrote",
       llvm_only("checkVALUHazards (VALUWriteSGPRVALUReadWaitstates)",
                 "the ISA's case 18 asks 0 for a carry-in and says nothing of a select mask"), L, S},
      {"valu-sgpr-lane-select", R::kValuSgpr, R::kRwLane, rule_valu_sgpr_lane_select, 4,
       "v_readlane/v_writelane lane select a VALU wrote", isa("§4.5 table (lane select)", "checkRWLaneHazards"), I, S},
      {"valu-vgpr-readlane", R::kValuVgpr | R::kMfma, R::kReadLane, rule_valu_vgpr_readlane, 1,
       "v_readlane source a VALU wrote", isa("§4.5 table (v_readlane vsrc0)", "checkVALUHazards", " (VALUWriteVGPRReadlaneRead)"), I, V},
      {"valu-exec-rwlane", R::kValuExec, R::kRwLane, rule_valu_exec_rwlane, 4,
       "v_readlane/v_writelane after a VALU write of EXEC", isa("§4.5 table", "checkVALUHazards", " (VALUWriteEXECRWLane)"), I, N},
      {"vgpr-dpp", R::kValuVgpr | R::kVmem | R::kLds, R::kDpp, rule_vgpr_dpp, 2,
       "DPP read of a VGPR written", isa("§4.5 table (DPP)", "checkDPPHazards"), I, V},
      {"valu-exec-dpp", R::kValuExec, R::kDpp, rule_valu_exec_dpp, 5,
       "DPP after a VALU write of EXEC", isa("§4.5 table (DPP)", "checkDPPHazards"), I, N},
      {"setreg-getreg", R::kSetreg, R::kGetreg, rule_setreg_getreg, 2,
       "s_getreg of a hardware register s_setreg wrote", isa("§4.5 table (s_setreg -> s_getreg)", "checkGetRegHazards"), I, N},
      {"setreg-setreg", R::kSetreg, R::kSetreg, rule_setreg_setreg, 2,
       "s_setreg of a hardware register s_setreg wrote", isa("§4.5 table (s_setreg -> s_setreg)", "checkSetRegHazards"), I, N},
      {"salu-m0-read", R::kSaluM0, R::kReadsM0, rule_salu_m0, 1,
       "M0 read (s_movrel, addtid, s_sendmsg) after an SALU write", isa("§4.5 table, case 16 (SALU writes M0)", "checkReadM0Hazards"), I, S},
      {"salu-m0-lds-dma-load", R::kSaluM0, R::kM0LdsLoad, rule_salu_m0, 1,
       "LDS DMA load's M0 read after an SALU write",
       llvm_only("checkReadM0Hazards (hasReadM0LdsDmaHazard)", "the ISA's case 16 names the LDS DMA store forms only"), L, S},
      {"dgemm-fma64", R::kDgemm, R::kFma64, rule_dgemm_fma64, 2,
       "v_fma_f64/v_fmac_f64 after a DGEMM", isa(mfma_table, "checkMAIVALUHazards", " (DMFMAToFMA64WaitStates)"), I, N},
      {"dot-result", R::kDot, R::kValu, rule_dot_result, 3,
       "access of a v_dot result", isa(mfma_table, "checkMAIVALUHazards", " (DotWrite*)"), I, V},
  };
}

}  // namespace

const std::vector<HazardRule>& hazard_rules() {
  static const std::vector<HazardRule> rules = make_rules();
  return rules;
}

}  // namespace cdna::simulator
