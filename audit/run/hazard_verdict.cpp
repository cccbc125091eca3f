#include "audit/run/hazard_verdict.hpp"

#include <map>

namespace cdna::audit {

std::string default_hazard_policy(const std::string& kernel) { return kernel == "attention-fwd" ? "error" : "differential"; }

std::string crosscheck_hazard_policy(const std::string& kernel) { return kernel == "attention-fwd" ? "error" : "report"; }

std::string hazard_lines(const std::vector<simulator::HazardViolation>& v) {
  std::string s;
  for (const auto& x : v) s += "hazard: kernel '" + x.kernel + "' " + simulator::describe(x) + "\n";
  return s;
}

std::string hazard_summary(const std::vector<simulator::HazardViolation>& v) {
  if (v.empty()) return "none";
  std::map<std::string, std::size_t> by;
  for (const auto& x : v) ++by[x.llvm_only ? "LLVM only" : std::string(simulator::to_string(x.verdict))];
  std::string s = std::to_string(v.size()) + (v.size() == 1 ? " site (" : " sites (");
  bool first = true;
  for (const auto& [k, n] : by) {
    s += (first ? "" : ", ") + std::to_string(n) + " " + k;
    first = false;
  }
  return s + ")";
}

std::size_t documented_sites(const std::vector<simulator::HazardViolation>& v) {
  std::size_t n = 0;
  for (const auto& x : v) n += !x.llvm_only;
  return n;
}

std::size_t llvm_only_sites(const std::vector<simulator::HazardViolation>& v) { return v.size() - documented_sites(v); }

std::string hazard_verdict(const std::vector<simulator::HazardViolation>& v) {
  using V = simulator::HazardViolation::Verdict;
  if (v.empty()) return "none";
  bool reported = false, any = false;
  for (const auto& x : v) {
    if (x.llvm_only) continue;
    any = true;
    if (x.verdict == V::ChangesOutput || x.verdict == V::NotJudged) return "fails";
    reported = reported || x.verdict == V::Reported;
  }
  return !any ? "llvm-only" : reported ? "reported" : "benign";
}

std::string hazard_failure(const std::vector<simulator::HazardViolation>& v) {
  std::size_t n = 0;
  const simulator::HazardViolation* first = nullptr;
  for (const auto& x : v) {
    if (x.llvm_only) continue;  // never fails by itself
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

}  // namespace cdna::audit
