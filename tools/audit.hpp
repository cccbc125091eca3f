// `cdna-verify audit`: runs the default matrix and the handed cases on one executor, compares
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
#include "tools/audit_cases.hpp"
#include "tools/mutants.hpp"
#include "tools/rounding_audit.hpp"

namespace cdna::tools {

enum class Verdict { Pass, Fail, Rejected };
std::string_view to_string(Verdict v);

struct AuditOptions {
  std::vector<numerics::Rounding> modes{std::begin(numerics::kAllRoundings), std::end(numerics::kAllRoundings)};
  std::string case_filter;  // ECMAScript regex searched in case ids; empty: every case
  bool matrix = true;       // run the default matrix
  bool handed = true;       // run C01–C14
  // Code object per mode; a mode missing here uses device::attention_code_object(mode).
  std::map<numerics::Rounding, std::filesystem::path> code_objects;
  std::ostream* progress = nullptr;  // one line per case and mode while running
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
  double kernel_seconds = 0, oracle_seconds = 0;
  std::uint64_t wave_instructions = 0;  // simulator only; 0 on hardware
};

struct AuditResult {
  std::string executor;
  // Executor settings that may change results, e.g. {"schedule", "random"}, {"schedule_seed",
  // "7"}, {"transcendental_envelope_seed", "1"} for the simulator; written to the reports.
  std::vector<std::pair<std::string, std::string>> executor_settings;
  std::vector<CaseResult> rows;
  double seconds = 0;
  // Mutation testing of the verifier run with the audit (tools/mutants.hpp); empty if skipped.
  std::optional<MutantsResult> mutation;
  int count(Verdict v) const;
  bool ok() const { return count(Verdict::Fail) == 0; }
};

// `stats` (optional) returns the wave-instructions of the executor's last run.
AuditResult run_audit(const AuditOptions& options, device::Executor& executor,
                      const std::function<std::uint64_t()>& wave_instructions = {});

// The end-of-run table: case, mode, executor, max |err|, max err in bf16 ULPs, LSE err, verdict.
std::string summary_table(const AuditResult& result);

// Writes <dir>/report.json, <dir>/report.md and <dir>/report.html (tools/report_html.hpp; each to a temporary file first, renamed when
// complete, so a failed write never leaves a file that looks complete). Throws
// std::runtime_error naming the path on failure.
void write_reports(const AuditResult& result, const std::filesystem::path& dir);

}  // namespace cdna::tools
