// The executor named on the command line (`--executor auto|simulator|hip`), shared by the
// subcommands that run kernels.
#pragma once

#include <memory>
#include <string>

#include "device/executor.hpp"
#include "simulator/schedule/simulator_executor.hpp"

namespace cdna::audit {

struct ChosenExecutor {
  std::unique_ptr<device::Executor> executor;
  simulator::SimulatorExecutor* sim = nullptr;  // set when the simulator runs
};

// "auto" takes a gfx942 device through the HIP runtime if there is one and says on stderr, once
// per process and not under --quiet, that it falls back to the simulator otherwise; "hip" throws ExecutorUnavailable (audit/output/exit_codes.hpp: why there
// is no device) instead of falling back; "simulator" takes the simulator.
ChosenExecutor choose_executor(const std::string& name);

// --quiet of the subcommand (main sets it): the fall-back note is not printed. Errors still are.
void set_executor_notes_quiet(bool quiet);

}  // namespace cdna::audit
