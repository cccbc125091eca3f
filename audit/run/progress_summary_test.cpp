// The progress line (audit/output/progress.hpp), the summary line (audit/output/summary_line.hpp) and run's
// estimate and limits (audit/run/run_estimate.hpp): their text and arithmetic on fixed inputs.
#include <gtest/gtest.h>

#include <sstream>

#include "audit/output/exit_codes.hpp"
#include "audit/output/progress.hpp"
#include "audit/run/run_estimate.hpp"
#include "audit/output/summary_line.hpp"

namespace cdna::audit {
namespace {

TEST(Progress, EstimateIsTheMeanStepTimeTimesTheStepsLeft) {
  Progress p(nullptr, "audit", "case", 124);
  // 12 steps in 31 s: 31/12 s each, 112 left: 289.3 s = 4:49.
  EXPECT_EQ(p.line(12, 31.0, "C05 RTNE", ""), "audit: case 12 of 124 (C05 RTNE), 0:31 elapsed, ~4:49 left");
  EXPECT_EQ(p.line(12, 31.0, "", "pass"), "audit: case 12 of 124, 0:31 elapsed, ~4:49 left: pass");
  // No estimate before a step has finished, none after the last.
  EXPECT_EQ(p.line(0, 0.4, "", ""), "audit: case 0 of 124, 0:00 elapsed");
  EXPECT_EQ(p.line(124, 3725.0, "", ""), "audit: case 124 of 124, 1:02:05 elapsed");
}

TEST(Progress, QuietPrintsNothingAndThrottledShortRunsPrintNothing) {
  std::ostringstream out;
  Progress quiet(nullptr, "x", "step", 2);
  quiet.next("a");  // no stream: nothing to crash on
  Progress throttled(&out, "sim", "workgroup", 4, 5.0);
  for (int i = 0; i < 4; ++i) throttled.next();
  EXPECT_EQ(out.str(), "");  // all four within the first 5 s
  Progress every(&out, "mutants", "kernel", 2);
  every.next("TOPLEFT", "killed");
  EXPECT_EQ(out.str().rfind("mutants: kernel 1 of 2 (TOPLEFT), 0:00 elapsed, ~0:00 left: killed\n", 0), 0u);
}

TEST(SummaryLine, WordFollowsTheExitCode) {
  RunSummary s;
  s.start("audit");
  s.set("judged", std::uint64_t{117});
  s.set("failed", std::uint64_t{0});
  s.set("executor", "CDNA3 simulator");
  s.set("judged", std::uint64_t{118});  // replaced in place
  EXPECT_EQ(s.line(kExitPass, 96.14),
            "cdna-verify summary: audit PASS judged=118 failed=0 executor=CDNA3_simulator exit=0 seconds=96.1");
  EXPECT_EQ(s.line(kExitFail, 1), "cdna-verify summary: audit FAIL judged=118 failed=0 executor=CDNA3_simulator exit=1 seconds=1.0");
  EXPECT_EQ(summary_word(kExitBadInput, false), std::string("NOTHING JUDGED"));
  EXPECT_EQ(summary_word(kExitExecutorUnavailable, false), std::string("NOTHING JUDGED"));
  RunSummary sim;
  sim.start("sim", true);
  EXPECT_EQ(sim.line(kExitPass, 0), "cdna-verify summary: sim OK exit=0 seconds=0.0");
  EXPECT_EQ(sim.line(kExitFail, 0), "cdna-verify summary: sim FAIL exit=1 seconds=0.0");
}

// A shard that owns nothing exits 0 under --allow-empty-shard: its line must not say PASS (issue 23 §6).
TEST(SummaryLine, NothingJudgedWithExitZeroIsNotAPass) {
  RunSummary s;
  s.start("audit");
  s.set("judged", std::uint64_t{0});
  s.set_nothing_judged();
  EXPECT_EQ(s.line(kExitPass, 2), "cdna-verify summary: audit NOTHING JUDGED judged=0 exit=0 seconds=2.0");
}

TEST(RunEstimate, CountsEveryBufferAndEveryPair) {
  reference::AttentionShape s{2, 3, 5, 4, 2, 8};  // B, Sq, Sk, Hq, Hkv, D
  const RunEstimate e = estimate_run(s, true);
  // Q 2*3*4*8 = 192, K = V = 2*5*2*8 = 160 elements (bf16, host and executor); O 192 and LSE
  // 2*4*3 = 24 elements, as the kernel writes them (bf16, fp32; host and executor) and exact (fp64).
  const double inputs = 2.0 * (192 + 160 + 160);
  const double kernel_out = 2.0 * 192 + 4.0 * 24;
  const double exact_out = 8.0 * (192 + 24);
  EXPECT_EQ(e.bytes, 2 * inputs + 2 * kernel_out + exact_out);
  EXPECT_EQ(e.work, 2.0 * 4 * 3 * 5 * (8 + 8));
  // The shape: 64 GiB of Q alone, so at least 128 GiB with its executor copy.
  const RunEstimate big = estimate_run(reference::AttentionShape{64, 65536, 65536, 64, 64, 128}, true);
  EXPECT_GT(big.bytes, 0x1p37);
}

TEST(RunEstimate, LimitsRefuseAboveAndPassAtTheEstimate) {
  const RunEstimate e = estimate_run(reference::AttentionShape{1, 16, 16, 1, 1, 64}, true);
  EXPECT_NO_THROW(check_run_limits(e, e.bytes, e.work));
  try {
    check_run_limits(e, e.bytes - 1, e.work);
    ADD_FAILURE() << "no refusal one byte below the estimate";
  } catch (const std::invalid_argument& x) {
    EXPECT_NE(std::string(x.what()).find("--max-memory"), std::string::npos) << x.what();
  }
  try {
    check_run_limits(e, e.bytes, e.work - 1);
    ADD_FAILURE() << "no refusal one multiply-add below the estimate";
  } catch (const std::invalid_argument& x) {
    EXPECT_NE(std::string(x.what()).find("--max-work"), std::string::npos) << x.what();
  }
}

TEST(RunEstimate, ParseBytes) {
  EXPECT_EQ(parse_bytes("123"), 123.0);
  EXPECT_EQ(parse_bytes("8GiB"), 0x1p33);
  EXPECT_EQ(parse_bytes("1.5GiB"), 1.5 * 0x1p30);
  EXPECT_EQ(parse_bytes("512MiB"), 0x1p29);
  EXPECT_EQ(parse_bytes("2T"), 0x1p41);
  EXPECT_FALSE(parse_bytes("GiB"));
  EXPECT_FALSE(parse_bytes("-1"));
  EXPECT_FALSE(parse_bytes("8 GiB"));
  EXPECT_FALSE(parse_bytes("8PB"));
  EXPECT_FALSE(parse_bytes("nan"));
}

}  // namespace
}  // namespace cdna::audit
