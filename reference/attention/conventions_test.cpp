// Failures on the definition's special rows are named for the convention the kernel does not
// follow (reference/attention/conventions.hpp) and counted apart, and still fail. Hand-made outputs of
// one-row problems: B = Sq = Hq = Hkv = 1, D = 4, scale 0.5, Q = (q0, 1, 1, 1).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "numerics/bf16.hpp"
#include "reference/attention/compare.hpp"
#include "reference/attention/conventions.hpp"

namespace cdna::reference {
namespace {

using numerics::Rounding;
constexpr float kInf = std::numeric_limits<float>::infinity();
std::uint16_t b16(float x) { return numerics::bf16_from_f32(x, Rounding::RTNE); }

// Keys j = 0..n-1 with K[j] = (k0[j], 1, 1, 1), V[j] = (1 + j, 2, 3, 4).
AttentionProblem row(float q0, std::vector<float> k0) {
  AttentionProblem p;
  const auto n = static_cast<std::int64_t>(k0.size());
  p.shape = {1, 1, n, 1, 1, 4};
  p.scale = 0.5f;
  p.q = {b16(q0), b16(1), b16(1), b16(1)};
  for (std::int64_t j = 0; j < n; ++j) {
    for (float x : {k0[static_cast<std::size_t>(j)], 1.0f, 1.0f, 1.0f}) p.k.push_back(b16(x));
    for (float x : {1.0f + static_cast<float>(j), 2.0f, 3.0f, 4.0f}) p.v.push_back(b16(x));
  }
  return p;
}

TEST(Conventions, RowClassFromTheExactLse) {
  EXPECT_EQ(exact_row_class(0.5), RowClass::Ordinary);
  EXPECT_EQ(exact_row_class(std::nan("")), RowClass::NaNScore);
  EXPECT_EQ(exact_row_class(INFINITY), RowClass::PosInfScore);
  EXPECT_EQ(exact_row_class(-INFINITY), RowClass::NoVisibleKey);
}

// One +inf score (key 0: score 0.5 · (inf + 3) = +inf) beside a finite one: the definition's
// limit is O = V of key 0 = (1, 2, 3, 4), LSE = +inf. AITER and MoonMath write NaN 0x7FFF.
TEST(Conventions, PlusInfScoreRowWithNaNIsAConventionFailure) {
  const AttentionProblem p = row(1, {kInf, 1});
  const AttentionResult exact = attention_forward_exact(p);
  ASSERT_EQ(exact.lse[0], std::numeric_limits<double>::infinity());
  const std::vector<float> lse{kInf};
  const std::vector<std::uint16_t> right{b16(1), b16(2), b16(3), b16(4)}, nan_row(4, 0x7FFF);
  const AttentionComparison ok = compare_attention(p, exact, right, lse, Rounding::RTNE);
  EXPECT_TRUE(ok.pass()) << ok.first_failure;
  EXPECT_EQ(ok.convention_rows, 0);
  const AttentionComparison c = compare_attention(p, exact, nan_row, lse, Rounding::RTNE);
  EXPECT_FALSE(c.pass());  // still a failure
  EXPECT_EQ(c.convention_rows, 1);
  EXPECT_EQ(c.semantic_violations, 4);  // each column NaN where V is finite
  EXPECT_EQ(c.first_failure,
            "row (b=0, h=0, i=0): the definition's +inf-score convention (O = V of the +inf key, LSE = +inf) not "
            "followed: kernel writes O NaN 0x7FFF in every column (the definition: 1)");
  // Without an LSE output the note names O alone; a kernel NaN LSE is named too.
  EXPECT_EQ(compare_attention(p, exact, nan_row, {}, Rounding::RTNE, false).convention_rows, 1);
  const std::vector<float> nan_lse{std::numeric_limits<float>::quiet_NaN()};
  EXPECT_NE(compare_attention(p, exact, nan_row, nan_lse, Rounding::RTNE).first_failure.find(", LSE NaN"),
            std::string::npos);
}

// Two +inf scores: O = NaN in every column (any NaN bits), LSE = +inf.
TEST(Conventions, TwoPlusInfScores) {
  const AttentionProblem p = row(1, {kInf, kInf});
  const AttentionResult exact = attention_forward_exact(p);
  const std::vector<float> lse{kInf};
  const std::vector<std::uint16_t> nan_row(4, 0x7FFF), zero_row(4, 0);
  EXPECT_TRUE(compare_attention(p, exact, nan_row, lse, Rounding::RTNE).pass());
  const AttentionComparison c = compare_attention(p, exact, zero_row, lse, Rounding::RTNE);
  EXPECT_EQ(c.convention_rows, 1);
  EXPECT_EQ(c.first_failure,
            "row (b=0, h=0, i=0): the definition's +inf-score convention (two or more +inf scores, or the +inf "
            "key's V NaN: O = NaN, LSE = +inf) not followed: kernel writes O 0 0x0000 in every column (the "
            "definition: NaN)");
}

// A NaN in Q makes every score NaN: O = NaN, LSE = NaN; AITER writes LSE -inf.
TEST(Conventions, NaNScoreRowWithMinusInfLse) {
  const AttentionProblem p = row(std::numeric_limits<float>::quiet_NaN(), {1, 2});
  const AttentionResult exact = attention_forward_exact(p);
  const std::vector<std::uint16_t> nan_row(4, 0x7FC0);
  const std::vector<float> minf{-kInf};
  const AttentionComparison c = compare_attention(p, exact, nan_row, minf, Rounding::RTNE);
  EXPECT_FALSE(c.pass());
  EXPECT_EQ(c.convention_rows, 1);
  EXPECT_EQ(c.first_failure,
            "row (b=0, h=0, i=0): the definition's NaN-score rule (a NaN score among the visible keys: O = NaN, "
            "LSE = NaN) not followed: kernel writes LSE -inf");
}

// No visible key (Sk = 0): O = +0.0, LSE = -inf; older PyTorch's NaN is another convention.
TEST(Conventions, NoVisibleKeyRow) {
  AttentionProblem p = row(1, {});
  const AttentionResult exact = attention_forward_exact(p);
  const std::vector<std::uint16_t> nan_row{0, 0, 0x7FC0, 0};
  const std::vector<float> minf{-kInf};
  const AttentionComparison c = compare_attention(p, exact, nan_row, minf, Rounding::RTNE);
  EXPECT_EQ(c.convention_rows, 1);
  EXPECT_EQ(c.first_failure,
            "row (b=0, h=0, i=0): the definition's no-visible-key convention (O = +0.0, LSE = -inf) not followed: "
            "kernel writes O NaN 0x7FC0 at d=2 (the definition: 0)");
}

// -0.0 where the row must be +0.0 (docs/semantics.md §5.8) is named, not "no column differs".
TEST(Conventions, NegativeZeroInAKeylessRowIsNamed) {
  AttentionProblem p = row(1, {});
  const AttentionResult exact = attention_forward_exact(p);
  const std::vector<std::uint16_t> neg_zero{0, 0x8000, 0, 0};
  const std::vector<float> minf{-kInf};
  const AttentionComparison c = compare_attention(p, exact, neg_zero, minf, Rounding::RTNE);
  EXPECT_FALSE(c.pass());
  EXPECT_NE(c.first_failure.find("at d=1"), std::string::npos) << c.first_failure;
  EXPECT_EQ(c.first_failure.find("no column differs"), std::string::npos) << c.first_failure;
}

// An ordinary row's failure keeps its numeric note and is not counted as a convention row.
TEST(Conventions, OrdinaryFailureIsNotAConvention) {
  const AttentionProblem p = row(1, {1, 2});
  const AttentionResult exact = attention_forward_exact(p);
  const std::vector<std::uint16_t> wrong{b16(100), b16(2), b16(3), b16(4)};
  const std::vector<float> lse{static_cast<float>(exact.lse[0])};
  const AttentionComparison c = compare_attention(p, exact, wrong, lse, Rounding::RTNE);
  EXPECT_FALSE(c.pass());
  EXPECT_EQ(c.convention_rows, 0);
  EXPECT_EQ(c.first_failure.rfind("O b=0 h=0 i=0 d=0 = 100", 0), 0u) << c.first_failure;
}

}  // namespace
}  // namespace cdna::reference
