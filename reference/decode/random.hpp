// Seeded random decoders with realistic scales (issue 11 §1), and the named shape presets.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "reference/decode/model.hpp"

namespace cdna::reference {

// The preset configurations:
//   "micro": 1 layer, H 32, I 64, Hq 4, Hkv 2, D 8, V 200, tied, rope_theta 10000, no
//     rope_scaling, rms_norm_eps 1e-5, max_position_embeddings 4096, no EOS — small enough that the
//     certified bounds decide its steps (docs/decode-bounds.md §12), two query heads per KV head;
//   "tiny": 2 layers, H 256, I 512, Hq 4, Hkv 2, D 64, V 1000, tied, rope_theta 500000, no
//     rope_scaling, rms_norm_eps 1e-5, max_position_embeddings 8192, no EOS;
//   "llama-3.2-1b-layer": Llama-3.2-1B's shapes with 1 layer: H 2048, I 8192, Hq 32, Hkv 8, D 64,
//     V 128256, tied, rope_theta 500000, llama3 rope_scaling (factor 32, low 1, high 4,
//     original 8192), rms_norm_eps 1e-5, max_position_embeddings 131072, no EOS (Llama-3.2-1B's
//     config.json on the Hugging Face hub);
//   "llama-3.2-1b": the same with Llama-3.2-1B's 16 layers (1.24·10⁹ weights, 2.5 GB in bf16).
// Throws std::invalid_argument naming the presets for any other name.
DecoderConfig decoder_preset(std::string_view name);
std::vector<std::string> decoder_preset_names();

struct RandomModelOptions {
  double norm_std = 0.1;     // norm weights: 1 + norm_std·N(0, 1)
  double matrix_std = 0.02;  // matrices and the embedding: matrix_std·N(0, 1)
  // Rows 2i + 1 of the LM head matrix copied from rows 2i (with tied embeddings: the embedding
  // rows), so that logits 2i and 2i + 1 are exactly equal in the definition (tie tests).
  bool duplicate_lm_head_rows = false;
};

// A model of `config` (validated: ModelFileError "random model config: <field>: ..." if bad) whose
// tensors, in decoder_tensor_specs order k = 0, 1, ..., are drawn by randn_bf16 (reference/common/randn.hpp:
// std::mt19937_64, own Box–Muller, rounded to bf16 RTNE) with seed splitmix64(seed + k) — so a
// tensor's bits depend only on (seed, k, its size). Norm weights are 1 + the bf16 deviate (in fp32),
// rounded to bf16 RTNE again. The same seed always gives the same bits.
DecoderModel random_decoder_model(const DecoderConfig& config, std::uint64_t seed,
                                  const RandomModelOptions& options = {});

}  // namespace cdna::reference
