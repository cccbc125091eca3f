#include "tools/golden_kernel.hpp"

#include <iostream>
#include <optional>
#include <stdexcept>

#include "device/attention_launcher.hpp"
#include "device/hip_executor.hpp"
#include "simulator/simulator_executor.hpp"

namespace cdna::tools {
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

CodeObjects::CodeObjects(const std::string& kernel, std::filesystem::path source)
    : adapter_(adapters::make_adapter(kernel)), source_(std::move(source)) {}

adapters::KernelAdapter& CodeObjects::get(numerics::Rounding mode) {
  if (!paths_.contains(mode)) {
    std::string paths;
    for (const auto& c : adapter_->load(mode, source_))
      paths += (paths.empty() ? "" : ", ") + std::filesystem::path(c.path).filename().string();
    paths_[mode] = paths;
  }
  return *adapter_;
}

std::optional<std::string> golden_kernel_limit(const golden::GoldenFile& g, const std::string& kernel) {
  if (g.varlen) return "the golden tools run kernels on dense problems only (this file is varlen)";
  if (g.layout.name != "bshd") return "the golden tools run kernels in layout bshd only (this file: " + g.layout.name + ")";
  if (auto feature = reference::extended_feature(g.problem); feature && kernel != "attention-fwd")
    return "the golden tools run peer kernels on the base definition only (this problem has " + *feature + ")";
  return std::nullopt;
}

void fill_kernel_output(golden::GoldenFile& g, device::Executor* executor, CodeObjects& code) {
  adapters::KernelAdapter& kernel = code.get(g.mode);
  std::optional<std::string> why;
  // The golden tools run kernels on dense BSHD problems; extended features only through our own
  // adapter, whose unsupported_reason names each feature it does not take. A file beyond that
  // says so in 'kernel' rather than storing bits of another problem.
  if (auto why_not = golden_kernel_limit(g, kernel.name())) why = why_not;
  else why = kernel.unsupported_reason(g.problem, g.mode);
  if (executor && !why) {
    const device::AttentionOutput out = kernel.run(*executor, g.problem, g.mode);
    g.kernel = golden::KernelOutput{out.o, kernel.features().writes_lse ? out.lse : std::vector<float>{}};
    g.provenance["executor"] = executor->name();
    if (kernel.name() == "attention-fwd") {
      // Ours: no kernel_adapter key (absent means ours), so files of earlier versions still match.
      g.provenance["kernel_code_object"] =
          device::attention_code_object(g.mode).filename().string() + " (device/kernels/attention_fwd.hip, kernel " +
          // Windowed problems run the extended kernel (device::run_attention).
          (g.problem.window_left != -1 || g.problem.window_right != -1 ? device::kAttentionExtKernels
                                                                       : device::kAttentionKernels)
              [g.problem.shape.head_dim == 64 ? 0 : 1] + ")";
    } else {
      g.provenance["kernel_adapter"] = kernel.name();
      g.provenance["kernel_code_object"] = code.file_names(g.mode);
    }
  } else {
    g.kernel.reset();
    g.provenance["executor"] = "none";
    g.provenance["kernel"] = why ? "not run: " + *why : "not run (--executor none)";
  }
}

}  // namespace cdna::tools
