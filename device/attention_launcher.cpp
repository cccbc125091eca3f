#include "device/attention_launcher.hpp"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <numbers>
#include <stdexcept>

#include "device/attention_params.h"

namespace cdna::device {

std::filesystem::path attention_code_object(numerics::Rounding mode, const std::filesystem::path& dir) {
  std::string name(numerics::to_string(mode));
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return dir / ("attention_fwd_" + name + ".hsaco");
}

std::vector<std::byte> read_file(const std::filesystem::path& path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::runtime_error("cannot read " + std::string(what) + " '" + path.string() +
                             "': " + std::strerror(errno));
  }
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(bytes.size());
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

numerics::Rounding decode_rounding_symbol(std::span<const std::uint8_t> bytes, std::string_view label) {
  std::uint32_t value = 0;
  if (bytes.size() == 4) std::memcpy(&value, bytes.data(), 4);  // little-endian host and target
  if (bytes.size() != 4 || value > 2) {
    throw std::runtime_error("code object '" + std::string(label) + "': symbol " + kRoundingSymbol + " is " +
                             (bytes.size() != 4 ? std::to_string(bytes.size()) + " bytes"
                                                : "the value " + std::to_string(value)) +
                             "; expected a 4-byte unsigned 0 (RTNE), 1 (RTNA) or 2 (RTZ)");
  }
  return static_cast<numerics::Rounding>(value);
}

std::optional<std::string> attention_unsupported_reason(const reference::AttentionProblem& problem) {
  return attention_unsupported_reason(problem.shape, problem.mask);
}

std::optional<std::string> attention_unsupported_reason(const reference::AttentionShape& s,
                                                        reference::Mask mask) {
  if (s.head_dim != 64 && s.head_dim != 128) {
    return "head dim D = " + std::to_string(s.head_dim) +
           " is not supported by attn_fwd; supported: 64, 128";
  }
  if (mask == reference::Mask::CausalTopLeft) {
    return "mask causal-top-left is not supported by attn_fwd; supported: none, causal-bottom-right";
  }
  if (s.heads_kv < 1 || s.heads_q % s.heads_kv != 0) {
    return "Hq = " + std::to_string(s.heads_q) + " is not a multiple of Hkv = " +
           std::to_string(s.heads_kv);
  }
  constexpr std::int64_t kMax = std::numeric_limits<std::int32_t>::max();
  if (s.batch < 0 || s.seqlen_q < 0 || s.seqlen_k < 0 || s.heads_q < 1) {
    return "B, Sq, Sk must be >= 0 and Hq >= 1";
  }
  if (s.q_elements() > kMax || s.kv_elements() > kMax || s.batch > 65535 || s.heads_q > 65535) {
    return "shape too large for attn_fwd: element counts must fit in int32, B and Hq <= 65535";
  }
  return std::nullopt;
}

AttentionLayout contiguous_layout(const reference::AttentionShape& s) {
  const std::int64_t d = s.head_dim;
  const TensorStrides q{s.seqlen_q * s.heads_q * d, s.heads_q * d, d};
  const TensorStrides kv{s.seqlen_k * s.heads_kv * d, s.heads_kv * d, d};
  return {q, kv, kv, q};
}

std::int64_t strided_extent(const TensorStrides& t, std::int64_t batch, std::int64_t seq,
                            std::int64_t heads, std::int64_t head_dim) {
  if (batch <= 0 || seq <= 0 || heads <= 0 || head_dim <= 0) return 0;
  return (batch - 1) * t.b + (seq - 1) * t.s + (heads - 1) * t.h + head_dim;
}

namespace {

// Throws unless every element of the tensor lies inside a buffer of `size` elements, at an
// offset the kernel's int64 address arithmetic and our int32 limit on extents both cover.
void check_strides(const char* name, const TensorStrides& t, std::int64_t batch, std::int64_t seq,
                   std::int64_t heads, std::int64_t head_dim, std::size_t size) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int32_t>::max();
  if (t.b < 0 || t.s < 0 || t.h < 0) {
    throw std::invalid_argument(std::string(name) + " strides must be >= 0");
  }
  const std::int64_t extent = strided_extent(t, batch, seq, heads, head_dim);
  if (extent > kMax) {
    throw std::invalid_argument(std::string(name) + " spans " + std::to_string(extent) +
                                " elements; attn_fwd supports at most 2^31 - 1");
  }
  if (static_cast<std::uint64_t>(extent) > size) {
    throw std::invalid_argument(std::string(name) + " needs " + std::to_string(extent) +
                                " elements with its strides, its buffer has " + std::to_string(size));
  }
}

}  // namespace

void launch_attention(Executor& executor, std::span<const std::byte> code_object,
                      const StridedAttention& a) {
  const auto& s = a.shape;
  if (auto why = attention_unsupported_reason(s, a.mask)) throw std::invalid_argument(*why);
  const AttentionLayout& l = a.layout;
  check_strides("Q", l.q, s.batch, s.seqlen_q, s.heads_q, s.head_dim, a.q.size());
  check_strides("K", l.k, s.batch, s.seqlen_k, s.heads_kv, s.head_dim, a.k.size());
  check_strides("V", l.v, s.batch, s.seqlen_k, s.heads_kv, s.head_dim, a.v.size());
  check_strides("O", l.o, s.batch, s.seqlen_q, s.heads_q, s.head_dim, a.o.size());
  if (a.lse.size() != static_cast<std::size_t>(s.lse_elements())) {
    throw std::invalid_argument("LSE buffer has " + std::to_string(a.lse.size()) +
                                " elements, B*Hq*Sq = " + std::to_string(s.lse_elements()));
  }
  if (s.batch == 0 || s.seqlen_q == 0) return;

  AttentionParams p{};
  p.seqlen_q = static_cast<std::int32_t>(s.seqlen_q);
  p.seqlen_k = static_cast<std::int32_t>(s.seqlen_k);
  p.heads_q = static_cast<std::int32_t>(s.heads_q);
  p.heads_kv = static_cast<std::int32_t>(s.heads_kv);
  p.causal = a.mask == reference::Mask::CausalBottomRight ? 1 : 0;
  p.scale_log2 = static_cast<float>(static_cast<double>(a.scale) * std::numbers::log2e);
  p.q_stride_b = l.q.b, p.q_stride_s = l.q.s, p.q_stride_h = l.q.h;
  p.k_stride_b = l.k.b, p.k_stride_s = l.k.s, p.k_stride_h = l.k.h;
  p.v_stride_b = l.v.b, p.v_stride_s = l.v.s, p.v_stride_h = l.v.h;
  p.o_stride_b = l.o.b, p.o_stride_s = l.o.s, p.o_stride_h = l.o.h;

  Dispatch dispatch;
  dispatch.kernel = s.head_dim == 64 ? kAttentionKernels[0] : kAttentionKernels[1];
  dispatch.grid = {static_cast<std::uint32_t>((s.seqlen_q + 15) / 16),
                   static_cast<std::uint32_t>(s.heads_q), static_cast<std::uint32_t>(s.batch)};
  dispatch.block = {64, 1, 1};
  // Empty tensors (Sk = 0) still need a valid pointer: hand the kernel a one-element buffer.
  const std::uint16_t empty_kv[1] = {0};
  const auto k = a.k.empty() ? std::span<const std::uint16_t>(empty_kv) : a.k;
  const auto v = a.v.empty() ? std::span<const std::uint16_t>(empty_kv) : a.v;
  dispatch.args = {KernelArg::input(std::as_bytes(a.q)), KernelArg::input(std::as_bytes(k)),
                   KernelArg::input(std::as_bytes(v)),   KernelArg::output(std::as_writable_bytes(a.o)),
                   KernelArg::output(std::as_writable_bytes(a.lse)), KernelArg::scalar(p)};
  executor.run(code_object, dispatch);
}

AttentionOutput run_attention(Executor& executor, std::span<const std::byte> code_object,
                              const reference::AttentionProblem& problem) {
  reference::validate(problem);
  reference::require_base_definition(problem, "attn_fwd");
  if (auto why = attention_unsupported_reason(problem)) throw std::invalid_argument(*why);
  const auto& s = problem.shape;
  AttentionOutput out;
  out.o.assign(static_cast<std::size_t>(s.o_elements()), 0x7FC0);  // bf16 quiet NaN
  out.lse.assign(static_cast<std::size_t>(s.lse_elements()), std::numeric_limits<float>::quiet_NaN());
  StridedAttention a;
  a.shape = s;
  a.mask = problem.mask;
  a.scale = problem.scale;
  a.layout = contiguous_layout(s);
  a.q = problem.q, a.k = problem.k, a.v = problem.v;
  a.o = out.o, a.lse = out.lse;
  launch_attention(executor, code_object, a);
  return out;
}

}  // namespace cdna::device
