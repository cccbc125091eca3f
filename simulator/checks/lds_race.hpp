// LDS race check (simulator/README.md "LDS races"): two accesses to the same LDS byte by
// different waves of a workgroup race when at least one writes, they are not both atomics, and
// no s_barrier lies between them. On gfx942 s_barrier is workgroup-wide (every wave that has
// not ended must reach it), so "no barrier between them" means both waves had passed the same
// number of barriers: the accesses lie in the same *barrier interval*. That is decided per
// interval, so a race is found whatever order the schedule ran the two accesses in.
//
// No other ordering is recognised: an LDS flag another wave spins on, s_waitcnt, atomics used
// as locks, or s_sleep do not order the data they guard (such kernels are misreported: run
// them with LdsRaces::Report). Accesses of one wave are in program order (DS operations of a
// wave complete in order, lgkmcnt), never a race.
//
// Cost: each access sets bits in its wave's bitmap of the kind (read, plain write, atomic; one
// bit per LDS byte); at the end of an interval (barrier release, workgroup end) the bitmaps of
// the bytes touched in it are intersected across waves and cleared. The pcs of a race are not
// kept on the way: the executor runs the dispatch again (the simulation is deterministic) with a
// watch on the racing byte that records them (LdsWatch), so a race-free run pays for bits only.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace cdna::simulator {

struct Wave;
struct Workgroup;
struct DispatchEnv;

// What the check does with a race (SchedulerOptions::lds_races, `--lds-races`).
enum class LdsRaces : std::uint8_t {
  Error,   // stop the run with an error naming both accesses (default)
  Report,  // record it (SimulatorExecutor::last_lds_races()) and go on
  Off,     // no shadow, no check
};
// "error", "report", "off"; the parse returns false for any other text.
const char* to_string(LdsRaces r);
bool parse_lds_races(const std::string& text, LdsRaces& out);

enum class LdsAccess : std::uint8_t { Read, Write, Atomic };

inline constexpr std::uint32_t kNoPc = ~0u;

// One race: the first racing byte of a pair of accesses in one barrier interval.
struct LdsRace {
  std::string kernel;
  std::array<std::uint32_t, 3> workgroup{};
  std::uint32_t barriers = 0;               // s_barriers the workgroup had passed
  std::uint32_t address = 0;                // LDS byte address
  std::uint32_t wave = 0, other_wave = 0;   // other_wave < wave
  LdsAccess access = LdsAccess::Read, other_access = LdsAccess::Read;
  std::uint32_t pc = kNoPc, other_pc = kNoPc;  // byte offsets from the code entry (kNoPc: unknown)
  std::string inst, other_inst;             // disassembly
  std::uint64_t count = 1;                  // racing bytes of this pair of instructions
  std::string message;  // one line: kernel, workgroup, both waves, pcs, instructions, address
};
// "<message> (N racing bytes)": one line for a report of `r`.
std::string describe(const LdsRace& r);

// Races in the order found, one entry per (kernel, pc, other pc, kinds).
class LdsRaceLog {
 public:
  void add(LdsRace r);
  const std::vector<LdsRace>& races() const { return races_; }
  void clear() { races_.clear(); index_.clear(); }

 private:
  std::vector<LdsRace> races_;
  std::map<std::tuple<std::string, std::uint32_t, std::uint32_t, int, int>, std::size_t> index_;
};

// A race found without its pcs: the executor runs the dispatch again with a watch on it.
class LdsRaceFound : public std::runtime_error {
 public:
  LdsRaceFound(const LdsRace& r) : std::runtime_error("LDS race (pcs being recovered)"), race(r) {}
  LdsRace race;
};

// Records the pcs of the accesses of a race (the dispatch's second run).
struct LdsWatch {
  LdsRace race;  // workgroup, barriers, address, waves and kinds to watch; pc and other_pc
                 // receive instruction indices (kNoPc until seen)
};

// Per-workgroup bitmaps: for each wave and kind, one bit per LDS byte accessed in the current
// barrier interval, and the range of 64-byte words touched.
class LdsShadow {
 public:
  LdsShadow(std::uint32_t lds_bytes, std::uint32_t waves);
  void mark(std::uint32_t wave, std::uint64_t addr, std::uint32_t n, LdsAccess kind) {
    std::uint64_t* b = bits_.data() + (std::size_t{static_cast<std::uint32_t>(kind)} * waves_ + wave) * words_;
    const std::uint64_t w = addr >> 6, off = addr & 63;
    const std::uint64_t ones = n >= 64 ? ~0ull : (1ull << n) - 1;  // n <= 16 for every DS access
    b[w] |= ones << off;
    const bool spill = off + n > 64;
    if (spill) b[w + 1] |= ones >> (64 - off);
    used_ |= 1u << static_cast<std::uint32_t>(kind);
    if (w < lo_) lo_ = w;
    if (w + spill >= hi_) hi_ = w + spill + 1;
  }
  // Appends the first racing byte of each pair of (wave, kind) of the interval to `out` and
  // clears the bitmaps for the next interval.
  void end_interval(std::vector<LdsRace>& out);

 private:
  std::uint32_t waves_, words_;
  std::vector<std::uint64_t> bits_;  // [kind][wave][word], one word of padding at the end
  std::uint64_t lo_, hi_;            // words touched in the interval: [lo_, hi_)
  std::uint32_t used_ = 0;           // kinds accessed in the interval (bit per LdsAccess)
};

// note_lds_access(Wave&, addr, n, kind) (wave.hpp, inline): records an access of `n` bytes at
// LDS byte address `addr` by the wave's current instruction; call only when w.wg->lds_shadow is
// set and the range is checked.
// The end of a barrier interval of `wg` (barrier release, workgroup end): checks it. A race is
// thrown (LdsRaces::Error: the full error if a watch knows its pcs, else LdsRaceFound) or logged.
void end_lds_interval(DispatchEnv& env, Workgroup& wg);

}  // namespace cdna::simulator
