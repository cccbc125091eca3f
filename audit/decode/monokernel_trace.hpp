// A run of the decode monokernel as a decode trace (golden/decode_trace.hpp,
// docs/decode-traces.md): its tokens and logits, and — recorded by the kernel itself
// (device::DecodeLaunch::record_hidden) — the residual stream entering every layer, the final
// RMSNorm's output and the KV cache it stored, so that the per-layer checks of any
// implementation's trace (trace_layers.hpp) judge our kernel too, under its own profile
// (trace_profile.hpp monokernel_profile).
#pragma once

#include "device/decode_launcher.hpp"
#include "golden/decode_trace.hpp"

namespace cdna::audit {

// The trace of `result`, a run of `launch` with record_hidden: T = prompt + generated tokens;
// logits of positions P − 1 … T − 2; hidden.0 … hidden.n and k.L, v.L (the bf16 cache widened
// exactly; layout device/decode_launcher.hpp) at positions 0 … T − 2. Metadata: producer,
// kv_rounding, grid. Throws std::invalid_argument, one line, when the run was made without
// record_hidden, stopped on a NaN logit (token −1 is no token a trace can hold), or its sizes
// disagree with the launch.
golden::DecodeTrace monokernel_trace(const device::DecodeLaunch& launch, const device::DecodeResult& result);

}  // namespace cdna::audit
