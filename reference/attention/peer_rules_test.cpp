// The peer suites' pass rules on hand-made outputs: every rule passes a near-exact output and
// fails a clearly wrong one; the particular tolerances (AITER's 0.01 floor, FlashAttention 3's
// rounding term, AOTriton's LSE and masked-row facts) show where they should.
#include "reference/attention/peer_rules.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "reference/attention/inputs.hpp"

namespace cdna::reference {
namespace {

using numerics::Rounding;

std::uint16_t bf16(double x) { return numerics::bf16_from_f32(static_cast<float>(x), Rounding::RTNE); }

AttentionProblem random_problem(double v_std = 1.0) {
  AttentionProblem p;
  p.shape = {1, 24, 40, 2, 1, 64};  // causal with Sq < Sk; GQA
  p.mask = Mask::CausalBottomRight;
  p.scale = 0.125f;
  p.q = randn_bf16(static_cast<std::size_t>(p.shape.q_elements()), 11);
  p.k = randn_bf16(static_cast<std::size_t>(p.shape.kv_elements()), 12);
  p.v = randn_bf16(static_cast<std::size_t>(p.shape.kv_elements()), 13, v_std);
  return p;
}

// The double reference rounded to bf16: what an ideal kernel would store.
std::vector<std::uint16_t> near_exact(const PeerReferences& refs) {
  std::vector<std::uint16_t> o(refs.fp64.o.size());
  for (std::size_t n = 0; n < o.size(); ++n) o[n] = bf16(refs.fp64.o[n]);
  return o;
}

std::vector<float> lse_of(const PeerReferences& refs) {
  std::vector<float> lse(refs.fp64.lse.size());
  for (std::size_t n = 0; n < lse.size(); ++n) lse[n] = static_cast<float>(refs.fp64.lse[n]);
  return lse;
}

TEST(PeerRules, ReferencesAgreeWithEachOther) {
  const AttentionProblem p = random_problem();
  const PeerReferences refs = peer_references(p, Rounding::RTNE);
  ASSERT_EQ(std::ssize(refs.upcast), p.shape.o_elements());
  double up = 0, lowp = 0, blocked = 0;
  for (std::size_t n = 0; n < refs.upcast.size(); ++n) {
    up = std::max(up, std::abs(refs.upcast[n] - refs.fp64.o[n]));
    lowp = std::max(lowp, std::abs(refs.lowp[n] - refs.fp64.o[n]));
    blocked = std::max(blocked, std::abs(refs.blocked[n] - refs.fp64.o[n]));
    // The bf16 reference holds bf16 values.
    EXPECT_EQ(refs.lowp[n], numerics::f32_from_bf16(bf16(refs.lowp[n])));
  }
  EXPECT_LT(up, 1e-5);       // fp32 throughout
  EXPECT_LT(lowp, 0.05);     // several bf16 roundings
  EXPECT_GT(lowp, 1e-3);
  EXPECT_LT(blocked, 0.02);  // P in bf16 only
  EXPECT_GT(blocked, 1e-5);
  // Sq 24 < Sk 40 under the bottom-right causal mask: every row sees a key.
  for (double l : refs.fp64.lse) EXPECT_TRUE(std::isfinite(l));
  EXPECT_GT(refs.fp64.max_abs_score, 1.0);
}

TEST(PeerRules, EveryRulePassesANearExactOutput) {
  const AttentionProblem p = random_problem();
  const PeerReferences refs = peer_references(p, Rounding::RTNE);
  const auto o = near_exact(refs);
  const auto lse = lse_of(refs);
  for (PeerRule rule : kAllPeerRules) {
    const PeerVerdict v = judge(rule, refs, o, lse);
    EXPECT_TRUE(v.pass) << to_string(rule) << ": " << v.note;
    EXPECT_TRUE(v.note.empty());
  }
}

TEST(PeerRules, EveryRuleFailsAClearlyWrongOutput) {
  const AttentionProblem p = random_problem();
  const PeerReferences refs = peer_references(p, Rounding::RTNE);
  auto o = near_exact(refs);
  o[100] = bf16(numerics::f32_from_bf16(o[100]) + 0.5);
  const auto lse = lse_of(refs);
  for (PeerRule rule : kAllPeerRules) {
    const PeerVerdict v = judge(rule, refs, o, lse);
    EXPECT_FALSE(v.pass) << to_string(rule);
    EXPECT_FALSE(v.note.empty()) << to_string(rule);
  }
  // NaN fails every rule (torch.max and allclose propagate it).
  auto nan_o = near_exact(refs);
  nan_o[7] = 0x7FC0;
  for (PeerRule rule : kAllPeerRules) EXPECT_FALSE(judge(rule, refs, nan_o, lse).pass) << to_string(rule);
}

// AITER's 0.01 floor: with V ~ 0.01·N(0,1) an error of 0.009 in every element is about the
// size of O itself, yet AITER passes it; FlashAttention's and PyTorch's relative rules and
// AOTriton fail it. cuDNN's and MoonMath's absolute tolerances (0.02, 0.05) pass it too.
TEST(PeerRules, AiterFloorPassesLargeRelativeErrorsOnSmallOutputs) {
  const AttentionProblem p = random_problem(0.01);
  const PeerReferences refs = peer_references(p, Rounding::RTNE);
  std::vector<std::uint16_t> o(refs.fp64.o.size());
  for (std::size_t n = 0; n < o.size(); ++n) o[n] = bf16(refs.fp64.o[n] + 0.009);
  const auto lse = lse_of(refs);
  const PeerVerdict aiter = aiter_rule(refs, o);
  EXPECT_TRUE(aiter.pass) << aiter.note;
  EXPECT_DOUBLE_EQ(aiter.tol, 0.01);  // the floor, not 2 × the bf16 reference's error
  EXPECT_FALSE(flash_attention2_rule(refs, o).pass);
  EXPECT_FALSE(flash_attention3_rule(refs, o).pass);
  EXPECT_FALSE(pytorch_sdpa_rule(refs, o).pass);
  EXPECT_FALSE(aotriton_rule(refs, o, lse).pass);
  EXPECT_TRUE(cudnn_rule(refs, o).pass);
  EXPECT_TRUE(moonmath_rule(refs, o).pass);
  // 0.011 exceeds the floor.
  for (std::size_t n = 0; n < o.size(); ++n) o[n] = bf16(refs.fp64.o[n] + 0.011);
  EXPECT_FALSE(aiter_rule(refs, o).pass);
}

// One element, references equal to 1: the bf16 reference has no error, so FlashAttention 2
// allows none, AITER allows 0.01, FlashAttention 3 allows 2 × |bf16(bf16(1 + 0.3) − 0.3) − 1|
// = 2 × 2^-8 (1.3 → 1.296875, − 0.3 → 0.99609375).
TEST(PeerRules, HandMadeReferencesShowEachTolerance) {
  PeerReferences refs;
  refs.shape = {1, 1, 1, 1, 1, 1};
  refs.upcast = {1.0f};
  refs.lowp = {1.0f};
  refs.blocked = {1.0f};
  refs.fp64.o = {1.0};
  refs.fp64.lse = {0.0};
  refs.fp64.max_abs_score = 1.0;
  refs.floor_o = {1.0};
  refs.row_masked = {false};
  const std::vector<float> lse{0.0f};
  const std::vector<std::uint16_t> exact{bf16(1.0)}, one_ulp{bf16(1.0078125)}, two_ulp{bf16(1.015625)};

  for (PeerRule rule : kAllPeerRules) EXPECT_TRUE(judge(rule, refs, exact, lse).pass) << to_string(rule);

  EXPECT_TRUE(aiter_rule(refs, one_ulp).pass);
  EXPECT_FALSE(aiter_rule(refs, two_ulp).pass);
  EXPECT_FALSE(flash_attention2_rule(refs, one_ulp).pass);
  EXPECT_DOUBLE_EQ(flash_attention3_rule(refs, one_ulp).tol, 2 * 0x1p-8);
  EXPECT_TRUE(flash_attention3_rule(refs, one_ulp).pass);
  EXPECT_FALSE(flash_attention3_rule(refs, two_ulp).pass);
  EXPECT_FALSE(pytorch_sdpa_rule(refs, one_ulp).pass);   // tolerance max(1e-5, 0)
  EXPECT_TRUE(cudnn_rule(refs, one_ulp).pass);           // 0.0078 <= 0.02 + 0.02
  EXPECT_TRUE(moonmath_rule(refs, two_ulp).pass);        // 0.016 <= 0.05 + 0.05
  EXPECT_FALSE(aotriton_rule(refs, one_ulp, lse).pass);  // floor error 0: must be exact
}

// AITER's paged-attention rule: |O - bf16(ref)| <= 0.01 + 0.01|ref|; at ref = 1 the tolerance is
// 0.02, so 1 + 2^-6 (0.0156 off) passes and 1 + 2^-5 (0.031 off) fails; NaN fails.
TEST(PeerRules, AiterPaRuleIsAllcloseAtOnePercent) {
  PeerReferences refs;
  refs.shape = {1, 1, 1, 1, 1, 1};
  refs.upcast = {1.0f};
  EXPECT_TRUE(aiter_pa_rule(refs, std::vector<std::uint16_t>{bf16(1.0)}).pass);
  EXPECT_TRUE(aiter_pa_rule(refs, std::vector<std::uint16_t>{bf16(1.015625)}).pass);
  EXPECT_FALSE(aiter_pa_rule(refs, std::vector<std::uint16_t>{bf16(1.03125)}).pass);
  EXPECT_FALSE(aiter_pa_rule(refs, std::vector<std::uint16_t>{0x7FC0}).pass);
}

// AOTriton's exact facts: LSE within 2^-16·max|S|, rows with no visible key exactly 0.
TEST(PeerRules, AotritonChecksLseAndMaskedRows) {
  AttentionProblem p = random_problem();
  p.shape.seqlen_q = 48;  // Sq 48 > Sk 40: rows 0-7 see no key
  p.q = randn_bf16(static_cast<std::size_t>(p.shape.q_elements()), 11);
  const PeerReferences refs = peer_references(p, Rounding::RTNE);
  const auto o = near_exact(refs);
  auto lse = lse_of(refs);
  ASSERT_TRUE(aotriton_rule(refs, o, lse).pass);
  EXPECT_EQ(refs.fp64.lse[0], -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(refs.row_masked[0]);

  auto bad_lse = lse;
  bad_lse[10] += static_cast<float>(4 * 0x1p-16 * refs.fp64.max_abs_score);
  const PeerVerdict v = aotriton_rule(refs, o, bad_lse);
  EXPECT_FALSE(v.pass);
  EXPECT_NE(v.note.find("LSE"), std::string::npos) << v.note;

  auto masked_nonzero = o;
  masked_nonzero[3] = 0x0001;  // the smallest bf16 subnormal in masked row 0
  const PeerVerdict m = aotriton_rule(refs, masked_nonzero, lse);
  EXPECT_FALSE(m.pass);
  EXPECT_NE(m.note.find("masked row"), std::string::npos) << m.note;
  EXPECT_TRUE(aiter_rule(refs, masked_nonzero).pass);  // a 1e-40 error is nothing to AITER

  // A masked row of -0.0 is "exactly 0" to AOTriton.
  auto negative_zero = o;
  negative_zero[3] = 0x8000;
  EXPECT_TRUE(aotriton_rule(refs, negative_zero, lse).pass);
}

TEST(PeerRules, SizeMismatchThrows) {
  const AttentionProblem p = random_problem();
  const PeerReferences refs = peer_references(p, Rounding::RTNE);
  const std::vector<std::uint16_t> short_o(5);
  EXPECT_THROW(aiter_rule(refs, short_o), std::invalid_argument);
  EXPECT_THROW(aotriton_rule(refs, near_exact(refs), std::vector<float>(3)), std::invalid_argument);
}

}  // namespace
}  // namespace cdna::reference
