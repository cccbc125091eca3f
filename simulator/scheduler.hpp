// Scheduler: creates the waves of each workgroup with their initial state (cdna3-facts.md §3)
// and runs them. The waves of one workgroup are interleaved round-robin (a quantum of
// instructions each) and meet at s_barrier; workgroups run one after another. Running all
// workgroups interleaved (needed by kernels that spin on each other's results) is a change to
// this file only: Workgroup/Wave state is self-contained.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "simulator/code_object.hpp"
#include "simulator/wave.hpp"

namespace cdna::simulator {

struct SchedulerOptions {
  std::uint32_t quantum = 64;                           // instructions per wave turn
  std::uint64_t max_wave_instructions = 1ull << 30;     // per wave: beyond this it is hung
  bool check_hazards = true;                            // simulator/hazard.hpp
};

struct RunCounters {
  std::uint64_t wave_instructions = 0;
  std::uint64_t mfma_instructions = 0;
  std::uint64_t workgroups = 0;
};

// Device addresses the initial SGPRs point at.
struct LaunchAddresses {
  std::uint64_t kernarg = 0;
  std::uint64_t dispatch_packet = 0;
};

// Runs every workgroup of the dispatch described by `env`. Throws std::runtime_error with
// kernel, workgroup, wave, pc and instruction on any simulation error.
void run_dispatch(DispatchEnv& env, const LaunchAddresses& addresses,
                  const SchedulerOptions& options, RunCounters& counters);

}  // namespace cdna::simulator
