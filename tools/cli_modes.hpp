// Parsing of the --modes option shared by the `audit` and `golden` subcommands.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "numerics/bf16.hpp"

namespace cdna::tools {

// "rtne"/"rtna"/"rtz" names to rounding modes; throws CLI::ValidationError (one line, naming
// --modes and the accepted names) on an unknown name.
inline std::vector<numerics::Rounding> parse_modes(const std::vector<std::string>& names) {
  std::vector<numerics::Rounding> modes;
  for (const auto& n : names) {
    auto m = numerics::parse_rounding(n);
    if (!m) throw CLI::ValidationError("--modes", "unknown rounding mode '" + n + "'; expected rtne, rtna or rtz");
    modes.push_back(*m);
  }
  return modes;
}

}  // namespace cdna::tools
