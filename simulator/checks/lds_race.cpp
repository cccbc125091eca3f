#include "simulator/checks/lds_race.hpp"

#include <algorithm>
#include <bit>

#include "simulator/state/wave.hpp"
#include "simulator/state/kernel_fault.hpp"

namespace cdna::simulator {
namespace {

const char* verb(LdsAccess k) {
  switch (k) {
    case LdsAccess::Read: return "read";
    case LdsAccess::Write: return "write";
    case LdsAccess::Atomic: return "atomic";
  }
  return "?";
}

std::string at(const Program& p, std::uint32_t index) {
  return index == kNoPc ? std::string("at a pc not recovered") : "at " + p.where(index);
}

// Fills the message (and pcs, instructions) of `r` from instruction indices `pc`/`other_pc`.
void describe_race(const Program& p, LdsRace& r, std::uint32_t pc, std::uint32_t other_pc) {
  auto offset = [&](std::uint32_t i) {
    return i < p.insts.size() ? static_cast<std::uint32_t>(p.insts[i].address - p.code_entry) : kNoPc;
  };
  r.kernel = p.kernel;
  r.pc = offset(pc);
  r.other_pc = offset(other_pc);
  r.inst = pc < p.text.size() ? p.text[pc] : "";
  r.other_inst = other_pc < p.text.size() ? p.text[other_pc] : "";
  r.message = "kernel '" + p.kernel + "' (code object '" + p.code_object + "') workgroup (" + std::to_string(r.workgroup[0]) + "," +
              std::to_string(r.workgroup[1]) + "," + std::to_string(r.workgroup[2]) + "): LDS race at LDS address " +
              hex(r.address) + ": the " + verb(r.access) + " by wave " + std::to_string(r.wave) + " " + at(p, pc) +
              " and the " + verb(r.other_access) + " by wave " + std::to_string(r.other_wave) + " " +
              at(p, other_pc) + " with no s_barrier between them (both waves had passed " +
              std::to_string(r.barriers) +
              " s_barriers; simulator/README.md \"LDS races\"; SchedulerOptions::lds_races, --lds-races report|off)";
}

bool same_site(const LdsRace& a, const LdsRace& b) {
  return a.workgroup == b.workgroup && a.barriers == b.barriers && a.address == b.address && a.wave == b.wave &&
         a.other_wave == b.other_wave && a.access == b.access && a.other_access == b.other_access;
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
  return r.message + " (" + std::to_string(r.count) + (r.count == 1 ? " racing byte)" : " racing bytes)");
}

void LdsRaceLog::add(LdsRace r) {
  const auto key = std::make_tuple(r.kernel, r.pc, r.other_pc, static_cast<int>(r.access),
                                   static_cast<int>(r.other_access));
  auto [it, fresh] = index_.try_emplace(key, races_.size());
  if (fresh) races_.push_back(std::move(r));
  else races_[it->second].count += r.count;
}

LdsShadow::LdsShadow(std::uint32_t lds_bytes, std::uint32_t waves)
    : waves_(waves), words_((lds_bytes + 63) / 64 + 1), bits_(std::size_t{3} * waves * words_, 0),
      lo_(~0ull), hi_(0) {}

void LdsShadow::end_interval(std::vector<LdsRace>& out) {
  if (lo_ >= hi_) return;
  const std::size_t stride = std::size_t{waves_} * words_;  // from one kind to the next
  const std::uint64_t* R = bits_.data();
  const std::uint64_t* W = R + stride;
  const std::uint64_t* A = W + stride;
  // Per pair of (wave, other wave, kinds) only the first racing byte, with the count of bytes.
  // An interval with reads only has no race (e.g. the reads of data staged before a barrier).
  const std::size_t first = out.size();
  const bool writes = (used_ & ~(1u << static_cast<std::uint32_t>(LdsAccess::Read))) != 0;
  for (std::uint64_t w = writes ? lo_ : hi_; w < hi_; ++w) {
    std::uint64_t ur = 0, uw = 0, ua = 0;  // union over the waves before `i`
    for (std::uint32_t i = 0; i < waves_; ++i) {
      const std::size_t x = std::size_t{i} * words_ + w;
      const std::uint64_t r = R[x], wr = W[x], a = A[x];
      if (((wr & (ur | uw | ua)) | (r & (uw | ua)) | (a & (ur | uw))) != 0) [[unlikely]] {
        // Which earlier wave and kinds: a conflicting pair per kind of wave i.
        for (std::uint32_t j = 0; j < i; ++j) {
          const std::size_t y = std::size_t{j} * words_ + w;
          const std::uint64_t pairs[][3] = {{wr & W[y], 1, 1}, {wr & R[y], 1, 0}, {wr & A[y], 1, 2},
                                            {r & W[y], 0, 1},  {r & A[y], 0, 2},  {a & R[y], 2, 0},
                                            {a & W[y], 2, 1}};
          for (const auto& p : pairs) {
            if (!p[0]) continue;
            LdsRace race;
            race.wave = i;
            race.other_wave = j;
            race.access = static_cast<LdsAccess>(p[1]);
            race.other_access = static_cast<LdsAccess>(p[2]);
            race.address = static_cast<std::uint32_t>(64 * w + static_cast<std::uint64_t>(std::countr_zero(p[0])));
            race.count = static_cast<std::uint64_t>(std::popcount(p[0]));
            auto known = std::find_if(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(), [&](const LdsRace& o) {
              return o.wave == i && o.other_wave == j && o.access == race.access && o.other_access == race.other_access;
            });
            if (known == out.end()) out.push_back(race);
            else known->count += race.count;
          }
        }
      }
      ur |= r;
      uw |= wr;
      ua |= a;
    }
  }
  for (std::uint32_t k = 0; k < 3; ++k)
    for (std::uint32_t i = 0; i < waves_ && ((used_ >> k) & 1); ++i)
      std::fill(bits_.begin() + static_cast<std::ptrdiff_t>(k * stride + std::size_t{i} * words_ + lo_),
                bits_.begin() + static_cast<std::ptrdiff_t>(k * stride + std::size_t{i} * words_ + hi_), 0ull);
  lo_ = ~0ull;
  hi_ = 0;
  used_ = 0;
}

void watch_lds_access(Wave& w, std::uint64_t addr, std::uint32_t n, LdsAccess kind) {
  for (LdsWatch& watch : *w.env->lds_watches) {
    LdsRace& r = watch.race;
    if (r.workgroup != w.wg->id || r.barriers != w.wg->barriers || r.address < addr || r.address >= addr + n)
      continue;
    // The first access of the interval to the byte by each side (either serves the message).
    if (w.index_in_group == r.wave && kind == r.access && r.pc == kNoPc) r.pc = w.pc - 1;
    if (w.index_in_group == r.other_wave && kind == r.other_access && r.other_pc == kNoPc) r.other_pc = w.pc - 1;
  }
}

void end_lds_interval(DispatchEnv& env, Workgroup& wg) {
  std::vector<LdsRace> found;
  wg.lds_shadow->end_interval(found);
  for (LdsRace& r : found) {
    r.workgroup = wg.id;
    r.barriers = wg.barriers;
    const LdsWatch* watch = nullptr;
    if (env.lds_watches)
      for (const LdsWatch& x : *env.lds_watches)
        if (same_site(x.race, r)) watch = &x;
    describe_race(*env.program, r, watch ? watch->race.pc : kNoPc, watch ? watch->race.other_pc : kNoPc);
    // First run under Error: the executor runs the dispatch again to recover the pcs.
    if (!env.lds_watches && env.lds_races == LdsRaces::Error) throw LdsRaceFound(r);
    if (env.lds_races == LdsRaces::Report) env.lds_race_log->push_back(r);
    if (env.lds_races == LdsRaces::Error) throw KernelFault("simulator: " + r.message);
  }
}

}  // namespace cdna::simulator
