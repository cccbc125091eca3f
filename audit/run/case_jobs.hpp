// Work items run on several threads, taken in increasing order from a shared counter: the
// audit's cases on `--jobs` workers (docs/ci.md "Parallel cases"). Results go wherever the caller
// puts them by index, so their order does not depend on which thread ran what.
#pragma once

#include <cstddef>
#include <functional>

namespace cdna::audit {

// Runs work(worker, index) once for every index in [0, count), on `workers` threads (worker ids
// 0 .. workers-1; workers = 1: on the calling thread, in index order, as a plain loop). Each
// thread takes the next index when it finishes one. If work throws, no further index is
// started; after every thread has joined, the exception of the lowest index that threw is
// rethrown: the one a plain loop would have stopped at. Threads started here free MPFR's
// thread-local caches when they end (mpfr_free_cache2). Throws std::invalid_argument if
// workers is 0.
void for_each_index(std::size_t count, unsigned workers,
                    const std::function<void(unsigned worker, std::size_t index)>& work);

}  // namespace cdna::audit
