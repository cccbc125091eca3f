// The LDS race check (simulator/checks/lds_race.hpp) on the planted kernels of testdata/lds_race.hip:
// each racy kernel is an error naming both accesses (whatever the schedule), listed under
// LdsRaces::Report, silent under Off; the race-free ones run and compute what they should.
#include <gtest/gtest.h>

#include <numeric>

#include "simulator/tests/test_util.hpp"

namespace cdna::simulator {
namespace {

using testing::dispatch;
using testing::error_of;
using testing::in;
using testing::out;

struct Buffers {
  std::vector<int> x = std::vector<int>(128), o = std::vector<int>(128, -1);
  Buffers() { std::iota(x.begin(), x.end(), 1000); }
};

// Runs `kernel` (one workgroup of 2 waves) and returns the error message ("" if none).
std::string run(SimulatorExecutor& ex, const std::string& kernel, Buffers& r) {
  static const auto co = testing::testdata("lds_race");
  return error_of([&] { ex.run(co, dispatch(kernel, {1, 1, 1}, {128, 1, 1}, {in(r.x), out(r.o)})); });
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

struct Planted {
  const char* kernel;
  const char* wave1;  // "the read by wave 1 at pc", the access of the higher wave
  const char* wave0;  // "the write by wave 0 at pc"
  const char* insts[2];
};
const Planted kRaces[] = {
    {"write_read_race", "the read by wave 1 at pc", "the write by wave 0 at pc", {"ds_read_b32", "ds_write_b32"}},
    {"read_write_race", "the write by wave 1 at pc", "the read by wave 0 at pc", {"ds_write_b32", "ds_read_b32"}},
    {"write_write_race", "the write by wave 1 at pc", "the write by wave 0 at pc", {"ds_write_b32", "ds_write_b32"}},
    {"atomic_read_race", "the read by wave 1 at pc", "the atomic by wave 0 at pc", {"ds_read_b32", "ds_add_u32"}},
    {"dma_read_race", "the read by wave 1 at pc", "the write by wave 0 at pc", {"ds_read_b32", "global_load_lds_dword"}},
};

TEST(LdsRace, PlantedRacesAreErrorsNamingBothWavesPcsAndInstructions) {
  SimulatorExecutor ex;
  for (const Planted& p : kRaces) {
    Buffers r;
    const std::string msg = run(ex, p.kernel, r);
    EXPECT_TRUE(has(msg, "workgroup (0,0,0): LDS race at LDS address 0x")) << p.kernel << ": " << msg;
    EXPECT_TRUE(has(msg, "kernel '" + std::string(p.kernel) + "'")) << msg;
    EXPECT_TRUE(has(msg, p.wave1)) << msg;
    EXPECT_TRUE(has(msg, p.wave0)) << msg;
    // Both instructions, each with its pc (Program::where: "pc 0x.. (address ..) 'text'").
    const auto first = msg.find(p.insts[0]), second = msg.find(p.insts[1], first + 1);
    EXPECT_NE(first, std::string::npos) << msg;
    EXPECT_NE(second, std::string::npos) << msg;
    EXPECT_GE(std::count(msg.begin(), msg.end(), '\''), 6) << msg;
    EXPECT_TRUE(has(msg, "with no s_barrier between them (both waves had passed ")) << msg;
  }
}

// The epochs decide, not the order the schedule ran the accesses in: every seed reports.
TEST(LdsRace, FoundUnderEverySchedule) {
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    SimulatorExecutor ex;
    ex.options().schedule = Schedule::Random;
    ex.options().seed = seed;
    ex.options().quantum = 3;
    for (const Planted& p : kRaces) {
      Buffers r;
      EXPECT_TRUE(has(run(ex, p.kernel, r), "LDS race")) << p.kernel << " seed " << seed;
    }
  }
}

TEST(LdsRace, RaceFreeKernelsRunAndCompute) {
  SimulatorExecutor ex;
  {
    Buffers r;
    ASSERT_EQ(run(ex, "barrier_ok", r), "");
    for (int t = 64; t < 128; ++t) EXPECT_EQ(r.o[t], r.x[t - 64]) << t;
  }
  {
    Buffers r;
    ASSERT_EQ(run(ex, "dma_barrier_ok", r), "");
    for (int t = 64; t < 128; ++t) EXPECT_EQ(r.o[t], r.x[t - 64]) << t;
  }
  {
    Buffers r;
    ASSERT_EQ(run(ex, "same_wave_ok", r), "");
    for (int t = 0; t < 128; ++t) EXPECT_EQ(r.o[t], r.x[t ^ 1]) << t;
  }
  {
    Buffers r;
    ASSERT_EQ(run(ex, "atomics_ok", r), "");
    const int sum = std::accumulate(r.x.begin(), r.x.end(), 0);
    for (int t = 0; t < 128; ++t) EXPECT_EQ(r.o[t], sum) << t;
  }
  {
    Buffers r;  // wave 0 writes bytes 0-1, wave 1 bytes 2-3 of each dword: no byte in common
    ASSERT_EQ(run(ex, "halves_ok", r), "");
    for (int t = 0; t < 128; ++t) EXPECT_EQ(r.o[t], r.x[t] & 0xffff) << t;
  }
}

TEST(LdsRace, ReportListsEachPairOnceWithItsCountAndGoesOn) {
  SimulatorExecutor ex;
  ex.options().lds_races = LdsRaces::Report;
  Buffers r;
  ASSERT_EQ(run(ex, "write_read_race", r), "");
  for (int t = 64; t < 128; ++t) EXPECT_EQ(r.o[t], r.x[t - 64]) << t;  // round-robin: wave 0 first
  const auto& races = ex.last_lds_races();
  ASSERT_EQ(races.size(), 1u);
  const LdsRace& race = races[0];
  EXPECT_EQ(race.wave, 1u);
  EXPECT_EQ(race.other_wave, 0u);
  EXPECT_EQ(race.access, LdsAccess::Read);
  EXPECT_EQ(race.other_access, LdsAccess::Write);
  EXPECT_TRUE(has(race.inst, "ds_read_b32")) << race.inst;
  EXPECT_TRUE(has(race.other_inst, "ds_write_b32")) << race.other_inst;
  EXPECT_NE(race.pc, race.other_pc);
  EXPECT_EQ(race.address, 0u);  // lane 64 reads s[0] first
  EXPECT_EQ(race.count, 256u);  // 64 lanes x 4 bytes
  EXPECT_EQ(race.barriers, 0u);
  EXPECT_TRUE(has(race.message, "LDS race at LDS address 0x0")) << race.message;
  EXPECT_TRUE(has(describe(race), "(256 racing bytes)")) << describe(race);
  // A clean run leaves the list empty.
  ASSERT_EQ(run(ex, "barrier_ok", r), "");
  EXPECT_TRUE(ex.last_lds_races().empty());
}

TEST(LdsRace, OffChecksNothing) {
  SimulatorExecutor ex;
  ex.options().lds_races = LdsRaces::Off;
  for (const Planted& p : kRaces) {
    Buffers r;
    EXPECT_EQ(run(ex, p.kernel, r), "") << p.kernel;
  }
  EXPECT_TRUE(ex.last_lds_races().empty());
}

TEST(LdsRace, PolicyNames) {
  LdsRaces r = LdsRaces::Off;
  EXPECT_TRUE(parse_lds_races("error", r));
  EXPECT_EQ(r, LdsRaces::Error);
  EXPECT_TRUE(parse_lds_races("report", r));
  EXPECT_EQ(r, LdsRaces::Report);
  EXPECT_TRUE(parse_lds_races("off", r));
  EXPECT_EQ(r, LdsRaces::Off);
  EXPECT_FALSE(parse_lds_races("warn", r));
  EXPECT_STREQ(to_string(LdsRaces::Report), "report");
}

}  // namespace
}  // namespace cdna::simulator
