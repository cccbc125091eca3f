// check_decode (audit/decode/decode_check.hpp) on a model small enough that the monokernel's balls are
// finite and its steps decided (the "micro" preset: 1 layer, H 32, Hq 4, Hkv 2, D 8, V 200): the correct
// kernel passes; a logit moved out of its ball, a decided token changed, and a mutant kernel fail.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "device/attention_launcher.hpp"  // read_file
#include "device/decode_launcher.hpp"
#include "reference/decode/random.hpp"
#include "simulator/schedule/simulator_executor.hpp"
#include "audit/decode/decode_check.hpp"

namespace cdna::audit {
namespace {

reference::DecoderModel small_model(bool duplicate_rows = false) {
  reference::RandomModelOptions o;
  o.duplicate_lm_head_rows = duplicate_rows;
  return reference::random_decoder_model(reference::decoder_preset("micro"), 5, o);
}

class DecodeCheckTest : public ::testing::Test {
 protected:
  DecodeCheckOptions options(const reference::DecoderModel& m) const {
    DecodeCheckOptions o;
    o.launch.model = &m;
    o.launch.prompt = {1, 2, 3};
    o.launch.steps = 8;
    o.launch.grid = 8;
    o.launch.block = 256;
    return o;
  }
  DecodeCheck check(const DecodeCheckOptions& o, const std::string& code_object_name = "") {
    const auto path = code_object_name.empty()
                          ? device::decode_code_object(o.launch.mode)
                          : std::filesystem::path(CDNA_CODE_OBJECT_DIR) / (code_object_name + ".hsaco");
    const std::vector<std::byte> code = device::read_file(path, "decode code object");
    DecodeCheck c = check_decode(ex_, code, o);
    std::printf("[ figures  ] %s\n", decode_outcome_line(c).c_str());
    return c;
  }
  simulator::SimulatorExecutor ex_;
};

TEST_F(DecodeCheckTest, TheCorrectKernelPassesWithDecidedSteps) {
  const auto m = small_model();
  const DecodeCheck c = check(options(m));
  EXPECT_EQ(c.outcome, DecodeOutcome::Pass) << c.failure;
  EXPECT_GT(c.counts.decided, 0);
  EXPECT_EQ(c.counts.matched, c.counts.decided);
  EXPECT_EQ(c.counts.logits_outside, 0);
  EXPECT_EQ(c.counts.logits_finite_radius, c.counts.positions * 200);
}

TEST_F(DecodeCheckTest, TheBallEnvelopePassesTheCorrectKernelToo) {
  const auto m = small_model();
  DecodeCheckOptions o = options(m);
  o.method = reference::EnvelopeMethod::ball;
  const DecodeCheck c = check(o);
  EXPECT_EQ(c.outcome, DecodeOutcome::Pass) << c.failure;
  EXPECT_EQ(c.counts.decided, c.counts.choosing);
}

TEST_F(DecodeCheckTest, ALogitMovedOutOfItsBallFails) {
  const auto m = small_model();
  DecodeCheckOptions o = options(m);
  // Position 1, logit 7 moved by 1.0: far beyond the radii of this model (median ~1e-5; printed).
  o.edit_result = [](device::DecodeResult& r) { r.logits[200 + 7] += 1.0f; };
  const DecodeCheck c = check(o);
  EXPECT_EQ(c.outcome, DecodeOutcome::Fail);
  EXPECT_EQ(c.counts.logits_outside, 1);
  EXPECT_NE(c.failure.find("position 1: 1 logits outside"), std::string::npos) << c.failure;
}

TEST_F(DecodeCheckTest, ADecidedTokenChangedFails) {
  const auto m = small_model();
  DecodeCheckOptions o = options(m);
  // The first generated token replaced by another (its logits unchanged): position 2 decided it.
  o.edit_result = [](device::DecodeResult& r) { r.tokens[0] = (r.tokens[0] + 1) % 200; };
  const DecodeCheck c = check(o);
  EXPECT_EQ(c.outcome, DecodeOutcome::Fail);
  EXPECT_GE(c.counts.mismatched, 1);
  EXPECT_NE(c.failure.find("position 2: kernel token"), std::string::npos) << c.failure;
}

// Issue 23 §6: the embedding scaled by 2^72 (|x| ≈ 2^66): the kernel's fp32 RMSNorm Σx² overflows
// (ρ = rsqrt(inf) = 0), which the declared arithmetic allows; 800 of 800 logits were reported
// outside balls that assumed no overflow. Nothing is claimed there: no value is judged against a
// finite ball, nothing is outside, and the run is NOTHING JUDGED, not a FAIL of the correct kernel.
TEST_F(DecodeCheckTest, AnRmsNormThatOverflowsFp32IsNothingJudgedNotAFail) {
  auto m = small_model();
  for (auto& b : m.weights.embed_tokens)
    if ((b & 0x7F80) != 0) b = static_cast<std::uint16_t>(b + (72 << 7));  // times 2^72 (tied: the LM head too)
  DecodeCheckOptions o = options(m);
  o.launch.steps = 2;  // 4 positions of V = 200: the 800 logits of the report
  const DecodeCheck c = check(o);
  EXPECT_EQ(c.outcome, DecodeOutcome::NothingJudged) << c.failure;
  EXPECT_EQ(c.counts.positions * 200, 800);
  EXPECT_EQ(c.counts.logits_outside, 0);
  EXPECT_EQ(c.counts.logits_finite_radius, 0);
  EXPECT_EQ(c.counts.state_outside, 0);
  EXPECT_EQ(c.counts.local_outside, 0);
  EXPECT_EQ(c.counts.decided, 0);
}

// (ROPE_POSITION_OFF_BY_ONE passes here, rightly: shifting every position's RoPE angle by one
// keeps every query-key angle difference, so the scores change only by the table's rounding.)
TEST_F(DecodeCheckTest, TheResidualTwiceMutantFails) {
  const auto m = small_model();
  const DecodeCheck c = check(options(m), "decode_monokernel_mutant_residual_twice");
  EXPECT_EQ(c.outcome, DecodeOutcome::Fail);
  EXPECT_GT(c.counts.logits_outside, 0);
}

TEST_F(DecodeCheckTest, TheTieHighestMutantFailsOnTiedRows) {
  const auto m = small_model(/*duplicate_rows=*/true);
  const DecodeCheck right = check(options(m));
  EXPECT_EQ(right.outcome, DecodeOutcome::Pass) << right.failure;
  const DecodeCheck c = check(options(m), "decode_monokernel_mutant_argmax_tie_highest");
  EXPECT_EQ(c.outcome, DecodeOutcome::Fail);
  EXPECT_GT(c.counts.mismatched, 0);
}

}  // namespace
}  // namespace cdna::audit
