// The four transformers-5 model folders of ../shared/fixtures/hf-decode (real save_pretrained
// output; README there) load, with the RoPE their config.json states (issue 24 §4: before, their
// rope_parameters were ignored and every one decoded with rope_theta 10000, no scaling), and
// their eight traces read as decode traces (docs/decode-traces.md). Skipped, with one line,
// where the fixtures are absent.
#include <gtest/gtest.h>

#include <filesystem>

#include "golden/decode_trace.hpp"
#include "golden/decode_weights.hpp"
#include "reference/decode/config.hpp"

namespace cdna::golden {
namespace {

const std::filesystem::path kFixtures = CDNA_FIXTURES_DIR "/hf-decode";

TEST(HfFixtureModels, LoadWithTheirRope) {
  if (!std::filesystem::is_directory(kFixtures)) GTEST_SKIP() << "no fixtures at " << kFixtures.string();
  const std::pair<const char*, const char*> models[] = {
      {"t1-h64", "default, rope_theta 10000"},
      {"t2-h128-tied", "default, rope_theta 10000"},
      {"t4-h256-llama3rope",
       "llama3, rope_theta 500000, factor 32, low_freq_factor 1, high_freq_factor 4, original_max_position_embeddings 64"},
      {"t16-h128-mqa", "default, rope_theta 10000"}};
  for (const auto& [name, rope] : models) {
    const reference::DecoderModel m = load_decoder_model(kFixtures / name);
    EXPECT_EQ(reference::rope_text(m.config), rope) << name;
  }
  const reference::DecoderModel t4 = load_decoder_model(kFixtures / "t4-h256-llama3rope");
  EXPECT_EQ(t4.config.rms_norm_eps, 1e-6);
  EXPECT_EQ(t4.config.num_hidden_layers, 4);
  EXPECT_TRUE(load_decoder_model(kFixtures / "t2-h128-tied").config.tie_word_embeddings);
  EXPECT_EQ(load_decoder_model(kFixtures / "t16-h128-mqa").config.num_key_value_heads, 1);
}

TEST(HfFixtureTraces, EightTracesRead) {
  if (!std::filesystem::is_directory(kFixtures)) GTEST_SKIP() << "no fixtures at " << kFixtures.string();
  for (const char* name : {"t1-h64", "t2-h128-tied", "t4-h256-llama3rope", "t16-h128-mqa"}) {
    const reference::DecoderModel m = load_decoder_model(kFixtures / name);
    for (const char* run : {".fp32-eager", ".bf16-sdpa"}) {
      const DecodeTrace t = read_decode_trace(kFixtures / (std::string(name) + run + ".trace.safetensors"), m.config);
      EXPECT_EQ(t.prompt_length, 6) << name << run;
      EXPECT_EQ(t.steps(), 40) << name << run;
      EXPECT_EQ(static_cast<std::int64_t>(t.hidden.size()), m.config.num_hidden_layers + 1) << name << run;
      EXPECT_EQ(static_cast<std::int64_t>(t.k.size()), m.config.num_hidden_layers) << name << run;
      EXPECT_EQ(std::vector<std::int64_t>(t.tokens.begin(), t.tokens.begin() + 6), (std::vector<std::int64_t>{1, 17, 42, 7, 99, 3}));
    }
  }
}

}  // namespace
}  // namespace cdna::golden
