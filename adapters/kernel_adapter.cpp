#include "adapters/kernel_adapter.hpp"

#include <algorithm>
#include <stdexcept>

#include "adapters/aiter_fmha_v3.hpp"
#include "adapters/aiter_pa.hpp"
#include "adapters/attention_fwd.hpp"
#include "adapters/moonmath.hpp"

namespace cdna::adapters {
namespace {

template <class T, class F>
std::string join(const std::vector<T>& xs, F text) {
  std::string s;
  for (const auto& x : xs) s += (s.empty() ? "" : ", ") + std::string(text(x));
  return s;
}

}  // namespace

std::optional<std::string> KernelAdapter::unsupported_reason(const reference::AttentionProblem& problem,
                                                             numerics::Rounding mode) const {
  if (auto why = feature_reason(problem, mode)) return why;
  return unsupported_detail(problem, mode);
}

std::optional<std::string> KernelAdapter::feature_reason(const reference::AttentionProblem& problem,
                                                         numerics::Rounding mode) const {
  const KernelFeatures f = features();
  const auto& s = problem.shape;
  const std::string who = name();
  if (std::find(f.modes.begin(), f.modes.end(), mode) == f.modes.end())
    return "rounding mode " + std::string(numerics::to_string(mode)) + " is not built for " + who + "; built: " +
           join(f.modes, [](numerics::Rounding m) { return numerics::to_string(m); });
  if (std::find(f.head_dims.begin(), f.head_dims.end(), s.head_dim) == f.head_dims.end())
    return "head dim D = " + std::to_string(s.head_dim) + " is not taken by " + who + "; taken: " +
           join(f.head_dims, [](std::int64_t d) { return std::to_string(d); });
  const bool square_top_left = problem.mask == reference::Mask::CausalTopLeft && f.top_left_when_square &&
                               s.seqlen_q == s.seqlen_k;
  if (std::find(f.masks.begin(), f.masks.end(), problem.mask) == f.masks.end() && !square_top_left)
    return "mask " + std::string(reference::to_string(problem.mask)) + " is not taken by " + who + "; taken: " +
           join(f.masks, [](reference::Mask m) { return reference::to_string(m); }) +
           (f.top_left_when_square ? " (causal_top_left when Sq = Sk)" : "");
  if (s.heads_kv < 1 || s.heads_q % s.heads_kv != 0)
    return "Hq = " + std::to_string(s.heads_q) + " is not a multiple of Hkv = " + std::to_string(s.heads_kv);
  if (!f.gqa && s.heads_q != s.heads_kv)
    return "Hq = " + std::to_string(s.heads_q) + " differs from Hkv = " + std::to_string(s.heads_kv) + ": " + who +
           " takes no grouped-query attention (Hq = Hkv only)";
  return std::nullopt;
}

std::optional<std::string> KernelAdapter::varlen_unsupported_reason(const reference::VarlenProblem&,
                                                                    numerics::Rounding) const {
  return name() + " takes no varlen or paged problem (its adapter has no varlen launch)";
}

device::AttentionOutput KernelAdapter::run_varlen(device::Executor& executor, const reference::VarlenProblem& problem,
                                                  numerics::Rounding mode) {
  reference::validate(problem);
  if (auto why = varlen_unsupported_reason(problem, mode)) throw std::invalid_argument(*why);
  return launch_varlen(executor, problem, mode);
}

device::AttentionOutput KernelAdapter::launch_varlen(device::Executor&, const reference::VarlenProblem&,
                                                     numerics::Rounding) {
  throw std::logic_error(name() + ": launch_varlen called for a kernel that takes no varlen problem");
}

device::AttentionOutput KernelAdapter::run(device::Executor& executor, const reference::AttentionProblem& problem,
                                           numerics::Rounding mode) {
  reference::validate(problem);
  if (auto why = unsupported_reason(problem, mode)) throw std::invalid_argument(*why);
  const auto& s = problem.shape;
  if (s.batch == 0 || s.seqlen_q == 0 || s.heads_q == 0) return {};  // empty O and LSE: no launch
  return launch(executor, problem, mode);
}

std::vector<std::string> adapter_names() { return {"attention-fwd", "aiter-fmha-v3", "aiter-pa", "moonmath"}; }

std::unique_ptr<KernelAdapter> make_adapter(std::string_view name) {
  if (name == "attention-fwd") return std::make_unique<AttentionFwdAdapter>();
  if (name == "aiter-fmha-v3") return std::make_unique<AiterFmhaV3Adapter>();
  if (name == "aiter-pa") return std::make_unique<AiterPaAdapter>();
  if (name == "moonmath") return std::make_unique<MoonmathAdapter>();
  throw std::invalid_argument("unknown kernel '" + std::string(name) + "'; expected one of: " +
                              join(adapter_names(), [](const std::string& n) { return n; }));
}

std::filesystem::path peers_dir() { return CDNA_PEERS_DIR; }

}  // namespace cdna::adapters
