// Parallel dispatch (scheduler.hpp, parallel.hpp): non-communicating dispatches give the bits of
// the serial scheduler on threads; communicating ones (a flag spin, a neighbour's store read
// without waiting, global atomics) are detected, rerun serially and say so.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "simulator/schedule/parallel.hpp"
#include "simulator/tests/test_util.hpp"

namespace cdna::simulator {
namespace {

using namespace testing;

// Runs `make(ex)` with `threads`; returns the executor's parallel verdict.
template <class F>
std::string run_with(unsigned threads, F&& run) {
  SimulatorExecutor ex;
  ex.options().threads = threads;
  run(ex);
  return ex.last_stats().parallel;
}

bool starts_with(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

TEST(SimParallel, IndependentWorkgroupsRunOnThreadsWithTheSerialBits) {
  auto co = testdata("sched");
  for (std::uint32_t grid : {2u, 7u, 64u}) {
    SCOPED_TRACE("grid " + std::to_string(grid));
    std::vector<float> in = [&] {
      std::vector<float> v(grid * 64);
      for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i) * 0.37f - 5.0f;
      return v;
    }();
    std::vector<float> serial(in.size(), 1.5f), parallel(in.size(), 1.5f);
    // accumulate reads and writes only its own workgroup's part of the output.
    auto d = [&](std::vector<float>& o) { return dispatch("accumulate", {grid, 1, 1}, {64, 1, 1}, {testing::in(in), out(o)}); };
    EXPECT_EQ(run_with(1, [&](SimulatorExecutor& ex) { ex.run(co, d(serial)); }), "no (1 thread)");
    EXPECT_EQ(run_with(4, [&](SimulatorExecutor& ex) { ex.run(co, d(parallel)); }),
              "yes (" + std::to_string(std::min(grid, 4u)) + " threads)");
    EXPECT_EQ(std::memcmp(serial.data(), parallel.data(), serial.size() * 4), 0);
  }
}

TEST(SimParallel, AFlagSpinOnAnotherWorkgroupFallsBackToTheSerialScheduler) {
  auto co = testdata("sched");
  std::vector<int> flag(1, 0), payload(1, 0), o(9, -1);
  const std::string how = run_with(2, [&](SimulatorExecutor& ex) {
    ex.options().hang_rounds = 512;  // the waiting workgroup gives up its parallel run sooner
    ex.run(co, dispatch("wait_for_last", {8, 1, 1}, {128, 1, 1}, {out(flag), out(payload), out(o)}));
  });
  EXPECT_TRUE(starts_with(how, "no (")) << how;
  EXPECT_NE(how.find("reran on the serial scheduler"), std::string::npos) << how;
  EXPECT_EQ(o[8], 1007);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(o[static_cast<std::size_t>(i)], i);
}

TEST(SimParallel, ReadingANeighboursStoreFallsBackAndMatchesSerial) {
  auto co = testdata("sched");
  std::vector<int> buf_s(16, 0), out_s(16, 7), buf_p(16, 0), out_p(16, 7);
  auto d = [&](std::vector<int>& b, std::vector<int>& o) {
    return dispatch("read_neighbour", {16, 1, 1}, {64, 1, 1}, {out(b), out(o)});
  };
  run_with(1, [&](SimulatorExecutor& ex) { ex.run(co, d(buf_s, out_s)); });
  const std::string how = run_with(2, [&](SimulatorExecutor& ex) { ex.run(co, d(buf_p, out_p)); });
  EXPECT_TRUE(starts_with(how, "no (workgroup (")) << how;
  EXPECT_NE(how.find("loads bytes"), std::string::npos) << how;
  EXPECT_EQ(buf_s, buf_p);
  EXPECT_EQ(out_s, out_p);
}

TEST(SimParallel, GlobalAtomicsOnOneCounterFallBackAndMatchSerial) {
  auto co = testdata("sched");
  std::vector<int> c_s(1, 0), o_s(32, -1), c_p(1, 0), o_p(32, -1);
  run_with(1, [&](SimulatorExecutor& ex) { ex.run(co, dispatch("tickets", {32, 1, 1}, {64, 1, 1}, {out(c_s), out(o_s)})); });
  const std::string how =
      run_with(2, [&](SimulatorExecutor& ex) { ex.run(co, dispatch("tickets", {32, 1, 1}, {64, 1, 1}, {out(c_p), out(o_p)})); });
  EXPECT_TRUE(starts_with(how, "no (workgroup (")) << how;
  EXPECT_EQ(c_s, c_p);
  EXPECT_EQ(o_s, o_p);
}

TEST(SimParallel, ErrorsAreTheSerialSchedulersMessage) {
  auto co = testdata("sched");
  auto error_with = [&](unsigned threads) {
    SimulatorExecutor ex;
    ex.options().threads = threads;
    ex.options().hang_rounds = 256;
    std::vector<int> flag(1, 0), o(64, 0);
    return error_of([&] { ex.run(co, dispatch("spin_forever", {4, 1, 1}, {64, 1, 1}, {out(flag), out(o)})); });
  };
  const std::string serial = error_with(1);
  EXPECT_NE(serial.find("no progress"), std::string::npos) << serial;
  EXPECT_EQ(error_with(2), serial);
}

TEST(SimParallel, OptionsTheParallelPathCannotHonourRunSerially) {
  auto co = testdata("sched");
  std::vector<float> in(4 * 64, 1.0f), o(4 * 64, 0.0f);
  auto how = [&](auto set) {
    return run_with(2, [&](SimulatorExecutor& ex) {
      set(ex.options());
      ex.run(co, dispatch("accumulate", {4, 1, 1}, {64, 1, 1}, {testing::in(in), out(o)}));
    });
  };
  EXPECT_TRUE(starts_with(how([](SchedulerOptions& s) { s.schedule = Schedule::Random; }), "no (Schedule::Random"));
  EXPECT_TRUE(starts_with(how([](SchedulerOptions& s) { s.memory_model = MemoryModel::Cdna3; }), "no (the memory-model"));
  EXPECT_EQ(how([](SchedulerOptions&) {}), "yes (2 threads)");
}

// find_communication alone: loads of another's store, two stores of one byte, and disjoint or
// own-workgroup accesses that are fine.
TEST(SimParallel, FindCommunicationOnLogs) {
  const std::array<std::uint32_t, 3> grid{4, 1, 1};
  std::vector<Region> regions(2);
  regions[0].name = "a";
  regions[1].name = "out";
  using L = std::vector<std::vector<AccessInterval>>;
  EXPECT_FALSE(find_communication(L{{{1, 0, 8, true}, {1, 0, 8, false}}, {{1, 8, 16, true}}, {{0, 0, 16, false}}, {}},
                                  grid, regions));
  EXPECT_EQ(find_communication(L{{{1, 0, 8, true}}, {{1, 4, 6, false}}, {}, {}}, grid, regions).value_or(""),
            "workgroup (1,0,0) loads bytes [4, 6) of buffer 'out' that workgroup (0,0,0) stores");
  EXPECT_EQ(find_communication(L{{{1, 4, 6, false}}, {}, {{1, 0, 8, true}}, {}}, grid, regions).value_or(""),
            "workgroup (0,0,0) loads bytes [4, 6) of buffer 'out' that workgroup (2,0,0) stores");
  EXPECT_EQ(find_communication(L{{}, {{1, 0, 100, true}}, {{1, 0, 4, true}}, {{1, 50, 60, true}}}, grid, regions)
                .value_or(""),
            "workgroup (1,0,0) and workgroup (2,0,0) both store bytes [0, 4) of buffer 'out'");
  // Same bytes in different buffers do not meet.
  EXPECT_FALSE(find_communication(L{{{0, 0, 8, true}}, {{1, 0, 8, true}}, {}, {}}, grid, regions));
}

}  // namespace
}  // namespace cdna::simulator
