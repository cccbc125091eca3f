// The `--hazards error|report|differential` option of `sim`, `run` and `audit`, and how the
// wait-state violations the simulator recorded are printed (simulator/checks/hazard_policy.hpp;
// simulator/README.md "Hazard policy").
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <utility>
#include <vector>

#include "simulator/checks/hazard_policy.hpp"
#include "simulator/schedule/simulator_executor.hpp"

namespace cdna::tools {

// Adds --hazards to `cmd`, stored in `policy` ("error" by default); another value is a one-line
// input error naming the three policies.
void add_hazards_option(CLI::App* cmd, std::string& policy);
// Sets the simulator's policy from the option's text.
void apply_hazards_option(simulator::SimulatorExecutor& sim, const std::string& policy);
// One line per violation site ("hazard: <describe>"), empty when there is none.
std::string hazard_lines(const std::vector<simulator::HazardViolation>& v);
// For executor_settings: "none", or "N sites (B benign, C changes the output, ...)".
std::string hazard_summary(const std::vector<simulator::HazardViolation>& v);
// "" when no site changes the output or went unjudged under the differential policy; else one
// line: "the output depends on N wait-state hazard site(s) (differential): <first site>".
std::string hazard_failure(const std::vector<simulator::HazardViolation>& v);

}  // namespace cdna::tools
