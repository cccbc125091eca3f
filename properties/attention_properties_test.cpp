// Property: for random small shapes and every bf16 rounding mode, the attention kernel run on
// the CDNA3 simulator agrees with the exact oracle under the pass rule of docs/pass-rule.md.
// RapidCheck shrinks a failing case to a small shape; RC_PARAMS (e.g. "seed=1 max_success=500")
// controls the run (ctest sets a fixed seed, properties/CMakeLists.txt).
#include <gtest/gtest.h>
// rapidcheck/gtest.h uses GoogleTest without including it: it must come second.
#include <rapidcheck/gtest.h>

#include <map>

#include "device/attention_launcher.hpp"
#include "reference/compare.hpp"
#include "reference/inputs.hpp"
#include "simulator/simulator_executor.hpp"

namespace cdna {
namespace {

const std::vector<std::byte>& code_object(numerics::Rounding mode) {
  static std::map<numerics::Rounding, std::vector<std::byte>> cache;
  auto it = cache.find(mode);
  if (it == cache.end()) {
    it = cache.emplace(mode, device::read_file(device::attention_code_object(mode), "code object")).first;
  }
  return it->second;
}

RC_GTEST_PROP(AttentionProperty, SimulatedKernelWithinBoundOfExactOracle, ()) {
  using reference::Mask;
  reference::AttentionProblem p;
  const std::int64_t hkv = *rc::gen::inRange<std::int64_t>(1, 3);
  const std::int64_t group = *rc::gen::inRange<std::int64_t>(1, 4);
  p.shape = {*rc::gen::inRange<std::int64_t>(1, 3),
             *rc::gen::inRange<std::int64_t>(1, 40),
             *rc::gen::inRange<std::int64_t>(0, 70),
             hkv * group,
             hkv,
             *rc::gen::element<std::int64_t>(64, 128)};
  p.mask = *rc::gen::element(Mask::None, Mask::CausalBottomRight);
  const auto mode = *rc::gen::element(numerics::Rounding::RTNE, numerics::Rounding::RTNA, numerics::Rounding::RTZ);
  const double qk_std = *rc::gen::element(1.0, 2.0, 4.0);
  const auto seed = *rc::gen::inRange<std::uint64_t>(0, 1u << 30);
  p.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(p.shape.head_dim)));
  p.q = reference::randn_bf16(static_cast<std::size_t>(p.shape.q_elements()), seed, qk_std);
  p.k = reference::randn_bf16(static_cast<std::size_t>(p.shape.kv_elements()), seed + 1, qk_std);
  p.v = reference::randn_bf16(static_cast<std::size_t>(p.shape.kv_elements()), seed + 2);
  RC_TAG(reference::to_string(p.mask), numerics::to_string(mode));

  simulator::SimulatorExecutor sim;
  const device::AttentionOutput out = device::run_attention(sim, code_object(mode), p);
  const reference::AttentionResult exact = reference::attention_forward_exact(p);
  const reference::AttentionComparison c = reference::compare_attention(p, exact, out.o, out.lse, mode);
  if (!c.pass()) RC_FAIL(c.first_failure);
}

}  // namespace
}  // namespace cdna
