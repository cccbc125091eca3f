// `cdna-verify mutants`: the kill matrix of the verifier (audit/mutants/mutants.hpp,
// docs/mutation-testing.md) on the command line: its options, the executor, the table and reports.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "device/attention_launcher.hpp"  // CDNA_CODE_OBJECT_DIR

namespace cdna::tools {

// Registers the `mutants` subcommand on `app`.
class MutantsCommand {
 public:
  explicit MutantsCommand(CLI::App& app);
  bool parsed() const;
  // Runs it: prints the kill matrix, writes the reports; exit code 0 if every mutant is killed
  // by our verdict and the control passes every check of ours, else 1. Bad input throws (one
  // line), which main turns into exit code 2.
  int run();

 private:
  CLI::App* sub_ = nullptr;
  std::string out_dir_ = "report";
  std::string filter_;
  std::string executor_ = "auto";
  std::string code_object_dir_ = CDNA_CODE_OBJECT_DIR;
  bool quiet_ = false;
  bool features_ = false;  // --features: the CPU feature mutants only (audit/mutants/feature_mutants.hpp)
};

}  // namespace cdna::tools
