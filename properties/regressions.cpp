#include "properties/regressions.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "golden/golden_file.hpp"
#include "golden/safetensors.hpp"

namespace cdna::properties {
namespace {

std::string fnv1a64_hex(std::span<const std::byte> bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::byte b : bytes) h = (h ^ static_cast<std::uint64_t>(b)) * 0x100000001b3ull;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string one_line(std::string s, std::size_t max = 400) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  if (s.size() > max) s = s.substr(0, max) + "...";
  return s;
}

}  // namespace

std::filesystem::path regression_dir() {
  if (const char* dir = std::getenv("CDNA_REGRESSION_DIR"); dir && *dir) return dir;
  return CDNA_REGRESSION_SOURCE_DIR;
}

std::filesystem::path write_regression(const std::filesystem::path& dir, const std::string& property,
                                       const PropertyCase& c, const std::string& failure,
                                       const std::string& code_object) {
  if (!all_checks().contains(property)) throw std::invalid_argument("unknown property '" + property + "'");
  golden::GoldenFile g;
  g.case_id = "regression/" + property;
  g.description = "shrunk failing case of property " + property;
  g.problem = c.problem;
  g.mode = c.mode;
  g.provenance = case_metadata(c);
  g.provenance["seeds"] = c.seeds;
  g.provenance["inputs"] = c.values;
  g.provenance["executor"] = "none";
  g.provenance["kernel"] = "not stored: re-run by the property (properties/README.md)";
  g.provenance["property"] = property;
  g.provenance["failure"] = one_line(failure);
  g.provenance["failed_code_object"] = code_object;
  const char* rc_params = std::getenv("RC_PARAMS");
  g.provenance["rc_params"] = rc_params ? rc_params : "";
  golden::compute_reference_values(g);
  const golden::SafetensorsFile file = golden::to_safetensors(g);
  const std::vector<std::byte> bytes = golden::serialize_safetensors(file);
  std::filesystem::create_directories(dir);
  const auto path = dir / (property + "-" + fnv1a64_hex(bytes) + ".safetensors");
  golden::write_file_atomically(path, bytes);
  return path;
}

Regression read_regression(const std::filesystem::path& path) {
  const golden::GoldenFile g = golden::read_golden(path);
  Regression r;
  r.path = path;
  const auto& m = g.provenance;
  const auto property = m.find("property");
  if (property == m.end() || !all_checks().contains(property->second)) {
    throw std::invalid_argument(path.string() + ": metadata 'property' is missing or names no property");
  }
  r.property = property->second;
  r.failure = m.contains("failure") ? m.at("failure") : "";
  r.c.problem = g.problem;
  r.c.mode = g.mode;
  r.c.seeds = m.at("seeds");
  r.c.values = m.at("inputs");
  try {
    apply_case_metadata(m, r.c);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(path.string() + ": " + e.what());
  }
  return r;
}

std::vector<std::filesystem::path> regression_files(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  if (!std::filesystem::is_directory(dir)) return files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().extension() == ".safetensors") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string rerun_regression(const CheckContext& ctx, const Regression& r) {
  std::string f = all_checks().at(r.property)(ctx, r.c);
  // nonfinite_inputs judges its clean case by the verdict itself; the verdict cannot judge its
  // NaN/inf rows.
  if (f.empty() && r.property != "oracle_verdict" && r.property != "nonfinite_inputs") {
    f = check_oracle_verdict(ctx, r.c);
  }
  return f;
}

}  // namespace cdna::properties
