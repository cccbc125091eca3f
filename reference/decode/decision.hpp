// Certified token decisions from per-logit bounds (reference/decode/envelope.hpp), and the
// verdict of one kernel step against them. Rules: docs/decode-semantics.md §3–§4, derivation of
// the sampling bounds: docs/decode-bounds.md §11.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "reference/decode/envelope.hpp"

namespace cdna::reference {

enum class DecisionKind : std::uint8_t {
  decided,    // every value the definition and an admissible kernel can take picks `token`
  ambiguous,  // more than one token possible: `candidates`
  nan,        // some logit may be NaN (a NaN or inf weight on its path): token −1
};

struct TokenDecision {
  DecisionKind kind = DecisionKind::ambiguous;
  std::int64_t token = -1;              // decided: the token; nan: −1; ambiguous: −1
  std::vector<std::int64_t> candidates;  // ambiguous: every token that may be chosen, ascending
  bool by_tie_class = false;  // decided because the candidates are one class of identical rows
};

// Greedy argmax (lowest index on ties). Decided when one logit's lower end mid − rad exceeds
// every other logit's upper end mid + rad; or when every candidate (a logit whose upper end
// reaches the largest lower end) lies in one tie class of bitwise identical LM-head rows and
// bounds.identical_rows_identical_logits: then the class's lowest index (the exact logits are
// equal, so the definition takes the lowest index, and a kernel that computes every row by the
// same operation sequence gives them equal values too). Any NaN midpoint or radius: kind nan.
TokenDecision decide_greedy(const StepBounds& bounds);

// The uniform u ∈ [0, 1) of step `step` for `seed`: splitmix64 (Steele, Lea, Flood, "Fast
// splittable pseudorandom number generators", OOPSLA 2014; the finaliser as in Vigna's
// splitmix64.c) applied to splitmix64(seed) + step; the top 53 bits scaled by 2^-53.
double sampling_uniform(std::uint64_t seed, std::int64_t step);

// Seeded sampling (docs/decode-semantics.md §4): the token is the smallest j with
// CDF_j(softmax(logits/temperature)) > u. Decided when u lies strictly inside
// (upper bound of CDF_{j−1}, lower bound of CDF_j) for one j; otherwise ambiguous with every j
// whose CDF interval lets it be chosen. Throws std::invalid_argument unless temperature > 0
// and finite, and u ∈ [0, 1).
TokenDecision decide_sampled(const StepBounds& bounds, double temperature, double u);

enum class StepOutcome : std::uint8_t { pass, fail, ambiguous };

struct StepVerdict {
  StepOutcome outcome = StepOutcome::fail;
  TokenDecision decision;
  std::int64_t expected_token = -1;  // decision.token (−1 when ambiguous)
  std::int64_t kernel_token = -1;
  bool match = false;  // decided (or nan) and kernel_token == expected_token; false if ambiguous
  std::int64_t outside = 0;      // kernel logits outside their ball (NaN counts as outside
                                 // where the midpoint is not NaN and the radius finite: an
                                 // infinite radius contains every value, NaN included)
  std::int64_t worst_index = -1;  // the logit with the largest excess, −1 when none outside
  double worst_excess = 0;       // (|kernel − mid| − rad)/rad at worst_index (+inf if rad = 0)
  double max_ratio = 0;          // max over logits with finite midpoint of |kernel − mid|/rad
};

// The verdict of one kernel step: fail when a kernel logit lies outside its ball, or the step is
// decided and the kernel's token differs; ambiguous when no logit is outside and the step is
// ambiguous; pass otherwise. `decision` is decide_greedy(bounds) or decide_sampled(...).
// Throws std::invalid_argument when kernel_logits.size() != V.
StepVerdict judge_step(const StepBounds& bounds, const TokenDecision& decision,
                       std::span<const float> kernel_logits, std::int64_t kernel_token);
// Greedy decoding: judge_step with decide_greedy(bounds).
StepVerdict judge_step(const StepBounds& bounds, std::span<const float> kernel_logits,
                       std::int64_t kernel_token);

}  // namespace cdna::reference
