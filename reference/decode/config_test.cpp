// config.json parsing and writing, the tensor list, the presets and the random models.
#include "reference/decode/config.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "numerics/bf16.hpp"
#include "reference/decode/random.hpp"

namespace cdna::reference {
namespace {

// Llama-3.2-1B's config.json as published on the Hugging Face hub (the fields that matter here).
constexpr const char* kLlama32_1B = R"({
  "architectures": ["LlamaForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
  "bos_token_id": 128000, "eos_token_id": 128001, "head_dim": 64, "hidden_act": "silu",
  "hidden_size": 2048, "initializer_range": 0.02, "intermediate_size": 8192,
  "max_position_embeddings": 131072, "mlp_bias": false, "model_type": "llama",
  "num_attention_heads": 32, "num_hidden_layers": 16, "num_key_value_heads": 8,
  "pretraining_tp": 1, "rms_norm_eps": 1e-05,
  "rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                   "original_max_position_embeddings": 8192, "rope_type": "llama3"},
  "rope_theta": 500000.0, "tie_word_embeddings": true, "torch_dtype": "bfloat16",
  "transformers_version": "4.45.0.dev0", "use_cache": true, "vocab_size": 128256})";

void expect_same(const DecoderConfig& a, const DecoderConfig& b) {
  EXPECT_EQ(a.hidden_size, b.hidden_size);
  EXPECT_EQ(a.intermediate_size, b.intermediate_size);
  EXPECT_EQ(a.num_hidden_layers, b.num_hidden_layers);
  EXPECT_EQ(a.num_attention_heads, b.num_attention_heads);
  EXPECT_EQ(a.num_key_value_heads, b.num_key_value_heads);
  EXPECT_EQ(a.head_dim, b.head_dim);
  EXPECT_EQ(std::memcmp(&a.rms_norm_eps, &b.rms_norm_eps, sizeof(double)), 0);
  EXPECT_EQ(std::memcmp(&a.rope_theta, &b.rope_theta, sizeof(double)), 0);
  ASSERT_EQ(a.rope_scaling.has_value(), b.rope_scaling.has_value());
  if (a.rope_scaling) {
    EXPECT_EQ(a.rope_scaling->factor, b.rope_scaling->factor);
    EXPECT_EQ(a.rope_scaling->low_freq_factor, b.rope_scaling->low_freq_factor);
    EXPECT_EQ(a.rope_scaling->high_freq_factor, b.rope_scaling->high_freq_factor);
    EXPECT_EQ(a.rope_scaling->original_max_position_embeddings, b.rope_scaling->original_max_position_embeddings);
  }
  EXPECT_EQ(a.vocab_size, b.vocab_size);
  EXPECT_EQ(a.tie_word_embeddings, b.tie_word_embeddings);
  EXPECT_EQ(a.max_position_embeddings, b.max_position_embeddings);
  EXPECT_EQ(a.eos_token_id, b.eos_token_id);
}

// The one-line error of parsing `json_text` (empty if none).
std::string error_of(const std::string& json_text) {
  try {
    parse_decoder_config(json_text, "cfg.json");
  } catch (const ModelFileError& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    return e.what();
  }
  return "";
}

// The Llama-3.2-1B text with one field replaced (or removed: value "").
std::string with_field(const std::string& field, const std::string& value) {
  nlohmann::json j = nlohmann::json::parse(kLlama32_1B);
  if (value.empty())
    j.erase(field);
  else
    j[field] = nlohmann::json::parse(value);
  return j.dump();
}

TEST(DecoderConfig, ParsesLlama32_1B) {
  DecoderConfig want = decoder_preset("llama-3.2-1b-layer");
  want.num_hidden_layers = 16;
  want.eos_token_id = {128001};
  expect_same(parse_decoder_config(kLlama32_1B, "cfg.json"), want);
}

TEST(DecoderConfig, DefaultsOfLlamaConfig) {
  const DecoderConfig c = parse_decoder_config(
      R"({"hidden_size": 96, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 3, "vocab_size": 10})",
      "cfg.json");
  EXPECT_EQ(c.num_key_value_heads, 3);
  EXPECT_EQ(c.head_dim, 32);  // H / Hq
  EXPECT_EQ(c.rms_norm_eps, 1e-6);
  EXPECT_EQ(c.rope_theta, 10000.0);
  EXPECT_FALSE(c.rope_scaling);
  EXPECT_FALSE(c.tie_word_embeddings);
  EXPECT_EQ(c.max_position_embeddings, 2048);
  EXPECT_TRUE(c.eos_token_id.empty());
}

TEST(DecoderConfig, EosIdIntListOrNull) {
  EXPECT_EQ(parse_decoder_config(with_field("eos_token_id", "[128001, 128008, 128009]"), "c").eos_token_id,
            (std::vector<std::int64_t>{128001, 128008, 128009}));
  EXPECT_TRUE(parse_decoder_config(with_field("eos_token_id", "null"), "c").eos_token_id.empty());
  EXPECT_TRUE(parse_decoder_config(with_field("eos_token_id", ""), "c").eos_token_id.empty());
}

TEST(DecoderConfig, HeadDimTimesHeadsNeedNotBeHidden) {
  // q_proj is [Hq·D, H]: Hq·D = 32·128 = 4096 ≠ H = 2048 is a valid Llama configuration.
  const DecoderConfig c = parse_decoder_config(with_field("head_dim", "128"), "c");
  EXPECT_EQ(c.head_dim, 128);
  const std::vector<DecoderTensorSpec> specs = decoder_tensor_specs(c);
  EXPECT_EQ(specs[2].name, "model.layers.0.self_attn.q_proj.weight");
  EXPECT_EQ(specs[2].shape, (std::vector<std::int64_t>{4096, 2048}));
  EXPECT_EQ(specs[5].name, "model.layers.0.self_attn.o_proj.weight");
  EXPECT_EQ(specs[5].shape, (std::vector<std::int64_t>{2048, 4096}));
}

TEST(DecoderConfig, EachBadFieldIsNamed) {
  const std::pair<std::string, std::string> cases[] = {
      {"hidden_size", "0"},  {"hidden_size", "2048.5"}, {"hidden_size", "\"2048\""}, {"hidden_size", ""},
      {"intermediate_size", "-1"}, {"intermediate_size", "16777217"}, {"num_hidden_layers", "0"},
      {"num_hidden_layers", "65537"}, {"num_attention_heads", ""},
      {"num_key_value_heads", "5"},  // does not divide 32
      {"head_dim", "63"},            // odd
      {"rms_norm_eps", "0"}, {"rms_norm_eps", "-1e-5"}, {"rms_norm_eps", "\"x\""},
      {"rope_theta", "0"}, {"vocab_size", "0"}, {"tie_word_embeddings", "1"},
      {"max_position_embeddings", "0"}, {"eos_token_id", "128256"}, {"eos_token_id", "[1, \"a\"]"},
      {"eos_token_id", "-1"}, {"model_type", "\"qwen2\""}, {"hidden_act", "\"gelu\""},
      {"attention_bias", "true"}, {"mlp_bias", "true"}, {"rope_scaling", "[]"}};
  for (const auto& [field, value] : cases) {
    const std::string e = error_of(with_field(field, value));
    EXPECT_EQ(e.rfind("cfg.json: " + field + ": ", 0), 0u) << field << " = " << value << ": " << e;
  }
}

TEST(DecoderConfig, RopeScalingIsLlama3OrNull) {
  EXPECT_FALSE(parse_decoder_config(with_field("rope_scaling", "null"), "c").rope_scaling);
  const std::pair<std::string, std::string> cases[] = {
      {R"({"rope_type": "linear", "factor": 2.0})", "rope_scaling.rope_type"},
      {R"({"type": "dynamic", "factor": 2.0})", "rope_scaling.rope_type"},
      {R"({"rope_type": "llama3", "factor": 32.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0})",
       "rope_scaling: original_max_position_embeddings"},
      {R"({"rope_type": "llama3", "factor": 0.5, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
           "original_max_position_embeddings": 8192})", "rope_scaling.factor"},
      {R"({"rope_type": "llama3", "factor": 8, "low_freq_factor": 4.0, "high_freq_factor": 4.0,
           "original_max_position_embeddings": 8192})", "rope_scaling.high_freq_factor"},
      {R"({"rope_type": "llama3", "factor": 8, "low_freq_factor": 0, "high_freq_factor": 4.0,
           "original_max_position_embeddings": 8192})", "rope_scaling.low_freq_factor"}};
  for (const auto& [value, field] : cases) {
    const std::string e = error_of(with_field("rope_scaling", value));
    EXPECT_EQ(e.rfind("cfg.json: " + field + ": ", 0), 0u) << value << ": " << e;
  }
  // The legacy key "type" is accepted for llama3.
  EXPECT_TRUE(parse_decoder_config(with_field("rope_scaling", R"({"type": "llama3", "factor": 8, "low_freq_factor": 1,
      "high_freq_factor": 4, "original_max_position_embeddings": 8192})"), "c").rope_scaling);
}

// Issue 24 §4: transformers 5 writes RoPE under rope_parameters (rope_theta inside) and a dtype
// field; the fixture t4-h256-llama3rope's config.json (../shared/fixtures/hf-decode), as written.
constexpr const char* kTransformers5Llama3 = R"({
  "architectures": ["LlamaForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
  "bos_token_id": 1, "dtype": "bfloat16", "eos_token_id": 2, "head_dim": 32, "hidden_act": "silu",
  "hidden_size": 256, "initializer_range": 0.06, "intermediate_size": 512, "max_position_embeddings": 512,
  "mlp_bias": false, "model_type": "llama", "num_attention_heads": 8, "num_hidden_layers": 4,
  "num_key_value_heads": 2, "pad_token_id": null, "pretraining_tp": 1, "rms_norm_eps": 1e-06,
  "rope_parameters": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                      "original_max_position_embeddings": 64, "rope_theta": 500000.0, "rope_type": "llama3"},
  "tie_word_embeddings": false, "transformers_version": "5.17.0", "use_cache": true, "vocab_size": 1000})";

// The t4 text with the value at a JSON pointer ("/rope_parameters/rope_type") set.
std::string v5_with(const std::string& pointer, const std::string& value) {
  nlohmann::json j = nlohmann::json::parse(kTransformers5Llama3);
  j[nlohmann::json::json_pointer(pointer)] = nlohmann::json::parse(value);
  return j.dump();
}

// Before issue 24 this file decoded with rope_theta 10000 and no scaling: rope_parameters was ignored.
TEST(DecoderConfig, Transformers5RopeParameters) {
  const DecoderConfig c = parse_decoder_config(kTransformers5Llama3, "cfg.json");
  EXPECT_EQ(c.rope_theta, 500000.0);
  ASSERT_TRUE(c.rope_scaling);
  EXPECT_EQ(c.rope_scaling->factor, 32.0);
  EXPECT_EQ(c.rope_scaling->original_max_position_embeddings, 64);
  EXPECT_EQ(rope_text(c), "llama3, rope_theta 500000, factor 32, low_freq_factor 1, high_freq_factor 4, "
                          "original_max_position_embeddings 64");
  const DecoderConfig d = parse_decoder_config(
      v5_with("/rope_parameters", R"({"rope_theta": 20000.0, "rope_type": "default"})"), "cfg.json");
  EXPECT_EQ(d.rope_theta, 20000.0);
  EXPECT_FALSE(d.rope_scaling);
  EXPECT_EQ(rope_text(d), "default, rope_theta 20000");
  // transformers' spelling of no scaling, in either form, is no scaling (refused before).
  EXPECT_FALSE(parse_decoder_config(with_field("rope_scaling", R"({"rope_type": "default"})"), "c").rope_scaling);
  // The same setting under both spellings, agreeing, is accepted.
  EXPECT_EQ(parse_decoder_config(v5_with("/rope_theta", "500000.0"), "c").rope_theta, 500000.0);
}

// Issue 24 §4: a field that changes the arithmetic is understood or refused, one line naming it;
// the same setting under two names that disagree is refused.
TEST(DecoderConfig, ArithmeticFieldsUnderstoodOrRefused) {
  const std::pair<std::string, std::string> cases[] = {
      {v5_with("/rope_theta", "10000.0"), "cfg.json: rope_theta: "},  // disagrees with rope_parameters
      {v5_with("/rope_scaling", R"({"rope_type": "default"})"), "cfg.json: rope_scaling: "},
      {v5_with("/rope_parameters/rope_type", R"("yarn")"), "cfg.json: rope_parameters.rope_type: "},
      {v5_with("/rope_parameters/beta_fast", "32"), "cfg.json: rope_parameters.beta_fast: "},
      {v5_with("/rope_parameters/partial_rotary_factor", "0.5"), "cfg.json: rope_parameters: partial_rotary_factor: "},
      {v5_with("/partial_rotary_factor", "0.5"), "cfg.json: partial_rotary_factor: "},
      {v5_with("/architectures", R"(["MistralForCausalLM"])"), "cfg.json: architectures: "},
      {v5_with("/pretraining_tp", "2"), "cfg.json: pretraining_tp: "},
      {v5_with("/sliding_window", "4096"), "cfg.json: sliding_window: "},
      {v5_with("/final_logit_softcapping", "30.0"), "cfg.json: final_logit_softcapping: "},
      {v5_with("/dtype", R"("float8_e4m3fn")"), "cfg.json: dtype: "},
      {v5_with("/torch_dtype", R"("float32")"), "cfg.json: dtype: "},  // disagrees with torch_dtype
      {with_field("rope_scaling", R"({"rope_type": "llama3", "factor": 32.0, "low_freq_factor": 1.0,
          "high_freq_factor": 4.0, "original_max_position_embeddings": 8192, "rope_theta": 1.0})"),
       "cfg.json: rope_scaling.rope_theta: "}};
  for (const auto& [text, prefix] : cases) {
    const std::string e = error_of(text);
    EXPECT_EQ(e.rfind(prefix, 0), 0u) << prefix << " | " << e;
  }
  // A field given twice (nlohmann::json would keep the last silently).
  const std::string twice = std::string(kTransformers5Llama3).substr(0, std::string(kTransformers5Llama3).size() - 1) +
                            R"(, "vocab_size": 512})";
  EXPECT_EQ(error_of(twice).rfind("cfg.json: vocab_size: given twice", 0), 0u) << error_of(twice);
  // Neutral values of the checked fields are accepted.
  EXPECT_NO_THROW(parse_decoder_config(v5_with("/sliding_window", "null"), "c"));
  EXPECT_NO_THROW(parse_decoder_config(v5_with("/partial_rotary_factor", "1.0"), "c"));
  EXPECT_NO_THROW(parse_decoder_config(v5_with("/torch_dtype", R"("bfloat16")"), "c"));
}

TEST(DecoderConfig, NotJsonOrNotAnObject) {
  EXPECT_EQ(error_of("{").rfind("cfg.json: not valid JSON", 0), 0u);
  EXPECT_EQ(error_of("[1]").rfind("cfg.json: not a JSON object", 0), 0u);
  try {
    read_decoder_config("/nonexistent/config.json");
    FAIL();
  } catch (const ModelFileError& e) {
    EXPECT_EQ(std::string(e.what()), "/nonexistent/config.json: cannot read: no such file");
  }
}

TEST(DecoderConfig, WrittenJsonReadsBackBitIdentical) {
  DecoderConfig c = decoder_preset("llama-3.2-1b-layer");
  c.rms_norm_eps = 0.1 + 0x1p-55;  // a double with no short decimal form
  c.eos_token_id = {5, 7};
  expect_same(parse_decoder_config(decoder_config_json(c), "c"), c);
  c.eos_token_id = {9};
  c.rope_scaling.reset();
  c.tie_word_embeddings = false;
  expect_same(parse_decoder_config(decoder_config_json(c), "c"), c);
  c.head_dim = 3;
  EXPECT_THROW(decoder_config_json(c), ModelFileError);
}

TEST(DecoderTensors, NamesShapesAndValidation) {
  DecoderConfig c = decoder_preset("tiny");
  std::vector<DecoderTensorSpec> specs = decoder_tensor_specs(c);
  ASSERT_EQ(specs.size(), 1 + 2 * 9 + 1u);  // tied: no lm_head
  EXPECT_EQ(specs[0].name, "model.embed_tokens.weight");
  EXPECT_EQ(specs[0].shape_text(), "[1000, 256]");
  EXPECT_EQ(specs[12].name, "model.layers.1.self_attn.k_proj.weight");
  EXPECT_EQ(specs[12].shape_text(), "[128, 256]");
  EXPECT_EQ(specs[19].name, "model.norm.weight");
  c.tie_word_embeddings = false;
  specs = decoder_tensor_specs(c);
  EXPECT_EQ(specs.back().name, "lm_head.weight");

  DecoderModel m = random_decoder_model(decoder_preset("tiny"), 1);
  EXPECT_NO_THROW(validate_decoder_model(m, "m"));
  m.weights.layers[1].down_proj.pop_back();
  try {
    validate_decoder_model(m, "m");
    FAIL();
  } catch (const ModelFileError& e) {
    EXPECT_EQ(std::string(e.what()),
              "m: model.layers.1.mlp.down_proj.weight: has 131071 elements, need [256, 512] = 131072");
  }
}

TEST(RandomDecoder, SeededScalesAndDuplicates) {
  const DecoderConfig c = decoder_preset("tiny");
  const DecoderModel a = random_decoder_model(c, 42), b = random_decoder_model(c, 42), d = random_decoder_model(c, 43);
  EXPECT_EQ(a.weights.embed_tokens, b.weights.embed_tokens);
  EXPECT_EQ(a.weights.layers[1].up_proj, b.weights.layers[1].up_proj);
  EXPECT_NE(a.weights.embed_tokens, d.weights.embed_tokens);
  EXPECT_NE(a.weights.layers[0].q_proj, a.weights.layers[0].k_proj);  // tensors draw different streams
  // Scales: matrices N(0, 0.02), norm weights 1 + N(0, 0.1). The margins are ≥ 4 standard errors
  // of the sample moments (σ/√n for the mean, σ/√(2n) for the deviation; n = 131072 and 256),
  // and the seed is fixed, so this checks the scales, not luck.
  const auto moments = [](const std::vector<std::uint16_t>& bits) {
    double s = 0, s2 = 0;
    for (std::uint16_t v : bits) {
      const double x = numerics::f32_from_bf16(v);
      s += x;
      s2 += x * x;
    }
    const double n = static_cast<double>(bits.size()), mean = s / n;
    return std::pair{mean, std::sqrt(s2 / n - mean * mean)};
  };
  const auto [m_mean, m_std] = moments(a.weights.layers[0].gate_proj);  // 131072 samples
  EXPECT_NEAR(m_mean, 0.0, 0.001);
  EXPECT_NEAR(m_std, 0.02, 0.0005);
  const auto [n_mean, n_std] = moments(a.weights.layers[0].input_layernorm);  // 256 samples
  EXPECT_NEAR(n_mean, 1.0, 0.03);
  EXPECT_NEAR(n_std, 0.1, 0.02);

  const DecoderModel dup = random_decoder_model(c, 42, {.duplicate_lm_head_rows = true});
  const std::size_t h = 256;
  for (std::size_t row = 0; row < 1000; row += 2)
    EXPECT_TRUE(std::equal(dup.weights.embed_tokens.begin() + static_cast<std::ptrdiff_t>(row * h),
                           dup.weights.embed_tokens.begin() + static_cast<std::ptrdiff_t>((row + 1) * h),
                           dup.weights.embed_tokens.begin() + static_cast<std::ptrdiff_t>((row + 1) * h)));
  EXPECT_NE(std::vector<std::uint16_t>(a.weights.embed_tokens.begin(), a.weights.embed_tokens.begin() + 256),
            std::vector<std::uint16_t>(a.weights.embed_tokens.begin() + 256, a.weights.embed_tokens.begin() + 512));
  EXPECT_THROW(decoder_preset("llama-70b"), std::invalid_argument);
}

}  // namespace
}  // namespace cdna::reference
