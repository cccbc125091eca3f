// The special-value cases of `compare` are what their descriptions say, by the exact oracle.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>

#include "reference/attention/attention.hpp"
#include "audit/cases/special_value_cases.hpp"

namespace cdna::audit {
namespace {

TEST(SpecialValueCases, ExactRowsAreTheDescribedClasses) {
  const std::vector<AuditCase> cases = special_value_cases();
  ASSERT_EQ(cases.size(), 5u);
  const double inf = INFINITY;
  for (const AuditCase& c : cases) {
    SCOPED_TRACE(c.id);
    const reference::AttentionResult x = reference::attention_forward_exact(c.problem);
    const std::int64_t D = c.problem.shape.head_dim;
    for (std::int64_t i = 0; i < 4; ++i) {
      const double lse = x.lse[static_cast<std::size_t>(i)];
      const double* o = x.o.data() + i * D;
      if (c.id == "S01") {  // O = V of key 3
        EXPECT_EQ(lse, inf);
        for (std::int64_t d = 0; d < D; ++d) {
          const float v = std::bit_cast<float>(std::uint32_t{c.problem.v[static_cast<std::size_t>(3 * D + d)]} << 16);
          EXPECT_EQ(o[d], static_cast<double>(v) == 0 ? 0.0 : static_cast<double>(v)) << d;
        }
      } else if (c.id == "S02") {
        EXPECT_EQ(lse, inf);
        for (std::int64_t d = 0; d < D; ++d) EXPECT_TRUE(std::isnan(o[d])) << d;
      } else if (c.id == "S03") {
        EXPECT_EQ(std::isnan(lse), i == 1);
        EXPECT_EQ(std::isnan(o[0]), i == 1);
      } else if (c.id == "S04") {
        EXPECT_TRUE(std::isfinite(lse));
        EXPECT_EQ(o[7], inf);
        EXPECT_TRUE(std::isfinite(o[6]));
      } else {  // S05: no visible key
        EXPECT_EQ(lse, -inf);
        for (std::int64_t d = 0; d < D; ++d) EXPECT_EQ(o[d], 0.0) << d;
      }
    }
  }
}

}  // namespace
}  // namespace cdna::audit
