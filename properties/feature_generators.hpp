// RapidCheck generators of the extended definition's problems (docs/semantics.md, issue 12):
// windows (sides -1, 0, small, and past the sequence), soft caps, sinks (-inf included), Dv != D,
// fp8 inputs with per-tensor or per-(batch, KV head) descale, and varlen batches (lengths 0
// included) stored packed, with padded starts and used lengths, or in pages of a shuffled block
// table. Every slot, row and page no sequence uses holds NaN, so a read of one shows. Every draw is
// a RapidCheck choice: failures shrink towards small extents, no feature and randn values.
#pragma once

#include <cstdint>
#include <vector>

#include <rapidcheck.h>

#include "numerics/bf16.hpp"
#include "reference/attention/attention.hpp"
#include "reference/attention/varlen.hpp"

namespace cdna::properties {

// Which features a draw may carry (each drawn on or off per case when allowed).
struct FeatureSpec {
  std::int64_t max_batch = 2, max_seqlen_q = 10, max_seqlen_k = 20;
  std::vector<std::int64_t> head_dims{64, 128};  // D
  bool top_left = true;  // draw causal top-left besides none and causal bottom-right
  bool window = true;
  bool softcap = false;
  bool sinks = false;
  bool dv = false;   // Dv drawn from {D, 32, 64, 96, 128, 192} (else Dv = D)
  bool fp8 = false;  // e4m3fnuz / e5m2fnuz with descale factors (else bf16)
};

// A dense problem (BSHD contiguous) with the features `spec` allows.
rc::Gen<reference::AttentionProblem> gen_feature_problem(const FeatureSpec& spec);

// A varlen batch drawn as its sequences, each a dense B = 1 problem with its own inputs
// (`sequences`), and the same sequences in varlen storage (`packed`: cu_seqlens, optionally
// padded starts and a KV capacity above the used lengths, gaps NaN) and in a paged cache
// (`paged`: a random page size, a shuffled block table, spare pages and slots NaN).
struct VarlenDraw {
  std::vector<reference::AttentionProblem> sequences;
  reference::VarlenProblem packed, paged;
  numerics::Rounding mode = numerics::Rounding::RTNE;
};
rc::Gen<VarlenDraw> gen_varlen(const FeatureSpec& spec);

// A short description of a varlen draw for failure messages.
std::string describe(const reference::VarlenProblem& problem);

}  // namespace cdna::properties
