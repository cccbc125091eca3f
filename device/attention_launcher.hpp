// Host launcher of the attention-forward kernels (device/kernels/attention_fwd.hip): what they
// support, how a problem maps to a dispatch, and running it on any executor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "device/executor.hpp"
#include "numerics/bf16.hpp"
#include "reference/attention/attention.hpp"
#include "reference/attention/varlen.hpp"

namespace cdna::device {

// The code object of the attention kernel built for `mode`, under `dir` (default: the build's
// device/ folder): attention_fwd_{rtne,rtna,rtz}.hsaco.
std::filesystem::path attention_code_object(numerics::Rounding mode,
                                            const std::filesystem::path& dir = CDNA_CODE_OBJECT_DIR);

// The kernels each attention code object holds, one per supported head dim D.
inline constexpr const char* kAttentionKernels[] = {"attn_fwd_d64", "attn_fwd_d128"};
// The extended kernels of the same code objects (varlen, padded starts, seqused_k, paged KV,
// sliding window; device/attention_params.h), one per D.
inline constexpr const char* kAttentionExtKernels[] = {"attn_fwd_ext_d64", "attn_fwd_ext_d128"};

// The bf16 rounding mode a code object was built for is recorded in it, so that a code object
// declared for another mode is refused before it runs: kernels/attention_fwd.hip defines the
// global data symbol `cdna_bf16_rounding` (4 bytes, little-endian unsigned, in .rodata) with the
// value of CDNA_BF16_ROUNDING it was compiled with: 0 RTNE, 1 RTNA, 2 RTZ (AITER's
// how_v3_bf16_cvt numbering, the same as numerics::Rounding). It is data only: the kernels never
// read it, so adding it changed no instruction (.text is identical with and without it). Every
// code object of device/CMakeLists.txt carries it (the mutants carry RTNE); a code object built
// elsewhere may not, and then the mode is only the user's declaration.
inline constexpr const char* kRoundingSymbol = "cdna_bf16_rounding";

// The mode recorded by the bytes of the `cdna_bf16_rounding` symbol of code object `label`.
// Throws std::runtime_error (one line naming `label`) unless they are 4 bytes holding 0, 1 or 2.
numerics::Rounding decode_rounding_symbol(std::span<const std::uint8_t> bytes, std::string_view label);

// Reads a whole file. Throws std::runtime_error "cannot read <what> '<path>': <reason>".
std::vector<std::byte> read_file(const std::filesystem::path& path, std::string_view what);

// Why the kernel cannot take `problem`, as one line naming the field, its value and what the
// kernel supports; nullopt if it can. Supported: D in {64, 128}; mask none or causal
// bottom-right; Hq a multiple of Hkv; every extent and element offset within int32; a sliding
// window (any sides). Not supported: Dv != D, soft cap, sinks, fp8 inputs (and their descale).
std::optional<std::string> attention_unsupported_reason(const reference::AttentionProblem& problem);
std::optional<std::string> attention_unsupported_reason(const reference::AttentionShape& shape,
                                                        reference::Mask mask);
// The same for a varlen / paged problem (reference/attention/varlen.hpp): its base problem's features as
// above (D, mask, heads, window, no Dv != D, cap, sinks or fp8), B <= 65535, storage rows and
// page indices within int32. Any page size >= 1 (keys are addressed one by one).
std::optional<std::string> attention_unsupported_reason(const reference::VarlenProblem& problem);

// Kernel outputs: O [B, Sq, Hq, D] bf16 bits, LSE [B, Hq, Sq] fp32 (natural log).
struct AttentionOutput {
  std::vector<std::uint16_t> o;
  std::vector<float> lse;
};

// Element strides (not bytes) of one tensor indexed [b, s, h, d]; d always has stride 1 (the
// kernel loads 4 consecutive elements of a row at once, attention_fwd.hip).
struct TensorStrides {
  std::int64_t b = 0, s = 0, h = 0;
};

// Where Q, K, V and O live in their buffers. LSE is always [B, Hq, Sq] contiguous.
struct AttentionLayout {
  TensorStrides q, k, v, o;
};

// BSHD contiguous, the layout of reference::AttentionProblem.
AttentionLayout contiguous_layout(const reference::AttentionShape& shape);

// Elements a buffer of a [batch, seq, heads, head_dim] tensor with strides `t` needs: one past
// its largest element offset; 0 if any extent is 0.
std::int64_t strided_extent(const TensorStrides& t, std::int64_t batch, std::int64_t seq,
                            std::int64_t heads, std::int64_t head_dim);

// One dispatch on caller-owned strided buffers: q, k, v, o hold bf16 bits at the offsets
// `layout` gives (elements between rows are never read, and o's are never written by a correct
// kernel); lse has exactly B·Hq·Sq elements.
struct StridedAttention {
  reference::AttentionShape shape;
  reference::Mask mask = reference::Mask::None;
  float scale = 0.125f;
  std::int64_t window_left = -1, window_right = -1;  // sliding window (-1: unbounded side)
  // Per-batch lengths (empty: every batch has Sq and Sk): batch b has seqlens_q[b] <= Sq queries
  // and seqlens_k[b] <= Sk keys, from row 0 of its slice of the buffers, aligned bottom-right on
  // its own lengths (the varlen definition, docs/semantics.md §8); its rows past seqlens_q[b]
  // are never written.
  std::span<const std::int32_t> seqlens_q, seqlens_k;
  AttentionLayout layout;
  std::span<const std::uint16_t> q, k, v;
  std::span<std::uint16_t> o;
  std::span<float> lse;
};

// Runs the kernel on `args`: attn_fwd_d* without a window or per-batch lengths, attn_fwd_ext_d*
// with either (its varlen dispatch: cu_seqlens from the lengths, starts 0). Throws
// std::invalid_argument with attention_unsupported_reason() for an unsupported shape or mask, or
// naming the tensor whose strides are negative, exceed int32 element offsets or reach past the
// end of its buffer, a window side below -1, or length lists not of B values in [0, Sq] / [0, Sk];
// and whatever the executor throws. Leaves o and lse untouched when B = 0 or Sq = 0.
void launch_attention(Executor& executor, std::span<const std::byte> code_object,
                      const StridedAttention& args);

// Runs the kernel of `code_object` on `problem` with `executor`. Throws std::invalid_argument
// with attention_unsupported_reason() for an unsupported problem, and whatever the executor
// throws. O and LSE are pre-filled with NaN so that an element the kernel never writes shows.
AttentionOutput run_attention(Executor& executor, std::span<const std::byte> code_object,
                              const reference::AttentionProblem& problem);

// What run_attention_varlen pre-fills O and LSE with: an element still holding it was never
// written. Payloads neither the kernel's conversions (bf16 quiet NaN 0x7FC0 / 0x7FFF) nor its
// arithmetic produce.
inline constexpr std::uint16_t kUnwrittenO = 0x7FA5;
inline constexpr std::uint32_t kUnwrittenLseBits = 0x7FA5A5A5;

// Runs the extended kernel of `code_object` on a varlen / paged problem in one dispatch (grid
// (ceil(max Sq_b / 16), Hq, B); none when every Sq_b is 0). Returns O [rows_q, Hq, D] bf16 bits
// and LSE [Hq, rows_q] fp32 (natural log), the layout of reference::varlen_forward_exact; rows no
// sequence owns keep kUnwrittenO / kUnwrittenLseBits. Throws std::invalid_argument as
// reference::validate(VarlenProblem) does or with attention_unsupported_reason(problem), and
// whatever the executor throws.
AttentionOutput run_attention_varlen(Executor& executor, std::span<const std::byte> code_object,
                                     const reference::VarlenProblem& problem);

}  // namespace cdna::device
