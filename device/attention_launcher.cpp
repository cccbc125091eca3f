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

std::optional<std::string> attention_unsupported_reason(const reference::AttentionProblem& problem) {
  const auto& s = problem.shape;
  if (s.head_dim != 64 && s.head_dim != 128) {
    return "head dim D = " + std::to_string(s.head_dim) +
           " is not supported by attn_fwd; supported: 64, 128";
  }
  if (problem.mask == reference::Mask::CausalTopLeft) {
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

namespace {

std::span<const std::byte> bytes_of(const auto& v) { return std::as_bytes(std::span(v)); }
std::span<std::byte> writable_bytes_of(auto& v) { return std::as_writable_bytes(std::span(v)); }

}  // namespace

AttentionOutput run_attention(Executor& executor, std::span<const std::byte> code_object,
                              const reference::AttentionProblem& problem) {
  reference::validate(problem);
  if (auto why = attention_unsupported_reason(problem)) throw std::invalid_argument(*why);
  const auto& s = problem.shape;

  AttentionOutput out;
  out.o.assign(static_cast<std::size_t>(s.o_elements()), 0x7FC0);  // bf16 quiet NaN
  out.lse.assign(static_cast<std::size_t>(s.lse_elements()), std::numeric_limits<float>::quiet_NaN());
  if (s.batch == 0 || s.seqlen_q == 0) return out;

  const std::int64_t d = s.head_dim;
  AttentionParams p{};
  p.seqlen_q = static_cast<std::int32_t>(s.seqlen_q);
  p.seqlen_k = static_cast<std::int32_t>(s.seqlen_k);
  p.heads_q = static_cast<std::int32_t>(s.heads_q);
  p.heads_kv = static_cast<std::int32_t>(s.heads_kv);
  p.causal = problem.mask == reference::Mask::CausalBottomRight ? 1 : 0;
  p.scale_log2 = static_cast<float>(static_cast<double>(problem.scale) * std::numbers::log2e);
  // BSHD contiguous.
  p.q_stride_h = d;
  p.q_stride_s = s.heads_q * d;
  p.q_stride_b = s.seqlen_q * p.q_stride_s;
  p.k_stride_h = p.v_stride_h = d;
  p.k_stride_s = p.v_stride_s = s.heads_kv * d;
  p.k_stride_b = p.v_stride_b = s.seqlen_k * p.k_stride_s;
  p.o_stride_h = p.q_stride_h;
  p.o_stride_s = p.q_stride_s;
  p.o_stride_b = p.q_stride_b;

  Dispatch dispatch;
  dispatch.kernel = d == 64 ? kAttentionKernels[0] : kAttentionKernels[1];
  dispatch.grid = {static_cast<std::uint32_t>((s.seqlen_q + 15) / 16),
                   static_cast<std::uint32_t>(s.heads_q), static_cast<std::uint32_t>(s.batch)};
  dispatch.block = {64, 1, 1};
  // Empty tensors (Sk = 0) still need a valid pointer: hand the kernel a one-element buffer.
  std::vector<std::uint16_t> empty_kv(1, 0);
  const auto& k = problem.k.empty() ? empty_kv : problem.k;
  const auto& v = problem.v.empty() ? empty_kv : problem.v;
  dispatch.args = {KernelArg::input(bytes_of(problem.q)), KernelArg::input(bytes_of(k)),
                   KernelArg::input(bytes_of(v)),         KernelArg::output(writable_bytes_of(out.o)),
                   KernelArg::output(writable_bytes_of(out.lse)), KernelArg::scalar(p)};
  executor.run(code_object, dispatch);
  return out;
}

}  // namespace cdna::device
