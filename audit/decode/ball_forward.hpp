// Local checks of a decode monokernel run, independent of the kernel: its declared arithmetic
// (docs/decode-semantics.md §2) evaluated in double midpoint-radius ("ball") arithmetic from the
// kernel's own state. A ball contains every value the declared arithmetic can produce at that
// point, whatever the order of its sums and whichever way its 1-ULP transcendentals round; rules
// in docs/decode-semantics.md §6. (The whole run from the tokens alone is the envelope's job:
// reference/decode/envelope.hpp.)
// - check_position_from_kv: any position from the kernel's KV cache;
// - check_last_position: the last position from its own exchange words: the narrowest balls.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "device/decode_params.h"

#include "numerics/bf16.hpp"
#include "reference/decode/model.hpp"

namespace cdna::device {

struct Ball {
  double c = 0;  // centre
  double r = 0;  // radius: the value lies in [c − r, c + r]; +inf when nothing is known
  bool contains(double x) const { return x >= c - r && x <= c + r; }
};

// What check_last_position found.
struct StepCheck {
  std::size_t checked = 0, outside = 0;  // kernel values judged (finite ball), and outside their balls
  std::string first;                     // the first outside, named ("layer 1 attention[3] = …")
  double widest = 0;                     // the largest logit ball radius over the largest |logit|
};

// The local check of the last position `pos` (token `token`) of a run: every value the kernel
// left there — per layer q|k|v, the K/V cache slot pos, attention output, x after attention,
// SiLU·up, x after the MLP, then the logits — against a ball computed by the declared arithmetic
// from the kernel's OWN inputs to that step (its fp32 exchange values and bf16 cache), so the
// balls stay as narrow as one step's rounding (no worst-case growth through the layers).
// `set`: the exchange set of that position (p.set_words words, device/decode_params.h);
// `kv`: the whole KV cache; `logits`: that position's V logits.
StepCheck check_last_position(const reference::DecoderModel& model, numerics::Rounding mode,
                              const DecodeParams& params, std::span<const std::uint32_t> set,
                              std::span<const std::uint32_t> kv, std::span<const float> logits,
                              std::int64_t pos, std::int64_t token);

// The check of position `pos` from the kernel's KV cache alone (every position of a run, not only
// the last): the position's forward from its token's embedding in the declared arithmetic, with
// the attention reading the kernel's own bf16 K/V of slots 0..pos as exact inputs; the kernel's
// K/V of slot pos are judged against the bf16 rounding of the computed k/v (RoPE'd k), and its
// logits against their balls. Only one position's fp32 roundings enter the balls (no growth
// along the run), but they still grow through the layers (GEMV wrapping): on the 2-layer tiny
// preset only layer 0's K/V balls are finite, and values with unbounded balls are not counted.
// `logit_balls` (optional) receives the V logit balls. A NaN ball contains a NaN kernel value (a
// NaN weight on the path: the definition's NaN).
StepCheck check_position_from_kv(const reference::DecoderModel& model, numerics::Rounding mode,
                                 const DecodeParams& params, std::span<const std::uint32_t> kv,
                                 std::span<const float> logits, std::int64_t pos, std::int64_t token,
                                 std::vector<Ball>* logit_balls = nullptr);

}  // namespace cdna::device
