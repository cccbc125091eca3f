#include "simulator/checks/watchdog.hpp"

#include <algorithm>
#include <cstring>

namespace cdna::simulator {

void note_polled_load(Wave& w, std::uint64_t addr, std::uint32_t n, const void* value) {
  std::uint64_t v = 0;
  std::memcpy(&v, value, std::min<std::uint32_t>(n, 8));
  const std::uint32_t index = w.pc - 1;  // the scheduler advanced pc before executing
  PolledLoad* slot = nullptr;
  for (PolledLoad& p : w.polls)
    if (p.used && p.index == index) slot = &p;
  if (!slot) {  // a new pc: the first free slot, else the one recorded earliest
    slot = &w.polls[0];
    for (PolledLoad& p : w.polls)
      if (!p.used || (slot->used && p.since < slot->since)) slot = &p;
    *slot = PolledLoad{};
  }
  if (!slot->used || slot->addr != addr || slot->value != v || slot->bytes != n) slot->since = w.env->round;
  *slot = PolledLoad{index, addr, n, v, slot->since, true};
}

namespace {

// The value's bits and, for 2-, 4- and 8-byte loads, whether they are a NaN (bf16, fp32, fp64).
std::string value_text(std::uint64_t v, std::uint32_t n) {
  std::string s = hex(v);
  bool nan = false;
  if (n == 2) nan = (v & 0x7f80u) == 0x7f80u && (v & 0x7fu);
  if (n == 4) nan = (v & 0x7f800000u) == 0x7f800000u && (v & 0x7fffffu);
  if (n == 8) nan = (v & 0x7ff0000000000000ull) == 0x7ff0000000000000ull && (v & 0xfffffffffffffull);
  if (nan) s += n == 2 ? " (NaN as bf16)" : n == 4 ? " (NaN)" : " (NaN as fp64)";
  else if (n <= 8) s += " (not a NaN)";
  return s;
}

}  // namespace

std::string describe_polls(const Wave& w, const Program& program, const GlobalMemory& memory) {
  std::string out;
  for (const PolledLoad& p : w.polls) {
    if (!p.used) continue;
    const Region* r = memory.find(p.addr);
    std::string where = "address " + hex(p.addr);
    if (r) {
      const std::uint64_t off = p.addr - r->base;
      where = r->name + " element " + std::to_string(off / p.bytes) + " (offset " + std::to_string(off) + ")";
    }
    out += "\n    polls " + where + " = " + value_text(p.value, p.bytes) + " since round " +
           std::to_string(p.since) + ", at " + program.where(p.index);
  }
  return out;
}

}  // namespace cdna::simulator
