// No heap allocation on the execute path (issue 14 item 1): the allocations of one dispatch of
// the VALU loop kernel (testdata/bench.hip valu_loop: VALU, SALU, a branch per iteration) do not
// grow with its iteration count. Counted by replacing the global operator new in this binary
// (its own executable: the replacement applies to everything linked into it).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "simulator/tests/test_util.hpp"

namespace {
std::atomic<std::uint64_t> g_allocations{0};
}  // namespace

void* operator new(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace cdna::simulator {
namespace {

using namespace testing;

// Allocations made by one run of valu_loop with `iters` iterations (64 work-items x 4 groups).
std::uint64_t allocations_of_run(SimulatorExecutor& ex, const std::vector<std::byte>& co, int iters,
                                 std::uint64_t& wave_instructions) {
  std::vector<float> o(64 * 256);
  const auto d = dispatch("valu_loop", {4, 1, 1}, {64, 1, 1}, {out(o), val(iters)});
  const std::uint64_t before = g_allocations.load();
  ex.run(co, d);
  const std::uint64_t n = g_allocations.load() - before;
  wave_instructions = ex.last_stats().wave_instructions;
  return n;
}

TEST(SimAlloc, ExecutePathAllocatesNothingPerInstruction) {
  SimulatorExecutor ex;
  const auto co = testdata("bench");
  std::uint64_t short_insts = 0, long_insts = 0;
  allocations_of_run(ex, co, 10, short_insts);  // warm-up: decode caches, pools
  const std::uint64_t short_allocs = allocations_of_run(ex, co, 10, short_insts);
  const std::uint64_t long_allocs = allocations_of_run(ex, co, 1000, long_insts);
  ASSERT_GT(long_insts, short_insts + 50000);  // the long run executes ~59,000 more instructions
  EXPECT_EQ(long_allocs, short_allocs) << short_insts << " vs " << long_insts << " wave instructions";
}

}  // namespace
}  // namespace cdna::simulator
