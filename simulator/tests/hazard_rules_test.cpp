// Every hazard rule at one wait state below its count (an error naming the kernel, the wave, both
// instructions, the rule, the counts needed and present) and at its count (runs): the
// hand-written kernels of testdata/hazards_asm.s.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "simulator/checks/hazard.hpp"
#include "simulator/tests/test_util.hpp"

namespace cdna::simulator {
namespace {

using namespace testing;

std::string run_asm_kernel(const std::string& kernel) {
  static SimulatorExecutor ex;
  static const auto co = testdata("hazards_asm");
  std::vector<std::uint32_t> buf(1024, 0);
  return error_of([&] { ex.run(co, dispatch(kernel, {1, 1, 1}, {64, 1, 1}, {out(buf)})); });
}

struct Case {
  const char* name;      // <name>_bad and <name>_ok in hazards_asm.s
  const char* rule;      // hazard_rules() id
  int need;              // wait states the rule needs (the _bad kernel has need - 1)
  const char* producer;  // start of the producer's disassembly
};
// The counts are the rules' (hazard_rules.cpp, from LLVM GCNHazardRecognizer.cpp), written here
// again from the source so that a changed constant fails.
const Case kCases[] = {
    {"trans_exp", "trans-use", 1, "v_exp_f32"},
    {"trans_rcp", "trans-use", 1, "v_rcp_f32"},
    {"wide_store", "wide-store-data", 2, "global_store_dwordx4"},
    {"sgpr_vmem", "valu-sgpr-vmem", 5, "v_readfirstlane_b32 s5"},
    {"sgpr_valu", "valu-sgpr-valu", 2, "v_readfirstlane_b32 s4"},
    {"vcc_valu", "valu-sgpr-valu", 2, "v_cmp_eq_u32"},
    {"lane_select", "valu-sgpr-lane-select", 4, "v_readfirstlane_b32 s4"},
    {"readlane_src", "valu-vgpr-readlane", 1, "v_mov_b32"},
    {"exec_rwlane", "valu-exec-rwlane", 4, "v_cmpx_le_u32"},
    {"vgpr_dpp", "vgpr-dpp", 2, "v_mov_b32"},
    {"exec_dpp", "valu-exec-dpp", 5, "v_cmpx_le_u32"},
    {"setreg_getreg", "setreg-getreg", 2, "s_setreg_imm32_b32"},
    {"setreg_setreg", "setreg-setreg", 2, "s_setreg_imm32_b32"},
    {"m0_movrel", "salu-m0-read", 1, "s_mov_b32 m0"},
    {"dgemm_fma64", "dgemm-fma64", 2, "v_mfma_f64_4x4x4"},
    {"dgemm_store", "mfma-result-vmem", 9, "v_mfma_f64_4x4x4"},
    {"dot_use", "dot-result", 3, "v_dot2_f32_f16"},
    {"sdwa_use", "shifted-dst-use", 1, "v_mov_b32_sdwa"},
    {"srcc_war", "mfma-srcc-valu-war", 3, "v_mfma_f32_16x16x16_bf16"},
    {"exec_mfma", "valu-exec-mfma", 4, "v_cmpx_le_u32"},
};

TEST(SimHazardRules, OneBelowTheCountIsAnErrorNamingBothInstructions) {
  for (const Case& c : kCases) {
    const std::string kernel = std::string(c.name) + "_bad";
    SCOPED_TRACE(kernel);
    const std::string msg = run_asm_kernel(kernel);
    EXPECT_NE(msg.find("kernel '" + kernel + "'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("wave "), std::string::npos) << msg;
    EXPECT_NE(msg.find(": hazard: "), std::string::npos) << msg;
    EXPECT_NE(msg.find(" " + std::to_string(c.need - 1) + " wait states after '" + c.producer), std::string::npos) << msg;
    EXPECT_NE(msg.find("gfx942 needs " + std::to_string(c.need) + " (rule " + c.rule + ","), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}

TEST(SimHazardRules, TheCountItselfRuns) {
  for (const Case& c : kCases) EXPECT_EQ(run_asm_kernel(std::string(c.name) + "_ok"), "") << c.name;
  EXPECT_EQ(run_asm_kernel("dot_chain_ok"), "");  // a v_dot's SrcC from the same v_dot: no wait
}

// The control-flow cases of the lint test also fail at run time: the loop on its second trip.
TEST(SimHazardRules, LoopBackEdgeAndJoin) {
  EXPECT_NE(run_asm_kernel("loop_bad").find("2 wait states after 'v_readfirstlane_b32 s5"), std::string::npos);
  EXPECT_NE(run_asm_kernel("join_bad").find("0 wait states after 'v_readfirstlane_b32 s5"), std::string::npos);
  EXPECT_EQ(run_asm_kernel("loop_ok"), "");
  EXPECT_EQ(run_asm_kernel("join_ok"), "");
}

TEST(SimHazardRules, EveryRuleHasAnIdASourceAndAWindow) {
  std::set<std::string_view> ids;
  for (const auto& r : hazard_rules()) {
    EXPECT_TRUE(ids.insert(r.id).second) << r.id;
    EXPECT_FALSE(r.source.empty()) << r.id;
    EXPECT_GT(r.max_need, 0) << r.id;
    EXPECT_LT(r.max_need, 20) << r.id;  // HazardState keeps 32 producers, and ends' bytes below 0x80: windows must stay below
  }
  EXPECT_LE(hazard_rules().size(), HazardState::kMaxRules);  // HazardState::ends has one byte per rule
}

}  // namespace
}  // namespace cdna::simulator

namespace cdna::simulator {
namespace {

// The scheduler's fast path (hazard_check_due over HazardState::ends, kept byte-wise by
// retire_hazards) against its definition: some rule the instruction consumes has a producer p
// with p.clock + 1 + p.window > clock. Random producers, windows 0..19, wait states 1..25 and
// now and then 200 (past every window); every rule bit used.
TEST(SimHazardRules, FastPathEqualsTheProducerWindows) {
  std::mt19937_64 rng(14);
  HazardState s;
  std::uint64_t until[HazardState::kMaxRules] = {};  // the definition, per rule
  std::uint64_t due_count = 0;
  for (int step = 0; step < 200000; ++step) {
    HazardInfo h;
    h.consumes = rng() & rng() & 0xffffffffu;
    h.produces = (rng() % 3 == 0) ? 0 : rng() & rng() & rng() & 0xffffffffu;
    h.window = static_cast<std::uint8_t>(rng() % 20);
    h.wait_states = static_cast<std::uint8_t>(rng() % 50 == 0 ? 200 : 1 + rng() % 25);
    set_rule_bytes(h);
    bool want = false;
    for (unsigned r = 0; r < HazardState::kMaxRules; ++r)
      want = want || (((h.consumes >> r) & 1) && until[r] > s.clock);
    ASSERT_EQ(hazard_check_due(s, h), want) << "step " << step;
    due_count += want;
    for (unsigned r = 0; r < HazardState::kMaxRules; ++r)
      if ((h.produces >> r) & 1) until[r] = std::max(until[r], s.clock + 1 + h.window);
    retire_hazards(s, h, 0);
  }
  EXPECT_GT(due_count, 10000u);  // both answers occur often
  EXPECT_LT(due_count, 190000u);
}

}  // namespace
}  // namespace cdna::simulator
