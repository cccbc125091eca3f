#include "simulator/hazard.hpp"

#include <algorithm>

#include "simulator/wave.hpp"

namespace cdna::simulator {
namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

VRange range(const Operand& o) {
  if (o.kind != OperandKind::Vreg) return {};
  return VRange{o.reg, o.width};
}

bool overlaps(VRange a, VRange b) {
  return a.n && b.n && a.row < b.row + b.n && b.row < a.row + a.n;
}

// Register name of a unified-file range: v[..] below ACCUM_OFFSET, a[..] above.
std::string name(VRange r, std::uint32_t accum) {
  char prefix = r.row >= accum ? 'a' : 'v';
  std::uint32_t first = r.row >= accum ? r.row - accum : r.row;
  if (r.n == 1) return prefix + std::to_string(first);
  return std::string(1, prefix) + "[" + std::to_string(first) + ":" + std::to_string(first + r.n - 1) + "]";
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

}  // namespace

namespace {
// MFMA passes (LLVM SISchedule.td, gfx940: cycles / 4) with kSgemm set for the f32 ("SGEMM")
// MFMAs, whose wait-state table differs (cdna3-facts.md §5). The f64 ("DGEMM") MFMAs are checked
// with the XDL numbers of the same pass count (LLVM has separate, slightly smaller DGEMM values
// for some rules: the check is at least as strict as the hardware needs).
constexpr std::uint8_t kSgemm = 0x80;
std::uint8_t mfma_passes(std::string_view m) {
  auto has = [&](std::string_view s) { return m.find(s) != std::string_view::npos; };
  const bool sgemm = m.ends_with("_f32") && !m.starts_with("v_mfma_f64");
  std::uint8_t p;
  if (has("_4x4x")) p = has("_f64") ? 4 : 2;
  else if (has("_2b_") || (sgemm && has("32x32"))) p = 16;
  else if (has("_4b_") || (sgemm && has("16x16")) || has("_f64")) p = 8;
  else if (has("32x32")) p = 8;
  else p = 4;
  return static_cast<std::uint8_t>(p | (sgemm ? kSgemm : 0));
}
// Wait states for (XDL, SGEMM) at 2/4/8/16 passes.
int need_for(std::uint8_t passes, const int (&xdl)[4], const int (&sgemm)[4]) {
  const int p = passes & 0x7f;
  const int idx = p <= 2 ? 0 : p <= 4 ? 1 : p <= 8 ? 2 : 3;
  return (passes & kSgemm) ? sgemm[idx] : xdl[idx];
}
}  // namespace

HazardInfo classify_hazards(const Inst& I) {
  HazardInfo h;
  std::string_view m = mnemonic(I.op);
  if (I.op == Opcode::s_nop) {
    h.wait_states = static_cast<std::uint8_t>(std::clamp(I.simm, 0, 15) + 1);
    return h;
  }
  if (I.op == Opcode::kUnsupported) return h;
  auto add_read = [&](const Operand& o) {
    VRange r = range(o);
    if (r.n && h.nreads < 5) h.reads[h.nreads++] = r;
  };
  if (starts_with(m, "v_mfma_")) {
    h.kind = HazardInfo::Kind::Mfma;
    h.passes = mfma_passes(m);
    h.write = range(I.ops[0]);
    h.reads[0] = range(I.ops[1]);
    h.reads[1] = range(I.ops[2]);
    h.reads[2] = range(I.ops[3]);
    h.nreads = 3;
    return h;
  }
  if (starts_with(m, "v_smfmac_")) {
    // LLVM (VOP3PInstructions.td, GCNHazardRecognizer::checkMAIHazards90A): the accumulator is
    // src2, tied to vdst, so SrcC is the D registers; the index VGPR is an ordinary source and
    // gets the SrcA/SrcB rules (reads[3]). XDL, 4 passes (16x16) or 8 (32x32) as the dense MFMA
    // of the same cycle count.
    h.kind = HazardInfo::Kind::Mfma;
    h.passes = mfma_passes(m);
    h.write = range(I.ops[0]);
    h.reads[0] = range(I.ops[1]);
    h.reads[1] = range(I.ops[2]);
    h.reads[2] = range(I.ops[0]);
    h.reads[3] = range(I.ops[3]);
    h.nreads = 4;
    return h;
  }
  if (starts_with(m, "v_")) {
    h.kind = HazardInfo::Kind::Valu;
    h.writes_exec = starts_with(m, "v_cmpx_");
    h.reads_vcc_fmas = I.op == Opcode::v_div_fmas_f32 || I.op == Opcode::v_div_fmas_f64;
    if (I.nops == 0) return h;
    auto is_vcc = [](const Operand& o) {
      return o.kind == OperandKind::Sreg && (o.reg == kVccLo || o.reg == kVccHi || (o.width == 2 && o.reg + 1 == kVccLo));
    };
    // VCC as the destination (compares, readlane) or as the carry-out of a two-destination op.
    h.writes_vcc = is_vcc(I.ops[0]) || (I.src0 == 2 && I.nops > 1 && is_vcc(I.ops[1]));
    // The first operand is the destination (an SGPR for compares and readlane: no VGPR write).
    // Accumulating forms and v_writelane also read it; v_swap writes both operands (the second
    // is listed as a read, which the rules treat alike for MFMA results).
    h.write = range(I.ops[0]);
    if (m == "v_writelane_b32" || m == "v_fmac_f32" || m == "v_fmac_f64" || m == "v_mac_f32" ||
        m == "v_swap_b32")
      add_read(I.ops[0]);
    for (int i = 1; i < I.nops; ++i) add_read(I.ops[i]);
    return h;
  }
  bool vmem = starts_with(m, "global_") || starts_with(m, "flat_") || starts_with(m, "scratch_") ||
              starts_with(m, "buffer_") || starts_with(m, "tbuffer_");
  bool lds = starts_with(m, "ds_");
  if (vmem || lds) {
    h.kind = vmem ? HazardInfo::Kind::Vmem : HazardInfo::Kind::Lds;
    int first = 0;
    if (I.nops > 0 && vmem_or_ds_writes_first(m, I)) {
      h.write = range(I.ops[0]);
      first = starts_with(m, "buffer_atomic_") ? 0 : 1;  // a returning buffer atomic reads it too
    }
    for (int i = first; i < I.nops; ++i) add_read(I.ops[i]);
  }
  return h;
}

void check_hazards(HazardState& s, const HazardInfo& h, const Program& p, std::uint32_t) {
  using K = HazardInfo::Kind;
  const std::uint64_t c = s.clock;
  auto name = [&](VRange r) { return cdna::simulator::name(r, p.accum_offset); };
  auto fail = [&](const std::string& what, std::uint32_t producer, std::uint64_t ws, int need) {
    sim_fail("hazard: " + what + " " + std::to_string(ws) + " wait states after '" +
             p.text[producer] + "' at pc " + hex(p.insts[producer].address - p.code_entry) +
             "; gfx942 needs " + std::to_string(need) +
             " (cdna3-facts.md §5; on hardware the value would be stale or corrupt)");
  };
  // Producers: MFMAs within the last 20 wait states.
  for (const auto& m : s.mfma) {
    if (m.passes == 0 || c - m.clock - 1 >= 20) continue;
    const std::uint64_t ws = c - m.clock - 1;
    const int need_result = need_for(m.passes, {5, 7, 11, 19}, {4, 6, 10, 18});
    if (h.kind == K::Valu || h.kind == K::Vmem || h.kind == K::Lds) {
      bool touches = false;
      for (int i = 0; i < h.nreads; ++i) touches |= overlaps(h.reads[i], m.d);
      if (h.kind == K::Valu) touches |= overlaps(h.write, m.d);
      if (touches && ws < static_cast<std::uint64_t>(need_result))
        fail(std::string(h.kind == K::Valu ? "VALU" : h.kind == K::Vmem ? "VMEM" : "LDS") +
                 " access of the MFMA result (" + name(m.d) + ")",
             m.index, ws, need_result);
      const int need_war = need_for(m.passes, {1, 3, 7, 15}, {0, 0, 0, 0});
      if (h.kind == K::Valu && overlaps(h.write, m.c) && ws < static_cast<std::uint64_t>(need_war))
        fail("VALU overwrite of the MFMA's SrcC (" + name(m.c) + ")", m.index, ws, need_war);
    } else if (h.kind == K::Mfma) {
      for (int i = 0; i < h.nreads; ++i)  // SrcA, SrcB and (v_smfmac) the index: not SrcC
        if (i != 2 && overlaps(h.reads[i], m.d) && ws < static_cast<std::uint64_t>(need_result))
          fail(std::string(i == 3 ? "v_smfmac index" : "MFMA SrcA/SrcB") +
                   " read of the MFMA result (" + name(m.d) + ")",
               m.index, ws, need_result);
      const VRange cc = h.reads[2];
      const bool same = cc.row == m.d.row && cc.n == m.d.n;
      if (overlaps(cc, m.d) && same && (m.passes & 0x7f) == 2 && ws < 2)
        fail("MFMA SrcC reading the result of a 2-pass MFMA (" + name(m.d) + ")", m.index, ws, 2);
      if (overlaps(cc, m.d) && !same) {
        const int need_partial = need_for(m.passes, {3, 5, 9, 17}, {2, 4, 8, 16});
        if (ws < static_cast<std::uint64_t>(need_partial))
          fail("MFMA SrcC partially overlapping the MFMA result (" + name(m.d) + ")", m.index, ws,
               need_partial);
      }
    }
  }
  if (h.reads_vcc_fmas && s.vcc_clock && c - s.vcc_clock - 1 < 4)
    fail("v_div_fmas read of VCC", s.vcc_index, c - s.vcc_clock - 1, 4);
  if (h.kind == K::Mfma) {
    for (const auto& v : s.valu) {
      if (v.w.n == 0 || c - v.clock - 1 >= 2) continue;
      for (int i = 0; i < h.nreads; ++i)
        if (overlaps(h.reads[i], v.w)) fail("MFMA read of a VALU result (" + name(v.w) + ")", v.index, c - v.clock - 1, 2);
    }
    if (s.exec_clock && c - s.exec_clock - 1 < 4)
      fail("MFMA after a VALU write of EXEC", s.exec_index, c - s.exec_clock - 1, 4);
  }
}

}  // namespace cdna::simulator
