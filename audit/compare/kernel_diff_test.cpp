// The comparison core of `cdna-verify compare` on hand-made outputs; every expected count is
// derived in the comments from the bit patterns, not from the code.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

#include "audit/compare/compare_run.hpp"
#include "audit/compare/kernel_diff.hpp"

namespace cdna::audit {
namespace {

TEST(KernelDiff, UlpDistanceCountsRepresentableValues) {
  EXPECT_EQ(bf16_values_apart(0x3F80, 0x3F81), 1u);        // 1.0 and the next bf16 up
  EXPECT_EQ(bf16_values_apart(0x3F81, 0x3F80), 1u);        // symmetric
  EXPECT_EQ(bf16_values_apart(0x0000, 0x8000), 0u);        // +0 and -0 are one value
  EXPECT_EQ(bf16_values_apart(0x0001, 0x8001), 2u);        // smallest subnormals: -s, 0, +s
  EXPECT_EQ(bf16_values_apart(0x3F80, 0xBF80), 2u * 0x3F80);  // 1.0 to -1.0 through zero
  EXPECT_EQ(bf16_values_apart(0x3F7F, 0x3F80), 1u);        // across a binade: 1 - 2^-8 to 1.0
  EXPECT_EQ(fp32_values_apart(0x3F800000u, 0x3F800001u), 1u);
  EXPECT_EQ(fp32_values_apart(0x00000000u, 0x80000000u), 0u);
}

TEST(KernelDiff, BinsAre0_1_2_3to4_5to8_Above8) {
  const std::size_t want[] = {0, 1, 2, 3, 3, 4, 4, 4, 4, 5, 5};
  for (std::uint64_t u = 0; u <= 10; ++u) EXPECT_EQ(diff_bin(u), want[u]) << u;
}

// O of B1 Sq2 Hq1 D4, element k at (b 0, i k/4, h 0, d k%4):
//   k  A       B       class
//   0  0x3F80  0x3F80  finite, 0 ULP
//   1  0x3F80  0x3F81  finite, 1 ULP
//   2  0x3F80  0x3F83  finite, 3 ULP       (beyond --ulp 1: first)
//   3  0x3F80  0x3F89  finite, 9 ULP (max) (beyond --ulp 1)
//   4  0x0000  0x8000  finite, 0 ULP (+0 = -0)
//   5  0x7FFF  0x7FC0  NaN in both, bits differ
//   6  0x7F80  0x7F7F  +inf vs the largest finite: inf disagreement
//   7  0x4000  0x7FC0  a number vs NaN
TEST(KernelDiff, OHistogramAndNonFiniteKinds) {
  const reference::AttentionShape s{1, 2, 1, 1, 1, 4};
  const std::vector<std::uint16_t> a{0x3F80, 0x3F80, 0x3F80, 0x3F80, 0x0000, 0x7FFF, 0x7F80, 0x4000};
  const std::vector<std::uint16_t> b{0x3F80, 0x3F81, 0x3F83, 0x3F89, 0x8000, 0x7FC0, 0x7F7F, 0x7FC0};
  const TensorDiff t = diff_o(s, a, b, 1);
  EXPECT_EQ(t.elements, 8);
  EXPECT_EQ(t.finite_pairs, 5);
  const std::array<std::int64_t, kDiffBins> hist{2, 1, 0, 1, 0, 1};
  EXPECT_EQ(t.histogram, hist);
  EXPECT_EQ(t.max_ulps, 9u);
  ASSERT_EQ(t.max_site.size(), 1u);
  EXPECT_EQ(t.max_site[0].d, 3);
  EXPECT_EQ(t.beyond, 2);
  ASSERT_EQ(t.first_beyond.size(), 1u);
  EXPECT_EQ(t.first_beyond[0].text(), "O (b=0, i=0, h=0, d=2): A 0x3F80, B 0x3F83");
  EXPECT_EQ(t.nan_bits_differ, 1);
  EXPECT_EQ(t.inf_mismatch, 1);
  EXPECT_EQ(t.nan_vs_number, 1);
  EXPECT_EQ(t.nonfinite_agree, 0);
  EXPECT_EQ(t.nan_bits_sites.at(0).text(), "O (b=0, i=1, h=0, d=1): A 0x7FFF, B 0x7FC0");
  EXPECT_EQ(t.inf_sites.at(0).text(), "O (b=0, i=1, h=0, d=2): A 0x7F80, B 0x7F7F");
  EXPECT_EQ(t.nan_vs_number_sites.at(0).text(), "O (b=0, i=1, h=0, d=3): A 0x4000, B 0x7FC0");
  // The first non-finite disagreement in layout order is k = 5.
  EXPECT_EQ(t.first_nonfinite().at(0).d, 1);
  // With --ulp 9 nothing is beyond; with --ulp 0 the 1, 3 and 9 ULP pairs are.
  EXPECT_EQ(diff_o(s, a, b, 9).beyond, 0);
  EXPECT_EQ(diff_o(s, a, b, 0).beyond, 3);
}

TEST(KernelDiff, SameNonFiniteBitsAgree) {
  const reference::AttentionShape s{1, 1, 1, 1, 1, 3};
  const std::vector<std::uint16_t> a{0x7FFF, 0xFF80, 0x7F80}, b = a;  // NaN, -inf, +inf in both
  const TensorDiff t = diff_o(s, a, b, 0);
  EXPECT_EQ(t.nonfinite_agree, 3);
  EXPECT_EQ(t.nonfinite_mismatches(), 0);
  EXPECT_EQ(t.finite_pairs, 0);
  // -inf against +inf: an inf disagreement, not a NaN one.
  EXPECT_EQ(diff_o(s, a, std::vector<std::uint16_t>{0x7FFF, 0x7F80, 0x7F80}, 0).inf_mismatch, 1);
}

// LSE [B1, H2, Sq2], element k at (b 0, h k/2, i k%2):
//   0  -inf / -inf        agree
//   1  NaN / -inf         NaN vs number (AITER's -inf where the definition gives NaN)
//   2  1.0 / 1.0          0 ULP
//   3  2.0 / next above   1 ULP
TEST(KernelDiff, LseInFp32Ulps) {
  const reference::AttentionShape s{1, 2, 1, 2, 2, 4};
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> a{-inf, std::bit_cast<float>(0x7FC00000u), 1.0f, 2.0f};
  const std::vector<float> b{-inf, -inf, 1.0f, std::nextafter(2.0f, 3.0f)};
  const TensorDiff t = diff_lse(s, a, b, 1);
  EXPECT_EQ(t.nonfinite_agree, 1);
  EXPECT_EQ(t.nan_vs_number, 1);
  EXPECT_EQ(t.nan_vs_number_sites.at(0).text(), "LSE (b=0, i=1, h=0): A 0x7FC00000, B 0xFF800000");
  EXPECT_EQ(t.finite_pairs, 2);
  EXPECT_EQ(t.max_ulps, 1u);
  EXPECT_EQ(t.max_site.at(0).h, 1);
  EXPECT_EQ(t.max_site.at(0).i, 1);
  EXPECT_EQ(t.beyond, 0);
}

TEST(KernelDiff, SizesMustMatchTheShape) {
  const reference::AttentionShape s{1, 2, 1, 1, 1, 4};
  const std::vector<std::uint16_t> seven(7), eight(8);
  EXPECT_THROW(diff_o(s, seven, eight, 1), std::invalid_argument);
  EXPECT_THROW(diff_lse(s, std::vector<float>(2), std::vector<float>(3), 1), std::invalid_argument);
}

TEST(KernelDiff, IdenticalRunsComparesBits) {
  const reference::AttentionShape s{1, 1, 1, 1, 1, 2};
  const std::vector<std::uint16_t> o1{0x0000, 0x7FFF}, o2{0x8000, 0x7FFF};  // +0 vs -0 is a difference
  const std::vector<float> l{1.0f};
  const RunIdentity r = identical_runs(s, o1, l, o2, l);
  EXPECT_EQ(r.o_differ, 1);
  EXPECT_EQ(r.lse_differ, 0);
  EXPECT_EQ(r.first, "O (b=0, i=0, h=0, d=0): A 0x0000, B 0x8000");
  EXPECT_TRUE(identical_runs(s, o1, l, o1, l).identical());
  EXPECT_EQ(identical_runs(s, o1, l, o1, std::vector<float>{-1.0f}).lse_differ, 1);
}

ProblemDiff compared(std::int64_t sq) {
  ProblemDiff p;
  p.status = ProblemStatus::Compared;
  p.shape = {1, sq, 1, 1, 1, 4};
  p.o = diff_o(p.shape, std::vector<std::uint16_t>(p.shape.o_elements(), 0x3F80),
               std::vector<std::uint16_t>(p.shape.o_elements(), 0x3F80), 1);
  return p;
}

TEST(CompareClaims, EachClaimBreaksOnItsOwnEvidence) {
  ProblemDiff p = compared(1);
  for (Claim c : kClaims) EXPECT_FALSE(claim_broken(p, c)) << claim_id(c);
  // Two ULPs apart with --ulp 1: only the ULP claim breaks.
  p.o = diff_o(p.shape, std::vector<std::uint16_t>{0x3F80, 0, 0, 0}, std::vector<std::uint16_t>{0x3F82, 0, 0, 0}, 1);
  EXPECT_EQ(*claim_broken(p, Claim::WithinUlp), "O (b=0, i=0, h=0, d=0): A 0x3F80, B 0x3F82 (2 ULP apart)");
  EXPECT_FALSE(claim_broken(p, Claim::NonFiniteIdentical));
  // An LSE NaN against -inf breaks the NaN/inf claim when LSE is compared, not otherwise.
  const float inf = std::numeric_limits<float>::infinity();
  p.lse = diff_lse(p.shape, std::vector<float>{std::bit_cast<float>(0x7FC00000u)}, std::vector<float>{-inf}, 1);
  EXPECT_FALSE(claim_broken(p, Claim::NonFiniteIdentical));
  p.lse_compared = true;
  EXPECT_TRUE(claim_broken(p, Claim::NonFiniteIdentical));
  // B's random-schedule run differs: B is not deterministic, A is.
  p.det_b.random_schedule = RunIdentity{1, 0, "O (b=0, i=0, h=0, d=0): A 0x3F80, B 0x3F81"};
  EXPECT_FALSE(claim_broken(p, Claim::ADeterministic));
  EXPECT_EQ(*claim_broken(p, Claim::BDeterministic),
            "the random-schedule run differs from run 1: O (b=0, i=0, h=0, d=0): A 0x3F80, B 0x3F81");
  // A problem not compared breaks nothing.
  p.status = ProblemStatus::Error;
  for (Claim c : kClaims) EXPECT_FALSE(claim_broken(p, c)) << claim_id(c);
}

TEST(CompareClaims, OutcomeNeedsSomethingCompared) {
  CompareResult r;
  EXPECT_EQ(r.outcome(), CompareOutcome::NothingCompared);
  r.problems.push_back({});  // skipped
  EXPECT_EQ(r.outcome(), CompareOutcome::NothingCompared);
  r.problems.push_back(compared(1));
  ClaimResult claim;
  claim.problems_checked = 1;
  r.claims.push_back(claim);
  EXPECT_EQ(r.outcome(), CompareOutcome::Held);
  r.claims.back().problems_broken = 1;
  EXPECT_EQ(r.outcome(), CompareOutcome::Broken);
  r.claims.back().problems_broken = 0;
  r.problems.push_back({});
  r.problems.back().status = ProblemStatus::Error;  // a kernel that could not run is no pass
  EXPECT_EQ(r.outcome(), CompareOutcome::RunFailed);
  r.claims.back().problems_broken = 1;  // a broken claim says more than a failed run
  EXPECT_EQ(r.outcome(), CompareOutcome::Broken);
}

// Q of B2 Sq2 Hq4 Hkv2 D1 holds its own flat index; query head h = 2 g + r reads KV head g.
TEST(CompareShrink, SliceKeepsTheChosenPart) {
  reference::AttentionProblem p;
  p.shape = {2, 2, 3, 4, 2, 1};
  for (std::uint16_t n = 0; n < 16; ++n) p.q.push_back(n);
  for (std::uint16_t n = 0; n < 12; ++n) p.k.push_back(static_cast<std::uint16_t>(100 + n));
  p.v = p.k;
  Slice s = whole(p.shape);
  EXPECT_EQ(s.nr, 2);
  EXPECT_EQ(slice_problem(p, s).q, p.q);
  // b 1, i 0, KV head 1, group member 1 → query head 3; keys j 1..2 of KV head 1.
  s = {1, 1, 0, 1, 1, 2, 1, 1, 1, 1};
  const reference::AttentionProblem q = slice_problem(p, s);
  EXPECT_EQ(q.shape.seqlen_k, 2);
  EXPECT_EQ(q.shape.heads_q, 1);
  // Q index (b 1, i 0, h 3) = (1·2 + 0)·4 + 3 = 11; K index (b 1, j, g 1) = (1·3 + j)·2 + 1 = 9, 11.
  EXPECT_EQ(q.q, std::vector<std::uint16_t>{11});
  EXPECT_EQ(q.k, (std::vector<std::uint16_t>{109, 111}));
  EXPECT_EQ(s.text(), "b [1, 2), i [0, 1), j [1, 3), KV heads [1, 2), group [1, 2)");
}

}  // namespace
}  // namespace cdna::audit
