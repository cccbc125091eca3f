// The audit on the simulator: the kernel passes, and each mutant (one plausible mistake built
// into the kernel at compile time, device/CMakeLists.txt) fails on the cases its mistake
// affects. This shows the pass rule of docs/pass-rule.md is strong enough to see them.
#include "audit/audit.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "simulator/schedule/simulator_executor.hpp"

namespace cdna::audit {
namespace {

const std::filesystem::path kCodeObjects = CDNA_CODE_OBJECT_DIR;

AuditResult audit_rtne(const std::string& filter, const std::filesystem::path& code_object) {
  AuditOptions options;
  options.modes = {numerics::Rounding::RTNE};
  options.case_filter = filter;
  options.code_objects[numerics::Rounding::RTNE] = code_object;
  simulator::SimulatorExecutor sim;
  return run_audit(options, sim);
}

const Verdict* verdict_of(const AuditResult& r, const std::string& id) {
  for (const auto& row : r.rows)
    if (row.id == id) return &row.verdict;
  return nullptr;
}

// Causal with Sq != Sk (alignment matters) and no mask with Sk > 16 (the max grows across KV
// blocks, so the rescale matters), plus C03 (fully masked rows and a one-key row).
const std::string kCases = "^(llama3.2-1b/sq17-sk128/causal|llama3.2-1b/sq128-sk17/causal|llama3.2-1b/sq17-sk128|C03)$";

TEST(Audit, KernelPassesInEveryMode) {
  AuditOptions options;
  options.case_filter = kCases;
  simulator::SimulatorExecutor sim;
  const AuditResult r = run_audit(options, sim);
  ASSERT_EQ(r.rows.size(), 4u * 3u);
  for (const auto& row : r.rows) {
    EXPECT_EQ(row.verdict, Verdict::Pass) << row.id << " " << row.mode << ": " << row.note;
    EXPECT_TRUE(row.compared);
  }
}

TEST(Audit, TopLeftMutantFails) {
  const AuditResult r = audit_rtne(kCases, kCodeObjects / "attention_fwd_mutant_topleft.hsaco");
  ASSERT_EQ(r.rows.size(), 4u);
  EXPECT_FALSE(r.ok());
  // Alignment only matters under a causal mask with Sq != Sk.
  EXPECT_EQ(*verdict_of(r, "llama3.2-1b/sq17-sk128/causal"), Verdict::Fail);
  EXPECT_EQ(*verdict_of(r, "llama3.2-1b/sq128-sk17/causal"), Verdict::Fail);
  EXPECT_EQ(*verdict_of(r, "C03"), Verdict::Fail);
  EXPECT_EQ(*verdict_of(r, "llama3.2-1b/sq17-sk128"), Verdict::Pass);
}

TEST(Audit, NoRescaleMutantFails) {
  const AuditResult r = audit_rtne(kCases, kCodeObjects / "attention_fwd_mutant_no_rescale.hsaco");
  ASSERT_EQ(r.rows.size(), 4u);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(*verdict_of(r, "llama3.2-1b/sq17-sk128"), Verdict::Fail);
  EXPECT_EQ(*verdict_of(r, "llama3.2-1b/sq17-sk128/causal"), Verdict::Fail);
}

TEST(Audit, UnsupportedCasesAreRejectedNotPassed) {
  AuditOptions options;
  options.modes = {numerics::Rounding::RTNE};
  options.matrix = false;
  // The features attn_fwd does not take (top-left alignment, soft cap, sinks, Dv != D, fp8):
  // rejected with the launcher's reason, never run; their facts are checked on the oracle
  // (audit_cases_test).
  options.case_filter = "^(C02-top-left|C13-d59|C13-d111|W02-top-left|SC01|SK01|DV01|F01|F02)$";
  simulator::SimulatorExecutor sim;
  const AuditResult r = run_audit(options, sim);
  ASSERT_EQ(r.rows.size(), 9u);
  for (const char* id : {"C02-top-left", "W02-top-left", "SC01", "SK01", "DV01", "F01", "F02"}) {
    ASSERT_NE(verdict_of(r, id), nullptr) << id;
    EXPECT_EQ(*verdict_of(r, id), Verdict::Rejected) << id;
  }
  for (const auto& row : r.rows) EXPECT_FALSE(row.note.empty()) << row.id << " was rejected without a reason";
  // C13 asks for rejection: being rejected is what passes.
  EXPECT_EQ(*verdict_of(r, "C13-d59"), Verdict::Pass);
  EXPECT_EQ(*verdict_of(r, "C13-d111"), Verdict::Pass);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.count(Verdict::Rejected), 7);
  // No kernel output was judged: not a pass (docs/pass-rule.md, "Outcome").
  EXPECT_EQ(r.outcome(), AuditOutcome::NothingJudged);
  EXPECT_NE(r.nothing_judged_reason().find("7 rejected"), std::string::npos) << r.nothing_judged_reason();
}

// C05 and C11 run (varlen through the varlen launcher), as do the window and paged cases: each
// passes the pass rule, its exact fact and its twin check.
TEST(Audit, VarlenPagedAndWindowCasesRun) {
  AuditOptions options;
  options.modes = {numerics::Rounding::RTNE};
  options.matrix = false;
  options.tiles = false;
  options.case_filter = "^(C05|C11|P01|W01|W02-bottom-right)$";
  simulator::SimulatorExecutor sim;
  const AuditResult r = run_audit(options, sim);
  ASSERT_EQ(r.rows.size(), 5u);
  for (const auto& row : r.rows) {
    EXPECT_EQ(row.verdict, Verdict::Pass) << row.id << ": " << row.note;
    EXPECT_TRUE(row.compared) << row.id;
    EXPECT_GT(row.comparison.o_judged, 0) << row.id;
  }
  EXPECT_EQ(r.outcome(), AuditOutcome::Pass);
}

// The kernel helper's feature mutants (device/CMakeLists.txt) fail the feature cases they touch.
TEST(Audit, FeatureMutantsFailTheirCases) {
  const std::string cases = "^(W01|W02-bottom-right|P01|C05|C11)$";
  const AuditResult window = audit_rtne(cases, kCodeObjects / "attention_fwd_mutant_window_off_by_one.hsaco");
  EXPECT_EQ(*verdict_of(window, "W01"), Verdict::Fail);
  EXPECT_EQ(*verdict_of(window, "W02-bottom-right"), Verdict::Fail);
  EXPECT_EQ(*verdict_of(window, "C11"), Verdict::Pass);  // no window
  const AuditResult page = audit_rtne(cases, kCodeObjects / "attention_fwd_mutant_page_index_off_by_one.hsaco");
  EXPECT_EQ(*verdict_of(page, "P01"), Verdict::Fail);
  EXPECT_EQ(*verdict_of(page, "W01"), Verdict::Pass);  // not paged
  const AuditResult align = audit_rtne(cases, kCodeObjects / "attention_fwd_mutant_varlen_global_alignment.hsaco");
  EXPECT_EQ(*verdict_of(align, "P01"), Verdict::Fail);  // causal, Sq_b 3/5 and Sk_b 40/20
}

// An executor that runs on a simulator and notes, on its first run, whether the other worker's
// executor was inside run() at the same time (it waits up to 10 s for it to come).
class RendezvousExecutor : public device::Executor {
 public:
  RendezvousExecutor(std::atomic<int>& entered) : entered_(entered) {}
  std::string name() const override { return sim.name(); }
  void run(std::span<const std::byte> code_object, const device::Dispatch& dispatch) override {
    if (runs++ == 0) {
      ++entered_;
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (entered_ < 2 && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      met = entered_ >= 2;
    }
    sim.run(code_object, dispatch);
  }
  simulator::SimulatorExecutor sim;
  int runs = 0;
  bool met = false;

 private:
  std::atomic<int>& entered_;
};

// Two workers run cases at the same time, each on its own executor, and the rows come back in
// case order with the figures of one worker's run (varlen C05 reads its code object per worker).
TEST(Audit, TwoWorkersRunCasesAtOnceRowsInCaseOrder) {
  AuditOptions options;
  options.modes = {numerics::Rounding::RTNE, numerics::Rounding::RTZ};
  options.case_filter = "^(C01|C03|C04|C05|llama3.2-1b/sq17-sk128|llama3.2-1b/sq17-sk17)$";
  simulator::SimulatorExecutor one;
  const AuditResult serial =
      run_audit(options, one, [&] { return one.last_stats().wave_instructions; });

  std::atomic<int> entered{0};
  RendezvousExecutor a(entered), b(entered);
  std::vector<AuditWorker> workers;
  for (RendezvousExecutor* e : {&a, &b})
    workers.push_back({e, [e] { return e->sim.last_stats().wave_instructions; }, {}});
  const AuditResult parallel = run_audit(options, workers);

  EXPECT_GT(a.runs, 0);
  EXPECT_GT(b.runs, 0);
  EXPECT_TRUE(a.met && b.met) << "the two workers never ran at the same time";
  ASSERT_EQ(parallel.rows.size(), serial.rows.size());
  ASSERT_EQ(serial.rows.size(), 6u * 2u);
  for (std::size_t i = 0; i < serial.rows.size(); ++i) {
    const CaseResult &s = serial.rows[i], &p = parallel.rows[i];
    EXPECT_EQ(p.id + " " + p.mode, s.id + " " + s.mode) << "row " << i;
    EXPECT_EQ(p.verdict, s.verdict) << s.id;
    EXPECT_EQ(p.position, s.position) << s.id;
    EXPECT_GT(s.wave_instructions, 0u) << s.id;
    EXPECT_EQ(p.wave_instructions, s.wave_instructions) << s.id;
    EXPECT_EQ(p.comparison.max_abs_err_o, s.comparison.max_abs_err_o) << s.id;
    EXPECT_EQ(p.o_sums.sum_sq_err, s.o_sums.sum_sq_err) << s.id;
  }
  EXPECT_EQ(parallel.code_objects.size(), 2u);  // one per mode, from the first worker only
}

// Issue 23 §3: a case carries its numerics verdict and its hazard verdict side by side; a hazard
// failure fails the case and leaves the numerics verdict as the values as written say; a run
// that stopped is "not judged" for hazards, whatever sites it reached.
class StoppingExecutor : public device::Executor {
 public:
  std::string name() const override { return "simulator"; }
  void run(std::span<const std::byte>, const device::Dispatch&) override { throw std::runtime_error("stopped"); }
};

TEST(Audit, NumericsAndHazardVerdictsSideBySide) {
  AuditOptions options;
  options.modes = {numerics::Rounding::RTNE};
  options.case_filter = "^C04$";
  simulator::SimulatorExecutor sim;
  const auto with = [&](CaseHazards h) {
    return run_audit(options, std::vector<AuditWorker>{{&sim, {}, [h] { return h; }}}).rows.at(0);
  };
  const CaseResult benign = with({"1 site (1 benign)", "", "benign", 1, 2, {}});
  EXPECT_EQ(benign.verdict, Verdict::Pass);
  EXPECT_EQ(benign.numerics_verdict(), Verdict::Pass);
  EXPECT_EQ(benign.hazard_verdict, "benign");
  EXPECT_EQ(benign.verdicts_text(), "numerics pass, hazards benign (1 documented, 2 LLVM-only sites)");
  const CaseResult fails = with({"1 site (1 changes the output)", "the output depends on 1 site", "fails", 1, 0, {}});
  EXPECT_EQ(fails.verdict, Verdict::Fail);
  EXPECT_EQ(fails.numerics_verdict(), Verdict::Pass);
  EXPECT_EQ(fails.hazard_verdict, "fails");
  StoppingExecutor stop;
  const CaseResult stopped =
      run_audit(options, std::vector<AuditWorker>{{&stop, {}, [] { return CaseHazards{"", "", "none", 0, 0, {}}; }}})
          .rows.at(0);
  EXPECT_EQ(stopped.numerics_verdict(), Verdict::Fail);
  EXPECT_EQ(stopped.hazard_verdict, "not judged");
}

TEST(Audit, NoWorkerIsAnError) {
  EXPECT_THROW(run_audit(AuditOptions{}, std::vector<AuditWorker>{}), std::invalid_argument);
}

// The outcome rule: PASS needs at least one judged kernel output and no failure.
TEST(AuditOutcome, NoCaseMatchedIsNothingJudged) {
  AuditOptions options;
  options.case_filter = "ZZZ";
  simulator::SimulatorExecutor sim;
  const AuditResult r = run_audit(options, sim);
  EXPECT_TRUE(r.rows.empty());
  EXPECT_EQ(r.outcome(), AuditOutcome::NothingJudged);
  EXPECT_EQ(r.nothing_judged_reason(), "nothing judged: no case matched");
}

TEST(AuditOutcome, JudgedCaseCountsItsElements) {
  // C03: B 1, Sq 5, Hq 4, D 64 -> 1280 O elements and 20 LSE values; rows 0-2 have no visible
  // key (Sq 5, Sk 2, causal bottom-right), so 3 rows x 4 heads x 64 are judged as exact facts.
  // C02-top-left is rejected (attn_fwd takes no top-left alignment).
  const AuditResult r = audit_rtne("^(C03|C02-top-left)$", kCodeObjects / "attention_fwd_rtne.hsaco");
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.outcome(), AuditOutcome::Pass);
  const AuditCounts c = r.counts();
  EXPECT_EQ(c.cases_judged, 1);
  EXPECT_EQ(c.cases_rejected, 1);
  EXPECT_EQ(c.o_judged, 1280);
  EXPECT_EQ(c.lse_judged, 20);
  EXPECT_EQ(r.rows[1].id, "C03");
  EXPECT_EQ(r.rows[1].comparison.o_exact_facts, 3 * 4 * 64);
  EXPECT_EQ(outcome_line(r), "PASS: 1 case(s) judged (1280 O elements, 20 LSE values), 0 failed, 1 rejected");
}

TEST(AuditOutcome, AFailureIsFailEvenBesideNothingElse) {
  const AuditResult r = audit_rtne("^C03$", kCodeObjects / "attention_fwd_mutant_topleft.hsaco");
  EXPECT_EQ(r.outcome(), AuditOutcome::Fail);
}

}  // namespace
}  // namespace cdna::audit
