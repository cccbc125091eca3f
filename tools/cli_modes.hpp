// Parsing of the --modes option shared by the `audit` and `golden` subcommands.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "numerics/bf16.hpp"

namespace cdna::tools {

// "rtne"/"rtna"/"rtz" names to rounding modes; throws CLI::ValidationError (one line, naming
// --modes and the accepted names) on an unknown name, and on a mode named twice (a second run of
// one mode would write its files twice and count its cases twice).
inline std::vector<numerics::Rounding> parse_modes(const std::vector<std::string>& names) {
  std::vector<numerics::Rounding> modes;
  for (const auto& n : names) {
    auto m = numerics::parse_rounding(n);
    if (!m) throw CLI::ValidationError("--modes", "unknown rounding mode '" + n + "'; expected rtne, rtna or rtz");
    for (numerics::Rounding seen : modes)
      if (seen == *m) throw CLI::ValidationError("--modes", "'" + n + "' is given twice; name each mode once");
    modes.push_back(*m);
  }
  return modes;
}

}  // namespace cdna::tools
