// The exactly computed rows (reference/attention/exact_rows.hpp, docs/error-analysis.md §13): which O
// elements the problem alone decides, that the block MFMA model computes them exactly in any
// blocking and order, that the floor model agrees in every mode, and that compare_attention
// fails the other modes' bits there and only there.
#include "reference/attention/exact_rows.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "numerics/mfma.hpp"
#include "reference/attention/compare.hpp"
#include "reference/attention/floor.hpp"
#include "reference/attention/inputs.hpp"

namespace cdna::reference {
namespace {

using numerics::Rounding;

std::uint16_t bf(double x) { return numerics::bf16_from_f32(static_cast<float>(x), Rounding::RTNE); }

// Sq = Sk = 8 causal (rows see 1..8 keys), D 8, scale 0, V integers; column d of keys 0, 1 has
// mean d + 128.5 (a tie whose lower neighbour is even for even d, odd for odd d), keys 2, 3
// bring the 4-key mean to 128.75 + d (above the half-ULP), keys 4..7 the 8-key mean back to
// 128.5 + d. Columns 2, 3, 6, 7 negated.
AttentionProblem tie_problem() {
  AttentionProblem p;
  p.shape = {1, 8, 8, 1, 1, 8};
  p.mask = Mask::CausalBottomRight;
  p.scale = 0.0f;
  fill_randn(p, 4242);
  const double col[8] = {128, 129, 130, 128, 128, 127, 128, 130};
  for (int d = 0; d < 8; ++d) {
    const double sign = d % 4 < 2 ? 1.0 : -1.0;
    for (int j = 0; j < 8; ++j) p.v[static_cast<std::size_t>(j * 8 + d)] = bf(sign * (col[j] + d));
  }
  return p;
}

std::vector<std::uint16_t> as_bits(const std::vector<double>& o) {
  std::vector<std::uint16_t> bits;
  for (double x : o) bits.push_back(bf(x));  // floor values are bf16 values: exact
  return bits;
}

TEST(ExactRows, DecidesPowerOfTwoRowsOnly) {
  const AttentionProblem p = tie_problem();
  const std::vector<double> pre = exactly_computed_o(p);
  for (std::int64_t i = 0; i < 8; ++i) {
    const std::int64_t n = i + 1;
    const bool decided = n == 1 || n == 2 || n == 4 || n == 8;
    for (std::int64_t d = 0; d < 8; ++d) EXPECT_EQ(!std::isnan(pre[static_cast<std::size_t>(i * 8 + d)]), decided) << i << " " << d;
  }
  // Row 1 (keys 0, 1), column 0: (128 + 129) / 2.
  EXPECT_EQ(pre[8], 128.5);
  // The first three modes differ on row 1: a tie with an even lower neighbour.
  EXPECT_EQ(exact_o_bits(pre[8], Rounding::RTNE), bf(128));
  EXPECT_EQ(exact_o_bits(pre[8], Rounding::RTNA), bf(129));
  EXPECT_EQ(exact_o_bits(pre[8], Rounding::RTZ), bf(128));
}

TEST(ExactRows, NotDecidedWhenAConditionFails) {
  const AttentionProblem base = tie_problem();
  auto undecided = [](const AttentionProblem& p, std::size_t element) { return std::isnan(exactly_computed_o(p)[element]); };
  ASSERT_FALSE(undecided(base, 8));
  {
    AttentionProblem p = base;  // a nonzero scale: scores differ, P is not 1
    p.scale = 0x1p-20f;
    EXPECT_TRUE(std::ranges::all_of(exactly_computed_o(p), [](double x) { return std::isnan(x); }));
  }
  {
    AttentionProblem p = base;  // V on too fine a grid: 256 and 2^-20 cannot both survive an MFMA block
    p.v[0] = bf(256);
    p.v[8] = bf(0x1.4p-20);
    EXPECT_TRUE(undecided(p, 8));
    EXPECT_FALSE(undecided(p, 9));  // other columns stay decided
  }
  {
    AttentionProblem p = base;  // an infinite V
    p.v[8] = bf(INFINITY);
    EXPECT_TRUE(undecided(p, 8));
  }
  {
    AttentionProblem p = base;  // a score that may overflow fp32: inf * 0 = NaN
    p.q[8] = bf(0x1p127);
    p.k[8] = bf(0x1p127);  // key 1: seen by row 1, not by row 0
    EXPECT_TRUE(undecided(p, 8));
    EXPECT_FALSE(undecided(p, 0));
  }
  {
    AttentionProblem p = base;  // a NaN in K
    p.k[1] = 0x7fc0;
    EXPECT_TRUE(undecided(p, 8));
  }
}

// §13 (a), second form: a zero query row makes every score ±0 for any finite scale.
TEST(ExactRows, ZeroQueryRowDecidesItUnderANonzeroScale) {
  AttentionProblem p = tie_problem();
  p.scale = 0.35f;
  for (std::int64_t d = 0; d < 8; ++d) p.q[static_cast<std::size_t>(8 + d)] = d % 2 ? 0x8000 : 0x0000;  // row 1: ±0
  const std::vector<double> pre = exactly_computed_o(p);
  EXPECT_EQ(pre[8], 128.5);  // row 1 decided, the same mean as under scale 0
  EXPECT_TRUE(std::isnan(pre[0]));   // row 0 (randn query) is not: its scores are not 0
  EXPECT_TRUE(std::isnan(pre[24]));  // row 3 neither
  p.q[8] = bf(0x1p-133);  // one nonzero (subnormal) component: undecided
  EXPECT_TRUE(std::isnan(exactly_computed_o(p)[8]));
}

// The derivation's core step (error-analysis.md §13 (c)) against the block model itself: with
// P = 1, a decided column's sum is exact whatever the blocking, the order and the VALU adds.
TEST(ExactRows, BlockModelSumsADecidedColumnExactlyInAnyBlocking) {
  std::mt19937_64 gen(99);
  const std::uint16_t one = bf(1), zero = bf(0);
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 64;
    std::vector<double> v(n);
    for (double& x : v) x = static_cast<double>(static_cast<std::int64_t>(gen() % 513) - 256);
    double want = std::accumulate(v.begin(), v.end(), 0.0);
    std::shuffle(v.begin(), v.end(), gen);
    // Tiles of 16 keys (P·V MFMA k = 16, masked positions p = 0), combined through C or by VALU adds.
    float acc = 0;
    for (int t = 0; t < n; t += 16) {
      std::vector<std::uint16_t> a, b;
      for (int j = t; j < t + 16; ++j) {
        const bool masked = gen() % 8 == 0;  // a masked key: p = 0, its value not in the sum
        if (masked) want -= v[static_cast<std::size_t>(j)];
        a.push_back(masked ? zero : one);
        b.push_back(bf(v[static_cast<std::size_t>(j)]));
      }
      acc = gen() % 2 ? numerics::mfma_dot_bf16(a, b, acc) : acc + numerics::mfma_dot_bf16(a, b, 0.0f);
    }
    ASSERT_EQ(static_cast<double>(acc), want) << "trial " << trial;
  }
  // Not decided, and indeed not exact: 256 and 2^-20 in one block (the small product truncated).
  const std::vector<std::uint16_t> a{one, one}, b{bf(256), bf(0x1.4p-20)};
  EXPECT_NE(static_cast<double>(numerics::mfma_dot_bf16(a, b, 0.0f)), 256 + 0x1.4p-20);
}

TEST(ExactRows, FloorModelHoldsTheFactInEveryMode) {
  const AttentionProblem p = tie_problem();
  const std::vector<double> pre = exactly_computed_o(p);
  for (Rounding mode : numerics::kAllRoundings) {
    const std::vector<double> floor = attention_floor_output(p, mode);
    for (std::size_t e = 0; e < pre.size(); ++e) {
      if (std::isnan(pre[e])) continue;
      EXPECT_TRUE(exact_o_holds(pre[e], bf(floor[e]), mode)) << numerics::to_string(mode) << " element " << e;
    }
  }
}

TEST(ExactRows, CompareFailsEveryOtherModeAndPassesItsOwn) {
  const AttentionProblem p = tie_problem();
  const AttentionResult exact = attention_forward_exact(p);
  std::vector<float> lse;
  for (double x : exact.lse) lse.push_back(static_cast<float>(x));  // LSE = ln n: within its bound
  for (Rounding done : numerics::kAllRoundings) {
    const std::vector<std::uint16_t> o = as_bits(attention_floor_output(p, done));
    for (Rounding declared : numerics::kAllRoundings) {
      const AttentionComparison c = compare_attention(p, exact, o, lse, declared);
      const std::string what = std::string(numerics::to_string(done)) + " judged as " + std::string(numerics::to_string(declared));
      if (done == declared) {
        EXPECT_TRUE(c.pass()) << what << ": " << c.first_failure;
      } else {
        EXPECT_GT(c.semantic_violations, 0) << what;
        EXPECT_NE(c.first_failure.find("computes exactly"), std::string::npos) << what << ": " << c.first_failure;
      }
    }
  }
}

TEST(ExactRows, ZeroMeanComparedByValue) {
  AttentionProblem p = tie_problem();
  p.v[0] = bf(5);
  p.v[8] = bf(-5);  // row 1, column 0: mean 0
  const std::vector<double> pre = exactly_computed_o(p);
  ASSERT_EQ(pre[8], 0.0);
  for (Rounding mode : numerics::kAllRoundings) {
    EXPECT_TRUE(exact_o_holds(0.0, 0x0000, mode));
    EXPECT_TRUE(exact_o_holds(0.0, 0x8000, mode));  // -0: the sign of a zero is not defined
    EXPECT_FALSE(exact_o_holds(0.0, bf(0x1p-133), mode));
  }
}

}  // namespace
}  // namespace cdna::reference
