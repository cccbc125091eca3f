#include "audit/run/case_jobs.hpp"

#include <mpfr.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace cdna::audit {

void for_each_index(std::size_t count, unsigned workers,
                    const std::function<void(unsigned worker, std::size_t index)>& work) {
  if (workers == 0) throw std::invalid_argument("for_each_index: workers must be >= 1");
  if (workers == 1) {
    for (std::size_t i = 0; i < count; ++i) work(0, i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::mutex error_mutex;
  std::exception_ptr error;
  std::size_t error_index = count;
  auto loop = [&](unsigned worker) {
    for (std::size_t i = next.fetch_add(1); i < count; i = next.fetch_add(1)) {
      try {
        work(worker, i);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(error_mutex);
        if (i < error_index) {
          error_index = i;
          error = std::current_exception();
        }
        next.store(count);  // start nothing more, as a plain loop would stop here
        return;
      }
    }
  };
  std::vector<std::thread> threads;
  const unsigned n = static_cast<unsigned>(std::min<std::size_t>(workers, std::max<std::size_t>(count, 1)));
  threads.reserve(n);
  for (unsigned w = 0; w < n; ++w) {
    threads.emplace_back([&loop, w] {
      loop(w);
      mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE);  // the oracle's and the simulator's MPFR constants of this thread
    });
  }
  for (std::thread& t : threads) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace cdna::audit
