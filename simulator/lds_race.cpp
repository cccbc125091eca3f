#include "simulator/lds_race.hpp"

#include <bit>

#include "simulator/wave.hpp"

namespace cdna::simulator {
namespace {

constexpr std::uint64_t kEveryWave = 0x1111'1111'1111'1111ull;  // bit 4w of each wave w

const char* verb(LdsAccess k) {
  switch (k) {
    case LdsAccess::Read: return "read";
    case LdsAccess::Write: return "write";
    case LdsAccess::Atomic: return "atomic";
  }
  return "?";
}

// The kinds an access of kind `k` conflicts with: reads with writes and atomics, writes with
// everything, atomics with reads and plain writes (two atomics never race).
constexpr bool conflicts(LdsAccess k, int other) {
  switch (k) {
    case LdsAccess::Read: return other != static_cast<int>(LdsAccess::Read);
    case LdsAccess::Write: return true;
    case LdsAccess::Atomic: return other != static_cast<int>(LdsAccess::Atomic);
  }
  return false;
}

std::uint32_t code_offset(const Program& p, std::uint32_t index) {
  return index < p.insts.size() ? static_cast<std::uint32_t>(p.insts[index].address - p.code_entry) : 0;
}

[[gnu::cold]] void race(Wave& w, const LdsShadowWord& s, std::uint64_t word_addr, std::uint32_t bytes,
                        LdsAccess kind, int other_kind, std::uint64_t hit) {
  const Program& p = *w.env->program;
  // The other wave: one whose accesses conflict; prefer a wave whose pc the shadow kept.
  int slot = -1;
  std::uint32_t other = static_cast<std::uint32_t>(std::countr_zero(hit)) / 4;
  for (int i = 0; i < 2 && slot < 0; ++i) {
    const std::uint32_t v = s.wave[other_kind][i];
    if (v != w.index_in_group && ((hit >> (4 * v)) & 0xfu)) {
      slot = i;
      other = v;
    }
  }
  std::uint32_t hit_bytes = 0;
  for (std::uint64_t h = hit; h; h >>= 4) hit_bytes |= static_cast<std::uint32_t>(h & 0xfu);
  hit_bytes &= bytes;

  LdsRace r;
  r.workgroup = w.wg->id;
  r.wave = w.index_in_group;
  r.other_wave = other;
  const std::uint32_t me = w.pc - 1;
  r.pc = code_offset(p, me);
  r.inst = me < p.text.size() ? p.text[me] : "";
  r.access = kind;
  r.other_access = static_cast<LdsAccess>(other_kind);
  r.address = static_cast<std::uint32_t>(word_addr) + static_cast<std::uint32_t>(std::countr_zero(hit_bytes));
  r.barriers = w.wg->barriers;
  r.count = 1;
  std::string other_where = "at a pc the shadow did not keep";
  if (slot >= 0) {
    const std::uint32_t oi = s.pc[other_kind][slot];
    r.other_pc = code_offset(p, oi);
    r.other_inst = oi < p.text.size() ? p.text[oi] : "";
    other_where = "at " + p.where(oi);
  }
  const std::string what = std::string("LDS race at LDS address ") + hex(r.address) + ": this " + verb(kind) +
                           " and the " + verb(r.other_access) + " by wave " + std::to_string(other) + " " +
                           other_where + " with no s_barrier between them (both waves had passed " +
                           std::to_string(r.barriers) +
                           " s_barriers; simulator/README.md \"LDS races\"; SchedulerOptions::lds_races, "
                           "--lds-races report|off)";
  if (w.env->lds_races == LdsRaces::Error || !w.env->lds_race_log) sim_fail(what);  // the scheduler adds where
  r.kernel = p.kernel;
  r.message = "kernel '" + p.kernel + "' workgroup (" + std::to_string(r.workgroup[0]) + "," +
              std::to_string(r.workgroup[1]) + "," + std::to_string(r.workgroup[2]) + ") wave " +
              std::to_string(r.wave) + ", " + p.where(me) + ": " + what;
  w.env->lds_race_log->add(std::move(r));
}

}  // namespace

const char* to_string(LdsRaces r) {
  switch (r) {
    case LdsRaces::Error: return "error";
    case LdsRaces::Report: return "report";
    case LdsRaces::Off: return "off";
  }
  return "?";
}

bool parse_lds_races(const std::string& text, LdsRaces& out) {
  for (LdsRaces r : {LdsRaces::Error, LdsRaces::Report, LdsRaces::Off})
    if (text == to_string(r)) {
      out = r;
      return true;
    }
  return false;
}

std::string describe(const LdsRace& r) {
  return r.message + " (" + std::to_string(r.count) + (r.count == 1 ? " time)" : " times: lanes x dwords)");
}

void LdsRaceLog::add(LdsRace r) {
  const auto key = std::make_tuple(r.kernel, r.pc, r.other_pc, static_cast<int>(r.access),
                                   static_cast<int>(r.other_access));
  auto [it, fresh] = index_.try_emplace(key, races_.size());
  if (fresh) races_.push_back(std::move(r));
  else races_[it->second].count += r.count;
}

void note_lds_access(Wave& w, std::uint64_t addr, std::uint32_t n, LdsAccess kind) {
  Workgroup& wg = *w.wg;
  const std::uint32_t me = w.index_in_group;
  const std::uint32_t pc = w.pc - 1;
  const int k = static_cast<int>(kind);
  const std::uint64_t others = ~(std::uint64_t{0xf} << (4 * me));
  const std::uint64_t end = addr + n;
  for (std::uint64_t a = addr & ~std::uint64_t{3}; a < end; a += 4) {
    const std::uint64_t lo = a < addr ? addr - a : 0, hi = end - a < 4 ? end - a : 4;
    const std::uint32_t bytes = ((1u << hi) - 1u) & ~((1u << lo) - 1u);
    LdsShadowWord& s = wg.lds_shadow[a >> 2];
    if (s.epoch != wg.lds_epoch) {  // a new interval: only the masks (the slots' pcs count only
      s.epoch = wg.lds_epoch;       // for waves with mask bits, and those rewrote their slot)
      s.mask[0] = s.mask[1] = s.mask[2] = 0;
    }
    const std::uint64_t mine = bytes * kEveryWave & others;
    for (int o = 0; o < 3; ++o)
      if (conflicts(kind, o))
        if (const std::uint64_t hit = s.mask[o] & mine) [[unlikely]] race(w, s, a, bytes, kind, o, hit);
    s.mask[k] |= std::uint64_t{bytes} << (4 * me);
    if (s.wave[k][0] != me) {  // slot 1: the last access by a wave other than slot 0's
      s.pc[k][1] = s.pc[k][0];
      s.wave[k][1] = s.wave[k][0];
      s.wave[k][0] = static_cast<std::uint8_t>(me);
    }
    s.pc[k][0] = pc;
  }
}

}  // namespace cdna::simulator
