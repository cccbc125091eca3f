// The property suite: each property of properties/checks.hpp as its own RapidCheck property,
// run through GoogleTest on the CDNA3 simulator with the correct kernel in all three rounding
// modes. RC_PARAMS (e.g. "seed=1 max_success=500") controls a run; ctest sets fixed seeds and
// the case budgets (properties/CMakeLists.txt). A failing property's shrunk case is written to
// regression_dir() when its test ends. What each asserts: properties/README.md.
#include <gtest/gtest.h>
// rapidcheck/gtest.h uses GoogleTest without including it: it must come second.
#include <rapidcheck/gtest.h>

#include "properties/property_runner.hpp"

namespace cdna::properties {
namespace {

RC_GTEST_PROP(AttentionProperty, OracleVerdict, ()) {
  CaseSpec spec;
  spec.varlen = true;
  evaluate_property("oracle_verdict", spec);
}

RC_GTEST_PROP(AttentionProperty, KeyPermutation, ()) {
  CaseSpec spec;
  spec.masks = false;  // a permutation of keys does not commute with a causal mask
  spec.max_seqlen_q = 20;
  evaluate_property("key_permutation", spec);
}

RC_GTEST_PROP(AttentionProperty, GqaEqualsReplicatedKv, ()) {
  CaseSpec spec;
  spec.min_group = 2;
  evaluate_property("gqa_replication", spec);
}

RC_GTEST_PROP(AttentionProperty, BatchEntriesIndependent, ()) {
  CaseSpec spec;
  spec.min_batch = 2, spec.max_batch = 3;
  spec.varlen = true;
  evaluate_property("batch_independence", spec);
}

RC_GTEST_PROP(AttentionProperty, PaddingContentIrrelevant, ()) {
  CaseSpec spec;
  spec.varlen = true;
  evaluate_property("padding_irrelevant", spec);
}

RC_GTEST_PROP(AttentionProperty, InvisibleKeysHaveNoEffect, ()) {
  CaseSpec spec;
  evaluate_property("invisible_keys", spec);
}

RC_GTEST_PROP(AttentionProperty, BitwiseDeterministic, ()) {
  CaseSpec spec;
  evaluate_property("determinism", spec);
}

RC_GTEST_PROP(AttentionProperty, NonFiniteInputsFollowTheDefinition, ()) {
  CaseSpec spec;
  spec.nonfinite = true;
  evaluate_property("nonfinite_inputs", spec);
}

}  // namespace
}  // namespace cdna::properties

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  cdna::properties::install_property_listener();
  return RUN_ALL_TESTS();
}
