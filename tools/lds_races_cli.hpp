// `--lds-races error|report|off` of `sim`, `run` and `audit` (simulator/checks/lds_race.hpp, simulator/README.md
// "LDS races"), and the report lines of LdsRaces::Report.
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "simulator/checks/lds_race.hpp"

namespace cdna::tools {

inline void add_lds_races_option(CLI::App* cmd, std::string& value) {
  cmd->add_option("--lds-races", value,
                  "Simulator LDS race check: error (a race stops the run), report (each race listed on stderr, "
                  "the run goes on) or off. A race: two waves of a workgroup access one LDS byte with no "
                  "s_barrier between them, one of them writing, not both atomically")
      ->check(CLI::IsMember({"error", "report", "off"}))
      ->capture_default_str();
}

// One "cdna-verify: LDS race (reported, not an error): ..." line per entry; returns the number
// of entries.
inline std::size_t print_lds_races(std::ostream& out, const std::vector<simulator::LdsRace>& races) {
  for (const auto& r : races) out << "cdna-verify: LDS race (reported, not an error): " << simulator::describe(r) << "\n";
  return races.size();
}

}  // namespace cdna::tools
