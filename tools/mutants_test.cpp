// Mutation testing on the simulator (docs/mutation-testing.md): the correct kernel passes every
// check of our verdict on the mutant cases, and every mutant fails at least one of them. One
// ctest per mutant, so that they run in parallel and a survivor is named by its test.
#include "tools/mutants.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <set>

#include "numerics/bf16.hpp"
#include "simulator/simulator_executor.hpp"

namespace cdna::tools {
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
    const auto& p = find("near-tie-constant-v").problem;
    // scale·log2 e rounds to exactly 1 in fp32, as the launcher computes it.
    EXPECT_EQ(static_cast<float>(static_cast<double>(p.scale) * 1.4426950408889634), 1.0f);
  }
}

TEST(Mutants, ControlPassesOurVerdict) {
  MutantsOptions options;
  options.filter = "^$";  // no mutant
  simulator::SimulatorExecutor sim;
  const MutantsResult r = run_mutants(options, sim);
  ASSERT_EQ(r.kernels.size(), 1u);
  const KernelResult& control = r.kernels.front();
  ASSERT_TRUE(control.control);
  EXPECT_FALSE(control.killed_by_ours()) << our_notes(control) << "\n  " << control.first_verdict_failure;
  for (int c = 0; c < kOurChecks; ++c) EXPECT_FALSE(control.failed(c)) << column_name(c);
  ASSERT_EQ(control.outcomes.size(), r.cases.size());
}

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
}  // namespace cdna::tools
