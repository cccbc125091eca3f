#include "adapters/moonmath_plan.hpp"

namespace cdna::adapters::moonmath {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

std::int64_t query_blocks(std::int64_t seqlen_q) { return ceil_div(ceil_div(seqlen_q, 16), 24); }
std::int64_t kv_blocks(std::int64_t seqlen_k) { return ceil_div(seqlen_k, kKvBlockRows); }

TailSplitPlan plan_tail_split(std::int64_t nqb, std::int64_t num_bh, std::int64_t nkb) {
  const std::int64_t wgs = nqb * num_bh;
  const TailSplitPlan dense{wgs, 0, 1, 0};
  const std::int64_t tail = wgs % kNumCus;
  const bool nearly_full = tail > kNumCus * 19 / 20;  // integer division, as MoonMath's int arithmetic
  if (tail == 0 || nearly_full || nkb < kMinKvBlocksToSplit) return dense;
  std::int64_t best_g = 1, best_span = nkb + kMergeCostBlocks;
  for (std::int64_t g = 2; g <= kMaxParts / tail && nkb / g >= kMinBlocksPerPart; ++g) {
    const std::int64_t span = ceil_div(tail * g, kNumCus) * ceil_div(nkb, g) + kMergeCostBlocks;
    if (span < best_span) {  // strict: the smallest G wins a tie
      best_span = span;
      best_g = g;
    }
  }
  if (best_g == 1) return dense;
  return TailSplitPlan{wgs - tail, tail, best_g, tail * best_g};
}

std::vector<std::int32_t> tail_schedule(const TailSplitPlan& plan, std::int64_t nqb) {
  std::vector<std::int32_t> s(static_cast<std::size_t>(4 * (kMaxParts + plan.tail)), 0);
  const auto put = [&](std::int64_t entry, std::int64_t x, std::int64_t y, std::int64_t z, std::int64_t w) {
    const auto at = static_cast<std::size_t>(4 * entry);
    s[at] = static_cast<std::int32_t>(x);
    s[at + 1] = static_cast<std::int32_t>(y);
    s[at + 2] = static_cast<std::int32_t>(z);
    s[at + 3] = static_cast<std::int32_t>(w);
  };
  std::int64_t part = 0;
  for (std::int64_t t = 0; t < plan.tail; ++t) {
    const std::int64_t wg = plan.prefix_workgroups + t;  // stranded workgroup, bh-major order
    const std::int64_t q_block = wg % nqb, bh = wg / nqb;
    put(kMaxParts + t, q_block, bh, part, plan.split_ways);
    for (std::int64_t i = 0; i < plan.split_ways; ++i) put(part++, q_block, bh, 0, 0);
  }
  return s;
}

}  // namespace cdna::adapters::moonmath
