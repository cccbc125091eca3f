// Our kernel's part of a golden file, shared by `golden gen`, `golden make` and `golden verify`:
// the executor that runs it, its code objects, and filling o_kernel/lse_kernel or recording why
// there is none.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "device/executor.hpp"
#include "golden/golden_file.hpp"

namespace cdna::tools {

// The kernel's executor: "none" gives no executor; "simulator" the CDNA3 simulator; "hip" the HIP
// runtime (std::runtime_error if no gfx942 device); "auto" the HIP runtime if a gfx942 device is
// there, else the simulator (with a note on stderr).
std::unique_ptr<device::Executor> make_executor(const std::string& name);

// Code objects of the built attention kernel, read once per mode.
class CodeObjects {
 public:
  const std::vector<std::byte>& get(numerics::Rounding mode);

 private:
  std::map<numerics::Rounding, std::vector<std::byte>> code_;
};

// Runs our kernel on g.problem in g.mode and stores its output as g.kernel, with provenance
// "executor" and "kernel_code_object"; or, without an executor or for a problem the kernel
// rejects (device::attention_unsupported_reason: D not 64/128, causal top-left), leaves g.kernel
// empty and records why in provenance "kernel" (executor "none").
void fill_kernel_output(golden::GoldenFile& g, device::Executor* executor, CodeObjects& code);

}  // namespace cdna::tools
