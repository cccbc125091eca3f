// Feature mutants (audit/mutants/feature_mutants.hpp): the CPU model of the declared arithmetic passes our
// verdict and the peer rules on every feature case; each mutant changes the output, is killed by
// our verdict on some case and missed by at least one peer rule on every case. Our verdict on a
// feature the pass rule does not take yet is an explicit skip, never a pass.
#include <gtest/gtest.h>

#include <iostream>
#include <sstream>
#include <stdexcept>

#include "reference/attention/compare.hpp"
#include "audit/mutants/feature_mutants.hpp"
#include "audit/mutants/mutants.hpp"

namespace cdna::audit {
namespace {

using numerics::Rounding;

// Our verdict on `out`, or a skip reason when compare_attention does not take the problem yet.
struct Ours {
  bool judged = false, pass = false;
  std::string note;
};
Ours ours(const reference::AttentionProblem& p, const reference::AttentionResult& exact, const CpuOutput& out) {
  try {
    const reference::AttentionComparison c = reference::compare_attention(p, exact, out.o, out.lse, Rounding::RTNE);
    return {true, c.pass(), c.first_failure};
  } catch (const std::invalid_argument& e) {
    return {false, false, e.what()};
  }
}

const std::vector<FeatureCase>& cases() {
  static const std::vector<FeatureCase> c = feature_cases();
  return c;
}
const std::vector<reference::AttentionResult>& exacts() {
  static const std::vector<reference::AttentionResult> e = [] {
    std::vector<reference::AttentionResult> r;
    for (const FeatureCase& c : cases()) r.push_back(reference::attention_forward_exact(c.problem));
    return r;
  }();
  return e;
}

TEST(FeatureMutants, CorrectModelPassesOurVerdict) {
  for (std::size_t c = 0; c < cases().size(); ++c) {
    const Ours v = ours(cases()[c].problem, exacts()[c], cpu_attention(cases()[c].problem, Rounding::RTNE));
    if (!v.judged) GTEST_SKIP() << "not judged: " << v.note;
    EXPECT_TRUE(v.pass) << cases()[c].id << ": " << v.note;
  }
}

TEST(FeatureMutants, CorrectModelPassesThePeerRules) {
  for (const FeatureCase& c : cases()) {
    const CpuOutput out = cpu_attention(c.problem, Rounding::RTNE);
    const reference::PeerReferences refs = feature_peer_references(c.problem);
    EXPECT_TRUE(reference::moonmath_rule(refs, out.o).pass) << c.id;
    EXPECT_TRUE(reference::cudnn_rule(refs, out.o).pass) << c.id;
  }
}

class EachMutant : public ::testing::TestWithParam<FeatureMutant> {};

TEST_P(EachMutant, ChangesTheOutputOfItsCase) {
  bool changed = false;
  for (const FeatureCase& c : cases()) {
    const CpuOutput good = cpu_attention(c.problem, Rounding::RTNE), bad = cpu_attention(c.problem, Rounding::RTNE, GetParam());
    changed = changed || good.o != bad.o || good.lse != bad.lse;
  }
  EXPECT_TRUE(changed);
}

TEST_P(EachMutant, SomePeerRuleMissesItOnEveryCase) {
  bool moonmath_misses = true, cudnn_misses = true;
  for (const FeatureCase& c : cases()) {
    const CpuOutput out = cpu_attention(c.problem, Rounding::RTNE, GetParam());
    const reference::PeerReferences refs = feature_peer_references(c.problem);
    moonmath_misses = moonmath_misses && reference::moonmath_rule(refs, out.o).pass;
    cudnn_misses = cudnn_misses && reference::cudnn_rule(refs, out.o).pass;
  }
  EXPECT_TRUE(moonmath_misses || cudnn_misses);
}

TEST_P(EachMutant, OurVerdictKillsItOnSomeCase) {
  bool killed = false;
  for (std::size_t c = 0; c < cases().size(); ++c) {
    const Ours v = ours(cases()[c].problem, exacts()[c], cpu_attention(cases()[c].problem, Rounding::RTNE, GetParam()));
    if (!v.judged) GTEST_SKIP() << "not judged: " << v.note;
    killed = killed || !v.pass;
  }
  EXPECT_TRUE(killed);
}

INSTANTIATE_TEST_SUITE_P(All, EachMutant, ::testing::ValuesIn(kFeatureMutants),
                         [](const auto& info) { return std::string(to_string(info.param)); });

TEST(FeatureMutants, MatrixNamesEveryMutant) {
  const std::string text = feature_matrix_text(run_feature_matrix());
  std::cout << text;
  for (FeatureMutant m : kFeatureMutants) EXPECT_NE(text.find(to_string(m)), std::string::npos) << text;
  EXPECT_NE(text.find("CORRECT"), std::string::npos);
}

// `cdna-verify mutants --features`: exit 0 once our verdict takes the features (every mutant
// killed, the correct model passed); 2 (not judged) before, reported as a skip.
TEST(FeatureMutants, MutantsFeaturesCommandExitCode) {
  std::ostringstream out;
  const int rc = run_features(out);
  if (rc == 2) GTEST_SKIP() << out.str();
  EXPECT_EQ(rc, 0) << out.str();
}

}  // namespace
}  // namespace cdna::audit
