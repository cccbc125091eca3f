// `cdna-verify audit` on the command line: its options, the executor and simulator settings, the
// decode cases and the kill matrix around audit::run_audit (audit/audit.hpp), the reports.
#pragma once

#include <CLI/CLI.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "tools/shard_option.hpp"
#include "tools/sim_settings.hpp"

namespace cdna::tools {

// Help of --kernel (audit and run).
extern const char* const kKernelOptionHelp;

class AuditCommand {
 public:
  explicit AuditCommand(CLI::App& app);
  bool parsed() const { return cmd_->parsed(); }
  // Exit code 0 PASS, 1 FAIL, 2 NOTHING JUDGED; bad input throws one line (exit 2). With --junit,
  // the file is checked writable first and written at the end whatever the outcome (an <error>
  // testcase if the run throws; audit/output/junit.hpp).
  int run();

 private:
  CLI::App* cmd_ = nullptr;
  CLI::Option* modes_option_ = nullptr;  // not given: the modes the kernel is built in
  std::string out_dir_ = "report";
  std::vector<std::string> modes_{"rtne", "rtna", "rtz"};
  std::string cases_, set_ = "default", executor_ = "auto";
  std::vector<std::string> code_objects_;
  bool quiet_ = false;
  bool no_mutants_ = false;
  std::string kernel_ = "attention-fwd";
  SimSettings sim_;
  std::optional<unsigned> jobs_;  // --jobs (tools/audit_workers.hpp); nullopt: the usable cores
  std::string profile_ = "ours";
  std::string junit_;  // --junit FILE (audit/report/audit_junit.hpp)
  std::chrono::system_clock::time_point started_;
  ShardOption shard_;

  int run_checked();
};

}  // namespace cdna::tools
