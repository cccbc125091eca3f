// One decode run judged position by position (docs/decode-semantics.md §3): the monokernel runs
// the prompt and up to N steps in one dispatch; then the envelope (reference/decode/envelope.hpp)
// is fed the same tokens — the prompt's, then the kernel's own choices (teacher forcing) — and
// every position's fp32 logits are judged against their balls, and every position that chooses a
// token (the last prompt position onward) by certified token equality. Every position's K/V slot
// and logits are also checked against one position of the declared arithmetic computed from the
// kernel's own KV cache (audit/decode/ball_forward.hpp check_position_from_kv; values whose ball
// is unbounded are not counted). Besides, the last
// position's intermediates (per layer q, k, v, the KV slot, attention output, residuals, SiLU·up,
// logits) are checked against one step of the declared arithmetic from the kernel's own inputs
// (audit/decode/ball_forward.hpp check_last_position): narrow balls that see a wrong RoPE
// position, KV slot, GQA mapping or RMSNorm even when the whole-run balls are too wide to.
//
// Shared by `cdna-verify decode`, the audit's decode cases and the decode properties.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "audit/decode/trace_judge.hpp"
#include "device/decode_launcher.hpp"
#include "device/executor.hpp"
#include "reference/decode/decision.hpp"
#include "reference/decode/envelope.hpp"

namespace cdna::audit {

// The outcome of a decode check. Pass needs at least one position whose token was decided and
// compared (a run of only ambiguous steps judged nothing: NothingJudged, never Pass).
enum class DecodeOutcome { Pass, Fail, NothingJudged };
std::string_view to_string(DecodeOutcome o);  // "pass", "fail", "nothing_judged"

struct DecodePosition {
  std::int64_t position = 0;
  std::int64_t fed_token = 0;   // the token this position ran with
  bool chooses = false;         // its logits choose the next token (last prompt position on)
  reference::StepVerdict verdict;  // from judge_step (token part meaningful only if chooses)
  bool decided = false;            // chooses, and verdict.decision is not ambiguous
  std::int64_t expected_token = -1;
  bool match = false;              // decided and the kernel's token is the expected one
  // check_position_from_kv of this position: values judged, outside their balls, the first.
  std::int64_t state_checked = 0, state_outside = 0;
  std::string state_first;
  double median_radius = 0;     // of its V logit balls
  double top_gap = 0;           // largest minus second largest midpoint
};

struct DecodeCounts {
  std::int64_t positions = 0;     // positions judged against their balls
  std::int64_t choosing = 0;      // positions that choose a token
  std::int64_t decided = 0, ambiguous = 0, matched = 0, mismatched = 0;
  std::int64_t state_checked = 0, state_outside = 0;  // check_position_from_kv, all positions
  std::int64_t logits_outside = 0;        // kernel logits outside their ball, all positions
  std::int64_t logits_finite_radius = 0;  // logits judged against a finite ball
  // The local check of the last position (audit/decode/ball_forward.hpp check_last_position):
  // every intermediate the kernel left there against one step of the declared arithmetic from
  // its own inputs (narrow balls). Values judged and outside.
  std::int64_t local_checked = 0, local_outside = 0;
  // The per-layer checks (DecodeCheckOptions::layer_checks): the steps by verdict
  // (audit/decode/trace_judge.hpp), and the layer values judged, outside and without a finite ball.
  std::int64_t layer_matched = 0, layer_explained = 0, layer_defects = 0, layer_unclassified = 0;
  std::int64_t layer_checked = 0, layer_outside = 0, layer_unbounded = 0;
};

struct DecodeCheck {
  device::DecodeResult kernel;
  std::vector<DecodePosition> positions;
  DecodeCounts counts;
  DecodeOutcome outcome = DecodeOutcome::Fail;
  std::string failure;  // the first failure, one line; empty unless Fail
  double envelope_seconds = 0;
  std::uint64_t wave_instructions = 0;  // simulator only (0 on hardware)
  std::optional<TraceJudgement> layers;  // with layer_checks, when the run left a trace
  double layer_seconds = 0;              // their time (MPFR oracle and per-layer checks)
  std::string layers_not_run;            // with layer_checks, why they did not run (a NaN stop); else empty
};

struct DecodeCheckOptions {
  device::DecodeLaunch launch;  // model, prompt, steps, eos, mode, grid, block
  // How the envelope carries its enclosures (reference/decode/envelope.hpp): affine forms are
  // narrow enough to decide one-layer models of H 256 (docs/decode-bounds.md §12, §13); balls are
  // faster (thousands of steps per minute) and decide only the smallest models.
  // Default (nullopt): affine for H ≤ 128 (there it decides; its cost grows with the symbols:
  // ~1 s per step at H 256, where it still decides nothing), balls above.
  std::optional<reference::EnvelopeMethod> method;
  // Also judge the run layer by layer from its own values (docs/decode-bounds.md §15): the kernel
  // records its hidden states (DecodeLaunch::record_hidden), the run becomes a trace
  // (monokernel_trace.hpp), judged by judge_decode_trace against the MPFR oracle under
  // monokernel_profile(launch.mode). Each step is then match, explained or defect where the
  // a-priori balls leave it ambiguous. Not for a run that stops on a NaN logit (no trace).
  bool layer_checks = false;
  // Where the per-layer checks take the exact model's token of each step from (trace_judge.hpp):
  // exact, the MPFR oracle (certain, but slow: 28 s per position for one layer at Llama-3.2-1B's
  // shapes at 128 bits on 2 cores, docs/decode-semantics.md §7; depth needs more bits); ball, the
  // fast double reference with its proven distance (two double GEMVs per weight matrix; its balls
  // widen with depth, so there it may decide no step: such a step is explained when the run is
  // faithful up to it, the exact token left undecided).
  TraceReference step_reference = TraceReference::exact;
  // The per-layer checks' enclosures (trace_layers.hpp): affine forms, or balls (faster, wider).
  reference::EnvelopeMethod layer_method = reference::EnvelopeMethod::affine;
  unsigned threads = 0;  // of the MPFR oracle and the per-layer checks (0: all cores)
  std::ostream* progress = nullptr;  // one line per position while judging
  // Called with each position's balls, in position order (e.g. `decode --exact`, golden files).
  std::function<void(const reference::StepBounds&)> on_bounds;
  // Tests only: alters the kernel's result before it is judged (a perturbed logit or token must fail).
  std::function<void(device::DecodeResult&)> edit_result;
};

// Runs `code_object` (the monokernel of launch.mode, or a mutant's) on `executor` and judges it.
// Outcome: Fail on any failure (a-priori or, with layer_checks, a defect); else Pass when the
// per-layer checks classify every step as match or explained, or when at least one step was
// decided a priori; else NothingJudged.
// `wave_instructions` (optional) returns the simulator's count of the last dispatch. Throws what
// device::run_decode throws (bad launch: std::invalid_argument, one line; a hung or faulting
// kernel: the executor's std::runtime_error).
DecodeCheck check_decode(device::Executor& executor, std::span<const std::byte> code_object,
                         const DecodeCheckOptions& options,
                         const std::function<std::uint64_t()>& wave_instructions = {});

// One line per position: "pos 7  fed 412  kernel 93  decided 93  pass  max|k-mid|/rad 0.02  …".
std::string position_line(const DecodePosition& p, std::int64_t kernel_token);
// "PASS: 68 positions, 65 choosing: 60 decided (60 match), 5 ambiguous; 0 of 68000 logits outside".
std::string decode_outcome_line(const DecodeCheck& check);

}  // namespace cdna::audit
