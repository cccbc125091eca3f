// MoonMath's launch geometry and its tail KV-split plan, written here from the rule its host
// launcher states (../shared/peers/moonmath-attention/attention_kernel.hip, plan_tail_split and
// launch_attention_forward; MoonMath commit 5f758e78), so that the moonmath adapter launches
// exactly what that launcher would on MI300X.
//
// The rule: one workgroup per 384-row query block ("q-block") and (batch, head); the
// nqb·(B·H) workgroups run in rounds of NumCUs = 304 (one workgroup per CU). When the last round
// is partial ("tail" = workgroups mod 304, the stranded q-blocks), not nearly full
// (tail ≤ ⌊304·19/20⌋ = 288) and Sk is long (nkb = ⌈Sk/64⌉ ≥ 48 KV blocks), each stranded
// q-block's KV blocks are split G ways, G ≥ 2 minimising
//   span(G) = ⌈tail·G / 304⌉ · ⌈nkb / G⌉ + 3   (3: the merge kernel's cost in KV-block times)
// over 2 ≤ G ≤ ⌊608 / tail⌋ with ⌊nkb / G⌋ ≥ 4, the first G on ties, and only if it beats
// span(1) = nkb + 3. Then the first wgs − tail workgroups run as the ordinary "prefix" launch and
// the tail as tail·G "parts" plus a merge.
#pragma once

#include <cstdint>
#include <vector>

namespace cdna::adapters::moonmath {

inline constexpr std::int64_t kQueryBlockRows = 384;  // QTilesPerWG (24) × QTileRows (16)
inline constexpr std::int64_t kKvBlockRows = 64;      // KvBlockRows
inline constexpr std::int64_t kHeadDim = 128;         // HeadDim, the only D
inline constexpr std::int64_t kNumCus = 304;          // NumCUs: MI300X compute units
inline constexpr std::int64_t kMaxParts = 2 * kNumCus;
inline constexpr std::int64_t kMinKvBlocksToSplit = 48;
inline constexpr std::int64_t kMinBlocksPerPart = 4;
inline constexpr std::int64_t kMergeCostBlocks = 3;
inline constexpr std::int64_t kMergeWorkgroupsPerQueryBlock = 48;  // 384·128 / 4 / 256 threads

// Query blocks ⌈⌈Sq/16⌉/24⌉ and KV blocks ⌈Sk/64⌉, as launch_attention_forward computes them.
std::int64_t query_blocks(std::int64_t seqlen_q);
std::int64_t kv_blocks(std::int64_t seqlen_k);

struct TailSplitPlan {
  std::int64_t prefix_workgroups = 0;  // workgroups of the ordinary 1-D prefix launch (0: none)
  std::int64_t tail = 0;               // stranded q-blocks split (0: no split, one dense launch)
  std::int64_t split_ways = 1;         // G, parts per stranded q-block
  std::int64_t parts = 0;              // tail·G workgroups of the split launch
};

// The plan for nqb q-blocks, num_bh = B·H and nkb KV blocks (all ≥ 1), with a workspace given
// (the adapter always gives one, as production use does).
TailSplitPlan plan_tail_split(std::int64_t nqb, std::int64_t num_bh, std::int64_t nkb);

// The bytes written into the kernel's `tail_sched` (int4 entries, little-endian int32 x, y, z, w)
// before the split and merge launches: entries [0, parts) one per part (q_block, bh, 0, 0), the
// stranded q-blocks in the prefix's bh-major order, G parts each; entries [parts, MaxParts) zero
// (never read); entries [MaxParts, MaxParts + tail) one per stranded q-block (q_block, bh,
// first part, G). (MaxParts + tail)·16 bytes, as MoonMath's launcher copies.
std::vector<std::int32_t> tail_schedule(const TailSplitPlan& plan, std::int64_t nqb);

}  // namespace cdna::adapters::moonmath
