// `cdna-verify run`: one attention problem with seeded randn inputs, kernel vs exact oracle.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tools/sim_settings.hpp"

namespace cdna::tools {

class RunCommand {
 public:
  explicit RunCommand(CLI::App& app);
  bool parsed() const { return cmd_->parsed(); }
  // Exit code 0 pass, 1 fail; bad input throws one line (exit 2).
  int run();

 private:
  CLI::App* cmd_ = nullptr;
  std::vector<std::int64_t> shape_;  // B, Sq, Sk, Hq, Hkv, D
  std::string mask_ = "none";
  std::string mode_ = "rtne";
  std::optional<float> scale_;
  std::uint64_t seed_ = 1;
  std::string code_object_;
  std::string kernel_ = "attention-fwd";
  std::string executor_ = "auto";
  SimSettings sim_;
};

}  // namespace cdna::tools
