// Seeded attention inputs: Q, K and V of a problem as "randn(seed)" of ../shared/cases/README.md
// (reference/common/randn.hpp, a standard normal sample rounded to bf16 RTNE).
#pragma once

#include <cstdint>
#include <vector>

#include "reference/attention/attention.hpp"
#include "reference/common/randn.hpp"  // randn_bf16, filled_bf16

namespace cdna::reference {

// The seeded inputs every tool uses: Q = qk_std·randn(seed), K = qk_std·randn(seed + 1),
// V = v_std·randn(seed + 2), sized by problem.shape (BSHD, bf16 bits).
void fill_randn(AttentionProblem& problem, std::uint64_t seed, double qk_std = 1.0, double v_std = 1.0);

// A problem of `shape` and `mask` with the scale 1/√D rounded to fp32 and
// fill_randn(seed, qk_std, v_std) inputs.
AttentionProblem randn_problem(const AttentionShape& shape, Mask mask, std::uint64_t seed, double qk_std = 1.0,
                               double v_std = 1.0);

}  // namespace cdna::reference
