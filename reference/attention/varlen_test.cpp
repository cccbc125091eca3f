// The extended definition's addressing: windows (visible_range), the feature checks of
// validate(), and varlen / paged problems cut into sequences (reference/attention/varlen.hpp).
#include "reference/attention/varlen.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "reference/attention/inputs.hpp"

namespace cdna::reference {
namespace {

std::string error_of(const auto& problem) {
  try {
    validate(problem);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(VisibleRange, WindowZeroZeroIsTheDiagonalKeyOnly) {
  // Sq 3, Sk 5, bottom-right: the diagonal of row i is key i + 2.
  for (std::int64_t i = 0; i < 3; ++i) {
    const KeyRange r = visible_range(Mask::None, 0, 0, i, 3, 5);
    EXPECT_EQ(r.first, i + 2);
    EXPECT_EQ(r.count, 1);
  }
  // Top-left alignment with causal: the diagonal is key i.
  EXPECT_EQ(visible_range(Mask::CausalTopLeft, 0, 0, 1, 3, 5).first, 1);
}

TEST(VisibleRange, WindowWithCausalAndUnboundedSides) {
  // FlashAttention's (left, right) = (2, -1) with causal bottom-right, Sq = Sk = 6: row 4 sees 2..4.
  const KeyRange r = visible_range(Mask::CausalBottomRight, 2, -1, 4, 6, 6);
  EXPECT_EQ(r.first, 2);
  EXPECT_EQ(r.count, 3);
  // A window larger than the sequence changes nothing.
  const KeyRange all = visible_range(Mask::None, 100, 100, 0, 6, 6);
  EXPECT_EQ(all.first, 0);
  EXPECT_EQ(all.count, 6);
  // (-1, -1) is the mask alone, as visible_keys says.
  for (std::int64_t i = 0; i < 5; ++i) {
    EXPECT_EQ(visible_range(Mask::CausalBottomRight, -1, -1, i, 5, 2).count,
              visible_keys(Mask::CausalBottomRight, i, 5, 2));
  }
  // A window entirely left of the keys: Sq 5, Sk 2, right = 0: rows 0..2 see nothing.
  EXPECT_EQ(visible_range(Mask::None, 1, 0, 0, 5, 2).count, 0);
}

TEST(Validate, RejectsBadFeatures) {
  AttentionProblem p = randn_problem({1, 2, 3, 2, 1, 64}, Mask::None, 1);
  p.window_left = -2;
  EXPECT_NE(error_of(p).find("window"), std::string::npos);
  p.window_left = -1;
  p.softcap = -1.0f;
  EXPECT_NE(error_of(p).find("softcap"), std::string::npos);
  p.softcap = 0;
  p.sinks = {1.0f};
  EXPECT_NE(error_of(p).find("one per query head"), std::string::npos);
  p.sinks = {};
  p.descale_q = {2.0f};
  EXPECT_NE(error_of(p).find("fp8 inputs only"), std::string::npos);
  p.dtype = ElementType::FP8_E4M3FNUZ;
  EXPECT_NE(error_of(p).find("8-bit pattern"), std::string::npos);
  p = randn_problem({1, 2, 3, 2, 1, 64}, Mask::None, 1);
  p.shape.head_dim_v = 32;
  EXPECT_NE(error_of(p).find("B*Sk*Hkv*Dv"), std::string::npos);
  p.v.resize(static_cast<std::size_t>(p.shape.v_elements()));
  EXPECT_EQ(error_of(p), "");
  EXPECT_EQ(*extended_feature(p), "Dv 32 != D 64");
}

TEST(Varlen, AsVarlenSequencesAreTheBatches) {
  const AttentionProblem dense = randn_problem({3, 4, 5, 2, 1, 64}, Mask::CausalBottomRight, 7);
  const VarlenProblem v = as_varlen(dense);
  EXPECT_EQ(error_of(v), "");
  for (std::int64_t b = 0; b < 3; ++b) {
    const AttentionProblem s = sequence_problem(v, b);
    EXPECT_EQ(s.shape.seqlen_q, 4);
    EXPECT_EQ(s.shape.seqlen_k, 5);
    const std::size_t qn = s.q.size(), kn = s.k.size();
    EXPECT_TRUE(std::equal(s.q.begin(), s.q.end(), dense.q.begin() + static_cast<std::ptrdiff_t>(b * qn)));
    EXPECT_TRUE(std::equal(s.k.begin(), s.k.end(), dense.k.begin() + static_cast<std::ptrdiff_t>(b * kn)));
  }
}

TEST(Varlen, PagedKeysComeFromTheBlockTable) {
  VarlenProblem v;
  v.base.shape = {2, 0, 0, 1, 1, 64};
  v.cu_seqlens_q = {0, 1, 2};
  v.seqused_k = {3, 1};
  v.page_size = 2;
  v.pages_per_sequence = 2;
  v.block_table = {2, 0, 1, -1};  // sequence 0: pages 2, 0; sequence 1: page 1 (second unused)
  v.q = randn_bf16(2 * 64, 3);
  v.k = randn_bf16(3 * 2 * 64, 4);
  v.v = randn_bf16(3 * 2 * 64, 5);
  ASSERT_EQ(error_of(v), "");
  EXPECT_EQ(v.k_row(0, 0), 4);
  EXPECT_EQ(v.k_row(0, 2), 0);
  EXPECT_EQ(v.k_row(1, 0), 2);
  const AttentionProblem s0 = sequence_problem(v, 0);
  EXPECT_EQ(s0.shape.seqlen_k, 3);
  EXPECT_TRUE(std::equal(s0.k.begin() + 128, s0.k.end(), v.k.begin()));  // key 2 = page 0 slot 0
  v.block_table[1] = 3;
  EXPECT_NE(error_of(v).find("block_table[0, 1] = 3 is not a page"), std::string::npos);
  // Issue 23 §5: a masked page (-1, onnxruntime's "unmapped") inside the used pages is refused
  // with its reason; past them (entry 3 above) it is accepted.
  v.block_table[1] = -1;
  EXPECT_NE(error_of(v).find("block_table[0, 1] = -1 marks a masked page inside sequence 0's 3 used keys; the "
                             "definition takes no masked pages"),
            std::string::npos)
      << error_of(v);
  v.block_table[1] = 0;
  v.seqused_k[1] = 5;
  EXPECT_NE(error_of(v).find("exceeds the block table's capacity"), std::string::npos);
}

TEST(Varlen, EmptySequencesAndPaddedCache) {
  // C11's form: capacity 8 per sequence, used lengths below it.
  VarlenProblem v;
  v.base.shape = {2, 0, 0, 1, 1, 64};
  v.cu_seqlens_q = {0, 2, 2};  // sequence 1 has no query
  v.cu_seqlens_k = {0, 8, 16};
  v.seqused_k = {3, 0};
  v.q = randn_bf16(2 * 64, 3);
  v.k = randn_bf16(16 * 64, 4);
  v.v = randn_bf16(16 * 64, 5);
  ASSERT_EQ(error_of(v), "");
  EXPECT_EQ(sequence_problem(v, 1).shape.seqlen_k, 0);
  v.seqused_k = {9, 0};
  EXPECT_NE(error_of(v).find("exceeds the sequence's 8 key rows"), std::string::npos);
  v.seqused_k = {3, 0};
  v.cu_seqlens_q = {0, 3, 3};
  EXPECT_NE(error_of(v).find("pass the end of q"), std::string::npos);
}

TEST(Varlen, ExactAndVerdictPerSequenceMatchTheDenseBatch) {
  const AttentionProblem dense = randn_problem({2, 3, 4, 2, 1, 64}, Mask::CausalBottomRight, 11);
  const VarlenProblem v = as_varlen(dense);
  const AttentionResult a = attention_forward_exact(dense);
  const AttentionResult b = varlen_forward_exact(v);
  ASSERT_EQ(a.o, b.o);
  // LSE: dense [B, Hq, Sq], varlen [Hq, B*Sq].
  for (std::int64_t bb = 0; bb < 2; ++bb)
    for (std::int64_t h = 0; h < 2; ++h)
      for (std::int64_t i = 0; i < 3; ++i)
        EXPECT_EQ(a.lse[static_cast<std::size_t>((bb * 2 + h) * 3 + i)], b.lse[static_cast<std::size_t>(h * 6 + bb * 3 + i)]);
  // The floor's own output passes both forms of the pass rule; a wrong element fails both.
  std::vector<std::uint16_t> o;
  for (double x : varlen_floor_output(v, numerics::Rounding::RTNE)) o.push_back(numerics::bf16_from_f32(static_cast<float>(x), numerics::Rounding::RTNE));
  std::vector<float> lse(b.lse.begin(), b.lse.end());
  EXPECT_TRUE(compare_varlen(v, b, o, lse, numerics::Rounding::RTNE).pass());
  o[7] ^= 0x0400;
  const AttentionComparison bad = compare_varlen(v, b, o, lse, numerics::Rounding::RTNE);
  EXPECT_FALSE(bad.pass());
  EXPECT_EQ(bad.first_failure.rfind("sequence 0: ", 0), 0u) << bad.first_failure;
}

}  // namespace
}  // namespace cdna::reference
