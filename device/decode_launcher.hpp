// Host launcher of the decode monokernel (device/kernels/decode_monokernel.hip): what it
// supports, how a model and a prompt become one persistent dispatch, and running it on any
// executor (simulator or HIP). Semantics: docs/decode-semantics.md (§2 arithmetic, §5 protocol).
//
// Packed weight buffer (bf16 bit patterns, one device buffer; every block starts at a multiple
// of 64 elements = 128 bytes, zero padding between blocks):
//   per layer l = 0 … L−1, one block of layer_stride elements:
//     input_layernorm [H] | q_proj;k_proj;v_proj stacked [(Hq + 2·Hkv)·D, H] | o_proj [H, Hq·D] |
//     post_attention_layernorm [H] | gate_proj [I, H] | up_proj [I, H] | down_proj [H, I]
//   then model.norm [H] | embed_tokens [V, H] | lm_head [V, H] (absent when tied: the LM head
//   reads embed_tokens). Offsets: DecodeParams (device/decode_params.h).
// Device buffers besides: the fp32 RoPE table (reference::rope_table), the exchange buffers (two
// parity sets of 32-bit words), LM-head partials (3·G 64-bit words), the bf16 KV cache
// [L, Hkv, 2 (K, V), slots, D] — all pre-filled with the sentinels of decode_params.h — and the
// outputs: logits [positions, V] fp32 (pre-filled with the fp32 sentinel), tokens, status.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "device/decode_params.h"
#include "device/executor.hpp"
#include "numerics/bf16.hpp"
#include "reference/decode/model.hpp"

namespace cdna::device {

inline constexpr const char* kDecodeKernel = "decode_monokernel";

// decode_monokernel_{rtne,rtna,rtz}.hsaco under `dir` (default: the build's device/ folder).
std::filesystem::path decode_code_object(numerics::Rounding mode,
                                         const std::filesystem::path& dir = CDNA_CODE_OBJECT_DIR);

// One decode run: batch 1, the prompt's positions, then up to `steps` generated tokens.
struct DecodeLaunch {
  const reference::DecoderModel* model = nullptr;
  std::vector<std::int64_t> prompt;  // token ids in [0, V), at least one
  std::int64_t steps = 1;            // N >= 1 tokens to generate
  std::vector<std::int64_t> eos;     // stop after generating any of these ids (may be empty)
  numerics::Rounding mode = numerics::Rounding::RTNE;  // KV-cache rounding: picks decode_code_object(mode)
  std::uint32_t grid = 304;          // G workgroups (MI300X: one per CU); all must be resident
  std::uint32_t block = 256;         // work-items per workgroup, a multiple of 64, at most 1024
  // Let the kernel write the residual stream entering every layer and the final RMSNorm's output
  // at every position (DecodeParams::record_hidden; DecodeResult::hidden), for the per-layer
  // checks of the run. The same code object either way: the values it computes do not change.
  bool record_hidden = false;
};

enum class DecodeStatus { Steps, Eos, Nan };
std::string_view to_string(DecodeStatus status);

struct DecodeStats {
  std::int64_t positions = 0;               // positions run (prompt + generated − 1 at most)
  std::uint64_t weight_bytes_per_token = 0;  // weight bytes one position streams (every matrix
                                             // once, norms, one embedding row)
  std::uint64_t model_bytes = 0;            // all weights of the model (bf16)
  std::uint32_t lds_bytes = 0;              // dynamic LDS per workgroup
  double seconds = 0;                       // wall time of the dispatch (executor.run)
};

struct DecodeResult {
  std::vector<std::int64_t> tokens;  // generated tokens; the last is −1 when status is Nan
  std::vector<float> logits;         // [positions, V]: position p's logits at p·V
  DecodeStatus status = DecodeStatus::Steps;
  DecodeStats stats;
  // What the kernel left in device memory, for local checks (audit/decode/ball_forward.hpp):
  // the parameters it ran with, the exchange set of the last position (params.set_words words;
  // the other set holds sentinels) and the KV cache (layout above, params.max_positions slots).
  DecodeParams params{};
  std::vector<std::uint32_t> last_exchange_set;
  std::vector<std::uint32_t> kv_cache;
  // With launch.record_hidden: [positions, L + 1, H] fp32 — at each position the residual stream
  // entering layers 0 … L − 1 (row 0: the embedding row as the kernel read it), then the final
  // RMSNorm's output (what the LM head read). Empty otherwise.
  std::vector<float> hidden;
};

// Why the kernel cannot run a model of config `c` for `positions` positions (prompt + steps −
// 1) with `block` work-items, as one line naming the field, its value and what the kernel
// supports; nullopt if it can. Supported: D even; H, I and Hq·D multiples of 4 (a lane's
// 4-column GEMV load); Hq a multiple of Hkv; block a multiple of 64 in [64, 1024]; LDS
// (4·max(H, I, Hq·D) + 4·waves·(3·D + positions + 1) bytes) within 64 KiB; positions < 2^20.
std::optional<std::string> decode_config_unsupported_reason(const reference::DecoderConfig& c,
                                                            std::int64_t positions, std::uint32_t block);

// The same for a whole launch, and besides: a model given, a non-empty prompt of tokens in
// [0, V), steps >= 1, positions <= max_position_embeddings, grid >= 1, weights of the shapes of reference/decode/model.hpp (naming the
// first tensor that differs). Residency is checked by run_decode, with the executor.
std::optional<std::string> decode_unsupported_reason(const DecodeLaunch& launch);

// The packed weight buffer and the offsets of DecodeParams it fills (layout above).
std::vector<std::uint16_t> pack_decode_weights(const reference::DecoderModel& model, DecodeParams& params);

// Runs the monokernel of `code_object` (e.g. a mutant's; its recorded cdna_bf16_rounding is not
// compared with launch.mode here). Throws
// std::invalid_argument with decode_unsupported_reason(), or "grid G does not fit: the executor
// keeps at most R workgroups of this kernel resident" (one line) when the workgroups could not
// all be resident, std::runtime_error when the kernel leaves no status (or, with
// record_hidden, a hidden value of a position it ran unwritten), and whatever the
// executor throws (e.g. the simulator's watchdog on a hang).
DecodeResult run_decode(Executor& executor, std::span<const std::byte> code_object,
                        const DecodeLaunch& launch);
// The same with the code object decode_code_object(launch.mode) (std::runtime_error when that
// file cannot be read).
DecodeResult run_decode(Executor& executor, const DecodeLaunch& launch);

}  // namespace cdna::device
