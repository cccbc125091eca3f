// The provisional pass rule of the skeleton audit: kernel O and LSE against the exact oracle,
// with a per-element a-priori error bound derived from the kernel's arithmetic (bf16 rounding of
// P and O in the declared mode, fp32 MFMA block model, fp32 VALU, 1-ULP v_exp/v_log/v_rcp).
// Derivation and its sources: docs/pass-rule.md. Certified bounds and the floor model replace
// it in a later issue.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "numerics/bf16.hpp"
#include "reference/attention.hpp"

namespace cdna::reference {

// Error figures and verdict of one kernel output against the exact result.
struct AttentionComparison {
  double max_abs_err_o = 0;        // max |O_kernel - O_exact| over finite exact elements
  double max_ulp_err_o = 0;        // the same in bf16 ULPs of O_exact
  double max_err_to_bound_o = 0;   // max |err| / bound (> 1 is a violation)
  double max_abs_err_lse = 0;      // max |LSE_kernel - LSE_exact| over finite exact rows
  double max_err_to_bound_lse = 0;
  double rel_rms_err_o = 0;        // ‖O_kernel − O_exact‖₂ / ‖O_exact‖₂ (reference/floor.hpp)
  double floor_rel_rms_o = 0;      // the same for the floor model's O
  std::int64_t o_violations = 0;   // elements of O outside their bound
  std::int64_t lse_violations = 0;
  std::int64_t semantic_violations = 0;  // masked row not (+0.0, -inf); NaN/inf where exact is finite
  bool floor_violation = false;    // rel_rms_err_o > 2 × floor_rel_rms_o (oracles.md, "Verdict")
  std::string first_failure;       // one line on the first violation, empty if none
  bool pass() const {
    return o_violations == 0 && lse_violations == 0 && semantic_violations == 0 && !floor_violation;
  }
};

// The per-element bounds compare_attention applies (docs/pass-rule.md), for a kernel that
// rounds P and O in `mode`: o [B, Sq, Hq, D] bounds |O_kernel - O_exact|, lse [B, Hq, Sq]
// bounds |LSE_kernel - LSE_exact|; each includes the oracle's own stated error, which
// o_oracle and lse_oracle give alone (the distance of `exact` from the exact value, its
// rounding to double included). Rows with no visible key (exact LSE = -inf) have bound 0
// (O must be +0.0 and LSE -inf exactly); where the exact value is NaN the entries are NaN
// (no bound: the result must be NaN). Throws std::invalid_argument if `exact` does not match
// the shape.
struct AttentionBounds {
  std::vector<double> o, lse;
  std::vector<double> o_oracle, lse_oracle;
};
AttentionBounds attention_bounds(const AttentionProblem& problem, const AttentionResult& exact,
                                 numerics::Rounding mode);

// Compares kernel outputs (O bf16 bits [B, Sq, Hq, D], LSE fp32 [B, Hq, Sq]) of `problem`
// computed by a kernel that rounds P and O in `mode`, against `exact`. Throws
// std::invalid_argument if a size does not match the shape.
AttentionComparison compare_attention(const AttentionProblem& problem, const AttentionResult& exact,
                                      std::span<const std::uint16_t> o, std::span<const float> lse,
                                      numerics::Rounding mode);

}  // namespace cdna::reference
