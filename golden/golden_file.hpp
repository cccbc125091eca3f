// A golden file: one attention-forward problem, its exact result, and what a correct bf16 kernel
// with one declared rounding mode may and must deviate from it, in a plain safetensors file that
// any safetensors reader opens (format and metadata keys: docs/golden-files.md).
//
// Tensors of a dense file (BSHD, row-major; B, Sq, Sk, Hq, Hkv, D, Dv as in reference::AttentionShape):
//   q          BF16 [B, Sq, Hq, D]     inputs, bf16 bit patterns (U8: fp8 patterns, format v3)
//   k          BF16 [B, Sk, Hkv, D]
//   v          BF16 [B, Sk, Hkv, Dv]
//   o_exact    F64  [B, Sq, Hq, Dv]    reference::attention_forward_exact (MPFR, 128 bits)
//   lse_exact  F64  [B, Hq, Sq]        natural log; -inf for rows without a visible key
//   o_bound    F64  [B, Sq, Hq, Dv]    reference::attention_bounds: |O_kernel - O_exact| allowed
//   lse_bound  F64  [B, Hq, Sq]        the same for LSE (0 where the row must be exact, NaN where
//                                      the definition gives NaN)
//   o_floor    F64  [B, Sq, Hq, Dv]    reference::attention_floor_output in the file's mode
//   o_kernel   BF16 [B, Sq, Hq, Dv]    optional: what our kernel's code object computes (bits)
//   lse_kernel F32  [B, Hq, Sq]        present exactly when o_kernel is
// Format v3 adds sinks F32 [Hq], descale_q/k/v F32 [1] or [B, Hkv], and for varlen files
// (reference::VarlenProblem) cu_seqlens_q/k, seqstart_q/k, seqused_k, block_table (I32), with
// q [rows_q, Hq, D], k/v [rows_k, Hkv, D|Dv] or [pages, page_size, Hkv, D|Dv], O tensors
// [rows_q, Hq, Dv] and LSE tensors [Hq, rows_q]. Full list: docs/golden-files.md.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "golden/layout.hpp"
#include "golden/safetensors.hpp"
#include "numerics/bf16.hpp"
#include "reference/attention/attention.hpp"
#include "reference/attention/compare.hpp"
#include "reference/attention/varlen.hpp"

namespace cdna::golden {

// The value of the metadata key "format" of every golden file written now. v3 (over v2): the
// extended definition (Dv, window, soft cap, sinks, fp8 dtype and descale factors, varlen and
// paged KV, the layout a kernel is run with). v2 (over v1): a "digest" key is required and
// checked, and metadata keys outside the format's list, the tools' provenance keys and "note.*"
// are refused. v2 files are still read (base definition, BSHD); v1 files are refused with a line
// saying to regenerate them.
inline constexpr const char* kGoldenFormat = "cdna-verify golden attention-forward v3";
inline constexpr const char* kGoldenFormatV2 = "cdna-verify golden attention-forward v2";
inline constexpr const char* kGoldenFormatV1 = "cdna-verify golden attention-forward v1";
// Free provenance a user adds (golden make --note KEY=VALUE) goes under this prefix.
inline constexpr const char* kNotePrefix = "note.";

// A kernel's outputs: O bf16 bits [B, Sq, Hq, Dv], LSE fp32 [B, Hq, Sq] (varlen: [rows_q, Hq, Dv],
// [Hq, rows_q]).
struct KernelOutput {
  std::vector<std::uint16_t> o;
  std::vector<float> lse;  // empty for a kernel without an LSE output (no lse_kernel tensor)
  // The LSE to judge: nullopt for a kernel without one (judge_candidate then judges O only).
  std::optional<std::span<const float>> judged_lse() const {
    if (lse.empty()) return std::nullopt;
    return std::span<const float>(lse);
  }
};

// "O rows first..last (every batch and head) equal V row `key` bit for bit": a fact of the
// definition for the handed cases whose rows see one key, or only equal keys (C01, C02 top-left,
// C03, C06); the audit checks the same (audit/cases/audit_cases.cpp). Metadata "fact_o_equals_v":
// "FIRST-LAST:KEY".
struct RowsEqualV {
  std::int64_t first = 0, last = 0, key = 0;
};

struct GoldenFile {
  std::string case_id;      // "C03", "grid/sq5-sk20/causal_bottom_right"
  std::string description;  // one line
  // A dense file's problem. A varlen file's sequences are `varlen` (its base holds the
  // features); `problem` is then unused.
  reference::AttentionProblem problem;
  std::optional<reference::VarlenProblem> varlen;
  // Dense files: the strides a kernel is run with (v2 files: bshd). A named layout with all
  // strides 0 (the default) is written with that layout's own strides.
  Layout layout;
  int format_version = 3;  // the version read (2 or 3); files are always written as v3
  numerics::Rounding mode = numerics::Rounding::RTNE;
  // Provenance written into the metadata as it is: the tools' keys (seeds, inputs, executor,
  // generated_by, reduction, kernel_code_object, kernel, kernel_adapter, source_q/k/v; is_provenance_key) and
  // free keys "note.<name>". Any other key makes to_safetensors throw.
  std::map<std::string, std::string> provenance;
  std::optional<RowsEqualV> fact_o_equals_v;

  reference::AttentionResult exact;
  std::vector<double> o_bound, lse_bound, o_floor;
  std::optional<KernelOutput> kernel;

  // The features (mask, scale, window, cap, sinks, dtype, descale, heads, D, Dv) of every row.
  const reference::AttentionProblem& features() const { return varlen ? varlen->base : problem; }
  // Shapes of the O tensors and LSE tensors: [B, Sq, Hq, Dv], [B, Hq, Sq]; varlen [rows_q, Hq, Dv], [Hq, rows_q].
  std::vector<std::int64_t> o_shape() const;
  std::vector<std::int64_t> lse_shape() const;
  std::int64_t o_elements() const;
  std::int64_t lse_elements() const;
};

// The metadata keys formats v2 and v3 define (a golden file of either version is a valid input
// of `golden make`).
const std::vector<std::string>& metadata_keys();
// The keys every file of `version` (2 or 3) and kind must have (v3: dense, varlen, paged).
std::vector<std::string> required_metadata_keys(int version, bool varlen, bool paged);
// True for a provenance key: one the tools write, or "note." followed by at least one character.
bool is_provenance_key(const std::string& key);

// Fills exact (the MPFR oracle at 128 bits with `threads` workers, 0 = all cores), o_bound,
// lse_bound (reference::attention_bounds) and o_floor (reference::attention_floor_output) from
// g.problem and g.mode; for a varlen file reference::varlen_forward_exact, varlen_bounds and
// varlen_floor_output from g.varlen. Throws std::invalid_argument for an invalid problem (or one
// with a feature a reference component does not take yet: require_base_definition).
void compute_reference_values(GoldenFile& g, unsigned threads = 0);

// To and from the safetensors form; to_safetensors writes the digest (golden/digest.hpp).
// from_safetensors checks everything, in this order: the format key (v1: refused, regenerate;
// v2 and v3 read, each with its own keys);
// no metadata key outside the format's, the tools' provenance keys and "note.*" ("metadata key
// 'softcap' is not part of golden format v2 ..."); the digest present and equal to the recomputed
// one ("digest mismatch: the file was modified after it was written ..."); every defined
// metadata key, the shape extents (0 .. 2^31 - 1, Hq a multiple of Hkv, D >= 1,
// Hkv >= 1), mask and rounding names, that scale (exact decimal) and scale_hex denote the same
// fp32 value, every tensor's dtype and shape, no unknown tensor, o_kernel and lse_kernel together,
// the v3 feature keys and tensors and their combinations (a block_table needs page_size, varlen
// tensors need cu_seqlens_q, a layout's strides must be its own), a valid problem
// (reference::validate, for varlen files the VarlenProblem's), and the stored values' sanity
// (stored_values_problem, golden/stored_values.hpp). Throws SafetensorsError "<label>: <what is
// wrong>". write_golden refuses (std::runtime_error) a GoldenFile whose stored values fail that
// sanity check, so no tool writes a file its readers refuse.
SafetensorsFile to_safetensors(const GoldenFile& g);
GoldenFile from_safetensors(const SafetensorsFile& file, const std::string& label);

GoldenFile read_golden(const std::filesystem::path& path);
void write_golden(const std::filesystem::path& path, const GoldenFile& g);  // atomic

// Exact decimal expansion of a float (every binary float has one), e.g. 0.0883883461356163025;
// and its C99 hexadecimal form, e.g. 0x1.6a09e6p-4.
std::string exact_decimal(float x);
std::string hex_float(float x);
// x with 17 significant digits (enough to tell any two doubles apart), for messages.
std::string full_precision(double x);

// ---- checks ----

// Compares g's stored exact values, bounds and floor with values recomputed from its inputs
// (compute_reference_values). Exact O and LSE must agree within twice the oracle's stated error
// (each of the two lies within it of the exact value: reference::AttentionBounds::o_oracle) and
// be identical where they are not finite; o_bound and lse_bound within 1e-9 relative (they are
// double evaluations of one formula, whose std::exp may differ in the last bits between libms);
// o_floor elementwise within one bf16 ULP (bitwise on the machine that wrote it; a libm
// difference can move a value that sits on a rounding boundary) and its relative RMS error
// against the exact O within 1e-3 relative. Returns "" if all hold, else one line on the first
// difference.
std::string verify_reference_values(const GoldenFile& g, unsigned threads = 0);

// The verdict of a candidate output (any implementation) under the pass rule:
// reference::compare_attention (varlen files: reference::compare_varlen) against g's exact values
// in g's rounding mode, plus the case's fact_o_equals_v. Without a candidate LSE (lse_given false) no LSE is judged or counted.
struct CandidateVerdict {
  reference::AttentionComparison comparison;
  std::string fact_failure;  // "" if the fact holds or there is none
  bool lse_given = false;
  bool pass() const { return comparison.pass() && fact_failure.empty(); }
  // Neither pass nor fail: no element, or elements beyond the declared arithmetic's range.
  bool nothing_judged() const { return comparison.nothing_judged() && fact_failure.empty(); }
  std::string first_failure() const {
    return !comparison.first_failure.empty() ? comparison.first_failure : fact_failure;
  }
};
// Throws std::invalid_argument if the sizes do not match g's shape.
CandidateVerdict judge_candidate(const GoldenFile& g, std::span<const std::uint16_t> o,
                                 std::optional<std::span<const float>> lse);

// "" if O rows fact.first..fact.last of every batch and head equal V row fact.key (values
// compared, so -0.0 equals +0.0), else one line on the first difference.
std::string check_rows_equal_v(const reference::AttentionProblem& p, std::span<const std::uint16_t> o,
                               const RowsEqualV& fact);

}  // namespace cdna::golden
