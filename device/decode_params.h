// Kernel arguments of the decode monokernel (device/kernels/decode_monokernel.hip), shared by
// the device code and the host launcher (device/decode_launcher.cpp) so both see one layout.
// Plain C types only. Protocol and layouts: docs/decode-semantics.md §2 and §5.
//
// Kernel signature:
//   decode_monokernel(const uint16_t* weights, const float* rope_cos, const float* rope_sin,
//                     const int32_t* prompt, const int32_t* eos, uint32_t* exchange,
//                     uint64_t* partials, uint32_t* kv_cache, float* logits, int32_t* tokens,
//                     int32_t* status, float* hidden, DecodeParams params)
// Grid: G persistent workgroups (all resident at once), block: a multiple of 64 work-items.
#pragma once

#include <stdint.h>

#ifdef __cplusplus
namespace cdna::device {
#endif

// Sentinels: signalling-NaN bit patterns. A VALU result is never a signalling NaN (IEEE 754
// §6.2: operations on a NaN return a quiet NaN; CDNA3 ISA guide §7: "quiet NaN is returned"),
// and bf16 conversion of a quiet NaN keeps the quiet bit, so no value the kernel computes can
// equal them (docs/decode-semantics.md §5). Compared bitwise.
#define CDNA_DECODE_SENTINEL32 0x7F800001u  // fp32 exchange element / partial's low word
#define CDNA_DECODE_SENTINEL16 0x7F81u      // one bf16 KV-cache element
#define CDNA_DECODE_SENTINEL_KV 0x7F817F81u // one dword (two bf16) of the KV cache

// Status words the kernel writes (status[0..2]).
#define CDNA_DECODE_STATUS_STEPS 0  // N tokens generated
#define CDNA_DECODE_STATUS_EOS 1    // the last token is an eos id
#define CDNA_DECODE_STATUS_NAN 2    // a logit was NaN: the last token is -1

struct DecodeParams {
  int32_t hidden;        // H
  int32_t intermediate;  // I
  int32_t layers;        // L
  int32_t heads_q;       // Hq
  int32_t heads_kv;      // Hkv
  int32_t head_dim;      // D
  int32_t vocab;         // V
  int32_t prompt_len;    // P >= 1
  int32_t steps;         // N >= 1 tokens to generate
  int32_t eos_count;     // entries of eos[]
  int32_t max_positions; // KV-cache slots per (layer, KV head) and rows of the RoPE table
  int32_t record_hidden; // 1: write the residual stream entering every layer, and the final
                         // RMSNorm's output, to hidden [positions, L + 1, H] (fp32); 0: hidden unused
  float inv_hidden;      // fp32(1/H): mean = sum of squares * inv_hidden
  float rms_eps;         // fp32(rms_norm_eps)
  float score_scale;     // fp32(log2(e)/sqrt(D)): scores go straight to base 2
  float pad1;
  // Element offsets (bf16 elements) into `weights` (layout: device/decode_launcher.hpp).
  int64_t embed;         // [V, H]
  int64_t final_norm;    // [H]
  int64_t lm_head;       // [V, H] (== embed when tied)
  int64_t layer0;        // first layer's block
  int64_t layer_stride;  // elements per layer block
  // Within a layer block:
  int64_t in_norm, qkv, o, post_norm, gate, up, down;
  // Element offsets (32-bit words) of one exchange set; a set is `set_words` words, set s at
  // s * set_words. Within a set, per layer block of `xlayer_words`: qkv, attn, xmid, act, xout.
  int64_t set_words, xlayer_words;
  int64_t x_qkv, x_attn, x_xmid, x_act, x_xout;
};

#ifdef __cplusplus
}  // namespace cdna::device
#endif
