// Parallel dispatch, the parts that do not run waves: how many threads, whether the workgroups
// of a dispatch communicated, and the pre-dispatch contents of the buffers a rerun needs.
//
// The scheduler (scheduler.hpp) runs the workgroups of a dispatch optimistically on threads,
// each alone, with access logging on (state/memory.hpp: AccessLog, one log per workgroup). The run is
// kept only if no two workgroups communicated: no workgroup loaded or stored a byte that
// another workgroup stored (global atomics count as stores). Otherwise the run's outcome may
// depend on the order of the workgroups, so the buffers are restored and the dispatch runs on
// the interleaved serial scheduler. Loads of read-only buffers are not logged: nobody stores
// into them (state/memory.hpp refuses such stores).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "simulator/state/memory.hpp"

namespace cdna::simulator {

// Cores this process may run on (sched_getaffinity), at least 1.
unsigned usable_cores();

// The first communication between workgroups in `logs` (logs[i]: the accesses of the workgroup
// with linear id i in a grid of `grid` workgroups, x fastest), described as "workgroup (3,0,0)
// loads bytes [16, 20) of buffer 'out' that workgroup (2,0,0) stores", or nullopt when no
// workgroup loaded or stored a byte another one stored. `regions` names the buffers.
std::optional<std::string> find_communication(const std::vector<std::vector<AccessInterval>>& logs,
                                              const std::array<std::uint32_t, 3>& grid,
                                              const std::vector<Region>& regions);

// Copies of the writable buffers of `memory` taken at construction; restore() puts them back.
class BufferSnapshot {
 public:
  explicit BufferSnapshot(const GlobalMemory& memory);
  void restore() const;

 private:
  struct Saved {
    std::uint8_t* data;
    std::vector<std::uint8_t> bytes;
  };
  std::vector<Saved> saved_;
};

}  // namespace cdna::simulator
