// The exact facts of the audit's extended-definition cases (audit/cases/feature_cases.hpp), checked
// on the MPFR oracle: each holds on the definition's output, and each fails on a plausible wrong
// output (a window one key wider, sinks left out, another KV head's descale, ...). This is where
// the features our kernel rejects (soft cap, sinks, Dv != D, fp8, top-left windows) are judged.
#include "audit/cases/feature_cases.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace cdna::audit {
namespace {

// A copy: the case lists are built afresh by each call.
AuditCase find(const std::vector<AuditCase>& cases, const std::string& id) {
  for (const AuditCase& c : cases)
    if (c.id == id) return c;
  throw std::runtime_error("no case " + id);
}

CaseOutput exact(const reference::AttentionProblem& p) {
  reference::AttentionResult r = reference::attention_forward_exact(p);
  return {std::move(r.o), std::move(r.lse)};
}

CaseOutput exact(const reference::VarlenProblem& p) {
  reference::AttentionResult r = reference::varlen_forward_exact(p);
  return {std::move(r.o), std::move(r.lse)};
}

CaseOutput exact(const AuditCase& c) { return c.varlen ? exact(*c.varlen) : exact(c.problem); }

class FeatureCase : public ::testing::TestWithParam<std::string> {};

// Every case's fact holds on the definition, and a twin (if any) gives the same output bit for bit.
TEST_P(FeatureCase, FactHoldsOnTheOracle) {
  std::vector<AuditCase> cases = audit_feature_cases();
  for (AuditCase& c : varlen_handed_cases()) cases.push_back(std::move(c));
  const AuditCase c = find(cases, GetParam());
  ASSERT_TRUE(c.exact_facts) << c.id << " has no exact fact";
  const CaseOutput out = exact(c);
  EXPECT_EQ(c.exact_facts(out), "") << c.id;
  if (c.twin) {
    EXPECT_EQ(bitwise_difference(out, exact(*c.twin)), "") << c.id;
  }
  if (c.varlen_twin) {
    EXPECT_EQ(bitwise_difference(out, exact(*c.varlen_twin)), "") << c.id;
  }
}

INSTANTIATE_TEST_SUITE_P(AuditCases, FeatureCase,
                         ::testing::Values("C05", "C11", "W01", "W02-bottom-right", "W02-top-left", "P01", "SC01",
                                           "SK01", "DV01", "F01", "F02"),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           std::string n = param_info.param;
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

// Each fact fails on a wrong output: the definition's output of a slightly different problem.
TEST(FeatureCaseFacts, WindowFactsSeeAWindowOneKeyWider) {
  for (const std::string id : {"W01", "W02-bottom-right", "W02-top-left"}) {
    const AuditCase c = find(audit_feature_cases(), id);
    reference::AttentionProblem wider = c.problem;
    ++wider.window_left;
    EXPECT_NE(c.exact_facts(exact(wider)), "") << id;
  }
}

TEST(FeatureCaseFacts, SinkFactSeesTheSinkLeftOut) {
  const AuditCase c = find(audit_feature_cases(), "SK01");
  reference::AttentionProblem none = c.problem;
  none.sinks.clear();
  EXPECT_NE(c.exact_facts(exact(none)), "");
}

TEST(FeatureCaseFacts, SoftCapFactSeesNanKeysRead) {
  // The masked keys made visible (no window): their NaN reaches every row.
  const AuditCase c = find(audit_feature_cases(), "SC01");
  reference::AttentionProblem unmasked = c.problem;
  unmasked.window_left = -1;
  EXPECT_NE(c.exact_facts(exact(unmasked)), "");
  // And the twin check sees a finite change to a visible key.
  reference::AttentionProblem changed = *c.twin;
  changed.v[39 * 2 * 64] ^= 0x0001;  // key 39, seen by every row
  EXPECT_NE(bitwise_difference(exact(c.problem), exact(changed)), "");
}

TEST(FeatureCaseFacts, DvFactSeesAnotherKvHead) {
  const AuditCase c = find(audit_feature_cases(), "DV01");
  reference::AttentionProblem swapped = c.problem;
  const std::size_t row = 128;  // V [B, 1, 2, 128]: swap the two KV heads of every batch
  for (std::size_t b = 0; b < 2; ++b)
    std::swap_ranges(swapped.v.begin() + static_cast<std::ptrdiff_t>(b * 2 * row),
                     swapped.v.begin() + static_cast<std::ptrdiff_t>(b * 2 * row + row),
                     swapped.v.begin() + static_cast<std::ptrdiff_t>(b * 2 * row + row));
  EXPECT_NE(c.exact_facts(exact(swapped)), "");
}

TEST(FeatureCaseFacts, Fp8FactsSeeTheDescaleOfAnotherHead) {
  for (const std::string id : {"F01", "F02"}) {
    const AuditCase c = find(audit_feature_cases(), id);
    reference::AttentionProblem transposed = c.problem;  // [B, Hkv] read as [Hkv, B]
    std::swap(transposed.descale_v[1], transposed.descale_v[2]);
    EXPECT_NE(c.exact_facts(exact(transposed)), "") << id;
    reference::AttentionProblem twice = c.problem;  // descale applied twice
    for (float& f : twice.descale_v) f *= f;
    EXPECT_NE(c.exact_facts(exact(twice)), "") << id;
  }
}

TEST(FeatureCaseFacts, EmptySequenceFactSeesNegativeZeroAndNan) {
  const AuditCase c = varlen_handed_cases()[0];
  ASSERT_EQ(c.id, "C05");
  CaseOutput out = exact(c);
  CaseOutput negative = out;
  negative.o[0] = -0.0;  // row 0 belongs to sequence 0 (no keys): +0.0 required
  EXPECT_NE(c.exact_facts(negative), "");
  CaseOutput nan = out;
  nan.o[4 * 2 * 64] = std::nan("");  // row 4: sequence 1, which has keys
  EXPECT_NE(c.exact_facts(nan), "");
}

TEST(FeatureCaseFacts, TwinChecksSeeOneUsedSlotChanged) {
  const AuditCase c11 = varlen_handed_cases()[1];
  reference::VarlenProblem changed = *c11.varlen_twin;
  changed.v[0] ^= 0x0001;  // key 0 of sequence 0: used
  EXPECT_NE(bitwise_difference(exact(c11), exact(changed)), "");
  const AuditCase p01 = find(audit_feature_cases(), "P01");
  // Sequence 0's keys 16..31 read from its third page (half NaN) and 32..39 from its second: a
  // swap of two full pages would only permute keys every row sees, which changes nothing.
  reference::VarlenProblem off = *p01.varlen;
  std::swap(off.block_table[1], off.block_table[2]);
  EXPECT_NE(bitwise_difference(exact(p01), exact(off)), "");
}

// The cases are well formed and our kernel's exclusions are the documented ones.
TEST(FeatureCaseFacts, EveryCaseValidates) {
  for (const AuditCase& c : audit_feature_cases()) {
    if (c.varlen) {
      EXPECT_NO_THROW(reference::validate(*c.varlen)) << c.id;
    } else {
      EXPECT_NO_THROW(reference::validate(c.problem)) << c.id;
    }
  }
  for (const AuditCase& c : varlen_handed_cases()) EXPECT_NO_THROW(reference::validate(*c.varlen)) << c.id;
}

}  // namespace
}  // namespace cdna::audit
