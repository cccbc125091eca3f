// The fast decode reference and its certified per-logit bounds: one forward pass of the decode
// definition (docs/decode-semantics.md §1) in ball (midpoint-radius) arithmetic, in double with
// Eigen. Every value is a midpoint m (double) and a radius r ≥ 0 such that [m − r, m + r]
// contains both
//   (a) the exact real value of the definition, and
//   (b) every value a kernel with the declared arithmetic (DecodeArithmetic) could hold there,
// the roundings of the envelope's own double computation included. The midpoints are the fast
// reference (a plain double forward pass); under double_arithmetic() the radius is the fast
// reference's proven distance to the exact value. Derivation, one section per operation:
// docs/decode-bounds.md.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "numerics/bf16.hpp"
#include "reference/decode/model.hpp"

namespace cdna::reference {
namespace ball {
struct Ball;
}

// How a stored vector is held: exact (no rounding), fp32 (round to nearest even), or bf16
// rounded from fp32 in `mode` (numerics/bf16.hpp).
enum class StorageFormat : std::uint8_t { exact, fp32, bf16 };
struct Storage {
  StorageFormat format = StorageFormat::exact;
  numerics::Rounding mode = numerics::Rounding::RTNE;  // bf16 only
};
// Relative error bound of one store of a normal value: 0 (exact), 2^-24 (fp32),
// 2^-8 (bf16 RTNE/RTNA, half a bf16 ULP), 2^-7 (bf16 RTZ, under one ULP). Below 2^-126 the
// envelope adds the absolute term DecodeArithmetic::underflow_abs instead.
double storage_unit_roundoff(const Storage& storage);

// The declared arithmetic of a kernel (docs/decode-semantics.md §2, docs/decode-bounds.md §1).
struct DecodeArithmetic {
  Storage kv_cache;     // K (after RoPE) and V as stored in the cache
  Storage activations;  // every vector exchanged through memory (list: decode-bounds.md §1)
  // Unit roundoff of every arithmetic operation (FMA, add, multiply): 2^-24 for fp32 FMA
  // GEMVs in any order (a dot product of n terms errs by ≤ γ_n(u)·Σ|w||x|, Higham Thm 3.1).
  double accumulation_u = 0.0;
  // Absolute error per operation from flushed or subnormal results and flushed inputs:
  // 2^-126 under fp32 with denormals flushed (cdna3-facts.md §6).
  double underflow_abs = 0.0;
  // Relative error of rsqrt, exp2 and rcp (v_rsq_f32, v_exp_f32, v_rcp_f32: 1 ULP ≤ 2^-23
  // relative, cdna3-facts.md §6), and of the double reference's exp/sqrt (glibc, < 1 ULP).
  double transcendental_rel = 0.0;
  // Relative error of the attention scale constant against 1/sqrt(D) (fp32: 2^-24) and of the
  // constants log2(e), 1/H and rms_norm_eps as the kernel holds them (fp32: 2^-24).
  double constant_rel = 0.0;
  // RoPE cos/sin error against the exact cos/sin at position p: rope_abs + rope_abs_per_position·p
  // (the host table of reference/decode/rope.hpp: 2^-24 + 2^-26, independent of p ≤ 2^20).
  double rope_abs = 0.0;
  double rope_abs_per_position = 0.0;
  // Values whose magnitude bound reaches this may overflow: their radius becomes +inf
  // (fp32: 2^127, half the largest finite value, so sums of two such stay finite).
  double max_finite = 0.0;
  // True when the kernel computes every LM-head row by the same operation sequence, so
  // bitwise identical rows give bitwise identical logits (decode_decision.hpp, tie classes).
  bool identical_rows_identical_logits = false;
  // Implementations other than the monokernel (decode traces, docs/decode-bounds.md §15); each
  // default leaves the monokernel's arithmetic as above.
  // Unit roundoff of each elementwise operation's result (RMSNorm's products, RoPE, the residual
  // add, SiLU·up): PyTorch computes in fp32 and rounds to the tensor's dtype. 0: accumulation_u.
  double elementwise_u = 0.0;
  // The attention weights are rounded with this unit roundoff before P·V (SDPA's fused kernels
  // in bf16 round P to bf16 for their second product). 0: not rounded.
  double attention_weights_u = 0.0;
  // The exponent is formed as fma(t_raw, c·log2(e), −fl(m_raw·c·log2(e))) (FlashAttention's
  // base-2 softmax): the rounded product adds an error of u·|m| that is not relative to t − m.
  bool fused_exp_argument = false;
  // A fused kernel's online softmax processes keys in blocks of at least this many and rescales
  // its accumulators by a computed exp(m_old − m_new) at each later block (0: two passes, no
  // rescale): each rescale adds that exp's error and two fp32 products (decode-bounds.md §15.3).
  std::int64_t attention_key_block = 0;
  // Per RoPE frequency i (empty: none): the relative error of the implementation's ω_i, so its
  // angle p·ω_i errs by ≤ p·ω_i·rope_omega_rel[i] (transformers' fp32 inv_freq, §15.2).
  std::vector<double> rope_omega_rel;
};

// The unit roundoff of an elementwise operation under `a` (elementwise_u, or accumulation_u).
inline double elementwise_unit(const DecodeArithmetic& a) {
  return a.elementwise_u > 0 ? a.elementwise_u : a.accumulation_u;
}

// The monokernel's declared arithmetic (docs/decode-semantics.md §2): bf16 KV cache in
// `kv_mode`, fp32 activations and arithmetic, 1-ULP transcendentals with denormals flushed,
// host fp32 RoPE table, identical rows computed identically.
DecodeArithmetic monokernel_arithmetic(numerics::Rounding kv_mode);
// The same with activations exchanged as bf16 in `activation_mode` (a bf16-activation kernel).
DecodeArithmetic bf16_activation_arithmetic(numerics::Rounding kv_mode,
                                            numerics::Rounding activation_mode);
// The fast reference itself: u = 2^-53, glibc exp/sqrt/cos/sin within 1 ULP (2^-52
// relative), exact storage, double RoPE (argument error ≤ p·2^-47, decode_rope.hpp).
DecodeArithmetic double_arithmetic();

// Per-logit bounds of one step.
struct StepBounds {
  std::int64_t position = 0;  // the position this step ran at (0-based)
  std::int64_t token = 0;     // the token fed at that position
  std::vector<double> mid;    // [V] the fast reference's logits
  std::vector<double> rad;    // [V] radii ≥ 0; +inf where a value may overflow (or the ball
                              //      arithmetic itself overflowed); NaN exactly where mid is NaN
                              //      (a NaN or inf weight on the logit's path)
  // tie_class[j] = the lowest index i whose LM-head row is bitwise identical to row j [V].
  std::shared_ptr<const std::vector<std::int64_t>> tie_class;
  bool identical_rows_identical_logits = false;  // from the DecodeArithmetic
};

// How the envelope carries its enclosures (docs/decode-bounds.md §12, §13):
//   ball:   componentwise balls; one pass over the weights per step (3 dot products per row).
//           Rigorous but loose: a GEMV multiplies the relative radius by ~0.8·sqrt(n)
//           (wrapping), so it is vacuous for the monokernel beyond one layer of H ≈ 32.
//   affine: the rounding errors as shared symbols (affine forms) mapped exactly through every
//           GEMV; RMSNorm and SiLU·up linearised with rigorous second-order remainders; the
//           attention boxed (its score errors from q mapped through the keys). Much narrower;
//           costs a GEMM of each weight matrix with the symbols so far (each GEMV input adds
//           its length: S = L·(3H + I) + H at the LM head): ~0.3 s per step at one layer of
//           H 256, ~1 s at the tiny preset.
enum class EnvelopeMethod : std::uint8_t { ball, affine };

// The envelope of a decode run with teacher forcing: each step() takes the token actually used
// at the next position (the prompt's, or the kernel's own choice) and extends its ball KV cache.
// The model is held by reference and must outlive the envelope.
// Cost per step: one pass over every weight (three dot products per row: W·m, |W|·|m|, |W|·r),
// plus attention over the cache; no weights are copied.
class DecodeEnvelope {
 public:
  // Throws ModelFileError (reference/decode/config.hpp, validate_decoder_model) naming the field
  // or tensor when the config is invalid or a weight's size disagrees with it.
  DecodeEnvelope(const DecoderModel& model, DecodeArithmetic arithmetic,
                 EnvelopeMethod method = EnvelopeMethod::ball);
  // Runs position position() with `token`. Throws std::out_of_range when token ∉ [0, V) or the
  // position would reach max_position_embeddings.
  StepBounds step(std::int64_t token);
  std::int64_t position() const { return position_; }
  const DecodeArithmetic& arithmetic() const { return arithmetic_; }

 private:
  struct LayerCache {
    std::vector<double> k_mid, k_rad, v_mid, v_rad;  // [slots, Hkv*D]
  };
  template <class V>
  ball::Ball forward(std::int64_t token, bool& overflow);
  const DecoderModel& model_;
  DecodeArithmetic arithmetic_;
  EnvelopeMethod method_;
  std::vector<double> rope_omega_;
  std::vector<LayerCache> cache_;
  std::shared_ptr<const std::vector<std::int64_t>> tie_class_;
  std::int64_t position_ = 0;
};

// tie_class of StepBounds for an LM-head matrix [V, H] of bf16 bit patterns.
std::vector<std::int64_t> lm_head_tie_classes(const std::vector<std::uint16_t>& lm_head,
                                              std::int64_t vocab, std::int64_t hidden);

}  // namespace cdna::reference
