// Decode golden files (docs/golden-files.md, "Decode"): one safetensors file per decode run, with
// the run's tokens, the envelope's per-logit balls and certified decisions at every position, and
// the kernel's fp32 logits; metadata name the model, the mode and the arithmetic, and a digest
// (golden/digest.hpp) covers everything, so an edited file is refused.
//
// Tensors (P positions run, V vocabulary, T generated tokens):
//   prompt I32 [prompt length] | kernel_tokens I32 [T] | logit_mid F64 [P, V] | logit_rad F64 [P, V]
//   decided U8 [P] (1: decided or NaN-decided, 0: ambiguous) | decided_token I32 [P] (−1 ambiguous)
//   kernel_logits F32 [P, V]
// Metadata: format "cdna-verify decode golden v1", model ("random:<preset>:<seed>[:dup]" or the
// folder path), model_sha256 (folders: SHA-256 over each weight file's name and SHA-256, in name
// order; "" for random models), mode ("rtne"…), arithmetic ("monokernel"), envelope ("ball" or
// "affine": the EnvelopeMethod of the balls), steps, eos
// (comma-separated ids), code_object_sha256, digest.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "golden/safetensors.hpp"
#include "numerics/bf16.hpp"
#include "reference/decode/model.hpp"

namespace cdna::golden {

struct DecodeGolden {
  std::string model, model_sha256, arithmetic = "monokernel", code_object_sha256;
  std::string envelope = "affine";  // reference::EnvelopeMethod: "ball" or "affine"
  numerics::Rounding mode = numerics::Rounding::RTNE;
  std::int64_t steps = 0, vocab = 0;
  std::vector<std::int64_t> eos, prompt, kernel_tokens;
  std::vector<double> mid, rad;           // [positions, V]
  std::vector<std::uint8_t> decided;      // [positions]
  std::vector<std::int32_t> decided_token;  // [positions]
  std::vector<float> kernel_logits;       // [positions, V]
  std::int64_t positions() const { return static_cast<std::int64_t>(decided.size()); }
};

// The file's content with its digest. Throws std::invalid_argument if the sizes disagree.
SafetensorsFile to_safetensors(const DecodeGolden& g);
// Reads and checks a decode golden file: the format key, the digest, every tensor's dtype and
// shape, and the metadata. Throws SafetensorsError, one line naming the file and what is wrong.
DecodeGolden read_decode_golden(const std::filesystem::path& path);

// SHA-256 identifying a model folder's weights (see above): the .safetensors files in it.
std::string model_folder_sha256(const std::filesystem::path& folder);

// Re-derives the balls and decisions of `g` from `model` (the envelope of g.arithmetic in g.mode,
// fed the prompt and then the stored kernel tokens) and compares every stored number bit for bit.
// Returns "" when all agree, else one line naming the first difference.
std::string verify_decode_golden(const DecodeGolden& g, const reference::DecoderModel& model);

}  // namespace cdna::golden
