// Decode trace golden files (golden/trace_golden.hpp; docs/golden-files.md, "Decode traces"):
// written by `cdna-verify trace --golden-out`, verified by `golden decode-verify`. A file holds any
// implementation's trace with the verdict it was given; verifying it judges the stored run again
// (trace_judge.hpp) under the stored profile and reference and requires every step's exact token
// and verdict, and the outcome, to be the stored ones.
#pragma once

#include <optional>
#include <string>

#include "audit/decode/trace_judge.hpp"
#include "golden/safetensors.hpp"
#include "golden/trace_golden.hpp"

namespace cdna::audit {

// The golden file of `trace_file` (the trace as read, bit for bit) judged as `j`, of the model in
// `model_dir` (its weights hashed: golden::model_folder_sha256), under `profile` (nullptr: none,
// stored as "") with `reference` and `layer_method`. Throws std::invalid_argument for a
// profile the profile-file format cannot state.
golden::TraceGolden make_trace_golden(const golden::SafetensorsFile& trace_file, const TraceJudgement& j,
                                      const std::string& model_dir, const DeclaredProfile* profile,
                                      TraceReference reference, reference::EnvelopeMethod layer_method);

// `golden decode-verify` of a trace golden file. The model is --model DIR, else the stored path;
// its weights must hash to the stored model_sha256. The stored trace is parsed against it and
// judged again; the first step whose exact token or verdict differs from the stored one, or an
// outcome that differs, is a FAIL naming the step, both values and the judgement's first failure.
// Otherwise the stored run's own outcome is the verdict. Prints one line; returns 0 PASS, 1 FAIL
// (also: the model is not the file's, or the stored run has a defect, as the file records),
// 2 NOT CLASSIFIED; throws (main: exit 2, one line) for a trace that does not fit the model, an
// exact token or profile the file cannot hold, or an unreadable model.
// `g` was read from `path` (golden::read_trace_golden), which names the file in every line.
int run_trace_golden_verify(const golden::TraceGolden& g, const std::string& path,
                            const std::optional<std::string>& model_dir, unsigned threads);

}  // namespace cdna::audit
