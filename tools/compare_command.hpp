// `cdna-verify compare A B` (docs/compare.md): two kernels, through their adapters, on the
// audit's cases both take, element by element; claims held or broken. Exit 0: every claim held
// and at least one problem was compared; 1: a claim broke or a kernel failed to run; 2: bad
// input, or no problem was taken by both kernels (NOTHING COMPARED, never a pass).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cdna::tools {

class CompareCommand {
 public:
  explicit CompareCommand(CLI::App& app);
  bool parsed() const;
  int run();

 private:
  CLI::App* cmd_ = nullptr;
  std::vector<std::string> code_object_a_, code_object_b_;  // DIR|FILE or MODE=PATH (tools/code_object_option.hpp)
  std::string kernel_a_, kernel_b_, cases_, set_ = "all", executor_ = "auto",
      hazards_;  // "": error when both kernels are ours, else report (compare judges values as written)
  std::vector<std::string> modes_{"rtne", "rtna", "rtz"};
  std::uint64_t ulp_ = 1, schedule_seed_ = 1;
  std::optional<std::string> out_;
  bool quiet_ = false, no_shrink_ = false;
  std::string profile_ = "ours";  // tools/profile_option.hpp
};

}  // namespace cdna::tools
