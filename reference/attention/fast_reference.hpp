// A fast, certified reference for attention forward: the definition of docs/semantics.md
// (the same inputs and semantics as attention_forward_exact) evaluated in double precision with
// Eigen matrix products, together with a rigorous a-posteriori bound on its distance from the
// exact value, per O element and per LSE entry. Derivation of the bound, its assumptions and
// sources: docs/fast-reference.md.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "reference/attention/attention.hpp"

namespace cdna::reference {

// How attention_forward_fast evaluates.
struct FastOptions {
  // Row sampling for shapes too large to evaluate whole: when set to k (>= 0), only
  // min(k, Sq) distinct query rows are computed for each (batch b, query head h), chosen
  // uniformly at random by a generator seeded from (seed, b, h); the choice depends only on
  // (k, seed, b, h, Sq), never on the data, the thread count or the machine
  // (sampled_query_rows). Unset: every row is computed.
  std::optional<std::int64_t> sample_rows;
  std::uint64_t seed = 0;
  // Worker threads; 0 = std::thread::hardware_concurrency(). Results do not depend on it.
  unsigned threads = 0;
};

// Result of attention_forward_fast. Layouts as AttentionResult:
//   o, o_bound      [B, Sq, Hq, D]  (BSHD, contiguous)
//   lse, lse_bound  [B, Hq, Sq]     (natural log)
//   computed        [B, Hq, Sq]     1 where the query row (b, h, i) was computed, else 0
// For a computed row, with E the exact value of the definition on the same inputs:
//   - where E is finite: o/lse is a finite double and |o - E| <= o_bound (|lse - E| <=
//     lse_bound), the bound finite and >= 0;
//   - where E is not finite (NaN, +inf, -inf: NaN/inf rules, LSE = -inf of a row without
//     visible keys): o/lse equals E (NaN for NaN) and the bound is 0;
//   - a row without visible keys is O = +0.0 (bound 0), LSE = -inf (bound 0).
// The bound is to the exact real value, not to attention_forward_exact's double: to compare
// against the oracle, add the oracle's own stated error (exact_o_error_factor, exact_lse_error
// plus its rounding to double), as reference/attention/fast_reference_test.cpp does.
// Rows not computed (row sampling) hold NaN in o, o_bound, lse and lse_bound.
struct FastAttentionResult {
  std::vector<double> o, o_bound;
  std::vector<double> lse, lse_bound;
  std::vector<std::uint8_t> computed;
  std::int64_t rows_computed = 0;  // number of 1s in `computed`
  // Rows whose inputs hold a NaN or inf among the values they read (q row, visible K/V rows)
  // (the scale is finite: validate()): evaluated by attention_forward_exact (one thread, p = 128)
  // on that row alone, with the oracle's stated error as the bound.
  std::int64_t rows_exact_fallback = 0;
  // Rows where some element's bound came from the enclosure O in [min_j V_jd, max_j V_jd]
  // (LSE in [S_max, S_max + ln n]) because the rounding-error bound was larger or did not apply
  // (score errors above 1/4: |scale|·Σ|q||k| beyond ~10^14); the bound is valid but loose there.
  std::int64_t rows_enclosure_bound = 0;
};

// Attention forward of `problem` (docs/semantics.md), fast, with certified bounds.
//
// Method (per batch b and KV head g, the query heads of g sharing K and V): scores
// T = Q·Kᵀ and the magnitudes |Q|·|K|ᵀ by Eigen products in double (bf16 products are exact
// in double; the sums are not, and are bounded by γ_D·Σ|q||k|, Higham 2002 §3.1); per row the
// shift c = the computed score at the row maximum, weights w_j = exp(scale·(t_j − c)) from
// libm, their sum l, the numerators W·V, W·|V| and (W∘r)·|V| by Eigen products (r_j the
// bound on w_j's relative error), O = (W·V)/l and LSE = scale·c + log l (Blanchard, Higham &
// Higham 2021, shifted log-sum-exp). The bounds compose these roundings with u = 2^-53 and an
// assumed libm error of 16 ULP for exp and log (glibc's x86_64 libm-test-ulps lists 1 ULP);
// reference/attention/fast_reference_test.cpp checks that assumption against MPFR on this machine.
//
// Errors: std::invalid_argument as validate() does, and if options.sample_rows < 0;
// std::runtime_error if the calling thread's floating-point environment is not the IEEE
// default the derivation assumes (rounding to nearest; on x86-64 also no flush-to-zero or
// denormals-are-zero in MXCSR).
//
// Cost: five products of Sq×Sk×D per (b, h) (two for the scores, three for the numerators),
// Sq·Sk calls of exp, memory O(rows per block · Sk + Sk·D) per thread.
FastAttentionResult attention_forward_fast(const AttentionProblem& problem,
                                           const FastOptions& options = {});

// The query rows attention_forward_fast computes for (b, h) under `options`: all rows
// 0 .. Sq-1 if options.sample_rows is unset, else min(k, Sq) distinct rows in increasing
// order, a deterministic function of (k, seed, b, h, Sq) (splitmix64 and Floyd's sampling
// algorithm; no standard-library distribution, so the same on every platform). Throws
// std::invalid_argument if sample_rows < 0.
std::vector<std::int64_t> sampled_query_rows(const AttentionShape& shape, std::int64_t b,
                                             std::int64_t h, const FastOptions& options);

// The libm error the bound assumes, relative to the exact result: 16 ULP = 16 · 2^-52 for
// exp on [-708, 0] and log on [1, 2^63) (docs/fast-reference.md, "Assumptions").
inline constexpr double kFastLibmRelativeError = 0x1p-48;

}  // namespace cdna::reference
