// The report model of `cdna-verify audit`: one row per case and mode (CaseResult), the whole
// audit (AuditResult) with its counts and outcome (docs/pass-rule.md "Outcome"), and the text and
// files made from it: the outcome line, the end-of-run table, report.json, report.md and report.html.
// Filled by audit::run_audit (audit/audit.hpp), read back from report.json by `report merge`.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "audit/cases/audit_cases.hpp"
#include "audit/cases/shard.hpp"
#include "audit/decode/decode_audit.hpp"
#include "audit/mutants/mutants.hpp"
#include "audit/report/rounding_audit.hpp"
#include "device/executor.hpp"
#include "reference/attention/compare.hpp"
#include "simulator/checks/hazard_policy.hpp"

namespace cdna::audit {

// NothingJudged: the kernel ran and failed nothing, but some element was beyond the declared
// arithmetic's range (reference::AttentionComparison::nothing_judged), or no element existed.
enum class Verdict { Pass, Fail, Rejected, NothingJudged };
std::string_view to_string(Verdict v);  // "pass", "FAIL", "rejected", "nothing judged"
// The verdict of a compared case: Fail on a violation or a failed case fact, Pass when every
// element was judged, else NothingJudged.
Verdict verdict_of(const reference::AttentionComparison& c, bool facts_hold);
// "N passed, M failed, R rejected", with "K nothing judged, " before "R" when K > 0.
struct AuditResult;
std::string verdict_counts_text(const AuditResult& result);

// The outcome of a whole audit (docs/pass-rule.md, "Outcome"): Fail if any case failed (an
// attention case, or a decode case: audit/decode/decode_audit.hpp); else NothingJudged if no kernel
// output was judged (no case matched, or every matched case was rejected or only checked for
// refusal, C13, and no decode case passed); else Pass.
enum class AuditOutcome { Pass, Fail, NothingJudged };
std::string_view to_string(AuditOutcome o);  // "pass", "fail", "nothing_judged"

struct CaseResult {
  std::string id, description, mask;
  reference::AttentionShape shape;
  float scale = 0;
  std::uint64_t seed = 0;
  std::string mode;  // "RTNE", "RTNA", "RTZ", or "-" for a case rejected before any mode ran
  Verdict verdict = Verdict::Fail;
  std::string note;  // first failure, rejection reason, or empty
  reference::AttentionComparison comparison;
  bool compared = false;  // comparison holds figures
  OErrorSums o_sums;      // signed-error sums of O for the rounding audit (when compared)
  // Simulator hazard policy findings of this case's launches ("" if none): a site whose value
  // changes the output (differential) fails the case, whatever its figures say.
  std::string hazards;
  // The sites behind `hazards`, for the caller's audit-wide list (merged in row order:
  // simulator::merge_hazard_sites); not written to the reports.
  std::vector<simulator::HazardViolation> hazard_sites;
  // The two verdicts (issue 23 §3): `numerics`, the values as written against bound, floor and
  // exact facts (unset: the same as `verdict`, e.g. a case rejected before it ran); the hazard
  // verdict (audit/run/hazard_verdict.hpp: none, llvm-only, reported, benign, fails; "not judged"
  // when the run stopped before its end; "-" when the hazards are not judged apart: hardware, or
  // policy error, where a documented hazard stops the run) with its site counts. `verdict` is the case's: a fail if either fails.
  std::optional<Verdict> numerics;
  std::string hazard_verdict = "-";
  std::uint64_t documented_sites = 0, llvm_only_sites = 0;
  Verdict numerics_verdict() const { return numerics.value_or(verdict); }
  // "numerics pass, hazards fails (14 documented sites, 81 LLVM-only)"; "" when hazard_verdict is "-".
  std::string verdicts_text() const;
  // The peer kernel's own test suite's rule on the same output (audit/peer_tolerance.hpp), beside
  // the verdict and never changing it: "" when the kernel has none here or the case was not run.
  std::string peer_tolerance;
  std::optional<bool> peer_tolerance_pass;
  double kernel_seconds = 0, oracle_seconds = 0;
  std::uint64_t wave_instructions = 0;  // simulator only; 0 on hardware
  // A sampled case (AuditCase::sample_rows): query rows in all, and of them judged exactly against
  // the oracle; 0 and 0 for a case whose every row was judged. The note then says so, pass or not.
  std::int64_t rows_total = 0, rows_judged = 0;
  // Index of the case in the unsharded enumeration (matrix, handed, tiles, after --cases): where
  // `report merge` puts the rows of shards back (all rows of a case share it).
  std::size_t position = 0;
};

// The code object audited for one mode, and whether it records that mode itself
// (adapters/code_object_mode.hpp); if not, the mode is the user's unchecked declaration.
struct AuditedCodeObject {
  std::string mode;  // "RTNE", "RTNA", "RTZ"
  std::string path;
  bool mode_recorded = false;
  std::string sha256;  // of the file's bytes (lowercase hex), so merged shards prove they ran the same code
};

// What a shard of a sharded audit owns (audit/cases/shard.hpp; docs/ci.md, "Shards and merged reports").
struct ShardInfo {
  ShardSpec spec;
  std::vector<std::string> owned;  // ids of the attention and decode cases this shard ran, in run order
  int cases_matched = 0;           // attention and decode cases --set/--cases matched over all shards
  int mutation_shard = 1;          // the shard that runs the mutation kill matrix
  int decode_mutation_shard = 1;   // the shard that runs the decode kill matrix
  // "--allow-empty-shard": owning no case, or judging none, is exit 0 instead of 2.
  bool allow_empty = false;
};

// What an audit judged, summed over its rows.
struct AuditCounts {
  int cases_judged = 0;  // rows whose kernel output was judged (at least one O element or LSE value)
  int cases_passed = 0, cases_failed = 0, cases_rejected = 0, cases_nothing_judged = 0;
  // Judged rows of sampled production cases (CaseResult::rows_total > 0): a seeded sample of their
  // query rows judged exactly, the others checked finite only (docs/pass-rule.md "Production cases").
  int cases_sampled = 0;
  std::int64_t o_judged = 0, lse_judged = 0;  // O elements and LSE values judged in all
  // Failures on rows of the definition's special classes (reference/attention/conventions.hpp): the rows,
  // and the failed cases with at least one. Counted apart, never excused: those cases failed.
  std::int64_t convention_rows = 0;
  int cases_with_convention_rows = 0;
};

struct AuditResult {
  std::string executor;
  std::string kernel = "attention-fwd";  // adapter name
  std::string profile = "ours";           // reference/attention/profiles.hpp, named in every report
  // The selection: --set and --cases as given (shards merge only when both agree).
  std::string set = "default", case_filter;
  std::optional<ShardInfo> shard;  // set for `audit --shard I/N`
  std::vector<AuditedCodeObject> code_objects;  // one per audited mode
  // Code objects the adapter found beside them and did not take, with why (KernelAdapter::not_taken).
  std::vector<std::string> code_objects_not_taken;
  // Executor settings that may change results, e.g. {"schedule", "random"}, {"schedule_seed",
  // "7"}, {"transcendental_envelope_seed", "1"} for the simulator; written to the reports.
  std::vector<std::pair<std::string, std::string>> executor_settings;
  // What the executor runs on (device::Executor::describe: the HIP device, driver, ROCm and
  // clocks, or the simulator's host); report.json "executor_description", report.md's header.
  device::Description executor_description;
  std::string build_hip;  // the HIP this build was made with (device::build_hip(); report.json "build_hip")
  std::vector<CaseResult> rows;
  double seconds = 0;
  // Mutation testing of the verifier run with the audit (audit/mutants/mutants.hpp); empty if skipped.
  std::optional<MutantsResult> mutation;
  std::string mutation_not_run = "--no-mutants";  // why `mutation` is empty
  // The decode cases and the decode kill matrix (audit/decode/decode_audit.hpp); empty if not run.
  std::optional<DecodeAuditResult> decode;
  std::string decode_not_run = "not requested";  // why `decode` is empty
  int count(Verdict v) const;
  bool ok() const { return count(Verdict::Fail) == 0; }  // no case failed (judged or not)
  AuditCounts counts() const;
  AuditOutcome outcome() const;
  // One line on why nothing was judged ("no case matched", ...); empty unless NothingJudged.
  std::string nothing_judged_reason() const;
};

// "PASS", "FAIL", "NOTHING JUDGED" followed by the counts, one line (tables and reports).
std::string outcome_line(const AuditResult& result);

// "N failing row(s) in M case(s) are special rows ... still failures" (tables and reports).
std::string convention_line(const AuditCounts& counts);

// The cases rejected for a feature the kernel lacks, judged on the reference only (one line for
// the reports; "" if none).
std::string reference_only_line(const AuditResult& result);

// "shard I/N: owns K of the M matched case(s) (ids); the kill matrices run in ..." ("" unsharded).
std::string shard_line(const AuditResult& result);

// The end-of-run table: case, mode, executor, max |err|, max err in bf16 ULPs, LSE err, verdict.
std::string summary_table(const AuditResult& result);

// Writes <dir>/report.json, <dir>/report.md and <dir>/report.html (audit/report/report_html.hpp; each to a temporary file first, renamed when
// complete, so a failed write never leaves a file that looks complete). Throws
// std::runtime_error naming the path on failure.
void write_reports(const AuditResult& result, const std::filesystem::path& dir);

}  // namespace cdna::audit