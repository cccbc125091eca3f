#include "audit/compare/compare_report.hpp"

#include <iomanip>
#include <sstream>

#include "audit/output/atomic_file.hpp"
#include "audit/output/shape_format.hpp"

namespace cdna::audit {
namespace {

std::string status_text(ProblemStatus s) {
  return s == ProblemStatus::Compared ? "compared" : s == ProblemStatus::Error ? "error" : "skipped";
}

nlohmann::json sites_json(const std::vector<DiffSite>& sites) {
  auto j = nlohmann::json::array();
  for (const auto& s : sites)
    j.push_back({{"b", s.b}, {"i", s.i}, {"h", s.h}, {"d", s.d}, {"a_bits", s.a_bits}, {"b_bits", s.b_bits},
                 {"text", s.text()}});
  return j;
}

nlohmann::json tensor_json(const TensorDiff& t) {
  return {{"elements", t.elements},
          {"finite_pairs", t.finite_pairs},
          {"ulp_histogram", t.histogram},
          {"max_ulps", t.max_ulps},
          {"max_site", sites_json(t.max_site)},
          {"beyond_claim", t.beyond},
          {"nan_vs_number", t.nan_vs_number},
          {"nan_bits_differ", t.nan_bits_differ},
          {"inf_mismatch", t.inf_mismatch},
          {"nonfinite_agree", t.nonfinite_agree},
          {"nan_vs_number_sites", sites_json(t.nan_vs_number_sites)},
          {"nan_bits_sites", sites_json(t.nan_bits_sites)},
          {"inf_sites", sites_json(t.inf_sites)}};
}

nlohmann::json determinism_json(const Determinism& d) {
  nlohmann::json j = {{"deterministic", d.deterministic()},
                      {"repeat_identical", d.repeat.identical()},
                      {"first_difference", d.first_difference()}};
  j["random_schedule_identical"] = d.random_schedule ? nlohmann::json(d.random_schedule->identical()) : nlohmann::json();
  return j;
}

// "  O   : 0 ULP 1234, 1 ULP 5, ... max 3; NaN vs number 0, NaN bits 0, inf 0"
void tensor_lines(std::ostringstream& o, const char* name, const TensorDiff& t, const char* unit) {
  o << name << " (" << t.finite_pairs << " pairs finite in both, " << unit << " ULPs):";
  for (std::size_t k = 0; k < kDiffBins; ++k) o << "  " << diff_bin_labels()[k] << ": " << t.histogram[k];
  o << "  max " << t.max_ulps;
  if (!t.max_site.empty()) o << " at " << t.max_site.front().text();
  o << "\n  non-finite: " << t.nonfinite_agree << " agree; NaN vs number " << t.nan_vs_number << ", NaN bits differ "
    << t.nan_bits_differ << ", inf disagreements " << t.inf_mismatch << "\n";
  for (const auto* sites : {&t.nan_vs_number_sites, &t.nan_bits_sites, &t.inf_sites})
    for (const auto& s : *sites) o << "    " << s.text() << "\n";
}

}  // namespace

std::string compare_outcome_line(const CompareResult& r) {
  int held = 0;
  for (const auto& c : r.claims) held += c.held();
  const CompareOutcome out = r.outcome();
  const std::string line = out == CompareOutcome::Held        ? "HELD"
                           : out == CompareOutcome::Broken    ? "BROKEN"
                           : out == CompareOutcome::RunFailed ? "RUN FAILED (not a pass)"
                                                              : "NOTHING COMPARED";
  return line + ": " + std::to_string(held) + " of " + std::to_string(r.claims.size()) + " claim(s) held over " +
         std::to_string(r.count(ProblemStatus::Compared)) + " problem(s) compared (" + std::to_string(r.o_total.elements) +
         " O elements), " + std::to_string(r.count(ProblemStatus::Skipped)) + " skipped, " +
         std::to_string(r.count(ProblemStatus::Error)) + " failed to run";
}

std::string compare_table(const CompareResult& r) {
  std::ostringstream o;
  o << "A = " << r.kernel_a << ", B = " << r.kernel_b << ", executor " << r.executor << ", profile " << r.profile << "\n";
  o << std::left << std::setw(34) << "case" << std::setw(6) << "mode" << std::setw(26) << "shape" << std::right
    << std::setw(8) << "maxULP" << std::setw(8) << ">N" << std::setw(8) << "NaN/inf" << "  det A/B  status\n";
  for (const auto& p : r.problems) {
    o << std::left << std::setw(34) << p.case_id << std::setw(6) << p.mode << std::setw(26) << shape_text(p.shape)
      << std::right;
    if (p.status == ProblemStatus::Compared) {
      o << std::setw(8) << p.o.max_ulps << std::setw(8) << p.o.beyond << std::setw(8)
        << p.o.nonfinite_mismatches() + (p.lse_compared ? p.lse.nonfinite_mismatches() : 0) << "  "
        << (p.det_a.deterministic() ? "yes" : "NO") << "/" << (p.det_b.deterministic() ? "yes" : "NO") << "   compared\n";
    } else {
      o << std::setw(8) << "-" << std::setw(8) << "-" << std::setw(8) << "-" << "  -/-      " << status_text(p.status)
        << ": " << p.reason << "\n";
    }
  }
  o << "\n";
  tensor_lines(o, "O", r.o_total, "bf16");
  if (r.lse_total.elements > 0) tensor_lines(o, "LSE", r.lse_total, "fp32");
  o << "\nClaims:\n";
  for (const auto& c : r.claims) {
    o << "  [" << (c.held() ? "held" : "BROKEN") << "] " << c.text << " (" << c.problems_broken << " of "
      << c.problems_checked << " problems break it)\n";
    if (!c.smallest) continue;
    const ProblemDiff& p = r.problems[*c.smallest];
    o << "      smallest: " << p.case_id << ", " << shape_text(p.shape) << ", mask " << p.mask << ", " << p.mode
      << ", seed " << p.seed << ": " << c.first_element << "\n";
    if (c.shrunk)
      o << "      shrunk to " << shape_text(c.shrunk->shape) << " (" << c.shrunk->slice.text() << " of " << p.case_id
        << "; " << c.shrunk->candidates_run << " sub-problems tried): " << c.shrunk->first_element << "\n";
  }
  o << compare_outcome_line(r) << "\n";
  return o.str();
}

nlohmann::json compare_json(const CompareResult& r) {
  nlohmann::json j;
  j["tool"] = "cdna-verify compare";
  j["version"] = CDNA_VERSION;
  j["executor"] = r.executor;
  j["profile"] = r.profile;  // docs/profiles.md
  j["outcome"] = std::string(to_string(r.outcome()));
  j["outcome_line"] = compare_outcome_line(r);
  j["ulp_claim"] = r.ulp;
  j["schedule_seed"] = r.schedule_seed;
  j["ulp_definition"] = "distance in representable values (bf16 for O, fp32 for LSE), +0 and -0 one value (docs/compare.md)";
  j["ulp_histogram_bins"] = diff_bin_labels();
  auto code_objects = [](const std::vector<adapters::LoadedCodeObject>& v) {
    auto a = nlohmann::json::array();
    for (const auto& c : v) a.push_back({{"rounding", c.mode}, {"path", c.path}, {"mode_recorded", c.mode_recorded}});
    return a;
  };
  j["kernel_a"] = {{"name", r.kernel_a}, {"code_objects", code_objects(r.code_objects_a)}};
  j["kernel_b"] = {{"name", r.kernel_b}, {"code_objects", code_objects(r.code_objects_b)}};
  j["counts"] = {{"compared", r.count(ProblemStatus::Compared)},
                 {"skipped", r.count(ProblemStatus::Skipped)},
                 {"failed_to_run", r.count(ProblemStatus::Error)}};
  j["o"] = tensor_json(r.o_total);
  j["lse"] = r.lse_total.elements > 0 ? tensor_json(r.lse_total) : nlohmann::json();
  auto& claims = j["claims"] = nlohmann::json::array();
  for (const auto& c : r.claims) {
    nlohmann::json cj = {{"id", claim_id(c.claim)},
                         {"text", c.text},
                         {"status", c.held() ? "held" : "broken"},
                         {"problems_checked", c.problems_checked},
                         {"problems_broken", c.problems_broken}};
    if (c.smallest) {
      const ProblemDiff& p = r.problems[*c.smallest];
      cj["smallest"] = {{"case", p.case_id}, {"shape", shape_json(p.shape)}, {"mask", p.mask}, {"mode", p.mode},
                        {"seed", p.seed},    {"first_element", c.first_element}};
    }
    if (c.shrunk)
      cj["shrunk"] = {{"shape", shape_json(c.shrunk->shape)}, {"slice", c.shrunk->slice.text()},
                      {"first_element", c.shrunk->first_element}, {"candidates_run", c.shrunk->candidates_run}};
    claims.push_back(std::move(cj));
  }
  auto& problems = j["problems"] = nlohmann::json::array();
  for (const auto& p : r.problems) {
    nlohmann::json pj = {{"case", p.case_id}, {"mode", p.mode},   {"shape", shape_json(p.shape)}, {"mask", p.mask},
                         {"scale", p.scale},  {"seed", p.seed},   {"status", status_text(p.status)},
                         {"reason", p.reason}};
    if (p.status == ProblemStatus::Compared) {
      pj["o"] = tensor_json(p.o);
      pj["lse"] = p.lse_compared ? tensor_json(p.lse) : nlohmann::json();
      pj["determinism_a"] = determinism_json(p.det_a);
      pj["determinism_b"] = determinism_json(p.det_b);
    }
    problems.push_back(std::move(pj));
  }
  j["seconds"] = r.seconds;
  return j;
}

void write_compare_json(const CompareResult& r, const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create output directory '" + dir.string() + "': " + ec.message());
  write_atomically(dir / "compare.json", compare_json(r).dump(2) + "\n");
}

}  // namespace cdna::audit
