// The pass rule (docs/pass-rule.md): kernel O and LSE against the exact oracle, with the
// certified per-element bound of reference/attention/bound.hpp (derivation: docs/error-analysis.md), the
// floor model (reference/attention/floor.hpp) and the exact semantic facts (docs/semantics.md).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "numerics/bf16.hpp"
#include "reference/attention/attention.hpp"
#include "reference/attention/bound.hpp"

namespace cdna::reference {

// Error figures and verdict of one kernel output against the exact result.
struct AttentionComparison {
  double max_abs_err_o = 0;        // max |O_kernel - O_exact| over finite exact elements
  // The same in bf16 ULPs of O_exact, over the elements not near zero in their row
  // (ulp_figure_limit below): an element far below its row's scale has an ULP that measures
  // nothing the row's arithmetic resolves (issue 23 §6).
  double max_ulp_err_o = 0;
  double max_err_to_bound_o = 0;   // max |err| / bound (> 1 is a violation)
  double max_abs_err_lse = 0;      // max |LSE_kernel - LSE_exact| over finite exact rows
  double max_err_to_bound_lse = 0;
  // ‖e‖₂ / ‖O_exact‖₂ with e = max(0, |O_kernel − O_exact| − the bound's flush allowance)
  // (docs/pass-rule.md rule 4; equal to the plain relative RMS error unless flushes can matter)
  double rel_rms_err_o = 0;
  double floor_rel_rms_o = 0;      // the same for the floor model's O
  std::int64_t o_violations = 0;   // elements of O outside their bound
  std::int64_t lse_violations = 0;
  // masked row not (+0.0, -inf), or with a sink not O = +0.0; NaN/inf where exact is finite; not the NaN or infinity the
  // definition gives (exact O or LSE NaN or infinite); an exactly computed O element
  // (reference/attention/exact_rows.hpp) not rounded as the declared mode rounds it
  std::int64_t semantic_violations = 0;
  bool floor_violation = false;    // rel_rms_err_o > 2 × floor_rel_rms_o (oracles.md, "Verdict")
  // Rows failing where the exact row is a special class of docs/semantics.md §5 (no visible
  // key, a NaN score, +inf scores; reference/attention/conventions.hpp): the kernel follows another
  // convention there. Still failures (counted in the violations above too); when the first
  // failure is such a row, first_failure names the rule ("row (b=.., h=.., i=..): the
  // definition's +inf-score convention ... not followed: kernel writes O NaN 0x7FFF ...").
  std::int64_t convention_rows = 0;
  // What was judged: O elements (against their bound or an exact fact of the definition) and
  // LSE values. A verdict over nothing (an empty output) is not a pass (docs/pass-rule.md).
  std::int64_t o_judged = 0;
  std::int64_t lse_judged = 0;
  // Of o_judged, the elements judged by an exact fact of the definition instead of a bound (a
  // row with no visible key: +0.0; a NaN or infinite exact value).
  std::int64_t o_exact_facts = 0;
  // Elements with a finite exact value whose bound is +inf: the declared arithmetic may overflow
  // fp32 there (docs/error-analysis.md A10 and "Range" in §6, §16), so no error is claimed and they
  // are not judged (not in o_judged / lse_judged, not in rule 4's RMS). A comparison with any such
  // element is NOTHING JUDGED unless a judged element fails (docs/pass-rule.md, "Outcome"): a PASS
  // says the whole output was judged.
  std::int64_t o_out_of_range = 0;
  std::int64_t lse_out_of_range = 0;
  std::string first_failure;       // one line on the first violation, or "nothing judged: ...", empty if pass
  bool judged() const { return o_judged + lse_judged > 0; }
  bool complete() const { return o_out_of_range + lse_out_of_range == 0; }
  bool violations() const {
    return o_violations != 0 || lse_violations != 0 || semantic_violations != 0 || floor_violation;
  }
  bool pass() const { return judged() && complete() && !violations(); }
  // Neither pass nor fail: nothing judged, or elements beyond the declared arithmetic's range.
  bool nothing_judged() const { return !violations() && !pass(); }
};

// The magnitude below which an element of one O row (its Dv values) is near zero for the ULP
// figures (max_ulp_err_o, the rounding audit's ULP bias, RMS and histograms): one bf16 ULP of the
// row's largest finite |O_exact|, i.e. below the last bit bf16 keeps of the row's largest value.
// Such an element's error comes from the row's scale (the bound is u_b·(E_d + |O|) with
// E_d = Σ_j P_j|V_jd|, docs/pass-rule.md), so its own ULP, up to 2^8 times smaller, would make the
// figures describe cancellation, not rounding. They are still judged by the bound and enter the
// absolute and relative RMS figures (docs/pass-rule.md, "The rounding-mode audit").
// 2^-133 (bf16_ulp(0)) for a row whose finite values are all zero.
double ulp_figure_limit(std::span<const double> exact_row);

// Compares kernel outputs (O bf16 bits [B, Sq, Hq, Dv], LSE fp32 [B, Hq, Sq]) of `problem`
// computed by a kernel that rounds P and O in `mode`, against `exact`. With lse_given = false
// the kernel gave no LSE: `lse` is ignored (it may be empty), no LSE is judged or counted, and a
// row without visible keys is judged on O = +0.0 alone. An exact LSE beyond fp32's range is met
// by the fp32 nearest to it, ±inf. Throws std::invalid_argument if a size does not match the shape.
AttentionComparison compare_attention(const AttentionProblem& problem, const AttentionResult& exact,
                                      std::span<const std::uint16_t> o, std::span<const float> lse,
                                      numerics::Rounding mode, bool lse_given = true);

// The two halves of compare_attention, for callers that judge rule 4 over several problems
// together (compare_varlen: one RMS over every sequence).
// Rules 1–3 and the counts, with `bounds` = attention_bounds(problem, exact, mode); rel_rms_err_o,
// floor_rel_rms_o and floor_violation are left 0. Throws std::invalid_argument as compare_attention.
AttentionComparison compare_elements(const AttentionProblem& problem, const AttentionResult& exact,
                                     std::span<const std::uint16_t> o, std::span<const float> lse,
                                     numerics::Rounding mode, bool lse_given, const AttentionBounds& bounds);
// Rule 4 (docs/pass-rule.md): sets c.rel_rms_err_o (with the flush allowance `flush` taken out),
// c.floor_rel_rms_o of the floor output `floor`, and c.floor_violation (and c.first_failure if it
// is empty) when the first exceeds twice the second. got, exact, flush, floor: O values, one layout.
void judge_floor_rule(AttentionComparison& c, std::span<const double> got, std::span<const double> exact,
                      std::span<const double> flush, std::span<const double> floor);
// Adds rules 1–3 and the counts of `part` (a compare_elements result of one piece of a larger
// output: a varlen sequence, a sampled query row) to `into`: maxima of the figures, sums of the
// counts, and `part`'s first failure prefixed with `piece` ("sequence 2: ") if `into` has none.
void merge_elements(AttentionComparison& into, const AttentionComparison& part, const std::string& piece);
// Sets c.first_failure, if it is empty, to why c is NOTHING JUDGED: no element, or how many were
// beyond the declared arithmetic's range. Called last by compare_attention, compare_varlen and
// compare_sampled.
void note_nothing_judged(AttentionComparison& c);

}  // namespace cdna::reference
