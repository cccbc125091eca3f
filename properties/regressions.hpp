// Regression files: a property's shrunk failing case written as a golden file (golden/
// golden_file.hpp: inputs, exact result, bound and floor) whose metadata also names the property,
// the failure, the RapidCheck parameters and the case's layout/lengths/seed (case_* keys), so
// that ctest re-runs it through the same property from then on (properties/README.md).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "properties/checks.hpp"
#include "properties/property_case.hpp"

namespace cdna::properties {

// $CDNA_REGRESSION_DIR if set, else properties/regressions/ of the source tree.
std::filesystem::path regression_dir();

// Writes <dir>/<property>-<16 hex digits of FNV-1a-64 of the file's bytes>.safetensors
// (creating dir) and returns its path. `code_object` names what failed (a path or "correct").
// Throws std::invalid_argument for an unknown property or an invalid problem.
std::filesystem::path write_regression(const std::filesystem::path& dir, const std::string& property,
                                       const PropertyCase& c, const std::string& failure,
                                       const std::string& code_object);

struct Regression {
  std::filesystem::path path;
  std::string property;
  std::string failure;  // what failed when it was written
  PropertyCase c;
};
// Throws golden::SafetensorsError or std::invalid_argument (one line naming the file).
Regression read_regression(const std::filesystem::path& path);

// The *.safetensors files of dir, sorted; empty if dir does not exist.
std::vector<std::filesystem::path> regression_files(const std::filesystem::path& dir);

// Re-runs the stored case through its property and, unless that is oracle_verdict or
// nonfinite_inputs (which judges its clean case by the verdict itself), the oracle verdict too:
// "" if both hold, else the first failure.
std::string rerun_regression(const CheckContext& ctx, const Regression& r);

}  // namespace cdna::properties
