// Varlen batches and paged KV caches (docs/semantics.md §8): B sequences of their own lengths,
// stored packed (FlashAttention's and AITER's varlen / group mode) or with K/V in pages of a KV
// cache (vLLM, FlashAttention's paged path). Each sequence is its own attention problem, with
// its own causal alignment and window; sequence_problem() cuts it out as an AttentionProblem
// (B = 1), which is how the oracle, bound, floor and pass rule see it. Addressing only: nothing
// here changes what attention means.
#pragma once

#include <cstdint>
#include <vector>

#include <span>

#include "numerics/bf16.hpp"
#include "reference/attention/attention.hpp"
#include "reference/attention/bound.hpp"
#include "reference/attention/compare.hpp"

namespace cdna::reference {

// Storage (bit patterns of base.dtype, rows of heads × dims, contiguous):
//   q [rows_q, Hq, D]; O [rows_q, Hq, Dv]; LSE [Hq, rows_q] (FlashAttention's varlen LSE).
//   unpaged: k [rows_k, Hkv, D], v [rows_k, Hkv, Dv];
//   paged:   k [pages, page_size, Hkv, D], v [pages, page_size, Hkv, Dv].
// Sequence b:
//   Sq_b = cu_seqlens_q[b+1] - cu_seqlens_q[b]; its query rows start at row seqstart_q[b]
//     (the padded starts of AITER's group mode) or, when seqstart_q is empty, at cu_seqlens_q[b].
//   Sk_b = seqused_k[b] if seqused_k is given, else cu_seqlens_k[b+1] - cu_seqlens_k[b].
//   unpaged: key j is row seqstart_k[b] + j (or cu_seqlens_k[b] + j) of k and v.
//   paged:   key j is slot j % page_size of page block_table[b, j / page_size]; cu_seqlens_k and
//            seqstart_k are empty and seqused_k is required.
// Rows, slots and pages no sequence uses are never read (and O rows no sequence owns are never
// written): the generators fill them with NaN.
struct VarlenProblem {
  // Heads, head dims, mask, scale, window, soft cap, sinks, dtype and descale factors (per
  // tensor, or [B, Hkv] indexed by sequence) of every sequence. base.shape.batch = B;
  // base.shape.seqlen_q/seqlen_k are ignored (0 by convention); base.q/k/v must be empty.
  AttentionProblem base;
  std::vector<std::int32_t> cu_seqlens_q;  // B + 1 values, 0 first, non-decreasing
  std::vector<std::int32_t> cu_seqlens_k;  // B + 1 values (empty when paged)
  std::vector<std::int32_t> seqstart_q;    // empty, or B + 1 padded starts (non-decreasing)
  std::vector<std::int32_t> seqstart_k;    // empty, or B + 1 padded starts (unpaged only)
  std::vector<std::int32_t> seqused_k;     // empty, or B used key lengths
  std::int64_t page_size = 0;              // 0: not paged
  std::int64_t pages_per_sequence = 0;     // columns of block_table
  std::vector<std::int32_t> block_table;   // [B, pages_per_sequence] page indices
  std::vector<std::uint16_t> q, k, v;      // storage, above

  std::int64_t sequences() const { return base.shape.batch; }
  bool paged() const { return page_size > 0; }
  std::int64_t rows_q() const;  // q.size() / (Hq·D)
  std::int64_t rows_k() const;  // k.size() / (Hkv·D): packed rows, or pages·page_size
  std::int64_t seqlen_q(std::int64_t b) const;
  std::int64_t seqlen_k(std::int64_t b) const;
  std::int64_t q_row(std::int64_t b, std::int64_t i) const;  // storage row of query i
  std::int64_t k_row(std::int64_t b, std::int64_t j) const;  // storage row (or page·size + slot) of key j
  std::int64_t o_elements() const { return rows_q() * base.shape.heads_q * base.shape.dv(); }
  std::int64_t lse_elements() const { return base.shape.heads_q * rows_q(); }
};

// Throws std::invalid_argument, one line naming the field and what would be right: the base
// problem's fields as validate() checks them; list lengths; cu_seqlens not starting at 0 or
// decreasing; a sequence's rows or keys past its storage (or overlapping the next sequence's
// padded start); seqused_k above the capacity; a page index outside [0, pages); a paged problem
// with cu_seqlens_k or seqstart_k, or without seqused_k; storage sizes that are not whole rows.
void validate(const VarlenProblem& problem);

// Sequence b as a dense problem: B = 1, Sq = Sq_b, Sk = Sk_b, the base's features, descale
// factors of batch b (per-tensor factors kept), inputs gathered from the storage.
AttentionProblem sequence_problem(const VarlenProblem& problem, std::int64_t b);

// The base problem with Sq, Sk of the longest sequences (B kept, no inputs): the shape reports
// show for a varlen problem and a kernel's declared features are checked on.
AttentionProblem largest_sequence(const VarlenProblem& problem);

// A dense problem as a varlen one: the same B sequences packed (cu_seqlens b·Sq, b·Sk), no
// padding, no paging. Its sequences are problem's batches one by one.
VarlenProblem as_varlen(const AttentionProblem& problem);

// The definition per sequence, in the varlen layout: O [rows_q, Hq, Dv], LSE [Hq, rows_q] of
// attention_forward_exact_with on each sequence_problem. Rows no sequence owns hold NaN (they
// have no defined value; compare_varlen never reads them). Throws as validate() does.
AttentionResult varlen_forward_exact(const VarlenProblem& problem, const ExactOptions& options = {});
// attention_bounds and attention_floor_output per sequence, in the varlen layout (NaN in rows
// no sequence owns). `exact` is varlen_forward_exact's result.
AttentionBounds varlen_bounds(const VarlenProblem& problem, const AttentionResult& exact, numerics::Rounding mode);
std::vector<double> varlen_floor_output(const VarlenProblem& problem, numerics::Rounding mode);
// The pass rule on a varlen output (O bf16 bits [rows_q, Hq, Dv], LSE fp32 [Hq, rows_q]):
// compare_attention per sequence, counts summed, maxima taken, the first failure prefixed with
// "sequence b: ", and rule 4 (relative RMS error against 2 × floor) over all sequences' rows
// together, as for one dense batch. Rows no sequence owns are not judged here (a kernel writing
// them is caught by the harness's sentinel check). Throws std::invalid_argument on sizes.
AttentionComparison compare_varlen(const VarlenProblem& problem, const AttentionResult& exact,
                                   std::span<const std::uint16_t> o, std::span<const float> lse,
                                   numerics::Rounding mode, bool lse_given = true);

// Scatter of one sequence's result (O [1, Sq_b, Hq, Dv], LSE [1, Hq, Sq_b]) into the varlen
// layout (O [rows_q, Hq, Dv], LSE [Hq, rows_q]); `o`, `lse` must have the varlen sizes.
template <class T, class L>
void scatter_sequence(const VarlenProblem& problem, std::int64_t b, const std::vector<T>& seq_o,
                      const std::vector<L>& seq_lse, std::vector<T>& o, std::vector<L>& lse);

// The opposite: sequence b's rows of a varlen-layout output, as a dense [1, Sq_b, ...] output.
template <class T, class L>
void gather_sequence(const VarlenProblem& problem, std::int64_t b, const std::vector<T>& o,
                     const std::vector<L>& lse, std::vector<T>& seq_o, std::vector<L>& seq_lse);

// ---- template definitions ----

template <class T, class L>
void scatter_sequence(const VarlenProblem& p, std::int64_t b, const std::vector<T>& seq_o,
                      const std::vector<L>& seq_lse, std::vector<T>& o, std::vector<L>& lse) {
  const std::int64_t Hq = p.base.shape.heads_q, Dv = p.base.shape.dv(), Sq = p.seqlen_q(b), rows = p.rows_q();
  for (std::int64_t i = 0; i < Sq; ++i) {
    const std::int64_t r = p.q_row(b, i);
    for (std::int64_t x = 0; x < Hq * Dv; ++x) {
      o[static_cast<std::size_t>(r * Hq * Dv + x)] = seq_o[static_cast<std::size_t>(i * Hq * Dv + x)];
    }
    for (std::int64_t h = 0; h < Hq; ++h) {
      lse[static_cast<std::size_t>(h * rows + r)] = seq_lse[static_cast<std::size_t>(h * Sq + i)];
    }
  }
}

template <class T, class L>
void gather_sequence(const VarlenProblem& p, std::int64_t b, const std::vector<T>& o,
                     const std::vector<L>& lse, std::vector<T>& seq_o, std::vector<L>& seq_lse) {
  const std::int64_t Hq = p.base.shape.heads_q, Dv = p.base.shape.dv(), Sq = p.seqlen_q(b), rows = p.rows_q();
  seq_o.resize(static_cast<std::size_t>(Sq * Hq * Dv));
  seq_lse.resize(lse.empty() ? 0 : static_cast<std::size_t>(Hq * Sq));
  for (std::int64_t i = 0; i < Sq; ++i) {
    const std::int64_t r = p.q_row(b, i);
    for (std::int64_t x = 0; x < Hq * Dv; ++x) {
      seq_o[static_cast<std::size_t>(i * Hq * Dv + x)] = o[static_cast<std::size_t>(r * Hq * Dv + x)];
    }
    if (lse.empty()) continue;
    for (std::int64_t h = 0; h < Hq; ++h) {
      seq_lse[static_cast<std::size_t>(h * Sq + i)] = lse[static_cast<std::size_t>(h * rows + r)];
    }
  }
}

}  // namespace cdna::reference
