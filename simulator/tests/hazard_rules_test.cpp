// Every hazard rule at one wait state below its count (an error naming the kernel, the wave, both
// instructions, the rule, the counts needed and present) and at its count (runs): the
// hand-written kernels of testdata/hazards_asm.s.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "simulator/checks/hazard.hpp"
#include "simulator/checks/hazard_policy.hpp"
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

// The sites a kernel's run records under `policy` (error "" expected).
std::vector<HazardViolation> sites_of(const std::string& kernel, HazardPolicy policy = HazardPolicy::Report) {
  SimulatorExecutor ex;
  ex.options().hazard_policy = policy;
  std::vector<std::uint32_t> buf(1024, 0);
  EXPECT_EQ(error_of([&] { ex.run(testdata("hazards_asm"), dispatch(kernel, {1, 1, 1}, {64, 1, 1}, {out(buf)})); }), "")
      << kernel;
  return ex.last_hazards();
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

// Issue 23 §3: only the latest writer of a register is checked. A 4-pass MFMA, then a 2-pass one
// accumulating into the same registers: a VALU read 5 wait states after the second is enough
// (the first, 6 of its 7 earlier, is no hazard: the second waited for it); 4 after it is the
// second's hazard, named against it (before: the first, the oldest producer, 5 of 7).
TEST(SimHazardRules, OnlyTheLatestWriterOfARegisterIsChecked) {
  EXPECT_EQ(run_asm_kernel("mfma_chain_latest_ok"), "");
  const std::string bad = run_asm_kernel("mfma_chain_latest_bad");
  EXPECT_NE(bad.find("4 wait states after 'v_mfma_f32_4x4x4_16b_bf16 v[12:15]"), std::string::npos) << bad;
  EXPECT_NE(bad.find("gfx942 needs 5 (rule mfma-result-valu, CDNA3 ISA §7.5 table, case 106"), std::string::npos) << bad;
  // SGPRs alike: s4 written twice by a VALU, the store 2 wait states after the second (5 needed):
  // one site, the second write (before: two sites, the error naming the first at 3).
  const std::string sgpr = run_asm_kernel("sgpr_rewritten_bad");
  EXPECT_NE(sgpr.find(" 2 wait states after 'v_readfirstlane_b32 s4"), std::string::npos) << sgpr;
  const auto sites = sites_of("sgpr_rewritten_bad");
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(sites[0].wait_states, 2);
  EXPECT_EQ(sites[0].rule, "valu-sgpr-vmem");
  EXPECT_NE(sites[0].source.find("case 10"), std::string::npos) << sites[0].source;
  EXPECT_TRUE(sites_of("mfma_chain_latest_ok").empty());
}

// Issue 23 §3: a rule stricter than the ISA (LLVM only) is listed and counted, never an error:
// the v_cndmask select mask and the carry-in 0-1 wait states after a v_cmp / carry-out.
TEST(SimHazardRules, LlvmOnlyRulesAreListedAndNeverStopARun) {
  for (const char* k : {"vcc_valu_llvm", "cndmask_select_llvm", "carry_in_llvm"}) {
    SCOPED_TRACE(k);
    EXPECT_EQ(run_asm_kernel(k), "");  // policy error
    for (HazardPolicy p : {HazardPolicy::Report, HazardPolicy::Differential}) {
      const auto sites = sites_of(k, p);
      ASSERT_EQ(sites.size(), 1u);
      EXPECT_EQ(sites[0].rule, "valu-sgpr-valu-mask");
      EXPECT_TRUE(sites[0].llvm_only);
      EXPECT_EQ(sites[0].source.rfind("LLVM only: ", 0), 0u) << sites[0].source;
      EXPECT_EQ(sites[0].verdict, HazardViolation::Verdict::Reported);  // never judged, never failed
      EXPECT_NE(describe(sites[0]).find("LLVM only"), std::string::npos);
    }
  }
  // The same write read as a constant is the ISA's case 18: an error (the vcc_valu pair).
  EXPECT_NE(run_asm_kernel("vcc_valu_bad").find("rule valu-sgpr-valu, CDNA3 ISA §4.5 table, case 18"), std::string::npos);
}

TEST(SimHazardRules, EveryRuleHasAnIdASourceAndAWindow) {
  std::set<std::string_view> ids;
  for (const auto& r : hazard_rules()) {
    EXPECT_TRUE(ids.insert(r.id).second) << r.id;
    EXPECT_FALSE(r.source.empty()) << r.id;
    // The class and the source agree: an ISA rule names the guide, an LLVM-only one says so.
    EXPECT_EQ(r.source.rfind(r.llvm_only() ? "LLVM only: " : "CDNA3 ISA §", 0), 0u) << r.id << ": " << r.source;
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
