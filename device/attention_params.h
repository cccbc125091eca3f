// Kernel arguments of the attention-forward kernels (device/kernels/attention_fwd.hip), shared
// by the device code and the host launcher so both see one layout. Plain C types only.
//
// Kernel signature: attn_fwd_d{64,128}(const bf16* q, const bf16* k, const bf16* v, bf16* o,
//                                       float* lse, AttentionParams params)
// Grid: (ceil(Sq / 16), Hq, B) workgroups of 64 work-items (one wave): each workgroup computes
// 16 query rows of one (batch, head).
//
// The extended kernels (varlen, paged KV, sliding window; docs/semantics.md §8):
//   attn_fwd_ext_d{64,128}(q, k, v, o, lse, const int32* cu_seqlens_q, const int32* seqstart_q,
//                          const int32* cu_seqlens_k, const int32* seqstart_k,
//                          const int32* seqused_k, const int32* block_table,
//                          AttentionExtParams params)
// Every int32 pointer may be null. cu_seqlens_q null: a dense batch (Sq_b = seqlen_q, Sk_b =
// seqlen_k, rows from 0, batch stride as given); else sequence b has Sq_b = cu_seqlens_q[b+1] -
// cu_seqlens_q[b] queries from row seqstart_q[b] (cu_seqlens_q[b] when seqstart_q is null), Sk_b
// = seqused_k[b] (else cu_seqlens_k[b+1] - cu_seqlens_k[b]) keys from row seqstart_k[b] (else
// cu_seqlens_k[b]); block_table non-null: key j of sequence b is row
// block_table[b * pages_per_sequence + j / page_size] * page_size + j % page_size of k and v.
// Grid: (ceil(max Sq_b / 16), Hq, B); a workgroup past its sequence's Sq_b returns at once.
#pragma once

#include <stdint.h>

#ifdef __cplusplus
namespace cdna::device {
#endif

struct AttentionParams {
  int32_t seqlen_q;  // Sq
  int32_t seqlen_k;  // Sk
  int32_t heads_q;   // Hq
  int32_t heads_kv;  // Hkv; query head h reads KV head h / (Hq / Hkv)
  int32_t causal;    // 0: no mask, 1: causal bottom-right (j <= i + Sk - Sq)
  float scale_log2;  // scale * log2(e), rounded to fp32 on the host: scores go straight to base 2
  // Strides in elements (not bytes) of the BSHD tensors: batch, sequence, head.
  int64_t q_stride_b, q_stride_s, q_stride_h;
  int64_t k_stride_b, k_stride_s, k_stride_h;
  int64_t v_stride_b, v_stride_s, v_stride_h;
  int64_t o_stride_b, o_stride_s, o_stride_h;
  // LSE is [B, Hq, Sq] contiguous (fp32, natural log).
};

struct AttentionExtParams {
  // seqlen_q / seqlen_k: dense, the lengths; varlen, the largest Sq_b / Sk_b (the grid's extent,
  // never an alignment). Strides as above; varlen and paged storage have batch stride 0 (rows
  // of all sequences in one tensor: q [rows_q, Hq, D], k [rows_k or pages * page_size, Hkv, D]).
  AttentionParams base;
  int32_t window_left, window_right;  // FlashAttention's window_size; -1 = unbounded side
  int32_t page_size;                  // keys per page (paged only)
  int32_t pages_per_sequence;         // columns of block_table
  int64_t lse_stride_b, lse_stride_h; // LSE element of (b, h, row): b * stride_b + h * stride_h + row
};

#ifdef __cplusplus
}  // namespace cdna::device
#endif
