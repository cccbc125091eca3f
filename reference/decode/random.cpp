#include "reference/decode/random.hpp"
#include "reference/common/splitmix64.hpp"

#include <algorithm>
#include <stdexcept>

#include "numerics/bf16.hpp"
#include "reference/decode/config.hpp"
#include "reference/common/randn.hpp"

namespace cdna::reference {
namespace {

bool is_norm(const DecoderTensorSpec& spec) { return spec.shape.size() == 1; }

}  // namespace

DecoderConfig decoder_preset(std::string_view name) {
  if (name == "tiny")
    return {.hidden_size = 256, .intermediate_size = 512, .num_hidden_layers = 2, .num_attention_heads = 4,
            .num_key_value_heads = 2, .head_dim = 64, .rms_norm_eps = 1e-5, .rope_theta = 500000.0,
            .rope_scaling = std::nullopt, .vocab_size = 1000, .tie_word_embeddings = true,
            .max_position_embeddings = 8192, .eos_token_id = {}};
  if (name == "micro")
    return {.hidden_size = 32, .intermediate_size = 64, .num_hidden_layers = 1, .num_attention_heads = 4,
            .num_key_value_heads = 2, .head_dim = 8, .rms_norm_eps = 1e-5, .rope_theta = 10000.0,
            .rope_scaling = std::nullopt, .vocab_size = 200, .tie_word_embeddings = true,
            .max_position_embeddings = 4096, .eos_token_id = {}};
  if (name == "llama-3.2-1b-layer")
    return {.hidden_size = 2048, .intermediate_size = 8192, .num_hidden_layers = 1, .num_attention_heads = 32,
            .num_key_value_heads = 8, .head_dim = 64, .rms_norm_eps = 1e-5, .rope_theta = 500000.0,
            .rope_scaling = Llama3RopeScaling{32.0, 1.0, 4.0, 8192}, .vocab_size = 128256,
            .tie_word_embeddings = true, .max_position_embeddings = 131072, .eos_token_id = {}};
  if (name == "llama-3.2-1b") {
    DecoderConfig c = decoder_preset("llama-3.2-1b-layer");
    c.num_hidden_layers = 16;
    return c;
  }
  throw std::invalid_argument("unknown model preset '" + std::string(name) +
                              "', need micro, tiny, llama-3.2-1b-layer or llama-3.2-1b");
}

std::vector<std::string> decoder_preset_names() { return {"micro", "tiny", "llama-3.2-1b-layer", "llama-3.2-1b"}; }

DecoderModel random_decoder_model(const DecoderConfig& config, std::uint64_t seed, const RandomModelOptions& options) {
  validate_decoder_config(config, "random model config");
  DecoderModel m;
  m.config = config;
  m.weights.layers.resize(static_cast<std::size_t>(config.num_hidden_layers));
  const std::vector<DecoderTensorSpec> specs = decoder_tensor_specs(config);
  for (std::size_t k = 0; k < specs.size(); ++k) {
    const auto n = static_cast<std::size_t>(specs[k].elements());
    const std::uint64_t s = splitmix64(seed + k);
    std::vector<std::uint16_t>& bits = tensor_bits(m.weights, specs[k]);
    if (!is_norm(specs[k])) {
      bits = randn_bf16(n, s, options.matrix_std);
      continue;
    }
    bits = randn_bf16(n, s, options.norm_std);
    for (std::uint16_t& b : bits)
      b = numerics::bf16_from_f32(1.0f + numerics::f32_from_bf16(b), numerics::Rounding::RTNE);
  }
  if (options.duplicate_lm_head_rows) {
    std::vector<std::uint16_t>& head = config.tie_word_embeddings ? m.weights.embed_tokens : m.weights.lm_head;
    const auto h = static_cast<std::size_t>(config.hidden_size);
    for (std::size_t row = 0; row + 1 < static_cast<std::size_t>(config.vocab_size); row += 2)
      std::copy_n(head.begin() + static_cast<std::ptrdiff_t>(row * h), h, head.begin() + static_cast<std::ptrdiff_t>((row + 1) * h));
  }
  return m;
}

}  // namespace cdna::reference
