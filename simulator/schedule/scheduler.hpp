// Scheduler: creates the waves of each workgroup with their initial state (cdna3-facts.md §3)
// and runs them. All workgroups of a dispatch are resident at once (up to
// max_resident_workgroups; later ones are admitted, in grid order, as earlier ones end) and
// their waves are interleaved: each round gives every running wave one turn of at most
// `quantum` instructions. A turn also ends at s_sleep, at a taken backward branch and at
// s_barrier, so a wave spinning on another workgroup's flag lets the others run. Waves of a
// workgroup meet at s_barrier; global memory is shared, LDS is per workgroup.
//
// Schedule::Random visits the running waves of each round in a seeded random order with a
// random turn length in [1, quantum]: order-dependent kernels give different results under
// different seeds; a given seed always gives the same interleaving.
//
// Progress watchdog: a round makes progress if some wave stored to global memory, ended, or
// passed a barrier. After `hang_rounds` rounds without progress the LDS of every resident
// workgroup is hashed; after another `hang_rounds` such rounds with the same LDS the dispatch
// is declared hung. A wave that only computes in registers for more than `hang_rounds` of its
// turns (loop iterations) is therefore reported as hung: raise hang_rounds for such kernels.
// Errors from the watchdog and the instruction limits list every live wave's pc; once the
// watchdog suspects a hang it records the waves' global loads (simulator/checks/watchdog.hpp), and its
// error names, for each wave, the buffer element it polls and the value it keeps reading.
//
// Parallel dispatch (SchedulerOptions::threads, simulator/schedule/parallel.hpp): unless the
// options need the serial scheduler (Random, memory model, hazard monitor, poison, reported LDS
// races), the workgroups first run each alone on a pool of threads, every access to a writable
// buffer logged; if no workgroup loaded or stored bytes another stored, and none failed, hit a
// limit or waited hang_rounds rounds without progress, that run is the result (the same bits as
// the serial scheduler: each workgroup saw the same memory and ran the same turns). Otherwise
// the writable buffers get their contents from before the dispatch back and the serial
// scheduler runs it; its errors and hang reports are exactly today's. RunCounters::parallel says
// which happened.
//
// Workgroups are placed on CUs and XCDs as on MI300X (checks/memory_model.hpp: cu_of_workgroup); this
// matters only in the memory-model mode (SchedulerOptions::memory_model).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "simulator/decode/code_object.hpp"
#include "simulator/checks/hazard_policy.hpp"
#include "simulator/checks/memory_model.hpp"
#include "simulator/state/wave.hpp"

namespace cdna::simulator {

enum class Schedule : std::uint8_t { RoundRobin, Random };

struct SchedulerOptions {
  std::uint32_t quantum = 64;                           // instructions per wave turn
  std::uint64_t max_wave_instructions = 1ull << 30;     // per wave: beyond this it is hung
  bool check_hazards = true;                            // simulator/checks/hazard.hpp
  // What a violation does when check_hazards is on: stop the run (Error), be recorded (Report),
  // or be judged by a second run with the old values (Differential; simulator/checks/hazard_policy.hpp).
  HazardPolicy hazard_policy = HazardPolicy::Error;
  // Differential only: when a site changes the output (or cannot be judged), throw (true, the
  // default: nothing passes silently), or finish the run with the as-written outputs copied back
  // and the finding recorded in the executor's hazards (false: the audit, which fails the case
  // itself and still shows the figures of the as-written run).
  bool differential_throws = true;
  Schedule schedule = Schedule::RoundRobin;
  std::uint64_t seed = 0;                               // Schedule::Random
  // Workgroups resident at once. A kernel whose resident workgroups wait for one not yet
  // admitted deadlocks (reported by the watchdog), as on hardware with too few CUs. Waves'
  // register files are reserved lazily (untouched pages cost no memory).
  std::uint32_t max_resident_workgroups = 4096;
  std::uint64_t hang_rounds = 1u << 16;                 // watchdog window, in rounds
  std::uint64_t max_total_instructions = 1ull << 40;    // summed over all waves of a dispatch
  // Output buffers start as 0xff bytes (a NaN in every float format) instead of the host's
  // contents, and loading a byte of an output buffer the kernel has not stored is an error.
  bool poison = false;
  // Envelope mode of the transcendental unit (simulator/exec/transcendental.hpp): with a seed, each
  // v_exp/log/rcp/rsq/sqrt/sin/cos_f32 result is the round-down or the round-up of the exact
  // value (both within the documented 1 ULP), chosen by a hash of (seed, function, input) so
  // that the same input gives the same result within a run. Without (default): correctly
  // rounded to nearest even. Either way denormals are flushed afterwards.
  std::optional<std::uint64_t> transcendental_envelope;
  // LDS race check (simulator/checks/lds_race.hpp): two waves of a workgroup accessing the same LDS
  // byte in one barrier interval, one of them writing, not both atomically. Error (default)
  // stops the run naming both accesses; Report lists them (RunCounters::lds_races) and goes on.
  LdsRaces lds_races = LdsRaces::Error;
  // Memory-model mode (simulator/checks/memory_model.hpp): Coherent (default) is one coherent global
  // memory; Cdna3 puts gfx942's L1, L2 and scalar caches in between, as adversarial as the
  // memory model allows, so that a missing sc bit, buffer_wbl2 or buffer_inv fails here.
  MemoryModel memory_model = MemoryModel::Coherent;
  // Memory-model mode only: store latency chosen by a seeded adversary (simulator/README.md
  // "Store order", starvation). Each store instruction is held, with probability
  // 1/starve_one_in, for a seeded number of rounds in [1, starve_rounds] after the round it
  // issued in: younger stores of its wave are performed meanwhile; an s_waitcnt vmcnt that needs
  // it stalls its wave, and buffer_wbl2 or an access of the wave to its dwords performs it at
  // once. The memory model bounds no store's latency, so a correct kernel passes under every
  // seed. Holds are rare so that a consumer is seldom held itself while its producer's store
  // waits. Empty (default): nothing held. Set without memory_model = Cdna3, or with starve_rounds
  // outside [1, hang_rounds): run_dispatch throws std::invalid_argument.
  std::optional<std::uint64_t> starve_seed;
  std::uint64_t starve_rounds = 1u << 14;
  std::uint32_t starve_one_in = 32;
  // Progress of a long dispatch: called with (workgroups finished, workgroups in the grid) each
  // time a workgroup retires. Empty by default, so tests and the audit stay quiet; `sim` and
  // `run` print a throttled line from it (audit/output/progress.hpp).
  // Called from the threads of a parallel dispatch one at a time (under a lock).
  std::function<void(std::uint64_t, std::uint64_t)> workgroup_done;
  // Threads for the workgroups of a dispatch (parallel dispatch, simulator/schedule/parallel.hpp):
  // 0 = the cores this process may use (sched_getaffinity), 1 = the interleaved serial
  // scheduler only. Results are bitwise those of the serial scheduler either way.
  unsigned threads = 0;
};

struct RunCounters {
  std::uint64_t wave_instructions = 0;
  std::uint64_t mfma_instructions = 0;
  std::uint64_t workgroups = 0;
  std::vector<LdsRace> lds_races;  // SchedulerOptions::lds_races == LdsRaces::Report
  // How the last dispatch ran: "yes (N threads)", or "no (why)"; e.g. "no (workgroup (1,0,0)
  // loads bytes [0, 4) of buffer 'out' that workgroup (0,0,0) stores; reran on the serial
  // scheduler)".
  std::string parallel;
};

// Device addresses the initial SGPRs point at.
struct LaunchAddresses {
  std::uint64_t kernarg = 0;
  std::uint64_t dispatch_packet = 0;
};

// Runs every workgroup of the dispatch described by `env`. Throws std::runtime_error with
// kernel, workgroup, wave, pc and instruction on any simulation error. With a `monitor`,
// wait-state violations go to it instead of stopping the run (options.hazard_policy is then
// not read: the caller chose the monitor for its policy).
// An LDS race under
// LdsRaces::Error throws LdsRaceFound unless env.lds_watches is set (the executor's second run).
void run_dispatch(DispatchEnv& env, const LaunchAddresses& addresses,
                  const SchedulerOptions& options, RunCounters& counters,
                  HazardMonitor* monitor = nullptr);

}  // namespace cdna::simulator
