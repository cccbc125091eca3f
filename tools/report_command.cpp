#include "tools/report_command.hpp"

#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "audit/output/exit_codes.hpp"
#include "audit/output/summary_line.hpp"
#include "audit/report/audit_json.hpp"
#include "audit/report/report_merge.hpp"

namespace cdna::tools {

using namespace cdna::audit;  // the engine (audit/README.md)

namespace {
std::string quoted(const std::filesystem::path& p) { return "'" + p.string() + "'"; }
}  // namespace

ReportCommand::ReportCommand(CLI::App& app) {
  cmd_ = app.add_subcommand("report", "Work on audit reports: merge the reports of shards (docs/ci.md)");
  cmd_->require_subcommand(1);
  merge_ = cmd_->add_subcommand(
      "merge",
      "Merge the report folders of the N shards of one audit (`audit --shard I/N --out DIR`) into one report.json, "
      "report.md and report.html, equal to the unsharded run's but for measured times (docs/ci.md). Refuses (one "
      "line, exit 2) a missing or repeated shard, shards of different runs, a case in two shards, a malformed or "
      "edited report.json. Exit 0 PASS, 1 FAIL, 2 NOTHING JUDGED, as the audit.");
  merge_->add_option("--out", out_dir_, "Directory for the merged report.json, report.md and report.html")->required();
  merge_->add_option("shard_dirs", shard_dirs_, "The shards' report folders (each holding report.json), any order")
      ->required();
  merge_->add_flag("--quiet", quiet_, "No notes");
}

int ReportCommand::run() {
  summary().start("report merge");  // printed by main whatever the exit path (audit/output/summary_line.hpp)
  const std::filesystem::path out(out_dir_);
  std::vector<ShardReport> shards;
  for (const auto& d : shard_dirs_) {
    std::error_code ec;
    if (std::filesystem::equivalent(d, out, ec))
      throw std::runtime_error("--out " + quoted(out) + " is also a shard folder; merge into another folder");
    shards.push_back({d, read_audit_report(d)});
  }
  const AuditResult merged = merge_shards(shards);
  write_reports(merged, out);
  std::cout << "merged " << shards.size() << " shards: " << outcome_line(merged) << "\n"
            << "reports: " << (out / "report.json").string() << ", " << (out / "report.md").string() << ", "
            << (out / "report.html").string() << "\n";
  const AuditOutcome o = merged.outcome();
  const AuditCounts counts = merged.counts();
  summary().set("shards", static_cast<std::uint64_t>(shards.size()));
  summary().set("cases", static_cast<std::uint64_t>(merged.rows.size()));
  summary().set("judged", static_cast<std::uint64_t>(counts.cases_judged));
  summary().set("failed", static_cast<std::uint64_t>(counts.cases_failed));
  if (o == AuditOutcome::NothingJudged) {
    std::cerr << "cdna-verify: error: " << merged.nothing_judged_reason() << "; the outcome is NOTHING JUDGED, not a pass\n";
    return kExitBadInput;
  }
  return o == AuditOutcome::Pass ? kExitPass : kExitFail;
}

}  // namespace cdna::tools
