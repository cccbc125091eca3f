// Hugging Face model folders: written folders read back bit-identical (single file and shards),
// and each kind of bad folder is refused with one line naming the file and the tensor or field.
#include "golden/decode_weights.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <unistd.h>

#include "golden/safetensors.hpp"
#include "numerics/bf16.hpp"
#include "reference/decode/random.hpp"

namespace cdna::golden {
namespace {

namespace fs = std::filesystem;
using reference::DecoderConfig;
using reference::DecoderModel;
using reference::ModelFileError;

DecoderConfig small(bool tied) {
  return {.hidden_size = 16, .intermediate_size = 24, .num_hidden_layers = 2, .num_attention_heads = 4,
          .num_key_value_heads = 2, .head_dim = 4, .rms_norm_eps = 1e-5, .rope_theta = 500000.0,
          .rope_scaling = std::nullopt, .vocab_size = 10, .tie_word_embeddings = tied,
          .max_position_embeddings = 64, .eos_token_id = {3}};
}

// A fresh folder per test, removed at the end.
class ModelFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cdna_decode_weights_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The one-line error of loading the folder (fails the test if it loads).
  std::string load_error() {
    try {
      load_decoder_model(dir_);
    } catch (const ModelFileError& e) {
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
      return e.what();
    }
    ADD_FAILURE() << "the folder loaded";
    return "";
  }

  // Rewrites model.safetensors after `edit`.
  template <class Edit>
  void edit_file(const std::string& file, Edit edit) {
    SafetensorsFile f = read_safetensors(dir_ / file);
    edit(f);
    write_safetensors(dir_ / file, f);
  }

  fs::path dir_;
};

void expect_identical(const DecoderModel& a, const DecoderModel& b) {
  EXPECT_EQ(reference::decoder_config_json(a.config), reference::decoder_config_json(b.config));
  for (const reference::DecoderTensorSpec& spec : reference::decoder_tensor_specs(a.config))
    EXPECT_EQ(tensor_bits(a.weights, spec), tensor_bits(b.weights, spec)) << spec.name;
  EXPECT_EQ(a.weights.lm_head, b.weights.lm_head);
}

TEST_F(ModelFolder, RoundTripSingleFile) {
  for (bool tied : {true, false}) {
    const DecoderModel m = reference::random_decoder_model(small(tied), 5);
    write_decoder_model(m, dir_);
    expect_identical(load_decoder_model(dir_), m);
    const SafetensorsFile f = read_safetensors(dir_ / "model.safetensors");
    EXPECT_EQ(f.metadata, (std::map<std::string, std::string>{{"format", "pt"}}));
    EXPECT_EQ(f.tensors.size(), tied ? 20u : 21u);
    EXPECT_EQ(f.at("model.layers.1.mlp.down_proj.weight", "f").shape, (std::vector<std::int64_t>{16, 24}));
  }
}

TEST_F(ModelFolder, RoundTripShards) {
  const DecoderModel m = reference::random_decoder_model(small(false), 6);
  write_decoder_model(m, dir_, {.shards = 3});
  EXPECT_FALSE(fs::exists(dir_ / "model.safetensors"));
  EXPECT_TRUE(fs::exists(dir_ / "model-00002-of-00003.safetensors"));
  expect_identical(load_decoder_model(dir_), m);
  // Rewritten as one file in the same folder: the stale index is removed, the new file wins.
  const DecoderModel other = reference::random_decoder_model(small(false), 7);
  write_decoder_model(other, dir_);
  expect_identical(load_decoder_model(dir_), other);
  EXPECT_THROW(write_decoder_model(m, dir_, {.shards = 0}), std::invalid_argument);
  EXPECT_THROW(write_decoder_model(m, dir_, {.shards = 22}), std::invalid_argument);
}

TEST_F(ModelFolder, MissingTensor) {
  write_decoder_model(reference::random_decoder_model(small(true), 8), dir_);
  edit_file("model.safetensors", [](SafetensorsFile& f) { f.tensors.erase("model.layers.1.self_attn.v_proj.weight"); });
  EXPECT_EQ(load_error(), dir_.string() + ": tensor 'model.layers.1.self_attn.v_proj.weight': missing, need BF16 [8, 16]");
}

TEST_F(ModelFolder, WrongShape) {
  write_decoder_model(reference::random_decoder_model(small(true), 9), dir_);
  edit_file("model.safetensors", [](SafetensorsFile& f) {
    Tensor& t = f.tensors.at("model.layers.0.self_attn.q_proj.weight");
    t.shape = {8, 32};  // same element count, transposed-looking
  });
  EXPECT_EQ(load_error(), (dir_ / "model.safetensors").string() +
                              ": tensor 'model.layers.0.self_attn.q_proj.weight': shape [8, 32], need [16, 16] (from config.json)");
}

TEST_F(ModelFolder, WrongDtype) {
  write_decoder_model(reference::random_decoder_model(small(true), 10), dir_);
  edit_file("model.safetensors", [](SafetensorsFile& f) {
    const std::vector<std::int32_t> v(16, 1);
    f.tensors["model.norm.weight"] = make_i32({16}, v);
  });
  EXPECT_EQ(load_error(), (dir_ / "model.safetensors").string() +
                              ": tensor 'model.norm.weight': dtype I32, need BF16 (or F32/F16 holding bf16 values)");
}

TEST_F(ModelFolder, Float32AcceptedOnlyWhenExact) {
  const DecoderModel m = reference::random_decoder_model(small(true), 11);
  write_decoder_model(m, dir_);
  // Widened bf16 values: converted back exactly.
  edit_file("model.safetensors", [&](SafetensorsFile& f) {
    std::vector<float> v;
    for (std::uint16_t b : m.weights.norm) v.push_back(numerics::f32_from_bf16(b));
    f.tensors["model.norm.weight"] = make_f32({16}, v);
  });
  expect_identical(load_decoder_model(dir_), m);
  // 0.1f is not a bf16 value: refused, not rounded.
  edit_file("model.safetensors", [](SafetensorsFile& f) {
    std::vector<float> v(16, 1.0f);
    v[4] = 0.1f;
    f.tensors["model.norm.weight"] = make_f32({16}, v);
  });
  EXPECT_EQ(load_error(), (dir_ / "model.safetensors").string() +
                              ": tensor 'model.norm.weight': F32 element 4 = 0.100000 is not a bf16 value, need BF16 "
                              "weights (converting would round)");
}

TEST_F(ModelFolder, ExtraTensorAndTiedHead) {
  const DecoderModel m = reference::random_decoder_model(small(true), 12);
  write_decoder_model(m, dir_);
  // A copy of the embedding as lm_head.weight in a tied model is accepted.
  edit_file("model.safetensors", [&](SafetensorsFile& f) { f.tensors["lm_head.weight"] = make_bf16({10, 16}, m.weights.embed_tokens); });
  expect_identical(load_decoder_model(dir_), m);
  edit_file("model.safetensors", [&](SafetensorsFile& f) {
    std::vector<std::uint16_t> other = m.weights.embed_tokens;
    other[3] ^= 1;
    f.tensors["lm_head.weight"] = make_bf16({10, 16}, other);
  });
  EXPECT_EQ(load_error(), (dir_ / "model.safetensors").string() +
                              ": tensor 'lm_head.weight': differs from model.embed_tokens.weight while tie_word_embeddings is "
                              "true, need a copy or none");
  edit_file("model.safetensors", [&](SafetensorsFile& f) {
    f.tensors.erase("lm_head.weight");
    const std::vector<std::uint16_t> bias(16, 0);
    f.tensors["model.layers.0.self_attn.q_proj.bias"] = make_bf16({16}, bias);
  });
  EXPECT_EQ(load_error(), (dir_ / "model.safetensors").string() +
                              ": tensor 'model.layers.0.self_attn.q_proj.bias': not a tensor of this decoder (biases, "
                              "inv_freq and extra layers are not supported), need none");
}

TEST_F(ModelFolder, TruncatedFileAndMissingFiles) {
  write_decoder_model(reference::random_decoder_model(small(true), 13), dir_);
  fs::resize_file(dir_ / "model.safetensors", fs::file_size(dir_ / "model.safetensors") - 2);
  const std::string e = load_error();
  EXPECT_EQ(e.rfind((dir_ / "model.safetensors").string() + ": ", 0), 0u) << e;
  fs::remove(dir_ / "model.safetensors");
  EXPECT_EQ(load_error().rfind((dir_ / "model.safetensors").string() + ": cannot read", 0), 0u);
  fs::remove(dir_ / "config.json");
  EXPECT_EQ(load_error(), (dir_ / "config.json").string() + ": cannot read: no such file");
}

TEST_F(ModelFolder, BadIndex) {
  write_decoder_model(reference::random_decoder_model(small(false), 14), dir_, {.shards = 2});
  const fs::path index = dir_ / "model.safetensors.index.json";
  const auto write_index = [&](const std::string& text) { std::ofstream(index) << text; };
  // A tensor the index places in the wrong shard.
  {
    std::ifstream in(index);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string from = "\"model.norm.weight\": \"model-00002-of-00002.safetensors\"";
    ASSERT_NE(text.find(from), std::string::npos);
    text.replace(text.find(from), from.size(), "\"model.norm.weight\": \"model-00001-of-00002.safetensors\"");
    write_index(text);
  }
  EXPECT_EQ(load_error(), (dir_ / "model-00001-of-00002.safetensors").string() +
                              ": tensor 'model.norm.weight': listed in model.safetensors.index.json but not in this shard");
  write_index(R"({"weight_map": {"model.norm.weight": "../x.safetensors"}})");
  EXPECT_EQ(load_error(), index.string() +
                              ": weight_map: 'model.norm.weight' -> \"../x.safetensors\", need the name of a shard file in "
                              "the folder");
  write_index(R"({"metadata": {}})");
  EXPECT_EQ(load_error(), index.string() + ": weight_map: missing, need an object of tensor name -> shard file");
  write_index(R"({"weight_map": {"model.norm.weight": "model-00002-of-00002.safetensors"}})");
  // The shard holds tensors the index does not list.
  EXPECT_EQ(load_error(), (dir_ / "model-00002-of-00002.safetensors").string() +
                              ": tensor 'lm_head.weight': not listed in the index's weight_map, need it listed");
}

}  // namespace
}  // namespace cdna::golden
