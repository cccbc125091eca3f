// Mutation testing on the simulator (docs/mutation-testing.md): the correct kernel passes every
// check of our verdict on the mutant cases, and every mutant fails at least one of them. One
// ctest per mutant, so that they run in parallel and a survivor is named by its test.
#include "audit/mutants/mutants.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <regex>
#include <set>

#include "numerics/bf16.hpp"
#include "reference/attention/exact_rows.hpp"
#include "simulator/schedule/simulator_executor.hpp"

namespace cdna::audit {

void PrintTo(const ModeSwap& m, std::ostream* os) { *os << m.name; }  // gtest: name the parameter

namespace {

const std::filesystem::path kCodeObjects = CDNA_CODE_OBJECT_DIR;

std::string our_notes(const KernelResult& k) {
  std::string s;
  for (int c = 0; c < kOurChecks; ++c)
    if (!k.first_failure[static_cast<std::size_t>(c)].empty())
      s += "\n  " + column_name(c) + ": " + k.first_failure[static_cast<std::size_t>(c)];
  return s;
}

TEST(Mutants, TableMatchesTheBuiltCodeObjects) {
  std::set<std::string> listed;
  for (const MutantInfo& m : attention_mutants()) {
    EXPECT_TRUE(listed.insert(m.name).second) << "listed twice: " << m.name;
    EXPECT_TRUE(std::filesystem::exists(mutant_code_object(m.name, kCodeObjects)))
        << mutant_code_object(m.name, kCodeObjects) << " (device/CMakeLists.txt CDNA_ATTENTION_MUTANTS)";
  }
  EXPECT_GE(listed.size(), 20u);
  // No mutant is built that the table (and so `cdna-verify mutants`) leaves out.
  const std::regex built("attention_fwd_mutant_(.+)\\.hsaco");
  for (const auto& entry : std::filesystem::directory_iterator(kCodeObjects)) {
    std::smatch m;
    const std::string file = entry.path().filename().string();
    if (!std::regex_match(file, m, built)) continue;
    std::string upper = m[1];
    for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    EXPECT_TRUE(listed.count(upper)) << file << " is built but not in attention_mutants()";
  }
}

// The crafted cases hold what their descriptions claim.
TEST(Mutants, CraftedCasesAreExact) {
  const auto cases = mutant_cases();
  const auto find = [&](const std::string& id) -> const MutantCase& {
    for (const auto& c : cases)
      if (c.id == id) return c;
    throw std::runtime_error("no case " + id);
  };
  {
    // Every column mean lies 1/48 bf16 ULP inside a bf16 number, which RTNE rounds it to.
    const auto& p = find("uniform-below-grid").problem;
    EXPECT_EQ(p.scale, 0.0f);
    const auto& s = p.shape;
    for (std::int64_t hk = 0; hk < s.heads_kv; ++hk)
      for (std::int64_t d = 0; d < s.head_dim; ++d) {
        double sum = 0;
        for (std::int64_t j = 0; j < s.seqlen_k; ++j)
          sum += numerics::f32_from_bf16(p.v[static_cast<std::size_t>((j * s.heads_kv + hk) * s.head_dim + d)]);
        const double mean = sum / static_cast<double>(s.seqlen_k);
        const double nearest = numerics::f32_from_bf16(numerics::bf16_from_f32(static_cast<float>(mean), numerics::Rounding::RTNE));
        EXPECT_GT(std::abs(nearest), std::abs(mean)) << "hk " << hk << " d " << d;
        EXPECT_NEAR(std::abs(nearest - mean), 0x1p-7 / 48, 1e-12) << "hk " << hk << " d " << d;
      }
  }
  {
    // R01: every row of 2^k keys, k >= 1, is decided and separates every pair of modes.
    const auto& p = find("R01").problem;
    const std::vector<double> pre = reference::exactly_computed_o(p);
    const auto& s = p.shape;
    for (std::int64_t n = 2; n <= s.seqlen_k; n *= 2) {
      const std::int64_t i = n - 1;  // causal, Sq = Sk: row i sees i + 1 keys
      int differ[3][3] = {};
      for (std::int64_t d = 0; d < s.head_dim; ++d) {
        const double x = pre[static_cast<std::size_t>(i * s.head_dim + d)];
        ASSERT_FALSE(std::isnan(x)) << "row " << i << " d " << d;
        for (int a = 0; a < 3; ++a)
          for (int b = 0; b < 3; ++b)
            differ[a][b] += reference::exact_o_bits(x, numerics::kAllRoundings[a]) !=
                            reference::exact_o_bits(x, numerics::kAllRoundings[b]);
      }
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
          if (a == b) continue;
          EXPECT_GT(differ[a][b], 0) << "row with " << n << " keys, modes " << a << " " << b;
        }
    }
  }
  {
    const auto& p = find("near-tie-constant-v").problem;
    // scale·log2 e rounds to exactly 1 in fp32, as the launcher computes it.
    EXPECT_EQ(static_cast<float>(static_cast<double>(p.scale) * 1.4426950408889634), 1.0f);
  }
}

TEST(Mutants, ControlPassesOurVerdictInEveryMode) {
  MutantsOptions options;
  options.filter = "^$";  // no mutant
  simulator::SimulatorExecutor sim;
  const MutantsResult r = run_mutants(options, sim);
  ASSERT_EQ(r.kernels.size(), 3u);
  for (const KernelResult& control : r.kernels) {
    ASSERT_TRUE(control.control);
    EXPECT_FALSE(control.killed_by_ours()) << control.name << our_notes(control) << "\n  " << control.first_verdict_failure;
    for (int c = 0; c < kOurChecks; ++c) EXPECT_FALSE(control.failed(c)) << control.name << " " << column_name(c);
    ASSERT_EQ(control.outcomes.size(), r.cases.size());
  }
  EXPECT_EQ(r.kernels[0].name, "control");
  EXPECT_EQ(r.kernels[0].declared, numerics::Rounding::RTNE);
}

// The feature mutants of issue 12 are killed by our verdict on the case of their feature, and
// a peer rule lets the page and alignment mistakes through there (its tolerance is wider than
// the error of a few wrong keys among hundreds).
TEST(Mutants, FeatureMutantsKilledOnTheirCasesWherePeersMiss) {
  MutantsOptions options;
  options.filter = "^(WINDOW_OFF_BY_ONE|PAGE_INDEX_OFF_BY_ONE|VARLEN_GLOBAL_ALIGNMENT)$";
  simulator::SimulatorExecutor sim;
  const MutantsResult r = run_mutants(options, sim);
  const std::map<std::string, std::string> case_of = {{"WINDOW_OFF_BY_ONE", "window-0-0"},
                                                      {"PAGE_INDEX_OFF_BY_ONE", "paged-shuffled"},
                                                      {"VARLEN_GLOBAL_ALIGNMENT", "varlen-causal-own-alignment"}};
  int seen = 0;
  for (const KernelResult& k : r.kernels) {
    if (k.control) continue;
    ++seen;
    std::size_t ci = 0;
    while (ci < r.cases.size() && r.cases[ci].id != case_of.at(k.name)) ++ci;
    ASSERT_LT(ci, r.cases.size()) << case_of.at(k.name);
    bool ours = false, peer_passes = false;
    for (int c = 0; c < kColumns; ++c) {
      const Outcome o = k.outcomes[ci][static_cast<std::size_t>(c)];
      if (c < kOurChecks) ours = ours || o == Outcome::Fail;
      else peer_passes = peer_passes || o == Outcome::Pass;
    }
    EXPECT_TRUE(ours) << k.name << " passes our verdict on " << case_of.at(k.name);
    if (k.name != "WINDOW_OFF_BY_ONE") EXPECT_TRUE(peer_passes) << k.name << ": every peer rule kills it";
  }
  EXPECT_EQ(seen, 3);
}

// A correct kernel judged in another mode fails the exact fact of R01 (reference/attention/exact_rows.hpp),
// whatever the other columns do (that the control of every mode passes it there:
// ControlPassesOurVerdictInEveryMode).
class ModeSwapKilled : public testing::TestWithParam<ModeSwap> {};

TEST_P(ModeSwapKilled, ByTheExactRowsFactOnR01) {
  MutantsOptions options;
  options.filter = "^" + GetParam().name + "$";
  options.control = false;
  simulator::SimulatorExecutor sim;
  const MutantsResult r = run_mutants(options, sim);
  ASSERT_EQ(r.kernels.size(), 1u);
  const KernelResult& k = r.kernels.back();
  ASSERT_EQ(k.name, GetParam().name);
  EXPECT_EQ(k.declared, GetParam().declared);
  std::size_t r01 = r.cases.size();
  for (std::size_t ci = 0; ci < r.cases.size(); ++ci)
    if (r.cases[ci].id == "R01") r01 = ci;
  ASSERT_LT(r01, r.cases.size());
  const auto facts = static_cast<std::size_t>(Check::Facts);
  EXPECT_EQ(k.outcomes[r01][facts], Outcome::Fail) << k.first_failure[facts];
  EXPECT_TRUE(k.killed[facts]);
  EXPECT_NE(k.first_failure[facts].find("R01"), std::string::npos) << k.first_failure[facts];
}

INSTANTIATE_TEST_SUITE_P(All, ModeSwapKilled, testing::ValuesIn(mode_swaps()),
                         [](const testing::TestParamInfo<ModeSwap>& param) { return param.param.name; });

class MutantKilled : public testing::TestWithParam<std::string> {};

TEST_P(MutantKilled, ByOurVerdict) {
  MutantsOptions options;
  options.filter = "^" + GetParam() + "$";
  options.control = false;
  simulator::SimulatorExecutor sim;
  const MutantsResult r = run_mutants(options, sim);
  ASSERT_EQ(r.kernels.size(), 1u);
  const KernelResult& k = r.kernels.front();
  EXPECT_EQ(k.name, GetParam());
  EXPECT_TRUE(k.killed_by_ours()) << GetParam() << " survives every check of our verdict";
}

std::vector<std::string> mutant_names() {
  std::vector<std::string> names;
  for (const MutantInfo& m : attention_mutants()) names.push_back(m.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(All, MutantKilled, testing::ValuesIn(mutant_names()),
                         [](const testing::TestParamInfo<std::string>& param) { return param.param; });

}  // namespace
}  // namespace cdna::audit
