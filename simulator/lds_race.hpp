// LDS race check (simulator/README.md "LDS races"): two accesses to the same LDS byte by
// different waves of a workgroup race when at least one writes, they are not both atomics, and
// no s_barrier lies between them. On gfx942 s_barrier is workgroup-wide (every wave that has
// not ended must reach it), so "no barrier between them" means both waves had passed the same
// number of barriers: the accesses lie in the same *barrier interval* (epoch). That is decided
// from the epochs alone, so a race is found whatever order the schedule ran the two accesses in.
//
// No other ordering is recognised: an LDS flag another wave spins on, s_waitcnt, atomics used
// as locks, or s_sleep do not order the data they guard (such kernels are misreported: run
// them with LdsRaces::Report). Accesses of one wave are in program order (DS operations of a
// wave complete in order, lgkmcnt), never a race.
//
// Shadow: one LdsShadowWord per LDS dword, stamped with the epoch it describes (a stale stamp
// reads as empty, so nothing is cleared at a barrier). Per access kind (read, plain write,
// atomic) a 64-bit mask holds bit 4 * wave + byte for every byte that wave accessed in the
// epoch (16 waves x 4 bytes: a workgroup has at most 1024 work-items = 16 wave64s), so the
// race decision is exact per byte; for the message each kind keeps the pc of its last access
// and of the last access by another wave.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace cdna::simulator {

struct Wave;

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

struct LdsRace;
// "<message> (N times)": one line for a report of `r`.
std::string describe(const LdsRace& r);

// Widest workgroup the shadow holds: 1024 work-items (the gfx942 limit) = 16 wave64s.
inline constexpr std::uint32_t kLdsRaceMaxWaves = 16;

struct LdsShadowWord {
  std::uint32_t epoch = 0;
  std::uint64_t mask[3] = {};       // per LdsAccess: bit 4 * wave + byte
  std::uint32_t pc[3][2] = {};      // per kind: last access, last access by another wave
  std::uint8_t wave[3][2] = {};
};

// One race (the first occurrence of a pair of instructions; `count` counts them all, one per
// lane and dword).
struct LdsRace {
  std::string kernel;
  std::array<std::uint32_t, 3> workgroup{};
  std::uint32_t wave = 0, other_wave = 0;
  std::uint32_t pc = 0, other_pc = 0;       // byte offsets from the kernel's code entry
  std::string inst, other_inst;             // disassembly; other_inst empty if not kept
  LdsAccess access = LdsAccess::Read, other_access = LdsAccess::Read;
  std::uint32_t address = 0;                // LDS byte address of the first racing byte
  std::uint32_t barriers = 0;               // s_barriers the workgroup had passed
  std::uint64_t count = 0;
  std::string message;  // one line: kernel, workgroup, wave, pc and both accesses, as the error says it
};

// Races (LdsRaces::Report), one entry per (kernel, pc, other pc, kinds), in the order found.
class LdsRaceLog {
 public:
  void add(LdsRace r);
  const std::vector<LdsRace>& races() const { return races_; }
  std::vector<LdsRace> take() { index_.clear(); return std::move(races_); }

 private:
  std::vector<LdsRace> races_;
  std::map<std::tuple<std::string, std::uint32_t, std::uint32_t, int, int>, std::size_t> index_;
};

// Records the access of `n` bytes at LDS byte address `addr` by the wave's current instruction
// (pc = w.pc - 1) and checks it against the other waves' accesses of the same epoch. Call only
// when w.wg->lds_shadow is set; the caller has checked the range. A race throws SimError
// (LdsRaces::Error) or goes to the dispatch's log.
void note_lds_access(Wave& w, std::uint64_t addr, std::uint32_t n, LdsAccess kind);

}  // namespace cdna::simulator
