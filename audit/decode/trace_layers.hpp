// Per-layer checks of a decode trace (docs/decode-bounds.md §15): each layer's outputs at each
// position — the K and V it stored in the cache, the residual stream it passed on (hidden.L+1;
// after the last layer the final RMSNorm's output, hidden.n) — against a ball that contains every
// value the declared arithmetic of the trace's profile (trace_profile.hpp) can produce from THAT
// run's own layer input (hidden.L at the position) and its own cache (k.L, v.L at slots 0 … p).
// Only one layer's roundings enter a ball, so the check does not compound with depth. Besides,
// hidden.0 must be the embedding rows of the fed tokens exactly.
//
// A run whose every check holds is faithful at every layer and position: a value it passed on is
// one the declared arithmetic can produce from what the run had there.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "audit/decode/trace_profile.hpp"
#include "golden/decode_trace.hpp"
#include "reference/decode/envelope.hpp"
#include "reference/decode/model.hpp"

namespace cdna::audit {

// The first value outside its ball.
struct LayerFinding {
  std::int64_t layer = 0, position = 0;
  std::string tensor;          // "hidden.3", "k.1", "v.1" (the trace's tensor name)
  std::int64_t element = 0;    // index within the position's row ([H] or [Hkv·D], head-major)
  double value = 0, mid = 0, radius = 0;
  std::string line() const;    // "layer 2, position 9: hidden.3[17] = … is outside … ± … (…)"
};

struct TraceLayerCheck {
  bool complete = false;            // the trace holds every tensor the check needs
  std::string missing;              // else: which ("hidden.2", "k.0"); empty when complete
  std::int64_t checked = 0;         // values judged against a finite ball
  std::int64_t outside = 0;         // of which outside
  std::int64_t unbounded = 0;       // values whose ball is unbounded (may overflow): not judged
  std::int64_t first_bad_position = -1;  // the lowest position with a value outside, −1 if none
  std::int64_t first_unbounded_position = -1;  // the lowest with a value not judged, −1 if none
  std::optional<LayerFinding> first;     // the first outside, in position then layer order
  std::vector<double> worst_ratio;       // per layer: max |value − mid| / radius
  // Per layer: the widest finite radius of a tensor it produced, over the RMS of the run's values
  // of that tensor at that position (max over tensors and positions): how much the checks of
  // that layer can see (docs/decode-bounds.md §15.4).
  std::vector<double> widest;
  std::int64_t positions = 0;            // positions checked (T − 1)
  double seconds = 0;
};

// The declared arithmetic of `profile` for the ball and affine operations (reference/decode/
// ball.hpp, affine.hpp): PyTorch's operation sequences with fp32 or bf16 between operations
// (docs/decode-bounds.md §15.1-§15.3), the RoPE frequency errors of transformers' fp32 table
// for `config`; for a monokernel profile, reference::monokernel_arithmetic (the a-priori
// envelope's own, docs/decode-bounds.md §1-§3).
reference::DecodeArithmetic trace_arithmetic(TraceProfile profile, const reference::DecoderConfig& config);
// A built-in profile as a DeclaredProfile: its name, itself as base, trace_arithmetic.
DeclaredProfile declared_profile(TraceProfile profile, const reference::DecoderConfig& config);

// Checks every layer at every position 0 … T − 2 of `trace` under `profile`, each layer's
// enclosure in `method`'s value type (reference/decode/layer.hpp): affine forms (the tighter, ~1 µs
// per weight at H 2048: the symbols of one layer's roundings) or balls (two double GEMVs per
// weight matrix; wider by the cancellations affine forms keep, docs/decode-bounds.md §15). Needs hidden.0 …
// hidden.n and k.L, v.L for every layer; with any missing, returns complete = false naming the
// first missing tensor and checks nothing. Positions run on `threads` worker threads (0: all
// cores); the result does not depend on their number. `progress` (optional) gets a line per ten
// positions.
// Throws std::invalid_argument if the trace's sizes disagree with `model` (parse_decode_trace
// has checked them against the same config).
TraceLayerCheck check_trace_layers(const reference::DecoderModel& model, const golden::DecodeTrace& trace,
                                   TraceProfile profile,
                                   reference::EnvelopeMethod method = reference::EnvelopeMethod::affine,
                                   unsigned threads = 0, std::ostream* progress = nullptr);
// The same under any declared arithmetic (a profile file's, profile_file.hpp).
TraceLayerCheck check_trace_layers(const reference::DecoderModel& model, const golden::DecodeTrace& trace,
                                   const reference::DecodeArithmetic& arithmetic, reference::EnvelopeMethod method,
                                   unsigned threads = 0, std::ostream* progress = nullptr);

}  // namespace cdna::audit
