// The hazard policies error, report and differential (simulator/checks/hazard_policy.hpp) on the
// hand-written kernels of testdata/hazard_policy_asm.s: an MFMA result read 5 wait states after
// the last of two chained v_mfma_f32_32x32x8_bf16 (11 needed), as AITER FMHA v3 does.
#include <gtest/gtest.h>

#include "simulator/checks/hazard_policy.hpp"
#include "simulator/tests/test_util.hpp"

namespace cdna::simulator {
namespace {

using namespace testing;
using Verdict = HazardViolation::Verdict;

// Values the kernels compute (hazard_policy_asm.s): every accumulator element is 8 products of
// 1.0 * 1.0 after the first MFMA, 16 after the second; 1e30 dominates both.
constexpr float kNew = 16.0f, kOld = 8.0f, kBig = 1e30f;
// Byte offset of the first v_max3_f32 from the kernel entry in early_read_* (the CHAIN macro:
// s_load 8 + v_lshlrev 4 + two literal v_mov 16 + sixteen v_mov 64 + two literal v_mov 16 +
// s_waitcnt 4 + s_nop 4 + two MFMA 16 + s_nop 4 = 136).
constexpr const char* kReadPc = "pc 0x88";

struct Outcome {
  std::string error;
  std::vector<float> out = std::vector<float>(128, 0.0f);
  std::vector<HazardViolation> hazards;
};

Outcome run(const std::string& kernel, HazardPolicy policy, Schedule schedule = Schedule::RoundRobin) {
  SimulatorExecutor ex;
  ex.options().hazard_policy = policy;
  ex.options().schedule = schedule;
  ex.options().seed = 7;
  Outcome r;
  r.error = error_of([&] { ex.run(testdata("hazard_policy_asm"), dispatch(kernel, {1, 1, 1}, {64, 1, 1}, {out(r.out)})); });
  r.hazards = ex.last_hazards();
  return r;
}

void expect_all(const std::vector<float>& v, std::size_t from, float x) {
  for (std::size_t i = from; i < from + 64; ++i) ASSERT_EQ(v[i], x) << "element " << i;
}

TEST(SimHazardPolicy, NamesParse) {
  EXPECT_EQ(parse_hazard_policy("error"), HazardPolicy::Error);
  EXPECT_EQ(parse_hazard_policy("report"), HazardPolicy::Report);
  EXPECT_EQ(parse_hazard_policy("differential"), HazardPolicy::Differential);
  EXPECT_EQ(parse_hazard_policy("Error"), std::nullopt);
  EXPECT_EQ(parse_hazard_policy(""), std::nullopt);
}

TEST(SimHazardPolicy, ErrorIsTheDefaultAndStopsAtTheEarlyRead) {
  EXPECT_EQ(SchedulerOptions{}.hazard_policy, HazardPolicy::Error);
  for (const char* k : {"early_read_benign", "early_read_changes"}) {
    const Outcome r = run(k, HazardPolicy::Error);
    // Named against the last MFMA of the chain (5 wait states), the latest writer of v16 (issue 23
    // §3; before, the first MFMA at 6 was named: a producer its successor had waited for).
    EXPECT_NE(r.error.find("hazard: VALU access of the MFMA result (v[16:31]) 5 wait states after "
                           "'v_mfma_f32_32x32x8_bf16"),
              std::string::npos)
        << r.error;
    EXPECT_NE(r.error.find("gfx942 needs 11"), std::string::npos) << r.error;
    EXPECT_TRUE(r.hazards.empty());
  }
  EXPECT_EQ(run("late_read", HazardPolicy::Error).error, "");
}

TEST(SimHazardPolicy, ReportListsEveryViolationAndGoesOnWithTheNewValue) {
  const Outcome r = run("early_read_changes", HazardPolicy::Report);
  ASSERT_EQ(r.error, "");
  expect_all(r.out, 0, kNew);
  // Both MFMAs of the chain are within the 11 wait states, but only the last (5) is the latest
  // writer of v16: one site (issue 23 §3; before, also the first at 6).
  ASSERT_EQ(r.hazards.size(), 1u);
  for (const auto& v : r.hazards) {
    SCOPED_TRACE(describe(v));
    EXPECT_EQ(v.kernel, "early_read_changes");
    EXPECT_EQ("pc " + hex(v.pc), kReadPc);
    EXPECT_EQ(v.instruction.rfind("v_max3_f32 v40, v16, v17, v9", 0), 0u);
    EXPECT_EQ(v.producer.rfind("v_mfma_f32_32x32x8_bf16 v[16:31]", 0), 0u);
    EXPECT_EQ(v.rule, "mfma-result-valu");
    EXPECT_EQ(v.reg, "v[16:31]");
    EXPECT_EQ(v.needed, 11);
    EXPECT_EQ(v.count, 1u);
    EXPECT_EQ(v.wave, 0u);
    EXPECT_EQ(v.verdict, Verdict::Reported);
  }
  EXPECT_EQ(r.hazards[0].wait_states, 5);
  EXPECT_FALSE(r.hazards[0].llvm_only);
  EXPECT_TRUE(run("late_read", HazardPolicy::Report).hazards.empty());
}

TEST(SimHazardPolicy, DifferentialCallsAReadThatCannotChangeTheOutputBenign) {
  const Outcome r = run("early_read_benign", HazardPolicy::Differential);
  ASSERT_EQ(r.error, "");
  expect_all(r.out, 0, kBig);
  ASSERT_EQ(r.hazards.size(), 1u);
  for (const auto& v : r.hazards) EXPECT_EQ(v.verdict, Verdict::Benign) << describe(v);
}

TEST(SimHazardPolicy, DifferentialFailsAReadThatChangesTheOutputNamingItsPc) {
  const Outcome r = run("early_read_changes", HazardPolicy::Differential);
  EXPECT_NE(r.error.find("a wait-state violation changes the output"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find(std::string(kReadPc) + " 'v_max3_f32 v40, v16, v17, v9"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("rule mfma-result-valu, 5 of 11 wait states"), std::string::npos) << r.error;
  // The site is named once, with the last MFMA of the chain (5 wait states); the old value of v16
  // is the one before that MFMA: 8 instead of 16, whose bytes first differ at byte 2 (fp32
  // little-endian: 00 00 80 41 and 00 00 00 41).
  EXPECT_EQ(r.error.find("6 of 11"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("argument 0 differs first at byte 2 (32-bit element 0: " + hex(as_u(kNew)) +
                         " with the new value, " + hex(as_u(kOld)) + " with the old)"),
            std::string::npos)
      << r.error;
  EXPECT_EQ(r.error.find('\n'), std::string::npos) << r.error;
  ASSERT_EQ(r.hazards.size(), 1u);
  for (const auto& v : r.hazards) EXPECT_EQ(v.verdict, Verdict::ChangesOutput) << describe(v);
}

TEST(SimHazardPolicy, DifferentialNarrowsDownToTheSiteThatChangesTheOutput) {
  for (Schedule s : {Schedule::RoundRobin, Schedule::Random}) {
    const Outcome r = run("two_sites", HazardPolicy::Differential, s);
    EXPECT_NE(r.error.find("'v_max3_f32 v41, v16, v17, v9"), std::string::npos) << r.error;
    EXPECT_EQ(r.error.find("'v_max3_f32 v40, v16, v17, v8"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("differs first at byte 258 "), std::string::npos) << r.error;
    ASSERT_EQ(r.hazards.size(), 2u);  // one per read: the last MFMA of the chain
    for (const auto& v : r.hazards) {
      const bool changing = v.instruction.find("v41") != std::string::npos;
      EXPECT_EQ(v.verdict, changing ? Verdict::ChangesOutput : Verdict::Benign) << describe(v);
    }
    // Deterministic: the same judgement again.
    EXPECT_EQ(run("two_sites", HazardPolicy::Differential, s).error, r.error);
  }
}

TEST(SimHazardPolicy, DifferentialWithoutViolationsRunsOnce) {
  const Outcome r = run("late_read", HazardPolicy::Differential);
  EXPECT_EQ(r.error, "");
  expect_all(r.out, 0, kNew);
  EXPECT_TRUE(r.hazards.empty());
}

TEST(SimHazardPolicy, DifferentialCannotJudgeAnOverwrite) {
  const Outcome r = run("early_overwrite", HazardPolicy::Differential);
  EXPECT_NE(r.error.find("hazard policy differential cannot judge"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("does not read what the producer wrote"), std::string::npos) << r.error;
  EXPECT_FALSE(r.hazards.empty());
  for (const auto& v : r.hazards) EXPECT_EQ(v.verdict, Verdict::NotJudged) << describe(v);
  // Report still lists it and goes on.
  EXPECT_EQ(run("early_overwrite", HazardPolicy::Report).error, "");
}

}  // namespace
}  // namespace cdna::simulator
