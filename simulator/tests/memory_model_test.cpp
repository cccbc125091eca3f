// The memory-model mode (memory_model.hpp): message passing between two workgroups, correct and
// with one cache bit, writeback or invalidate dropped (testdata/memory_model.hip); the scalar
// cache; the workgroup placement; and the watchdog naming the sentinel a hung wave polls.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "simulator/checks/memory_model.hpp"
#include "simulator/checks/pending_stores.hpp"
#include "simulator/tests/test_util.hpp"

namespace cdna::simulator {
namespace {

using testing::dispatch;
using testing::error_of;
using testing::out;
using testing::testdata;
using testing::val;

constexpr int kN = 16, kRounds = 2;

struct Outcome {
  std::string error;     // "" if the dispatch ended
  std::vector<int> out;  // kRounds x kN values the consumer copied
};

// Runs message-passing kernel `kernel` with the consumer in workgroup `consumer` (the producer
// is workgroup 0) under memory model `m`.
Outcome message_passing(const std::string& kernel, MemoryModel m, int consumer = 1) {
  SimulatorExecutor ex;
  ex.options().memory_model = m;
  ex.options().hang_rounds = 256;  // the hung variants: fail in milliseconds
  std::vector<int> data(kN, -1), flag(1, 0), ack(1, 0);
  Outcome o{{}, std::vector<int>(kRounds * kN, 0)};
  const auto grid = static_cast<std::uint32_t>(consumer + 1);
  o.error = error_of([&] {
    ex.run(testdata("memory_model"),
           dispatch(kernel, {grid, 1, 1}, {64, 1, 1},
                    {out(data), out(flag).named("flag"), out(ack), out(o.out), val(kRounds), val(consumer)}));
  });
  return o;
}

std::vector<int> expected() {
  std::vector<int> e;
  for (int r = 1; r <= kRounds; ++r)
    for (int i = 0; i < kN; ++i) e.push_back(1000 * r + i);
  return e;
}

TEST(SimMemoryModel, ModeNamesParse) {
  for (MemoryModel m : {MemoryModel::Coherent, MemoryModel::Cdna3}) {
    MemoryModel parsed = m == MemoryModel::Cdna3 ? MemoryModel::Coherent : MemoryModel::Cdna3;
    EXPECT_TRUE(parse_memory_model(to_string(m), parsed));
    EXPECT_EQ(parsed, m);
  }
  MemoryModel unchanged = MemoryModel::Coherent;
  EXPECT_FALSE(parse_memory_model("CDNA3", unchanged));
}

// PendingStores alone: the youngest store is performed first, vmcnt counts a load issued behind
// a pending store, and a wave's access to a pending dword finds it.
TEST(SimMemoryModel, PendingStoresYoungestFirstAndVmcnt) {
  std::vector<std::uint8_t> buf(256, 0);
  GlobalMemory mem;
  const std::uint64_t base = mem.map(buf.data(), buf.size(), true, "b");
  CacheModel caches(mem);
  PendingStores q;
  const std::uint32_t one = 1, two = 2;
  q.add(1, base, 4, Scope::Agent, &one);         // instruction 1: a store to dword 0
  q.add(2, base + 128, 4, Scope::Agent, &two);   // instruction 2: a store to dword 32
  q.note_access(3);                              // instruction 3: a load
  EXPECT_EQ(q.outstanding(), 3u);
  EXPECT_TRUE(q.met(3));
  EXPECT_FALSE(q.met(2));  // instruction 1 is older than the 2 youngest
  EXPECT_TRUE(q.overlaps(base + 2, 1));
  EXPECT_FALSE(q.overlaps(base + 4, 4));
  q.complete_youngest(caches, 0);
  EXPECT_EQ(buf[128], 2) << "the younger store first";
  EXPECT_EQ(buf[0], 0) << "the older one still pending";
  EXPECT_FALSE(q.met(2));
  q.complete_youngest(caches, 0);
  EXPECT_EQ(buf[0], 1);
  EXPECT_TRUE(q.empty());
  EXPECT_TRUE(q.met(0));
  EXPECT_FALSE(q.overlaps(base, 4));
}

TEST(SimMemoryModel, WorkgroupsGoToXcdsRoundRobin) {
  EXPECT_EQ(xcd_of_workgroup(0), 0u);
  EXPECT_EQ(xcd_of_workgroup(1), 1u);
  EXPECT_EQ(xcd_of_workgroup(8), 0u);
  EXPECT_EQ(cu_of_workgroup(0), 0u);
  EXPECT_EQ(cu_of_workgroup(1), kCusPerXcd);      // XCD 1's first CU
  EXPECT_EQ(cu_of_workgroup(8), 1u);              // XCD 0's second CU
  EXPECT_EQ(cu_of_workgroup(8 * kCusPerXcd), 0u); // the 305th workgroup shares CU 0
}

// Release/acquire at agent scope is what the GFX942 memory model requires: it passes with the
// consumer on another XCD and on the same XCD, in both modes.
TEST(SimMemoryModel, AgentReleaseAcquirePassesInBothModes) {
  for (MemoryModel m : {MemoryModel::Coherent, MemoryModel::Cdna3})
    for (int consumer : {1, 8}) {
      const Outcome o = message_passing("mp_correct", m, consumer);
      EXPECT_EQ(o.error, "") << to_string(m) << " consumer " << consumer;
      EXPECT_EQ(o.out, expected()) << to_string(m) << " consumer " << consumer;
    }
}

// No buffer_wbl2 before the flag: the data stay dirty in the producer XCD's L2; the consumer on
// another XCD sees the flag and reads the old data from memory. On the same XCD (shared L2) and
// with coherent memory it passes.
TEST(SimMemoryModel, RelaxedFlagStoreWithoutWritebackReadsOldData) {
  EXPECT_EQ(message_passing("mp_relaxed_store", MemoryModel::Coherent).out, expected());
  const Outcome o = message_passing("mp_relaxed_store", MemoryModel::Cdna3);
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(std::vector<int>(o.out.begin(), o.out.begin() + kN), std::vector<int>(kN, -1))
      << "round 1 must read the host's data: the producer's stores are still in its L2";
  // On the same XCD the L2 is shared, but nothing orders the data stores before the flag: the
  // flag is performed first (pending_stores.hpp) and the consumer copies older data.
  EXPECT_NE(message_passing("mp_relaxed_store", MemoryModel::Cdna3, 8).out, expected());
}

// Store order alone (data and flag stored with sc1, so no L2 holds them back): without a release
// the producer's later flag store is performed before its data stores and the consumer copies
// the previous round's data; with the release (buffer_wbl2 sc1; s_waitcnt vmcnt(0)), or with
// just s_waitcnt vmcnt(0) before the flag store, it copies this round's, on another XCD and on
// the same one.
TEST(SimMemoryModel, FlagStoreOvertakesDataStoreWithoutRelease) {
  for (int consumer : {1, 8}) {
    EXPECT_EQ(message_passing("mp_sc1_relaxed", MemoryModel::Coherent, consumer).out, expected());
    const Outcome o = message_passing("mp_sc1_relaxed", MemoryModel::Cdna3, consumer);
    EXPECT_EQ(o.error, "") << consumer;
    EXPECT_NE(o.out, expected()) << "consumer " << consumer << ": the flag must overtake the data";
    EXPECT_EQ(o.out[kN - 1], 1000 + kN - 1) << "the youngest data store is performed first";
    EXPECT_EQ(o.out[0], -1) << "the oldest data store last: round 1 reads the host's value";
    for (const char* kernel : {"mp_sc1_release", "mp_sc1_waitcnt"})
      for (MemoryModel m : {MemoryModel::Coherent, MemoryModel::Cdna3}) {
        const Outcome ok = message_passing(kernel, m, consumer);
        EXPECT_EQ(ok.error, "") << kernel << ' ' << to_string(m) << " consumer " << consumer;
        EXPECT_EQ(ok.out, expected()) << kernel << ' ' << to_string(m) << " consumer " << consumer;
      }
  }
}

// Workgroup scope (sc0 store, sc0 load, no writeback, no invalidate): the flag never leaves the
// producer's L2 and the consumer's L1 keeps the 0 it read first: a hang, and the watchdog names
// the flag.
TEST(SimMemoryModel, WorkgroupScopeFlagHangs) {
  EXPECT_EQ(message_passing("mp_workgroup", MemoryModel::Coherent).out, expected());
  const Outcome o = message_passing("mp_workgroup", MemoryModel::Cdna3);
  EXPECT_NE(o.error.find("no progress"), std::string::npos) << o.error;
  EXPECT_NE(o.error.find("polls argument 1, buffer 'flag' (output) element 0 (offset 0) = 0x0 (not a NaN) "
                         "since round "),
            std::string::npos)
      << o.error;
}

// A plain load (no sc bits) polls the L1 copy filled on the first poll: a hang, even with the
// acquire fence after the loop.
TEST(SimMemoryModel, PlainLoadPollHangs) {
  EXPECT_EQ(message_passing("mp_plain_poll", MemoryModel::Coherent).out, expected());
  const Outcome o = message_passing("mp_plain_poll", MemoryModel::Cdna3);
  EXPECT_NE(o.error.find("no progress"), std::string::npos) << o.error;
  EXPECT_NE(o.error.find("buffer 'flag'"), std::string::npos) << o.error;
}

// An sc1 poll without buffer_inv: round 1 fills the consumer's L1 with the data, round 2 reads
// that stale copy (round 1's values again).
TEST(SimMemoryModel, PollWithoutInvalidateReadsStaleData) {
  EXPECT_EQ(message_passing("mp_no_invalidate", MemoryModel::Coherent).out, expected());
  const Outcome o = message_passing("mp_no_invalidate", MemoryModel::Cdna3);
  EXPECT_EQ(o.error, "");
  const std::vector<int> e = expected();
  EXPECT_EQ(std::vector<int>(o.out.begin(), o.out.begin() + kN), std::vector<int>(e.begin(), e.begin() + kN));
  EXPECT_EQ(std::vector<int>(o.out.begin() + kN, o.out.end()), std::vector<int>(e.begin(), e.begin() + kN))
      << "round 2 must read round 1's data from the consumer's L1";
}

// The scalar cache: an s_load poll keeps reading the first value; dropping the scalar cache and
// the L1/L2 (s_dcache_inv, buffer_inv sc1) before each reload sees the flag.
TEST(SimMemoryModel, ScalarCachePoll) {
  EXPECT_EQ(message_passing("mp_scalar_poll", MemoryModel::Coherent).out, expected());
  const Outcome o = message_passing("mp_scalar_poll", MemoryModel::Cdna3);
  EXPECT_NE(o.error.find("no progress"), std::string::npos) << o.error;
  for (MemoryModel m : {MemoryModel::Coherent, MemoryModel::Cdna3}) {
    const Outcome ok = message_passing("mp_scalar_poll_inv", m);
    EXPECT_EQ(ok.error, "") << to_string(m);
    EXPECT_EQ(ok.out, expected()) << to_string(m);
  }
}

// The watchdog names what each stuck wave polls: buffer (argument index and the host's name; the
// kernel's own argument name too when its metadata has one), element, offset, the value's bits
// and that it is a NaN.
TEST(SimWatchdog, NamesTheSentinelAHungWavePolls) {
  for (MemoryModel m : {MemoryModel::Coherent, MemoryModel::Cdna3}) {
    SimulatorExecutor ex;
    ex.options().memory_model = m;
    ex.options().hang_rounds = 256;
    std::vector<std::uint32_t> exchange(8, 0x7fa00001u);  // NaN sentinels nobody replaces
    std::vector<float> result(3, 0.0f);
    const std::string msg = error_of([&] {
      ex.run(testdata("memory_model"),
             dispatch("spin_on_sentinel", {3, 1, 1}, {64, 1, 1},
                      {out(exchange).named("h_l0"), val(3), out(result)}));
    });
    EXPECT_NE(msg.find("no progress"), std::string::npos) << msg;
    for (const char* w : {"workgroup (0,0,0) wave 0", "workgroup (2,0,0) wave 0"})
      EXPECT_NE(msg.find(w), std::string::npos) << msg;
    EXPECT_NE(msg.find("polls argument 0, buffer 'h_l0' (output) element 3 (offset 12) = "
                       "0x7fa00001 (NaN) since round "),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find("'global_load_dword"), std::string::npos) << msg;
  }
}

// A wave that spins on a value that changes is not reported: the trace is dropped when progress
// resumes, and a dispatch that ends has no hang report at all (mp_correct under a watchdog
// window short enough to trigger the trace while the consumer waits).
TEST(SimWatchdog, TraceOffAgainAfterProgress) {
  SimulatorExecutor ex;
  ex.options().hang_rounds = 2;
  std::vector<int> data(kN, -1), flag(1, 0), ack(1, 0), o(kRounds * kN, 0);
  EXPECT_EQ(error_of([&] {
              ex.run(testdata("memory_model"), dispatch("mp_correct", {2, 1, 1}, {64, 1, 1},
                                                        {out(data), out(flag), out(ack), out(o), val(kRounds), val(1)}));
            }),
            "");
  EXPECT_EQ(o, expected());
}

}  // namespace
}  // namespace cdna::simulator
