// The certified bound (reference/attention/bound.hpp, docs/error-analysis.md): hand-computed terms, a
// hand-computed one-key case, finiteness for huge scores, and that the bound is tight enough to
// reject outputs a correct kernel cannot produce.
#include "reference/attention/bound.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "reference/attention/floor.hpp"
#include "reference/attention/inputs.hpp"

namespace cdna::reference {
namespace {

using numerics::Rounding;
using namespace bound_terms;

std::uint16_t bf16(double x) { return numerics::bf16_from_f32(static_cast<float>(x), Rounding::RTNE); }
double value(std::uint16_t bits) { return static_cast<double>(numerics::f32_from_bf16(bits)); }

TEST(Bound, GammaAndRoundoffs) {
  EXPECT_DOUBLE_EQ(gamma(2, 0.25), 1.0);  // 0.5 / (1 - 0.5)
  EXPECT_DOUBLE_EQ(gamma(1, 0x1p-24), 0x1p-24 / (1 - 0x1p-24));
  EXPECT_EQ(gamma(4, 0.25), std::numeric_limits<double>::infinity());
  EXPECT_EQ(bf16_unit_roundoff(Rounding::RTNE), 0x1p-8);
  EXPECT_EQ(bf16_unit_roundoff(Rounding::RTNA), 0x1p-8);
  EXPECT_EQ(bf16_unit_roundoff(Rounding::RTZ), 0x1p-7);
}

// §3 by hand. D = 128: 16 blocks of 8. Sk = 1: the 16-key tile is the narrowest; P·V two blocks
// and one rescale multiply (3), running sum 15 in-tile additions, one multiply, one add (17).
// Sk = 10^5: 6250 tiles of 16 keys give the largest depths: P·V 6250·(2 + 1) = 18750, running
// sum 15 + 2·6250 = 12515 (tiles of 128: 782·17 = 13294 and 127 + 2·782 = 1691, smaller).
TEST(Bound, KernelDepthsByHand) {
  const Depths one = kernel_depths(8, 1);
  EXPECT_EQ(one.qk, 1);
  EXPECT_EQ(one.pv, 3);
  EXPECT_EQ(one.l, 17);
  EXPECT_EQ(one.exps, 1);
  const Depths big = kernel_depths(128, 100000);
  EXPECT_EQ(big.qk, 16);
  EXPECT_EQ(big.pv, 18750);
  EXPECT_EQ(big.l, 12515);
  EXPECT_EQ(big.exps, 6250);
}

// §2: one block of 8 (depth 1) with Σ|fresh| = 1: truncation 8·2^-24 (2^-21), C's alignment
// 2^-24, the block sum's 2^-31, and one node's rounding γ_1(2^-24 + 2^-30).
TEST(Bound, OneMfmaBlockByHand) {
  const double node = 0x1p-24 + 0x1p-30;
  const double want = node / (1 - node) + (0x1p-21 + 0x1p-24 + 0x1p-31) * (1 + node / (1 - node)) + 0x1p-146;
  EXPECT_DOUBLE_EQ(mfma_dot_error(1, 1.0), want);
  EXPECT_LT(mfma_dot_error(1, 1.0), 0x1p-20);
}

// One visible key, D = 8, q = k = e_0, scale 1, V = 1 (RTNE): P = 1, O = V = 1 exactly.
// The convex-hull form (§7.2) is the smaller one: with one key the hull has width 0, so
//   err32 = (1 + ε_n)(κ_h + t_h) + ε_n·|O| + flush,   κ_h = (1 + u_b)(1 + γ_3(u_c))/(1 − γ_17(u)) − 1,
//   B = (1 + u_b)·err32 + u_b·|O| (+ the oracle's 10·2^-128 + 2^-53 and 2^-40 self-rounding),
// to first order 2u_b + u_b² + 20u + 2^-21·1.13 + 2ε_n = 0.0078298. Evaluated exactly from these
// formulas by hand (Python, fractions of powers of two): 0.007829684356380727.
TEST(Bound, OneKeyHandComputed) {
  AttentionProblem p;
  p.shape = {1, 1, 1, 1, 1, 8};
  p.scale = 1.0f;
  p.q = {bf16(1), 0, 0, 0, 0, 0, 0, 0};
  p.k = p.q;
  p.v = {bf16(1), bf16(1), bf16(1), bf16(1), bf16(1), bf16(1), bf16(1), bf16(1)};
  const AttentionResult exact = attention_forward_exact(p);
  ASSERT_EQ(exact.o[0], 1.0);
  ASSERT_EQ(exact.lse[0], 1.0);
  const AttentionBounds b = attention_bounds(p, exact, Rounding::RTNE);
  EXPECT_NEAR(b.o[0], 0.007829684356380727, 1e-15);
  // Just over one bf16 ULP of 1 (2^-7): a kernel may be one ULP off here, never two.
  EXPECT_GT(b.o[0], 0x1p-7);
  EXPECT_LT(b.o[0], 0x1p-6);
  // LSE = 1: log of l̂ ≈ 1 (1 ULP each of exp, rcp-free path), additions and ln 2: a few 2^-23.
  EXPECT_GT(b.lse[0], 0x1p-24);
  EXPECT_LT(b.lse[0], 0x1p-17);
}

// C06 of the handed cases: scores ≈ 2.8·10^11 make every per-key argument bound astronomically
// large (relative MFMA error × |S|), yet all V rows are equal: the convex-hull form keeps the O
// bound at about one bf16 rounding, and LSE's at the score error (≈ 10^-6 relative).
TEST(Bound, HugeEqualScoresStayFinite) {
  AttentionProblem p;
  p.shape = {1, 1, 4, 1, 1, 64};
  p.scale = 0.25f;
  p.q = filled_bf16(64, 133120);
  p.k = filled_bf16(4 * 64, 133120);
  p.v = p.k;
  const AttentionResult exact = attention_forward_exact(p);
  for (Rounding mode : numerics::kAllRoundings) {
    const AttentionBounds b = attention_bounds(p, exact, mode);
    for (std::size_t d = 0; d < 64; ++d) {
      ASSERT_TRUE(std::isfinite(b.o[d]));
      EXPECT_LT(b.o[d], 4 * bf16_unit_roundoff(mode) * 133120);
    }
    ASSERT_TRUE(std::isfinite(b.lse[0]));
    EXPECT_LT(b.lse[0], 1e-5 * std::abs(exact.lse[0]));
  }
}

// The floor model is a correct kernel (exact except for the declared roundings of P and O): it
// lies within the bound, in every mode, also with logits of std 16 and a causal mask.
TEST(Bound, FloorModelWithinBound) {
  for (double qk_std : {1.0, 4.0}) {
    AttentionProblem p;
    p.shape = {1, 40, 70, 2, 1, 64};
    p.mask = Mask::CausalBottomRight;
    p.q = randn_bf16(static_cast<std::size_t>(p.shape.q_elements()), 11, qk_std);
    p.k = randn_bf16(static_cast<std::size_t>(p.shape.kv_elements()), 12, qk_std);
    p.v = randn_bf16(static_cast<std::size_t>(p.shape.kv_elements()), 13);
    const AttentionResult exact = attention_forward_exact(p);
    for (Rounding mode : numerics::kAllRoundings) {
      const AttentionBounds b = attention_bounds(p, exact, mode);
      const std::vector<double> floor = attention_floor_output(p, mode);
      for (std::size_t n = 0; n < floor.size(); ++n) {
        ASSERT_LE(std::abs(floor[n] - exact.o[n]), b.o[n]) << numerics::to_string(mode) << " n=" << n;
      }
    }
  }
}

// Not vacuous: with V > 0 there is no cancellation (Σ P|V| = |O|), and the bound is about
// 2u_b·|O|: under two bf16 ULPs for RTNE/RTNA (u_b = 2^-8), under four for RTZ (2^-7). The
// floor output moved by that many ULPs away from the exact value must be rejected in every
// element, in every mode, while the floor output itself passes.
TEST(Bound, RejectsTwoUlpShift) {
  AttentionProblem p;
  p.shape = {1, 8, 300, 1, 1, 64};
  p.q = randn_bf16(static_cast<std::size_t>(p.shape.q_elements()), 21);
  p.k = randn_bf16(static_cast<std::size_t>(p.shape.kv_elements()), 22);
  p.v = randn_bf16(static_cast<std::size_t>(p.shape.kv_elements()), 23);
  for (std::uint16_t& x : p.v) x = bf16(1.0 + std::abs(value(x)));  // V in [1, 5]
  const AttentionResult exact = attention_forward_exact(p);
  for (Rounding mode : numerics::kAllRoundings) {
    const AttentionBounds b = attention_bounds(p, exact, mode);
    const std::vector<double> floor = attention_floor_output(p, mode);
    for (std::size_t n = 0; n < floor.size(); ++n) {
      const double ulp = numerics::bf16_ulp(floor[n]);
      const double shift = (mode == Rounding::RTZ ? 4 : 2) * ulp;
      const double away = floor[n] >= exact.o[n] ? floor[n] + shift : floor[n] - shift;
      EXPECT_GT(std::abs(away - exact.o[n]), b.o[n]) << numerics::to_string(mode) << " n=" << n;
      EXPECT_LE(std::abs(floor[n] - exact.o[n]), b.o[n]);
    }
  }
}

TEST(Bound, RejectsWrongShape) {
  AttentionProblem p;
  p.shape = {1, 1, 1, 1, 1, 8};
  p.q = p.k = p.v = std::vector<std::uint16_t>(8, bf16(1));
  AttentionResult wrong;
  wrong.o.assign(7, 0);
  wrong.lse.assign(1, 0);
  EXPECT_THROW(attention_bounds(p, wrong, Rounding::RTNE), std::invalid_argument);
}

}  // namespace
}  // namespace cdna::reference
