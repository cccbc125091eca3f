// compare_attention's exact facts for non-finite inputs: where the definition gives NaN or an
// infinity (docs/semantics.md), the kernel must give exactly that; a finite or other answer is a
// semantic violation.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "numerics/bf16.hpp"
#include "reference/compare.hpp"

namespace cdna::reference {
namespace {

using numerics::Rounding;

// B = Sq = Sk = Hq = Hkv = 1, D = 4: q, k, v of four bf16 values each.
AttentionProblem one_key(float q0, float v0) {
  AttentionProblem p;
  p.shape = {1, 1, 1, 1, 1, 4};
  p.scale = 0.5f;
  const auto b = [](float x) { return numerics::bf16_from_f32(x, Rounding::RTNE); };
  p.q = {b(q0), b(1), b(1), b(1)};
  p.k = {b(1), b(1), b(1), b(1)};
  p.v = {b(v0), b(2), b(3), b(4)};
  return p;
}

TEST(CompareFacts, NanScoreRowMustGiveNanLse) {
  const AttentionProblem p = one_key(std::numeric_limits<float>::quiet_NaN(), 1);
  const AttentionResult exact = attention_forward_exact(p);
  ASSERT_TRUE(std::isnan(exact.lse[0]));
  const std::uint16_t nan16 = 0x7fc0;
  const std::vector<std::uint16_t> o_nan{nan16, nan16, nan16, nan16};
  const std::vector<float> lse_nan{std::numeric_limits<float>::quiet_NaN()};
  const std::vector<float> lse_minf{-std::numeric_limits<float>::infinity()};
  EXPECT_EQ(compare_attention(p, exact, o_nan, lse_nan, Rounding::RTNE).semantic_violations, 0);
  const auto c = compare_attention(p, exact, o_nan, lse_minf, Rounding::RTNE);
  EXPECT_GT(c.semantic_violations, 0);
  EXPECT_NE(c.first_failure.find("definition gives nan"), std::string::npos) << c.first_failure;
}

TEST(CompareFacts, InfiniteVMustGiveThatInfinity) {
  const AttentionProblem p = one_key(1, std::numeric_limits<float>::infinity());
  const AttentionResult exact = attention_forward_exact(p);
  ASSERT_EQ(exact.o[0], std::numeric_limits<double>::infinity());
  const auto b = [](float x) { return numerics::bf16_from_f32(x, Rounding::RTNE); };
  const std::vector<float> lse{static_cast<float>(exact.lse[0])};
  const std::vector<std::uint16_t> right{b(INFINITY), b(2), b(3), b(4)}, wrong{b(-INFINITY), b(2), b(3), b(4)};
  EXPECT_EQ(compare_attention(p, exact, right, lse, Rounding::RTNE).semantic_violations, 0);
  const auto c = compare_attention(p, exact, wrong, lse, Rounding::RTNE);
  EXPECT_GT(c.semantic_violations, 0);
  EXPECT_NE(c.first_failure.find("definition gives inf"), std::string::npos) << c.first_failure;
}

// What a comparison judged: every O element and LSE value of the shape, and of the O elements
// those decided by an exact fact (no visible key: +0.0; an infinite exact value).
TEST(CompareCounts, JudgedElementsAndExactFacts) {
  const AttentionProblem p = one_key(1, std::numeric_limits<float>::infinity());
  const AttentionResult exact = attention_forward_exact(p);
  const auto b = [](float x) { return numerics::bf16_from_f32(x, Rounding::RTNE); };
  const std::vector<float> lse{static_cast<float>(exact.lse[0])};
  const std::vector<std::uint16_t> o{b(INFINITY), b(2), b(3), b(4)};
  const auto c = compare_attention(p, exact, o, lse, Rounding::RTNE);
  EXPECT_EQ(c.o_judged, 4);
  EXPECT_EQ(c.o_exact_facts, 1);  // O[0] = +inf
  EXPECT_EQ(c.lse_judged, 1);

  AttentionProblem no_keys;  // Sq 3, Sk 0, Hq 2, D 4: 6 rows without keys
  no_keys.shape = {1, 3, 0, 2, 1, 4};
  no_keys.q.assign(24, b(1));
  const AttentionResult none = attention_forward_exact(no_keys);
  const std::vector<std::uint16_t> zeros(24, 0);
  const std::vector<float> minus_inf(6, -std::numeric_limits<float>::infinity());
  const auto z = compare_attention(no_keys, none, zeros, minus_inf, Rounding::RTNE);
  EXPECT_TRUE(z.pass()) << z.first_failure;
  EXPECT_EQ(z.o_judged, 24);
  EXPECT_EQ(z.o_exact_facts, 24);
  EXPECT_EQ(z.lse_judged, 6);

  AttentionProblem empty;  // B = 0: nothing to judge, and that is not a pass
  empty.shape = {0, 3, 2, 2, 1, 4};
  const auto e = compare_attention(empty, attention_forward_exact(empty), {}, {}, Rounding::RTNE);
  EXPECT_FALSE(e.judged());
  EXPECT_FALSE(e.pass());
}

}  // namespace
}  // namespace cdna::reference
