// MoonMath's tail KV-split plan and schedule (adapters/moonmath_plan.hpp). Expected values are
// worked by hand from the rule stated there (span(G) = ⌈tail·G/304⌉·⌈nkb/G⌉ + 3), at each
// threshold and one step beside it.
#include "adapters/moonmath_plan.hpp"

#include <gtest/gtest.h>

namespace cdna::adapters::moonmath {
namespace {

TEST(MoonmathPlan, BlockCounts) {
  EXPECT_EQ(query_blocks(1), 1);
  EXPECT_EQ(query_blocks(384), 1);
  EXPECT_EQ(query_blocks(385), 2);  // 25 q-tiles of 16 rows, 24 per block
  EXPECT_EQ(kv_blocks(64), 1);
  EXPECT_EQ(kv_blocks(65), 2);
}

TEST(MoonmathPlan, NoSplitWhenTheRoundsAreFullOrKvIsShort) {
  const auto dense = [](TailSplitPlan p, std::int64_t wgs) {
    EXPECT_EQ(p.tail, 0);
    EXPECT_EQ(p.parts, 0);
    EXPECT_EQ(p.prefix_workgroups, wgs);
  };
  dense(plan_tail_split(1, 304, 3072 / 64), 304);   // tail 0: whole rounds
  dense(plan_tail_split(1, 289, 480), 289);         // tail 289 > 288: last round nearly full
  dense(plan_tail_split(1, 1, 47), 1);              // nkb 47 < 48: KV too short
  // (The "nearly full" test changes no outcome: a tail above 202 allows G ≤ 2 only, and G = 2
  // then takes two rounds, span 2·⌈nkb/2⌉ + 3 ≥ nkb + 3, so it never beats G = 1.)
  dense(plan_tail_split(1, 153, 47), 153);
  // tail 153, nkb 48: G = 2 needs two rounds (306 parts), 2·24 + 3 = 51, no better than G = 1;
  // G = 3 (≤ 608/153): 2·16 + 3 = 35.
  EXPECT_EQ(plan_tail_split(1, 153, 48).split_ways, 3);
  // tail 152: G = 2 fits one round (304 parts): 24 + 3 = 27; G = 4 ties (2·12 + 3), the first is kept.
  const TailSplitPlan p = plan_tail_split(1, 152, 48);
  EXPECT_EQ(p.split_ways, 2);
  EXPECT_EQ(p.parts, 304);
  EXPECT_EQ(p.prefix_workgroups, 0);
}

TEST(MoonmathPlan, OneStrandedBlockWithLongKv) {
  // B1 H1 Sq 384 Sk 3072: tail 1, nkb 48; G ≤ 12 (48/G ≥ 4), span ⌈48/G⌉ + 3 is least at G = 12.
  const TailSplitPlan p = plan_tail_split(1, 1, 48);
  EXPECT_EQ(p.prefix_workgroups, 0);
  EXPECT_EQ(p.tail, 1);
  EXPECT_EQ(p.split_ways, 12);
  EXPECT_EQ(p.parts, 12);
  // One more (b, h): 305 workgroups, 304 run as the prefix, the last one split the same way.
  const TailSplitPlan q = plan_tail_split(1, 305, 48);
  EXPECT_EQ(q.prefix_workgroups, 304);
  EXPECT_EQ(q.tail, 1);
  EXPECT_EQ(q.split_ways, 12);
}

TEST(MoonmathPlan, TheSmallestGWinsATie) {
  // tail 1, nkb 50: G ≤ 12; ⌈50/G⌉ = 5 for G = 10, 11, 12 — the first, 10, is kept.
  EXPECT_EQ(plan_tail_split(1, 1, 50).split_ways, 10);
}

TEST(MoonmathPlan, MoreRoundsCanPay) {
  // tail 40, nkb 192: G ≤ 15 (608/40); one round up to G = 7 (span 28 + 3 = 31), two rounds
  // from G = 8; G = 15 gives 2·⌈192/15⌉ + 3 = 29, the least.
  const TailSplitPlan p = plan_tail_split(1, 40, 192);
  EXPECT_EQ(p.split_ways, 15);
  EXPECT_EQ(p.parts, 600);
}

TEST(MoonmathPlan, ScheduleEntries) {
  // 2 q-blocks × 153 (b, h) = 306 workgroups: tail 2 (workgroups 304 and 305 = q-blocks 0 and 1
  // of bh 152), nkb 48: G = 12 (24 parts, one round).
  const TailSplitPlan p = plan_tail_split(2, 153, 48);
  ASSERT_EQ(p.tail, 2);
  ASSERT_EQ(p.split_ways, 12);
  const std::vector<std::int32_t> s = tail_schedule(p, 2);
  ASSERT_EQ(s.size(), 4u * (kMaxParts + 2));
  const auto entry = [&](std::int64_t i) {
    return std::vector<std::int32_t>(s.begin() + 4 * i, s.begin() + 4 * i + 4);
  };
  EXPECT_EQ(entry(0), (std::vector<std::int32_t>{0, 152, 0, 0}));
  EXPECT_EQ(entry(11), (std::vector<std::int32_t>{0, 152, 0, 0}));
  EXPECT_EQ(entry(12), (std::vector<std::int32_t>{1, 152, 0, 0}));
  EXPECT_EQ(entry(23), (std::vector<std::int32_t>{1, 152, 0, 0}));
  EXPECT_EQ(entry(24), (std::vector<std::int32_t>{0, 0, 0, 0}));
  EXPECT_EQ(entry(kMaxParts), (std::vector<std::int32_t>{0, 152, 0, 12}));
  EXPECT_EQ(entry(kMaxParts + 1), (std::vector<std::int32_t>{1, 152, 12, 12}));
}

}  // namespace
}  // namespace cdna::adapters::moonmath
