// The property suite: each property of properties/checks.hpp as its own RapidCheck property,
// run through GoogleTest on the CDNA3 simulator with the kernel under test (ours by default;
// CDNA_PROPERTY_KERNEL names another adapter: properties/kernel_under_test.hpp) in all three
// rounding modes. RC_PARAMS (e.g. "seed=1 max_success=500") controls a run; ctest sets fixed seeds and
// the case budgets (properties/CMakeLists.txt). A failing property's shrunk case is written to
// regression_dir() when its test ends. What each asserts: properties/README.md.
#include <gtest/gtest.h>

#include <iostream>
#include <stdexcept>

#include "properties/kernel_under_test.hpp"
#include "properties/property_junit.hpp"
#include "properties/property_runner.hpp"
#include "properties/shard_argument.hpp"

namespace cdna::properties {
namespace {

TEST(AttentionProperty, OracleVerdict) {
  CaseSpec spec;
  spec.varlen = true;
  check_property("oracle_verdict", spec);
}

TEST(AttentionProperty, KeyPermutation) {
  CaseSpec spec;
  spec.masks = false;  // a permutation of keys does not commute with a causal mask
  spec.max_seqlen_q = 20;
  check_property("key_permutation", spec);
}

TEST(AttentionProperty, GqaEqualsReplicatedKv) {
  CaseSpec spec;
  spec.min_group = 2;
  check_property("gqa_replication", spec);
}

TEST(AttentionProperty, BatchEntriesIndependent) {
  CaseSpec spec;
  spec.min_batch = 2, spec.max_batch = 3;
  spec.varlen = true;
  check_property("batch_independence", spec);
}

TEST(AttentionProperty, PaddingContentIrrelevant) {
  CaseSpec spec;
  spec.varlen = true;
  check_property("padding_irrelevant", spec);
}

TEST(AttentionProperty, InvisibleKeysHaveNoEffect) {
  CaseSpec spec;
  check_property("invisible_keys", spec);
}

TEST(AttentionProperty, BitwiseDeterministic) {
  CaseSpec spec;
  check_property("determinism", spec);
}

TEST(AttentionProperty, NonFiniteInputsFollowTheDefinition) {
  CaseSpec spec;
  spec.nonfinite = true;
  check_property("nonfinite_inputs", spec);
}

}  // namespace
}  // namespace cdna::properties

// `--junit FILE` (properties/property_junit.hpp): classname cdna-verify.property.<CDNA_PROPERTY_KERNEL>.
int main(int argc, char** argv) {
  if (!cdna::properties::take_shard_argument(argc, argv)) return 2;  // --shard I/N (shard_argument.hpp)
  ::testing::InitGoogleTest(&argc, argv);
  std::string kernel;
  try {
    kernel = cdna::properties::kernel_selection_from_env().name;
  } catch (const std::invalid_argument& e) {
    std::cerr << "attention_properties_test: error: " << e.what() << "\n";
    return 2;
  }
  if (const int rc = cdna::properties::setup_junit(argc, argv, [kernel](const ::testing::TestInfo&) { return kernel; }))
    return rc;
  cdna::properties::install_property_listener();
  return cdna::properties::finish_junit(cdna::properties::nothing_ran_is_not_a_pass(RUN_ALL_TESTS(), argv[0]));
}
