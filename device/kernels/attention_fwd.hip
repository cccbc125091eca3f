// Attention forward for gfx942 (MI300X): bf16 Q/K/V/O, fp32 accumulation, online softmax in
// base 2, MFMA through one-instruction asm wrappers. Semantics: docs/semantics.md.
//
// Compile-time parameters (one code object per value):
//   CDNA_BF16_ROUNDING  0 RTNE, 1 RTNA, 2 RTZ (AITER's how_v3_bf16_cvt numbering): the rounding
//                       of P before the P·V MFMA and of the stored O (cdna3-facts.md §6).
//   CDNA_MUTANT_<NAME>  one deliberate mistake each, for measuring the verifier (mutation
//                       testing, docs/mutation-testing.md); never set in a release. At most one
//                       at a time; with none set the kernel is the correct one. <NAME>:
//     TOPLEFT            causal mask aligned top-left (j <= i) instead of bottom-right
//     NO_RESCALE         running sum and accumulator not rescaled when the max grows
//     L_NOT_RESCALED     accumulator rescaled when the max grows, running sum not
//     ACC_NOT_RESCALED   running sum rescaled when the max grows, accumulator not
//     MAX_BEFORE_SCALE   running max taken over the raw scores Q·K, used as the shift of the
//                        scaled base-2 scores (the shift cancels in exact arithmetic, but the
//                        row max no longer gets p = 1, and large logits underflow to l = 0)
//     EXP_BASE_E         natural exp (expf, i.e. exp2(x·log2 e)) applied to base-2 scores
//     LSE_BASE2          LSE stored in base 2 (m + log2 l), the ln 2 factor forgotten
//     LSE_NO_MAX         LSE = ln l, the running max term forgotten
//     P_TRUNC            P not rounded: the high half of the fp32 bits reinterpreted as bf16
//                        (truncation) instead of the declared conversion
//     O_RTZ              the stored O truncated (RTZ) where RTNE is declared
//     O_ROUNDED_TWICE    the unnormalised accumulator rounded to bf16 (a bf16 staging buffer),
//                        then normalised and rounded again
//     KV_TAIL_UNMASKED   the j < Sk test dropped from the score mask: the zero-padded keys of
//                        the last partial KV tile get weight exp2(0 - m)
//     DROP_LAST_KV_TILE  the KV loop visits whole 16-key tiles only: the last partial one (and,
//                        under the causal mask, a partial visible range) is ignored
//     MASKED_ROW_NAN     the -inf guard of the shift dropped: a fully masked row computes
//                        -inf - (-inf) = NaN
//     MASKED_ROW_RCP0    the l > 0 guard of the normalisation dropped: 0 · rcp(0) = NaN
//     GQA_MOD            KV head h % Hkv instead of h / (Hq / Hkv)
//     SUM_BF16           running sum kept in bf16 (rounded after every update)
//     SCALE_TWICE        softmax scale applied twice (scores · scale · scale·log2 e)
//     SCALE_SQRT_D       scale computed as sqrt(D) instead of taken from the host (1/sqrt(D))
//     CAUSAL_OFF_BY_ONE  causal diagonal excluded: j < i + Sk - Sq
//     KV_END_TOPLEFT     the KV loop bound computed top-left (last row + 1) while the mask is
//                        bottom-right: for Sq < Sk rows miss their last visible keys
//     DROP_LAST_Q_TILE   a workgroup whose 16-row query tile is partial returns at once (the
//                        last query tile is dropped when Sq is not a multiple of 16)
//     NO_MFMA_WAIT       the last Q·Kᵀ MFMA without its wait states (plain mfma, not _then_wait): the
//                        VALU reads the scores too early (a hazard; wrong data on hardware)
//     NO_VALU_WAIT       the wait states before the P·V MFMA (wait_valu_to_mfma) left out
//     ROW_MAX_PARTIAL    the cross-lane row max reduces over lanes l ^ 16 only, not l ^ 32
//     MASK_ZERO          masked scores set to 0 instead of -inf (masked_fill with 0)
//     INF_SCORE_NAIVE    +inf scores not special-cased: 2^(s - m) with s = m = +inf (and the
//                        rescale 2^(m - m)) is NaN, so a row with one +inf score gives NaN
//                        where the definition gives V of that key
//     V_NONFINITE_MFMA   NaN/inf V entries go into the P·V MFMA as they are: a row that cannot
//                        see the key multiplies them by its P = 0, and 0 · NaN = NaN leaks in
//     NO_TRANS_WAIT      v_exp_f32's wrapper without its s_nop 0: the VALU that reads the result
//                        next has 0 of the 1 wait states it needs (a hazard; device/asm/wrappers.hpp)
//   (the extended kernels attn_fwd_ext_*: varlen, paged KV, sliding window)
//     WINDOW_OFF_BY_ONE  the window's left edge one key too wide: key diag - left - 1 is visible
//     PAGE_INDEX_OFF_BY_ONE  the page of key j taken from its 1-based position, (j + 1) / page_size,
//                        with the slot j % page_size: the last key of every page is read from
//                        the next page (the table's next column)
//     VARLEN_GLOBAL_ALIGNMENT  the causal / window diagonal aligned with the batch's largest
//                        lengths (max Sk_b - max Sq_b) instead of each sequence's Sk_b - Sq_b
//
// Two kernels per head dim: attn_fwd_d* (dense batches) and attn_fwd_ext_* (varlen, padded
// starts, seqused_k, paged KV, sliding window; device/attention_params.h). Both are this one
// template; the extended parts are `if constexpr (Ext)`, so the dense kernels' instructions are
// those of a kernel without them.
//
// Work split: one wave per workgroup, 16 query rows of one (batch, head). Lane l owns query
// row i = l % 16 and key/column group g = l / 16. Scores are computed transposed, Sᵀ = K·Qᵀ,
// so that the MFMA result layout (lane l, register r holds Sᵀ[4g + r][i]) is exactly the
// B-operand layout that Oᵀ = Vᵀ·Pᵀ needs, and Oᵀ's result layout keeps row i in lane l % 16:
// the softmax statistics of row i never leave the four lanes {i, i+16, i+32, i+48}.
// KV is processed in blocks of 16 keys: D/16 MFMAs for Sᵀ and D/16 for Oᵀ per block.
//
// Non-finite inputs (docs/semantics.md §5), with the arithmetic of finite inputs unchanged:
// - +inf scores: once the running max is +inf a +inf score gets weight 2^0 = 1 and every other
//   score weight 0, so l counts the +inf keys: one gives O = V of that key and LSE = +inf, two
//   or more O = NaN (§5.6). A NaN score makes p̃, l and the accumulator NaN: the row is NaN.
// - NaN/inf in V: the P·V MFMA serves all 16 rows of a tile, and a row that gives the key weight
//   0 (masked for it, a -inf score, a finite score beside +inf) would compute 0 · NaN = NaN. Such
//   entries enter the MFMA as 0; when a block holds one (wave-wide test, rare path) each row
//   adds the entries of the keys it weighs into its own `nonfin` sum, which O adds at the end
//   (a weighed key's weight is positive, so its NaN/±inf decides the column: §5.7).
// Keys past Sk, rows past Sq and the padding of strided layouts are never read.

#include "device/asm/wrappers.hpp"
#include "device/attention_params.h"
#include "device/kernels/bf16_convert.hpp"

#ifndef CDNA_BF16_ROUNDING
#error "CDNA_BF16_ROUNDING must be 0 (RTNE), 1 (RTNA) or 2 (RTZ)"
#endif

// The rounding mode this code object was built for, kept in its ELF (.rodata, a global symbol)
// so that a host can read it without running the kernel and refuse a code object declared for
// another mode (device/attention_launcher.hpp, code_object_rounding).
extern "C" __device__ __attribute__((used)) const unsigned int cdna_bf16_rounding = CDNA_BF16_ROUNDING;

namespace {

using cdna::device::AttentionExtParams;
using cdna::device::AttentionParams;
using namespace cdna::device::asm_ops;
using cdna::device::bf16::to_bf16;

[[maybe_unused]] constexpr float kLn2 = 0.693147180559945309f;

#if defined(CDNA_MUTANT_P_TRUNC) || defined(CDNA_MUTANT_O_RTZ)
// The high half of the fp32 bits: truncation (RTZ for finite values).
__device__ __forceinline__ unsigned short high_half(float x) {
  return static_cast<unsigned short>(__builtin_bit_cast(unsigned, x) >> 16);
}
#endif
#if defined(CDNA_MUTANT_O_ROUNDED_TWICE) || defined(CDNA_MUTANT_SUM_BF16)
// x rounded to bf16 in the kernel's mode and widened back to fp32.
__device__ __forceinline__ float round_to_bf16(float x) {
  return __builtin_bit_cast(float, static_cast<unsigned>(to_bf16(x)) << 16);
}
#endif

// 2^x for the softmax (the scores are in base 2).
__device__ __forceinline__ float softmax_exp2(float x) {
#ifdef CDNA_MUTANT_EXP_BASE_E
  return v_exp_f32(x * 1.44269504088896341f);  // expf(x) on a base-2 score
#else
  return v_exp_f32(x);
#endif
}

// Maximum / sum over the four lanes that share a query row (lanes i, i+16, i+32, i+48).
__device__ __forceinline__ float row_max(float x) {
  x = fmaxf(x, __shfl_xor(x, 16));
#ifdef CDNA_MUTANT_ROW_MAX_PARTIAL
  return x;
#else
  return fmaxf(x, __shfl_xor(x, 32));
#endif
}
__device__ __forceinline__ float row_sum(float x) {
  x += __shfl_xor(x, 16);
  return x + __shfl_xor(x, 32);
}

// The exponent of 2^(s - m) for a base-2 score s under the running max m (m_ref: -inf replaced
// by 0). Once m = +inf, a +inf score gets 0 (weight 1, so l counts the +inf keys) and every
// finite score -inf (weight 0): docs/semantics.md §5.6. For finite m the select is a no-op.
__device__ __forceinline__ float exp2_arg(float s, float m_ref) {
#ifdef CDNA_MUTANT_INF_SCORE_NAIVE
  return s - m_ref;
#else
  return s == __builtin_inff() ? 0.0f : s - m_ref;
#endif
}

// True if bf16 bits `x` are NaN or ±inf (exponent all ones).
__device__ __forceinline__ bool bf16_nonfinite(unsigned short x) { return (x & 0x7F80u) == 0x7F80u; }

// The extended kernels' per-sequence tables and window (attention_params.h); unused (and
// optimised away) in the dense kernels.
struct ExtView {
  const int* cu_seqlens_q;
  const int* seqstart_q;
  const int* cu_seqlens_k;
  const int* seqstart_k;
  const int* seqused_k;
  const int* block_table;
  int window_left, window_right, page_size, pages_per_sequence;
  long lse_stride_b, lse_stride_h;
};

// The sequence a workgroup works on.
struct Sequence {
  int sq, sk;    // Sq_b, Sk_b
  int shift;     // query i's diagonal is key i + shift (bottom-right alignment: Sk_b - Sq_b)
  int q_row0;    // storage row of query 0 (dense: 0, the batch stride places the batch)
  int k_row0;    // storage row of key 0 (unpaged)
};

template <bool Ext>
__device__ __forceinline__ Sequence sequence_of(const AttentionParams& p, const ExtView& t, int b) {
  Sequence s{p.seqlen_q, p.seqlen_k, 0, 0, 0};
  if constexpr (Ext) {
    if (t.cu_seqlens_q) {
      s.sq = t.cu_seqlens_q[b + 1] - t.cu_seqlens_q[b];
      s.q_row0 = t.seqstart_q ? t.seqstart_q[b] : t.cu_seqlens_q[b];
    }
    if (t.cu_seqlens_k) {
      s.sk = t.cu_seqlens_k[b + 1] - t.cu_seqlens_k[b];
      s.k_row0 = t.seqstart_k ? t.seqstart_k[b] : t.cu_seqlens_k[b];
    }
    if (t.seqused_k) s.sk = t.seqused_k[b];
  }
#ifdef CDNA_MUTANT_VARLEN_GLOBAL_ALIGNMENT
  s.shift = p.seqlen_k - p.seqlen_q;  // the grid's largest lengths, not this sequence's
#else
  s.shift = s.sk - s.sq;
#endif
  return s;
}

// The first key the sliding window lets the query with diagonal `diag` see (left >= 0).
__device__ __forceinline__ int window_first(int diag, int left) {
#ifdef CDNA_MUTANT_WINDOW_OFF_BY_ONE
  return diag - left - 1;
#else
  return diag - left;
#endif
}

// Storage row of key j < Sk_b of sequence b in k and v.
template <bool Ext>
__device__ __forceinline__ int key_row(const ExtView& t, const Sequence& s, int b, int j) {
  if constexpr (!Ext) {
    return j;
  } else {
    if (!t.block_table) return s.k_row0 + j;
#ifdef CDNA_MUTANT_PAGE_INDEX_OFF_BY_ONE
    const int page = t.block_table[b * t.pages_per_sequence + (j + 1) / t.page_size];
#else
    const int page = t.block_table[b * t.pages_per_sequence + j / t.page_size];
#endif
    return page * t.page_size + j % t.page_size;
  }
}

// Element of LSE that holds row qi of (b, h): dense [B, Hq, Sq]; extended, the given strides.
template <bool Ext>
__device__ __forceinline__ auto lse_offset(const AttentionParams& p, const ExtView& t, const Sequence& s, int b, int h,
                                           int qi) {
  if constexpr (Ext) {
    return b * t.lse_stride_b + h * t.lse_stride_h + s.q_row0 + qi;
  } else {
    return (b * p.heads_q + h) * p.seqlen_q + qi;
  }
}

template <bool Ext>
__device__ __forceinline__ bool key_visible(const AttentionParams& p, const ExtView& t, const Sequence& s, int i,
                                            int j) {
#ifndef CDNA_MUTANT_KV_TAIL_UNMASKED
  if (j >= s.sk) return false;
#endif
  if constexpr (Ext) {
    if (t.window_left >= 0 && j < window_first(i + s.shift, t.window_left)) return false;
    if (t.window_right >= 0 && j > i + s.shift + t.window_right) return false;
  }
  if (!p.causal) return true;
#if defined(CDNA_MUTANT_TOPLEFT)
  return j <= i;
#elif defined(CDNA_MUTANT_CAUSAL_OFF_BY_ONE)
  return j < i + s.shift;
#else
  return j <= i + s.shift;
#endif
}

template <int D, bool Ext>
__device__ void attention_fwd(const unsigned short* __restrict__ q, const unsigned short* __restrict__ k,
                              const unsigned short* __restrict__ v, unsigned short* __restrict__ o,
                              float* __restrict__ lse, const AttentionParams& p, const ExtView& t) {
  constexpr int kSteps = D / 16;  // MFMAs per 16-key block, for Sᵀ and for Oᵀ alike
  const int lane = static_cast<int>(threadIdx.x);
  const int row = lane & 15;
  const int g = lane >> 4;
  const int b = static_cast<int>(blockIdx.z);
  const int h = static_cast<int>(blockIdx.y);
#ifdef CDNA_MUTANT_GQA_MOD
  const int hk = h % p.heads_kv;
#else
  const int hk = h / (p.heads_q / p.heads_kv);
#endif
  const Sequence sq = sequence_of<Ext>(p, t, b);
  const int q0 = static_cast<int>(blockIdx.x) * 16;
  if constexpr (Ext) {
    if (q0 >= sq.sq) return;  // the grid covers the longest sequence
  }
#ifdef CDNA_MUTANT_DROP_LAST_Q_TILE
  if (q0 + 16 > sq.sq) return;
#endif
  const int qi = q0 + row;
  const bool q_valid = qi < sq.sq;

  const unsigned short* qb = q + b * p.q_stride_b + h * p.q_stride_h;
  const unsigned short* kb = k + b * p.k_stride_b + hk * p.k_stride_h;
  const unsigned short* vb = v + b * p.v_stride_b + hk * p.v_stride_h;

  // Qᵀ as the B operand: lane holds Q[qi][16s + 4g + 0..3].
  shortx4 qf[kSteps];
  for (int s = 0; s < kSteps; ++s) {
    qf[s] = q_valid ? *reinterpret_cast<const shortx4*>(qb + (sq.q_row0 + qi) * p.q_stride_s + 16 * s + 4 * g)
                    : shortx4{0, 0, 0, 0};
  }

  // Keys beyond the last one any row of this tile can see need no visit.
  int kv_end = sq.sk;
  if (p.causal) {
    const int last_row = min(q0 + 15, sq.sq - 1);
#if defined(CDNA_MUTANT_TOPLEFT) || defined(CDNA_MUTANT_KV_END_TOPLEFT)
    kv_end = min(kv_end, last_row + 1);
#else
    kv_end = min(kv_end, last_row + sq.shift + 1);
#endif
  }
  // Keys before the first one the window shows the tile's first row need no visit either (a
  // tile of 16 keys from a multiple of 16, as in the dense kernels).
  int kv_begin = 0;
  if constexpr (Ext) {
    const int last_row = min(q0 + 15, sq.sq - 1);
    if (t.window_right >= 0) kv_end = min(kv_end, last_row + sq.shift + t.window_right + 1);
    if (t.window_left >= 0) kv_begin = max(0, window_first(q0 + sq.shift, t.window_left)) & ~15;
  }

  float m = -__builtin_inff();  // running max of the base-2 scores of this row
  float l = 0.0f;                // running sum of 2^(score - m)
  floatx4 acc[kSteps];           // Oᵀ: acc[c][r] = O[qi][16c + 4g + r], unnormalised
  floatx4 nonfin[kSteps];        // the NaN/inf V entries of the keys this row weighs, summed
  for (int c = 0; c < kSteps; ++c) acc[c] = nonfin[c] = floatx4{0.0f, 0.0f, 0.0f, 0.0f};

#ifdef CDNA_MUTANT_DROP_LAST_KV_TILE
  for (int kv0 = kv_begin; kv0 + 16 <= kv_end; kv0 += 16) {
#else
  for (int kv0 = kv_begin; kv0 < kv_end; kv0 += 16) {
#endif
    // Sᵀ = K·Qᵀ for keys kv0..kv0+15: A operand lane holds K[kv0 + row][16s + 4g + 0..3].
    const int kj = kv0 + row;
    floatx4 st = {0.0f, 0.0f, 0.0f, 0.0f};
    shortx4 kf[kSteps];
    for (int s = 0; s < kSteps; ++s) {
      kf[s] = kj < sq.sk
                  ? *reinterpret_cast<const shortx4*>(kb + key_row<Ext>(t, sq, b, kj) * p.k_stride_s + 16 * s + 4 * g)
                  : shortx4{0, 0, 0, 0};
    }
    wait_valu_to_mfma(st);
    for (int s = 0; s + 1 < kSteps; ++s) mfma_f32_16x16x16_bf16(st, kf[s], qf[s]);
#ifdef CDNA_MUTANT_NO_MFMA_WAIT
    mfma_f32_16x16x16_bf16(st, kf[kSteps - 1], qf[kSteps - 1]);
#else
    mfma_f32_16x16x16_bf16_then_wait(st, kf[kSteps - 1], qf[kSteps - 1]);
#endif

    // st[r] = S[qi][kv0 + 4g + r] before scaling.
    float s2[4];
    float block_max = -__builtin_inff();
    for (int r = 0; r < 4; ++r) {
      const bool visible = key_visible<Ext>(p, t, sq, qi, kv0 + 4 * g + r);
#if defined(CDNA_MUTANT_SCALE_TWICE)
      const float score = st[r] * (p.scale_log2 * kLn2) * p.scale_log2;
#elif defined(CDNA_MUTANT_SCALE_SQRT_D)
      const float score = st[r] * (__builtin_sqrtf(static_cast<float>(D)) * 1.44269504088896341f);
#else
      const float score = st[r] * p.scale_log2;
#endif
#ifdef CDNA_MUTANT_MASK_ZERO
      s2[r] = visible ? score : 0.0f;
#else
      s2[r] = visible ? score : -__builtin_inff();
#endif
#ifdef CDNA_MUTANT_MAX_BEFORE_SCALE
      block_max = fmaxf(block_max, visible ? st[r] : -__builtin_inff());
#else
      block_max = fmaxf(block_max, s2[r]);
#endif
    }
    const float m_new = fmaxf(m, row_max(block_max));
    // While every key so far is masked, m_new = -inf: subtract 0 so that no -inf - -inf = NaN.
#ifdef CDNA_MUTANT_MASKED_ROW_NAN
    const float m_ref = m_new;
#else
    const float m_ref = m_new == -__builtin_inff() ? 0.0f : m_new;
#endif
    // +inf scores (docs/semantics.md §5.6, exp2_arg): alpha = 1 while m stays +inf
    // (2^(inf - inf) would be NaN); for finite m the select is a no-op.
#ifdef CDNA_MUTANT_NO_RESCALE
    const float alpha = 1.0f;
#else
#ifdef CDNA_MUTANT_INF_SCORE_NAIVE
    const float alpha = softmax_exp2(m - m_ref);
#else
    const float alpha = m == __builtin_inff() ? 1.0f : softmax_exp2(m - m_ref);
#endif
#endif
    // The keys that end up with weight 0 when m becomes +inf include those already summed:
    // their NaN/inf V entries are dropped with them (acc and l drop theirs through alpha = 0).
    if (__builtin_amdgcn_ballot_w64(m_new == __builtin_inff() && m != m_new) != 0) {
      for (int c = 0; c < kSteps; ++c) {
        if (m != m_new && m_new == __builtin_inff()) nonfin[c] = floatx4{0.0f, 0.0f, 0.0f, 0.0f};
      }
    }
    float psum = 0.0f;
    shortx4 pb;
    for (int r = 0; r < 4; ++r) {
      const float pr = softmax_exp2(exp2_arg(s2[r], m_ref));
      psum += pr;
#ifdef CDNA_MUTANT_P_TRUNC
      pb[r] = static_cast<short>(high_half(pr));
#else
      pb[r] = static_cast<short>(to_bf16(pr));
#endif
    }
#if defined(CDNA_MUTANT_L_NOT_RESCALED)
    l = l + row_sum(psum);
#elif defined(CDNA_MUTANT_SUM_BF16)
    l = round_to_bf16(l * alpha + row_sum(psum));
#else
    l = l * alpha + row_sum(psum);
#endif
    m = m_new;

    // Oᵀ += Vᵀ·Pᵀ: A operand lane holds V[kv0 + 4g + 0..3][16c + row]; B is this lane's P.
    // The MFMA serves all 16 rows, so a V entry of a key that one row weighs 0 (masked, or a
    // -inf score) is multiplied by that row's P = 0: 0 · NaN = 0 · inf = NaN, where §5.2/§5.7
    // say the key has no effect. NaN/inf entries therefore enter the MFMA as 0 (finite inputs
    // keep their arithmetic, docs/error-analysis.md §1), and each row adds them itself below
    // for the keys it weighs. Keys past Sk are zero, not read.
    shortx4 vf[kSteps];
    unsigned v_exp = 0;  // the largest exponent field: 0x7F80 iff some entry is NaN/inf
    for (int c = 0; c < kSteps; ++c) {
      for (int r = 0; r < 4; ++r) {
        const int j = kv0 + 4 * g + r;
        const unsigned short x = j < sq.sk ? vb[key_row<Ext>(t, sq, b, j) * p.v_stride_s + 16 * c + row] : 0;
        v_exp = max(v_exp, x & 0x7F80u);
        vf[c][r] = static_cast<short>(x);
      }
    }
    const bool v_nonfinite = __builtin_amdgcn_ballot_w64(v_exp == 0x7F80u) != 0;  // wave-uniform
#ifndef CDNA_MUTANT_V_NONFINITE_MFMA
    if (v_nonfinite) {
      for (int c = 0; c < kSteps; ++c) {
        for (int r = 0; r < 4; ++r) {
          if (bf16_nonfinite(static_cast<unsigned short>(vf[c][r]))) vf[c][r] = 0;
        }
      }
    }
#endif
    for (int c = 0; c < kSteps; ++c) {
#ifndef CDNA_MUTANT_ACC_NOT_RESCALED
      acc[c] *= alpha;
#endif
#ifndef CDNA_MUTANT_NO_VALU_WAIT
      wait_valu_to_mfma(acc[c]);
      wait_valu_to_mfma(pb);
#endif
      mfma_f32_16x16x16_bf16_then_wait(acc[c], vf[c], pb);
    }
    // A weighed key's NaN/inf entry makes its O column NaN or ±inf whatever its weight (§5.7:
    // the exact weight is positive even where p̃ underflows to 0), so the entry itself is added,
    // not p̃ · V. Rare: a wave-uniform branch.
    if (v_nonfinite) {
      int row_weighs = 0;  // bit j: key kv0 + j has positive weight in this row (§5.7)
      for (int r = 0; r < 4; ++r) row_weighs |= (exp2_arg(s2[r], m_ref) > -__builtin_inff()) << (4 * g + r);
      row_weighs |= __shfl_xor(row_weighs, 16);
      row_weighs |= __shfl_xor(row_weighs, 32);
#pragma clang loop unroll(disable)  // rare path: keep it short (and the SGPRs few)
      for (int j = 0; j < 16; ++j) {
        if (!((row_weighs >> j) & 1) || kv0 + j >= sq.sk) continue;
        const unsigned short* vr = vb + key_row<Ext>(t, sq, b, kv0 + j) * p.v_stride_s + 4 * g;
        for (int c = 0; c < kSteps; ++c) {
          const shortx4 v4 = *reinterpret_cast<const shortx4*>(vr + 16 * c);
          for (int r = 0; r < 4; ++r) {
            const unsigned short x = static_cast<unsigned short>(v4[r]);
            if (bf16_nonfinite(x)) nonfin[c][r] += __builtin_bit_cast(float, static_cast<unsigned>(x) << 16);
          }
        }
      }
    }
  }

  if (!q_valid) return;
  // O = acc / l + the NaN/inf V entries of the weighed keys (zero for finite inputs, where adding
  // +0 changes no bits but a -0.0, which §5.8 wants as +0.0 anyway). l = 0 means no key has
  // weight (no visible key, or only -inf scores): O = +0.0, LSE = -inf (§5.1, §5.5); acc is
  // exactly 0 there since no NaN/inf V entry enters the MFMA. A NaN score makes p̃, acc and l NaN
  // and the whole row stays NaN (§5.4): LSE = (m + log2 l)·ln 2 has no select on l (m = -inf and
  // log2(+0) = -inf give -inf, log2(NaN) gives NaN), and acc · 0 is NaN. With m = +inf, l counts
  // the +inf keys: one gives O = V of that key (p̃ = 1) and LSE = +inf, two or more O = NaN (§5.6).
  // (The NaN-score and no-visible-key rows were found by the property suite: properties/README.md.)
#ifdef CDNA_MUTANT_MASKED_ROW_RCP0
  const float inv_l = v_rcp_f32(l);
#else
  const float inv_l = l > 0.0f ? (m == __builtin_inff() && l > 1.0f ? __builtin_nanf("") : v_rcp_f32(l)) : 0.0f;
#endif
  unsigned short* ob = o + b * p.o_stride_b + h * p.o_stride_h + (sq.q_row0 + qi) * p.o_stride_s;
  for (int c = 0; c < kSteps; ++c) {
    shortx4 out;
    for (int r = 0; r < 4; ++r) {
#if defined(CDNA_MUTANT_O_RTZ)
      out[r] = static_cast<short>(high_half(acc[c][r] * inv_l + nonfin[c][r]));
#elif defined(CDNA_MUTANT_O_ROUNDED_TWICE)
      out[r] = static_cast<short>(to_bf16(round_to_bf16(acc[c][r]) * inv_l + nonfin[c][r]));
#else
      out[r] = static_cast<short>(to_bf16(acc[c][r] * inv_l + nonfin[c][r]));
#endif
    }
    *reinterpret_cast<shortx4*>(ob + 16 * c + 4 * g) = out;
  }
  if (g == 0) {
    float* lse_at = lse + lse_offset<Ext>(p, t, sq, b, h, qi);
#if defined(CDNA_MUTANT_LSE_BASE2)
    *lse_at = m + v_log_f32(l);
#elif defined(CDNA_MUTANT_LSE_NO_MAX)
    *lse_at = v_log_f32(l) * kLn2;
#else
    *lse_at = (m + v_log_f32(l)) * kLn2;
#endif
  }
}

}  // namespace

#define CDNA_ATTENTION_KERNEL(D)                                                                  \
  extern "C" __global__ void __launch_bounds__(64)                                                \
      attn_fwd_d##D(const unsigned short* q, const unsigned short* k, const unsigned short* v,    \
                    unsigned short* o, float* lse, AttentionParams p) {                           \
    attention_fwd<D, false>(q, k, v, o, lse, p, ExtView{});                                       \
  }                                                                                               \
  extern "C" __global__ void __launch_bounds__(64) attn_fwd_ext_d##D(                             \
      const unsigned short* q, const unsigned short* k, const unsigned short* v, unsigned short* o, \
      float* lse, const int* cu_seqlens_q, const int* seqstart_q, const int* cu_seqlens_k,         \
      const int* seqstart_k, const int* seqused_k, const int* block_table, AttentionExtParams p) { \
    const ExtView t{cu_seqlens_q, seqstart_q, cu_seqlens_k, seqstart_k, seqused_k, block_table,    \
                    p.window_left, p.window_right, p.page_size, p.pages_per_sequence,             \
                    p.lse_stride_b, p.lse_stride_h};                                              \
    attention_fwd<D, true>(q, k, v, o, lse, p.base, t);                                           \
  }

CDNA_ATTENTION_KERNEL(64)
CDNA_ATTENTION_KERNEL(128)
