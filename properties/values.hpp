// Input values of property cases: each kind stresses one part of the kernel's arithmetic.
// Inputs are bf16 (RTNE of a double, reference::randn_bf16); everything is seeded and
// reproducible.
#pragma once

#include <cstdint>
#include <string_view>

#include "reference/attention.hpp"

namespace cdna::properties {

enum class ValueKind : std::uint8_t {
  Randn,          // Q, K, V ~ N(0, 1)
  ScaledLogits,   // Q, K ~ N(0, σ²), σ ∈ {1, 2, 4}: logit std σ² up to 16 at scale 1/√D
  Outliers,       // N(0, 1) with 1–3 channels of K and V multiplied by 8 or 32
  TiesAtMax,      // several keys whose scores are exactly equal and the row maximum
  HugeEqual,      // every score equal and huge (Q = K = 64: s ≈ 4096·D·scale); V one constant
  NonFinite,      // N(0, 1) with one NaN in Q, a NaN in K row 0 or a NaN/±inf in V row 0
};
inline constexpr ValueKind kAllValueKinds[] = {ValueKind::Randn,     ValueKind::ScaledLogits,
                                               ValueKind::Outliers,  ValueKind::TiesAtMax,
                                               ValueKind::HugeEqual, ValueKind::NonFinite};
std::string_view to_string(ValueKind kind);

// Fills p.q, p.k, p.v for p.shape (and may set p.scale, see below) from `seed`; `variant`
// picks the sub-choice of the kind (σ, outlier factor, poisoned tensor, ...). Returns one line
// saying what was made.
// - TiesAtMax needs scale > 0 and sets scale = fl32(1/√D): Q ≥ 0 (|randn|), tied keys K = 2 in
//   every channel, other keys clamped to [-2, 2], so no other score exceeds the tied ones.
// - NonFinite poisons K or V only at key 0, and only under Mask::None (otherwise it poisons
//   Q): key 0 is then visible to every query, so the definition propagates the value
//   (docs/semantics.md §5). Keys masked for some rows are not poisoned: see README.md.
std::string fill_values(reference::AttentionProblem& p, ValueKind kind, std::uint64_t seed, int variant);

}  // namespace cdna::properties
