#include "tools/hazard_option.hpp"

namespace cdna::tools {

void add_hazards_option(CLI::App* cmd, std::string& policy) {
  cmd->add_option("--hazards", policy,
                  "Simulator wait-state hazards: error (stop at the first violation; the default, except that audit and "
                  "run default to differential for a peer --kernel), report (list every "
                  "violation and go on with the new value), differential (run again with each hazarded read seeing "
                  "the register's value from before its producer wrote it; a violation that changes no output bit "
                  "is benign, one that does is an error naming its pc; simulator/README.md \"Hazard policy\")")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            if (simulator::parse_hazard_policy(text)) return "";
            return "'" + text + "' is not a hazard policy; expected error, report or differential";
          },
          "POLICY"));
}

void apply_hazards_option(simulator::SimulatorExecutor& sim, const std::string& policy) {
  sim.options().hazard_policy = simulator::parse_hazard_policy(policy).value_or(simulator::HazardPolicy::Error);  // "": error
}

}  // namespace cdna::tools
