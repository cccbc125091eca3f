// The decode monokernel for gfx942 (MI300X): ONE persistent dispatch runs, for batch 1, the prompt
// positions and then the decode steps of a Llama-architecture decoder (reference/decode/model.hpp;
// definition docs/decode-semantics.md §1, this kernel's declared arithmetic §2, its
// synchronisation §5). Arguments and layouts: device/decode_params.h, device/decode_launcher.hpp.
//
// Work split: every matrix's rows are cut into tiles of W rows (W = waves per workgroup, one row
// per wave); workgroup w takes tiles w, w+G, w+2G, … (G = grid). Attention: tiles of W query
// heads, one per wave. A row's (or a head's) arithmetic depends only on the row (head), never on
// G, W or which workgroup computes it, so every grid gives bit-identical results.
//
// Synchronisation is by data: the launcher fills every exchange buffer and the KV cache with a
// signalling-NaN sentinel; a consumer polls exactly the elements it needs until they differ from
// the sentinel (bitwise), then issues an acquire fence. Producers store with release semantics
// at agent scope. Exchange buffers come in two parity sets (position p uses set p & 1) and each
// workgroup puts the sentinel back into the elements it produced at position p − 1 just before
// it publishes its LM-head partial of position p; partials come in three sets (set p mod 3), the
// slot written at p − 2 reset at the same point. Why that is late enough and early enough:
// docs/decode-semantics.md §5.
//
// Compile-time parameters (one code object per value):
//   CDNA_BF16_ROUNDING        0 RTNE, 1 RTNA, 2 RTZ: rounding of the bf16 KV cache.
//   CDNA_DECODE_MUTANT_<NAME> one deliberate mistake each (never in a release; at most one):
//     DROPPED_RELEASE            producer stores relaxed (no buffer_wbl2 / wait), no release
//                                fence before the partial
//     DROPPED_RELEASE_PLAIN_STORE  as DROPPED_RELEASE, and the values stored without sc1 (a
//                                plain store: it may stay in the producer's XCD's L2)
//     DROPPED_ACQUIRE            consumer polls with a plain load (no sc bits), no acquire fence
//     SENTINEL_RESET_WRONG_STEP  resets the elements of the current position's set instead of
//                                the previous position's
//     ROPE_POSITION_OFF_BY_ONE   RoPE angle of position p + 1
//     ROPE_INTERLEAVED           RoPE rotates the pairs (2i, 2i + 1) with frequency i (the GPT-J
//                                convention; shainet PR #111's bug) instead of (i, i + D/2)
//     KV_WRONG_SLOT              K/V appended at slot p + 1
//     RESIDUAL_TWICE             o_proj's residual added twice
//     RMSNORM_EPS_MISPLACED      eps added to the sum of squares before dividing by H
//     ARGMAX_TIE_HIGHEST         argmax keeps the highest index on ties
//     GQA_MOD                    query head h reads KV head h mod Hkv
//     LM_HEAD_TILE_SKIPPED       the last LM-head tile is not computed (its rows stay sentinel
//                                and report nothing to the argmax)

#include <stdint.h>

#include "device/asm/wrappers.hpp"
#include "device/decode_params.h"
#include "device/kernels/bf16_convert.hpp"

// The KV-cache rounding mode, readable from the ELF without running the kernel
// (device/attention_launcher.hpp, kRoundingSymbol).
extern "C" __device__ __attribute__((used)) const unsigned int cdna_bf16_rounding = CDNA_BF16_ROUNDING;

namespace {

using cdna::device::DecodeParams;
using namespace cdna::device::asm_ops;
using cdna::device::bf16::to_bf16;
using cdna::device::bf16::widen;

constexpr unsigned kSentinel = CDNA_DECODE_SENTINEL32;
constexpr float kLog2e = 1.44269504088896341f;

__device__ __forceinline__ float as_float(unsigned u) { return __builtin_bit_cast(float, u); }
__device__ __forceinline__ unsigned as_bits(float f) { return __builtin_bit_cast(unsigned, f); }

// ---- The protocol's memory operations (docs/decode-semantics.md §5). ----

// A producer's store of one exchange / KV-cache word: release at agent scope.
__device__ __forceinline__ void publish(uint32_t* p, uint32_t v) {
#if defined(CDNA_DECODE_MUTANT_DROPPED_RELEASE)
  __hip_atomic_store(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
#elif defined(CDNA_DECODE_MUTANT_DROPPED_RELEASE_PLAIN_STORE)
  __hip_atomic_store(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WAVEFRONT);  // no cache bits
#else
  __hip_atomic_store(p, v, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
#endif
}
__device__ __forceinline__ void publish64(uint64_t* p, uint64_t v) {
#if defined(CDNA_DECODE_MUTANT_DROPPED_RELEASE)
  __hip_atomic_store(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
#elif defined(CDNA_DECODE_MUTANT_DROPPED_RELEASE_PLAIN_STORE)
  __hip_atomic_store(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WAVEFRONT);  // no cache bits
#else
  __hip_atomic_store(p, v, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
#endif
}
// Putting the sentinel back: ordered before the partial by release_fence().
__device__ __forceinline__ void reset(uint32_t* p, uint32_t sentinel) {
  __hip_atomic_store(p, sentinel, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}

// Polls one word until it is not `sentinel`; relaxed at agent scope (acquire_fence() follows
// a batch of polls). s_sleep lets other waves run (and saves power on hardware).
template <class T>
__device__ __forceinline__ T poll(const T* p, uint32_t sentinel) {
  for (;;) {
#ifdef CDNA_DECODE_MUTANT_DROPPED_ACQUIRE
    const T v = *p;
    asm volatile("" ::: "memory");  // keep the plain load inside the loop
#else
    const T v = __hip_atomic_load(p, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
#endif
    if (static_cast<uint32_t>(v) != sentinel) return v;
    __builtin_amdgcn_s_sleep(1);
  }
}
__device__ __forceinline__ void acquire_fence() {
#ifndef CDNA_DECODE_MUTANT_DROPPED_ACQUIRE
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "agent");
#endif
}
__device__ __forceinline__ void release_fence() {
#if !defined(CDNA_DECODE_MUTANT_DROPPED_RELEASE) && !defined(CDNA_DECODE_MUTANT_DROPPED_RELEASE_PLAIN_STORE)
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "agent");
#endif
}

// ---- Wave reductions: a fixed xor tree, the same order for every row. ----
__device__ __forceinline__ float wave_sum(float x) {
  for (int o = 32; o > 0; o >>= 1) x += __shfl_xor(x, o);
  return x;
}
__device__ __forceinline__ float wave_max(float x) {
  for (int o = 32; o > 0; o >>= 1) x = fmaxf(x, __shfl_xor(x, o));
  return x;
}

// The argmax order: a larger value wins; on equal values the lower index (the highest under the
// mutant). Indices are distinct, so the order is total and the reduction order does not matter.
__device__ __forceinline__ bool better(float v, int i, float bv, int bi) {
#ifdef CDNA_DECODE_MUTANT_ARGMAX_TIE_HIGHEST
  return v > bv || (v == bv && (i > bi || bi == INT32_MAX));
#else
  return v > bv || (v == bv && i < bi);
#endif
}
struct Best {
  float value;
  int index;
  bool nan;
};
__device__ __forceinline__ Best wave_best(Best b) {
  for (int o = 32; o > 0; o >>= 1) {
    const float v = __shfl_xor(b.value, o);
    const int i = __shfl_xor(b.index, o);
    const int n = __shfl_xor(static_cast<int>(b.nan), o);
    if (better(v, i, b.value, b.index)) b.value = v, b.index = i;
    b.nan = b.nan || n != 0;
  }
  return b;
}

// Σ_c w[c]·x[c] over n columns (n a multiple of 4; w 8-byte aligned) by one wave: lane l takes
// columns 4l + 256k … +3, two v_pk_fma_f32 chains, then a fixed xor tree. Every lane returns it.
__device__ __forceinline__ float row_dot(const uint16_t* w, const float* x, int n, int lane) {
  floatx2 a0 = {0.0f, 0.0f}, a1 = {0.0f, 0.0f};
  for (int c = 4 * lane; c < n; c += 256) {
    const uint2 wb = *reinterpret_cast<const uint2*>(w + c);
    const float4 xv = *reinterpret_cast<const float4*>(x + c);
    const floatx2 w01 = {as_float(wb.x << 16), as_float(wb.x & 0xFFFF0000u)};
    const floatx2 w23 = {as_float(wb.y << 16), as_float(wb.y & 0xFFFF0000u)};
    v_pk_fma_f32(a0, w01, floatx2{xv.x, xv.y});
    v_pk_fma_f32(a1, w23, floatx2{xv.z, xv.w});
  }
  return wave_sum((a0.x + a0.y) + (a1.x + a1.y));
}

// Everything one workgroup needs, computed once.
struct Ctx {
  const uint16_t* weights;
  const float *rope_cos, *rope_sin;
  uint32_t* exchange;
  uint64_t* partials;
  uint32_t* kv;
  float* hidden;  // [positions, L + 1, H] when p.record_hidden
  DecodeParams p;
  int G, wg, nw, wave, lane, tid;
  float* act;    // LDS: the staged GEMV input, max(H, I, Hq·D) floats
  float* wlds;   // LDS: this wave's attention scratch, 3·D + max_positions floats
};

__device__ __forceinline__ int tiles(int rows, int per) { return (rows + per - 1) / per; }

// Word i of region `off` of layer l in exchange set s.
__device__ __forceinline__ uint32_t* xword(const Ctx& c, int s, int l, int64_t off, int64_t i) {
  return c.exchange + s * c.p.set_words + l * c.p.xlayer_words + off + i;
}
__device__ __forceinline__ const uint16_t* layer_w(const Ctx& c, int l, int64_t off) {
  return c.weights + c.p.layer0 + l * c.p.layer_stride + off;
}

// With p.record_hidden: value i of row `row` (L + 1 rows per position: the residual stream entering
// layer 0 … L − 1, then the final RMSNorm's output) at position pos, for the per-layer checks of the
// run (audit/decode/trace_layers.hpp). Plain stores: the host reads them after the dispatch.
__device__ __forceinline__ void record(const Ctx& c, int pos, int row, int i, float v) {
  if (c.p.record_hidden) c.hidden[(static_cast<int64_t>(pos) * (c.p.layers + 1) + row) * c.p.hidden + i] = v;
}

// Element i of a layer's input x: the embedding row of `token` (layer 0) or the previous
// layer's output (polled; the caller issues the acquire fence).
__device__ __forceinline__ float layer_input(const Ctx& c, int s, int l, int token, int i) {
  if (l == 0) return widen(c.weights[c.p.embed + static_cast<int64_t>(token) * c.p.hidden + i]);
  return as_float(poll(xword(c, s, l - 1, c.p.x_xout, i), kSentinel));
}

// Stages RMSNorm(x) ⊙ g into c.act (H floats), x from `src(i)`. Every wave computes the sum of
// squares itself, in the same order: r = rsq(Σx² · fp32(1/H) + fp32(eps)); h_i = (x_i·r)·g_i.
template <class Src>
__device__ void stage_normed(const Ctx& c, Src src, const uint16_t* gamma) {
  const int H = c.p.hidden;
  for (int i = c.tid; i < H; i += c.nw * 64) c.act[i] = src(i);
  acquire_fence();
  __syncthreads();
  float ss = 0.0f;
  for (int i = c.lane; i < H; i += 64) ss = __builtin_fmaf(c.act[i], c.act[i], ss);
  ss = wave_sum(ss);
#ifdef CDNA_DECODE_MUTANT_RMSNORM_EPS_MISPLACED
  const float r = v_rsq_f32((ss + c.p.rms_eps) * c.p.inv_hidden);
#else
  const float r = v_rsq_f32(ss * c.p.inv_hidden + c.p.rms_eps);
#endif
  __syncthreads();
  for (int i = c.tid; i < H; i += c.nw * 64) c.act[i] = (c.act[i] * r) * widen(gamma[i]);
  __syncthreads();
}

// Stages n exchange words (region `off` of layer l, set s) into c.act.
__device__ void stage_words(const Ctx& c, int s, int l, int64_t off, int n) {
  for (int i = c.tid; i < n; i += c.nw * 64) c.act[i] = as_float(poll(xword(c, s, l, off, i), kSentinel));
  acquire_fence();
  __syncthreads();
}

// RoPE on a head held in LDS (fp32, D elements) at table row `row`: element i < D/2 pairs with
// i + D/2; r_i = fma(x_i, cos, −(x_j·sin)), r_j = fma(x_j, cos, x_i·sin). In place, by one wave.
__device__ void rope(const Ctx& c, float* x, int row) {
  const int half = c.p.head_dim / 2;
  for (int i = c.lane; i < half; i += 64) {
    const float co = c.rope_cos[static_cast<int64_t>(row) * half + i];
    const float si = c.rope_sin[static_cast<int64_t>(row) * half + i];
#ifdef CDNA_DECODE_MUTANT_ROPE_INTERLEAVED
    // The pairs of the interleaved convention (2i, 2i + 1), not Llama's (i, i + D/2).
    const int a = 2 * i, b = 2 * i + 1;
#else
    const int a = i, b = i + half;
#endif
    const float xi = x[a], xj = x[b];
    x[a] = __builtin_fmaf(xi, co, -(xj * si));
    x[b] = __builtin_fmaf(xj, co, xi * si);
  }
}

// Word `pair` (elements 2·pair, 2·pair+1) of K (kv = 0) or V (kv = 1) at `slot` of KV head g.
__device__ __forceinline__ uint32_t* kv_word(const Ctx& c, int l, int g, int kv, int slot, int pair) {
  const int64_t half = c.p.head_dim / 2;
  return c.kv + ((static_cast<int64_t>(l) * c.p.heads_kv + g) * 2 + kv) * c.p.max_positions * half +
         slot * half + pair;
}

__device__ __forceinline__ int kv_head(const Ctx& c, int h) {
#ifdef CDNA_DECODE_MUTANT_GQA_MOD
  return h % c.p.heads_kv;
#else
  return h / (c.p.heads_q / c.p.heads_kv);
#endif
}

// Attention of query head h at position pos of layer l (one wave; all waves of the workgroup
// call it, `active` false for a wave without a head, so that the barriers match).
__device__ void attend(const Ctx& c, int s, int l, int pos, int h, bool active) {
  const int D = c.p.head_dim, HqD = c.p.heads_q * D, HkvD = c.p.heads_kv * D;
  float* q = c.wlds;
  float* knew = q + D;   // K and V of slot pos, rounded to bf16 (what the cache holds)
  float* vnew = knew + D;
  float* pw = vnew + D;  // softmax weights of slots 0..pos
  const int g = active ? kv_head(c, h) : 0;
#ifdef CDNA_DECODE_MUTANT_ROPE_POSITION_OFF_BY_ONE
  const int rope_row = pos + 1;
#else
  const int rope_row = pos;
#endif
  if (active) {
    for (int d = c.lane; d < D; d += 64) {
      q[d] = as_float(poll(xword(c, s, l, c.p.x_qkv, h * D + d), kSentinel));
      knew[d] = as_float(poll(xword(c, s, l, c.p.x_qkv, HqD + g * D + d), kSentinel));
      vnew[d] = widen(to_bf16(as_float(poll(xword(c, s, l, c.p.x_qkv, HqD + HkvD + g * D + d), kSentinel))));
    }
    acquire_fence();
  }
  __syncthreads();
  if (active) {
    rope(c, q, rope_row);
    rope(c, knew, rope_row);
  }
  __syncthreads();
  if (active) {
    for (int d = c.lane; d < D; d += 64) knew[d] = widen(to_bf16(knew[d]));
  }
  __syncthreads();
#ifdef CDNA_DECODE_MUTANT_KV_WRONG_SLOT
  const int slot = pos + 1;
#else
  const int slot = pos;
#endif
  // The first query head of each KV group appends the slot; the others use their own copy.
  if (active && h % (c.p.heads_q / c.p.heads_kv) == 0) {
    for (int i = c.lane; i < D / 2; i += 64) {
      const uint32_t kb = to_bf16(knew[2 * i]) | (static_cast<uint32_t>(to_bf16(knew[2 * i + 1])) << 16);
      const uint32_t vb = to_bf16(vnew[2 * i]) | (static_cast<uint32_t>(to_bf16(vnew[2 * i + 1])) << 16);
      publish(kv_word(c, l, g, 0, slot, i), kb);
      publish(kv_word(c, l, g, 1, slot, i), vb);
    }
  }
  // Scores in base 2: t_j = (q·k_j) · fp32(log2 e / sqrt D); m = max t_j; p_j = 2^(t_j − m).
  float lsum = 0.0f;
  if (active) {
    float m = -__builtin_inff();
    for (int j = c.lane; j <= pos; j += 64) {
      float sc = 0.0f;
      for (int i = 0; i < D / 2; ++i) {
        float k0, k1;
        if (j == pos) {
          k0 = knew[2 * i], k1 = knew[2 * i + 1];
        } else {
          const uint32_t w = poll(kv_word(c, l, g, 0, j, i), CDNA_DECODE_SENTINEL_KV);
          k0 = as_float(w << 16), k1 = as_float(w & 0xFFFF0000u);
        }
        sc = __builtin_fmaf(q[2 * i], k0, sc);
        sc = __builtin_fmaf(q[2 * i + 1], k1, sc);
      }
      pw[j] = sc * c.p.score_scale;
      m = fmaxf(m, pw[j]);
    }
    acquire_fence();
    m = wave_max(m);
    for (int j = c.lane; j <= pos; j += 64) {
      pw[j] = v_exp_f32(pw[j] - m);
      lsum += pw[j];
    }
    lsum = wave_sum(lsum);
  }
  __syncthreads();
  if (active) {
    const float inv_l = v_rcp_f32(lsum);
    for (int d = c.lane; d < D; d += 64) {
      float o = 0.0f;
      for (int j = 0; j <= pos; ++j) {
        float v;
        if (j == pos) {
          v = vnew[d];
        } else {
          const uint32_t w = poll(kv_word(c, l, g, 1, j, d / 2), CDNA_DECODE_SENTINEL_KV);
          v = as_float((d & 1) ? (w & 0xFFFF0000u) : (w << 16));
        }
        o = __builtin_fmaf(pw[j], v, o);
      }
      publish(xword(c, s, l, c.p.x_attn, h * D + d), as_bits(o * inv_l));
    }
    acquire_fence();
  }
  __syncthreads();
}

// silu(z)·u = (z · rcp(1 + 2^(z·(−log2 e)))) · u, each operation rounded once.
__device__ __forceinline__ float silu_mul(float z, float u) {
  const float e = v_exp_f32(z * -kLog2e);
  return (z * v_rcp_f32(1.0f + e)) * u;
}

// One decoder layer at position pos (exchange set s).
__device__ void layer(const Ctx& c, int s, int l, int pos, int token) {
  const DecodeParams& p = c.p;
  const int H = p.hidden, I = p.intermediate, D = p.head_dim;
  const int HqD = p.heads_q * D, qkv_rows = HqD + 2 * p.heads_kv * D;
  // Q, K, V rows (raw: RoPE is applied by the attention that reads them).
  if (c.wg < tiles(qkv_rows, c.nw)) {
    stage_normed(c, [&](int i) { return layer_input(c, s, l, token, i); }, layer_w(c, l, p.in_norm));
    for (int t = c.wg; t < tiles(qkv_rows, c.nw); t += c.G) {
      const int r = t * c.nw + c.wave;
      if (r < qkv_rows) {
        const float v = row_dot(layer_w(c, l, p.qkv) + static_cast<int64_t>(r) * H, c.act, H, c.lane);
        if (c.lane == 0) publish(xword(c, s, l, p.x_qkv, r), as_bits(v));
      }
    }
    __syncthreads();
  }
  // Attention, W query heads per tile.
  for (int t = c.wg; t < tiles(p.heads_q, c.nw); t += c.G) {
    const int h = t * c.nw + c.wave;
    attend(c, s, l, pos, h, h < p.heads_q);
  }
  // o_proj + residual.
  if (c.wg < tiles(H, c.nw)) {
    stage_words(c, s, l, p.x_attn, HqD);
    for (int t = c.wg; t < tiles(H, c.nw); t += c.G) {
      const int r = t * c.nw + c.wave;
      if (r < H) {
        const float dot = row_dot(layer_w(c, l, p.o) + static_cast<int64_t>(r) * HqD, c.act, HqD, c.lane);
        if (c.lane == 0) {
          const float x = layer_input(c, s, l, token, r);
          if (l == 0) record(c, pos, 0, r, x);
#ifdef CDNA_DECODE_MUTANT_RESIDUAL_TWICE
          publish(xword(c, s, l, p.x_xmid, r), as_bits((x + dot) + x));
#else
          publish(xword(c, s, l, p.x_xmid, r), as_bits(x + dot));
#endif
        }
      }
    }
    __syncthreads();
  }
  // gate/up + SiLU·up.
  if (c.wg < tiles(I, c.nw)) {
    stage_normed(c, [&](int i) { return as_float(poll(xword(c, s, l, p.x_xmid, i), kSentinel)); },
                 layer_w(c, l, p.post_norm));
    for (int t = c.wg; t < tiles(I, c.nw); t += c.G) {
      const int r = t * c.nw + c.wave;
      if (r < I) {
        const float gt = row_dot(layer_w(c, l, p.gate) + static_cast<int64_t>(r) * H, c.act, H, c.lane);
        const float up = row_dot(layer_w(c, l, p.up) + static_cast<int64_t>(r) * H, c.act, H, c.lane);
        if (c.lane == 0) publish(xword(c, s, l, p.x_act, r), as_bits(silu_mul(gt, up)));
      }
    }
    __syncthreads();
  }
  // down + residual.
  if (c.wg < tiles(H, c.nw)) {
    stage_words(c, s, l, p.x_act, I);
    for (int t = c.wg; t < tiles(H, c.nw); t += c.G) {
      const int r = t * c.nw + c.wave;
      if (r < H) {
        const float dot = row_dot(layer_w(c, l, p.down) + static_cast<int64_t>(r) * I, c.act, I, c.lane);
        if (c.lane == 0) {
          const float x = as_float(poll(xword(c, s, l, p.x_xmid, r), kSentinel));
          if (l + 1 < p.layers) record(c, pos, l + 1, r, x + dot);
          publish(xword(c, s, l, p.x_xout, r), as_bits(x + dot));
        }
      }
    }
    __syncthreads();
  }
}

// Puts the sentinel back into every exchange word this workgroup produces in set s — the same
// words, by the same lanes, as layer() publishes them.
__device__ void reset_set(const Ctx& c, int s) {
  const DecodeParams& p = c.p;
  const int H = p.hidden, I = p.intermediate, D = p.head_dim;
  const int qkv_rows = (p.heads_q + 2 * p.heads_kv) * D;
  auto rows = [&](int n, int64_t off, int l) {
    for (int t = c.wg; t < tiles(n, c.nw); t += c.G) {
      const int r = t * c.nw + c.wave;
      if (r < n && c.lane == 0) reset(xword(c, s, l, off, r), kSentinel);
    }
  };
  for (int l = 0; l < p.layers; ++l) {
    rows(qkv_rows, p.x_qkv, l);
    for (int t = c.wg; t < tiles(p.heads_q, c.nw); t += c.G) {
      const int h = t * c.nw + c.wave;
      if (h < p.heads_q)
        for (int d = c.lane; d < D; d += 64) reset(xword(c, s, l, p.x_attn, h * D + d), kSentinel);
    }
    rows(H, p.x_xmid, l);
    rows(I, p.x_act, l);
    rows(H, p.x_xout, l);
  }
}

// LM head at position pos: logits of this workgroup's rows, and its (max, index) partial.
__device__ Best lm_head(const Ctx& c, int s, int pos, float* logits) {
  const DecodeParams& p = c.p;
  const int H = p.hidden, V = p.vocab, n = tiles(V, c.nw);
  Best b{-__builtin_inff(), INT32_MAX, false};
  if (c.wg < n) {
    stage_normed(c, [&](int i) { return as_float(poll(xword(c, s, p.layers - 1, p.x_xout, i), kSentinel)); },
                 c.weights + p.final_norm);
    if (c.wg == 0)
      for (int i = c.tid; i < H; i += c.nw * 64) record(c, pos, p.layers, i, c.act[i]);
    for (int t = c.wg; t < n; t += c.G) {
#ifdef CDNA_DECODE_MUTANT_LM_HEAD_TILE_SKIPPED
      if (t == n - 1) continue;
#endif
      const int r = t * c.nw + c.wave;
      if (r < V) {
        const float v = row_dot(c.weights + p.lm_head + static_cast<int64_t>(r) * H, c.act, H, c.lane);
        if (c.lane == 0) logits[static_cast<int64_t>(pos) * V + r] = v;
        if (v != v) b.nan = true;
        else if (better(v, r, b.value, b.index)) b.value = v, b.index = r;
      }
    }
  }
  // Combine the waves (lane 0 of each holds its result) in wave order.
  __shared__ float bv[16];
  __shared__ int bi[16], bn[16];
  if (c.lane == 0) bv[c.wave] = b.value, bi[c.wave] = b.index, bn[c.wave] = b.nan;
  __syncthreads();
  Best w{-__builtin_inff(), INT32_MAX, false};
  for (int k = 0; k < c.nw; ++k) {
    if (better(bv[k], bi[k], w.value, w.index)) w.value = bv[k], w.index = bi[k];
    w.nan = w.nan || bn[k] != 0;
  }
  __syncthreads();
  return w;
}

}  // namespace

extern "C" __global__ void decode_monokernel(const uint16_t* weights, const float* rope_cos,
                                             const float* rope_sin, const int32_t* prompt,
                                             const int32_t* eos, uint32_t* exchange,
                                             uint64_t* partials, uint32_t* kv_cache, float* logits,
                                             int32_t* tokens, int32_t* status, float* hidden,
                                             DecodeParams params) {
  extern __shared__ float lds[];
  Ctx c;
  c.weights = weights, c.rope_cos = rope_cos, c.rope_sin = rope_sin;
  c.exchange = exchange, c.partials = partials, c.kv = kv_cache, c.hidden = hidden, c.p = params;
  c.G = static_cast<int>(gridDim.x), c.wg = static_cast<int>(blockIdx.x);
  c.nw = static_cast<int>(blockDim.x) / 64, c.tid = static_cast<int>(threadIdx.x);
  c.wave = c.tid / 64, c.lane = c.tid % 64;
  const int act_words = max(max(params.hidden, params.intermediate), params.heads_q * params.head_dim);
  c.act = lds;
  c.wlds = lds + act_words + c.wave * (3 * params.head_dim + params.max_positions);

  int generated = 0, token = 0, last = 0, code = CDNA_DECODE_STATUS_STEPS, pos = 0;
  for (;; ++pos) {
    const int s = pos & 1;
    token = pos < params.prompt_len ? prompt[pos] : last;
    for (int l = 0; l < params.layers; ++l) layer(c, s, l, pos, token);
    Best b = lm_head(c, s, pos, logits);

    // Sentinels back into the words of position pos − 1 and the partial slot of pos − 2: every
    // consumer of them has published its partial of pos − 1, which this workgroup acquired.
#ifdef CDNA_DECODE_MUTANT_SENTINEL_RESET_WRONG_STEP
    reset_set(c, s);
#else
    if (pos >= 1) reset_set(c, s ^ 1);
#endif
    const int pset = pos % 3, pold = (pos + 1) % 3;
    if (c.tid == 0) reset(reinterpret_cast<uint32_t*>(partials + pold * c.G + c.wg), kSentinel);
    release_fence();
    __syncthreads();
    if (c.tid == 0) {
      const float v = b.nan ? __builtin_nanf("") : b.value;
      publish64(partials + pset * c.G + c.wg,
                as_bits(v) | (static_cast<uint64_t>(static_cast<uint32_t>(b.index)) << 32));
    }
    // Every wave reduces all G partials itself (the same token in every wave and workgroup).
    Best r{-__builtin_inff(), INT32_MAX, false};
    for (int k = c.lane; k < c.G; k += 64) {
      const uint64_t w = poll(partials + pset * c.G + k, kSentinel);
      const float v = as_float(static_cast<uint32_t>(w));
      const int i = static_cast<int>(w >> 32);
      if (v != v) r.nan = true;
      else if (better(v, i, r.value, r.index)) r.value = v, r.index = i;
    }
    acquire_fence();
    r = wave_best(r);
    if (pos + 1 < params.prompt_len) continue;
    const int next = r.nan ? -1 : r.index;
    if (c.wg == 0 && c.tid == 0) tokens[generated] = next;
    ++generated;
    last = next;
    bool is_eos = false;
    for (int e = 0; e < params.eos_count; ++e) is_eos = is_eos || eos[e] == next;
    if (next < 0) { code = CDNA_DECODE_STATUS_NAN; break; }
    if (is_eos) { code = CDNA_DECODE_STATUS_EOS; break; }
    if (generated >= params.steps) break;
  }
  if (c.wg == 0 && c.tid == 0) {
    status[0] = code;
    status[1] = generated;
    status[2] = pos + 1;
  }
}
