#include "device/attention_launcher.hpp"

#include <gtest/gtest.h>

namespace cdna::device {
namespace {

reference::AttentionProblem problem_with(std::int64_t d, reference::Mask mask, std::int64_t hq = 1,
                                         std::int64_t hkv = 1) {
  reference::AttentionProblem p;
  p.shape = {1, 16, 16, hq, hkv, d};
  p.mask = mask;
  return p;
}

// C13: a kernel built for D in {64, 128} must reject other head dims with a clear message.
TEST(AttentionLauncher, RejectsUnsupportedHeadDims) {
  for (std::int64_t d : {59, 111, 32, 256}) {
    auto why = attention_unsupported_reason(problem_with(d, reference::Mask::None));
    ASSERT_TRUE(why.has_value()) << "D = " << d;
    EXPECT_NE(why->find("D = " + std::to_string(d)), std::string::npos) << *why;
    EXPECT_NE(why->find("supported: 64, 128"), std::string::npos) << *why;
  }
  EXPECT_FALSE(attention_unsupported_reason(problem_with(64, reference::Mask::None)));
  EXPECT_FALSE(attention_unsupported_reason(problem_with(128, reference::Mask::CausalBottomRight)));
}

TEST(AttentionLauncher, RejectsTopLeftMaskAndBadGqa) {
  auto why = attention_unsupported_reason(problem_with(64, reference::Mask::CausalTopLeft));
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("top-left"), std::string::npos) << *why;
  why = attention_unsupported_reason(problem_with(64, reference::Mask::None, 6, 4));
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("multiple of Hkv"), std::string::npos) << *why;
}

// The features attn_fwd does not compute are refused by name (not ignored); windows are taken.
TEST(AttentionLauncher, NamesTheExtendedFeaturesItDoesNotTake) {
  auto reason = [](auto edit) {
    reference::AttentionProblem p = problem_with(64, reference::Mask::None);
    edit(p);
    const auto why = attention_unsupported_reason(p);
    reference::VarlenProblem v = reference::as_varlen(p);
    const auto why_varlen = attention_unsupported_reason(v);
    EXPECT_EQ(why, why_varlen);
    return why.value_or("");
  };
  EXPECT_NE(reason([](auto& p) { p.shape.head_dim_v = 128; }).find("Dv = 128 != D = 64"), std::string::npos);
  EXPECT_NE(reason([](auto& p) { p.softcap = 30.0f; }).find("soft cap 30"), std::string::npos);
  EXPECT_NE(reason([](auto& p) { p.sinks = {0.5f}; }).find("attention sinks"), std::string::npos);
  EXPECT_NE(reason([](auto& p) { p.dtype = reference::ElementType::FP8_E4M3FNUZ; }).find("dtype fp8_e4m3fnuz"),
            std::string::npos);
  EXPECT_NE(reason([](auto& p) { p.mask = reference::Mask::CausalTopLeft; }).find("top-left"), std::string::npos);
  EXPECT_NE(reason([](auto& p) { p.window_left = std::int64_t{1} << 31; }).find("above 2^30"), std::string::npos);
  EXPECT_EQ(reason([](auto& p) { p.window_left = 3, p.window_right = 0; }), "");
  EXPECT_EQ(reason([](auto& p) { p.mask = reference::Mask::CausalBottomRight, p.window_left = 0; }), "");
}

TEST(AttentionLauncher, CodeObjectPathNamesTheMode) {
  EXPECT_EQ(attention_code_object(numerics::Rounding::RTNA, "/x").string(), "/x/attention_fwd_rtna.hsaco");
}

// The recorded mode: 4 bytes little-endian, 0 RTNE, 1 RTNA, 2 RTZ; anything else is refused.
TEST(AttentionLauncher, RoundingSymbolDecodes) {
  EXPECT_EQ(decode_rounding_symbol(std::vector<std::uint8_t>{0, 0, 0, 0}, "k"), numerics::Rounding::RTNE);
  EXPECT_EQ(decode_rounding_symbol(std::vector<std::uint8_t>{1, 0, 0, 0}, "k"), numerics::Rounding::RTNA);
  EXPECT_EQ(decode_rounding_symbol(std::vector<std::uint8_t>{2, 0, 0, 0}, "k"), numerics::Rounding::RTZ);
  for (const auto& bad : {std::vector<std::uint8_t>{3, 0, 0, 0}, std::vector<std::uint8_t>{0, 0, 0, 1},
                          std::vector<std::uint8_t>{2}, std::vector<std::uint8_t>{}}) {
    try {
      decode_rounding_symbol(bad, "k.hsaco");
      FAIL() << "accepted " << bad.size() << " bytes";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("code object 'k.hsaco': symbol cdna_bf16_rounding is"), std::string::npos)
          << e.what();
    }
  }
}

TEST(AttentionLauncher, MissingFileIsAOneLineError) {
  try {
    read_file("/nonexistent/dir/k.hsaco", "code object");
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "cannot read code object '/nonexistent/dir/k.hsaco': No such file or directory");
  }
}

// No output row (Sq = 0 or B = 0): nothing is dispatched and the caller's buffers keep their
// bits. (The property suite discards such cases: a verdict over nothing is not a pass.)
TEST(AttentionLauncher, NoOutputRowDispatchesNothing) {
  struct CountingExecutor : Executor {
    int runs = 0;
    std::string name() const override { return "counting"; }
    void run(std::span<const std::byte>, const Dispatch&) override { ++runs; }
  } ex;
  for (const reference::AttentionShape s : {reference::AttentionShape{1, 0, 16, 1, 1, 64},
                                            reference::AttentionShape{0, 16, 16, 1, 1, 64}}) {
    std::vector<std::uint16_t> q(static_cast<std::size_t>(s.q_elements())), kv(static_cast<std::size_t>(s.kv_elements()));
    std::vector<std::uint16_t> o = {0x7FA5};
    std::vector<float> lse;
    StridedAttention a;
    a.shape = s, a.layout = contiguous_layout(s);
    a.q = q, a.k = kv, a.v = kv, a.o = o, a.lse = lse;
    launch_attention(ex, {}, a);
    EXPECT_EQ(o[0], 0x7FA5);
  }
  EXPECT_EQ(ex.runs, 0);
}

}  // namespace
}  // namespace cdna::device
