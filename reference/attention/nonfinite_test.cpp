// Every tool of reference/ on every non-finite class of docs/semantics.md §5 (issue 9 §2): the
// oracle, the fast reference, the floor model, the bound and the pass rule agree with the
// definition and with each other. One row, D = 4, four keys; key j's score is 0.5·K[j][0] (Q =
// (1, 0, 0, 0)), so K[j][0] = ±inf or NaN makes that score ±inf or NaN.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "numerics/bf16.hpp"
#include "reference/attention/attention.hpp"
#include "reference/attention/bound.hpp"
#include "reference/attention/compare.hpp"
#include "reference/attention/fast_reference.hpp"
#include "reference/attention/floor.hpp"

namespace cdna::reference {
namespace {

constexpr std::uint16_t kPosInf = 0x7f80, kNegInf = 0xff80, kNaN = 0x7fc0;
std::uint16_t bf(double x) { return numerics::bf16_from_f32(static_cast<float>(x), numerics::Rounding::RTNE); }

struct NonFiniteClass {
  const char* name;
  std::uint16_t k0[4];  // K[j][0], j = 0..3
};

const NonFiniteClass kClasses[] = {
    {"one +inf", {kPosInf, bf(1), bf(2), bf(-3)}},
    {"two +inf", {kPosInf, bf(1), kPosInf, bf(-3)}},
    {"NaN", {kNaN, bf(1), bf(2), bf(-3)}},
    {"some -inf", {kNegInf, bf(1), bf(2), kNegInf}},
    {"all -inf", {kNegInf, kNegInf, kNegInf, kNegInf}},
    {"+inf and NaN", {kPosInf, kNaN, bf(2), bf(-3)}},
    {"+inf and -inf", {kPosInf, kNegInf, bf(2), bf(-3)}},
    {"NaN and -inf", {kNegInf, kNaN, bf(2), bf(-3)}},
};

AttentionProblem problem_of(const NonFiniteClass& c, bool nan_v_at_zero_weight) {
  AttentionProblem p;
  p.shape = {1, 1, 4, 1, 1, 4};
  p.scale = 0.5f;
  p.q = {bf(1), 0, 0, 0};
  p.k.assign(16, bf(0.25));
  p.v.resize(16);
  for (int j = 0; j < 4; ++j) {
    p.k[static_cast<std::size_t>(4 * j)] = c.k0[j];
    for (int d = 0; d < 4; ++d) p.v[static_cast<std::size_t>(4 * j + d)] = bf(1.0 + j - 0.75 * d);
  }
  // V of a key that weighs 0 (a -inf score beside finite or +inf ones) has no effect, NaN or not.
  if (nan_v_at_zero_weight)
    for (int j = 0; j < 4; ++j)
      if (c.k0[j] == kNegInf) p.v[static_cast<std::size_t>(4 * j + 1)] = kNaN;
  return p;
}

bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

TEST(NonFinite, EveryToolFollowsTheDefinition) {
  for (const auto& c : kClasses) {
    for (bool nan_v : {false, true}) {
      SCOPED_TRACE(std::string(c.name) + (nan_v ? ", NaN V at zero weight" : ""));
      const AttentionProblem p = problem_of(c, nan_v);
      const AttentionResult exact = attention_forward_exact(p);
      const FastAttentionResult fast = attention_forward_fast(p);
      const bool lse_finite = std::isfinite(exact.lse[0]);
      EXPECT_TRUE(same(fast.lse[0], exact.lse[0])) << fast.lse[0] << " vs " << exact.lse[0];
      for (std::size_t d = 0; d < 4; ++d) {
        if (!lse_finite || !std::isfinite(exact.o[d])) EXPECT_TRUE(same(fast.o[d], exact.o[d])) << d;
        else EXPECT_LE(std::abs(fast.o[d] - exact.o[d]), fast.o_bound[d] * 2) << d;
        if (nan_v && std::isfinite(exact.lse[0])) EXPECT_FALSE(std::isnan(exact.o[1])) << "zero-weight NaN leaked";
      }
      for (numerics::Rounding mode : numerics::kAllRoundings) {
        SCOPED_TRACE(numerics::to_string(mode));
        const auto floor = attention_floor_output(p, mode);
        const AttentionBounds bounds = attention_bounds(p, exact, mode);
        for (std::size_t d = 0; d < 4; ++d) {
          EXPECT_EQ(std::isnan(floor[d]), std::isnan(exact.o[d])) << d;
          if (!lse_finite) EXPECT_TRUE(same(floor[d], exact.o[d])) << d;
          EXPECT_EQ(std::isnan(bounds.o[d]), std::isnan(exact.o[d])) << d;
          if (!std::isnan(exact.o[d])) EXPECT_TRUE(std::isfinite(bounds.o[d]) && bounds.o[d] >= 0) << bounds.o[d];
        }
        EXPECT_EQ(std::isnan(bounds.lse[0]), std::isnan(exact.lse[0]));
        if (!std::isnan(exact.lse[0])) EXPECT_TRUE(std::isfinite(bounds.lse[0]) && bounds.lse[0] >= 0);
        // The floor, as a kernel's output, passes: the tools agree on what is right.
        std::vector<std::uint16_t> o(4);
        for (std::size_t d = 0; d < 4; ++d) o[d] = std::isnan(floor[d]) ? kNaN : bf(floor[d]);
        const std::vector<float> lse{static_cast<float>(exact.lse[0])};
        const auto verdict = compare_attention(p, exact, o, lse, mode);
        EXPECT_TRUE(verdict.pass()) << verdict.first_failure;
        EXPECT_EQ(verdict.o_judged, 4);
      }
    }
  }
}

}  // namespace
}  // namespace cdna::reference

namespace cdna::reference {
namespace {

// Scores near 2^60 (Q = K = 2^30 in one dimension) make the bound's double evaluation of the
// weights give up (+inf bounds); a V column of zeros has the exact O = 0 and a bound that is a
// number (not 0·inf = NaN): found by `golden make`, which refuses to write a NaN bound.
TEST(NonFinite, ZeroVColumnUnderHugeScoresHasANumberBound) {
  AttentionProblem p;
  p.shape = {1, 2, 3, 1, 1, 4};
  p.scale = 1.0f;
  p.q = {bf(0x1p30), 0, 0, 0, bf(-0x1p30), 0, 0, 0};
  p.k = {bf(0x1p30), 0, 0, 0, bf(0.5), 0, 0, 0, bf(-0x1p30), 0, 0, 0};
  p.v = {0, bf(1), bf(2), bf(3), 0, bf(-1), bf(5), bf(7), 0, bf(2), bf(4), bf(8)};
  const AttentionResult exact = attention_forward_exact(p);
  for (numerics::Rounding mode : numerics::kAllRoundings) {
    const AttentionBounds bounds = attention_bounds(p, exact, mode);
    for (std::size_t n = 0; n < bounds.o.size(); ++n) {
      ASSERT_TRUE(std::isfinite(exact.o[n]));
      EXPECT_FALSE(std::isnan(bounds.o[n])) << n;
      EXPECT_GE(bounds.o[n], 0) << n;
    }
  }
}

}  // namespace
}  // namespace cdna::reference
