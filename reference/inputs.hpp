// Seeded test inputs: "randn(seed)" of ../shared/cases/README.md, a standard normal sample
// rounded to bf16 (RTNE). Reproducible across compilers and standard libraries: the normal
// deviates come from std::mt19937_64 through our own Box–Muller transform, not from
// std::normal_distribution, whose algorithm the C++ standard leaves open.
#pragma once

#include <cstdint>
#include <vector>

#include "reference/attention.hpp"

namespace cdna::reference {

// n bf16 bit patterns of stddev · N(0, 1) (stddev scales the double before rounding).
std::vector<std::uint16_t> randn_bf16(std::size_t n, std::uint64_t seed, double stddev = 1.0);

// The seeded inputs every tool uses: Q = qk_std·randn(seed), K = qk_std·randn(seed + 1),
// V = v_std·randn(seed + 2), sized by problem.shape (BSHD, bf16 bits).
void fill_randn(AttentionProblem& problem, std::uint64_t seed, double qk_std = 1.0, double v_std = 1.0);

// A problem of `shape` and `mask` with the scale 1/√D rounded to fp32 and
// fill_randn(seed, qk_std, v_std) inputs.
AttentionProblem randn_problem(const AttentionShape& shape, Mask mask, std::uint64_t seed, double qk_std = 1.0,
                               double v_std = 1.0);

// n copies of one value rounded to bf16 (RTNE).
std::vector<std::uint16_t> filled_bf16(std::size_t n, double value);

}  // namespace cdna::reference
