// `cdna-verify lint CODE_OBJECT [KERNEL]`: the static hazard check (audit/lint/lint.hpp) of every
// kernel of a gfx942 code object, or of one. Prints one line per finding and per path not
// followed, then a summary. Exit 0: no finding and every path followed; 1: findings or paths
// not followed; 2: bad input (unreadable or not a gfx942 code object, unknown kernel).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace cdna::tools {

class LintCommand {
 public:
  explicit LintCommand(CLI::App& app);
  bool parsed() const;
  int run();

 private:
  CLI::App* lint_ = nullptr;
  std::string code_object_, kernel_;
};

}  // namespace cdna::tools
