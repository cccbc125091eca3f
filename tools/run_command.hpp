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
  // Exit code 0 pass, 1 fail; bad input or a problem past a limit throws one line (exit 2), a
  // fault of the kernel on the simulator simulator::KernelFault (exit 1).
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
  std::string max_memory_;  // "": half of MemAvailable (audit/run/run_estimate.hpp)
  // 2^36 multiply-adds: about 7e10, minutes on the simulator and the oracle at the measured rates
  // (docs/ci.md "Fail fast"), far past every shape of the audit.
  double max_work_ = 0x1p36;
  bool quiet_ = false;
};

}  // namespace cdna::tools
