#include "properties/layout_run.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <vector>

namespace cdna::properties {
namespace {

using device::TensorStrides;

TensorStrides strides_of(LayoutKind kind, std::int64_t seq_cap, std::int64_t heads, std::int64_t row) {
  if (kind == LayoutKind::Bshd) return {seq_cap * heads * row, heads * row, row};
  return {heads * seq_cap * row, row, seq_cap * row};  // BHSD
}

std::int64_t offset(const TensorStrides& t, std::int64_t b, std::int64_t s, std::int64_t h) {
  return b * t.b + s * t.s + h * t.h;
}

// Length of entry b (the full extent when `lens` is empty).
std::int64_t length(const std::vector<std::int64_t>& lens, std::int64_t b, std::int64_t full) {
  return lens.empty() ? full : lens[static_cast<std::size_t>(b)];
}

// A [B, S, H, D] contiguous tensor copied into a poisoned strided buffer; rows at s >= the
// entry's length stay poison.
std::vector<std::uint16_t> scatter(const std::vector<std::uint16_t>& x, const TensorStrides& t,
                                   std::int64_t batch, std::int64_t seq, std::int64_t heads,
                                   std::int64_t d, const std::vector<std::int64_t>& lens,
                                   std::uint16_t poison, std::int64_t extent) {
  std::vector<std::uint16_t> buf(static_cast<std::size_t>(extent), poison);
  for (std::int64_t b = 0; b < batch; ++b) {
    for (std::int64_t s = 0; s < length(lens, b, seq); ++s) {
      for (std::int64_t h = 0; h < heads; ++h) {
        const std::int64_t src = ((b * seq + s) * heads + h) * d;
        const std::int64_t dst = offset(t, b, s, h);
        for (std::int64_t e = 0; e < d; ++e) {
          buf[static_cast<std::size_t>(dst + e)] = x[static_cast<std::size_t>(src + e)];
        }
      }
    }
  }
  return buf;
}

std::int64_t capacity_extent(const TensorStrides& t, std::int64_t batch, std::int64_t seq_cap,
                             std::int64_t heads, std::int64_t d, std::int64_t row) {
  // The whole allocation, padding of the last row included, so that every pad element exists.
  const std::int64_t e = device::strided_extent(t, batch, seq_cap, heads, d);
  return e == 0 ? 0 : e + (row - d);
}

}  // namespace

device::AttentionLayout case_layout(const reference::AttentionShape& s, const CaseLayout& l) {
  const std::int64_t row = s.head_dim + l.row_pad;
  const TensorStrides q = strides_of(l.kind, s.seqlen_q + l.seq_slack, s.heads_q, row);
  const TensorStrides kv = strides_of(l.kind, s.seqlen_k + l.seq_slack, s.heads_kv, row);
  return {q, kv, kv, q};
}

LayoutRun run_in_layout(device::Executor& executor, std::span<const std::byte> code_object,
                        const PropertyCase& c) {
  const reference::AttentionProblem& p = c.problem;
  reference::validate(p);
  if (auto why = device::attention_unsupported_reason(p)) throw std::invalid_argument(*why);
  const auto& s = p.shape;
  const std::int64_t d = s.head_dim, row = d + c.layout.row_pad;
  const std::int64_t sq_cap = s.seqlen_q + c.layout.seq_slack, sk_cap = s.seqlen_k + c.layout.seq_slack;
  const device::AttentionLayout lay = case_layout(s, c.layout);
  const std::uint16_t poison = c.layout.pad_bits;

  const auto q = scatter(p.q, lay.q, s.batch, s.seqlen_q, s.heads_q, d, c.seqlens_q, poison,
                         capacity_extent(lay.q, s.batch, sq_cap, s.heads_q, d, row));
  const auto k = scatter(p.k, lay.k, s.batch, s.seqlen_k, s.heads_kv, d, c.seqlens_k, poison,
                         capacity_extent(lay.k, s.batch, sk_cap, s.heads_kv, d, row));
  const auto v = scatter(p.v, lay.v, s.batch, s.seqlen_k, s.heads_kv, d, c.seqlens_k, poison,
                         capacity_extent(lay.v, s.batch, sk_cap, s.heads_kv, d, row));
  std::vector<std::uint16_t> o(static_cast<std::size_t>(capacity_extent(lay.o, s.batch, sq_cap, s.heads_q, d, row)),
                               kOutputSentinel);
  LayoutRun r;
  r.out.lse.assign(static_cast<std::size_t>(s.lse_elements()), std::numeric_limits<float>::quiet_NaN());

  // One dispatch; a varlen case passes its per-batch lengths (the kernel's varlen dispatch).
  device::StridedAttention a;
  a.shape = s, a.mask = p.mask, a.scale = p.scale, a.layout = lay;
  a.window_left = p.window_left, a.window_right = p.window_right;
  a.q = q, a.k = k, a.v = v, a.o = o, a.lse = r.out.lse;
  std::vector<std::int32_t> lengths_q, lengths_k;
  if (c.varlen()) {
    lengths_q.assign(c.seqlens_q.begin(), c.seqlens_q.end());
    lengths_k.assign(c.seqlens_k.begin(), c.seqlens_k.end());
    a.seqlens_q = lengths_q, a.seqlens_k = lengths_k;
  }
  device::launch_attention(executor, code_object, a);

  // Gather O; every element of o not gathered must still be the sentinel.
  std::vector<bool> owned(o.size(), false);
  r.out.o.assign(static_cast<std::size_t>(s.o_elements()), kOutputSentinel);
  for (std::int64_t b = 0; b < s.batch; ++b) {
    for (std::int64_t i = 0; i < s.seqlen_q; ++i) {
      const bool valid = i < length(c.seqlens_q, b, s.seqlen_q);
      for (std::int64_t h = 0; h < s.heads_q; ++h) {
        const std::int64_t src = offset(lay.o, b, i, h), dst = ((b * s.seqlen_q + i) * s.heads_q + h) * d;
        for (std::int64_t e = 0; e < d && valid; ++e) {
          r.out.o[static_cast<std::size_t>(dst + e)] = o[static_cast<std::size_t>(src + e)];
          owned[static_cast<std::size_t>(src + e)] = true;
        }
      }
    }
  }
  for (std::size_t e = 0; e < o.size(); ++e) {
    if (!owned[e] && o[e] != kOutputSentinel) {
      r.stray_write = "the kernel wrote O's buffer outside O's elements (varlen rows or padding) at element " +
                      std::to_string(e);
      break;
    }
  }
  return r;
}

LayoutRun run_through_adapter(device::Executor& executor, adapters::KernelAdapter& adapter, const PropertyCase& c) {
  if (!c.layout.contiguous())
    throw std::logic_error("run_through_adapter: " + describe(c) + " is not contiguous BSHD (adapters take no strides)");
  LayoutRun r;
  if (!c.varlen()) {
    r.out = adapter.run(executor, c.problem, c.mode);
    return r;
  }
  const auto& s = c.problem.shape;
  const bool lse = adapter.features().writes_lse;
  r.out.o.assign(static_cast<std::size_t>(s.o_elements()), kOutputSentinel);
  r.out.lse.assign(lse ? static_cast<std::size_t>(s.lse_elements()) : 0, std::numeric_limits<float>::quiet_NaN());
  for (std::int64_t b = 0; b < s.batch; ++b) {
    const reference::AttentionProblem alone = sequence_alone(c, b);
    if (alone.shape.seqlen_q == 0) continue;  // no row; its rows keep the sentinel
    const device::AttentionOutput got = adapter.run(executor, alone, c.mode);
    std::copy(got.o.begin(), got.o.end(), r.out.o.begin() + b * s.seqlen_q * s.heads_q * s.head_dim);
    for (std::int64_t h = 0; lse && h < s.heads_q; ++h) {
      std::copy_n(got.lse.begin() + h * alone.shape.seqlen_q, alone.shape.seqlen_q,
                  r.out.lse.begin() + (b * s.heads_q + h) * s.seqlen_q);
    }
  }
  return r;
}

}  // namespace cdna::properties
