// The production cases (audit/cases/production_cases.hpp): the shapes issue 14 names, each judged
// on a seeded sample of rows.
#include "audit/cases/production_cases.hpp"

#include <gtest/gtest.h>

namespace cdna::audit {
namespace {

TEST(ProductionCases, OursPastThirtyTwoThousandKeysAtALargeSq) {
  const std::vector<AuditCase> cases = production_cases("attention-fwd");
  ASSERT_EQ(cases.size(), 1u);
  const reference::AttentionShape& s = cases[0].problem.shape;
  EXPECT_GE(s.seqlen_k, 33000);
  EXPECT_GE(s.seqlen_q, 1024);
  EXPECT_EQ(s.head_dim, 128);
  EXPECT_EQ(cases[0].sample_rows, kProductionSampleRows);
  EXPECT_EQ(std::ssize(cases[0].problem.q), s.q_elements());
}

TEST(ProductionCases, PeersAtTheirBenchmarkShape) {
  for (const char* peer : {"aiter-fmha-v3", "moonmath"}) {
    const std::vector<AuditCase> cases = production_cases(peer);
    ASSERT_EQ(cases.size(), 1u) << peer;
    const reference::AttentionShape& s = cases[0].problem.shape;
    EXPECT_EQ(s.batch, 1);
    EXPECT_EQ(s.heads_q, 8);
    EXPECT_EQ(s.heads_kv, 8);
    EXPECT_EQ(s.seqlen_q, 4096);
    EXPECT_EQ(s.seqlen_k, 4096);
    EXPECT_EQ(s.head_dim, 128);
    EXPECT_EQ(cases[0].problem.mask, reference::Mask::None);
    EXPECT_EQ(cases[0].sample_rows, kProductionSampleRows);
  }
}

}  // namespace
}  // namespace cdna::audit
