// Seeded varlen and paged-KV problems (reference/attention/varlen.hpp) for tests and mutation testing:
// packed sequences, a padded KV cache (used lengths below the capacity, the unused slots filled
// with chosen bits) and the same keys moved into pages of a shuffled block table. Inputs are
// randn (reference/attention/inputs.hpp); the scale is 1/sqrt(D) rounded to fp32.
#pragma once

#include <cstdint>
#include <vector>

#include "reference/attention/attention.hpp"
#include "reference/attention/varlen.hpp"

namespace cdna::reference {

// B = seqlens_q.size() sequences packed back to back (no padding, no pages): sequence b has
// seqlens_q[b] queries and seqlens_k[b] keys. `heads` supplies Hq, Hkv, D (its B, Sq, Sk are
// ignored); Q, K, V = randn(seed), randn(seed + 1), randn(seed + 2). Throws
// std::invalid_argument if the two length lists differ in size.
VarlenProblem packed_varlen(const AttentionShape& heads, Mask mask, const std::vector<std::int32_t>& seqlens_q,
                            const std::vector<std::int32_t>& seqlens_k, std::uint64_t seed);

// A padded KV cache: sequence b's keys occupy rows b·capacity .. b·capacity + used_k[b] − 1 of
// k and v (cu_seqlens_k = b·capacity, seqused_k = used_k), and every other slot holds `unused`.
// The used slots do not depend on `unused`. Queries packed as in packed_varlen.
VarlenProblem padded_cache_varlen(const AttentionShape& heads, Mask mask, const std::vector<std::int32_t>& seqlens_q,
                                  const std::vector<std::int32_t>& used_k, std::int32_t capacity, std::uint64_t seed,
                                  std::uint16_t unused);

// `packed` (no padded starts, no pages) with its K/V moved into pages of `page_size` keys: each
// sequence gets ceil(Sk_b / page_size) pages (pages_per_sequence: the largest count, the rest of
// a row of the table pointing at page 0, never read), the pages of all sequences shuffled by
// `seed`, plus `spare_pages` pages no sequence uses; unused slots and spare pages hold `unused`.
// The sequences' keys and values are unchanged. Throws std::invalid_argument for a packed
// problem with seqstart_k, seqused_k or pages, or page_size < 1.
VarlenProblem paged_from_packed(const VarlenProblem& packed, std::int32_t page_size, std::int32_t spare_pages,
                                std::uint64_t seed, std::uint16_t unused);

}  // namespace cdna::reference
