// A Llama-architecture decoder as the decode definition, the fast reference, the bound envelope
// and the monokernel's launcher all see it: configuration (Hugging Face config.json field
// names) and bf16 weights (Hugging Face tensor names). Normative text: docs/decode-semantics.md.
//
// Shapes (row-major, bf16 bit patterns; H = hidden_size, I = intermediate_size,
// Hq = num_attention_heads, Hkv = num_key_value_heads, D = head_dim, V = vocab_size):
//   model.embed_tokens.weight                       [V, H]
//   model.layers.{l}.input_layernorm.weight          [H]
//   model.layers.{l}.self_attn.q_proj.weight         [Hq*D, H]   (y = W x: row i is output i)
//   model.layers.{l}.self_attn.k_proj.weight         [Hkv*D, H]
//   model.layers.{l}.self_attn.v_proj.weight         [Hkv*D, H]
//   model.layers.{l}.self_attn.o_proj.weight         [H, Hq*D]
//   model.layers.{l}.post_attention_layernorm.weight [H]
//   model.layers.{l}.mlp.gate_proj.weight            [I, H]
//   model.layers.{l}.mlp.up_proj.weight              [I, H]
//   model.layers.{l}.mlp.down_proj.weight            [H, I]
//   model.norm.weight                                [H]
//   lm_head.weight                                   [V, H]   (absent when tie_word_embeddings:
//                                                              the embedding matrix is used)
// RoPE follows the Hugging Face Llama convention ("rotate_half"): within a head, element i < D/2
// pairs with element i + D/2, frequency index i.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cdna::reference {

// rope_scaling of "rope_type": "llama3" (Llama 3.1/3.2); absent: plain RoPE.
struct Llama3RopeScaling {
  double factor = 8.0;
  double low_freq_factor = 1.0;
  double high_freq_factor = 4.0;
  std::int64_t original_max_position_embeddings = 8192;
};

// The config.json fields the definition reads (same names). Others are ignored.
struct DecoderConfig {
  std::int64_t hidden_size = 256;            // H
  std::int64_t intermediate_size = 512;      // I
  std::int64_t num_hidden_layers = 2;        // L
  std::int64_t num_attention_heads = 4;      // Hq
  std::int64_t num_key_value_heads = 2;      // Hkv; query head h reads KV head h / (Hq / Hkv)
  std::int64_t head_dim = 64;                // D (even); config.json may omit it: H / Hq
  double rms_norm_eps = 1e-5;
  double rope_theta = 500000.0;
  std::optional<Llama3RopeScaling> rope_scaling;
  std::int64_t vocab_size = 1000;            // V
  bool tie_word_embeddings = true;
  std::int64_t max_position_embeddings = 8192;  // upper bound on positions (prompt + steps)
  std::vector<std::int64_t> eos_token_id;    // config.json: an int or a list; may be empty
};

// All weights as bf16 bit patterns, shapes as in the header comment.
struct DecoderLayerWeights {
  std::vector<std::uint16_t> input_layernorm, q_proj, k_proj, v_proj, o_proj;
  std::vector<std::uint16_t> post_attention_layernorm, gate_proj, up_proj, down_proj;
};

struct DecoderWeights {
  std::vector<std::uint16_t> embed_tokens;
  std::vector<DecoderLayerWeights> layers;
  std::vector<std::uint16_t> norm;
  std::vector<std::uint16_t> lm_head;  // empty when config.tie_word_embeddings

  // The LM head matrix [V, H]: lm_head, or embed_tokens when tied.
  const std::vector<std::uint16_t>& lm_head_matrix(const DecoderConfig& config) const {
    return config.tie_word_embeddings ? embed_tokens : lm_head;
  }
};

struct DecoderModel {
  DecoderConfig config;
  DecoderWeights weights;
};

}  // namespace cdna::reference
