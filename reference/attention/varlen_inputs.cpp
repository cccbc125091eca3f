#include "reference/attention/varlen_inputs.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>

#include "reference/attention/inputs.hpp"

namespace cdna::reference {
namespace {

// The common part: base problem of `heads` with B sequences, packed queries and cu_seqlens_q.
VarlenProblem with_queries(const AttentionShape& heads, Mask mask, const std::vector<std::int32_t>& seqlens_q,
                           std::uint64_t seed) {
  VarlenProblem p;
  p.base.shape = heads;
  p.base.shape.batch = static_cast<std::int64_t>(seqlens_q.size());
  p.base.shape.seqlen_q = p.base.shape.seqlen_k = 0;
  p.base.mask = mask;
  p.base.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(heads.head_dim)));
  p.cu_seqlens_q = {0};
  for (std::int32_t n : seqlens_q) p.cu_seqlens_q.push_back(p.cu_seqlens_q.back() + n);
  p.q = randn_bf16(static_cast<std::size_t>(p.cu_seqlens_q.back() * heads.heads_q * heads.head_dim), seed);
  return p;
}

}  // namespace

VarlenProblem packed_varlen(const AttentionShape& heads, Mask mask, const std::vector<std::int32_t>& seqlens_q,
                            const std::vector<std::int32_t>& seqlens_k, std::uint64_t seed) {
  if (seqlens_q.size() != seqlens_k.size()) {
    throw std::invalid_argument("packed_varlen: " + std::to_string(seqlens_q.size()) + " query lengths but " +
                                std::to_string(seqlens_k.size()) + " key lengths; give one of each per sequence");
  }
  VarlenProblem p = with_queries(heads, mask, seqlens_q, seed);
  p.cu_seqlens_k = {0};
  for (std::int32_t n : seqlens_k) p.cu_seqlens_k.push_back(p.cu_seqlens_k.back() + n);
  const auto kv = static_cast<std::size_t>(p.cu_seqlens_k.back() * heads.heads_kv * heads.head_dim);
  p.k = randn_bf16(kv, seed + 1);
  p.v = randn_bf16(kv, seed + 2);
  return p;
}

VarlenProblem padded_cache_varlen(const AttentionShape& heads, Mask mask, const std::vector<std::int32_t>& seqlens_q,
                                  const std::vector<std::int32_t>& used_k, std::int32_t capacity, std::uint64_t seed,
                                  std::uint16_t unused) {
  std::vector<std::int32_t> full(used_k.size(), capacity);
  VarlenProblem p = packed_varlen(heads, mask, seqlens_q, full, seed);
  p.seqused_k = used_k;
  const std::int64_t row = heads.heads_kv * heads.head_dim;
  for (std::size_t b = 0; b < used_k.size(); ++b) {
    for (std::int64_t j = used_k[b]; j < capacity; ++j) {
      const auto at = static_cast<std::ptrdiff_t>((static_cast<std::int64_t>(b) * capacity + j) * row);
      std::fill_n(p.k.begin() + at, row, unused);
      std::fill_n(p.v.begin() + at, row, unused);
    }
  }
  return p;
}

VarlenProblem paged_from_packed(const VarlenProblem& packed, std::int32_t page_size, std::int32_t spare_pages,
                                std::uint64_t seed, std::uint16_t unused) {
  if (packed.paged() || !packed.seqstart_k.empty() || !packed.seqused_k.empty() || page_size < 1) {
    throw std::invalid_argument("paged_from_packed: needs a packed problem (no seqstart_k, seqused_k or pages) and "
                                "page_size >= 1");
  }
  const std::int64_t B = packed.sequences(), row = packed.base.shape.heads_kv * packed.base.shape.head_dim;
  VarlenProblem p = packed;
  p.cu_seqlens_k.clear();
  p.page_size = page_size;
  std::vector<std::int64_t> pages_of(static_cast<std::size_t>(B));
  std::int64_t pages = spare_pages;
  for (std::int64_t b = 0; b < B; ++b) {
    p.seqused_k.push_back(static_cast<std::int32_t>(packed.seqlen_k(b)));
    pages_of[static_cast<std::size_t>(b)] = (packed.seqlen_k(b) + page_size - 1) / page_size;
    pages += pages_of[static_cast<std::size_t>(b)];
    p.pages_per_sequence = std::max(p.pages_per_sequence, pages_of[static_cast<std::size_t>(b)]);
  }
  std::vector<std::int32_t> order(static_cast<std::size_t>(pages));
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 gen(seed);
  for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[gen() % i]);  // Fisher-Yates
  p.block_table.assign(static_cast<std::size_t>(B * p.pages_per_sequence), 0);
  p.k.assign(static_cast<std::size_t>(pages * page_size * row), unused);
  p.v.assign(p.k.size(), unused);
  std::size_t next = 0;
  for (std::int64_t b = 0; b < B; ++b) {
    for (std::int64_t c = 0; c < pages_of[static_cast<std::size_t>(b)]; ++c)
      p.block_table[static_cast<std::size_t>(b * p.pages_per_sequence + c)] = order[next++];
    for (std::int64_t j = 0; j < packed.seqlen_k(b); ++j) {
      const auto from = static_cast<std::ptrdiff_t>(packed.k_row(b, j) * row);
      const auto to = static_cast<std::ptrdiff_t>(p.k_row(b, j) * row);
      std::copy_n(packed.k.begin() + from, row, p.k.begin() + to);
      std::copy_n(packed.v.begin() + from, row, p.v.begin() + to);
    }
  }
  return p;
}

}  // namespace cdna::reference
