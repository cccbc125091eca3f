// The `--hazards error|report|differential` option of `sim`, `run`, `audit`, `compare` and
// `crosscheck` (simulator/checks/hazard_policy.hpp; simulator/README.md "Hazard policy"). What the
// recorded violations mean for a verdict, and how they are printed: audit/run/hazard_verdict.hpp.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "simulator/checks/hazard_policy.hpp"
#include "simulator/schedule/simulator_executor.hpp"

namespace cdna::tools {

// Adds --hazards to `cmd`, stored in `policy` ("error" by default); another value is a one-line
// input error naming the three policies.
void add_hazards_option(CLI::App* cmd, std::string& policy);
// Sets the simulator's policy from the option's text.
void apply_hazards_option(simulator::SimulatorExecutor& sim, const std::string& policy);
}  // namespace cdna::tools
