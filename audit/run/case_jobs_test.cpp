// for_each_index (audit/run/case_jobs.hpp): every index once, on more than one thread when asked,
// the exception a plain loop would stop at, and no index started after a failure is known.
#include "audit/run/case_jobs.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace cdna::audit {
namespace {

TEST(ForEachIndex, EveryIndexOnceOnEveryWorker) {
  constexpr std::size_t kCount = 64;
  std::vector<std::atomic<int>> runs(kCount);
  std::mutex m;
  std::set<unsigned> workers;
  std::set<std::thread::id> threads;
  for_each_index(kCount, 3, [&](unsigned w, std::size_t i) {
    ++runs[i];
    std::this_thread::sleep_for(std::chrono::milliseconds(2));  // every worker gets some
    const std::lock_guard<std::mutex> lock(m);
    workers.insert(w);
    threads.insert(std::this_thread::get_id());
  });
  for (std::size_t i = 0; i < kCount; ++i) EXPECT_EQ(runs[i], 1) << "index " << i;
  EXPECT_EQ(workers, (std::set<unsigned>{0, 1, 2}));
  EXPECT_EQ(threads.size(), 3u);
  EXPECT_FALSE(threads.contains(std::this_thread::get_id()));
}

TEST(ForEachIndex, OneWorkerIsAPlainLoopOnTheCallingThread) {
  std::vector<std::size_t> order;
  const std::thread::id caller = std::this_thread::get_id();
  for_each_index(5, 1, [&](unsigned w, std::size_t i) {
    EXPECT_EQ(w, 0u);
    EXPECT_EQ(std::this_thread::get_id(), caller);
    order.push_back(i);
  });
  EXPECT_EQ(order, (std::vector<std::size_t>{0, 1, 2, 3, 4}));
}

TEST(ForEachIndex, RethrowsTheLowestFailingIndex) {
  // Index 5 fails late, index 9 at once: a plain loop stops at 5, so 5's error is the one seen.
  std::atomic<bool> nine_failed{false};
  try {
    for_each_index(12, 2, [&](unsigned, std::size_t i) {
      if (i == 5) {
        while (!nine_failed) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        throw std::runtime_error("case 5");
      }
      if (i == 9) {
        nine_failed = true;
        throw std::runtime_error("case 9");
      }
    });
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "case 5");
  }
}

TEST(ForEachIndex, StartsNothingAfterAFailure) {
  std::atomic<std::size_t> started{0};
  EXPECT_THROW(for_each_index(1000, 2,
                              [&](unsigned, std::size_t i) {
                                ++started;
                                if (i == 3) throw std::runtime_error("stop");
                                std::this_thread::sleep_for(std::chrono::milliseconds(1));
                              }),
               std::runtime_error);
  EXPECT_LT(started.load(), 10u);  // 0-3, and what the other worker had already begun
}

TEST(ForEachIndex, ZeroWorkersIsAnError) {
  EXPECT_THROW(for_each_index(3, 0, [](unsigned, std::size_t) {}), std::invalid_argument);
}

TEST(ForEachIndex, NoIndexNoCall) {
  int calls = 0;
  for_each_index(0, 4, [&](unsigned, std::size_t) { ++calls; });
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace cdna::audit
