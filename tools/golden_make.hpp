// `cdna-verify golden make`: a golden file from the user's own Q, K, V (docs/golden-files.md,
// "golden make"), so any bug report becomes a golden file in one command.
//
// Inputs, either
//   --from FILE.safetensors   tensors q [B,Sq,Hq,D], k [B,Sk,Hkv,D], v [B,Sk,Hkv,Dv] (BSHD), dtype
//                             BF16 (bits kept) or F32 (rounded to bf16 RTNE, numerics::bf16_from_f32),
//                             U8 with an fp8 --dtype (the patterns); varlen: q [rows_q,Hq,D], k, v
//                             [rows_k,Hkv,D|Dv] or paged [pages,page_size,Hkv,D|Dv]; optional
//                             metadata (mask, scale, window_left/right, softcap, dtype, page_size,
//                             layout, stride_*) and feature tensors (sinks, descale_*, cu_seqlens_*,
//                             seqstart_*, seqused_k, block_table) as a golden file v3 has them;
//   --q FILE --k FILE --v FILE --shape B,Sq,Sk,Hq,Hkv,D [--dv DV]   raw little-endian bf16 (or
//                             one byte per fp8 pattern), BSHD, dense only.
// Every feature: an option and the input's metadata or tensor may both give it; they must agree.
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
  std::vector<std::string> modes;    // empty: every mode the --kernel is built in
  std::string out;                  // FILE.safetensors (one mode) or a directory
  std::string case_id, description;
  std::string executor = "simulator";
  std::string kernel = "attention-fwd";  // whose output goes into o_kernel (an adapter name)
  std::string code_object;               // its code objects ("" = the adapter's own)
  std::vector<std::string> notes;   // KEY=VALUE -> metadata "note.KEY"
  // Extended definition (format v3); "" = from the input's metadata or tensors, else absent.
  std::string window;               // "L,R" (-1 = unbounded side)
  std::string softcap;              // c > 0, or 0 = none
  std::string sinks;                // Hq values "s0,s1,..." (-inf = none) or a file holding them
  std::int64_t dv = 0;              // raw inputs: Dv (0 = D)
  std::string dtype;                // bf16, fp8_e4m3fnuz, fp8_e5m2fnuz
  std::string descale_q, descale_k, descale_v;  // 1 or B*Hkv values
  std::string cu_seqlens_q, cu_seqlens_k, seqstart_q, seqstart_k, seqused_k;  // varlen (B+1 / B values)
  std::string page_size, block_table;          // paged KV: block_table row-major [B, pages_per_sequence]
  std::string layout;               // bshd, bhsd, sbhd, strided
  std::string stride_q, stride_k, stride_v, stride_o;  // layout strided: b,s,h,d element strides
  unsigned threads = 0;
};

// Registers the options of `make` on `cmd`.
void add_golden_make_options(CLI::App& cmd, GoldenMakeOptions& o);

// Writes the golden files; prints one line per file. Returns 0; bad input throws (one line),
// which main turns into exit code 2, before any file is written.
int run_golden_make(const GoldenMakeOptions& o);

}  // namespace cdna::tools
