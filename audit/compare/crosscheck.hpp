// The simulator-vs-hardware comparison of `cdna-verify crosscheck` (docs/ci.md "Simulator vs
// hardware"): one kernel output from each of two executors, compared bit for bit, and the report
// of a whole run (table, crosscheck.json, crosscheck.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "audit/golden/golden_kernel.hpp"
#include "device/attention_launcher.hpp"
#include "device/executor.hpp"
#include "golden/golden_file.hpp"

namespace cdna::audit {

// The first element whose bits differ between the two outputs.
struct FirstDifference {
  std::string tensor;          // "o" (bf16) or "lse" (fp32)
  std::int64_t flat_index = 0;  // row-major index into the tensor
  std::string index;           // the same as a multi-index over the tensor's shape, e.g. "[0,3,1,17]"
  std::uint32_t bits_a = 0, bits_b = 0;  // the raw bits (bf16 in the low 16 bits)
  double value_a = 0, value_b = 0;       // the values they encode
};

// One output pair compared: O first, then LSE; bitwise (a NaN equals only the same NaN bits).
struct OutputComparison {
  std::int64_t elements = 0;   // O elements + LSE values compared
  std::int64_t differing = 0;  // of them, with different bits
  std::optional<FirstDifference> first;
  bool equal() const { return differing == 0; }
};

// Compares a (the reference simulator's output) with b (the other executor's) over O of shape
// `o_shape` and LSE of shape `lse_shape` (LSE empty in both for a kernel without one). Throws
// std::invalid_argument when the sizes disagree with the shapes or with each other.
OutputComparison compare_outputs(const device::AttentionOutput& a, const device::AttentionOutput& b,
                                 const std::vector<std::int64_t>& o_shape, const std::vector<std::int64_t>& lse_shape);

// Runs our kernel (the build's code object of g.mode) on dense golden file g in its own layout
// (golden/layout.hpp: bhsd, sbhd or explicit strides): Q, K, V scattered from their stored BSHD
// values into buffers with g.layout's strides (gaps hold a quiet NaN), O gathered back to BSHD.
// Throws std::invalid_argument for a varlen file, a d stride other than 1, or a problem the kernel
// does not take (device::attention_unsupported_reason), and whatever the executor throws.
device::AttentionOutput run_ours_in_layout(const golden::GoldenFile& g, device::Executor& executor);

// One line for a comparison: "bitwise equal (N elements)" or "N of M differ; first o[0,3,1,17]
// 0x3f80 (1) vs 0x3f81 (1.0078125)".
std::string describe(const OutputComparison& c);

// One row of the report: a golden file run by one kernel.
struct CrosscheckRow {
  std::string file;    // the golden file's name, e.g. "C01.rtne.safetensors"
  std::string kernel;  // adapter name
  std::string mode;    // "RTNE", ...
  enum class Status { Equal, Differ, Skipped, Error } status = Status::Skipped;
  std::string note;    // Skipped: why; Error: the executor's one-line error
  OutputComparison comparison;
};
const char* to_string(CrosscheckRow::Status s);

// One golden file run by `kernel` on the reference executor (the simulator) and on `other`, and
// the two outputs compared bit for bit: Equal or Differ with the comparison; Skipped with the
// reason when the kernel does not take the problem; Error with the executor's one-line error when
// a run throws. Our kernel runs a dense file in its own layout (run_ours_in_layout); any other
// kernel, and every varlen file, as the golden tools run it (audit/golden/golden_kernel.hpp).
CrosscheckRow crosscheck_file(const golden::GoldenFile& g, const std::string& file, const std::string& kernel,
                              CodeObjects& code, device::Executor& reference, device::Executor& other);

struct CrosscheckReport {
  device::Description reference, other;  // the two executors (describe(), plus settings)
  std::vector<std::string> kernels_skipped;  // one line each: a kernel that could not be loaded, and why
  std::vector<CrosscheckRow> rows;
  double seconds = 0;
  int count(CrosscheckRow::Status s) const;
  // The run's exit code (audit/output/exit_codes.hpp): 1 if a row differs or a run erred, else 2
  // if no row was compared (NOTHING JUDGED), else 0.
  int exit_code() const;
};

// The end-of-run table, one line per row.
std::string crosscheck_table(const CrosscheckReport& r);
std::string crosscheck_json(const CrosscheckReport& r);
std::string crosscheck_markdown(const CrosscheckReport& r);

}  // namespace cdna::audit
