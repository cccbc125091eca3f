// The pass rule (docs/pass-rule.md) on a seeded sample of query rows, for production shapes whose
// every row the exact MPFR oracle cannot evaluate in the time of an audit (docs/pass-rule.md,
// "Production cases: sampled rows").
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "numerics/bf16.hpp"
#include "reference/attention/compare.hpp"

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
  // error statistics over the judged elements (audit/report/rounding_audit.hpp).
  std::vector<std::uint16_t> o_sampled;
  std::vector<double> exact_o_sampled;
  // "sampled: 512 of 32768 query rows judged exactly against the MPFR oracle (64 per head of
  // each batch, seed 7); the other 32256 checked finite only".
  std::string summary() const;
};

// The exact results of the rows compare_sampled judges exactly, computed once for every mode:
// the rows sampled_query_rows(shape, b, h, {rows_per_head, seed}) (reference/attention/fast_reference.hpp:
// min(rows_per_head, Sq) distinct rows per (b, h), a function of the seed and shape only, never of
// the data) and every row without a visible key, each evaluated by attention_forward_exact as
// row_problem (below), on all hardware threads (a row per task; results do not depend on them).
struct SampledRow {
  std::int64_t b = 0, h = 0, i = 0;
  AttentionResult exact;  // O [Dv], LSE [1] of the row
};
struct ExactSample {
  std::int64_t rows_per_head = 0;
  std::uint64_t seed = 0;
  std::vector<SampledRow> rows;  // in (b, h, i) order
};
// Cost: the oracle on about B·Hq·min(rows_per_head, Sq) rows of up to Sk keys. Throws
// std::invalid_argument as validate() does, for an extended feature of the definition or a
// sliding window (require_base_definition; a window's keys do not start at key 0), and for
// rows_per_head < 1.
ExactSample exact_sample(const AttentionProblem& problem, std::int64_t rows_per_head, std::uint64_t seed);

// Judges kernel output O [B, Sq, Hq, Dv] (bf16 bits), LSE [B, Hq, Sq] (fp32; ignored when
// lse_given is false) of `problem`, rounded in `mode`:
// - each row of `sample` as the one-row problem of its visible keys, by compare_elements with
//   attention_bounds, which depend on the row, its keys and its visible range only
//   (reference/attention/bound.cpp, floor.cpp), so each row is judged as compare_attention judges it in the
//   whole problem; rule 4 pools the sampled rows;
// - every other row (it has a visible key), when every Q, K and V value is finite: every O
//   element finite (a convex combination of finite V) and, where given, LSE finite when
//   |scale|·D·max|q|·max|k| + ln n stays far below fp32's range (an LSE past it must be ±inf:
//   rule 3); else unchecked.
// Throws std::invalid_argument when a size does not match the shape or `sample` is not of this
// problem's shape.
SampledComparison compare_sampled(const AttentionProblem& problem, const ExactSample& sample,
                                  std::span<const std::uint16_t> o, std::span<const float> lse,
                                  numerics::Rounding mode, bool lse_given);

// The one-row problem of query row (b, h, i): Q row, K and V rows of the keys it sees (from key
// 0), no mask, the same scale. Its exact O and LSE are row (b, h, i)'s. Preconditions as
// compare_sampled.
AttentionProblem row_problem(const AttentionProblem& problem, std::int64_t b, std::int64_t h, std::int64_t i);

}  // namespace cdna::reference
