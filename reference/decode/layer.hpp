// One decoder layer at one position in the envelope's value types (docs/decode-bounds.md §3–§9,
// §13): the definition's layer (docs/decode-semantics.md §1) from an enclosure of its input to an
// enclosure of the residual stream it passes on, under a declared arithmetic. Shared by the
// envelope (the whole run from the tokens, reference/decode/envelope.hpp) and the per-layer checks
// of a decode trace (the layer from the run's own input and cache, audit/decode/trace_layers.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include <Eigen/Dense>

#include "reference/decode/affine.hpp"
#include "reference/decode/ball.hpp"
#include "reference/decode/envelope.hpp"
#include "reference/decode/model.hpp"

namespace cdna::reference {

// The cache rows the attention of one position reads, slots 0 … p: K and V midpoints and radii,
// each [slots, Hkv·D] row-major (the position's own slot included).
struct KvRows {
  const double *k_mid, *k_rad, *v_mid, *v_rad;
};
// Receives the position's K (after RoPE) and V enclosures, stored as the cache holds them, and
// returns the rows the attention reads. `overflow` is the layer's flag at that point: where it is
// set the K/V enclosures claim nothing (decode-bounds.md §2, "Overflow").
using KvSlot = std::function<KvRows(const ball::Ball& k, const ball::Ball& v, bool overflow)>;

// Layer l at position p: RMSNorm, q/k/v projections, RoPE (frequencies `omega`), K/V handed to
// `kv`, attention over p + 1 slots, o_proj and the residual add, RMSNorm, SiLU·up MLP and the
// residual add; every exchanged vector stored in a.activations, K/V in a.kv_cache. V is
// ball::Ball or affine::Affine (symbols numbered from `symbols`, advanced). `x` is the residual
// stream entering the layer as the arithmetic stores it. Sets `overflow` as the operations do.
template <class V>
V layer_forward(const DecoderModel& model, std::int64_t l, std::int64_t p, const std::vector<double>& omega,
                const DecodeArithmetic& a, const V& x, const KvSlot& kv, bool& overflow, Eigen::Index& symbols);

// The value type's conversions: balls are their own enclosure; affine forms are boxed at the
// attention (its inputs from the cache are balls) and symbolised before each GEMV (§13).
inline void convert(const ball::Ball& b, ball::Ball& out) { out = b; }
inline void convert(const ball::Ball& b, affine::Affine& out) { out = affine::from_ball(b); }
inline ball::Ball boxed(const ball::Ball& x) { return x; }
inline ball::Ball boxed(const affine::Affine& x) { return affine::to_ball(x); }
inline void make_symbols(ball::Ball&, Eigen::Index&) {}
inline void make_symbols(affine::Affine& x, Eigen::Index& symbols) { affine::symbolize(x, symbols); }

}  // namespace cdna::reference
