// audit/output/junit.hpp and audit/report/audit_junit.hpp on hand-made results: the counts, the escaping, the
// audit's mapping (rows, rejected rows of every mode, decode rows, the kill matrices), each file
// validated against ci/junit.xsd by xmllint; write() and run_writing_errors().
#include "audit/output/junit.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "audit/report/audit_junit.hpp"

namespace cdna::audit {
namespace {

namespace fs = std::filesystem;
using junit::Status;

fs::path temp_dir() {
  const fs::path d = fs::temp_directory_path() / ("junit_test_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

// xmllint's verdict of `xml` against ci/junit.xsd: true if valid.
bool schema_valid(const std::string& xml, const std::string& tag) {
  const fs::path f = temp_dir() / (tag + ".xml");
  std::ofstream(f) << xml;
  const std::string cmd = "xmllint --noout --schema " CDNA_SOURCE_DIR "/ci/junit.xsd '" + f.string() + "' 2>/dev/null";
  return std::system(cmd.c_str()) == 0;
}

std::size_t occurrences(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

junit::TestCase make_case(std::string name, Status s, std::string message = "") {
  junit::TestCase c;
  c.classname = "cdna-verify.test.k";
  c.name = std::move(name);
  c.status = s;
  c.message = std::move(message);
  return c;
}

TEST(Junit, CountsEscapingAndSchema) {
  junit::TestSuite s;
  s.name = "cdna-verify.test";
  s.seconds = 1.25;
  s.properties = {{"kernel", "k"}};
  s.cases.push_back(make_case("C01 RTNE", Status::Passed));
  s.cases.push_back(make_case("C02 RTNE", Status::Failed, "O[3] = 1 > bound <2> & \"x\"\nsecond line"));
  s.cases.push_back(make_case("C03 RTNE", Status::Skipped, "rejected: D 59"));
  s.cases.push_back(make_case("run", Status::Error, std::string("bell \a here")));
  const std::string xml = junit::to_xml({s});
  EXPECT_NE(xml.find("tests=\"4\" failures=\"1\" errors=\"1\" skipped=\"1\""), std::string::npos) << xml;
  // The message attribute is the first line, escaped; the text keeps both lines.
  EXPECT_NE(xml.find("message=\"O[3] = 1 &gt; bound &lt;2&gt; &amp; &quot;x&quot;\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("second line</failure>"), std::string::npos) << xml;
  EXPECT_EQ(xml.find('\a'), std::string::npos);  // not a legal XML character, even escaped
  EXPECT_TRUE(schema_valid(xml, "counts"));
}

TEST(Junit, SchemaRejectsAFailureWithoutMessageAndATestcaseWithoutClassname) {
  junit::TestSuite s;
  s.name = "cdna-verify.test";
  s.cases.push_back(make_case("C01 RTNE", Status::Failed, "why"));
  const std::string good = junit::to_xml({s});
  ASSERT_TRUE(schema_valid(good, "good"));
  std::string no_message = good, no_classname = good;
  no_message.replace(no_message.find("message=\"why\""), 13, "");
  no_classname.replace(no_classname.find("classname=\"cdna-verify.test.k\""), 30, "");
  EXPECT_FALSE(schema_valid(no_message, "no_message"));
  EXPECT_FALSE(schema_valid(no_classname, "no_classname"));
}

CaseResult row(std::string id, std::string mode, Verdict v, std::string note = "") {
  CaseResult r;
  r.id = std::move(id);
  r.mode = std::move(mode);
  r.verdict = v;
  r.note = std::move(note);
  return r;
}

TEST(AuditJunit, RowsDecodeAndKillMatrices) {
  AuditResult a;
  a.kernel = "attention-fwd";
  a.executor = "simulator";
  a.rows.push_back(row("C01", "RTNE", Verdict::Pass));
  a.rows.push_back(row("C02", "RTNE", Verdict::Fail, "O[0,0,0,1]: |err| 3 > bound 1"));
  a.rows.push_back(row("SC01", "-", Verdict::Rejected, "attn_fwd takes no soft cap"));  // one per mode
  DecodeAuditResult d;
  DecodeCaseResult dr;
  dr.id = "D04", dr.mode = "RTZ", dr.outcome = DecodeOutcome::NothingJudged, dr.line = "NOTHING JUDGED: 0 decided";
  d.rows.push_back(dr);
  d.mutants.push_back({"dropped_acquire", false, "D01: pass"});
  a.decode = d;
  MutantsResult m;
  KernelResult control, killed, survivor;
  control.name = "control", control.control = true;
  killed.name = "no_rescale", killed.killed[0] = true;
  survivor.name = "harmless", survivor.mistake = "changes nothing";
  m.kernels = {control, killed, survivor};
  a.mutation = m;
  const auto suites = audit_junit(a, {numerics::Rounding::RTNE, numerics::Rounding::RTZ}, std::chrono::system_clock::now());
  ASSERT_EQ(suites.size(), 2u);
  const junit::TestSuite& s = suites[0];
  ASSERT_EQ(s.cases.size(), 5u);  // C01, C02, SC01 x 2 modes, D04
  EXPECT_EQ(s.cases[1].name, "C02 RTNE");
  EXPECT_EQ(s.cases[1].classname, "cdna-verify.audit.attention-fwd");
  EXPECT_EQ(s.cases[1].message, "O[0,0,0,1]: |err| 3 > bound 1");
  EXPECT_EQ(s.cases[2].name, "SC01 RTNE");
  EXPECT_EQ(s.cases[3].name, "SC01 RTZ");
  EXPECT_EQ(s.cases[3].status, Status::Skipped);
  EXPECT_EQ(s.cases[4].classname, "cdna-verify.audit.decode-monokernel");
  EXPECT_EQ(s.cases[4].status, Status::Skipped);
  EXPECT_EQ(s.count(Status::Failed), 1);
  EXPECT_EQ(s.count(Status::Skipped), 3);
  const junit::TestSuite& mt = suites[1];
  EXPECT_EQ(mt.name, "cdna-verify.audit.mutation-testing");
  ASSERT_EQ(mt.cases.size(), 4u);  // the decode mutant, then control, killed, survivor
  EXPECT_EQ(mt.cases[0].status, Status::Failed);  // the decode mutant survived
  EXPECT_EQ(mt.cases[1].status, Status::Passed);
  EXPECT_EQ(mt.cases[2].status, Status::Passed);
  EXPECT_EQ(mt.cases[3].status, Status::Failed);
  EXPECT_NE(mt.cases[3].message.find("survived"), std::string::npos);
  const std::string xml = junit::to_xml(suites);
  EXPECT_EQ(occurrences(xml, "<testcase "), 9u);
  EXPECT_TRUE(schema_valid(xml, "audit"));
}

// Issue 23 §3: the two verdicts of a case (numerics as written, hazards) in the failure's text
// and one line per case in the suite's system-out; none for a case whose hazards were not judged.
TEST(AuditJunit, NumericsAndHazardVerdictsSideBySide) {
  AuditResult a;
  a.kernel = "aiter-fmha-v3";
  CaseResult hz = row("C04", "RTZ", Verdict::Fail, "the output depends on 2 wait-state hazard site(s)");
  hz.numerics = Verdict::Pass;
  hz.hazard_verdict = "fails";
  hz.documented_sites = 2, hz.llvm_only_sites = 131;
  CaseResult llvm = row("C01", "RTZ", Verdict::Pass);
  llvm.numerics = Verdict::Pass;
  llvm.hazard_verdict = "llvm-only";
  llvm.llvm_only_sites = 1;
  a.rows = {hz, llvm, row("C02", "RTZ", Verdict::Pass)};
  const auto suites = audit_junit(a, {numerics::Rounding::RTZ}, std::chrono::system_clock::now());
  const junit::TestSuite& s = suites[0];
  ASSERT_EQ(s.cases.size(), 3u);
  EXPECT_EQ(s.cases[0].detail, "numerics pass, hazards fails (2 documented, 131 LLVM-only sites)");
  EXPECT_EQ(s.cases[1].status, Status::Passed);
  EXPECT_NE(s.system_out.find("\nC04 RTZ: numerics pass, hazards fails (2 documented, 131 LLVM-only sites)"), std::string::npos)
      << s.system_out;
  EXPECT_NE(s.system_out.find("\nC01 RTZ: numerics pass, hazards llvm-only (0 documented, 1 LLVM-only site)"), std::string::npos)
      << s.system_out;
  EXPECT_EQ(s.system_out.find("C02 RTZ"), std::string::npos) << s.system_out;
  EXPECT_TRUE(schema_valid(junit::to_xml(suites), "verdicts"));
}

TEST(AuditJunit, AControlFailingOurCheckIsAFailure) {
  AuditResult a;
  MutantsResult m;
  KernelResult control;
  control.name = "control", control.control = true;
  control.killed[1] = true;  // a false positive of the floor check
  control.first_failure[1] = "C07: rel-RMS 3x the floor";
  m.kernels = {control};
  a.mutation = m;
  const auto suites = audit_junit(a, {numerics::Rounding::RTNE}, std::chrono::system_clock::now());
  ASSERT_EQ(suites.size(), 2u);
  EXPECT_EQ(suites[1].cases[0].status, Status::Failed);
  EXPECT_NE(suites[1].cases[0].message.find("C07: rel-RMS 3x the floor"), std::string::npos);
}

TEST(Junit, WriteCreatesTheFolderAndLeavesNoPartialFile) {
  // check_output_file (audit/output/output_paths.hpp) admits a folder that can be created; write makes it.
  const fs::path f = temp_dir() / "new" / "folder" / "j.xml";
  junit::TestSuite s;
  s.name = "cdna-verify.test";
  junit::write(f, {s});
  EXPECT_TRUE(fs::is_regular_file(f));
  EXPECT_FALSE(fs::exists(f.string() + ".partial"));
  EXPECT_THROW(junit::write(f / "under-a-file.xml", {s}), std::runtime_error);  // its folder is a file
}

TEST(Junit, RunWritingErrorsWritesAnErrorAndRethrows) {
  const fs::path f = temp_dir() / "error.xml";
  EXPECT_THROW(junit::run_writing_errors(f, "cdna-verify.test", "cdna-verify.test",
                                         []() -> int { throw std::runtime_error("cannot read 'x.hsaco'"); }),
               std::runtime_error);
  std::stringstream xml;
  xml << std::ifstream(f).rdbuf();
  EXPECT_NE(xml.str().find("errors=\"1\""), std::string::npos);
  EXPECT_NE(xml.str().find("<error message=\"cannot read 'x.hsaco'\" type=\"tool-error\""), std::string::npos)
      << xml.str();
  EXPECT_TRUE(schema_valid(xml.str(), "error"));
  EXPECT_EQ(junit::run_writing_errors(f, "s", "c", [] { return 1; }), 1);  // no throw: the work's own code
}

}  // namespace
}  // namespace cdna::audit
