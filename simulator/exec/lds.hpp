// LDS addressing shared by the DS executors (exec/lds.cpp, exec/ds_atomic.cpp).
#pragma once

#include <cstdint>
#include <string>

#include "simulator/state/wave.hpp"

namespace cdna::simulator {

// The `n` bytes of the workgroup's LDS at byte address `addr` for `lane`, accessed as `kind`
// (recorded by the race check, lds_race.hpp). An access outside the allocation
// (group_segment_fixed_size + dynamic LDS) is an error: hardware would return 0 or drop the
// write, and a kernel relying on that is not supported.
inline std::uint8_t* lds_at(Wave& w, std::uint64_t addr, std::uint32_t n, int lane, LdsAccess kind) {
  auto& lds = w.wg->lds;
  if (addr + n > lds.size())
    sim_fail("lane " + std::to_string(lane) + ": LDS access at " + hex(addr) + " (" +
             std::to_string(n) + " bytes) is outside the workgroup's " +
             std::to_string(lds.size()) + " bytes of LDS");
  if (w.wg->lds_shadow) note_lds_access(w, addr, n, kind);
  return lds.data() + addr;
}

}  // namespace cdna::simulator
