// Hazard classification of decoded instructions and the scheduler's check (simulator/checks/hazard.hpp;
// the rules themselves: hazard_rules.cpp).
#include "simulator/checks/hazard.hpp"

#include <algorithm>

#include "simulator/state/wave.hpp"

namespace cdna::simulator {
namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

VRange range(const Operand& o) {
  if (o.kind != OperandKind::Vreg) return {};
  return VRange{o.reg, o.width};
}

// Register name of a unified-file range: v[..] below ACCUM_OFFSET, a[..] above.
std::string name(VRange r, std::uint32_t accum) {
  char prefix = r.row >= accum ? 'a' : 'v';
  std::uint32_t first = r.row >= accum ? r.row - accum : r.row;
  if (r.n == 1) return prefix + std::to_string(first);
  return std::string(1, prefix) + "[" + std::to_string(first) + ":" + std::to_string(first + r.n - 1) + "]";
}

void add_read(HazardInfo& h, const Operand& o) {
  VRange r = range(o);
  if (r.n && h.nreads < 5) h.reads[h.nreads++] = r;
}

// "s4", "VCC", "EXEC", "M0" (scalar-file index, simulator/decode/isa.hpp SregIndex).
std::string sreg_name(int r) {
  if (r == kVccLo || r == kVccHi) return "VCC";
  if (r == kExecLo || r == kExecLo + 1) return "EXEC";
  if (r == kM0) return "M0";
  return "s" + std::to_string(r);
}

// Instructions whose first operand is a VGPR destination (the others only read VGPRs).
bool vmem_or_ds_writes_first(std::string_view m, const Inst& I) {
  if (m.find("_load_lds_") != std::string_view::npos) return false;  // to LDS: no VGPR written
  if (m.find("_load_") != std::string_view::npos) return !I.lds;  // LDS-direct: no VGPR written
  if (starts_with(m, "ds_read") || m.find("_rtn_") != std::string_view::npos ||
      m == "ds_bpermute_b32" || m == "ds_permute_b32" || m == "ds_swizzle_b32" ||
      m == "ds_append" || m == "ds_consume")
    return true;
  if (m.find("_atomic_") != std::string_view::npos) {  // returning forms
    if (starts_with(m, "buffer_")) return I.sc0;          // vdata is data and destination
    return I.nops == (starts_with(m, "flat_") ? 3 : 4);
  }
  return false;
}

// MFMA passes (LLVM SISchedule.td, gfx940: cycles / 4; cdna3-facts.md §5).
std::uint8_t mfma_passes(std::string_view m) {
  auto has = [&](std::string_view s) { return m.find(s) != std::string_view::npos; };
  const bool sgemm = m.ends_with("_f32") && !m.starts_with("v_mfma_f64");
  if (has("_4x4x")) return has("_f64") ? 4 : 2;
  if (has("_2b_") || (sgemm && has("32x32"))) return 16;
  if (has("_4b_") || (sgemm && has("16x16")) || has("_f64")) return 8;
  if (has("32x32")) return 8;
  return 4;
}
// Transcendental VALU opcodes (LLVM VOP1Instructions.td: TRANS = 1 on gfx9).
bool is_trans(std::string_view m) {
  for (std::string_view t : {"v_exp_", "v_log_", "v_rcp_", "v_rsq_", "v_sqrt_", "v_sin_", "v_cos_"})
    if (starts_with(m, t)) return true;
  return false;
}
void add_sregs(SMask& m, const Operand& o) {
  if (o.kind == OperandKind::Sreg) m.add(o.reg, o.width);
}
// The data operand of a VMEM store or atomic (ops layout of simulator/exec_vmem*.cpp).
const Operand* store_data(std::string_view m, const Inst& I) {
  const bool store = m.find("_store") != std::string_view::npos;
  const bool atomic = m.find("_atomic") != std::string_view::npos;
  if (!store && !atomic) return nullptr;
  if (starts_with(m, "buffer_") || starts_with(m, "tbuffer_")) return &I.ops[0];
  if (atomic && vmem_or_ds_writes_first(m, I)) return &I.ops[2];  // returning: vdst, vaddr, data
  return &I.ops[1];
}
// VALU roles and scalar/vector operands.
void classify_valu(std::string_view m, const Inst& I, HazardInfo& h) {
  using R = HazardInfo;
  h.kind = HazardInfo::Kind::Valu;
  h.roles |= R::kValu;
  if (is_trans(m)) h.roles |= R::kTrans;
  if (I.enc == Encoding::Dpp) h.roles |= R::kDpp;
  if (starts_with(m, "v_dot")) h.roles |= R::kDot;
  if (I.op == Opcode::v_div_fmas_f32 || I.op == Opcode::v_div_fmas_f64) {
    h.roles |= R::kDivFmas;
    h.sread.add(kVccLo, 2);  // an implicit source, a per-lane select
    h.smask.add(kVccLo, 2);
  }
  if (m == "v_fma_f64" || m == "v_fmac_f64") h.roles |= R::kFma64;
  if (m == "v_readlane_b32" || m == "v_readfirstlane_b32") h.roles |= R::kRwLane | R::kReadLane;
  if (m == "v_writelane_b32") h.roles |= R::kRwLane;
  if (starts_with(m, "v_cmpx_")) h.swrite.add(kExecLo, 2);
  if (I.nops == 0) return;
  // Destinations: the first operand, and a carry-out or div_scale VCC before the sources.
  for (int i = 0; i < I.src0 && i < I.nops; ++i) add_sregs(h.swrite, I.ops[i]);
  for (int i = I.src0; i < I.nops; ++i) add_sregs(h.sread, I.ops[i]);
  // The last source of v_cndmask (the select mask) and of the carry-in forms is a lane mask.
  if ((m.starts_with("v_cndmask_") || m.starts_with("v_addc_co_") || m.starts_with("v_subb_co_") ||
       m.starts_with("v_subbrev_co_")) && I.nops > I.src0)
    add_sregs(h.smask, I.ops[I.nops - 1]);
  if ((h.roles & R::kRwLane) && I.nops > 2 && I.ops[2].kind == OperandKind::Sreg)
    h.lane_select = I.ops[2].reg;
  // The first operand is the destination (an SGPR for compares and readlane: no VGPR write).
  // Accumulating forms and v_writelane also read it; v_swap writes both operands (the second
  // is listed as a read, which the rules treat alike for MFMA results).
  h.write = range(I.ops[0]);
  if (m == "v_writelane_b32" || m == "v_fmac_f32" || m == "v_fmac_f64" || m == "v_mac_f32" ||
      m == "v_swap_b32" || m == "v_dot2c_f32_f16" || m == "v_dot4c_i32_i8")
    add_read(h, I.ops[0]);
  for (int i = 1; i < I.nops; ++i) add_read(h, I.ops[i]);
  // A partial write at a shift: SDWA dst_sel not DWORD (6), or VOP3 op_sel's destination bit
  // (after the sources; VOP3P has none).
  const int nsrc = I.nops - I.src0;
  const bool vop3p = starts_with(m, "v_pk_") || starts_with(m, "v_dot") || m.find("_mix") != std::string_view::npos;
  if ((I.enc == Encoding::Sdwa && I.dst_sel != 6) ||
      (!vop3p && h.write.n && nsrc >= 0 && ((I.op_sel >> nsrc) & 1)))
    h.roles |= R::kShiftedDst;
}
void classify_memory(std::string_view m, const Inst& I, HazardInfo& h) {
  using R = HazardInfo;
  const bool vmem = !starts_with(m, "ds_");
  h.kind = vmem ? HazardInfo::Kind::Vmem : HazardInfo::Kind::Lds;
  h.roles |= vmem ? R::kVmem : R::kLds;
  int first = 0;
  if (I.nops > 0 && vmem_or_ds_writes_first(m, I)) {
    h.write = range(I.ops[0]);
    first = starts_with(m, "buffer_atomic_") ? 0 : 1;  // a returning buffer atomic reads it too
  }
  for (int i = first; i < I.nops; ++i) add_read(h, I.ops[i]);
  for (int i = 0; i < I.nops; ++i) add_sregs(h.sread, I.ops[i]);
  // LDS DMA and addtid address LDS through M0. The LDS DMA loads (buffer_load_* ... lds,
  // global/scratch_load_lds_*) have a rule of their own, LLVM-only: the ISA guide's case 16 names
  // the store forms (simulator/README.md "Hazard rules"; AITER issues them right after the SALU
  // that advances M0, and would be wrong on every input if the load read the old M0).
  const bool lds_load = (I.lds && m.find("_load") != std::string_view::npos) || m.find("_load_lds_") != std::string_view::npos;
  if (lds_load) h.roles |= R::kM0LdsLoad;
  else if (I.lds || m.find("_addtid_") != std::string_view::npos) h.roles |= R::kReadsM0;
  if (const Operand* d = vmem ? store_data(m, I) : nullptr; d && d->kind == OperandKind::Vreg && d->width > 2) {
    // MUBUF/MTBUF only without an SGPR soffset (LLVM createsVALUHazard).
    const bool buffer = starts_with(m, "buffer_") || starts_with(m, "tbuffer_");
    if (!buffer || I.nops < 4 || I.ops[3].kind != OperandKind::Sreg) {
      h.roles |= R::kWideStore;
      h.store_data = range(*d);
    }
  }
}
void classify_scalar(std::string_view m, const Inst& I, HazardInfo& h) {
  using R = HazardInfo;
  if (starts_with(m, "s_setreg")) h.roles |= R::kSetreg, h.hwreg = static_cast<std::uint8_t>(I.simm & 63);
  if (m == "s_getreg_b32") h.roles |= R::kGetreg, h.hwreg = static_cast<std::uint8_t>(I.simm & 63);
  if (starts_with(m, "s_movrel") || starts_with(m, "s_sendmsg") || m == "s_ttracedata") h.roles |= R::kReadsM0;
  if (starts_with(m, "s_load") || starts_with(m, "s_buffer_") || starts_with(m, "s_store") ||
      starts_with(m, "s_cbranch") || m == "s_branch" || starts_with(m, "s_waitcnt"))
    return;
  h.roles |= R::kSalu;
  // SALU destination: the first operand, except for compares, s_setreg and s_set_gpr_idx.
  if (I.nops > 0 && !starts_with(m, "s_cmp") && !starts_with(m, "s_bitcmp") && !starts_with(m, "s_setreg") &&
      !starts_with(m, "s_set_gpr_idx"))
    add_sregs(h.swrite, I.ops[0]);
}
// Which rules the instruction can produce or consume, and its window as a producer.
void attach_rules(HazardInfo& h) {
  using R = HazardInfo;
  if (h.roles & R::kValu) {
    if (h.write.n) h.roles |= R::kValuVgpr;
    if (h.swrite.meets(SMask::of(kExecLo, 2))) h.roles |= R::kValuExec;
    SMask not_exec = h.swrite;
    not_exec.hi &= ~(std::uint64_t{3} << (kExecLo - 64));
    if (not_exec.any()) h.roles |= R::kValuSgpr;
  }
  if ((h.roles & (R::kValu | R::kMfma)) && h.sread.any()) h.roles |= R::kReadsSgpr;
  if ((h.roles & R::kSalu) && h.swrite.meets(SMask::of(kM0, 1))) h.roles |= R::kSaluM0;
  const auto& rules = hazard_rules();
  for (std::size_t r = 0; r < rules.size(); ++r) {
    if (h.roles & rules[r].producers) {
      h.produces |= std::uint64_t{1} << r;
      h.window = static_cast<std::uint8_t>(std::max<int>(h.window, rules[r].max_need));
    }
    if (h.roles & rules[r].consumers) h.consumes |= std::uint64_t{1} << r;
  }
  set_rule_bytes(h);
}
}  // namespace

void set_rule_bytes(HazardInfo& h) {
  for (unsigned r = 0; r < HazardState::kMaxRules; ++r) {
    const std::uint64_t byte = std::uint64_t{0xff} << (8 * (r % 8));
    h.produce_bytes[r / 8] = ((h.produces >> r) & 1) ? h.produce_bytes[r / 8] | byte : h.produce_bytes[r / 8] & ~byte;
    h.consume_bytes[r / 8] = ((h.consumes >> r) & 1) ? h.consume_bytes[r / 8] | byte : h.consume_bytes[r / 8] & ~byte;
  }
}

HazardInfo classify_hazards(const Inst& I) {
  using R = HazardInfo;
  HazardInfo h;
  h.op = I.op;
  std::string_view m = mnemonic(I.op);
  if (I.op == Opcode::s_nop) {
    h.wait_states = static_cast<std::uint8_t>(std::clamp(I.simm, 0, 15) + 1);
    return h;
  }
  if (I.op == Opcode::kUnsupported) return h;
  if (starts_with(m, "v_mfma_") || starts_with(m, "v_smfmac_")) {
    // v_smfmac (LLVM VOP3PInstructions.td, checkMAIHazards90A): the accumulator is src2, tied
    // to vdst, so SrcC is the D registers; the index VGPR is an ordinary source (reads[3]).
    const bool smfmac = starts_with(m, "v_smfmac_");
    h.kind = HazardInfo::Kind::Mfma;
    h.roles |= R::kMfma | (smfmac ? R::kSmfmac : 0u);
    h.passes = mfma_passes(m);
    const bool dgemm = starts_with(m, "v_mfma_f64");
    const bool sgemm = m.ends_with("_f32") && !dgemm;
    h.roles |= dgemm ? R::kDgemm : sgemm ? 0u : R::kXdl;
    h.write = range(I.ops[0]);
    h.reads[0] = range(I.ops[1]);
    h.reads[1] = range(I.ops[2]);
    h.reads[2] = range(smfmac ? I.ops[0] : I.ops[3]);
    h.reads[3] = smfmac ? range(I.ops[3]) : VRange{};
    h.nreads = smfmac ? 4 : 3;
  } else if (starts_with(m, "v_")) {
    classify_valu(m, I, h);
  } else if (starts_with(m, "global_") || starts_with(m, "flat_") || starts_with(m, "scratch_") ||
             starts_with(m, "buffer_") || starts_with(m, "tbuffer_") || starts_with(m, "ds_")) {
    classify_memory(m, I, h);
  } else if (starts_with(m, "s_")) {
    classify_scalar(m, I, h);
  }
  attach_rules(h);
  return h;
}

void hazard_hits(const HazardInfo& p, const HazardInfo& c, int present, std::uint32_t accum,
                 std::vector<HazardHit>& out) {
  const auto& rules = hazard_rules();
  for (std::uint64_t both = p.produces & c.consumes; both; both &= both - 1) {
    const HazardRule& r = rules[static_cast<std::size_t>(__builtin_ctzll(both))];
    if (present >= r.max_need) continue;
    Clash at;
    const int need = r.need(p, c, at);
    if (present >= need) continue;
    HazardHit hit{&r, need, {}};
    if (at.v.n) hit.reg = name(at.v, accum);
    else if (at.sreg >= 0) hit.reg = sreg_name(at.sreg);
    out.push_back(std::move(hit));
  }
}

std::string_view to_string(HazardSource s) { return s == HazardSource::Isa ? "ISA" : "LLVM only"; }

bool supersedes(const HazardInfo& later, const HazardInfo& earlier, const HazardRule& r) {
  const auto bit = static_cast<std::size_t>(&r - hazard_rules().data());
  if (!((later.produces >> bit) & 1)) return false;
  if (r.superseded == Superseded::ByVgprWrite)
    return earlier.write.n && later.write.row <= earlier.write.row &&
           later.write.row + later.write.n >= earlier.write.row + earlier.write.n;
  if (r.superseded == Superseded::BySgprWrite)
    return earlier.swrite.any() && (earlier.swrite.lo & ~later.swrite.lo) == 0 && (earlier.swrite.hi & ~later.swrite.hi) == 0;
  return false;
}

namespace {

// Whether the hit of `q`'s rule on consumer `c` is superseded: every register of q's result that
// the consumer touches (VGPRs) or reads (scalar registers) was written by a later ring entry that
// produces the same rule (HazardRule::superseded).
bool superseded_in_ring(const HazardState& s, const HazardState::Producer& q, const HazardRule& r,
                        const HazardInfo& c, const Program& p) {
  if (r.superseded == Superseded::Never) return false;
  const auto bit = static_cast<std::size_t>(&r - hazard_rules().data());
  const HazardInfo& e = p.hazards[q.index];
  if (r.superseded == Superseded::ByVgprWrite) {
    if (!e.write.n || e.write.n > 64) return false;
    std::uint64_t rows = 0;  // bit k: row e.write.row + k, touched by the consumer
    for (unsigned k = 0; k < e.write.n; ++k) {
      const VRange one{static_cast<std::uint16_t>(e.write.row + k), 1};
      bool t = c.write.n && one.row >= c.write.row && one.row < c.write.row + c.write.n;
      for (int i = 0; i < c.nreads && !t; ++i) t = one.row >= c.reads[i].row && one.row < c.reads[i].row + c.reads[i].n;
      if (t) rows |= std::uint64_t{1} << k;
    }
    for (const auto& l : s.ring) {
      if (!l.window || l.clock <= q.clock || !((l.produces >> bit) & 1)) continue;
      const VRange w = p.hazards[l.index].write;
      for (unsigned k = 0; k < e.write.n; ++k)
        if (e.write.row + k >= w.row && e.write.row + k < std::uint32_t{w.row} + w.n) rows &= ~(std::uint64_t{1} << k);
    }
    return rows == 0;
  }
  SMask left{e.swrite.lo & c.sread.lo, e.swrite.hi & c.sread.hi};
  if (c.lane_select != 0xffff && r.id == "valu-sgpr-lane-select") left = SMask::of(c.lane_select, 1);
  if (c.roles & (HazardInfo::kReadsM0 | HazardInfo::kM0LdsLoad)) left.add(kM0, 1);  // an implicit read
  left.lo &= e.swrite.lo, left.hi &= e.swrite.hi;
  if (!left.any()) return false;
  for (const auto& l : s.ring) {
    if (!l.window || l.clock <= q.clock || !((l.produces >> bit) & 1)) continue;
    left.lo &= ~p.hazards[l.index].swrite.lo;
    left.hi &= ~p.hazards[l.index].swrite.hi;
  }
  return !left.any();
}

}  // namespace

void collect_hazards(const HazardState& s, const HazardInfo& h, const Program& p, std::vector<HazardEvent>& out) {
  out.clear();
  const std::uint64_t c = s.clock;
  thread_local std::vector<HazardHit> hits;
  for (const auto& q : s.ring) {
    if (!(q.produces & h.consumes) || c - q.clock - 1 >= q.window) continue;
    const int present = static_cast<int>(c - q.clock - 1);
    hits.clear();
    hazard_hits(p.hazards[q.index], h, present, p.accum_offset, hits);
    for (auto& hit : hits)
      if (!superseded_in_ring(s, q, *hit.rule, h, p)) out.push_back(HazardEvent{q.index, q.clock, present, std::move(hit)});
  }
}

std::string hazard_message(const HazardEvent& e, const Program& p) {
  const HazardHit& hit = e.hit;
  return "hazard: " + std::string(hit.rule->what) + (hit.reg.empty() ? "" : " (" + hit.reg + ")") + " " +
         std::to_string(e.present) + " wait states after '" + p.text[e.producer] + "' at pc " +
         hex(p.insts[e.producer].address - p.code_entry) + "; gfx942 needs " + std::to_string(hit.need) +
         " (rule " + std::string(hit.rule->id) + ", " + hit.rule->source +
         "; on hardware the value would be stale or corrupt)";
}

void check_hazards(HazardState& s, const HazardInfo& h, const Program& p, std::uint32_t) {
  thread_local std::vector<HazardEvent> events;
  collect_hazards(s, h, p, events);
  // The first producer with a violation of a documented rule; of its rules, the one needing the
  // most wait states. LLVM-only rules never stop a run.
  const HazardEvent* worst = nullptr;
  for (const auto& e : events) {
    if (e.hit.rule->llvm_only()) continue;
    if (!worst || (e.producer_clock == worst->producer_clock && e.hit.need > worst->hit.need)) worst = &e;
  }
  if (worst) sim_fail(hazard_message(*worst, p));
}

}  // namespace cdna::simulator
