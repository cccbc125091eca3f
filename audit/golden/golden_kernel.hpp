// Our kernel's part of a golden file, shared by `golden gen`, `golden make` and `golden verify`:
// the executor that runs it, its code objects, and filling o_kernel/lse_kernel or recording why
// there is none.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <filesystem>

#include "adapters/kernel_adapter.hpp"
#include "device/executor.hpp"
#include "golden/golden_file.hpp"

namespace cdna::audit {

// The kernel's executor: "none" gives no executor; else choose_executor(name) (tools/
// executor_choice.hpp: "hip" without a gfx942 device throws ExecutorUnavailable, exit 3).
std::unique_ptr<device::Executor> make_executor(const std::string& name);

// The golden files under `path` (a directory: its *.safetensors, sorted; or one file). Throws
// std::runtime_error naming the path when it does not exist, cannot be listed or holds none.
std::vector<std::filesystem::path> golden_files_under(const std::filesystem::path& path);

// A kernel (adapters/kernel_adapter.hpp) whose code objects are loaded once per mode from
// `source` (empty: the adapter's default).
class CodeObjects {
 public:
  explicit CodeObjects(const std::string& kernel = "attention-fwd", std::filesystem::path source = {});
  // Loads `mode` on first use; throws what KernelAdapter::load throws.
  adapters::KernelAdapter& get(numerics::Rounding mode);
  // The file names of the code object(s) loaded for `mode` (after get(mode)), comma-separated:
  // provenance that does not depend on where the build or the peers folder is.
  const std::string& file_names(numerics::Rounding mode) const { return paths_.at(mode); }
  // The code objects' source as given (empty: the adapter's default, for ours the build's).
  const std::filesystem::path& source() const { return source_; }
  // Why the kernel is not built in `mode` ("rounding mode RTNE is not built for aiter-pa (built:
  // RTNA)"), or nullopt; from its features, nothing is loaded.
  std::optional<std::string> mode_refusal(numerics::Rounding mode) const;

 private:
  std::unique_ptr<adapters::KernelAdapter> adapter_;
  std::filesystem::path source_;
  std::map<numerics::Rounding, std::string> paths_;
};

// Why the golden tools do not run code's kernel on g, or nullopt: layouts other than bshd (the
// adapters take contiguous problems); varlen files: ours only from the build's code objects
// (device::run_attention_varlen), then whatever device::attention_unsupported_reason says, a
// peer through its adapter's varlen launch (varlen_unsupported_reason: AITER's group mode, AITER
// paged attention); peer kernels on extended features; else the adapter's unsupported_reason.
// Loads the mode's code object (CodeObjects::get).
std::optional<std::string> golden_kernel_reason(const golden::GoldenFile& g, CodeObjects& code);

// Runs code's kernel on g (call only when golden_kernel_reason gives nullopt): dense files
// through the adapter, varlen files through our kernel's varlen launcher or a peer's
// KernelAdapter::run_varlen. O and LSE in the
// file's layout ([rows_q, Hq, Dv] and [Hq, rows_q] for varlen; rows no sequence owns hold
// device::kUnwrittenO / kUnwrittenLseBits).
device::AttentionOutput run_golden_kernel(const golden::GoldenFile& g, device::Executor& executor, CodeObjects& code);

// Runs the kernel on g.problem in g.mode and stores its output as g.kernel (LSE empty for a
// kernel without one), with provenance "executor", "kernel_adapter" and "kernel_code_object";
// or, without an executor or for a problem the kernel rejects (KernelAdapter::unsupported_reason),
// leaves g.kernel empty and records why in provenance "kernel" (executor "none").
void fill_kernel_output(golden::GoldenFile& g, device::Executor* executor, CodeObjects& code);

}  // namespace cdna::audit
