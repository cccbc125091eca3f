// What a hung wave waits on: once the progress watchdog suspects a hang (scheduler.hpp) it
// turns on DispatchEnv::trace_loads, and every global load a wave executes from then on is
// recorded (Wave::polls, the first active lane's address and value). The hang report then names,
// per stuck wave, each load pc of its spin loop, the buffer and element it polls, the value read
// (with its bits and whether it is a NaN: the sentinel of a dataflow kernel) and since which
// scheduler round it has read that value.
#pragma once

#include <cstdint>
#include <string>

#include "simulator/state/wave.hpp"

namespace cdna::simulator {

// Records a global load of n bytes at addr that read `value` (called for the first active lane).
void note_polled_load(Wave& w, std::uint64_t addr, std::uint32_t n, const void* value);

// One line per recorded load of `w`, e.g. "polls argument 1 ('flag', buffer 'exchange') element
// 3 (offset 12) = 0x7fc00000 (NaN) since round 70000, at pc 0x1a4 ... 'global_load_dword ...'";
// empty if none was recorded.
std::string describe_polls(const Wave& w, const Program& program, const GlobalMemory& memory);

}  // namespace cdna::simulator
