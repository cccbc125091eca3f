// Simulator settings shared by `audit`, `run` and `decode`: the wave schedule, the transcendental
// envelope, the hazard, LDS-race and memory-model policies (simulator/README.md).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "audit/run/executor_choice.hpp"

namespace cdna::tools {

struct SimSettings {
  std::string schedule = "round-robin";
  std::optional<std::uint64_t> schedule_seed;
  std::optional<std::uint64_t> envelope_seed;
  std::string hazards;  // "": audit::default_hazard_policy (audit/run/hazard_verdict.hpp)
  std::string lds_races = "error";
  std::string memory_model = "coherent";
  std::optional<unsigned> threads;  // SchedulerOptions::threads; results do not depend on it
  bool any() const {
    return schedule != "round-robin" || schedule_seed || envelope_seed || !hazards.empty() || lds_races != "error" ||
           memory_model != "coherent" || threads;
  }
};

// Registers --schedule, --schedule-seed, --envelope-seed, --hazards, --lds-races, --memory-model, --threads.
void add_threads_option(CLI::App* cmd, std::optional<unsigned>& threads);
void add_sim_options(CLI::App* cmd, SimSettings& s);

// Applies `given` to the chosen executor; returns the settings for the report. Throws
// CLI::ValidationError when they are given but the executor is not the simulator.
std::vector<std::pair<std::string, std::string>> apply_sim_settings(const audit::ChosenExecutor& c, const SimSettings& given,
                                                                     const std::string& kernel);

}  // namespace cdna::tools
