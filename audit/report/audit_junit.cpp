#include "audit/report/audit_junit.hpp"

#include <string>

namespace cdna::audit {
namespace {

using junit::Status;
using junit::TestCase;

TestCase verdict_case(std::string classname, std::string name, double seconds, Status status, const std::string& note) {
  TestCase t;
  t.classname = std::move(classname);
  t.name = std::move(name);
  t.seconds = seconds;
  t.status = status;
  if (status != Status::Passed) t.message = note;
  if (status == Status::Failed) t.type = "verdict";
  return t;
}

Status status_of(Verdict v) {
  switch (v) {
    case Verdict::Pass: return Status::Passed;
    case Verdict::Rejected: return Status::Skipped;
    case Verdict::NothingJudged: return Status::Skipped;
    case Verdict::Fail: break;
  }
  return Status::Failed;
}

Status status_of(DecodeOutcome o) {
  switch (o) {
    case DecodeOutcome::Pass: return Status::Passed;
    case DecodeOutcome::NothingJudged: return Status::Skipped;
    case DecodeOutcome::Fail: break;
  }
  return Status::Failed;
}

// "Bound, Lse": the columns of ours that kill (mutant) or fail (control) kernel `k`.
std::string our_columns(const KernelResult& k) {
  std::string s;
  for (int c = 0; c < kOurChecks; ++c)
    if (k.killed[static_cast<std::size_t>(c)]) s += (s.empty() ? "" : ", ") + column_name(c);
  return s;
}

// Its line of the suite's system-out: what killed it (or what failed, for a control).
std::string mutant_line(const KernelResult& k) {
  const std::string columns = our_columns(k);
  if (k.control) return k.name + ": " + (columns.empty() ? "passes every check of ours" : "fails " + columns);
  return k.name + ": " + (columns.empty() ? "survived" : "killed by " + columns) + " (" + k.mistake + ")";
}

TestCase mutant_case(const KernelResult& k) {
  TestCase t;
  t.classname = "cdna-verify.audit.mutation.attention-fwd";
  t.name = k.name;
  t.seconds = k.seconds;
  const std::string columns = our_columns(k);
  if (k.control && !columns.empty()) {
    std::string first;
    for (int c = 0; c < kOurChecks && first.empty(); ++c) first = k.first_failure[static_cast<std::size_t>(c)];
    t.status = Status::Failed;
    t.message = "false positive: the correct kernel fails our check(s) " + columns + ": " + first;
  } else if (!k.control && columns.empty()) {
    t.status = Status::Failed;
    t.message = "survived: no check of ours fails it on a case its control passes (" + k.mistake + ")";
  }
  if (t.status == Status::Failed) t.type = "mutation";
  return t;
}

}  // namespace

std::vector<junit::TestSuite> audit_junit(const AuditResult& result, const std::vector<numerics::Rounding>& modes,
                                          std::chrono::system_clock::time_point started) {
  junit::TestSuite audit;
  audit.name = "cdna-verify.audit";
  audit.started = started;
  audit.seconds = result.seconds;
  audit.properties = {{"kernel", result.kernel}, {"executor", result.executor}, {"profile", result.profile}};
  for (const auto& [key, value] : result.executor_settings) audit.properties.emplace_back(key, value);
  audit.system_out = outcome_line(result);
  const std::string classname = "cdna-verify.audit." + result.kernel;
  for (const CaseResult& r : result.rows) {
    const double seconds = r.kernel_seconds + r.oracle_seconds;
    if (r.mode != "-") {
      // A sampled production case says so in its name, pass or not (docs/pass-rule.md).
      const std::string sampled = r.rows_total > 0 ? " (sampled: " + std::to_string(r.rows_judged) + " of " +
                                                         std::to_string(r.rows_total) + " rows exact)"
                                                   : "";
      audit.cases.push_back(verdict_case(classname, r.id + " " + r.mode + sampled, seconds, status_of(r.verdict), r.note));
      // The two verdicts (issue 23 §3): in the failure's text, and one line per case in the
      // suite's system-out (a passing testcase has no element for them in Ant's schema).
      if (const std::string v = r.verdicts_text(); !v.empty()) {
        if (audit.cases.back().status == Status::Failed) audit.cases.back().detail = v;
        audit.system_out += "\n" + r.id + " " + r.mode + ": " + v;
      }
      continue;
    }
    for (numerics::Rounding m : modes)  // decided before any mode ran: the same for each
      audit.cases.push_back(verdict_case(classname, r.id + " " + std::string(numerics::to_string(m)), seconds,
                                         status_of(r.verdict), r.note));
  }
  junit::TestSuite mutation;
  mutation.name = "cdna-verify.audit.mutation-testing";
  mutation.started = started;
  if (result.decode) {
    audit.seconds += result.decode->seconds;
    for (const DecodeCaseResult& d : result.decode->rows)
      audit.cases.push_back(verdict_case("cdna-verify.audit.decode-monokernel", d.id + " " + d.mode,
                                         d.kernel_seconds + d.envelope_seconds, status_of(d.outcome), d.line));
    for (const DecodeMutantResult& m : result.decode->mutants) {
      TestCase t;
      t.classname = "cdna-verify.audit.mutation.decode-monokernel";
      t.name = m.name;
      t.status = m.killed ? Status::Passed : Status::Failed;
      if (!m.killed) t.type = "mutation", t.message = "survived: " + m.how;
      mutation.system_out += m.name + ": " + m.how + "\n";
      mutation.cases.push_back(std::move(t));
    }
  }
  if (result.mutation) {
    mutation.seconds = result.mutation->seconds;
    mutation.properties = {{"executor", result.mutation->executor}};
    for (const KernelResult& k : result.mutation->kernels) {
      mutation.cases.push_back(mutant_case(k));
      mutation.system_out += mutant_line(k) + "\n";
    }
  }
  std::vector<junit::TestSuite> suites{std::move(audit)};
  if (!mutation.cases.empty()) suites.push_back(std::move(mutation));
  return suites;
}

}  // namespace cdna::audit
