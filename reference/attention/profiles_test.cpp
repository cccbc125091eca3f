// Peer convention profiles (reference/attention/profiles.hpp, docs/profiles.md): an output that follows a
// peer's convention on rows without a visible key fails under `ours` and passes under that peer's
// profile, and the definition's output fails under the peer's profile; ordinary rows are judged
// with the same bound whatever the profile.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "numerics/bf16.hpp"
#include "reference/attention/floor.hpp"
#include "reference/attention/inputs.hpp"
#include "reference/attention/profiles.hpp"

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
                 "unknown profile 'pytorch' (profiles: ours, pytorch-math, pytorch-mem-efficient, flash-attention, aiter)");
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

}  // namespace
}  // namespace cdna::reference
