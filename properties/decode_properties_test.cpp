// Decode properties (issue 11 §3): random small Llama configurations, seeds, prompts and modes;
// the monokernel on the simulator, judged by audit/decode/decode_check.hpp. Budgets: properties/README.md.
//   DecodeProperty.NeverFailsTheDefinition — no logit outside its ball, no decided token different,
//     the last position's local check clean, the stop consistent (a run may judge nothing when the
//     bounds are too wide: counted, and the property needs some runs decided overall).
//   DecodeProperty.GridAndScheduleDoNotChangeBits — grid 1..5 and seeded random wave schedules give
//     bitwise identical tokens and logits (the kernel's result does not depend on how many
//     workgroups share the work or how they interleave).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstring>

#include "device/attention_launcher.hpp"  // read_file
#include "device/decode_launcher.hpp"
#include "reference/decode/random.hpp"
#include "properties/property_junit.hpp"
#include "properties/shard_argument.hpp"
#include "simulator/schedule/simulator_executor.hpp"
#include "audit/decode/decode_check.hpp"

namespace cdna {
namespace {

struct DecodeCase {
  reference::DecoderConfig config;
  std::uint64_t seed = 0;
  std::vector<std::int64_t> prompt;
  std::int64_t steps = 1;
  numerics::Rounding mode = numerics::Rounding::RTNE;
};

// Shapes the launcher supports (H, I, Hq·D multiples of 4, D even), kept small for the simulator.
rc::Gen<DecodeCase> gen_case() {
  return rc::gen::exec([] {
    DecodeCase c;
    reference::DecoderConfig& k = c.config;
    k.num_hidden_layers = *rc::gen::inRange<std::int64_t>(1, 3);
    k.num_key_value_heads = *rc::gen::inRange<std::int64_t>(1, 3);
    k.num_attention_heads = k.num_key_value_heads * *rc::gen::inRange<std::int64_t>(1, 3);
    k.head_dim = 4 * *rc::gen::inRange<std::int64_t>(1, 5);  // Hq·D a multiple of 4
    k.hidden_size = 4 * *rc::gen::inRange<std::int64_t>(2, 13);
    k.intermediate_size = 4 * *rc::gen::inRange<std::int64_t>(2, 25);
    k.vocab_size = *rc::gen::inRange<std::int64_t>(16, 300);
    k.tie_word_embeddings = *rc::gen::arbitrary<bool>();
    k.rope_theta = *rc::gen::element(10000.0, 500000.0);
    k.rms_norm_eps = *rc::gen::element(1e-5, 1e-6);
    k.max_position_embeddings = 4096;
    c.seed = *rc::gen::inRange<std::uint64_t>(0, 1u << 30);
    const auto n = *rc::gen::inRange<std::size_t>(1, 4);
    for (std::size_t i = 0; i < n; ++i) c.prompt.push_back(*rc::gen::inRange<std::int64_t>(0, k.vocab_size));
    c.steps = *rc::gen::inRange<std::int64_t>(1, 7);
    c.mode = *rc::gen::element(numerics::Rounding::RTNE, numerics::Rounding::RTNA, numerics::Rounding::RTZ);
    return c;
  });
}

std::string describe(const DecodeCase& c) {
  const auto& k = c.config;
  return "L " + std::to_string(k.num_hidden_layers) + " H " + std::to_string(k.hidden_size) + " I " +
         std::to_string(k.intermediate_size) + " Hq " + std::to_string(k.num_attention_heads) + " Hkv " +
         std::to_string(k.num_key_value_heads) + " D " + std::to_string(k.head_dim) + " V " +
         std::to_string(k.vocab_size) + (k.tie_word_embeddings ? " tied" : " untied") + " seed " +
         std::to_string(c.seed) + " prompt " + std::to_string(c.prompt.size()) + " steps " +
         std::to_string(c.steps) + " " + std::string(numerics::to_string(c.mode));
}

device::DecodeLaunch launch_for(const DecodeCase& c, const reference::DecoderModel& m, std::uint32_t grid) {
  device::DecodeLaunch l;
  l.model = &m;
  l.prompt = c.prompt;
  l.steps = c.steps;
  l.mode = c.mode;
  l.grid = grid;
  return l;
}

std::int64_t g_decided = 0, g_runs = 0;

CDNA_RC_GTEST_PROP(DecodeProperty, NeverFailsTheDefinition, ()) {
  const DecodeCase c = *gen_case();
  RC_TAG(c.config.num_hidden_layers);
  const reference::DecoderModel model = reference::random_decoder_model(c.config, c.seed);
  simulator::SimulatorExecutor ex;
  const auto code = device::read_file(device::decode_code_object(c.mode), "decode code object");
  audit::DecodeCheckOptions o;
  o.launch = launch_for(c, model, 4);
  const audit::DecodeCheck check = audit::check_decode(ex, code, o);
  RC_LOG() << describe(c) << ": " << audit::decode_outcome_line(check) << "\n";
  ++g_runs;
  g_decided += check.counts.decided;
  RC_ASSERT(check.outcome != audit::DecodeOutcome::Fail);
  RC_ASSERT(check.counts.local_checked > 0 || check.kernel.status == device::DecodeStatus::Nan);
}

TEST(DecodeProperty, SomeStepsWereDecided) {
  // Runs after NeverFailsTheDefinition in the same binary (gtest runs tests in declaration
  // order): a property over runs that all judged nothing would be a pass over nothing.
  if (g_runs == 0) GTEST_SKIP() << "NeverFailsTheDefinition did not run in this process (filtered out)";
  std::printf("[ figures  ] %lld runs, %lld decided steps\n", static_cast<long long>(g_runs),
              static_cast<long long>(g_decided));
  EXPECT_GT(g_decided, 0);
}

CDNA_RC_GTEST_PROP(DecodeProperty, GridAndScheduleDoNotChangeBits, ()) {
  const DecodeCase c = *gen_case();
  const reference::DecoderModel model = reference::random_decoder_model(c.config, c.seed);
  const auto code = device::read_file(device::decode_code_object(c.mode), "decode code object");
  simulator::SimulatorExecutor ex;
  const device::DecodeResult base = device::run_decode(ex, code, launch_for(c, model, 1));
  const auto grid = *rc::gen::inRange<std::uint32_t>(2, 6);
  ex.options().schedule = simulator::Schedule::Random;
  ex.options().seed = *rc::gen::arbitrary<std::uint64_t>();
  const device::DecodeResult other = device::run_decode(ex, code, launch_for(c, model, grid));
  RC_LOG() << describe(c) << ", grid 1 vs " << grid << " with random schedule seed " << ex.options().seed << "\n";
  RC_ASSERT(base.tokens == other.tokens);
  RC_ASSERT(base.logits.size() == other.logits.size());
  RC_ASSERT(std::memcmp(base.logits.data(), other.logits.data(), base.logits.size() * sizeof(float)) == 0);
}

}  // namespace
}  // namespace cdna

// `--junit FILE` (properties/property_junit.hpp): classname cdna-verify.property.decode-monokernel.
int main(int argc, char** argv) {
  if (!cdna::properties::take_shard_argument(argc, argv)) return 2;  // --shard I/N (shard_argument.hpp)
  ::testing::InitGoogleTest(&argc, argv);
  if (const int rc = cdna::properties::setup_junit(argc, argv, [](const ::testing::TestInfo&) { return "decode-monokernel"; }))
    return rc;
  return cdna::properties::finish_junit(cdna::properties::nothing_ran_is_not_a_pass(RUN_ALL_TESTS(), argv[0]));
}
