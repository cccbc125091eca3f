#include "audit/report/audit_result.hpp"

#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "adapters/code_object_mode.hpp"
#include "audit/output/atomic_file.hpp"
#include "audit/output/shape_format.hpp"
#include "audit/report/audit_json.hpp"
#include "audit/report/plots.hpp"
#include "audit/report/report_html.hpp"

namespace cdna::audit {

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::Pass: return "pass";
    case Verdict::Fail: return "FAIL";
    case Verdict::Rejected: return "rejected";
    case Verdict::NothingJudged: return "nothing judged";
  }
  return "?";
}

Verdict verdict_of(const reference::AttentionComparison& c, bool facts_hold) {
  if (c.violations() || !facts_hold) return Verdict::Fail;
  return c.pass() ? Verdict::Pass : Verdict::NothingJudged;
}

std::string verdict_counts_text(const AuditResult& result) {
  // A pass with nothing compared is a refusal the case requires (C13): said apart, so that
  // "passed" and "judged" agree.
  int refusals = 0;
  for (const auto& r : result.rows) refusals += r.verdict == Verdict::Pass && !r.compared;
  std::string t = std::to_string(result.count(Verdict::Pass)) + " passed" +
                  (refusals > 0 ? " (" + std::to_string(refusals) + " of them required refusals, nothing to judge)" : "") +
                  ", " + std::to_string(result.count(Verdict::Fail)) + " failed, ";
  if (const int n = result.count(Verdict::NothingJudged); n > 0) t += std::to_string(n) + " nothing judged, ";
  return t + std::to_string(result.count(Verdict::Rejected)) + " rejected";
}

std::string_view to_string(AuditOutcome o) {
  switch (o) {
    case AuditOutcome::Pass: return "pass";
    case AuditOutcome::Fail: return "fail";
    case AuditOutcome::NothingJudged: return "nothing_judged";
  }
  return "?";
}

int AuditResult::count(Verdict v) const {
  int n = 0;
  for (const auto& r : rows) n += r.verdict == v;
  return n;
}

AuditCounts AuditResult::counts() const {
  AuditCounts c;
  for (const auto& r : rows) {
    c.cases_passed += r.verdict == Verdict::Pass;
    c.cases_failed += r.verdict == Verdict::Fail;
    c.cases_rejected += r.verdict == Verdict::Rejected;
    c.cases_nothing_judged += r.verdict == Verdict::NothingJudged;
    if (!r.compared) continue;
    const bool judged = r.comparison.judged() && r.verdict != Verdict::NothingJudged;
    c.cases_judged += judged;
    c.cases_sampled += judged && r.rows_total > 0;
    c.o_judged += r.comparison.o_judged;
    c.lse_judged += r.comparison.lse_judged;
    c.convention_rows += r.comparison.convention_rows;
    c.cases_with_convention_rows += r.comparison.convention_rows > 0;
  }
  return c;
}

AuditOutcome AuditResult::outcome() const {
  const AuditCounts c = counts();
  const int decode_failed = decode ? decode->count(DecodeOutcome::Fail) : 0;
  const int decode_passed = decode ? decode->count(DecodeOutcome::Pass) : 0;
  if (c.cases_failed > 0 || decode_failed > 0) return AuditOutcome::Fail;
  return c.cases_judged > 0 || decode_passed > 0 ? AuditOutcome::Pass : AuditOutcome::NothingJudged;
}

std::string AuditResult::nothing_judged_reason() const {
  if (outcome() != AuditOutcome::NothingJudged) return "";
  if (rows.empty() && (!decode || decode->rows.empty())) return "nothing judged: no case matched";
  if (rows.empty())
    return "nothing judged: no attention case ran, and no token was decided in the " +
           std::to_string(decode->rows.size()) + " decode run(s)";
  const AuditCounts c = counts();
  return "nothing judged: no kernel output was judged; of " + std::to_string(rows.size()) + " matched case(s), " +
         std::to_string(c.cases_rejected) + " rejected (outside the kernel's features) and " +
         std::to_string(c.cases_passed) + " only checked that the kernel refuses them";
}

std::string outcome_line(const AuditResult& result) {
  const AuditCounts c = result.counts();
  const AuditOutcome o = result.outcome();
  std::string line = o == AuditOutcome::Pass ? "PASS" : o == AuditOutcome::Fail ? "FAIL" : "NOTHING JUDGED";
  if (result.rows.empty() && result.decode) {
    const DecodeAuditResult& d = *result.decode;
    return line + ": decode only: " + std::to_string(d.rows.size()) + " run(s), " +
           std::to_string(d.count(DecodeOutcome::Pass)) + " passed, " + std::to_string(d.count(DecodeOutcome::Fail)) +
           " failed, " + std::to_string(d.count(DecodeOutcome::NothingJudged)) + " nothing judged";
  }
  line += ": " + std::to_string(c.cases_judged) + " case(s) judged (" + std::to_string(c.o_judged) +
          " O elements, " + std::to_string(c.lse_judged) + " LSE values), " + std::to_string(c.cases_failed) +
          " failed, " + std::to_string(c.cases_rejected) + " rejected";
  if (c.cases_nothing_judged > 0)
    line += ", " + std::to_string(c.cases_nothing_judged) + " nothing judged (elements beyond the declared arithmetic's "
            "range: docs/pass-rule.md \"Outcome\")";
  if (c.cases_sampled > 0)
    line += "; " + std::to_string(c.cases_sampled) + " of the judged case(s) sampled (query rows judged exactly on a " +
            "seeded sample only, docs/pass-rule.md \"Production cases\")";
  if (result.decode)
    line += "; decode: " + std::to_string(result.decode->rows.size()) + " run(s), " +
            std::to_string(result.decode->count(DecodeOutcome::Pass)) + " passed, " +
            std::to_string(result.decode->count(DecodeOutcome::Fail)) + " failed, " +
            std::to_string(result.decode->count(DecodeOutcome::NothingJudged)) + " nothing judged";
  return line;
}

namespace {
// " (executor settings: k=v ...)" or "" when there are none.
std::string settings_text(const AuditResult& result) {
  if (result.executor_settings.empty()) return "";
  std::string t = " (executor settings:";
  for (const auto& [k, v] : result.executor_settings) t += " " + k + "=" + v;
  return t + ")";
}
}  // namespace

std::string convention_line(const AuditCounts& c) {
  return std::to_string(c.convention_rows) + " failing row(s) in " + std::to_string(c.cases_with_convention_rows) +
         " case(s) are special rows (no visible key, NaN score, +inf score: docs/semantics.md §5) where the kernel "
         "follows another convention than the definition; still failures";
}

// The cases the kernel rejected for a feature it does not take (not the required rejections of
// C13): their features were judged on the reference only — the definition's facts checked on the
// oracle by reference/attention/attention_features_test and audit/cases/audit_cases_test, the golden files
// X04–X08 and `cdna-verify mutants --features` — never on this kernel. "" if there is none.
std::string reference_only_line(const AuditResult& result) {
  std::string ids;
  for (const auto& r : result.rows) {
    if (r.verdict != Verdict::Rejected) continue;
    if (ids.find(r.id + " ") == std::string::npos && ids.find(r.id + ",") == std::string::npos) {
      ids += (ids.empty() ? "" : ", ") + r.id + " (" + r.note + ")";
    }
  }
  if (ids.empty()) return "";
  return "not run on this kernel, judged on the reference only (oracle facts: reference/attention/attention_features_test, "
         "audit/cases/audit_cases_test; golden files X04-X08; mutants --features): " + ids;
}

std::string shard_line(const AuditResult& result) {
  if (!result.shard) return "";
  const ShardInfo& s = *result.shard;
  const std::string n = "/" + std::to_string(s.spec.count);
  std::string ids;
  for (const auto& id : s.owned) ids += (ids.empty() ? "" : ", ") + id;
  return "shard " + s.spec.text() + ": owns " + std::to_string(s.owned.size()) + " of the " +
         std::to_string(s.cases_matched) + " matched case(s)" + (ids.empty() ? "" : " (" + ids + ")") +
         "; the mutation kill matrix runs in shard " + std::to_string(s.mutation_shard) + n +
         ", the decode kill matrix in shard " + std::to_string(s.decode_mutation_shard) + n +
         "; `cdna-verify report merge` joins the shards (docs/ci.md)";
}

std::string CaseResult::verdicts_text() const {
  if (hazard_verdict == "-") return "";
  return "numerics " + std::string(to_string(numerics_verdict())) + ", hazards " + hazard_verdict + " (" +
         std::to_string(documented_sites) + " documented, " + std::to_string(llvm_only_sites) + " LLVM-only site" +
         (llvm_only_sites == 1 ? ")" : "s)");
}

std::string summary_table(const AuditResult& result) {
  std::ostringstream o;
  o << std::left << std::setw(34) << "case" << std::setw(6) << "mode" << std::setw(11) << "executor" << std::right
    << std::setw(11) << "max|err|" << std::setw(9) << "ULP" << std::setw(11) << "LSE err" << std::setw(9)
    << "err/bnd" << "  verdict\n";
  for (const auto& r : result.rows) {
    o << std::left << std::setw(34) << r.id << std::setw(6) << r.mode << std::setw(11) << result.executor.substr(0, 10)
      << std::right;
    if (r.compared) {
      o << std::setw(11) << figure_text(r.comparison.max_abs_err_o) << std::setw(9) << figure_text(r.comparison.max_ulp_err_o, 2)
        << std::setw(11) << figure_text(r.comparison.max_abs_err_lse) << std::setw(9)
        << figure_text(std::max(r.comparison.max_err_to_bound_o, r.comparison.max_err_to_bound_lse), 2);
    } else {
      o << std::setw(11) << "-" << std::setw(9) << "-" << std::setw(11) << "-" << std::setw(9) << "-";
    }
    o << "  " << to_string(r.verdict);
    if ((r.verdict != Verdict::Pass || r.rows_total > 0 || !r.compared) && !r.note.empty()) o << ": " << r.note;
    // The two verdicts (issue 23 §3) close the row.
    if (const std::string v = r.verdicts_text(); !v.empty()) o << "  [" << v << "]";
    if (!r.peer_tolerance.empty()) o << "  {" << r.peer_tolerance << "}";
    o << "\n";
  }
  const CaseResult* largest = nullptr;
  std::uint64_t total_instructions = 0;
  double total_kernel_seconds = 0;
  for (const auto& r : result.rows) {
    total_instructions += r.wave_instructions;
    total_kernel_seconds += r.kernel_seconds;
    if (r.wave_instructions > 0 && (!largest || r.wave_instructions > largest->wave_instructions)) largest = &r;
  }
  if (largest) {
    o << "simulator: " << total_instructions << " wave-instructions in " << figure_text(total_kernel_seconds, 3)
      << " s of kernel runs; largest case " << largest->id << " " << largest->mode << ": "
      << largest->wave_instructions << " wave-instructions in " << figure_text(largest->kernel_seconds, 3) << " s ("
      << figure_text(static_cast<double>(largest->wave_instructions) / largest->kernel_seconds / 1e6, 3) << " M/s)\n";
  }
  o << verdict_counts_text(result) << " (not run: outside the kernel's features) in "
    << figure_text(result.seconds, 3) << " s of attention cases (not the decode cases or kill matrices), kernel " << result.kernel << " (profile " << result.profile << ") on "
    << result.executor << settings_text(result) << "\n"
    << outcome_line(result) << "\n";
  if (const AuditCounts c = result.counts(); c.convention_rows > 0) o << convention_line(c) << "\n";
  if (const std::string ref = reference_only_line(result); !ref.empty()) o << ref << "\n";
  return o.str();
}


void write_reports(const AuditResult& result, const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create report directory '" + dir.string() + "': " + ec.message());

  const AuditCounts counts = result.counts();
  write_atomically(dir / "report.json", audit_json(result).dump(2) + "\n");

  std::ostringstream md;
  md << "# cdna-verify audit\n\n**" << outcome_line(result) << "**";
  if (result.outcome() == AuditOutcome::NothingJudged) md << " (" << result.nothing_judged_reason() << ")";
  md << "\n\n";
  if (result.shard) md << "**" << shard_line(result) << ".**\n\n";
  if (counts.convention_rows > 0) md << "Convention failures: " << convention_line(counts) << ".\n\n";
  if (const std::string ref = reference_only_line(result); !ref.empty()) md << "Rejected features: " << ref << ".\n\n";
  for (const auto& c : result.code_objects) {
    if (!c.mode_recorded)
      md << adapters::unchecked_mode_notice(c.path, c.mode, result.kernel) << ".\n\n";
  }
  for (const auto& n : result.code_objects_not_taken) md << "Not audited (present, not taken): " << n << ".\n\n";
  if (!result.executor_description.empty()) {
    md << "Executor description:";
    for (const auto& [k, v] : result.executor_description) md << " " << k << " `" << v << "`;";
    md << "\n\n";
  }
  md << "Kernel: `" << result.kernel << "`. Profile: `" << result.profile << "` (docs/profiles.md). Executor: `" << result.executor << "`" << settings_text(result)
     << ". Pass rule: docs/pass-rule.md (certified bound of docs/error-analysis.md, rel-RMS ≤ 2 × floor). "
     << verdict_counts_text(result) << ", " << figure_text(result.seconds, 3) << " s of attention cases (decode cases and kill matrices not included).\n\n"
     << "| case | shape | mask | mode | max abs err | max ULP | LSE err | err/bound | verdict | note |\n"
     << "|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& r : result.rows) {
    md << "| " << r.id << " | " << shape_text(r.shape) << " | " << r.mask << " | " << r.mode << " | ";
    if (r.compared) {
      md << figure_text(r.comparison.max_abs_err_o) << " | " << figure_text(r.comparison.max_ulp_err_o, 2) << " | "
         << figure_text(r.comparison.max_abs_err_lse) << " | "
         << figure_text(std::max(r.comparison.max_err_to_bound_o, r.comparison.max_err_to_bound_lse), 2) << " | ";
    } else {
      md << "- | - | - | - | ";
    }
    const std::string v = r.verdicts_text();
    std::string note = v.empty() ? r.note : (r.note.empty() ? "" : r.note + " ") + "[" + v + "]";
    if (!r.peer_tolerance.empty()) note += (note.empty() ? "{" : " {") + r.peer_tolerance + "}";
    for (char& ch : note) if (ch == '|') ch = '/';
    md << to_string(r.verdict) << " | " << note << " |\n";
  }
  md << "\n## Rounding-mode audit\n\n";
  const std::vector<ModeAudit> per_mode = rounding_audit(result);
  if (per_mode.empty()) {
    md << "No compared case.\n";
  } else {
    // |err| bins in bf16 ULPs of the exact value; bias and RMS over the same elements.
    md << "O error pooled per mode; ULPs are bf16 ULPs of the exact value, over the elements not near zero in "
          "their row (|O_exact| at least one ULP of the row's largest; docs/pass-rule.md).\n\n"
          "| mode | cases | elements | near zero | bias (ULP) | RMS (ULP) | rel-RMS | floor rel-RMS | rel-RMS / floor | max ULP |";
    for (const auto& l : abs_ulp_bin_labels()) md << " \\|err\\| " << l << " |";
    md << "\n|";
    for (int col = 0; col < 10 + static_cast<int>(abs_ulp_bin_labels().size()); ++col) md << "---|";
    md << "\n";
    for (const ModeAudit& m : per_mode) {
      md << "| " << m.mode << " | " << m.cases << " | " << m.elements << " | " << m.near_zero << " | " << figure_text(m.mean_ulp_err) << " | "
         << figure_text(m.rms_ulp_err) << " | " << figure_text(m.rel_rms_err) << " | " << figure_text(m.floor_rel_rms) << " | "
         << figure_text(m.rms_to_floor) << " | " << figure_text(m.max_ulp_err) << " |";
      for (auto n : m.abs_histogram) md << " " << n << " |";
      md << "\n";
    }
  }
  md << "\n## Mutation testing: the kill matrix\n\n";
  if (result.mutation) {
    const MutantsResult& m = *result.mutation;
    md << m.mutants() << " kernel mutants (one deliberate mistake each, RTNE; docs/mutation-testing.md) on "
       << m.cases.size() << " fixed cases, " << figure_text(m.seconds, 3) << " s: " << m.killed_by_ours() << " of "
       << m.mutants() << " killed by our verdict. ";
    md << kill_matrix_markdown(m);
  } else {
    md << "Not run (" << result.mutation_not_run << ").\n";
  }
  if (result.decode)
    md << decode_markdown(*result.decode);
  else
    md << "\n## Decode\n\nNot run (" << result.decode_not_run << ").\n";
  write_atomically(dir / "report.md", md.str());
  write_atomically(dir / "report.html", report_html(result, Gnuplot(), &std::cerr));
}

}  // namespace cdna::audit
