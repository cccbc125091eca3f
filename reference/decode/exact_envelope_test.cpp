// Two independent implementations of docs/decode-semantics.md §1 checked against each other: the
// exact MPFR oracle's logits (within exact_logit_error of the exact ones) must lie in the
// envelope's balls, which by construction contain the exact logits, under the fast reference's
// own arithmetic and under the monokernel's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "reference/decode/envelope.hpp"
#include "reference/decode/exact.hpp"
#include "reference/decode/random.hpp"

namespace cdna::reference {
namespace {

// Largest |exact − mid| / (rad + exact_logit_error(exact)) over a step; ≤ 1 means contained.
double worst_ratio(const std::vector<double>& exact, const StepBounds& b) {
  double worst = 0;
  for (std::size_t i = 0; i < exact.size(); ++i)
    worst = std::max(worst, std::fabs(exact[i] - b.mid[i]) / (b.rad[i] + exact_logit_error(exact[i])));
  return worst;
}

TEST(ExactAgainstEnvelope, ExactLogitsLieInTheBallsOfTheTinyPreset) {
  const DecoderModel m = random_decoder_model(decoder_preset("tiny"), 3);
  ExactDecoder exact(m);
  DecodeEnvelope fast(m, double_arithmetic()), kernel(m, monokernel_arithmetic(numerics::Rounding::RTNE));
  std::int64_t token = 1;
  double worst_fast = 0, worst_kernel = 0;
  std::vector<double> fast_radii, errors;
  for (int step = 0; step < 6; ++step) {
    const std::vector<double> e = exact.step(token);
    const StepBounds f = fast.step(token), k = kernel.step(token);
    worst_fast = std::max(worst_fast, worst_ratio(e, f));
    for (std::size_t i = 0; i < e.size(); ++i) {
      fast_radii.push_back(f.rad[i]);
      errors.push_back(std::fabs(e[i] - f.mid[i]));
    }
    worst_kernel = std::max(worst_kernel, worst_ratio(e, k));
    ASSERT_LE(worst_ratio(e, f), 1.0) << "double_arithmetic ball misses the exact logits at step " << step;
    ASSERT_LE(worst_ratio(e, k), 1.0) << "monokernel ball misses the exact logits at step " << step;
    token = greedy_token(e);  // teacher forcing with the definition's own tokens
    ASSERT_GE(token, 0);
  }
  std::nth_element(fast_radii.begin(), fast_radii.begin() + fast_radii.size() / 2, fast_radii.end());
  std::nth_element(errors.begin(), errors.begin() + errors.size() / 2, errors.end());
  std::printf("6 steps: largest |exact - mid| / radius: fast reference %.3g, monokernel balls %.3g; fast reference: "
              "median radius %.3g, median |exact - mid| %.3g\n",
              worst_fast, worst_kernel, fast_radii[fast_radii.size() / 2], errors[errors.size() / 2]);
}

TEST(ExactAgainstEnvelope, AMovedLogitLeavesTheFastBall) {
  // The check can fail: the exact logits moved by 2 radii leave the fast reference's ball.
  const DecoderModel m = random_decoder_model(decoder_preset("tiny"), 3);
  ExactDecoder exact(m);
  DecodeEnvelope fast(m, double_arithmetic());
  std::vector<double> e = exact.step(1);
  const StepBounds f = fast.step(1);
  e[17] = f.mid[17] + 2 * (f.rad[17] + exact_logit_error(e[17]));
  EXPECT_GT(worst_ratio(e, f), 1.0);
}

}  // namespace
}  // namespace cdna::reference
