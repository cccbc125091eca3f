// `cdna-verify coverage PATH...`: the simulator's instruction coverage (audit/lint/isa_coverage.hpp)
// of gfx942 code objects — files, or folders searched for *.co and *.hsaco — per code object: how
// many of its instructions decode and execute, the refused ones by reason with the first, and
// (--forms) every instruction form with its count. Exit 0: every instruction of every code
// object decodes; 1: some do not; 2: bad input (a path that is not there, a file that is not a
// gfx942 code object, a folder without code objects: nothing judged).
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace cdna::tools {

class CoverageCommand {
 public:
  explicit CoverageCommand(CLI::App& app);
  bool parsed() const;
  int run();

 private:
  CLI::App* cmd_ = nullptr;
  std::vector<std::string> paths_;
  std::optional<std::string> json_;
  bool forms_ = false;
};

}  // namespace cdna::tools
