// Decode traces (docs/decode-traces.md): what one greedy decode run of any implementation left —
// its tokens, its logits at every generated step and, optionally, the residual stream entering
// every layer and the KV cache as it stored it — in one safetensors file (golden/safetensors.hpp),
// batch 1. The layout is the one of ../shared/fixtures/hf-decode (real transformers output).
//
// Tensors (T tokens, P prompt tokens, S = T − P generated steps, V vocabulary, H hidden size,
// n layers, Hkv KV heads, D head dim; values F32, or BF16 widened exactly):
//   tokens   I32 [T]            the prompt, then the S generated tokens
//   logits   F32 [S, V]         row s computed at position P − 1 + s; it chose tokens[P + s]
//   hidden.L F32 [T − 1, H]     optional, L = 0 … n: the residual stream entering layer L at
//                               positions 0 … T − 2 (hidden.0: the embedding rows); hidden.n: the
//                               final RMSNorm's output (what the LM head reads)
//   k.L, v.L F32 [T − 1, Hkv, D] optional, L < n: the KV cache after the run (k after RoPE)
// Metadata: "prompt_length" (P, decimal, 1 ≤ P < T) is required; every other key is kept as the
// producer's description (producer, versions, dtype, attention implementation).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "golden/safetensors.hpp"
#include "reference/decode/model.hpp"

namespace cdna::golden {

struct DecodeTrace {
  std::vector<std::int64_t> tokens;                 // [T]
  std::int64_t prompt_length = 0;                   // P
  std::int64_t vocab = 0;                           // V
  std::vector<float> logits;                        // [S, V]
  std::map<std::int64_t, std::vector<float>> hidden;  // L -> [T − 1, H], the layers present
  std::map<std::int64_t, std::vector<float>> k, v;    // L -> [T − 1, Hkv, D]
  std::map<std::string, std::string> metadata;      // as stored, prompt_length included

  std::int64_t steps() const { return static_cast<std::int64_t>(tokens.size()) - prompt_length; }  // S
  // The position step s ran at: P − 1 + s.
  std::int64_t position_of_step(std::int64_t s) const { return prompt_length - 1 + s; }
};

// Parses a trace of a run of `config`'s model: every tensor's name, dtype and shape (against T,
// P and the config: V, H, n, Hkv, D), the tokens in [0, V), prompt_length. A tensor the format
// does not define (another name, a layer past n, k/v of layer n) is refused, never ignored.
// Throws SafetensorsError, one line: "<label>: <tensor or key>: <what is wrong>, need <what
// would be right>" (the reader's own message for a malformed file).
DecodeTrace parse_decode_trace(const SafetensorsFile& file, const reference::DecoderConfig& config,
                               const std::string& label);
// read_safetensors + parse_decode_trace (label: the path).
DecodeTrace read_decode_trace(const std::filesystem::path& path, const reference::DecoderConfig& config);

// The file of a trace of `config`'s model (F32 values, I32 tokens, its metadata with
// prompt_length set). Throws std::invalid_argument (from make_f32 too) if a size disagrees with
// the tokens, prompt_length, vocab or the config's shapes.
SafetensorsFile decode_trace_file(const DecodeTrace& trace, const reference::DecoderConfig& config);

}  // namespace cdna::golden
