// Parsing of the code-object options shared by `audit --code-object` and `compare
// --code-object-a/-b`: DIR|FILE for every mode, or MODE=PATH for one mode (repeatable).
#pragma once

#include <CLI/CLI.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "numerics/bf16.hpp"

namespace cdna::tools {

struct CodeObjectChoice {
  std::filesystem::path source;  // DIR|FILE for every mode; empty: the adapter's default
  std::map<numerics::Rounding, std::filesystem::path> per_mode;  // MODE=PATH entries
};

// `items` as given to `option` (e.g. "--code-object"), for a run of `modes`. Throws
// CLI::ValidationError (one line naming the option) for two DIR|FILE items, an item that is
// neither, and a MODE=PATH whose mode the run does not cover (it would never be run).
inline CodeObjectChoice parse_code_object_option(const std::vector<std::string>& items,
                                                 const std::vector<numerics::Rounding>& modes, const std::string& option) {
  CodeObjectChoice c;
  for (const auto& item : items) {
    const auto eq = item.find('=');
    const auto mode = eq == std::string::npos ? std::nullopt : numerics::parse_rounding(item.substr(0, eq));
    if (!mode && eq == std::string::npos) {
      if (!c.source.empty()) throw CLI::ValidationError(option, "give one DIR|FILE for every mode, or MODE=PATH per mode");
      c.source = item;  // a directory of the kernel's code objects, or one file
      continue;
    }
    if (!mode)
      throw CLI::ValidationError(option, "'" + item + "' is not DIR|FILE or MODE=PATH with MODE rtne, rtna or rtz");
    if (std::find(modes.begin(), modes.end(), *mode) == modes.end()) {
      // Silently running the built code object instead would report on a file never run.
      throw CLI::ValidationError(option, "'" + item + "' names mode " + std::string(numerics::to_string(*mode)) +
                                             ", which --modes does not run; add it to --modes");
    }
    c.per_mode[*mode] = item.substr(eq + 1);
  }
  return c;
}

}  // namespace cdna::tools
