// `cdna-verify golden make`: a golden file from the user's own Q, K, V (docs/golden-files.md,
// "golden make"), so any bug report becomes a golden file in one command.
//
// Inputs, either
//   --from FILE.safetensors   tensors q [B,Sq,Hq,D], k and v [B,Sk,Hkv,D] (BSHD), dtype BF16
//                             (bits kept) or F32 (rounded to bf16 RTNE, numerics::bf16_from_f32);
//                             optional metadata "mask" and "scale"; other tensors are ignored;
//   --q FILE --k FILE --v FILE --shape B,Sq,Sk,Hq,Hkv,D   raw little-endian bf16, BSHD.
// Mask and scale: an option and the input's metadata may both give one; they must agree (same
// mask; same fp32 value), else it is an error. Neither: mask none, scale fl32(1/sqrt(D)).
// Errors (one line, exit 2, nothing written): a missing tensor or file, another dtype, ranks or
// extents that disagree, a byte count that is not the shape's, Hq not a multiple of Hkv, a
// non-finite or unparsable scale, an unknown mask, --out FILE with several modes. A problem our
// kernel does not take (D not 64/128, causal top-left) gets no o_kernel and the reason in
// metadata "kernel"; the file is still written.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace cdna::tools {

struct GoldenMakeOptions {
  std::string from;                 // safetensors input, or "" for raw files
  std::string q, k, v;              // raw bf16 inputs
  std::vector<std::int64_t> shape;  // B, Sq, Sk, Hq, Hkv, D (raw inputs only)
  std::string mask;                 // "" = from the input's metadata, else none
  std::string scale;                // "" = from the input's metadata, else fl32(1/sqrt(D))
  std::vector<std::string> modes{"rtne", "rtna", "rtz"};
  std::string out;                  // FILE.safetensors (one mode) or a directory
  std::string case_id, description;
  std::string executor = "simulator";
  std::vector<std::string> notes;   // KEY=VALUE -> metadata "note.KEY"
  unsigned threads = 0;
};

// Registers the options of `make` on `cmd`.
void add_golden_make_options(CLI::App& cmd, GoldenMakeOptions& o);

// Writes the golden files; prints one line per file. Returns 0; bad input throws (one line),
// which main turns into exit code 2, before any file is written.
int run_golden_make(const GoldenMakeOptions& o);

}  // namespace cdna::tools
