// Decode trace golden files (docs/golden-files.md, "Decode traces"): a decode trace of any
// implementation (decode_trace.hpp: transformers, vLLM, an engine, our monokernel) kept with the
// verdict `cdna-verify trace --golden-out` gave it — the model's identity, the declared profile,
// the reference, each step's exact token and verdict — sealed by a digest (digest.hpp), so that
// `golden decode-verify` can judge the stored run again and name what changed.
//
// Tensors (S generated steps): the trace's own, as stored in the trace (tokens, logits, hidden.L,
// k.L, v.L; decode_trace.hpp), and
//   exact_token  I32 [S]  the exact model's token after the run's prefix (−1: not decided)
//   step_verdict U8 [S]   the step's verdict: 0 match, 1 explained, 2 defect, 3 unclassified
//                         (audit::TraceStepVerdict, audit/decode/trace_judge.hpp)
// Metadata: format "cdna-verify decode trace golden v1"; model (the model folder's path as given);
// model_sha256 (decode_golden.hpp model_folder_sha256); profile (the declared profile as one line
// of a profile file stating every field, audit/decode/profile_file.hpp; "" for none); reference
// ("exact", "affine" or "ball"); layer_envelope ("affine" or "ball"); outcome ("PASS", "FAIL" or
// "NOT CLASSIFIED"); "trace.<key>" for each metadata key of the trace (prompt_length among them);
// digest.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "golden/safetensors.hpp"

namespace cdna::golden {

struct TraceGolden {
  SafetensorsFile trace;  // the trace's tensors and metadata, bit for bit as the trace file held them
  std::string model, model_sha256;
  std::string profile;                 // a profile file's text; empty: judged without a profile
  std::string reference = "exact", layer_envelope = "affine", outcome;
  std::vector<std::int32_t> exact_token;   // [S]
  std::vector<std::uint8_t> step_verdict;  // [S]
};

// The metadata format of trace golden files.
inline constexpr const char* kTraceGoldenFormat = "cdna-verify decode trace golden v1";

// The file's content with its digest. Throws std::invalid_argument if the trace has no tokens or
// prompt_length, a trace tensor is named like a golden tensor, or exact_token or step_verdict is
// not [S].
SafetensorsFile to_safetensors(const TraceGolden& g);
// Reads and checks a trace golden file: the format, the digest, the metadata keys (those above,
// nothing else) and values (reference, layer_envelope, outcome), exact_token and step_verdict
// [S] with S from the trace's tokens and prompt_length, every verdict code 0–3. The trace itself
// is parsed against its model later (parse_decode_trace). Throws SafetensorsError, one line naming
// the file and what is wrong.
TraceGolden read_trace_golden(const std::filesystem::path& path);
// The same for a file already read (its tensors are moved into the result); `label` names it in
// errors.
TraceGolden parse_trace_golden(SafetensorsFile file, const std::string& label);

}  // namespace cdna::golden
