// Re-runs every regression file in regression_dir() (properties/regressions/ unless
// CDNA_REGRESSION_DIR says otherwise) through its property and the oracle verdict with the
// correct kernel. With no file it is skipped, and says so.
#include <gtest/gtest.h>

#include "properties/regressions.hpp"

namespace cdna::properties {
namespace {

TEST(PropertyRegressions, EveryStoredCasePasses) {
  const auto dir = regression_dir();
  const auto files = regression_files(dir);
  if (files.empty()) GTEST_SKIP() << "no regression files in " << dir.string();
  simulator::SimulatorExecutor sim;
  const CheckContext ctx{correct_code_object, &sim};
  for (const auto& path : files) {
    const Regression r = read_regression(path);
    const std::string failure = rerun_regression(ctx, r);
    EXPECT_EQ(failure, "") << path.string() << " (property " << r.property << ", failed when written: "
                           << r.failure << ")";
    std::cout << "[ regression ] " << path.filename().string() << ": " << (failure.empty() ? "pass" : "FAIL")
              << "\n";
  }
}

}  // namespace
}  // namespace cdna::properties
