#include "tools/device_command.hpp"

#include <iostream>

#include "simulator/schedule/simulator_executor.hpp"
#include "audit/output/device_report.hpp"

namespace cdna::tools {

using namespace cdna::audit;  // the engine (audit/README.md)

DeviceCommand::DeviceCommand(CLI::App& app) {
  cmd_ = app.add_subcommand(
      "device",
      "Print the executor's description: for hip the first gfx942 device (name, gcnArchName, PCI bus id, CUs, "
      "clocks in kHz, driver, HIP runtime and ROCm versions), for simulator the host. Exit 0; hip: 2 if the HIP "
      "devices are not gfx942, 3 if there is no device.");
  cmd_->add_option("--executor", executor_, "hip or simulator")
      ->check(CLI::IsMember({"hip", "simulator"}))
      ->capture_default_str();
}

int DeviceCommand::run() {
  if (executor_ == "hip") return report_hip_device(std::cout, std::cerr);
  print_description(std::cout, simulator::SimulatorExecutor().describe());
  return 0;
}

}  // namespace cdna::tools
