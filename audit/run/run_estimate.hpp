// `cdna-verify run`: what a problem will cost, computed from its shape before anything is
// allocated (issue 13 §4: `run --shape 64,65536,65536,64,64,128` died of std::bad_alloc), and the
// limits the user can raise (--max-memory, --max-work). docs/ci.md "Fail fast" gives the figures.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "reference/attention/attention.hpp"

namespace cdna::audit {

struct RunEstimate {
  // Host bytes `run` allocates, a lower bound: Q, K, V (bf16) as generated; the same again as the
  // executor's buffers (the simulator's global memory, or the device's); the kernel's O (bf16)
  // and LSE (fp32) in the executor and on the host; the exact oracle's O and LSE (fp64).
  double bytes = 0;
  // Multiply-adds of QK^T and PV over every (query, key) pair: B * Hq * Sq * Sk * (D + Dv). An
  // upper bound under a causal mask (about half the pairs are visible). Both the exact oracle and
  // the kernel do this work, so it measures the time of either.
  double work = 0;
  // Seconds on this class of machine at the rates measured for docs/ci.md (kOracleMacsPerSecond,
  // kSimulatorMacsPerSecond); the simulator's part only when it is the executor.
  double seconds = 0;
  // "memory 12.3 GiB (...), work 3.4e10 multiply-adds (~2:10 on the simulator and the oracle)".
  std::string text() const;
};

// Multiply-adds per second of the exact oracle and of the simulator running our kernel, measured
// on the development machine (audit case llama3-8b/sq128-sk128, B 1, Hq 32, Sq = Sk = 128, D 128:
// 1.34e8 multiply-adds, oracle 2.54 s, kernel on the simulator 2.11 s; docs/ci.md "Fail fast"):
// an estimate to warn, never a limit (the limits are in bytes and multiply-adds).
inline constexpr double kOracleMacsPerSecond = 5.3e7;
inline constexpr double kSimulatorMacsPerSecond = 6.4e7;

RunEstimate estimate_run(const reference::AttentionShape& s, bool simulator);

// "12.3 GiB", "512 MiB", "800 bytes".
std::string bytes_text(double bytes);

// Reads BYTES with an optional unit: 123, 64KiB, 512MiB, 8GiB, 1.5GiB, 2TiB (powers of 1024; the
// SI forms KB, MB, GB, TB are taken as the same powers of 1024, as `free -h` prints them). nullopt
// when the text is none of these.
std::optional<double> parse_bytes(const std::string& text);

// Half of MemAvailable in /proc/meminfo (Linux), the default of --max-memory: the rest stays for
// the other processes of a CI runner. nullopt when /proc/meminfo cannot be read.
std::optional<double> default_max_memory();

// Throws std::invalid_argument (exit 2), one line naming the estimate, the limit and the flag
// that raises it, when `e` passes max_bytes or max_work.
void check_run_limits(const RunEstimate& e, double max_bytes, double max_work);

}  // namespace cdna::audit
