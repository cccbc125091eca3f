// The monokernel judged layer by layer from its own values (DecodeCheckOptions::layer_checks): the
// kernel records the residual stream entering every layer and the final RMSNorm's output
// (DecodeLaunch::record_hidden), the run becomes a trace (monokernel_trace.hpp) and the per-layer
// checks of any implementation's trace judge it under the monokernel's profile. On the 2-layer
// tiny preset, whose a-priori balls decide nothing (docs/decode-bounds.md §12), every step is then
// classified; mutants fail naming layer, position and tensor.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "audit/decode/decode_check.hpp"
#include "audit/decode/monokernel_trace.hpp"
#include "device/attention_launcher.hpp"  // read_file
#include "reference/decode/random.hpp"
#include "simulator/schedule/simulator_executor.hpp"

namespace cdna::audit {
namespace {

std::uint32_t bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

class LayerChecks : public ::testing::Test {
 protected:
  DecodeCheckOptions options(const reference::DecoderModel& m, std::int64_t steps) const {
    DecodeCheckOptions o;
    o.launch.model = &m;
    o.launch.prompt = {1, 2, 3, 4};
    o.launch.steps = steps;
    o.launch.grid = 8;
    o.layer_checks = true;
    return o;
  }
  DecodeCheck check(const DecodeCheckOptions& o, const std::string& code_object_name = "") {
    const auto path = code_object_name.empty()
                          ? device::decode_code_object(o.launch.mode)
                          : std::filesystem::path(CDNA_CODE_OBJECT_DIR) / (code_object_name + ".hsaco");
    const DecodeCheck c = check_decode(ex_, device::read_file(path, "decode code object"), o);
    std::printf("[ figures  ] %s %s: %s\n", code_object_name.empty() ? "correct" : code_object_name.c_str(),
                std::string(numerics::to_string(o.launch.mode)).c_str(), decode_outcome_line(c).c_str());
    return c;
  }
  simulator::SimulatorExecutor ex_;
};

// Recording is a side output: tokens and logits bit for bit those of a run without it; the
// recorded layer-0 input is the fed tokens' embedding rows.
TEST_F(LayerChecks, RecordingTheHiddenStatesChangesNothing) {
  const reference::DecoderModel m = reference::random_decoder_model(reference::decoder_preset("micro"), 1);
  DecodeCheckOptions o = options(m, 6);
  const device::DecodeResult plain = device::run_decode(ex_, o.launch);
  o.launch.record_hidden = true;
  const device::DecodeResult recorded = device::run_decode(ex_, o.launch);
  EXPECT_TRUE(plain.hidden.empty());
  EXPECT_EQ(recorded.tokens, plain.tokens);
  ASSERT_EQ(recorded.logits.size(), plain.logits.size());
  for (std::size_t i = 0; i < plain.logits.size(); ++i) ASSERT_EQ(bits(recorded.logits[i]), bits(plain.logits[i])) << i;
  const golden::DecodeTrace t = monokernel_trace(o.launch, recorded);
  const std::int64_t H = m.config.hidden_size;
  ASSERT_EQ(std::ssize(t.tokens), 4 + 6);
  for (std::int64_t p = 0; p + 1 < std::ssize(t.tokens); ++p)
    for (std::int64_t i = 0; i < H; ++i) {
      const std::uint32_t e = static_cast<std::uint32_t>(m.weights.embed_tokens[static_cast<std::size_t>(t.tokens[static_cast<std::size_t>(p)] * H + i)]) << 16;
      ASSERT_EQ(bits(t.hidden.at(0)[static_cast<std::size_t>(p * H + i)]), e) << p << ' ' << i;
    }
  // The trace's file parses back to the same tensors (what `decode --write-trace` writes).
  const golden::DecodeTrace back = golden::parse_decode_trace(golden::decode_trace_file(t, m.config), m.config, "trace");
  EXPECT_EQ(back.tokens, t.tokens);
  EXPECT_EQ(back.logits, t.logits);
  EXPECT_EQ(back.hidden, t.hidden);
  EXPECT_EQ(back.k, t.k);
  EXPECT_EQ(back.v, t.v);
  o.launch.record_hidden = false;
  EXPECT_THROW(monokernel_trace(o.launch, plain), std::invalid_argument);
}

// The tiny preset: a priori NOTHING JUDGED (0 steps decided), layer by layer every step a match
// or an explained parting, every layer value inside its ball, in each KV-cache rounding and with
// the per-layer enclosures as affine forms or as balls.
TEST_F(LayerChecks, TheTinyPresetHasEveryStepClassified) {
  const reference::DecoderModel m = reference::random_decoder_model(reference::decoder_preset("tiny"), 1);
  for (numerics::Rounding mode : numerics::kAllRoundings) {
    for (const auto method : {reference::EnvelopeMethod::affine, reference::EnvelopeMethod::ball}) {
      SCOPED_TRACE(std::string(numerics::to_string(mode)) + (method == reference::EnvelopeMethod::ball ? " ball" : " affine"));
      DecodeCheckOptions o = options(m, 8);
      o.launch.mode = mode;
      o.layer_method = method;
      const DecodeCheck c = check(o);
      EXPECT_EQ(c.outcome, DecodeOutcome::Pass) << c.failure;
      EXPECT_EQ(c.counts.decided, 0);  // the a-priori balls: too wide (docs/decode-bounds.md §12)
      ASSERT_TRUE(c.layers.has_value());
      EXPECT_EQ(c.layers->outcome, TraceOutcome::pass) << c.layers->failure;
      EXPECT_EQ(c.counts.layer_matched + c.counts.layer_explained, 8);
      EXPECT_EQ(c.counts.layer_outside, 0);
      EXPECT_EQ(c.counts.layer_unbounded, 0);
      EXPECT_GT(c.counts.layer_checked, 0);
    }
  }
}

// The exact model's token from the fast reference (step_reference ball) instead of the MPFR
// oracle: where its wider balls decide a step, they decide the oracle's token; a step they leave
// undecided is explained only because the run is faithful up to it; the per-layer checks are the
// same checks, so the verdict and the layer values judged agree with the oracle's run, and a
// mutant still fails at its layer.
TEST_F(LayerChecks, TheFastStepReferenceAgreesWithTheOracle) {
  const reference::DecoderModel m = reference::random_decoder_model(reference::decoder_preset("tiny"), 1);
  DecodeCheckOptions o = options(m, 8);
  const DecodeCheck exact = check(o);
  o.step_reference = TraceReference::ball;
  const DecodeCheck ball = check(o);
  ASSERT_TRUE(exact.layers.has_value() && ball.layers.has_value());
  EXPECT_EQ(ball.outcome, DecodeOutcome::Pass) << ball.failure;
  EXPECT_EQ(ball.layers->outcome, TraceOutcome::pass) << ball.layers->failure;
  EXPECT_EQ(ball.layers->precision_bits, 0u);  // no oracle ran
  EXPECT_GT(exact.layers->precision_bits, 0u);
  EXPECT_EQ(ball.counts.layer_checked, exact.counts.layer_checked);
  EXPECT_EQ(ball.counts.layer_outside, 0);
  EXPECT_EQ(ball.counts.layer_matched + ball.counts.layer_explained, 8);
  ASSERT_EQ(ball.layers->steps.size(), exact.layers->steps.size());
  for (std::size_t s = 0; s < ball.layers->steps.size(); ++s) {
    const TraceStep& b = ball.layers->steps[s];
    const TraceStep& e = exact.layers->steps[s];
    ASSERT_EQ(e.exact.kind, reference::DecisionKind::decided) << s;  // the oracle decides every step here
    if (b.exact.kind == reference::DecisionKind::decided) {
      EXPECT_EQ(b.exact.token, e.exact.token) << s;
    }
    EXPECT_GE(b.exact_radius, e.exact_radius) << s;  // the fast reference's balls are the wider
  }
  const DecodeCheck mutant = check(o, "decode_monokernel_mutant_residual_twice");
  ASSERT_TRUE(mutant.layers.has_value());
  EXPECT_EQ(mutant.layers->outcome, TraceOutcome::fail);
  EXPECT_EQ(mutant.layers->failure.rfind("layer 0, position 0: hidden.1[", 0), 0u) << mutant.layers->failure;
}

// A run that stops on a NaN logit (token -1, the sentinel protocol's own hazard) leaves no trace:
// the per-layer checks say they did not run, and the a-priori verdict stands.
TEST_F(LayerChecks, ANanStopSaysThePerLayerChecksDidNotRun) {
  reference::DecoderModel m = reference::random_decoder_model(reference::decoder_preset("tiny"), 3);
  m.weights.embed_tokens.at(static_cast<std::size_t>(7 * m.config.hidden_size)) = 0x7FC0;  // bf16 quiet NaN
  const DecodeCheck c = check(options(m, 4));
  EXPECT_EQ(c.kernel.status, device::DecodeStatus::Nan);
  EXPECT_FALSE(c.layers.has_value());
  EXPECT_NE(decode_outcome_line(c).find("per-layer checks: not run (the run stopped on a NaN logit"), std::string::npos)
      << decode_outcome_line(c);
}

// Mutants the a-priori balls of the tiny preset cannot see fail at their layer and position, with
// the per-layer enclosures in either value type (the balls are wider, not blind).
TEST_F(LayerChecks, MutantsFailAtTheirLayer) {
  const reference::DecoderModel m = reference::random_decoder_model(reference::decoder_preset("tiny"), 1);
  struct Expect {
    const char* mutant;
    const char* where;  // the start of the first finding
  };
  for (const Expect& e : {Expect{"residual_twice", "layer 0, position 0: hidden.1["},
                          Expect{"rope_interleaved", "layer 0, position 1: k.0["},
                          Expect{"rmsnorm_eps_misplaced", "layer 0, position 0: k.0["}}) {
    for (const auto method : {reference::EnvelopeMethod::affine, reference::EnvelopeMethod::ball}) {
      SCOPED_TRACE(std::string(e.mutant) + (method == reference::EnvelopeMethod::ball ? " ball" : " affine"));
      DecodeCheckOptions o = options(m, 4);
      o.layer_method = method;
      const DecodeCheck c = check(o, std::string("decode_monokernel_mutant_") + e.mutant);
      EXPECT_EQ(c.outcome, DecodeOutcome::Fail);
      ASSERT_TRUE(c.layers.has_value());
      EXPECT_EQ(c.layers->outcome, TraceOutcome::fail);
      std::printf("[ figures  ] first per-layer finding: %s\n", c.layers->failure.c_str());
      EXPECT_EQ(c.layers->failure.rfind(e.where, 0), 0u) << c.layers->failure;
    }
  }
}

}  // namespace
}  // namespace cdna::audit
