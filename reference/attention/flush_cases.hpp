// The flush instances of issue 9 §1 as problems: inputs on which a kernel that flushes exactly as
// the declared arithmetic allows (docs/error-analysis.md A3, A9) writes results far from the exact
// value, and must still pass every rule (docs/pass-rule.md). Used by the reference tests, the
// simulator regression tests and the mutation testing's fixed cases.
#pragma once

#include <cstdint>

#include "reference/attention/attention.hpp"

namespace cdna::reference {

// Instance A (v_exp_f32 flushes results below 2^-126): Sq 8, Sk 64, Hq = Hkv = 1, D 64, no mask.
// Q row i = (a_i, 0, …) with a_i = 1 + i/16, K row j = (−j, 0, …), scale fl32(140 / (63·log2 e)):
// the base-2 gap of key j in row i is −a_i·j·140/63, so every row reaches −140, and the keys
// j ≥ kFlushFirstKey lie below −126 in every row. V there is ±2^126·(1 + small) (seeded), randn
// elsewhere, so those keys carry O's largest contributions although a flushing kernel drops them.
inline constexpr std::int64_t kFlushFirstKey = 57;
AttentionProblem flushed_weights_instance(std::uint64_t seed = 1);

// Instance B (fp32 denormals flushed, MODE.FP_DENORM = 0): Sq 8, Sk 16, Hq = Hkv = 1, D 64, causal
// bottom-right, scale 0.125, Q and K randn (seeded), V bf16 subnormals (magnitude bits 1..127,
// random signs): every O is subnormal in fp32, and a kernel that flushes writes +0.0.
AttentionProblem subnormal_v_instance(std::uint64_t seed = 1);

}  // namespace cdna::reference
