// Our kernel (device/kernels/attention_fwd.hip) behind the adapter interface: one code object
// per mode (attention_fwd_{rtne,rtna,rtz}.hsaco, each recording its mode in the symbol
// `cdna_bf16_rounding`), kernels attn_fwd_d64 and attn_fwd_d128, launched by
// device::launch_attention.
#pragma once

#include <map>

#include "adapters/code_object_mode.hpp"
#include "adapters/kernel_adapter.hpp"

namespace cdna::adapters {

class AttentionFwdAdapter : public KernelAdapter {
 public:
  std::string name() const override { return "attention-fwd"; }
  KernelFeatures features() const override;
  std::string default_source() const override;
  // `source`: empty (the build's device/ folder), a directory holding attention_fwd_<mode>.hsaco,
  // or one code object file holding both kernels.
  std::vector<LoadedCodeObject> load(numerics::Rounding mode, const std::filesystem::path& source) override;
  // The extended kernel's limits (device::attention_unsupported_reason).
  std::optional<std::string> varlen_unsupported_reason(const reference::VarlenProblem& problem,
                                                       numerics::Rounding mode) const override;

 protected:
  std::optional<std::string> unsupported_detail(const reference::AttentionProblem& problem,
                                                numerics::Rounding mode) const override;
  device::AttentionOutput launch(device::Executor& executor, const reference::AttentionProblem& problem,
                                 numerics::Rounding mode) override;
  // Varlen and paged problems: the extended kernel's launcher (device::run_attention_varlen).
  device::AttentionOutput launch_varlen(device::Executor& executor, const reference::VarlenProblem& problem,
                                        numerics::Rounding mode) override;

 private:
  // The code object loaded for `mode`; std::logic_error if none was.
  const AttentionCodeObject& loaded(numerics::Rounding mode) const;
  std::map<numerics::Rounding, AttentionCodeObject> code_;
};

}  // namespace cdna::adapters
