// Peer convention profiles (reference/attention/profiles.hpp, docs/profiles.md): an output that follows a
// peer's convention on rows without a visible key fails under `ours` and passes under that peer's
// profile, and the definition's output fails under the peer's profile; ordinary rows are judged
// with the same bound whatever the profile.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>

#include "numerics/bf16.hpp"
#include "reference/attention/floor.hpp"
#include "reference/attention/inputs.hpp"
#include "reference/attention/profiles.hpp"
#include "reference/attention/varlen_inputs.hpp"

namespace cdna::reference {
namespace {

using numerics::Rounding;
constexpr float kInf = std::numeric_limits<float>::infinity();

// Sq 5 > Sk 2, causal bottom-right: rows 0..2 see no key (shared/docs/attention-conventions.md).
AttentionProblem empty_rows_problem() {
  AttentionProblem p;
  p.shape = {1, 5, 2, 2, 1, 8};
  p.mask = Mask::CausalBottomRight;
  fill_randn(p, 7);
  return p;
}

// A correct kernel's output: the floor model's O (bf16) and the exact LSE in fp32, with the rows
// without a visible key written as `o_bits` / `lse_value`.
struct Output {
  std::vector<std::uint16_t> o;
  std::vector<float> lse;
};
Output kernel_output(const AttentionProblem& p, const AttentionResult& exact, std::uint16_t o_bits, float lse_value) {
  Output out;
  for (double x : attention_floor_output(p, Rounding::RTNE)) out.o.push_back(numerics::bf16_from_f32(static_cast<float>(x), Rounding::RTNE));
  for (double x : exact.lse) out.lse.push_back(static_cast<float>(x));
  const AttentionShape& s = p.shape;
  for (std::int64_t i = 0; i < s.seqlen_q; ++i) {
    if (visible_range(p, i).count != 0) continue;
    for (std::int64_t h = 0; h < s.heads_q; ++h) {
      for (std::int64_t d = 0; d < s.dv(); ++d) out.o[static_cast<std::size_t>((i * s.heads_q + h) * s.dv() + d)] = o_bits;
      out.lse[static_cast<std::size_t>(h * s.seqlen_q + i)] = lse_value;
    }
  }
  return out;
}

bool passes(std::string_view profile, const AttentionProblem& p, const AttentionResult& exact, const Output& out) {
  return compare_with_profile(find_profile(profile), p, exact, out.o, out.lse, Rounding::RTNE).pass();
}

TEST(Profiles, PytorchMemEfficientOutputFailsOursAndPassesItsProfile) {
  const AttentionProblem p = empty_rows_problem();
  const AttentionResult exact = attention_forward_exact(p);
  const Output torch = kernel_output(p, exact, 0x0000, 0.0f);  // O = 0, LSE = 0 (kernel_forward.h)
  EXPECT_FALSE(passes("ours", p, exact, torch));
  EXPECT_TRUE(passes("pytorch-mem-efficient", p, exact, torch));
  const AttentionComparison c = compare_with_profile(find_profile("ours"), p, exact, torch.o, torch.lse, Rounding::RTNE);
  EXPECT_EQ(c.lse_violations + c.semantic_violations, 6) << c.first_failure;  // 3 rows x 2 heads
}

TEST(Profiles, DefinitionOutputPassesOursAndFailsPeerProfiles) {
  const AttentionProblem p = empty_rows_problem();
  const AttentionResult exact = attention_forward_exact(p);
  const Output ours = kernel_output(p, exact, 0x0000, -kInf);
  EXPECT_TRUE(passes("ours", p, exact, ours));
  EXPECT_TRUE(passes("aiter", p, exact, ours));  // CK writes the definition's values
  EXPECT_TRUE(passes("flash-attention", p, exact, ours));  // -inf: its split-KV path
  const AttentionComparison c =
      compare_with_profile(find_profile("pytorch-mem-efficient"), p, exact, ours.o, ours.lse, Rounding::RTNE);
  EXPECT_FALSE(c.pass());
  EXPECT_EQ(c.semantic_violations, 6);
  EXPECT_NE(c.first_failure.find("profile pytorch-mem-efficient expects O = 0 (either sign), LSE = 0"), std::string::npos)
      << c.first_failure;
}

TEST(Profiles, FlashAttentionPlusInfLse) {
  const AttentionProblem p = empty_rows_problem();
  const AttentionResult exact = attention_forward_exact(p);
  const Output fa = kernel_output(p, exact, 0x0000, kInf);
  EXPECT_FALSE(passes("ours", p, exact, fa));
  EXPECT_TRUE(passes("flash-attention", p, exact, fa));
  EXPECT_FALSE(passes("aiter", p, exact, fa));
}

TEST(Profiles, NegativeZeroOnlyWhereTheSignIsNotEstablished) {
  const AttentionProblem p = empty_rows_problem();
  const AttentionResult exact = attention_forward_exact(p);
  EXPECT_FALSE(passes("ours", p, exact, kernel_output(p, exact, 0x8000, -kInf)));
  EXPECT_TRUE(passes("aiter", p, exact, kernel_output(p, exact, 0x8000, -kInf)));
  EXPECT_FALSE(passes("pytorch-mem-efficient", p, exact, kernel_output(p, exact, 0x3f80, 0.0f)));  // O = 1
}

TEST(Profiles, ProfileWithoutLseIgnoresTheLseOfEmptyRowsOnly) {
  const AttentionProblem p = empty_rows_problem();
  const AttentionResult exact = attention_forward_exact(p);
  EXPECT_TRUE(passes("pytorch-math", p, exact, kernel_output(p, exact, 0x0000, 123.0f)));
  EXPECT_FALSE(passes("ours", p, exact, kernel_output(p, exact, 0x0000, 123.0f)));
  EXPECT_FALSE(passes("pytorch-math", p, exact, kernel_output(p, exact, 0x7fc0, -kInf)));  // O NaN
}

TEST(Profiles, OrdinaryRowsKeepTheirBound) {
  const AttentionProblem p = empty_rows_problem();
  const AttentionResult exact = attention_forward_exact(p);
  Output torch = kernel_output(p, exact, 0x0000, 0.0f);
  // Row i = 4 sees both keys: an LSE one part in 2^10 off is far outside its bound under every profile.
  torch.lse[4] = static_cast<float>(exact.lse[4] * (1 + 1.0 / 1024));
  for (const Profile& prof : profiles()) {
    const AttentionComparison c = compare_with_profile(prof, p, exact, torch.o, torch.lse, Rounding::RTNE);
    EXPECT_GE(c.lse_violations, 1) << prof.name;
    EXPECT_FALSE(c.pass()) << prof.name;
  }
}

TEST(Profiles, UnknownNameListsTheProfiles) {
  try {
    (void)find_profile("pytorch");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "unknown profile 'pytorch' (profiles: ours, pytorch-math, pytorch-mem-efficient, flash-attention, aiter, flashinfer)");
  }
  EXPECT_EQ(default_profile().name, "ours");
}

TEST(Profiles, CanonicalLseGathersPaddedAndHeadTotalLayouts) {
  const AttentionShape s{2, 3, 4, 2, 1, 8};  // B 2, Sq 3, Hq 2
  std::vector<float> padded(static_cast<std::size_t>(lse_layout_elements(LseLayout::BatchHeadSeqPadded32, s)), kInf);
  ASSERT_EQ(padded.size(), 2u * 2 * 32);
  std::vector<float> total(12);
  for (int b = 0; b < 2; ++b)
    for (int h = 0; h < 2; ++h)
      for (int i = 0; i < 3; ++i) {
        const float v = static_cast<float>(100 * b + 10 * h + i);
        padded[static_cast<std::size_t>((b * 2 + h) * 32 + i)] = v;
        total[static_cast<std::size_t>(h * 6 + b * 3 + i)] = v;
      }
  const std::vector<float> a = canonical_lse(LseLayout::BatchHeadSeqPadded32, s, padded);
  const std::vector<float> b = canonical_lse(LseLayout::HeadTotal, s, total);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a[static_cast<std::size_t>((1 * 2 + 1) * 3 + 2)], 112.0f);
  EXPECT_THROW((void)canonical_lse(LseLayout::BatchHeadSeqPadded32, s, total), std::invalid_argument);
}

// FlashInfer stores LSE in base 2 at [qo, head] (prefill.cuh: log2(d) + m): such an output passes
// its profile and fails ours; the natural-log LSE that flashinfer PR #4663 replaced fails it.
TEST(Profiles, FlashInferBase2LsePassesItsProfileOnly) {
  const AttentionProblem p = empty_rows_problem();
  const AttentionResult exact = attention_forward_exact(p);
  const Output natural = kernel_output(p, exact, 0x0000, -kInf);
  Output base2 = natural;
  const AttentionShape& s = p.shape;
  for (std::int64_t h = 0; h < s.heads_q; ++h)  // [B, Hq, Sq] natural -> [B, Sq, Hq] base 2
    for (std::int64_t i = 0; i < s.seqlen_q; ++i)
      base2.lse[static_cast<std::size_t>(i * s.heads_q + h)] =
          static_cast<float>(exact.lse[static_cast<std::size_t>(h * s.seqlen_q + i)] * std::numbers::log2e);
  const Profile& fi = find_profile("flashinfer");
  EXPECT_TRUE(fi.lse_base2);
  const std::vector<float> b2 = canonical_lse(fi.lse_layout, s, base2.lse);
  EXPECT_TRUE(compare_with_profile(fi, p, exact, base2.o, b2, Rounding::RTNE).pass());
  const AttentionComparison as_ours = compare_with_profile(find_profile("ours"), p, exact, base2.o, b2, Rounding::RTNE);
  EXPECT_GT(as_ours.lse_violations, 0);
  const std::vector<float> natural_bhs = canonical_lse(fi.lse_layout, s, [&] {
    std::vector<float> t(natural.lse.size());
    for (std::int64_t h = 0; h < s.heads_q; ++h)
      for (std::int64_t i = 0; i < s.seqlen_q; ++i)
        t[static_cast<std::size_t>(i * s.heads_q + h)] = natural.lse[static_cast<std::size_t>(h * s.seqlen_q + i)];
    return t;
  }());
  const AttentionComparison bug = compare_with_profile(fi, p, exact, natural.o, natural_bhs, Rounding::RTNE);
  EXPECT_GT(bug.lse_violations, 0) << "a natural-log LSE must fail the flashinfer profile";
}

// FlashAttention 2's varlen forward writes LSE = +inf in rows with no visible key. Issue 23's
// instance: causal, cu_seqlens_q 0,76,110,256, cu_seqlens_k 0,1,2,3, D 64 (253 such rows per
// head). Under flash-attention it passes; under ours it fails; a profile without a varlen form is
// refused with one line naming those with one.
TEST(Profiles, VarlenUnderFlashAttentionProfile) {
  const AttentionShape heads{1, 0, 0, 2, 1, 64};
  const VarlenProblem vp = packed_varlen(heads, Mask::CausalBottomRight, {76, 34, 146}, {1, 1, 1}, 5);
  const AttentionResult exact = varlen_forward_exact(vp);
  std::vector<std::uint16_t> o;
  for (double x : varlen_floor_output(vp, Rounding::RTNE))
    o.push_back(std::isnan(x) ? 0 : numerics::bf16_from_f32(static_cast<float>(x), Rounding::RTNE));
  std::vector<float> lse;
  std::int64_t keyless = 0;
  for (double x : exact.lse) {
    lse.push_back(x == -std::numeric_limits<double>::infinity() ? kInf : static_cast<float>(x));
    keyless += std::isinf(x);
  }
  EXPECT_EQ(keyless, 2 * 253);
  const Profile& fa = find_profile("flash-attention");
  const AttentionComparison c = compare_varlen_with_profile(fa, vp, exact, o, lse, Rounding::RTNE);
  EXPECT_TRUE(c.pass()) << c.first_failure;
  const AttentionComparison ours = compare_varlen_with_profile(find_profile("ours"), vp, exact, o, lse, Rounding::RTNE);
  EXPECT_FALSE(ours.pass());
  EXPECT_EQ(ours.semantic_violations, 2 * 253);
  try {
    (void)compare_varlen_with_profile(find_profile("pytorch-math"), vp, exact, o, lse, Rounding::RTNE);
    ADD_FAILURE() << "pytorch-math has no varlen form";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("profiles with one: ours, flash-attention, flashinfer"), std::string::npos) << e.what();
  }
}

TEST(Profiles, CanonicalVarlenLseTransposesRowsHead) {
  const AttentionShape heads{1, 0, 0, 2, 1, 16};
  const VarlenProblem vp = packed_varlen(heads, Mask::None, {2, 1}, {3, 2}, 9);
  const std::vector<float> rows_head = {0, 10, 1, 11, 2, 12};  // [rows_q 3, Hq 2]
  const std::vector<float> head_rows = canonical_varlen_lse(find_profile("flashinfer"), vp, rows_head);
  EXPECT_EQ(head_rows, (std::vector<float>{0, 1, 2, 10, 11, 12}));
  EXPECT_EQ(varlen_lse_dims(find_profile("flashinfer"), vp), (std::vector<std::int64_t>{3, 2}));
  EXPECT_THROW((void)canonical_varlen_lse(find_profile("flashinfer"), vp, std::vector<float>(5)), std::invalid_argument);
}

}  // namespace
}  // namespace cdna::reference
