// Memory-model mode: a wave's vector memory stores that have been issued but not yet performed
// (simulator/README.md "Memory-model mode", "Store order").
//
// Facts (sources in the README): on gfx9/gfx940 vector memory loads, stores and atomics all
// count in vmcnt (there is no separate store counter before gfx10), and `s_waitcnt vmcnt(N)`
// waits until at most N of the wave's vector memory operations are outstanding, the oldest
// completing first as far as the counter is concerned (CDNA3 ISA guide, s_waitcnt and the
// memory counters; LLVM SIInsertWaitcnts, which relies on in-order vmcnt on gfx9). Nothing else
// orders two stores of a wave to different addresses: the memory model's release is
// `buffer_wbl2 ...; s_waitcnt vmcnt(0)` before the store (LLVM AMDGPUUsage, GFX942 table), and
// s_barrier does not wait for memory on gfx942 (it has the back-off barrier; SIInsertWaitcnts
// adds a wait before s_barrier only on targets without it).
//
// The model, as adversarial as that allows: a store's bytes are kept here, in issue order,
// until performed; per scheduler round the youngest instruction's stores are performed (so a
// later store overtakes an earlier one); `s_waitcnt vmcnt(N)` stalls the wave until only N
// operations are outstanding; `buffer_wbl2` performs them all first (the release's writeback
// covers the stores before it); an access of the same wave to a dword with a pending store
// performs all pending stores first (a wave sees its own stores in order; this forwards them
// by completing them early, which the hardware may also do). Loads and atomics are performed at
// once; they take a place in the count only while stores are pending, which is all vmcnt needs.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

#include "simulator/checks/memory_model.hpp"

namespace cdna::simulator {

class PendingStores {
 public:
  // No store waits to be performed (and so no outstanding operation matters to vmcnt).
  bool empty() const { return entries_.empty(); }
  // Outstanding vector memory instructions, as vmcnt counts them.
  std::size_t outstanding() const { return entries_.size(); }
  // s_waitcnt vmcnt(n) may pass: every operation but the n youngest has completed (the oldest
  // outstanding entry always holds a pending store).
  bool met(std::uint32_t n) const { return entries_.size() <= n; }

  // A load or atomic by the wave's instruction `stamp` (unique per executed instruction): it
  // takes a place in the count behind the pending stores, if there are any.
  void note_access(std::uint64_t stamp);
  // A store of n ≤ 16 bytes by instruction `stamp`, at `scope`, to be performed later.
  void add(std::uint64_t stamp, std::uint64_t addr, std::uint32_t n, Scope scope, const void* src);
  // Whether [addr, addr + n) shares a dword with a pending store.
  bool overlaps(std::uint64_t addr, std::uint32_t n) const;

  // Performs every pending store, oldest first, through `caches` as CU `cu`.
  void complete_all(CacheModel& caches, std::uint32_t cu);
  // Performs the stores of the youngest instruction that has any and is not held at `round`.
  void complete_youngest(CacheModel& caches, std::uint32_t cu, std::uint64_t round = 0);
  // Starvation (SchedulerOptions::starve_seed): each instruction whose stores were added since
  // the last call is held before round `hold()` (0: not held) by complete_youngest; complete_all
  // and an s_waitcnt still wait for it.
  template <class F>
  void hold_new(F&& hold) {
    for (auto it = entries_.rbegin(); it != entries_.rend() && !it->seen; ++it) {
      it->seen = true;
      if (!it->stores.empty()) it->not_before = hold();
    }
  }

 private:
  struct Store {
    std::uint64_t addr;
    std::uint32_t n;
    Scope scope;
    std::array<std::uint8_t, 16> bytes;
  };
  struct Entry {
    std::uint64_t stamp;
    std::vector<Store> stores;  // empty: a load or atomic, or stores already performed
    std::uint64_t not_before = 0;  // hold_new
    bool seen = false;             // by hold_new
  };

  void perform(Entry& e, CacheModel& caches, std::uint32_t cu);
  // Drops completed entries at the front (the oldest outstanding one then has stores).
  void pop_completed();
  template <class F>
  static void per_dword(std::uint64_t addr, std::uint32_t n, F&& f) {
    for (std::uint64_t d = addr >> 2; d <= (addr + n - 1) >> 2; ++d) f(d);
  }

  std::deque<Entry> entries_;
  std::unordered_map<std::uint64_t, std::uint32_t> dwords_;  // pending stores per dword address / 4
};

}  // namespace cdna::simulator
