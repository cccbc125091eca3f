// The decode monokernel on the simulator (tiny preset: 2 layers, H 256, Hq 4, Hkv 2, D 64,
// I 512, V 1000): grid independence, schedule independence, its logits inside the balls of its
// declared arithmetic (audit/decode/ball_forward.hpp), NaN and eos stops, refusals, mutants.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "device/attention_launcher.hpp"
#include "audit/decode/ball_forward.hpp"
#include "device/decode_launcher.hpp"
#include "audit/decode/test_model.hpp"
#include "reference/decode/decision.hpp"
#include "reference/decode/envelope.hpp"
#include "reference/decode/exact.hpp"
#include "reference/decode/random.hpp"
#include "simulator/schedule/simulator_executor.hpp"

namespace cdna::device {
namespace {

using numerics::Rounding;

// The tiny preset, seeded (reference/decode/random.hpp: N(0, 0.02) matrices, norm weights
// 1 + N(0, 0.1)). `paired_lm_rows`: rows 2k and 2k+1 of the LM head equal, so that every argmax
// is a tie.
reference::DecoderModel tiny_model(std::uint64_t seed, bool paired_lm_rows = false) {
  reference::RandomModelOptions o;
  o.duplicate_lm_head_rows = paired_lm_rows;
  return reference::random_decoder_model(reference::decoder_preset("tiny"), seed, o);
}

std::uint32_t bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// Bitwise equality of two runs' tokens, status and logits.
void expect_identical(const DecodeResult& a, const DecodeResult& b) {
  EXPECT_EQ(a.tokens, b.tokens);
  EXPECT_EQ(a.status, b.status);
  ASSERT_EQ(a.logits.size(), b.logits.size());
  std::size_t differ = 0;
  for (std::size_t i = 0; i < a.logits.size(); ++i) differ += bits(a.logits[i]) != bits(b.logits[i]);
  EXPECT_EQ(differ, 0u) << "logits differing bitwise";
}

// The exact oracle (reference/decode/exact.hpp, teacher-forced with the kernel's tokens) against
// the kernel: printed figures, every position.
void print_exact_distance(const reference::DecoderModel& m, const DecodeLaunch& l, const DecodeResult& r) {
  reference::ExactDecoder exact(m);
  const std::int64_t V = m.config.vocab_size;
  double lo = INFINITY, hi = -INFINITY, worst = 0;
  std::size_t same_argmax = 0;
  const std::vector<std::int64_t> tokens = teacher_tokens(l, r);
  for (std::size_t p = 0; p < tokens.size(); ++p) {
    const std::vector<double> x = exact.step(tokens[p]);
    const float* k = r.logits.data() + static_cast<std::int64_t>(p) * V;
    for (std::int64_t i = 0; i < V; ++i) {
      lo = std::min(lo, x[i]), hi = std::max(hi, x[i]);
      worst = std::max(worst, std::abs(static_cast<double>(k[i]) - x[i]));
    }
    same_argmax += reference::greedy_token(x) == std::max_element(k, k + V) - k;
  }
  std::printf("[ figures  ] %s: max |kernel - exact| %.3g (%.3g of the exact logits' spread); "
              "kernel argmax = exact argmax at %zu of %zu positions\n",
              std::string(numerics::to_string(l.mode)).c_str(), worst, worst / (hi - lo), same_argmax, tokens.size());
}

// The kernel against the envelope's balls for its declared arithmetic (reference/
// decode_envelope.hpp, monokernel_arithmetic, teacher-forced with the kernel's tokens; judge_step
// per position): printed, not asserted. On the tiny preset every ball is unbounded (radius inf),
// so nothing could fail here (measured 2026-12-01; with 1 layer the balls are finite but about
// 10^3 wide and decide no token); the one-step checks (expect_correct) are the verdict.
void print_envelope_figures(const reference::DecoderModel& m, const DecodeLaunch& l, const DecodeResult& r) {
  reference::DecodeEnvelope envelope(m, reference::monokernel_arithmetic(l.mode));
  const std::int64_t V = m.config.vocab_size, P = static_cast<std::int64_t>(l.prompt.size());
  const std::vector<std::int64_t> tokens = teacher_tokens(l, r);
  std::size_t decided = 0, judged = 0, unbounded = 0, outside = 0, mismatched = 0;
  double ratio = 0, lo = INFINITY, hi = -INFINITY, worst = 0;  // worst |kernel − mid| (mid: the fast double reference)
  for (std::int64_t p = 0; p < r.stats.positions; ++p) {
    const reference::StepBounds b = envelope.step(tokens[static_cast<std::size_t>(p)]);
    const std::span<const float> logits(r.logits.data() + p * V, static_cast<std::size_t>(V));
    const std::int64_t k = p + 1 - P;  // the generated token this position chose, if any
    const std::int64_t kernel_token = k >= 0 ? r.tokens[static_cast<std::size_t>(k)] : 0;
    const reference::StepVerdict v = reference::judge_step(b, logits, kernel_token);
    outside += static_cast<std::size_t>(v.outside);
    for (double rad : b.rad) unbounded += !std::isfinite(rad);
    for (std::int64_t i = 0; i < V; ++i) {
      lo = std::min(lo, b.mid[i]), hi = std::max(hi, b.mid[i]);
      worst = std::max(worst, std::abs(logits[i] - b.mid[i]));
    }
    ratio = std::max(ratio, v.max_ratio);
    if (k < 0) continue;
    ++judged;
    if (v.decision.kind == reference::DecisionKind::decided) ++decided, mismatched += !v.match;
  }
  std::printf("[ figures  ] %s: envelope: %lld positions, %zu of %zu logit balls unbounded (radius inf), %zu "
              "logits outside, max |kernel - mid|/rad %.3g; tokens decided at %zu of %zu steps, %zu not the kernel's; "
              "max |kernel - double reference| %.3g of the logits' spread\n",
              std::string(numerics::to_string(l.mode)).c_str(), static_cast<long long>(r.stats.positions), unbounded,
              r.logits.size(), outside, ratio, decided, judged, mismatched, worst / (hi - lo));
}

class DecodeMonokernel : public ::testing::Test {
 protected:
  DecodeMonokernel() : model_(tiny_model(11)) {}
  DecodeLaunch launch(std::int64_t steps, std::uint32_t grid, Rounding mode = Rounding::RTNE) const {
    DecodeLaunch l;
    l.model = &model_;
    l.prompt = {17, 400, 3};
    l.steps = steps;
    l.mode = mode;
    l.grid = grid;
    l.block = 256;
    return l;
  }
  reference::DecoderModel model_;
  simulator::SimulatorExecutor ex_;
};

// Also grid 1 (one workgroup does everything, no cross-workgroup waiting), a 2-wave block and
// grid 70 (more workgroups than the 64 tiles of H rows: six have no o_proj and no down tile);
// prints the simulated instructions per position of each, polling included.
TEST_F(DecodeMonokernel, Grid8AndGrid3GiveIdenticalTokensAndLogits) {
  const DecodeLaunch l8 = launch(6, 8);  // 3 prompt + 5 fed back: 8 positions
  const DecodeResult a = run_decode(ex_, l8);
  EXPECT_EQ(a.stats.positions, 8);
  EXPECT_EQ(a.tokens.size(), 6u);
  EXPECT_EQ(a.status, DecodeStatus::Steps);
  for (float v : a.logits) ASSERT_TRUE(std::isfinite(v));
  expect_correct(model_, l8, a);
  for (auto [grid, block] : {std::pair{3u, 256u}, {1u, 256u}, {5u, 128u}, {70u, 256u}}) {
    SCOPED_TRACE(grid);
    DecodeLaunch l = launch(6, grid);
    l.block = block;
    expect_identical(a, run_decode(ex_, l));
    std::printf("[ figures  ] grid %u, block %u: %.0f wave instructions per position\n", grid, block,
                static_cast<double>(ex_.last_stats().wave_instructions) / 8.0);
  }
}

// V = 8: two LM-head tiles, so with grid 3 one workgroup has no LM-head row and publishes the
// empty partial (−inf, INT32_MAX); its result must not change.
TEST_F(DecodeMonokernel, WorkgroupWithoutLmHeadRowsChangesNothing) {
  reference::DecoderModel small = model_;
  small.config.vocab_size = 8;
  small.weights.embed_tokens.resize(8 * static_cast<std::size_t>(small.config.hidden_size));
  DecodeLaunch l = launch(4, 1);
  l.model = &small;
  l.prompt = {3, 5};
  const DecodeResult one = run_decode(ex_, l);
  expect_correct(small, l, one);
  l.grid = 3;
  expect_identical(one, run_decode(ex_, l));
}

// Its workgroups wait for each other's NaN-sentinel partials: the parallel dispatch must see
// that they communicate, rerun on the serial scheduler and give the serial bits.
TEST_F(DecodeMonokernel, CommunicatingWorkgroupsRunSeriallyUnderThreads) {
  const DecodeLaunch l = launch(3, 5);
  ex_.options().threads = 1;
  const DecodeResult serial = run_decode(ex_, l);
  ex_.options().threads = 2;
  const DecodeResult threaded = run_decode(ex_, l);
  const std::string how = ex_.last_stats().parallel;
  std::printf("[ figures  ] threads 2: parallel: %s\n", how.c_str());
  EXPECT_EQ(how.rfind("no (", 0), 0u) << how;
  EXPECT_NE(how.find("reran on the serial scheduler"), std::string::npos) << how;
  expect_identical(serial, threaded);
}

TEST_F(DecodeMonokernel, DeterministicUnderRandomSchedules) {
  const DecodeLaunch l = launch(3, 5);
  const DecodeResult base = run_decode(ex_, l);
  ex_.options().schedule = simulator::Schedule::Random;
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    ex_.options().seed = seed;
    SCOPED_TRACE(seed);
    expect_identical(base, run_decode(ex_, l));
  }
}

// 2 prompt tokens, 16 generated: every logit of 17 positions inside its ball, all three modes;
// prints the simulator's cost per token and the bytes a token streams.
TEST_F(DecodeMonokernel, LogitsInsideBallsOfTheDeclaredArithmetic) {
  for (Rounding mode : numerics::kAllRoundings) {
    DecodeLaunch l = launch(16, 8, mode);
    l.prompt = {5, 901};
    const DecodeResult r = run_decode(ex_, l);
    ASSERT_EQ(r.stats.positions, 17);
    expect_correct(model_, l, r);
    if (mode == Rounding::RTNE) print_exact_distance(model_, l, r);
    print_envelope_figures(model_, l, r);
    const auto& s = ex_.last_stats();
    std::printf("[ figures  ] %s grid 8: %.0f wave instructions per position, %.3f s per position (simulator); "
                "%llu weight bytes streamed per position of a %llu-byte model\n",
                std::string(numerics::to_string(mode)).c_str(),
                static_cast<double>(s.wave_instructions) / static_cast<double>(r.stats.positions),
                r.stats.seconds / static_cast<double>(r.stats.positions),
                static_cast<unsigned long long>(r.stats.weight_bytes_per_token),
                static_cast<unsigned long long>(r.stats.model_bytes));
  }
}

TEST_F(DecodeMonokernel, NanLogitsGiveTokenMinusOneAndStop) {
  model_.weights.norm[7] = 0x7FC0;  // a quiet-NaN final-norm weight: every logit NaN
  const DecodeResult r = run_decode(ex_, launch(5, 4));
  EXPECT_EQ(r.status, DecodeStatus::Nan);
  EXPECT_EQ(r.tokens, std::vector<std::int64_t>{-1});
  EXPECT_EQ(r.stats.positions, 3);
}

// A signalling-NaN weight equal to the KV sentinel's bf16 pattern: the values it reaches are
// quiet NaNs, never the sentinel, so the run ends (NaN logits) instead of waiting forever.
TEST_F(DecodeMonokernel, SignallingNanWeightFlowsAsQuietNan) {
  model_.weights.layers[0].k_proj[0] = CDNA_DECODE_SENTINEL16;
  model_.weights.layers[0].v_proj[0] = CDNA_DECODE_SENTINEL16;
  const DecodeResult r = run_decode(ex_, launch(3, 4));
  EXPECT_EQ(r.status, DecodeStatus::Nan);
  EXPECT_EQ(r.tokens.back(), -1);
}

TEST_F(DecodeMonokernel, StopsAtAnEosToken) {
  const DecodeResult free_run = run_decode(ex_, launch(4, 4));
  DecodeLaunch l = launch(4, 4);
  l.eos = {free_run.tokens[1], 999999};
  const DecodeResult r = run_decode(ex_, l);
  EXPECT_EQ(r.status, DecodeStatus::Eos);
  const std::size_t first = static_cast<std::size_t>(
      std::find(free_run.tokens.begin(), free_run.tokens.end(), free_run.tokens[1]) - free_run.tokens.begin());
  EXPECT_EQ(r.tokens, std::vector<std::int64_t>(free_run.tokens.begin(), free_run.tokens.begin() + first + 1));
}

TEST_F(DecodeMonokernel, RefusesWhatItCannotRunWithOneLine) {
  auto refused = [&](DecodeLaunch l, const std::string& needle) {
    try {
      run_decode(ex_, l);
      ADD_FAILURE() << "accepted; expected a refusal naming " << needle;
    } catch (const std::invalid_argument& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(needle), std::string::npos) << msg;
      EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
  };
  ex_.options().max_resident_workgroups = 4;
  refused(launch(2, 5), "grid 5 does not fit");
  ex_.options().max_resident_workgroups = 4096;
  DecodeLaunch l = launch(2, 4);
  l.prompt = {1000};
  refused(l, "prompt token 1000");
  l = launch(2, 4);
  l.block = 100;
  refused(l, "block = 100");
  reference::DecoderModel odd = model_;
  odd.config.head_dim = 63;
  l = launch(2, 4);
  l.model = &odd;
  refused(l, "head_dim = 63");
  odd = model_;
  odd.config.hidden_size = 258;
  l.model = &odd;
  refused(l, "hidden_size = 258");
  odd = model_;
  odd.config.max_position_embeddings = 2;
  l = launch(2, 4);
  l.model = &odd;
  refused(l, "4 positions exceed max_position_embeddings = 2");
  odd = model_;
  odd.weights.layers[1].up_proj.pop_back();
  l.model = &odd;
  refused(l, "model.layers.1.mlp.up_proj.weight has 131071 elements, expected 131072");
}

// Llama-3.2-1B's shapes pass the shape checks (the run itself is far too slow for the simulator).
TEST(DecodeShapes, Llama32OneBShapesAreSupported) {
  reference::DecoderConfig c;
  c.hidden_size = 2048, c.intermediate_size = 8192, c.num_hidden_layers = 16, c.num_attention_heads = 32;
  c.num_key_value_heads = 8, c.head_dim = 64, c.vocab_size = 128256;
  EXPECT_EQ(decode_config_unsupported_reason(c, 130, 256), std::nullopt);
  // 32 KiB of staged activations + 4 waves × (3·64 + 4001) floats of attention scratch: over 64 KiB.
  const auto why = decode_config_unsupported_reason(c, 4000, 256);
  ASSERT_NE(why, std::nullopt);
  EXPECT_NE(why->find("bytes of LDS"), std::string::npos) << *why;
  c.head_dim = 65;
  EXPECT_NE(decode_config_unsupported_reason(c, 130, 256), std::nullopt);
}

std::filesystem::path mutant_path(const std::string& name) {
  std::string lower = name;
  for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return std::filesystem::path(CDNA_CODE_OBJECT_DIR) / ("decode_monokernel_mutant_" + lower + ".hsaco");
}

// Each non-memory mutant is caught: the simulator's watchdog reports a hang, or the verdicts of
// expect_correct fail (the argmax rule, or a last-position value outside its one-step ball).
TEST_F(DecodeMonokernel, NonMemoryMutantsAreCaught) {
  ex_.options().hang_rounds = 4096;
  const reference::DecoderModel paired = tiny_model(12, true);
  for (const char* name : {"SENTINEL_RESET_WRONG_STEP", "ROPE_POSITION_OFF_BY_ONE", "ROPE_INTERLEAVED", "KV_WRONG_SLOT",
                           "RESIDUAL_TWICE", "RMSNORM_EPS_MISPLACED", "ARGMAX_TIE_HIGHEST", "GQA_MOD",
                           "LM_HEAD_TILE_SKIPPED"}) {
    SCOPED_TRACE(name);
    DecodeLaunch l = launch(4, 3);
    if (std::string(name) == "ARGMAX_TIE_HIGHEST") l.model = &paired;
    const DecodeResult good = run_decode(ex_, l);
    const std::vector<std::byte> code = read_file(mutant_path(name), "mutant");
    DecodeResult bad;
    try {
      bad = run_decode(ex_, code, l);
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("no progress"), std::string::npos) << e.what();
      std::printf("[ mutant   ] %s: hangs (%.60s...)\n", name, e.what());
      continue;
    }
    bool same = bad.tokens == good.tokens && bad.logits.size() == good.logits.size();
    for (std::size_t i = 0; same && i < bad.logits.size(); ++i) same = bits(bad.logits[i]) == bits(good.logits[i]);
    ::testing::TestPartResultArray failures;
    {
      ::testing::ScopedFakeTestPartResultReporter reporter(
          ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
      expect_correct(*l.model, l, bad);
    }
    EXPECT_GT(failures.size(), 0) << "the verdicts pass the mutant";
    std::printf("[ mutant   ] %s: %s the correct kernel's tokens and logits; %d verdict(s) failed\n", name,
                same ? "same as" : "differs from", failures.size());
  }
}

// The simulator's default memory is coherent: these three need its memory-model mode to be told
// apart (docs/decode-semantics.md §5.3). Here: they decode; whether they run is printed.
TEST(DecodeMutants, MemoryModelMutantsBuild) {
  const reference::DecoderModel m = tiny_model(11);
  for (const char* name : {"DROPPED_RELEASE", "DROPPED_RELEASE_PLAIN_STORE", "DROPPED_ACQUIRE"}) {
    const std::vector<std::byte> code = read_file(mutant_path(name), "mutant");
    simulator::SimulatorExecutor ex;
    EXPECT_NE(ex.program(code, kDecodeKernel), nullptr) << name;
    DecodeLaunch l;
    l.model = &m;
    l.prompt = {17, 400, 3};
    l.steps = 2;
    l.grid = 4;
    try {
      const DecodeResult r = run_decode(ex, code, l);
      std::printf("[ mutant   ] %s: runs on coherent memory (%zu tokens)\n", name, r.tokens.size());
    } catch (const std::exception& e) {
      std::printf("[ mutant   ] %s: %.100s\n", name, e.what());
    }
  }
}

}  // namespace
}  // namespace cdna::device
