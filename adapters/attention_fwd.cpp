#include "adapters/attention_fwd.hpp"

#include <stdexcept>

namespace cdna::adapters {

KernelFeatures AttentionFwdAdapter::features() const {
  KernelFeatures f;
  f.head_dims = {64, 128};
  f.masks = {reference::Mask::None, reference::Mask::CausalBottomRight};
  f.gqa = true;
  f.writes_lse = true;
  f.modes = {std::begin(numerics::kAllRoundings), std::end(numerics::kAllRoundings)};
  f.limits = "element counts within int32, B and Hq <= 65535";
  return f;
}

std::string AttentionFwdAdapter::default_source() const { return CDNA_CODE_OBJECT_DIR; }

std::vector<LoadedCodeObject> AttentionFwdAdapter::load(numerics::Rounding mode,
                                                        const std::filesystem::path& source) {
  std::filesystem::path path = source;
  if (path.empty()) path = device::attention_code_object(mode);
  else if (std::filesystem::is_directory(path)) path = device::attention_code_object(mode, path);
  AttentionCodeObject c = load_attention_code_object(path, mode, device::kAttentionKernels);
  LoadedCodeObject loaded{c.path.string(), std::string(numerics::to_string(mode)), c.mode_recorded};
  code_[mode] = std::move(c);
  return {loaded};
}

std::optional<std::string> AttentionFwdAdapter::unsupported_detail(const reference::AttentionProblem& problem,
                                                                   numerics::Rounding) const {
  return device::attention_unsupported_reason(problem);
}

device::AttentionOutput AttentionFwdAdapter::launch(device::Executor& executor,
                                                    const reference::AttentionProblem& problem,
                                                    numerics::Rounding mode) {
  return device::run_attention(executor, loaded(mode).bytes, problem);
}

std::optional<std::string> AttentionFwdAdapter::varlen_unsupported_reason(const reference::VarlenProblem& problem,
                                                                          numerics::Rounding) const {
  return device::attention_unsupported_reason(problem);
}

device::AttentionOutput AttentionFwdAdapter::launch_varlen(device::Executor& executor,
                                                           const reference::VarlenProblem& problem,
                                                           numerics::Rounding mode) {
  return device::run_attention_varlen(executor, loaded(mode).bytes, problem);
}

const AttentionCodeObject& AttentionFwdAdapter::loaded(numerics::Rounding mode) const {
  auto it = code_.find(mode);
  if (it == code_.end())
    throw std::logic_error("attention-fwd: no code object loaded for " + std::string(numerics::to_string(mode)));
  return it->second;
}

}  // namespace cdna::adapters
