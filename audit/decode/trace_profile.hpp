// The declared arithmetic of an implementation whose decode trace is judged
// (docs/decode-traces.md, "Profiles"; derivations in docs/decode-bounds.md §14), and the checks
// of the trace's own values it decides. This version checks the LM head: each step's logits
// against the LM head applied to the run's own final hidden state (hidden.n), so that the check
// does not compound with depth.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "numerics/bf16.hpp"
#include "reference/decode/envelope.hpp"
#include "reference/decode/model.hpp"

namespace cdna::audit {

enum class TraceProfile : std::uint8_t {
  fp32,  // fp32 values between operations and fp32 accumulation (transformers in fp32, TF32 off)
  bf16,  // bf16 values between operations (round to nearest even), fp32 accumulation inside
         // each matrix product (transformers in bf16 with fp32 reductions)
  // This project's decode monokernel (device/kernels/decode_monokernel.hip; docs/decode-semantics.md
  // §2): fp32 activations and arithmetic, 1-ULP transcendentals, denormals flushed, the host fp32
  // RoPE table, the bf16 KV cache rounded RTNE, RTNA or RTZ (reference::monokernel_arithmetic).
  monokernel_rtne,
  monokernel_rtna,
  monokernel_rtz,
};
// "fp32", "bf16", "monokernel-rtne", "monokernel-rtna" or "monokernel-rtz"; nullopt for anything else.
std::optional<TraceProfile> parse_trace_profile(std::string_view name);
const char* to_string(TraceProfile profile);
// The monokernel's profile for the KV-cache rounding `mode`.
TraceProfile monokernel_profile(numerics::Rounding mode);

// A declared arithmetic as the checks of a trace's own values use it: a built-in profile's
// (audit::trace_arithmetic, trace_layers.hpp) or a profile file's (profile_file.hpp: a built-in
// base with some of its DecodeArithmetic fields set otherwise).
struct DeclaredProfile {
  std::string name;                        // "bf16", or a file's "name"
  TraceProfile base;                       // the built-in profile it starts from
  reference::DecodeArithmetic arithmetic;  // of the per-layer checks and the LM head
};

// The radius of an LM-head logit y = Σ_i W_i h_i (H terms) computed under `arithmetic` from the
// exact inputs h, around the double midpoint m = Σ W_i h_i, with A = Σ |W_i||h_i| (both computed
// in double, their own error covered): the products summed with unit roundoff
// accumulation_u in any order plus 2n·underflow_abs, then the logit stored in `activations`
// (nothing for fp32 storage of an fp32-or-wider sum); docs/decode-bounds.md §14.
double lm_head_radius(const reference::DecodeArithmetic& arithmetic, double m, double a, std::int64_t h);

struct LmHeadCheck {
  std::int64_t checked = 0, outside = 0;
  std::int64_t worst_logit = -1;  // the logit with the largest |logit − m| / radius
  double worst_ratio = 0;
  std::string first;              // the first logit outside, one line; empty if none
};

// One step's logits [V] against the LM head of `model` applied to `hidden` [H] (the run's final
// RMSNorm output at that position) under `profile`. A NaN logit where the midpoint is finite is
// outside; where a hidden value is NaN or infinite the logit must be the IEEE value W·h gives. Throws std::invalid_argument if a size disagrees with the model.
LmHeadCheck check_lm_head(const reference::DecoderModel& model, std::span<const float> hidden,
                          std::span<const float> logits, TraceProfile profile);
LmHeadCheck check_lm_head(const reference::DecoderModel& model, std::span<const float> hidden,
                          std::span<const float> logits, const DeclaredProfile& profile);

}  // namespace cdna::audit
