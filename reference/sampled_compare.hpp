// The pass rule (docs/pass-rule.md) on a seeded sample of query rows, for production shapes whose
// every row the exact MPFR oracle cannot evaluate in the time of an audit (docs/pass-rule.md,
// "Production cases: sampled rows").
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "numerics/bf16.hpp"
#include "reference/compare.hpp"

namespace cdna::reference {

struct SampledComparison {
  // Rules 1–4 over the sampled rows (rule 4: one RMS over all of them); of the other rows, the
  // facts derivable without the oracle (below) as semantic violations. o_judged, lse_judged count
  // the sampled rows' elements and the exact facts of rows without a visible key.
  AttentionComparison comparison;
  std::int64_t rows_total = 0;         // B·Hq·Sq
  std::int64_t rows_judged = 0;        // judged against the oracle
  std::int64_t rows_checked_finite = 0;  // not sampled: checked finite only (O, and LSE where given)
  std::int64_t rows_per_head = 0;
  std::uint64_t seed = 0;
  // The sampled rows' kernel O (bf16 bits) and exact O, row after row (rows_judged × Dv), for
  // error statistics over the judged elements (tools/rounding_audit.hpp).
  std::vector<std::uint16_t> o_sampled;
  std::vector<double> exact_o_sampled;
  // "sampled: 512 of 32768 query rows judged exactly against the MPFR oracle (64 per head of
  // each batch, seed 7); the other 32256 checked finite only".
  std::string summary() const;
};

// Judges kernel output O [B, Sq, Hq, Dv] (bf16 bits), LSE [B, Hq, Sq] (fp32; ignored when
// lse_given is false) of `problem`, rounded in `mode`:
// - the rows sampled_query_rows(shape, b, h, {rows_per_head, seed}) (reference/fast_reference.hpp:
//   min(rows_per_head, Sq) distinct rows per (b, h), a function of the seed and shape only) are
//   each cut out as a one-row problem with exactly that row's visible keys (keys 0 .. n−1 of its
//   KV head), evaluated by attention_forward_exact and judged by compare_elements with
//   attention_bounds, which depend on the row, its keys and its visible range only
//   (reference/bound.cpp, floor.cpp), so each row is judged as compare_attention judges it in the
//   whole problem; rule 4 pools the sampled rows;
// - every other row: with no visible key, O = +0.0 bit for bit and LSE = −inf (exact facts of the
//   definition); else, when every Q, K and V value is finite, every O element finite (a convex
//   combination of finite V) and, where given, LSE finite when |scale|·D·max|q|·max|k| + ln n stays
//   far below fp32's range (an LSE past it must be ±inf: rule 3), else unchecked.
// Costs: the oracle on B·Hq·min(rows_per_head, Sq) rows of up to Sk keys; O(inputs) for the rest.
// Throws std::invalid_argument as validate() does, for an extended feature of the definition or a
// sliding window (require_base_definition; a window's range does not start at key 0), for
// rows_per_head < 1, and when a size does not match the shape.
SampledComparison compare_sampled(const AttentionProblem& problem, std::span<const std::uint16_t> o,
                                  std::span<const float> lse, numerics::Rounding mode, bool lse_given,
                                  std::int64_t rows_per_head, std::uint64_t seed);

// The one-row problem of query row (b, h, i): Q row, K and V rows of the keys it sees (from key
// 0), no mask, the same scale. Its exact O and LSE are row (b, h, i)'s. Preconditions as
// compare_sampled.
AttentionProblem row_problem(const AttentionProblem& problem, std::int64_t b, std::int64_t h, std::int64_t i);

}  // namespace cdna::reference
