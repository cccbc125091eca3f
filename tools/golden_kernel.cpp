#include "tools/golden_kernel.hpp"

#include <iostream>
#include <stdexcept>

#include "device/attention_launcher.hpp"
#include "device/hip_executor.hpp"
#include "simulator/simulator_executor.hpp"

namespace cdna::tools {
namespace {

std::string kernel_description(const reference::AttentionProblem& p, numerics::Rounding mode) {
  return device::attention_code_object(mode).filename().string() + " (device/kernels/attention_fwd.hip, kernel " +
         (p.shape.head_dim == 64 ? device::kAttentionKernels[0] : device::kAttentionKernels[1]) + ")";
}

}  // namespace

std::unique_ptr<device::Executor> make_executor(const std::string& name) {
  if (name == "none") return nullptr;
  if (name != "simulator") {
    std::string why_not;
    auto hip = device::make_hip_executor(why_not);
    if (hip) return hip;
    if (name == "hip") throw std::runtime_error(why_not);
    std::cerr << "cdna-verify: " << why_not << "; falling back to the CDNA3 simulator\n";
  }
  return std::make_unique<simulator::SimulatorExecutor>();
}

const std::vector<std::byte>& CodeObjects::get(numerics::Rounding mode) {
  auto it = code_.find(mode);
  if (it == code_.end()) {
    it = code_.emplace(mode, device::read_file(device::attention_code_object(mode), "code object")).first;
  }
  return it->second;
}

void fill_kernel_output(golden::GoldenFile& g, device::Executor* executor, CodeObjects& code) {
  const auto why = device::attention_unsupported_reason(g.problem);
  if (executor && !why) {
    const device::AttentionOutput out = device::run_attention(*executor, code.get(g.mode), g.problem);
    g.kernel = golden::KernelOutput{out.o, out.lse};
    g.provenance["executor"] = executor->name();
    g.provenance["kernel_code_object"] = kernel_description(g.problem, g.mode);
  } else {
    g.kernel.reset();
    g.provenance["executor"] = "none";
    g.provenance["kernel"] = why ? "not run: " + *why : "not run (--executor none)";
  }
}

}  // namespace cdna::tools
