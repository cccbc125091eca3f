#include "reference/attention/inputs.hpp"

#include <cmath>

namespace cdna::reference {

AttentionProblem randn_problem(const AttentionShape& shape, Mask mask, std::uint64_t seed, double qk_std,
                               double v_std) {
  AttentionProblem p;
  p.shape = shape;
  p.mask = mask;
  p.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(shape.head_dim)));
  fill_randn(p, seed, qk_std, v_std);
  return p;
}

void fill_randn(AttentionProblem& p, std::uint64_t seed, double qk_std, double v_std) {
  const auto nq = static_cast<std::size_t>(p.shape.q_elements());
  const auto nkv = static_cast<std::size_t>(p.shape.kv_elements());
  p.q = randn_bf16(nq, seed, qk_std);
  p.k = randn_bf16(nkv, seed + 1, qk_std);
  p.v = randn_bf16(static_cast<std::size_t>(p.shape.v_elements()), seed + 2, v_std);
}

}  // namespace cdna::reference
