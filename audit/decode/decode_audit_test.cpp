// The audit's decode part on the simulator: the correct monokernel passes the decided cases in
// every mode, and the decode kill matrix (memory-model mode with starvation on) kills every
// mutant, DROPPED_RELEASE by a store held past its partial (docs/decode-semantics.md §5.6), while
// the correct kernel passes the same kill cases.
#include <gtest/gtest.h>

#include "simulator/schedule/simulator_executor.hpp"
#include "audit/decode/decode_audit.hpp"

namespace cdna::audit {
namespace {

TEST(DecodeAudit, CorrectKernelPassesTheDecidedCasesInEveryMode) {
  simulator::SimulatorExecutor ex;
  DecodeAuditOptions o;
  o.modes = {numerics::Rounding::RTNE, numerics::Rounding::RTNA, numerics::Rounding::RTZ};
  o.case_filter = "D0[1235]";
  o.mutants = false;
  const DecodeAuditResult r = run_decode_audit(o, ex);
  ASSERT_EQ(r.rows.size(), 12u);
  for (const auto& row : r.rows) {
    EXPECT_EQ(row.outcome, DecodeOutcome::Pass) << row.id << " " << row.mode << ": " << row.line;
    EXPECT_EQ(row.counts.decided, row.counts.choosing) << row.id << " " << row.mode << ": " << row.line;
  }
  std::printf("%s", decode_table(r).c_str());
}

// D04 (2 layers) and D07 (16 layers): the a-priori balls decide no step; the per-layer checks
// classify every one (match or explained) with every layer value inside its ball.
TEST(DecodeAudit, TheDeepCasesAreJudgedLayerByLayer) {
  simulator::SimulatorExecutor ex;
  DecodeAuditOptions o;
  o.modes = {numerics::Rounding::RTNE, numerics::Rounding::RTNA, numerics::Rounding::RTZ};
  o.case_filter = "D0[47]";
  o.mutants = false;
  const DecodeAuditResult r = run_decode_audit(o, ex);
  ASSERT_EQ(r.rows.size(), 6u);
  for (const auto& row : r.rows) {
    SCOPED_TRACE(row.id + " " + row.mode + ": " + row.line);
    EXPECT_EQ(row.outcome, DecodeOutcome::Pass);
    EXPECT_EQ(row.counts.decided, 0);
    ASSERT_TRUE(row.layer_checks);
    EXPECT_EQ(row.counts.layer_matched + row.counts.layer_explained, row.counts.choosing);
    EXPECT_EQ(row.counts.layer_defects + row.counts.layer_unclassified, 0);
    EXPECT_EQ(row.counts.layer_outside, 0);
    EXPECT_GT(row.counts.layer_checked, 0);
  }
  std::printf("%s", decode_table(r).c_str());
}

TEST(DecodeAudit, KillMatrixUnderTheMemoryModelMode) {
  simulator::SimulatorExecutor ex;
  ex.options().hang_rounds = 1u << 12;  // a hung mutant is reported sooner (the kernel polls with s_sleep)
  DecodeAuditOptions o;
  o.modes = {};
  o.mutants = true;
  const DecodeAuditResult r = run_decode_audit(o, ex, {}, [&](std::optional<std::uint64_t> starve_seed) {
    const bool on = starve_seed.has_value();
    ex.options().memory_model = on ? simulator::MemoryModel::Cdna3 : simulator::MemoryModel::Coherent;
    ex.options().starve_seed = starve_seed;
    ex.options().hang_rounds = on ? 1u << 15 : 1u << 12;  // above starve_rounds (2^14)
  });
  ASSERT_EQ(r.mutants.size(), 12u);
  EXPECT_EQ(r.control, "K1 pass, K2 pass, K3 pass (starve seeds 1-8)");
  EXPECT_EQ(ex.options().memory_model, simulator::MemoryModel::Coherent);  // restored
  for (const auto& m : r.mutants) EXPECT_TRUE(m.killed) << m.name << " survived: " << m.how;
  std::printf("%s", decode_markdown(r).c_str());
}

}  // namespace
}  // namespace cdna::audit
