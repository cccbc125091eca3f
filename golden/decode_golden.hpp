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

// The metadata format of decode golden files.
inline constexpr const char* kDecodeGoldenFormat = "cdna-verify decode golden v1";

// The file's content with its digest. Throws std::invalid_argument if the sizes disagree.
SafetensorsFile to_safetensors(const DecodeGolden& g);
// Reads and checks a decode golden file: the format key, the digest, every tensor's dtype and
// shape, and the metadata. Throws SafetensorsError, one line naming the file and what is wrong.
DecodeGolden read_decode_golden(const std::filesystem::path& path);
// The same for a file already read; `label` names it in errors.
DecodeGolden parse_decode_golden(const SafetensorsFile& file, const std::string& label);

// SHA-256 identifying a model folder's weights (see above): the .safetensors files in it.
std::string model_folder_sha256(const std::filesystem::path& folder);

// What verify_decode_golden found. Pass: nothing failed, at least one token was decided and
// compared and at least one logit judged against a finite ball; NothingJudged: nothing failed
// but nothing was judged (every ball infinite, every step ambiguous); Fail: `failure`.
enum class DecodeGoldenOutcome { pass, fail, nothing_judged };
struct DecodeGoldenVerdict {
  DecodeGoldenOutcome outcome = DecodeGoldenOutcome::fail;
  std::string failure;  // the first failure, one line; empty unless fail
  std::int64_t positions = 0;       // positions whose balls were re-derived
  std::int64_t choosing = 0, decided = 0, matched = 0, ambiguous = 0;
  std::int64_t logits_finite = 0;   // kernel logits judged against a finite ball
  std::int64_t logits_outside = 0;  // of those, outside it
};

// Verifies a decode golden file against `model`, position by position:
//  - the run against its metadata: at most `steps` tokens; fewer only when the last is an `eos`
//    id or −1 (stopped on NaN); no earlier token an eos id; eos ids in [0, V);
//  - the balls and decisions re-derived (the envelope of g.arithmetic in g.mode with g.envelope,
//    fed the prompt and then the stored kernel tokens) must equal the stored bits; a difference
//    names the position, the logit and both balls, and the mode or envelope whose balls they are
//    when another one re-derives them;
//  - the stored run judged: every kernel logit against its ball (judge_step), every kernel token
//    of a decided position against the decided token, naming the step, position, value and ball.
// Every position is judged (the counts are complete) unless a re-derivation differs (then it
// stops there: the later balls are not the file's).
DecodeGoldenVerdict verify_decode_golden(const DecodeGolden& g, const reference::DecoderModel& model);
// The metadata keys of a decode golden file; read_decode_golden refuses any other.
const std::vector<std::string>& decode_golden_keys();

}  // namespace cdna::golden
