// Kernel arguments of the attention-forward kernels (device/kernels/attention_fwd.hip), shared
// by the device code and the host launcher so both see one layout. Plain C types only.
//
// Kernel signature: attn_fwd_d{64,128}(const bf16* q, const bf16* k, const bf16* v, bf16* o,
//                                       float* lse, AttentionParams params)
// Grid: (ceil(Sq / 16), Hq, B) workgroups of 64 work-items (one wave): each workgroup computes
// 16 query rows of one (batch, head).
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

#ifdef __cplusplus
}  // namespace cdna::device
#endif
