#include "device/attention_launcher.hpp"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <limits>
#include <numbers>
#include <sstream>
#include <stdexcept>

#include "device/attention_params.h"
#include "reference/common/input_file.hpp"

namespace cdna::device {

std::filesystem::path attention_code_object(numerics::Rounding mode, const std::filesystem::path& dir) {
  std::string name(numerics::to_string(mode));
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return dir / ("attention_fwd_" + name + ".hsaco");
}

std::vector<std::byte> read_file(const std::filesystem::path& path, std::string_view what) {
  if (auto why = reference::directory_instead_of_file(path, std::string(what))) throw std::invalid_argument(*why);
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

namespace {

// The parts of the definition (docs/semantics.md) attn_fwd does not compute: one line, or nullopt.
std::optional<std::string> unsupported_feature(const reference::AttentionProblem& p) {
  if (p.shape.dv() != p.shape.head_dim) {
    return "Dv = " + std::to_string(p.shape.dv()) + " != D = " + std::to_string(p.shape.head_dim) +
           " is not supported by attn_fwd; supported: Dv = D";
  }
  if (p.softcap != 0.0f) {
    std::ostringstream cap;
    cap << std::setprecision(9) << p.softcap;
    return "soft cap " + cap.str() + " is not supported by attn_fwd; supported: 0 (none)";
  }
  if (!p.sinks.empty()) return std::string("attention sinks are not supported by attn_fwd; supported: none (empty)");
  if (p.dtype != reference::ElementType::BF16) {
    return "dtype " + std::string(reference::to_string(p.dtype)) + " is not supported by attn_fwd; supported: bf16";
  }
  // The kernel adds the window sides to int32 diagonals: 2^30 keeps every sum in range, and a
  // side that long is unbounded in effect (extents fit in int32 elements).
  constexpr std::int64_t kMaxSide = std::int64_t{1} << 30;
  if (p.window_left > kMaxSide || p.window_right > kMaxSide) {
    return "window (" + std::to_string(p.window_left) + ", " + std::to_string(p.window_right) +
           ") has a side above 2^30; attn_fwd takes -1 (unbounded) or 0 .. 2^30";
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> attention_unsupported_reason(const reference::AttentionProblem& problem) {
  if (auto why = attention_unsupported_reason(problem.shape, problem.mask)) return why;
  return unsupported_feature(problem);
}

std::optional<std::string> attention_unsupported_reason(const reference::VarlenProblem& problem) {
  // The storage as one dense tensor of rows: its element counts must fit int32 like a batch's.
  reference::AttentionShape rows = problem.base.shape;
  rows.batch = 1;
  rows.seqlen_q = problem.rows_q();
  rows.seqlen_k = problem.rows_k();
  if (auto why = attention_unsupported_reason(rows, problem.base.mask)) return why;
  if (auto why = unsupported_feature(problem.base)) return why;
  if (problem.sequences() > 65535) {
    return "B = " + std::to_string(problem.sequences()) + " sequences; attn_fwd supports at most 65535";
  }
  return std::nullopt;
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

// The kernels' scalar arguments for lengths sq, sk (varlen: the largest ones) and `layout`.
AttentionParams kernel_params(std::int64_t sq, std::int64_t sk, const reference::AttentionShape& s,
                              reference::Mask mask, float scale, const AttentionLayout& l) {
  AttentionParams p{};
  p.seqlen_q = static_cast<std::int32_t>(sq);
  p.seqlen_k = static_cast<std::int32_t>(sk);
  p.heads_q = static_cast<std::int32_t>(s.heads_q);
  p.heads_kv = static_cast<std::int32_t>(s.heads_kv);
  p.causal = mask == reference::Mask::CausalBottomRight ? 1 : 0;
  p.scale_log2 = static_cast<float>(static_cast<double>(scale) * std::numbers::log2e);
  p.q_stride_b = l.q.b, p.q_stride_s = l.q.s, p.q_stride_h = l.q.h;
  p.k_stride_b = l.k.b, p.k_stride_s = l.k.s, p.k_stride_h = l.k.h;
  p.v_stride_b = l.v.b, p.v_stride_s = l.v.s, p.v_stride_h = l.v.h;
  p.o_stride_b = l.o.b, p.o_stride_s = l.o.s, p.o_stride_h = l.o.h;
  return p;
}

// A dispatch of the dense (ext = false) or extended kernel for head dim d over `rows_q` query
// rows (the longest sequence's), Hq heads and B batches, with its first five arguments.
Dispatch attention_dispatch(std::int64_t d, bool ext, std::int64_t rows_q, std::int64_t heads_q, std::int64_t batch,
                            std::span<const std::uint16_t> q, std::span<const std::uint16_t> k,
                            std::span<const std::uint16_t> v, std::span<std::uint16_t> o, std::span<float> lse) {
  const auto& names = ext ? kAttentionExtKernels : kAttentionKernels;
  Dispatch dispatch;
  dispatch.kernel = d == 64 ? names[0] : names[1];
  dispatch.grid = {static_cast<std::uint32_t>((rows_q + 15) / 16), static_cast<std::uint32_t>(heads_q),
                   static_cast<std::uint32_t>(batch)};
  dispatch.block = {64, 1, 1};
  // Empty tensors (Sk = 0) still need a valid pointer: hand the kernel a one-element buffer.
  static const std::uint16_t empty_kv[1] = {0};
  if (k.empty()) k = empty_kv;
  if (v.empty()) v = empty_kv;
  dispatch.args = {KernelArg::input(std::as_bytes(q)), KernelArg::input(std::as_bytes(k)),
                   KernelArg::input(std::as_bytes(v)), KernelArg::output(std::as_writable_bytes(o)),
                   KernelArg::output(std::as_writable_bytes(lse))};
  return dispatch;
}

// The extended kernel's int32 table arguments in order (attention_params.h); empty = null.
void add_tables(Dispatch& dispatch, std::initializer_list<std::span<const std::int32_t>> tables) {
  for (const auto& t : tables)
    dispatch.args.push_back(t.empty() ? KernelArg::null_pointer() : KernelArg::input(std::as_bytes(t)));
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
  reference::AttentionProblem window;  // the window's checks are those of a problem's
  window.window_left = a.window_left, window.window_right = a.window_right;
  if (a.window_left < -1 || a.window_right < -1) {
    throw std::invalid_argument("window (" + std::to_string(a.window_left) + ", " + std::to_string(a.window_right) +
                                ") has a side < -1; each side is -1 (unbounded) or a key count >= 0");
  }
  if (auto why = unsupported_feature(window)) throw std::invalid_argument(*why);
  const bool varlen = !a.seqlens_q.empty() || !a.seqlens_k.empty();
  // Per-batch lengths as the extended kernel's tables: cumulative lengths, every start 0 (the
  // batch stride places each batch).
  std::vector<std::int32_t> cu_q{0}, cu_k{0}, starts;
  if (varlen) {
    const auto check_lengths = [&](const char* name, std::span<const std::int32_t> n, std::int64_t cap,
                                   std::vector<std::int32_t>& cu) {
      if (static_cast<std::int64_t>(n.size()) != s.batch) {
        throw std::invalid_argument(std::string(name) + " has " + std::to_string(n.size()) + " lengths; B = " +
                                    std::to_string(s.batch) + " needs one per batch");
      }
      for (std::int32_t x : n) {
        if (x < 0 || x > cap) {
          throw std::invalid_argument(std::string(name) + " holds " + std::to_string(x) + "; each length must be in [0, " +
                                      std::to_string(cap) + "]");
        }
        cu.push_back(cu.back() + x);
      }
    };
    check_lengths("seqlens_q", a.seqlens_q, s.seqlen_q, cu_q);
    check_lengths("seqlens_k", a.seqlens_k, s.seqlen_k, cu_k);
    starts.assign(static_cast<std::size_t>(s.batch + 1), 0);
  }
  if (s.batch == 0 || s.seqlen_q == 0) return;

  const AttentionParams p = kernel_params(s.seqlen_q, s.seqlen_k, s, a.mask, a.scale, l);
  const bool ext = varlen || a.window_left != -1 || a.window_right != -1;
  Dispatch dispatch = attention_dispatch(s.head_dim, ext, s.seqlen_q, s.heads_q, s.batch, a.q, a.k, a.v, a.o, a.lse);
  if (!ext) {
    dispatch.args.push_back(KernelArg::scalar(p));
  } else {
    if (varlen) {
      add_tables(dispatch, {cu_q, starts, cu_k, starts, {}, {}});
    } else {
      add_tables(dispatch, {{}, {}, {}, {}, {}, {}});  // a dense batch: no sequence tables
    }
    const AttentionExtParams e{p, static_cast<std::int32_t>(a.window_left), static_cast<std::int32_t>(a.window_right),
                               0, 0, s.heads_q * s.seqlen_q, s.seqlen_q};
    dispatch.args.push_back(KernelArg::scalar(e));
  }
  executor.run(code_object, dispatch);
}

AttentionOutput run_attention(Executor& executor, std::span<const std::byte> code_object,
                              const reference::AttentionProblem& problem) {
  reference::validate(problem);
  if (auto why = attention_unsupported_reason(problem)) throw std::invalid_argument(*why);
  const auto& s = problem.shape;
  AttentionOutput out;
  out.o.assign(static_cast<std::size_t>(s.o_elements()), 0x7FC0);  // bf16 quiet NaN
  out.lse.assign(static_cast<std::size_t>(s.lse_elements()), std::numeric_limits<float>::quiet_NaN());
  StridedAttention a;
  a.shape = s;
  a.mask = problem.mask;
  a.scale = problem.scale;
  a.window_left = problem.window_left, a.window_right = problem.window_right;
  a.layout = contiguous_layout(s);
  a.q = problem.q, a.k = problem.k, a.v = problem.v;
  a.o = out.o, a.lse = out.lse;
  launch_attention(executor, code_object, a);
  return out;
}

AttentionOutput run_attention_varlen(Executor& executor, std::span<const std::byte> code_object,
                                     const reference::VarlenProblem& problem) {
  reference::validate(problem);
  if (auto why = attention_unsupported_reason(problem)) throw std::invalid_argument(*why);
  const reference::AttentionProblem& base = problem.base;
  const auto& s = base.shape;
  AttentionOutput out;
  out.o.assign(static_cast<std::size_t>(problem.o_elements()), kUnwrittenO);
  out.lse.assign(static_cast<std::size_t>(problem.lse_elements()), std::bit_cast<float>(kUnwrittenLseBits));
  std::int64_t max_sq = 0, max_sk = 0;
  for (std::int64_t b = 0; b < problem.sequences(); ++b) {
    max_sq = std::max(max_sq, problem.seqlen_q(b));
    max_sk = std::max(max_sk, problem.seqlen_k(b));
  }
  if (max_sq == 0) return out;  // no query row in any sequence (or B = 0)

  // Rows of all sequences in one tensor: batch stride 0, the tables place each sequence.
  const std::int64_t d = s.head_dim;
  const TensorStrides q{0, s.heads_q * d, d}, kv{0, s.heads_kv * d, d};
  const AttentionParams p = kernel_params(max_sq, max_sk, s, base.mask, base.scale, {q, kv, kv, q});
  Dispatch dispatch = attention_dispatch(d, true, max_sq, s.heads_q, s.batch, problem.q, problem.k, problem.v,
                                         out.o, out.lse);
  add_tables(dispatch, {problem.cu_seqlens_q, problem.seqstart_q, problem.cu_seqlens_k, problem.seqstart_k,
                        problem.seqused_k, problem.block_table});
  const AttentionExtParams e{p,
                             static_cast<std::int32_t>(base.window_left),
                             static_cast<std::int32_t>(base.window_right),
                             static_cast<std::int32_t>(problem.page_size),
                             static_cast<std::int32_t>(problem.pages_per_sequence),
                             0,
                             problem.rows_q()};
  dispatch.args.push_back(KernelArg::scalar(e));
  executor.run(code_object, dispatch);
  return out;
}

}  // namespace cdna::device
