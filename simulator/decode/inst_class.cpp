#include "simulator/decode/inst_class.hpp"

namespace cdna::simulator {

namespace {

bool has(std::string_view s, std::string_view p) { return s.find(p) != std::string_view::npos; }
bool starts(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Bytes of one access from the mnemonic's data-size suffix.
std::uint8_t access_bytes(std::string_view m) {
  if (has(m, "dwordx4") || has(m, "b128")) return 16;
  if (has(m, "dwordx3") || has(m, "b96")) return 12;
  if (has(m, "dwordx2") || has(m, "b64") || has(m, "_x2") || has(m, "u64") || has(m, "i64") ||
      has(m, "f64"))
    return 8;
  if (has(m, "byte") || has(m, "u8") || has(m, "i8") || has(m, "b8")) return 1;
  if (has(m, "short") || has(m, "u16") || has(m, "i16") || has(m, "b16") || has(m, "f16") ||
      has(m, "bf16"))
    return has(m, "pk_") ? 4 : 2;
  return 4;
}

}  // namespace

namespace {
thread_local InstStats* t_stats = nullptr;
}  // namespace

InstStats* current_inst_stats() { return t_stats; }
InstStatsScope::InstStatsScope(InstStats& s) : previous_(t_stats) { t_stats = &s; }
InstStatsScope::~InstStatsScope() { t_stats = previous_; }

std::string_view inst_class_name(InstClass c) {
  switch (c) {
    case InstClass::Salu: return "SALU";
    case InstClass::Smem: return "SMEM";
    case InstClass::Valu: return "VALU";
    case InstClass::Vmem: return "VMEM";
    case InstClass::Lds: return "LDS";
    case InstClass::Mfma: return "MFMA";
    default: return "branch/other";
  }
}

InstFootprint classify_instruction(std::string_view text) {
  const std::size_t sp = text.find_first_of(" \t");
  const std::string_view m = text.substr(0, sp);
  InstFootprint f;
  if (starts(m, "v_mfma") || starts(m, "v_smfmac")) {
    f.cls = InstClass::Mfma;
  } else if (starts(m, "v_")) {
    f.cls = InstClass::Valu;
  } else if (starts(m, "s_load") || starts(m, "s_buffer_") || starts(m, "s_store") ||
             starts(m, "s_scratch_") || starts(m, "s_dcache") || starts(m, "s_atomic") ||
             starts(m, "s_memtime") || starts(m, "s_memrealtime") || starts(m, "s_atc_probe")) {
    f.cls = InstClass::Smem;
  } else if (starts(m, "s_branch") || starts(m, "s_cbranch") || starts(m, "s_endpgm") ||
             starts(m, "s_barrier") || starts(m, "s_waitcnt") || starts(m, "s_nop") ||
             starts(m, "s_sleep") || starts(m, "s_setprio") || starts(m, "s_trap") ||
             starts(m, "s_sendmsg") || starts(m, "s_icache") || starts(m, "s_setpc") ||
             starts(m, "s_swappc") || starts(m, "s_sethalt") || starts(m, "s_setkill") ||
             starts(m, "s_call") || starts(m, "s_wakeup")) {
    f.cls = InstClass::Other;
  } else if (starts(m, "s_")) {
    f.cls = InstClass::Salu;
  } else if (starts(m, "global_") || starts(m, "flat_") || starts(m, "buffer_") ||
             starts(m, "scratch_")) {
    f.cls = InstClass::Vmem;
    f.scratch = starts(m, "scratch_");
    const std::uint8_t b = access_bytes(m);
    if (has(m, "load")) f.read_per_lane = b;
    else if (has(m, "store")) f.write_per_lane = b;
    else if (has(m, "atomic")) f.read_per_lane = f.write_per_lane = b;
  } else if (starts(m, "ds_")) {
    f.cls = InstClass::Lds;
    if (has(m, "permute") || has(m, "swizzle") || has(m, "nop") || has(m, "append") ||
        has(m, "consume") || has(m, "gws"))
      return f;
    const std::uint8_t b = static_cast<std::uint8_t>(access_bytes(m) * (has(m, "2") && (has(m, "read2") || has(m, "write2") || has(m, "xchg2")) ? 2 : 1));
    if (starts(m, "ds_read") || starts(m, "ds_load")) f.read_per_lane = b;
    else if (starts(m, "ds_write") || starts(m, "ds_store")) f.write_per_lane = b;
    else f.read_per_lane = f.write_per_lane = b;
  }
  return f;
}

}  // namespace cdna::simulator
