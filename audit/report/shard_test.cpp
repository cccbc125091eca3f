// audit/cases/shard.hpp: the case-to-shard rule, --shard parsing, GoogleTest's variables; and
// audit/report/audit_json.hpp: report.json read back gives the result it was written from (non-finite
// figures included), and an edited file is refused.
#include "audit/cases/shard.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>

#include "audit/cases/audit_cases.hpp"
#include "audit/report/audit_json.hpp"
#include "audit/decode/decode_audit.hpp"

namespace cdna::audit {
namespace {

// Published FNV-1a 64 test vectors (draft-eastlake-fnv, Appendix C: "", "a", "foobar").
TEST(Shard, Fnv1a64KnownValues) {
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(fnv1a64("foobar"), 0x85944171f73967e8ull);
}

TEST(Shard, OfIsOnePlusHashModN) {
  EXPECT_EQ(ShardSpec::of("foobar", 3), 1 + static_cast<int>(0x85944171f73967e8ull % 3));
  EXPECT_EQ(ShardSpec::of("anything", 1), 1);
  EXPECT_TRUE((ShardSpec{ShardSpec::of("C01", 7), 7}.contains("C01")));
  EXPECT_FALSE((ShardSpec{ShardSpec::of("C01", 7) % 7 + 1, 7}.contains("C01")));
}

TEST(Shard, ParseTakesIOfN) {
  const ShardSpec s = ShardSpec::parse("2/3");
  EXPECT_EQ(s.index, 2);
  EXPECT_EQ(s.count, 3);
  EXPECT_EQ(s.text(), "2/3");
  EXPECT_EQ(ShardSpec::parse("1/1").count, 1);
}

TEST(Shard, ParseRefusesWithOneLine) {
  auto message = [](const std::string& text) {
    try {
      ShardSpec::parse(text);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message("0/3"), "--shard '0/3': I must be in 1..N");
  EXPECT_EQ(message("4/3"), "--shard '4/3': I must be in 1..N");
  EXPECT_EQ(message("1/0"), "--shard '1/0': N must be in 1..1000000");
  EXPECT_EQ(message("3"), "--shard '3': expected I/N, e.g. 2/3 (shard I of N, 1 <= I <= N)");
  EXPECT_EQ(message("a/3"), "--shard 'a/3': expected I/N with whole numbers, e.g. 2/3");
  EXPECT_EQ(message("1/3x"), "--shard '1/3x': expected I/N with whole numbers, e.g. 2/3");
  for (const char* bad : {"0/3", "4/3", "1/0", "3", "a/3", "-1/3", "1/-3", ""})
    EXPECT_EQ(message(bad).find('\n'), std::string::npos) << bad;
}

// Every case id of the suite (attention in all sets, decode) is in exactly one of N shards, and
// each shard of 3 gets some: the split is not degenerate.
TEST(Shard, EveryCaseInExactlyOneShard) {
  std::vector<std::string> ids;
  for (const auto& c : default_matrix()) ids.push_back(c.id);
  for (const auto& c : handed_cases()) ids.push_back(c.id);
  for (const auto& c : tile_cases()) ids.push_back(c.id);
  for (const auto& id : decode_case_ids("", true)) ids.push_back(id);
  for (int n : {1, 2, 3, 7}) {
    std::vector<int> per_shard(static_cast<std::size_t>(n) + 1, 0);
    for (const auto& id : ids) {
      int owners = 0;
      for (int i = 1; i <= n; ++i) owners += ShardSpec{i, n}.contains(id);
      EXPECT_EQ(owners, 1) << id << " in " << n << " shards";
      ++per_shard[static_cast<std::size_t>(ShardSpec::of(id, n))];
    }
    if (n == 3)
      for (int i = 1; i <= 3; ++i) EXPECT_GT(per_shard[static_cast<std::size_t>(i)], 10) << "shard " << i;
  }
}

struct Env {
  Env(const char* index, const char* total) {
    index ? setenv("GTEST_SHARD_INDEX", index, 1) : unsetenv("GTEST_SHARD_INDEX");
    total ? setenv("GTEST_TOTAL_SHARDS", total, 1) : unsetenv("GTEST_TOTAL_SHARDS");
  }
  ~Env() {
    unsetenv("GTEST_SHARD_INDEX");
    unsetenv("GTEST_TOTAL_SHARDS");
  }
};

TEST(Shard, FromGtestEnvIsZeroBased) {
  {
    Env env(nullptr, nullptr);
    EXPECT_FALSE(ShardSpec::from_gtest_env());
  }
  {
    Env env("0", "3");
    const auto s = ShardSpec::from_gtest_env();
    ASSERT_TRUE(s);
    EXPECT_EQ(s->index, 1);
    EXPECT_EQ(s->count, 3);
  }
  for (auto [i, n] : {std::pair<const char*, const char*>{"3", "3"}, {"-1", "3"}, {"x", "3"}, {"0", nullptr}}) {
    Env env(i, n);
    EXPECT_THROW(ShardSpec::from_gtest_env(), std::invalid_argument) << (i ? i : "-") << "/" << (n ? n : "-");
  }
}

TEST(Shard, ApplyShardArgumentTakesAllowEmptyShard) {
  Env env(nullptr, nullptr);
  std::string a0 = "prog", a1 = "--allow-empty-shard", a2 = "--gtest_brief=1";
  char* argv[] = {a0.data(), a1.data(), a2.data(), nullptr};
  int argc = 3;
  EXPECT_TRUE(apply_shard_argument(argc, argv));
  EXPECT_EQ(argc, 2);
  EXPECT_STREQ(argv[1], "--gtest_brief=1");
}

TEST(Shard, ApplyShardArgumentSetsGtestVariables) {
  Env env(nullptr, nullptr);
  std::string a0 = "prog", a1 = "--gtest_brief=1", a2 = "--shard", a3 = "2/5";
  char* argv[] = {a0.data(), a1.data(), a2.data(), a3.data(), nullptr};
  int argc = 4;
  EXPECT_FALSE(apply_shard_argument(argc, argv));
  EXPECT_EQ(argc, 2);
  EXPECT_STREQ(argv[1], "--gtest_brief=1");
  EXPECT_STREQ(std::getenv("GTEST_SHARD_INDEX"), "1");
  EXPECT_STREQ(std::getenv("GTEST_TOTAL_SHARDS"), "5");
  // Contradicting variables are refused, not silently overridden.
  std::string b2 = "--shard=3/5";
  char* argv2[] = {a0.data(), b2.data(), nullptr};
  int argc2 = 2;
  EXPECT_THROW(apply_shard_argument(argc2, argv2), std::invalid_argument);
  std::string c2 = "--shard=0/5";
  char* argv3[] = {a0.data(), c2.data(), nullptr};
  int argc3 = 2;
  Env clean(nullptr, nullptr);
  EXPECT_THROW(apply_shard_argument(argc3, argv3), std::invalid_argument);
}

// A result with what JSON cannot hold as numbers (inf, NaN), a rejected row and a decode part.
AuditResult sample_result() {
  AuditResult r;
  r.executor = "simulator";
  r.executor_settings = {{"schedule", "random"}, {"hazards", "error"}};  // not in key order
  r.executor_description = {{"executor", "simulator"}, {"device", "CDNA3"}, {"host_cpu", "x"}};
  r.build_hip = "5.2";
  r.code_objects.push_back({"RTNE", "/x/attention_fwd_rtne.hsaco", true, std::string(64, 'a')});
  r.case_filter = "C0";
  r.seconds = 1.25;
  CaseResult pass;
  pass.id = "C01";
  pass.position = 3;
  pass.mode = "RTNE";
  pass.verdict = Verdict::Fail;
  pass.shape = {1, 17, 128, 4, 2, 64, 32};
  pass.scale = 0.125f;
  pass.compared = true;
  pass.comparison.max_abs_err_o = std::numeric_limits<double>::infinity();
  pass.comparison.max_ulp_err_o = std::numeric_limits<double>::quiet_NaN();
  pass.comparison.o_judged = 100;
  pass.comparison.semantic_violations = 1;
  pass.comparison.first_failure = "element 3: NaN";
  pass.note = pass.comparison.first_failure;
  pass.o_sums.elements = 99;
  pass.o_sums.sum_err = 0.1;
  pass.o_sums.ulp_histogram[5] = 99;
  pass.numerics = Verdict::Fail;  // issue 23 §3: the two verdicts round-trip
  pass.hazard_verdict = "benign";
  pass.documented_sites = 3, pass.llvm_only_sites = 7;
  CaseResult rejected;
  rejected.id = "C05";
  rejected.position = 4;
  rejected.mode = "-";
  rejected.verdict = Verdict::Rejected;
  rejected.note = "no sinks";
  r.rows = {pass, rejected};
  r.mutation_not_run = "--no-mutants";
  DecodeAuditResult d;
  DecodeCaseResult row;
  row.id = "D01";
  row.mode = "RTNE";
  row.outcome = DecodeOutcome::Pass;
  row.counts.decided = 64;
  row.counts.positions = 66;
  d.rows.push_back(row);
  d.mutants_not_run = "--no-mutants";
  r.decode = d;
  r.shard = ShardInfo{{2, 3}, {"C01", "C05", "D01"}, 9, 1, 3, true};
  return r;
}

TEST(AuditJson, RoundTripIsExact) {
  const AuditResult r = sample_result();
  const nlohmann::json j = audit_json(r);
  const AuditResult back = audit_from_json(nlohmann::json::parse(j.dump()));
  EXPECT_EQ(audit_json(back), j);
  EXPECT_TRUE(std::isinf(back.rows[0].comparison.max_abs_err_o));
  EXPECT_TRUE(std::isnan(back.rows[0].comparison.max_ulp_err_o));
  EXPECT_EQ(back.rows[0].shape.head_dim_v, 32);
  EXPECT_EQ(back.rows[0].hazard_verdict, "benign");
  EXPECT_EQ(back.rows[0].documented_sites, 3u);
  EXPECT_EQ(back.rows[0].llvm_only_sites, 7u);
  EXPECT_EQ(back.rows[1].hazard_verdict, "-");
  EXPECT_EQ(back.rows[1].numerics_verdict(), Verdict::Rejected);
  EXPECT_EQ(back.rows[1].position, 4u);
  EXPECT_EQ(back.executor_settings, r.executor_settings);  // the executor's order, not the keys'
  EXPECT_EQ(back.executor_description, r.executor_description);
  EXPECT_EQ(back.build_hip, "5.2");
  ASSERT_TRUE(back.shard);
  EXPECT_EQ(back.shard->owned, r.shard->owned);
  ASSERT_TRUE(back.decode);
  EXPECT_EQ(back.decode->rows[0].counts.positions, 66);
}

TEST(AuditJson, EditedFileIsRefused) {
  const nlohmann::json j = audit_json(sample_result());
  nlohmann::json verdict = j;
  verdict["cases"][0]["verdict"] = "pass";  // a failed row made to pass; counts no longer follow
  EXPECT_THROW(audit_from_json(verdict), std::runtime_error);
  nlohmann::json outcome = j;
  outcome["outcome"] = "pass";
  EXPECT_THROW(audit_from_json(outcome), std::runtime_error);
  nlohmann::json missing = j;
  missing["cases"][0].erase("position");
  EXPECT_THROW(audit_from_json(missing), std::runtime_error);
  EXPECT_THROW(audit_from_json(nlohmann::json::array()), std::runtime_error);
  // A failed row made to pass with every count and the outcome edited to follow: its own figures
  // still fail the pass rule.
  AuditResult edited = sample_result();
  bool made_pass = false;
  for (auto& r : edited.rows)
    if (r.verdict == Verdict::Fail && r.compared && !r.comparison.pass()) r.verdict = Verdict::Pass, made_pass = true;
  ASSERT_TRUE(made_pass);
  EXPECT_THROW(audit_from_json(audit_json(edited)), std::runtime_error);
}

}  // namespace
}  // namespace cdna::audit
