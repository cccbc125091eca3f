// RoPE frequencies and the host's cos/sin table (docs/decode-semantics.md §1, §2).
#pragma once

#include <cstdint>
#include <vector>

#include "reference/decode/model.hpp"

namespace cdna::reference {

// ω_i for i in [0, D/2): rope_theta^(−2i/D), rescaled by the llama3 rule when
// config.rope_scaling is set (Hugging Face transformers, _compute_llama3_parameters; the rule is
// restated in docs/decode-semantics.md §1). Computed in double: each ω_i is within 2^-48
// relative of the real value (pow and the few divisions each err by at most a few ULPs; the
// exact oracle recomputes ω in MPFR and does not use these).
std::vector<double> rope_inverse_frequencies(const DecoderConfig& config);

// The kernel's RoPE table: cos and sin of p·ω_i for p in [0, positions), i in [0, D/2),
// row-major [positions, D/2], each computed in double and rounded to nearest fp32. Bound used by
// the envelope, for positions ≤ 2^20: |table − exact| ≤ 2^-24·|table| + 2^-26. Derivation: ω_i
// within 2^-48 relative and p·ω_i ≤ 2^20 make the double argument err by ≤ 2^20·2^-47 = 2^-27
// (the product's own rounding included, ω ≤ 1); cos and sin are 1-Lipschitz, glibc's double
// cos/sin err < 1 ULP (≤ 2^-52), so the double value is within 2^-27 + 2^-52 < 2^-26.9 — and the
// final rounding to fp32 adds ≤ 2^-24·|table|. Stated bound: 2^-24·|table| + 2^-26.
struct RopeTable {
  std::int64_t positions = 0;
  std::int64_t half_dim = 0;  // D/2
  std::vector<float> cos, sin;
};
RopeTable rope_table(const DecoderConfig& config, std::int64_t positions);

}  // namespace cdna::reference
