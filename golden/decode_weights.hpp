// Hugging Face model folders of a Llama decoder: config.json plus model.safetensors, or plus
// model.safetensors.index.json whose "weight_map" names the shard file of every tensor.
// Accepted: docs/decode-semantics.md, "Model files". (Here and not in reference/ because it
// uses golden/safetensors.hpp, and cdna_golden already depends on cdna_reference.)
#pragma once

#include <filesystem>

#include "reference/decode/config.hpp"
#include "reference/decode/model.hpp"

namespace cdna::golden {

// Loads and checks a model folder. Every tensor of decoder_tensor_specs(config) must be present
// with its exact shape, as BF16 — or as F32/F16 whose every value is a bf16 value (widened bf16,
// converted exactly; anything else is refused, never rounded). lm_head.weight in a tied model is
// accepted only if bit-identical to the embedding. Any other tensor (biases, rotary inv_freq, a
// layer beyond num_hidden_layers) is refused. Throws reference::ModelFileError, one line naming
// the file and the tensor or field: "<file>: tensor '<name>': <what>, need <what would be right>",
// for a missing, extra, wrongly shaped or typed tensor, a malformed or truncated safetensors file
// (the reader's message), a bad index or config.json.
reference::DecoderModel load_decoder_model(const std::filesystem::path& folder);

struct ModelWriteOptions {
  int shards = 1;  // 1: model.safetensors; n > 1: model-0000k-of-0000n.safetensors + index
};

// Writes a folder load_decoder_model reads back bit-identical: config.json
// (reference::decoder_config_json) and the tensors as BF16 under their Hugging Face names with
// metadata {"format": "pt"}; with shards > 1, tensors split in spec order into that many files
// and model.safetensors.index.json ({"metadata": {"total_size": bytes}, "weight_map": ...}).
// Creates the folder if needed; each file is written atomically, config.json last (a folder
// without it is incomplete). Throws ModelFileError if the model fails validate_decoder_model,
// std::invalid_argument for shards < 1 or more shards than tensors, std::runtime_error if a file
// cannot be written.
void write_decoder_model(const reference::DecoderModel& model, const std::filesystem::path& folder,
                         const ModelWriteOptions& options = {});

}  // namespace cdna::golden
