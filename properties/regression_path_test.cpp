// The write-and-rerun path of regression files, shown on a kernel that is really wrong: the
// oracle-verdict property runs against a mutant code object (DROP_LAST_KV_TILE: the last
// partial 16-key tile is ignored, docs/mutation-testing.md), RapidCheck finds and shrinks a
// failure, the shrunk case is written to a temporary directory, and the file read back fails
// again with the mutant and passes with the correct kernel.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <unistd.h>

#include <optional>

#include "device/attention_launcher.hpp"
#include "properties/generators.hpp"
#include "properties/regressions.hpp"
#include "audit/mutants/mutants.hpp"

namespace cdna::properties {
namespace {

class TempDir {
 public:
  TempDir() : path_(std::filesystem::temp_directory_path() / ("cdna-regression-path-" + std::to_string(getpid()))) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

TEST(RegressionPath, MutantFailureIsShrunkWrittenAndFailsAgainOnRerun) {
  const std::vector<std::byte> mutant =
      device::read_file(audit::mutant_code_object("DROP_LAST_KV_TILE", CDNA_CODE_OBJECT_DIR), "mutant code object");
  simulator::SimulatorExecutor sim;
  const CheckContext mutant_ctx{[&](numerics::Rounding) { return std::span<const std::byte>(mutant); }, &sim};
  const CheckContext correct_ctx{correct_code_object, &sim};

  CaseSpec spec;
  spec.mode = numerics::Rounding::RTNE;  // the mutants are built in RTNE
  spec.masks = false;                   // nothing the kernel rejects: every evaluation is judged
  spec.max_seqlen_q = 20;
  std::optional<PropertyCase> last_failure;
  std::string last_message;
  rc::detail::TestParams params;
  params.seed = 20261129;
  params.maxSuccess = 100;
  rc::detail::TestMetadata metadata;
  metadata.id = "RegressionPath";
  const rc::detail::TestResult result = rc::detail::checkTestable(
      [&] {
        const PropertyCase c = *gen_case(spec);
        if (!c.has_output_row()) RC_DISCARD("no output row: nothing to judge");
        const std::string f = check_oracle_verdict(mutant_ctx, c);
        if (!f.empty()) {
          last_failure = c, last_message = f;
          RC_FAIL(f);
        }
      },
      metadata, params);
  ASSERT_TRUE(result.is<rc::detail::FailureResult>()) << "the mutant survived 100 cases";
  ASSERT_TRUE(last_failure.has_value());
  const auto& shrunk = last_failure->problem.shape;
  std::cout << "shrunk to: " << describe(*last_failure) << "\n  " << last_message << "\n";
  // Shrinking drives every draw towards its lower bound; a case with a partial last KV tile
  // and one sequence, one head, no padding is what is left of any failure of this mutant.
  EXPECT_EQ(shrunk.batch, 1);
  EXPECT_EQ(shrunk.heads_q, 1);
  EXPECT_GT(shrunk.seqlen_k % 16, 0);

  TempDir dir;
  const auto written = write_regression(dir.path(), "oracle_verdict", *last_failure, last_message,
                                        "attention_fwd_mutant_drop_last_kv_tile.hsaco");
  const auto files = regression_files(dir.path());
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0], written);
  const Regression r = read_regression(files[0]);
  EXPECT_EQ(r.property, "oracle_verdict");
  EXPECT_EQ(r.c.problem.q, last_failure->problem.q);
  EXPECT_EQ(r.c.problem.k, last_failure->problem.k);
  EXPECT_EQ(r.c.problem.v, last_failure->problem.v);
  EXPECT_EQ(describe(r.c), describe(*last_failure).substr(0, describe(*last_failure).find(" values:")) +
                               " values: " + r.c.values);
  EXPECT_NE(rerun_regression(mutant_ctx, r), "") << "the stored case no longer fails with the mutant";
  EXPECT_EQ(rerun_regression(correct_ctx, r), "") << "the stored case fails with the correct kernel";
}

}  // namespace
}  // namespace cdna::properties
