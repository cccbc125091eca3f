#include "audit/golden/golden_kernel.hpp"

#include <algorithm>
#include <iostream>
#include <optional>
#include <stdexcept>

#include "device/attention_launcher.hpp"
#include "audit/run/executor_choice.hpp"
#include "simulator/schedule/simulator_executor.hpp"

namespace cdna::audit {

std::unique_ptr<device::Executor> make_executor(const std::string& name) {
  if (name == "none") return nullptr;
  return choose_executor(name).executor;  // "hip" without a device: ExecutorUnavailable (exit 3)
}

std::vector<std::filesystem::path> golden_files_under(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(path, ec)) {
      if (e.is_regular_file() && e.path().extension() == ".safetensors") files.push_back(e.path());
    }
    if (ec) throw std::runtime_error("cannot list '" + path.string() + "': " + ec.message());
    std::sort(files.begin(), files.end());
    if (files.empty()) throw std::runtime_error("no .safetensors file in '" + path.string() + "'");
    return files;
  }
  if (!std::filesystem::exists(path, ec)) throw std::runtime_error("cannot read '" + path.string() + "': No such file or directory");
  return {path};
}

CodeObjects::CodeObjects(const std::string& kernel, std::filesystem::path source)
    : adapter_(adapters::make_adapter(kernel)), source_(std::move(source)) {}

std::optional<std::string> CodeObjects::mode_refusal(numerics::Rounding mode) const {
  const auto modes = adapter_->features().modes;
  if (std::find(modes.begin(), modes.end(), mode) != modes.end()) return std::nullopt;
  std::string built;
  for (numerics::Rounding m : modes) built += (built.empty() ? "" : ", ") + std::string(numerics::to_string(m));
  return "rounding mode " + std::string(numerics::to_string(mode)) + " is not built for " + adapter_->name() +
         " (built: " + built + ")";
}

adapters::KernelAdapter& CodeObjects::get(numerics::Rounding mode) {
  if (!paths_.contains(mode)) {
    std::string paths;
    for (const auto& c : adapter_->load(mode, source_))
      paths += (paths.empty() ? "" : ", ") + std::filesystem::path(c.path).filename().string();
    paths_[mode] = paths;
  }
  return *adapter_;
}

std::optional<std::string> golden_kernel_reason(const golden::GoldenFile& g, CodeObjects& code) {
  if (auto why = code.mode_refusal(g.mode)) return why;
  adapters::KernelAdapter& kernel = code.get(g.mode);
  if (g.layout.name != "bshd") return "the golden tools run kernels in layout bshd only (this file: " + g.layout.name + ")";
  if (g.varlen) {
    if (kernel.name() != "attention-fwd") {  // a peer's varlen launch (AITER's group mode, paged attention)
      if (auto feature = reference::extended_feature(g.varlen->base))
        return "the golden tools run peer kernels on the base definition only (this problem has " + *feature + ")";
      return kernel.varlen_unsupported_reason(*g.varlen, g.mode);
    }
    if (!code.source().empty()) return "the golden tools run varlen files on our kernel from the build's code objects only";
    return device::attention_unsupported_reason(*g.varlen);
  }
  if (auto feature = reference::extended_feature(g.problem); feature && kernel.name() != "attention-fwd")
    return "the golden tools run peer kernels on the base definition only (this problem has " + *feature + ")";
  return kernel.unsupported_reason(g.problem, g.mode);
}

device::AttentionOutput run_golden_kernel(const golden::GoldenFile& g, device::Executor& executor, CodeObjects& code) {
  if (!g.varlen) return code.get(g.mode).run(executor, g.problem, g.mode);
  if (code.get(g.mode).name() != "attention-fwd") return code.get(g.mode).run_varlen(executor, *g.varlen, g.mode);
  const std::vector<std::byte> bytes = device::read_file(device::attention_code_object(g.mode), "attention code object");
  return device::run_attention_varlen(executor, bytes, *g.varlen);
}

void fill_kernel_output(golden::GoldenFile& g, device::Executor* executor, CodeObjects& code) {
  // A file the kernel is not run on says why in 'kernel' rather than storing bits of another problem.
  const std::optional<std::string> why = golden_kernel_reason(g, code);
  if (executor && !why) {
    adapters::KernelAdapter& kernel = code.get(g.mode);
    const device::AttentionOutput out = run_golden_kernel(g, *executor, code);
    g.kernel = golden::KernelOutput{out.o, kernel.features().writes_lse ? out.lse : std::vector<float>{}};
    g.provenance["executor"] = executor->name();
    if (kernel.name() == "attention-fwd") {
      // Ours: no kernel_adapter key (absent means ours), so files of earlier versions still match.
      g.provenance["kernel_code_object"] =
          device::attention_code_object(g.mode).filename().string() + " (device/kernels/attention_fwd.hip, kernel " +
          // Varlen and windowed problems run the extended kernel (device/attention_launcher.hpp).
          (g.varlen || g.problem.window_left != -1 || g.problem.window_right != -1 ? device::kAttentionExtKernels
                                                                                   : device::kAttentionKernels)
              [g.features().shape.head_dim == 64 ? 0 : 1] + ")";
    } else {
      g.provenance["kernel_adapter"] = kernel.name();
      // The one that ran where the adapter says, else every one loaded for the mode.
      g.provenance["kernel_code_object"] =
          kernel.last_code_object().empty() ? code.file_names(g.mode) : kernel.last_code_object();
    }
  } else {
    g.kernel.reset();
    g.provenance["executor"] = "none";
    g.provenance["kernel"] = why ? "not run: " + *why : "not run (--executor none)";
  }
}

}  // namespace cdna::audit
