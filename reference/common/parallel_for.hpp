// parallel_for: tasks spread over a few std::threads, for the reference's row-parallel loops.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace cdna::reference {

// Runs fn(worker, t) for t in [0, tasks) on up to `threads` std::threads; rethrows the first error.
template <class Fn>
void parallel_for(std::int64_t tasks, unsigned threads, Fn&& fn) {
  if (tasks <= 0) return;
  threads = static_cast<unsigned>(std::min<std::int64_t>(threads, tasks));
  std::atomic<std::int64_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&](unsigned worker) {
    try {
      for (std::int64_t t = next.fetch_add(1); t < tasks; t = next.fetch_add(1)) fn(worker, t);
    } catch (...) {
      const std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
      next.store(tasks);
    }
  };
  if (threads <= 1) {
    work(0);
  } else {
    std::vector<std::thread> pool;
    pool.reserve(threads);
    for (unsigned w = 0; w < threads; ++w) pool.emplace_back(work, w);
    for (std::thread& th : pool) th.join();
  }
  if (error) std::rethrow_exception(error);
}


}  // namespace cdna::reference
