// Attention forward for gfx942 (MI300X): bf16 Q/K/V/O, fp32 accumulation, online softmax in
// base 2, MFMA through one-instruction asm wrappers. Semantics: docs/semantics.md.
//
// Compile-time parameters (one code object per value):
//   CDNA_BF16_ROUNDING  0 RTNE, 1 RTNA, 2 RTZ (AITER's how_v3_bf16_cvt numbering): the rounding
//                       of P before the P·V MFMA and of the stored O (cdna3-facts.md §6).
//   CDNA_MUTANT_*       deliberate mistakes for testing the verifier; never set in a release:
//     CDNA_MUTANT_TOPLEFT     causal mask aligned top-left (j <= i) instead of bottom-right
//     CDNA_MUTANT_NO_RESCALE  running sum and accumulator not rescaled when the max grows
//
// Work split: one wave per workgroup, 16 query rows of one (batch, head). Lane l owns query
// row i = l % 16 and key/column group g = l / 16. Scores are computed transposed, Sᵀ = K·Qᵀ,
// so that the MFMA result layout (lane l, register r holds Sᵀ[4g + r][i]) is exactly the
// B-operand layout that Oᵀ = Vᵀ·Pᵀ needs, and Oᵀ's result layout keeps row i in lane l % 16:
// the softmax statistics of row i never leave the four lanes {i, i+16, i+32, i+48}.
// KV is processed in blocks of 16 keys: D/16 MFMAs for Sᵀ and D/16 for Oᵀ per block.

#include "device/asm/wrappers.hpp"
#include "device/attention_params.h"

#ifndef CDNA_BF16_ROUNDING
#error "CDNA_BF16_ROUNDING must be 0 (RTNE), 1 (RTNA) or 2 (RTZ)"
#endif

namespace {

using cdna::device::AttentionParams;
using namespace cdna::device::asm_ops;

// fp32 -> bf16 bits in the kernel's mode, integer formulation of cdna3-facts.md §6.
__device__ __forceinline__ unsigned short to_bf16(float x) {
  const unsigned u = __builtin_bit_cast(unsigned, x);
#if CDNA_BF16_ROUNDING == 0
  if (x != x) return 0x7FFF;
  return static_cast<unsigned short>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
#elif CDNA_BF16_ROUNDING == 1
  if (x != x) return 0x7FFF;
  return static_cast<unsigned short>((u + 0x8000u) >> 16);
#elif CDNA_BF16_ROUNDING == 2
  return static_cast<unsigned short>(u >> 16);
#else
#error "CDNA_BF16_ROUNDING must be 0, 1 or 2"
#endif
}

// Maximum / sum over the four lanes that share a query row (lanes i, i+16, i+32, i+48).
__device__ __forceinline__ float row_max(float x) {
  x = fmaxf(x, __shfl_xor(x, 16));
  return fmaxf(x, __shfl_xor(x, 32));
}
__device__ __forceinline__ float row_sum(float x) {
  x += __shfl_xor(x, 16);
  return x + __shfl_xor(x, 32);
}

__device__ __forceinline__ bool key_visible(const AttentionParams& p, int i, int j) {
  if (j >= p.seqlen_k) return false;
  if (!p.causal) return true;
#ifdef CDNA_MUTANT_TOPLEFT
  return j <= i;
#else
  return j <= i + p.seqlen_k - p.seqlen_q;
#endif
}

template <int D>
__device__ void attention_fwd(const unsigned short* __restrict__ q, const unsigned short* __restrict__ k,
                              const unsigned short* __restrict__ v, unsigned short* __restrict__ o,
                              float* __restrict__ lse, const AttentionParams& p) {
  constexpr int kSteps = D / 16;  // MFMAs per 16-key block, for Sᵀ and for Oᵀ alike
  const int lane = static_cast<int>(threadIdx.x);
  const int row = lane & 15;
  const int g = lane >> 4;
  const int b = static_cast<int>(blockIdx.z);
  const int h = static_cast<int>(blockIdx.y);
  const int hk = h / (p.heads_q / p.heads_kv);
  const int q0 = static_cast<int>(blockIdx.x) * 16;
  const int qi = q0 + row;
  const bool q_valid = qi < p.seqlen_q;

  const unsigned short* qb = q + b * p.q_stride_b + h * p.q_stride_h;
  const unsigned short* kb = k + b * p.k_stride_b + hk * p.k_stride_h;
  const unsigned short* vb = v + b * p.v_stride_b + hk * p.v_stride_h;

  // Qᵀ as the B operand: lane holds Q[qi][16s + 4g + 0..3].
  shortx4 qf[kSteps];
  for (int s = 0; s < kSteps; ++s) {
    qf[s] = q_valid ? *reinterpret_cast<const shortx4*>(qb + qi * p.q_stride_s + 16 * s + 4 * g)
                    : shortx4{0, 0, 0, 0};
  }

  // Keys beyond the last one any row of this tile can see need no visit.
  int kv_end = p.seqlen_k;
  if (p.causal) {
    const int last_row = min(q0 + 15, p.seqlen_q - 1);
#ifdef CDNA_MUTANT_TOPLEFT
    kv_end = min(kv_end, last_row + 1);
#else
    kv_end = min(kv_end, last_row + p.seqlen_k - p.seqlen_q + 1);
#endif
  }

  float m = -__builtin_inff();  // running max of the base-2 scores of this row
  float l = 0.0f;                // running sum of 2^(score - m)
  floatx4 acc[kSteps];           // Oᵀ: acc[c][r] = O[qi][16c + 4g + r], unnormalised
  for (int c = 0; c < kSteps; ++c) acc[c] = floatx4{0.0f, 0.0f, 0.0f, 0.0f};

  for (int kv0 = 0; kv0 < kv_end; kv0 += 16) {
    // Sᵀ = K·Qᵀ for keys kv0..kv0+15: A operand lane holds K[kv0 + row][16s + 4g + 0..3].
    const int kj = kv0 + row;
    floatx4 st = {0.0f, 0.0f, 0.0f, 0.0f};
    shortx4 kf[kSteps];
    for (int s = 0; s < kSteps; ++s) {
      kf[s] = kj < p.seqlen_k
                  ? *reinterpret_cast<const shortx4*>(kb + kj * p.k_stride_s + 16 * s + 4 * g)
                  : shortx4{0, 0, 0, 0};
    }
    wait_valu_to_mfma(st);
    for (int s = 0; s < kSteps; ++s) mfma_f32_16x16x16_bf16(st, kf[s], qf[s]);
    wait_mfma_result(st);

    // st[r] = S[qi][kv0 + 4g + r] before scaling.
    float s2[4];
    float block_max = -__builtin_inff();
    for (int r = 0; r < 4; ++r) {
      s2[r] = key_visible(p, qi, kv0 + 4 * g + r) ? st[r] * p.scale_log2 : -__builtin_inff();
      block_max = fmaxf(block_max, s2[r]);
    }
    const float m_new = fmaxf(m, row_max(block_max));
    // While every key so far is masked, m_new = -inf: subtract 0 so that no -inf - -inf = NaN.
    const float m_ref = m_new == -__builtin_inff() ? 0.0f : m_new;
#ifdef CDNA_MUTANT_NO_RESCALE
    const float alpha = 1.0f;
#else
    const float alpha = v_exp_f32(m - m_ref);
#endif
    float psum = 0.0f;
    shortx4 pb;
    for (int r = 0; r < 4; ++r) {
      const float pr = v_exp_f32(s2[r] - m_ref);
      psum += pr;
      pb[r] = static_cast<short>(to_bf16(pr));
    }
    l = l * alpha + row_sum(psum);
    m = m_new;

    // Oᵀ += Vᵀ·Pᵀ: A operand lane holds V[kv0 + 4g + 0..3][16c + row]; B is this lane's P.
    for (int c = 0; c < kSteps; ++c) {
      shortx4 vf;
      for (int r = 0; r < 4; ++r) {
        const int j = kv0 + 4 * g + r;
        // Keys past Sk are zero, not read: 0 * NaN padding would poison the row.
        vf[r] = j < p.seqlen_k ? static_cast<short>(vb[j * p.v_stride_s + 16 * c + row]) : short{0};
      }
      acc[c] *= alpha;
      wait_valu_to_mfma(acc[c]);
      wait_valu_to_mfma(pb);
      mfma_f32_16x16x16_bf16(acc[c], vf, pb);
    }
    for (int c = 0; c < kSteps; ++c) wait_mfma_result(acc[c]);
  }

  if (!q_valid) return;
  // A row that saw no key has l = 0: O = +0.0, LSE = -inf (docs/semantics.md).
  const float inv_l = l > 0.0f ? v_rcp_f32(l) : 0.0f;
  unsigned short* ob = o + b * p.o_stride_b + h * p.o_stride_h + qi * p.o_stride_s;
  for (int c = 0; c < kSteps; ++c) {
    shortx4 out;
    for (int r = 0; r < 4; ++r) out[r] = static_cast<short>(to_bf16(acc[c][r] * inv_l));
    *reinterpret_cast<shortx4*>(ob + 16 * c + 4 * g) = out;
  }
  if (g == 0) {
    constexpr float kLn2 = 0.693147180559945309f;
    lse[(b * p.heads_q + h) * p.seqlen_q + qi] = l > 0.0f ? (m + v_log_f32(l)) * kLn2 : -__builtin_inff();
  }
}

}  // namespace

#define CDNA_ATTENTION_KERNEL(D)                                                                  \
  extern "C" __global__ void __launch_bounds__(64)                                                \
      attn_fwd_d##D(const unsigned short* q, const unsigned short* k, const unsigned short* v,    \
                    unsigned short* o, float* lse, AttentionParams p) {                           \
    attention_fwd<D>(q, k, v, o, lse, p);                                                         \
  }

CDNA_ATTENTION_KERNEL(64)
CDNA_ATTENTION_KERNEL(128)
