// `cdna-verify golden decode-verify FILE [--model DIR]` (docs/golden-files.md, "Decode"): a decode
// golden file's balls and decisions re-derived from its model and stored tokens, bit for bit; a
// decode trace golden file (format golden::kTraceGoldenFormat) judged again by
// run_trace_golden_verify (trace_golden_verify.hpp), with `threads` (0: all cores).
#pragma once

#include <optional>
#include <string>

namespace cdna::audit {

// The model is --model DIR when given, else the file's own reference: a random model
// ("random:<preset>:<seed>[:dup]", regenerated) or the folder path (whose weight files must
// hash to the stored model_sha256). Its mode is checked against its code_object_sha256 (this
// build's decode monokernel of another mode: FAIL). The file is verified by
// golden::verify_decode_golden: its
// balls and decisions re-derived bit for bit, its run checked against its steps and eos, its
// kernel logits and tokens judged against its balls and decisions. Prints one line (PASS, FAIL
// naming what is wrong, or NOTHING JUDGED) and returns 0 PASS, 1 FAIL (also: the model is not
// the file's), 2 NOTHING JUDGED (every ball infinite or no token decided: nothing judged); throws
// (main: exit 2, one line) for a malformed or tampered file or an unreadable model.
int run_decode_verify(const std::string& path, const std::optional<std::string>& model_dir, unsigned threads = 0);

}  // namespace cdna::audit
