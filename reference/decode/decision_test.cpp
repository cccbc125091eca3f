// Certified token decisions and step verdicts on hand-made bounds (reference/decode/decision.hpp).
#include "reference/decode/decision.hpp"

#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace cdna::reference {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

StepBounds bounds(std::vector<double> mid, std::vector<double> rad,
                  std::vector<std::int64_t> tie_class = {}, bool identical = true) {
  StepBounds b;
  if (tie_class.empty())
    for (std::size_t i = 0; i < mid.size(); ++i) tie_class.push_back(static_cast<std::int64_t>(i));
  b.mid = std::move(mid);
  b.rad = std::move(rad);
  b.tie_class = std::make_shared<const std::vector<std::int64_t>>(std::move(tie_class));
  b.identical_rows_identical_logits = identical;
  return b;
}

TEST(DecideGreedy, DecidedWhenTheTopLowerEndExceedsEveryUpperEnd) {
  // 2.0 − 0.1 = 1.9 > 1.5 + 0.3 = 1.8.
  const TokenDecision d = decide_greedy(bounds({1.0, 2.0, 1.5}, {0.1, 0.1, 0.3}));
  EXPECT_EQ(d.kind, DecisionKind::decided);
  EXPECT_EQ(d.token, 1);
  EXPECT_TRUE(d.candidates.empty());
}

TEST(DecideGreedy, AmbiguousWhenBallsOverlapListsTheCandidates) {
  // 1.9 < 1.5 + 0.5 = 2.0: tokens 1 and 2 both possible; token 0 (≤ 1.1) is not.
  const TokenDecision d = decide_greedy(bounds({1.0, 2.0, 1.5}, {0.1, 0.1, 0.5}));
  EXPECT_EQ(d.kind, DecisionKind::ambiguous);
  EXPECT_EQ(d.token, -1);
  EXPECT_EQ(d.candidates, (std::vector<std::int64_t>{1, 2}));
}

TEST(DecideGreedy, ExactlyTouchingBallsAreAmbiguous) {
  const TokenDecision d = decide_greedy(bounds({1.0, 3.0}, {0.5, 1.5}));  // 1.5 = 1.5
  EXPECT_EQ(d.kind, DecisionKind::ambiguous);
}

TEST(DecideGreedy, OneTieClassOfIdenticalRowsIsDecidedWithTheLowestIndex) {
  // Rows 1 and 3 identical (class 1): equal midpoints and radii, nothing else reaches them.
  const auto b = bounds({0.0, 2.0, 0.5, 2.0}, {0.1, 0.2, 0.1, 0.2}, {0, 1, 2, 1});
  const TokenDecision d = decide_greedy(b);
  EXPECT_EQ(d.kind, DecisionKind::decided);
  EXPECT_EQ(d.token, 1);
  EXPECT_TRUE(d.by_tie_class);
  // The same without the declared property: ambiguous.
  const TokenDecision no = decide_greedy(bounds({0.0, 2.0, 0.5, 2.0}, {0.1, 0.2, 0.1, 0.2},
                                                {0, 1, 2, 1}, false));
  EXPECT_EQ(no.kind, DecisionKind::ambiguous);
  EXPECT_EQ(no.candidates, (std::vector<std::int64_t>{1, 3}));
  // Two classes among the candidates: ambiguous.
  const TokenDecision two = decide_greedy(bounds({0.0, 2.0, 1.9, 2.0}, {0.1, 0.2, 0.2, 0.2},
                                                 {0, 1, 2, 1}));
  EXPECT_EQ(two.kind, DecisionKind::ambiguous);
  EXPECT_EQ(two.candidates, (std::vector<std::int64_t>{1, 2, 3}));
}

TEST(DecideGreedy, NanLogitOrRadiusGivesTokenMinusOne) {
  EXPECT_EQ(decide_greedy(bounds({1.0, kNaN, 0.0}, {0.1, kNaN, 0.1})).kind, DecisionKind::nan);
  const TokenDecision d = decide_greedy(bounds({1.0, 5.0, 0.0}, {0.1, kNaN, 0.1}));
  EXPECT_EQ(d.kind, DecisionKind::nan);
  EXPECT_EQ(d.token, -1);
}

TEST(DecideGreedy, InfiniteRadiusMakesEveryTokenACandidate) {
  const double inf = std::numeric_limits<double>::infinity();
  const TokenDecision d = decide_greedy(bounds({1.0, 5.0, 0.0}, {inf, inf, inf}));
  EXPECT_EQ(d.kind, DecisionKind::ambiguous);
  EXPECT_EQ(d.candidates.size(), 3u);
}

TEST(JudgeStep, PassFailAndAmbiguous) {
  const auto b = bounds({1.0, 2.0, 1.5}, {0.1, 0.1, 0.3});
  const std::vector<float> inside{1.05f, 1.95f, 1.7f};
  StepVerdict v = judge_step(b, inside, 1);
  EXPECT_EQ(v.outcome, StepOutcome::pass);
  EXPECT_TRUE(v.match);
  EXPECT_EQ(v.outside, 0);
  EXPECT_EQ(v.worst_index, -1);
  EXPECT_NEAR(v.max_ratio, 2.0 / 3.0, 1e-6);  // logit 2: 0.2 of 0.3
  // Decided step, kernel picks another token: mismatch.
  v = judge_step(b, inside, 2);
  EXPECT_EQ(v.outcome, StepOutcome::fail);
  EXPECT_FALSE(v.match);
  EXPECT_EQ(v.expected_token, 1);
  // Ambiguous step: neither match nor mismatch, whatever the kernel's token.
  const auto amb = bounds({1.0, 2.0, 1.5}, {0.1, 0.1, 0.5});
  for (std::int64_t t : {1, 2}) {
    v = judge_step(amb, inside, t);
    EXPECT_EQ(v.outcome, StepOutcome::ambiguous);
    EXPECT_FALSE(v.match);
  }
}

TEST(JudgeStep, LogitOutsideItsBallFailsEvenWhenTheTokenMatches) {
  const auto b = bounds({1.0, 2.0, 1.5}, {0.1, 0.1, 0.3});
  // Logit 0 at mid + 2·rad: excess (0.2 − 0.1)/0.1 = 1 radius.
  const std::vector<float> k{1.2f, 2.0f, 1.5f};
  const StepVerdict v = judge_step(b, k, 1);
  EXPECT_EQ(v.outcome, StepOutcome::fail);
  EXPECT_EQ(v.outside, 1);
  EXPECT_EQ(v.worst_index, 0);
  EXPECT_NEAR(v.worst_excess, 1.0, 1e-6);
  EXPECT_NEAR(v.max_ratio, 2.0, 1e-6);
  // Also on an ambiguous step.
  const auto amb = bounds({1.0, 2.0, 1.5}, {0.1, 0.1, 0.5});
  EXPECT_EQ(judge_step(amb, k, 1).outcome, StepOutcome::fail);
  // A NaN kernel logit where the definition is finite is outside.
  const std::vector<float> nan_k{1.0f, std::nanf(""), 1.5f};
  const StepVerdict n = judge_step(b, nan_k, 1);
  EXPECT_EQ(n.outside, 1);
  EXPECT_EQ(n.worst_index, 1);
  EXPECT_EQ(n.outcome, StepOutcome::fail);
}

// An infinite radius (a value that may overflow fp32) claims nothing: the kernel's inf, or its
// NaN from inf − inf, is inside it, never a FAIL of a correct kernel (issue 23 §6).
TEST(JudgeStep, AnInfiniteBallHoldsEveryValueNanIncluded) {
  const double inf = std::numeric_limits<double>::infinity();
  const auto b = bounds({1.0, 2.0, 1.5}, {inf, inf, inf});
  const std::vector<float> k{std::nanf(""), std::numeric_limits<float>::infinity(), -3e38f};
  const StepVerdict v = judge_step(b, k, 1);
  EXPECT_EQ(v.outside, 0);
  EXPECT_EQ(v.outcome, StepOutcome::ambiguous);
}

TEST(JudgeStep, NanStepExpectsTokenMinusOne) {
  const auto b = bounds({1.0, kNaN, 0.0}, {0.1, kNaN, 0.1});
  const std::vector<float> k{1.0f, std::nanf(""), 0.0f};
  EXPECT_EQ(judge_step(b, k, -1).outcome, StepOutcome::pass);
  EXPECT_EQ(judge_step(b, k, 0).outcome, StepOutcome::fail);
}

TEST(JudgeStep, WrongLogitCountIsRejected) {
  const auto b = bounds({1.0, 2.0}, {0.1, 0.1});
  const std::vector<float> k{1.0f};
  EXPECT_THROW(judge_step(b, k, 1), std::invalid_argument);
}

TEST(Sampling, UniformIsSplitmix64OfTheSeedPlusTheStep) {
  // splitmix64's first output from state 0 is 0xE220A8397B1DCDAF (Vigna's splitmix64.c);
  // for seed 0 the step-s uniform is splitmix64(0xE220A8397B1DCDAF + s) >> 11 scaled by 2^-53.
  std::uint64_t x = 0xE220A8397B1DCDAFull + 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  x ^= x >> 31;
  EXPECT_EQ(sampling_uniform(0, 0), static_cast<double>(x >> 11) * 0x1p-53);
  EXPECT_NE(sampling_uniform(0, 1), sampling_uniform(0, 0));
  EXPECT_NE(sampling_uniform(1, 0), sampling_uniform(0, 0));
  for (int s = 0; s < 1000; ++s) {
    const double u = sampling_uniform(42, s);
    EXPECT_GE(u, 0.0);
    EXPECT_LT(u, 1.0);
  }
}

TEST(Sampling, HandMadeCdfDecidesInsideAndIsAmbiguousAtTheBoundary) {
  // Logits ln 1, ln 2, ln 1 at T = 1: probabilities 1/4, 1/2, 1/4, CDF 0.25, 0.75, 1.
  const auto b = bounds({0.0, std::log(2.0), 0.0}, {1e-6, 1e-6, 1e-6});
  auto d = decide_sampled(b, 1.0, 0.1);
  EXPECT_EQ(d.kind, DecisionKind::decided);
  EXPECT_EQ(d.token, 0);
  d = decide_sampled(b, 1.0, 0.5);
  EXPECT_EQ(d.token, 1);
  d = decide_sampled(b, 1.0, 0.9);
  EXPECT_EQ(d.token, 2);
  d = decide_sampled(b, 1.0, 0.25);  // on the CDF_0 boundary: 0 or 1
  EXPECT_EQ(d.kind, DecisionKind::ambiguous);
  EXPECT_EQ(d.candidates, (std::vector<std::int64_t>{0, 1}));
  // Temperature 2: logits/2 → weights 1, √2, 1; CDF_0 = 1/(2 + √2) ≈ 0.2929.
  EXPECT_EQ(decide_sampled(b, 2.0, 0.28).token, 0);
  EXPECT_EQ(decide_sampled(b, 2.0, 0.30).token, 1);
  // Wide balls: ambiguous near the boundary, decided far from it.
  const auto wide = bounds({0.0, std::log(2.0), 0.0}, {0.1, 0.1, 0.1});
  EXPECT_EQ(decide_sampled(wide, 1.0, 0.27).kind, DecisionKind::ambiguous);
  EXPECT_EQ(decide_sampled(wide, 1.0, 0.05).token, 0);
  EXPECT_EQ(decide_sampled(bounds({0.0, kNaN}, {0.1, 0.1}), 1.0, 0.5).kind, DecisionKind::nan);
  EXPECT_THROW(decide_sampled(b, 0.0, 0.5), std::invalid_argument);
  EXPECT_THROW(decide_sampled(b, 1.0, 1.0), std::invalid_argument);
}

}  // namespace
}  // namespace cdna::reference
