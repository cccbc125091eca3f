// A decode trace of any implementation (golden/decode_trace.hpp, docs/decode-traces.md) judged
// step by step against the definition (docs/decode-semantics.md §1), teacher-forced on the
// run's own prefix:
//   - its own consistency: each generated token is the argmax of the run's own logits row (the
//     definition's rule: lowest index on ties; torch.argmax's too), an exact check;
//   - against the exact model: at each step, the token the definition chooses after the run's
//     prefix, decided on balls that contain the exact logits — the MPFR oracle's
//     (reference/decode/exact.hpp: |R − x| ≤ exact_logit_error(R)), or the fast reference's
//     (reference/decode/envelope.hpp under double_arithmetic: its proven distance) — with the
//     exact top-2 gap and the run's largest logit deviation from the reference.
//   - with a declared profile (trace_profile.hpp): the run's own values — each layer's K/V and
//     residual stream from its own layer input and cache (trace_layers.hpp), each step's logits
//     from its own final hidden state (the LM head) — against balls of the declared arithmetic.
// Each step is then: match (the run chose the exact model's token and every check up to its
// position holds); explained (it chose another, and the run is faithful at every layer and
// position up to there: the declared arithmetic explains the parting); defect (a check at or
// before its position failed: the first is named); or, without the checks (no profile, or a trace
// without hidden states and cache), a parting is not classified.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "audit/decode/trace_layers.hpp"
#include "audit/decode/trace_profile.hpp"
#include "golden/decode_trace.hpp"
#include "reference/decode/decision.hpp"
#include "reference/decode/envelope.hpp"
#include "reference/decode/model.hpp"

namespace cdna::audit {

enum class TraceStepKind : std::uint8_t { match, parting, undecided };
const char* to_string(TraceStepKind kind);

// A step's verdict: match, explained, defect; unclassified: a parting or undecided step without
// the per-layer checks.
enum class TraceStepVerdict : std::uint8_t { match, explained, defect, unclassified };
const char* to_string(TraceStepVerdict verdict);

struct TraceStep {
  std::int64_t step = 0, position = 0;
  std::int64_t token = -1;          // the run's token, tokens[P + step]
  std::int64_t run_argmax = -1;     // argmax of the run's logits row (lowest index on ties; −1: a NaN)
  reference::TokenDecision exact;   // the exact model's token after the run's prefix
  double exact_gap = 0;             // the reference's top-2 gap of midpoints (logit units)
  double exact_radius = 0;          // the largest logit ball radius of the step
  double run_gap = 0;               // the run's own top-2 gap
  double max_deviation = 0;         // max_v |run logit − reference midpoint|
  std::int64_t worst_logit = -1;    // where that maximum is
  TraceStepKind kind = TraceStepKind::undecided;
  std::optional<LmHeadCheck> lm_head;  // with a profile and hidden.n: the logits against the LM head
  TraceStepVerdict verdict = TraceStepVerdict::unclassified;
};

enum class TraceOutcome : std::uint8_t {
  pass,          // every token the argmax of its logits, every checked value within its ball, every
                 // step a match or (with the per-layer checks) an explained parting
  fail,          // a token that is not the argmax of the run's own logits, or a checked value
                 // outside its ball under the declared profile (a layer, the LM head): a defect
  not_classified,  // no failure, but some step parted from (or was undecided against) the exact
                   // model and the trace lacks what the per-layer checks need (or no profile)
};
const char* to_string(TraceOutcome outcome);

struct TraceJudgement {
  std::vector<TraceStep> steps;
  std::int64_t matched = 0, parted = 0, undecided = 0, argmax_failures = 0;
  std::int64_t lm_head_checked = 0, lm_head_outside = 0;  // logits, over the steps checked
  std::int64_t first_parting = -1;  // the first step that parted, −1 if none
  std::int64_t explained = 0, defects = 0;  // steps so classified
  std::optional<TraceLayerCheck> layers;    // with a profile: the per-layer checks
  TraceOutcome outcome = TraceOutcome::fail;
  std::string failure;  // the first failure or the reason for not_classified, one line; empty on pass
  double seconds = 0;   // the reference's time (of the last pass)
  unsigned precision_bits = 0;  // the MPFR oracle's precision that certified every logit (0: an envelope)
};

// Where the exact model's logits come from. exact: the MPFR oracle at 128 bits (cost: about the
// model's weight count in MPFR multiply-adds per position, ~0.2 s per position for the tiny
// preset on one core; its rows split over `threads`). affine, ball: the fast reference's
// envelope (affine forms cost a GEMM per weight matrix with a symbol count growing per layer and
// position; componentwise balls are cheap but vacuous beyond a few layers even in double,
// docs/decode-bounds.md §12-§13).
enum class TraceReference : std::uint8_t { exact, affine, ball };
// "exact", "affine", "ball"; nullopt for anything else.
std::optional<TraceReference> parse_trace_reference(std::string_view name);
const char* to_string(TraceReference reference);

// Judges `trace` of `model` (which must be the trace's model: parse it with model.config). The
// reference runs positions 0 … T − 2 with the run's tokens; with a `profile` and the trace's
// hidden.n, each step's logits are checked against the LM head of that hidden state
// (check_lm_head), and with hidden.0 … n, k.L and v.L every layer at every position
// (check_trace_layers, its enclosures in `layer_method`'s value type). The oracle runs at 128 bits, again at
// twice that while it cannot certify a logit (up to 4096). `progress`, if given, receives a line
// every ten steps and at each restart. Throws reference::ModelFileError for an invalid model,
// std::runtime_error if even 4096 bits cannot certify a logit.
TraceJudgement judge_decode_trace(const reference::DecoderModel& model, const golden::DecodeTrace& trace,
                                  TraceReference reference, std::optional<TraceProfile> profile = std::nullopt,
                                  unsigned threads = 0, std::ostream* progress = nullptr,
                                  reference::EnvelopeMethod layer_method = reference::EnvelopeMethod::affine);
// The same under a declared profile (nullptr: none): a built-in's or a profile file's
// (profile_file.hpp).
TraceJudgement judge_decode_trace(const reference::DecoderModel& model, const golden::DecodeTrace& trace,
                                  TraceReference reference, const DeclaredProfile* profile,
                                  unsigned threads, std::ostream* progress,
                                  reference::EnvelopeMethod layer_method = reference::EnvelopeMethod::affine);

// "40 steps: 24 match, 16 part from the exact model (first at step 16, position 21: ...)".
std::string trace_summary(const TraceJudgement& j);

}  // namespace cdna::audit
