// Memory-model mode (SchedulerOptions::memory_model == MemoryModel::Cdna3): the caches between
// the waves and global memory, behaving as adversarially as the gfx942 memory model allows, so
// that a missing cache bit, writeback or invalidate fails in simulation.
//
// Facts (sources in simulator/README.md "Memory-model mode"):
//  - Each CU has one vector L1 (TCP) shared by its waves; it is write-through. Each XCD has one
//    L2 shared by its CUs; the L2s of one agent are not coherent with each other for memory
//    not local to them (MTYPE NC) (LLVM AMDGPUUsage, "Memory Model GFX942").
//  - The scope of a load or store is encoded in its cache bits: none = wavefront, sc0 =
//    workgroup, sc1 = agent, sc0 sc1 = system (AMDGPUUsage, table "AMDHSA Memory Model Code
//    Sequences GFX940, GFX941, GFX942": load/store atomic monotonic per scope). nt is a
//    temporal hint (non-temporal accesses), not a coherence control.
//  - buffer_inv sc1 invalidates the L1 and the XCD's L2 (agent-scope acquire); buffer_inv sc0
//    the L1 only; buffer_wbl2 sc1 writes the XCD's dirty L2 lines back (agent-scope release)
//    (same table: fence acquire / release per scope).
//  - Atomic read-modify-writes bypass the L1 and are coherent at agent scope without cache bits
//    (their sc0 means "return the old value"; AMDGPUUsage, same section).
//  - The scalar cache is separate from the vector L1 and not coherent with it; the CP
//    invalidates it at the start of each dispatch; s_dcache_inv invalidates it.
//  - MI300X: 8 XCDs of 38 CUs; workgroups go to XCDs round-robin in dispatch order
//    (workgroup i to XCD i mod 8); L2 lines of 128 bytes, L1 lines taken as the same (sources
//    and what was not checked: README).
//
// The model: per-CU L1 and scalar caches, per-XCD L2s, each a set of 128-byte lines over the
// simulator's global memory with a valid and (L2) dirty bit per byte. A line is filled on first
// access and never evicted; a load the rules let hit a cache returns the cached, possibly stale,
// bytes. A store below agent scope stays dirty in its XCD's L2 (invisible to other XCDs) until
// a buffer_wbl2 sc1 or the end of the dispatch; a store at agent or system scope, and every
// atomic, reaches memory. Workgroup i runs on CU (i / 8) mod 38 of XCD i mod 8 (one workgroup
// per CU; with more than 304 resident workgroups several share a CU, and its L1).
// Not modelled: timing, MALL and HBM ordering, eviction, tgsplit mode, MTYPE RW probes.
#pragma once

#include <array>
#include <bitset>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "simulator/state/memory.hpp"

namespace cdna::simulator {

enum class MemoryModel : std::uint8_t { Coherent, Cdna3 };
const char* to_string(MemoryModel m);
// "coherent" or "cdna3"; false for any other text.
bool parse_memory_model(const std::string& text, MemoryModel& out);

// Coherence scope of a vector memory access, from its sc0/sc1 bits (AMDGPUUsage GFX942 table).
enum class Scope : std::uint8_t { Wavefront = 0, Workgroup = 1, Agent = 2, System = 3 };
inline Scope scope_of(bool sc0, bool sc1) { return static_cast<Scope>((sc0 ? 1 : 0) | (sc1 ? 2 : 0)); }

inline constexpr std::uint32_t kXcds = 8;        // MI300X (cdna3-facts.md §1)
inline constexpr std::uint32_t kCusPerXcd = 38;  // MI300X (cdna3-facts.md §1)
inline constexpr std::uint32_t kLineBytes = 128; // vector L1 and L2 line (README "Memory-model mode")

// Where the hardware puts a workgroup (linear id in dispatch order): XCD i mod 8, then the CUs
// of that XCD in turn.
inline std::uint32_t xcd_of_workgroup(std::uint64_t linear) { return static_cast<std::uint32_t>(linear % kXcds); }
inline std::uint32_t cu_of_workgroup(std::uint64_t linear) {
  return xcd_of_workgroup(linear) * kCusPerXcd + static_cast<std::uint32_t>(linear / kXcds % kCusPerXcd);
}

// The caches of one dispatch over `memory`. Addresses must already be checked (GlobalMemory::
// translate) to lie inside one buffer; the caches read and write the buffers' host bytes.
class CacheModel {
 public:
  explicit CacheModel(GlobalMemory& memory);

  // A vector load of n bytes at addr by CU `cu` at `scope` into dst.
  void load(std::uint32_t cu, std::uint64_t addr, std::uint32_t n, Scope scope, void* dst);
  // A vector store of n bytes.
  void store(std::uint32_t cu, std::uint64_t addr, std::uint32_t n, Scope scope, const void* src);
  // Before an atomic read-modify-write on memory at [addr, addr+n): the issuing XCD's dirty
  // bytes there are written back (the atomic sees its XCD's earlier stores).
  void before_atomic(std::uint32_t cu, std::uint64_t addr, std::uint32_t n);
  // After it: the issuing CU's L1 and XCD's L2 copies of those bytes take the new value.
  void after_atomic(std::uint32_t cu, std::uint64_t addr, std::uint32_t n);
  // buffer_inv at `scope`: Workgroup drops the CU's L1, Agent/System also the XCD's L2 clean
  // bytes (dirty bytes stay: an invalidate does not lose stores). Wavefront: nothing.
  void invalidate(std::uint32_t cu, Scope scope);
  // buffer_wbl2 at `scope`: Agent/System write the XCD's dirty L2 bytes back to memory.
  void writeback(std::uint32_t cu, Scope scope);
  // A scalar load (s_load, s_buffer_load) through the CU's scalar cache.
  void scalar_load(std::uint32_t cu, std::uint64_t addr, std::uint32_t n, void* dst);
  // s_dcache_inv.
  void scalar_invalidate(std::uint32_t cu) { scalar_[cu].clear(); }
  // End of the dispatch: every XCD's dirty bytes reach memory (XCD 0 first).
  void end_dispatch();

 private:
  struct Line {
    std::array<std::uint8_t, kLineBytes> bytes{};
    std::bitset<kLineBytes> valid, dirty;
  };
  using Cache = std::unordered_map<std::uint64_t, Line>;  // by line address

  // Host bytes of memory for [addr, addr + n) inside one buffer.
  std::uint8_t* host(std::uint64_t addr, std::uint32_t n);
  // The bytes of line `base` an access at `xcd`'s L2 sees (its valid bytes, the rest filled from
  // memory, inside the buffer); returns the L2 line.
  Line& l2_line(std::uint32_t xcd, std::uint64_t base);
  // Writes the dirty bytes of `line` (at `base`) to memory and marks them clean.
  void write_back(std::uint64_t base, Line& line);
  // Calls f(line_base, offset_in_line, offset_in_access, count) for each line [addr, addr+n) touches.
  template <class F>
  static void per_line(std::uint64_t addr, std::uint32_t n, F&& f);

  GlobalMemory& memory_;
  std::vector<Cache> l1_, scalar_;  // per CU
  std::vector<Cache> l2_;           // per XCD
};

}  // namespace cdna::simulator
