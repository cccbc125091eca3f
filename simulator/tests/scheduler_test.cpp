// Scheduler: all workgroups resident and interleaved (round-robin and seeded random), the
// progress watchdog, the instruction limits and poison mode (kernels in testdata/sched.hip).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>

#include "simulator/tests/test_util.hpp"

namespace cdna::simulator {
namespace {

using namespace testing;

struct ScheduleCase {
  Schedule schedule;
  std::uint64_t seed;
};

std::vector<ScheduleCase> schedules() {
  std::vector<ScheduleCase> v = {{Schedule::RoundRobin, 0}};
  for (std::uint64_t s : {1u, 2u, 3u, 17u, 12345u}) v.push_back({Schedule::Random, s});
  return v;
}

TEST(SimScheduler, WorkgroupZeroWaitsForTheLastWorkgroup) {
  auto co = testdata("sched");
  for (std::uint32_t grid : {2u, 7u, 1024u}) {
    for (const auto& sc : schedules()) {
      SCOPED_TRACE("grid " + std::to_string(grid) + " seed " + std::to_string(sc.seed));
      SimulatorExecutor ex;
      ex.options().schedule = sc.schedule;
      ex.options().seed = sc.seed;
      std::vector<int> flag(1, 0), payload(1, 0), o(grid + 1, -1);
      ex.run(co, dispatch("wait_for_last", {grid, 1, 1}, {128, 1, 1}, {out(flag), out(payload), out(o)}));
      EXPECT_EQ(flag[0], 1);
      EXPECT_EQ(o[grid], 1000 + static_cast<int>(grid) - 1);
      for (std::uint32_t i = 0; i < grid; ++i) ASSERT_EQ(o[i], static_cast<int>(i));
      EXPECT_EQ(ex.last_stats().workgroups, grid);
      if (grid == 1024 && sc.schedule == Schedule::Random) break;  // one random seed is enough
    }
  }
}

TEST(SimScheduler, VolatileAndThreadfenceSignalling) {
  auto co = testdata("sched");
  for (const auto& sc : schedules()) {
    SimulatorExecutor ex;
    ex.options().schedule = sc.schedule;
    ex.options().seed = sc.seed;
    std::vector<int> flag(1, 0), payload(1, 0), o(1, -1);
    ex.run(co, dispatch("wait_for_last_volatile", {9, 1, 1}, {64, 1, 1}, {out(flag), out(payload), out(o)}));
    EXPECT_EQ(o[0], 2008) << "seed " << sc.seed;
  }
}

TEST(SimScheduler, ResidencyCapDeadlockIsReportedAsHang) {
  auto co = testdata("sched");
  SimulatorExecutor ex;
  ex.options().max_resident_workgroups = 1;  // workgroup 0 alone: nobody publishes
  ex.options().hang_rounds = 256;
  std::vector<int> flag(1, 0), payload(1, 0), o(9, -1);
  std::string msg = error_of([&] {
    ex.run(co, dispatch("wait_for_last", {8, 1, 1}, {64, 1, 1}, {out(flag), out(payload), out(o)}));
  });
  EXPECT_NE(msg.find("no progress"), std::string::npos) << msg;
  EXPECT_NE(msg.find("7 workgroups not yet resident"), std::string::npos) << msg;
}

TEST(SimScheduler, RandomScheduleIsDeterministicPerSeedAndExposesOrder) {
  auto co = testdata("sched");
  auto run = [&](Schedule s, std::uint64_t seed) {
    SimulatorExecutor ex;
    ex.options().schedule = s;
    ex.options().seed = seed;
    std::vector<int> counter(1, 0), o(64, -1);
    ex.run(co, dispatch("tickets", {64, 1, 1}, {64, 1, 1}, {out(counter), out(o)}));
    EXPECT_EQ(counter[0], 64);
    std::vector<int> sorted = o;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int> iota(64);
    std::iota(iota.begin(), iota.end(), 0);
    EXPECT_EQ(sorted, iota);  // every ticket handed out once
    return o;
  };
  auto rr = run(Schedule::RoundRobin, 0);
  std::vector<int> iota(64);
  std::iota(iota.begin(), iota.end(), 0);
  EXPECT_EQ(rr, iota);  // round-robin visits workgroups in grid order
  auto a = run(Schedule::Random, 7);
  EXPECT_EQ(a, run(Schedule::Random, 7));
  EXPECT_NE(a, run(Schedule::Random, 8));
  EXPECT_NE(a, rr);
}

TEST(SimScheduler, SpinOnAFlagNobodySetsIsReportedAsHung) {
  auto co = testdata("sched");
  for (const auto& sc : schedules()) {
    SimulatorExecutor ex;
    ex.options().schedule = sc.schedule;
    ex.options().seed = sc.seed;
    std::vector<int> flag(1, 0), o(128, 0);
    std::string msg = error_of([&] {
      ex.run(co, dispatch("spin_forever", {3, 1, 1}, {128, 1, 1}, {out(flag), out(o)}));
    });
    EXPECT_NE(msg.find("kernel 'spin_forever'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("no progress for 131072 scheduler rounds"), std::string::npos) << msg;
    // Every wave's pc is listed (3 workgroups x 2 waves).
    for (const char* w : {"workgroup (0,0,0) wave 0", "workgroup (0,0,0) wave 1",
                          "workgroup (2,0,0) wave 1"})
      EXPECT_NE(msg.find(w), std::string::npos) << msg;
    EXPECT_NE(msg.find("pc 0x"), std::string::npos) << msg;
    EXPECT_TRUE(msg.find("s_sleep") != std::string::npos ||
                msg.find("global_load_dword") != std::string::npos ||
                msg.find("buffer_inv") != std::string::npos ||
                msg.find("s_cbranch") != std::string::npos) << msg;
  }
}

TEST(SimScheduler, TotalInstructionLimit) {
  auto co = testdata("sched");
  SimulatorExecutor ex;
  ex.options().hang_rounds = ~0ull;  // the watchdog off: the limit has to stop it
  ex.options().max_total_instructions = 100000;
  std::vector<int> flag(1, 0), o(64, 0);
  std::string msg = error_of([&] {
    ex.run(co, dispatch("spin_forever", {2, 1, 1}, {64, 1, 1}, {out(flag), out(o)}));
  });
  EXPECT_NE(msg.find("executed more than 100000 wave instructions in total"), std::string::npos) << msg;
  EXPECT_NE(msg.find("max_total_instructions"), std::string::npos) << msg;
  EXPECT_NE(msg.find("workgroup (1,0,0) wave 0: pc 0x"), std::string::npos) << msg;
}

TEST(SimScheduler, PerWaveInstructionLimit) {
  auto co = testdata("sched");
  SimulatorExecutor ex;
  ex.options().hang_rounds = ~0ull;
  ex.options().max_wave_instructions = 5000;
  std::vector<int> flag(1, 0), o(64, 0);
  std::string msg = error_of([&] {
    ex.run(co, dispatch("spin_forever", {1, 1, 1}, {64, 1, 1}, {out(flag), out(o)}));
  });
  EXPECT_NE(msg.find("workgroup (0,0,0) wave 0 executed more than 5000 instructions"), std::string::npos) << msg;
}

TEST(SimPoison, OutputsStartAsNaNAndUnwrittenBytesStayNaN) {
  auto co = testdata("sched");
  SimulatorExecutor ex;
  ex.options().poison = true;
  std::vector<float> o(128, 0.0f);
  ex.run(co, dispatch("store_prefix", {2, 1, 1}, {64, 1, 1}, {out(o), val(100)}));
  for (int i = 0; i < 100; ++i) EXPECT_EQ(o[static_cast<std::size_t>(i)], static_cast<float>(i));
  for (int i = 100; i < 128; ++i) {
    std::uint32_t u;
    std::memcpy(&u, &o[static_cast<std::size_t>(i)], 4);
    EXPECT_EQ(u, 0xffffffffu) << i;  // NaN, not the host's 0
  }
}

TEST(SimPoison, ReadingANeverWrittenOutputByteIsAnError) {
  auto co = testdata("sched");
  std::vector<float> a(64, 1.0f), o(64, 0.0f);
  {
    SimulatorExecutor ex;  // without poison: accumulates into the host's zeros
    ex.run(co, dispatch("accumulate", {1, 1, 1}, {64, 1, 1}, {in(a), out(o)}));
    EXPECT_EQ(o[5], 1.0f);
  }
  SimulatorExecutor ex;
  ex.options().poison = true;
  std::string msg = error_of([&] {
    ex.run(co, dispatch("accumulate", {1, 1, 1}, {64, 1, 1}, {in(a), out(o)}));
  });
  EXPECT_NE(msg.find("kernel 'accumulate'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("lane 0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("never wrote"), std::string::npos) << msg;
  EXPECT_NE(msg.find("global_load_dword"), std::string::npos) << msg;
  EXPECT_NE(msg.find("pc 0x"), std::string::npos) << msg;
  EXPECT_NE(msg.find("address 0x"), std::string::npos) << msg;
}

TEST(SimPoison, ReadingBackWrittenOutputIsFine) {
  auto co = testdata("sched");
  SimulatorExecutor ex;
  ex.options().poison = true;
  std::vector<float> a(128), o(128, 0.0f);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i);
  ex.run(co, dispatch("write_then_read", {2, 1, 1}, {64, 1, 1}, {in(a), out(o)}));
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(o[i], 2.0f * a[i]);
}

}  // namespace
}  // namespace cdna::simulator

namespace cdna::simulator {
namespace {

using namespace testing;

TEST(SimBounds, ScratchAccessOutsideThePrivateSegmentIsAnError) {
  auto co = testdata("sched");
  SimulatorExecutor ex;
  std::vector<int> idx(64, 3), o(64, 0);
  ex.run(co, dispatch("scratch_oob", {1, 1, 1}, {64, 1, 1}, {in(idx), out(o)}));
  EXPECT_EQ(o[10], 13);
  idx[9] = 5000;
  std::string msg = error_of([&] {
    ex.run(co, dispatch("scratch_oob", {1, 1, 1}, {64, 1, 1}, {in(idx), out(o)}));
  });
  EXPECT_NE(msg.find("lane 9"), std::string::npos) << msg;
  EXPECT_NE(msg.find("bytes of private segment"), std::string::npos) << msg;
  EXPECT_NE(msg.find("pc 0x"), std::string::npos) << msg;
}

TEST(SimBounds, LdsAccessOutsideTheAllocationIsAnError) {
  auto co = testdata("sched");
  SimulatorExecutor ex;
  std::vector<int> idx(64, 7), o(64, 0);
  ex.run(co, dispatch("lds_oob", {1, 1, 1}, {64, 1, 1}, {in(idx), out(o)}));
  EXPECT_EQ(o[0], 7);
  idx[12] = 100;  // byte offset 400 of 256 bytes of LDS
  std::string msg = error_of([&] {
    ex.run(co, dispatch("lds_oob", {1, 1, 1}, {64, 1, 1}, {in(idx), out(o)}));
  });
  EXPECT_NE(msg.find("lane 12"), std::string::npos) << msg;
  EXPECT_NE(msg.find("256 bytes of LDS"), std::string::npos) << msg;
  EXPECT_NE(msg.find("ds_read"), std::string::npos) << msg;
}

// The 64 KiB of LDS a workgroup may have is inclusive (AITER and MoonMath ask 65536 bytes):
// 256 static + 65280 dynamic runs, one byte more is refused at launch naming the limit.
TEST(SimBounds, LdsOf65536BytesLaunchesAndOneMoreIsRefused) {
  auto co = testdata("sched");
  SimulatorExecutor ex;
  std::vector<int> idx(64, 7), o(64, 0);
  auto d = dispatch("lds_oob", {1, 1, 1}, {64, 1, 1}, {in(idx), out(o)});
  d.dynamic_lds_bytes = 65536 - 256;
  ex.run(co, d);
  EXPECT_EQ(o[0], 7);
  d.dynamic_lds_bytes += 1;
  const std::string msg = error_of([&] { ex.run(co, d); });
  EXPECT_NE(msg.find("LDS of 65537 bytes"), std::string::npos) << msg;
  EXPECT_NE(msg.find("exceeds the 65536 bytes"), std::string::npos) << msg;
}

}  // namespace
}  // namespace cdna::simulator
