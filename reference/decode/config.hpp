// Hugging Face config.json <-> DecoderConfig, and the list of a decoder's tensors (names and
// shapes) that the loader, the writer and the random models share. Field names, defaults and
// checks: docs/decode-semantics.md, "Model files".
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "reference/decode/model.hpp"

namespace cdna::reference {

// A config.json or weight file that is not a decoder this project runs: what() is one line,
// "<file>: <field or tensor>: <what is wrong>, need <what would be right>".
class ModelFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses config.json text, in the form of transformers 4 or 5 (docs/decode-semantics.md §1.7).
// Required: hidden_size, intermediate_size, num_hidden_layers, num_attention_heads, vocab_size
// (positive JSON integers). Optional, with Hugging Face LlamaConfig's defaults:
// num_key_value_heads (Hq), head_dim (H / Hq, which must then divide), rms_norm_eps (1e-6),
// tie_word_embeddings (false), max_position_embeddings (2048); eos_token_id: an integer, a list of
// integers, or null/absent (no EOS; LlamaConfig's default 2 is not assumed). RoPE: rope_theta
// (10000) and rope_scaling (transformers 4), or rope_parameters (5: rope_theta inside); rope_type
// "default" (no scaling) or "llama3" (factor, low_freq_factor, high_freq_factor,
// original_max_position_embeddings); any other type is refused by name; two spellings that
// disagree are refused. Checked, if present: model_type "llama", architectures
// ["LlamaForCausalLM"], hidden_act "silu", attention_bias and mlp_bias false, pretraining_tp 1,
// partial_rotary_factor 1.0, sliding_window null, use_sliding_window false, dtype / torch_dtype
// one of bfloat16, float16, float32 and agreeing. Any other field is refused unless it is one of
// the fields known to leave the arithmetic unchanged (token ids, training-only and bookkeeping
// fields). Numbers are the nearest doubles of the JSON text. Throws ModelFileError (label = the
// file name) for invalid JSON, a missing required field, a wrong JSON type, an unknown field, or a
// value outside its range (see validate_decoder_config).
DecoderConfig parse_decoder_config(std::string_view json_text, std::string_view label);
// The RoPE a configuration uses, for reports: "default, rope_theta 10000" or "llama3, rope_theta
// 500000, factor 32, low_freq_factor 1, high_freq_factor 4, original_max_position_embeddings 8192".
std::string rope_text(const DecoderConfig& config);
// Reads and parses a file; ModelFileError "<path>: cannot read: <reason>" if unreadable.
DecoderConfig read_decoder_config(const std::filesystem::path& path);

// Checks a configuration: sizes positive and ≤ 2^24 (layers ≤ 2^16), Hkv divides Hq, head_dim even, rms_norm_eps and
// rope_theta finite and > 0, llama3 factors finite with factor >= 1, 0 < low < high,
// original_max_position_embeddings > 0, every eos id in [0, V). H = Hq·D is not required (the
// projections are [Hq·D, H] and [H, Hq·D]). Throws ModelFileError "<label>: <field>: ...".
void validate_decoder_config(const DecoderConfig& config, std::string_view label);

// config.json text with the same field names (plus model_type "llama", architectures,
// hidden_act "silu", torch_dtype "bfloat16", attention_bias/mlp_bias false), doubles written so
// they read back bit-identical. Validates first (label "config").
std::string decoder_config_json(const DecoderConfig& config);

// One weight tensor of the decoder: its Hugging Face name, shape, and where DecoderWeights holds
// it (a member of DecoderWeights, or a member of layers[layer]).
struct DecoderTensorSpec {
  std::string name;
  std::vector<std::int64_t> shape;
  std::int64_t layer = -1;  // -1: a model-level tensor
  std::vector<std::uint16_t> DecoderWeights::*model_member = nullptr;
  std::vector<std::uint16_t> DecoderLayerWeights::*layer_member = nullptr;

  std::int64_t elements() const;
  std::string shape_text() const;  // "[V, H]" as numbers, e.g. "[1000, 256]"
};

// The tensors of a configuration in Hugging Face order: embed_tokens, each layer's
// input_layernorm, q/k/v/o_proj, post_attention_layernorm, gate/up/down_proj, then norm, then
// lm_head unless tie_word_embeddings. Shapes as in decode_model.hpp.
std::vector<DecoderTensorSpec> decoder_tensor_specs(const DecoderConfig& config);

// The weights' vector of a spec (weights.layers must have config.num_hidden_layers entries).
std::vector<std::uint16_t>& tensor_bits(DecoderWeights& weights, const DecoderTensorSpec& spec);
const std::vector<std::uint16_t>& tensor_bits(const DecoderWeights& weights, const DecoderTensorSpec& spec);

// validate_decoder_config, then every tensor's size against its shape and the layer count.
// Throws ModelFileError "<label>: <tensor>: has N elements, need [shape] = M".
void validate_decoder_model(const DecoderModel& model, std::string_view label);

}  // namespace cdna::reference
