#include "tools/hazard_option.hpp"

#include <map>

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

std::string hazard_lines(const std::vector<simulator::HazardViolation>& v) {
  std::string s;
  for (const auto& x : v) s += "hazard: kernel '" + x.kernel + "' " + simulator::describe(x) + "\n";
  return s;
}

std::string hazard_summary(const std::vector<simulator::HazardViolation>& v) {
  if (v.empty()) return "none";
  std::map<std::string, std::size_t> by;
  for (const auto& x : v) ++by[std::string(simulator::to_string(x.verdict))];
  std::string s = std::to_string(v.size()) + (v.size() == 1 ? " site (" : " sites (");
  bool first = true;
  for (const auto& [k, n] : by) {
    s += (first ? "" : ", ") + std::to_string(n) + " " + k;
    first = false;
  }
  return s + ")";
}

std::string hazard_failure(const std::vector<simulator::HazardViolation>& v) {
  std::size_t n = 0;
  const simulator::HazardViolation* first = nullptr;
  for (const auto& x : v) {
    if (x.verdict != simulator::HazardViolation::Verdict::ChangesOutput &&
        x.verdict != simulator::HazardViolation::Verdict::NotJudged)
      continue;
    ++n;
    if (!first) first = &x;
  }
  if (n == 0) return "";
  return "the output depends on " + std::to_string(n) + " wait-state hazard site(s) (differential): kernel '" +
         first->kernel + "' " + simulator::describe(*first);
}

}  // namespace cdna::tools
