// `cdna-verify crosscheck`: the simulator-vs-hardware report (docs/ci.md "Simulator vs hardware").
// Every golden file (default: the committed set golden/set) is run by each kernel asked for on the
// CDNA3 simulator (the reference) and on another executor (`--executor hip` by default; the
// simulator with other settings, e.g. --envelope-seed, to test the command without a device), and
// the two outputs are compared bit for bit.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "tools/sim_settings.hpp"

namespace cdna::tools {

class CrosscheckCommand {
 public:
  explicit CrosscheckCommand(CLI::App& app);
  bool parsed() const { return cmd_->parsed(); }
  // Exit code 0 every compared case bitwise equal, 1 a case differs or a run failed, 2 nothing
  // compared; bad input throws one line (exit 2); no HIP device for --executor hip throws
  // ExecutorUnavailable (exit 3).
  int run();

 private:
  CLI::App* cmd_ = nullptr;
  std::string path_;
  std::string out_dir_ = "crosscheck";
  std::string executor_ = "hip";
  std::string cases_;
  std::vector<std::string> kernels_;
  bool quiet_ = false;
  SimSettings sim_;
};

}  // namespace cdna::tools
