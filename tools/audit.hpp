// `cdna-verify audit`: runs the default matrix and the handed cases on one executor or several
// at once (--jobs, one per worker thread), compares
// each kernel output with the exact oracle under the pass rule of docs/pass-rule.md, and
// writes report.json, report.md and report.html.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "device/executor.hpp"
#include "numerics/bf16.hpp"
#include "reference/compare.hpp"
#include "simulator/checks/hazard_policy.hpp"
#include "tools/audit_cases.hpp"
#include "tools/decode_audit.hpp"
#include "tools/mutants.hpp"
#include "tools/rounding_audit.hpp"
#include "tools/shard.hpp"

namespace cdna::tools {

enum class Verdict { Pass, Fail, Rejected };
std::string_view to_string(Verdict v);

// The outcome of a whole audit (docs/pass-rule.md, "Outcome"): Fail if any case failed (an
// attention case, or a decode case: tools/decode_audit.hpp); else NothingJudged if no kernel
// output was judged (no case matched, or every matched case was rejected or only checked for
// refusal, C13, and no decode case passed); else Pass.
enum class AuditOutcome { Pass, Fail, NothingJudged };
std::string_view to_string(AuditOutcome o);  // "pass", "fail", "nothing_judged"

struct AuditOptions {
  std::vector<numerics::Rounding> modes{std::begin(numerics::kAllRoundings), std::end(numerics::kAllRoundings)};
  std::string case_filter;  // ECMAScript regex searched in case ids; empty: every case
  bool matrix = true;       // run the default matrix
  bool handed = true;       // run C01–C14
  bool tiles = true;        // run the shapes around the peers' query tiles (tile_cases)
  bool production = false;  // run the kernel's production cases (tools/audit_production_cases.hpp), sampled
  // The kernel audited: an adapter name (adapters/kernel_adapter.hpp, adapter_names()).
  std::string kernel = "attention-fwd";
  // Code object source (a file or a directory, as KernelAdapter::load takes it) for every mode;
  // empty: the adapter's default. A mode in `code_objects` uses that source instead.
  std::filesystem::path code_object_source;
  std::map<numerics::Rounding, std::filesystem::path> code_objects;
  std::ostream* progress = nullptr;  // one line per case and mode while running
  // Peer convention profile the outputs are judged under (reference/profiles.hpp, docs/profiles.md).
  std::string profile = "ours";
  // Run only the cases of this shard (tools/shard.hpp); nullopt: every matched case.
  std::optional<ShardSpec> shard;
  // Threads of each case's oracle (reference::ExactOptions::threads; 0: the hardware's). Its
  // result does not depend on them: each row is evaluated alone.
  unsigned oracle_threads = 0;
};

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

// What a shard of a sharded audit owns (tools/shard.hpp; docs/ci.md, "Shards and merged reports").
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
  int cases_passed = 0, cases_failed = 0, cases_rejected = 0;
  // Judged rows of sampled production cases (CaseResult::rows_total > 0): a seeded sample of their
  // query rows judged exactly, the others checked finite only (docs/pass-rule.md "Production cases").
  int cases_sampled = 0;
  std::int64_t o_judged = 0, lse_judged = 0;  // O elements and LSE values judged in all
  // Failures on rows of the definition's special classes (reference/conventions.hpp): the rows,
  // and the failed cases with at least one. Counted apart, never excused: those cases failed.
  std::int64_t convention_rows = 0;
  int cases_with_convention_rows = 0;
};

struct AuditResult {
  std::string executor;
  std::string kernel = "attention-fwd";  // adapter name
  std::string profile = "ours";           // reference/profiles.hpp, named in every report
  // The selection: --set and --cases as given (shards merge only when both agree).
  std::string set = "default", case_filter;
  std::optional<ShardInfo> shard;  // set for `audit --shard I/N`
  std::vector<AuditedCodeObject> code_objects;  // one per audited mode
  // Executor settings that may change results, e.g. {"schedule", "random"}, {"schedule_seed",
  // "7"}, {"transcendental_envelope_seed", "1"} for the simulator; written to the reports.
  std::vector<std::pair<std::string, std::string>> executor_settings;
  // What the executor runs on (device::Executor::describe: the HIP device, driver, ROCm and
  // clocks, or the simulator's host); report.json "executor_description", report.md's header.
  device::Description executor_description;
  std::string build_hip;  // the HIP this build was made with (device::build_hip(); report.json "build_hip")
  std::vector<CaseResult> rows;
  double seconds = 0;
  // Mutation testing of the verifier run with the audit (tools/mutants.hpp); empty if skipped.
  std::optional<MutantsResult> mutation;
  std::string mutation_not_run = "--no-mutants";  // why `mutation` is empty
  // The decode cases and the decode kill matrix (tools/decode_audit.hpp); empty if not run.
  std::optional<DecodeAuditResult> decode;
  std::string decode_not_run = "not requested";  // why `decode` is empty
  int count(Verdict v) const;
  bool ok() const { return count(Verdict::Fail) == 0; }  // no case failed (judged or not)
  AuditCounts counts() const;
  AuditOutcome outcome() const;
  // One line on why nothing was judged ("no case matched", ...); empty unless NothingJudged.
  std::string nothing_judged_reason() const;
};

// What the executor's hazard policy found in the launches since the last call: a one-line
// summary ("" if nothing), if a site changed the output the failure line
// (tools/hazard_option.hpp hazard_failure), and the sites themselves.
struct CaseHazards {
  std::string summary, failure;
  std::vector<simulator::HazardViolation> sites;
};

// One worker of the audit: an executor of its own and the callbacks reading that executor's
// state, both optional: `wave_instructions` of its last run, `hazards` since the last call.
struct AuditWorker {
  device::Executor* executor = nullptr;
  std::function<std::uint64_t()> wave_instructions;
  std::function<CaseHazards()> hazards;
};

// Runs the cases on the workers, one thread per worker (one worker: on the calling thread, in
// case order, as before --jobs). A case — the oracle once, then every mode — runs on one worker,
// which takes the next case when it is done (tools/case_jobs.hpp; several workers take the
// costliest cases first, by B*Hq*Sq*Sk*D, so that no long case runs alone at the end); each
// worker has its own adapter, loaded like the first. The rows come back in case order and the
// progress lines count finished rows ("case k of n"), so everything but the times is the same
// for any number of workers. A kernel run that throws is a failed row. Throws
// std::runtime_error (one line) before running any case if a code object cannot be read or
// parsed, lacks a kernel, or records a mode other than the one it is audited for
// (adapters/code_object_mode.hpp); std::regex_error for a bad case_filter; std::invalid_argument
// for no worker; and the oracle's error, if it throws, for the first such case in the order the
// cases are taken (case order for one worker).
AuditResult run_audit(const AuditOptions& options, const std::vector<AuditWorker>& workers);
// The same on one executor.
AuditResult run_audit(const AuditOptions& options, device::Executor& executor,
                      const std::function<std::uint64_t()>& wave_instructions = {},
                      const std::function<CaseHazards()>& hazards = {});

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

// Writes <dir>/report.json, <dir>/report.md and <dir>/report.html (tools/report_html.hpp; each to a temporary file first, renamed when
// complete, so a failed write never leaves a file that looks complete). Throws
// std::runtime_error naming the path on failure.
void write_reports(const AuditResult& result, const std::filesystem::path& dir);

}  // namespace cdna::tools
