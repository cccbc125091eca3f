// `cdna-verify device`: the executor's description (device::Executor::describe) — what ci/hardware
// prints first and checks (docs/ci.md "On a gfx942 runner: ci/hardware").
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace cdna::tools {

class DeviceCommand {
 public:
  explicit DeviceCommand(CLI::App& app);
  bool parsed() const { return cmd_->parsed(); }
  // Exit 0 with the description; hip: 2 when the devices are not gfx942, 3 when there is none.
  int run();

 private:
  CLI::App* cmd_ = nullptr;
  std::string executor_ = "hip";
};

}  // namespace cdna::tools
