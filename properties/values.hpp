// Input values of property cases: each kind stresses one part of the kernel's arithmetic.
// Inputs are bf16 (RTNE of a double, reference::randn_bf16); everything is seeded and
// reproducible.
#pragma once

#include <cstdint>
#include <string_view>

#include "reference/attention/attention.hpp"

namespace cdna::properties {

enum class ValueKind : std::uint8_t {
  Randn,          // Q, K, V ~ N(0, 1)
  ScaledLogits,   // Q, K ~ N(0, σ²), σ ∈ {1, 2, 4}: logit std σ² up to 16 at scale 1/√D
  Outliers,       // N(0, 1) with 1–3 channels of K and V multiplied by 8 or 32
  TiesAtMax,      // several keys whose scores are exactly equal and the row maximum
  HugeEqual,      // every score equal and huge (Q = K = 64: s ≈ 4096·D·scale); V one constant
  NonFinite,      // N(0, 1) with one NaN, +inf or -inf in V at key 0
  NanScore,       // N(0, 1) with one NaN in Q, or in K at key 0 (mask none): NaN scores
  InfScore,       // N(0, 1) with an infinite Q element or K elements of one or two keys: +inf
                  // scores (one or several per row), or all of a row's scores ±inf
};
// The finite kinds, which reference::compare_attention can judge.
inline constexpr ValueKind kFiniteValueKinds[] = {ValueKind::Randn, ValueKind::ScaledLogits, ValueKind::Outliers,
                                                  ValueKind::TiesAtMax, ValueKind::HugeEqual};
std::string_view to_string(ValueKind kind);

// Fills p.q, p.k, p.v for p.shape (and may set p.scale, see below) from `seed`; `variant`
// picks the sub-choice of the kind (σ, outlier factor, poisoned tensor, ...). Returns one line
// saying what was made.
// - TiesAtMax needs scale > 0 and sets scale = fl32(1/√D): Q ≥ 0 (|randn|), tied keys K = 2 in
//   every channel, other keys clamped to [-2, 2], so no other score exceeds the tied ones.
// - NonFinite poisons one V element of a random key: the rows that see the key get the value in
//   that column (docs/semantics.md §5.7), the rows that cannot see it are unaffected (§5.2).
// - InfScore (§5.5, §5.6): an infinite K element, in a channel where every query is >= 0, with
//   the sign of the scale: the key's score is +inf for every row that sees it (NaN for scale 0);
//   or an infinite Q element: that query's scores are +inf or -inf by the sign of K in that
//   channel (all -inf is a row without weight: O = +0.0, LSE = -inf). Rows mixing -inf with
//   finite scores are not made (their check would need the bound: README.md).
// - NanScore poisons one Q element (its query's scores are NaN), or under Mask::None one K
//   element of key 0 (every score of that KV head is NaN).
// Only the nonfinite_inputs property draws the last three (reference::compare_attention cannot
// judge a NaN LSE or an infinite O: README.md).
std::string fill_values(reference::AttentionProblem& p, ValueKind kind, std::uint64_t seed, int variant);

}  // namespace cdna::properties
