// judge_decode_trace on hand-made traces of a small random model: the exact model's own run
// passes; a token that is not its logits' argmax fails naming the step; a run that chooses
// another token is a parting, not a pass; tied LM-head rows take the lowest index.
#include "audit/decode/trace_judge.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "audit/decode/profile_file.hpp"
#include "audit/decode/trace_layers.hpp"  // declared_profile
#include "audit/decode/trace_profile.hpp"
#include "numerics/bf16.hpp"
#include "reference/decode/ball.hpp"
#include "reference/decode/exact.hpp"
#include "reference/decode/random.hpp"

namespace cdna::audit {
namespace {

reference::DecoderConfig small_config() {
  reference::DecoderConfig c;
  c.hidden_size = 32;
  c.intermediate_size = 64;
  c.num_hidden_layers = 1;
  c.num_attention_heads = 2;
  c.num_key_value_heads = 1;
  c.head_dim = 16;
  c.vocab_size = 50;
  c.rope_theta = 10000;
  c.max_position_embeddings = 64;
  return c;
}

// The exact model's greedy run (prompt 3, 4 steps) as a trace: logits rounded to fp32.
golden::DecodeTrace exact_run(const reference::DecoderModel& m) {
  golden::DecodeTrace t;
  t.tokens = {1, 7, 3};
  t.prompt_length = 3;
  t.vocab = m.config.vocab_size;
  reference::ExactDecoder oracle(m, 128, 1);
  for (std::size_t pos = 0; pos + 1 < 7; ++pos) {
    const std::vector<double> l = oracle.step(t.tokens[pos]);
    if (pos + 1 < 3) continue;
    for (double x : l) t.logits.push_back(static_cast<float>(x));
    t.tokens.push_back(reference::greedy_token(l));
  }
  return t;
}

TEST(TraceJudge, ExactRunPasses) {
  const reference::DecoderModel m = reference::random_decoder_model(small_config(), 5, {.matrix_std = 0.3});
  const TraceJudgement j = judge_decode_trace(m, exact_run(m), TraceReference::exact, std::nullopt, 1);
  EXPECT_EQ(j.outcome, TraceOutcome::pass) << j.failure;
  EXPECT_EQ(j.matched, 4);
  EXPECT_EQ(j.precision_bits, 128u);
  ASSERT_EQ(j.steps.size(), 4u);
  EXPECT_EQ(j.steps[0].position, 2);
  EXPECT_LT(j.steps[0].max_deviation, 1e-5);  // fp32 rounding of the logits only
}

TEST(TraceJudge, TokenNotTheArgmaxOfItsLogitsFails) {
  const reference::DecoderModel m = reference::random_decoder_model(small_config(), 5, {.matrix_std = 0.3});
  golden::DecodeTrace t = exact_run(m);
  t.tokens[4] = (t.tokens[4] + 1) % 50;  // step 1 claims another token than its logits choose
  const TraceJudgement j = judge_decode_trace(m, t, TraceReference::exact, std::nullopt, 1);
  EXPECT_EQ(j.outcome, TraceOutcome::fail);
  EXPECT_EQ(j.argmax_failures, 1);
  EXPECT_EQ(j.failure.rfind("step 1 (position 3): token ", 0), 0u) << j.failure;
}

TEST(TraceJudge, AnotherTokenConsistentWithItsLogitsIsAPartingNotAPass) {
  const reference::DecoderModel m = reference::random_decoder_model(small_config(), 5, {.matrix_std = 0.3});
  golden::DecodeTrace t = exact_run(m);
  // The last step (3) raises another logit above the rest and chooses it: consistent, but not the
  // exact token. (An earlier step would change the prefix of the later ones, teacher-forced.)
  const std::int64_t other = (t.tokens[6] + 1) % 50;
  t.logits[static_cast<std::size_t>(3 * 50 + other)] = 1e3f;
  t.tokens[6] = other;
  const TraceJudgement j = judge_decode_trace(m, t, TraceReference::exact, std::nullopt, 1);
  EXPECT_EQ(j.outcome, TraceOutcome::not_classified) << j.failure;
  EXPECT_EQ(j.parted, 1);
  EXPECT_EQ(j.first_parting, 3);
  EXPECT_EQ(j.steps[3].kind, TraceStepKind::parting);
  EXPECT_GT(j.steps[3].max_deviation, 900);
}

TEST(TraceJudge, TiedRowsTakeTheLowestIndex) {
  const reference::DecoderModel m =
      reference::random_decoder_model(small_config(), 5, {.matrix_std = 0.3, .duplicate_lm_head_rows = true});
  golden::DecodeTrace t = exact_run(m);  // greedy_token takes the lower of each tied pair
  for (std::int64_t s = 0; s < 4; ++s) EXPECT_EQ(t.tokens[static_cast<std::size_t>(3 + s)] % 2, 0) << s;
  const TraceJudgement j = judge_decode_trace(m, t, TraceReference::exact, std::nullopt, 1);
  EXPECT_EQ(j.outcome, TraceOutcome::pass) << j.failure;
  EXPECT_TRUE(j.steps[0].exact.by_tie_class);
  // The envelope reference decides the same run too (one layer: the balls are narrow).
  EXPECT_EQ(judge_decode_trace(m, t, TraceReference::affine).outcome, TraceOutcome::pass);
}

}  // namespace
}  // namespace cdna::audit

// ---- the LM head against the run's own final hidden state (trace_profile.hpp) ----

namespace cdna::audit {
namespace {

// Logits W·h of the small model for a seeded h, rounded as `bf16` says (fp32 or bf16 RTNE).
std::vector<float> lm_head_logits(const reference::DecoderModel& m, const std::vector<float>& h, bool bf16) {
  std::vector<float> out;
  const auto& w = m.weights.lm_head_matrix(m.config);
  for (std::int64_t v = 0; v < m.config.vocab_size; ++v) {
    double y = 0;
    for (std::int64_t i = 0; i < m.config.hidden_size; ++i)
      y += reference::ball::bf16_to_double(w[static_cast<std::size_t>(v * 32 + i)]) * h[static_cast<std::size_t>(i)];
    const float f = static_cast<float>(y);
    out.push_back(bf16 ? numerics::f32_from_bf16(numerics::bf16_from_f32(f, numerics::Rounding::RTNE)) : f);
  }
  return out;
}

TEST(TraceProfile, LmHeadWithinItsProfileOnly) {
  const reference::DecoderModel m = reference::random_decoder_model(small_config(), 5, {.matrix_std = 0.3});
  std::vector<float> h;
  for (int i = 0; i < 32; ++i) h.push_back(static_cast<float>(std::sin(0.7 * i + 0.3)));
  const std::vector<float> f32 = lm_head_logits(m, h, false), b16 = lm_head_logits(m, h, true);
  EXPECT_EQ(check_lm_head(m, h, f32, TraceProfile::fp32).outside, 0);
  EXPECT_EQ(check_lm_head(m, h, f32, TraceProfile::bf16).outside, 0);  // bf16's balls contain fp32's
  EXPECT_EQ(check_lm_head(m, h, b16, TraceProfile::bf16).outside, 0);
  // bf16-rounded logits are not what an fp32 implementation computes (error 2^-9|y| >> γ_32·Σ|w||h|).
  const LmHeadCheck c = check_lm_head(m, h, b16, TraceProfile::fp32);
  EXPECT_GT(c.outside, 25);
  EXPECT_EQ(c.first.rfind("LM head: logit ", 0), 0u) << c.first;
  // One logit moved by 1 % fails under bf16 too, and is the one named.
  std::vector<float> moved = b16;
  moved[7] *= 1.01f;
  const LmHeadCheck d = check_lm_head(m, h, moved, TraceProfile::bf16);
  EXPECT_EQ(d.outside, 1);
  EXPECT_EQ(d.first.rfind("LM head: logit 7 = ", 0), 0u) << d.first;
  EXPECT_EQ(d.worst_logit, 7);
  // A NaN in the hidden state: its LM head is NaN, and finite logits are not it (helper-4's false PASS).
  std::vector<float> nan_h = h;
  nan_h[3] = std::nanf("");
  const LmHeadCheck n = check_lm_head(m, nan_h, f32, TraceProfile::fp32);
  EXPECT_EQ(n.outside, 50);
  EXPECT_EQ(n.checked, 50);
  EXPECT_EQ(check_lm_head(m, nan_h, std::vector<float>(50, std::nanf("")), TraceProfile::fp32).outside, 0);
  EXPECT_EQ(parse_trace_profile("fp32"), TraceProfile::fp32);
  EXPECT_FALSE(parse_trace_profile("fp16"));
}

// profile_file_text states every field: read back for the same config it is the same declared
// arithmetic, for each built-in and for one with every file field changed (what a trace golden
// file stores and `golden decode-verify` judges under).
TEST(ProfileFile, TextRoundTripsEveryField) {
  const reference::DecoderConfig c = small_config();
  auto same = [](const reference::DecodeArithmetic& a, const reference::DecodeArithmetic& b) {
    auto st = [](const reference::Storage& s) { return std::pair{s.format, s.mode}; };
    return st(a.kv_cache) == st(b.kv_cache) && st(a.activations) == st(b.activations) &&
           a.accumulation_u == b.accumulation_u && a.underflow_abs == b.underflow_abs &&
           a.transcendental_rel == b.transcendental_rel && a.constant_rel == b.constant_rel && a.rope_abs == b.rope_abs &&
           a.rope_abs_per_position == b.rope_abs_per_position && a.max_finite == b.max_finite &&
           a.identical_rows_identical_logits == b.identical_rows_identical_logits && a.elementwise_u == b.elementwise_u &&
           a.attention_weights_u == b.attention_weights_u && a.fused_exp_argument == b.fused_exp_argument &&
           a.attention_key_block == b.attention_key_block && a.rope_omega_rel == b.rope_omega_rel;
  };
  std::vector<DeclaredProfile> profiles;
  for (const char* name : {"fp32", "bf16", "monokernel-rtne", "monokernel-rtna", "monokernel-rtz"})
    profiles.push_back(declared_profile(*parse_trace_profile(name), c));
  DeclaredProfile odd = declared_profile(TraceProfile::bf16, c);
  odd.name = "odd \"engine\"";
  odd.arithmetic.accumulation_u = 0x1.5p-20;
  odd.arithmetic.underflow_abs = 0x1p-120;
  odd.arithmetic.transcendental_rel = 1.0 / 3 * 0x1p-20;
  odd.arithmetic.constant_rel = 0x1p-9;
  odd.arithmetic.rope_abs = 0x1p-13;
  odd.arithmetic.elementwise_u = 0x1p-10;
  odd.arithmetic.attention_weights_u = 0x1p-7;
  odd.arithmetic.fused_exp_argument = !odd.arithmetic.fused_exp_argument;
  odd.arithmetic.attention_key_block = 192;
  odd.arithmetic.kv_cache = {reference::StorageFormat::bf16, numerics::Rounding::RTZ};
  odd.arithmetic.activations = {reference::StorageFormat::bf16, numerics::Rounding::RTNA};
  profiles.push_back(odd);
  for (const DeclaredProfile& d : profiles) {
    const std::string text = profile_file_text(d);
    EXPECT_FALSE(unstated_profile_field(text)) << text;
    const DeclaredProfile r = parse_profile_text(text, c, "round-trip");
    EXPECT_EQ(r.name, d.name) << text;
    EXPECT_EQ(r.base, d.base) << text;
    EXPECT_TRUE(same(r.arithmetic, d.arithmetic)) << text;
  }
  DeclaredProfile exact = odd;
  exact.arithmetic.kv_cache = {reference::StorageFormat::exact, numerics::Rounding::RTNE};
  EXPECT_THROW(profile_file_text(exact), std::invalid_argument);
}

}  // namespace
}  // namespace cdna::audit
