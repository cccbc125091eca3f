#include "audit/output/summary_line.hpp"

#include <algorithm>
#include <cstdio>

namespace cdna::audit {

void RunSummary::start(std::string subcommand, bool verdictless) {
  subcommand_ = std::move(subcommand);
  verdictless_ = verdictless;
  fields_.clear();
}

void RunSummary::set(const std::string& key, const std::string& value) {
  std::string v = value.empty() ? "-" : value;
  std::replace(v.begin(), v.end(), ' ', '_');  // one token per field, for grep and awk
  for (auto& [k, old] : fields_)
    if (k == key) {
      old = std::move(v);
      return;
    }
  fields_.emplace_back(key, std::move(v));
}

const char* summary_word(int exit_code, bool verdictless) {
  if (exit_code == 0) return verdictless ? "OK" : "PASS";
  if (exit_code == 1) return "FAIL";
  return "NOTHING JUDGED";
}

std::string RunSummary::line(int exit_code, double seconds) const {
  const char* word = nothing_judged_ ? "NOTHING JUDGED" : summary_word(exit_code, verdictless_);
  std::string s = "cdna-verify summary: " + subcommand_ + " " + word;
  for (const auto& [k, v] : fields_) s += " " + k + "=" + v;
  char t[32];
  std::snprintf(t, sizeof t, "%.1f", seconds);
  return s + " exit=" + std::to_string(exit_code) + " seconds=" + t;
}

RunSummary& summary() {
  static RunSummary s;
  return s;
}

}  // namespace cdna::audit
