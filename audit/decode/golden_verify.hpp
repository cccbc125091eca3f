// `cdna-verify golden decode-verify FILE [--model DIR]` (docs/golden-files.md, "Decode"): a decode
// golden file's balls and decisions re-derived from its model and stored tokens, bit for bit.
#pragma once

#include <optional>
#include <string>

namespace cdna::audit {

// The model is --model DIR when given, else the file's own reference: a random model
// ("random:<preset>:<seed>[:dup]", regenerated) or the folder path (whose weight files must
// hash to the stored model_sha256). Returns 0 when every stored number is re-derived bit for bit,
// 1 when one differs or the model is not the file's (one line on stdout saying which); throws
// (main: exit 2, one line) for a malformed or tampered file or an unreadable model.
int run_decode_verify(const std::string& path, const std::optional<std::string>& model_dir);

}  // namespace cdna::audit
