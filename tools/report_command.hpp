// `cdna-verify report merge --out DIR SHARD_DIR...` on the command line: the shards' reports read
// back (audit/report/audit_json.hpp), joined (audit/report/report_merge.hpp) and written again
// (docs/ci.md, "Shards and merged reports").
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace cdna::tools {

class ReportCommand {
 public:
  explicit ReportCommand(CLI::App& app);
  bool parsed() const { return cmd_->parsed(); }
  // Exit code as the audit's: 0 PASS, 1 FAIL, 2 NOTHING JUDGED or bad input (thrown, one line).
  int run();

 private:
  CLI::App* cmd_ = nullptr;
  CLI::App* merge_ = nullptr;
  std::string out_dir_;
  std::vector<std::string> shard_dirs_;
  bool quiet_ = false;
};

}  // namespace cdna::tools
