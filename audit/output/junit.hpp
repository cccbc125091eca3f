// JUnit XML reports (`--junit FILE` of audit, golden verify|check and the property runner), in the
// Ant JUnit report format as CI systems read it; the schema the files are validated against is
// ci/junit.xsd, the conventions (classname, name, what fails, what is skipped) docs/ci.md
// "JUnit output". The XML is made by libxml2's xmlTextWriter, never by string concatenation, and
// the file is written atomically (audit/output/atomic_file.hpp).
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cdna::audit::junit {

enum class Status { Passed, Failed, Skipped, Error };

// One <testcase>: for cdna-verify one case x mode x kernel (or one golden file, one property).
struct TestCase {
  std::string classname;  // "cdna-verify.<subcommand>.<kernel>"
  std::string name;       // "<case id> <MODE>"
  double seconds = 0;     // time attribute, in seconds
  Status status = Status::Passed;
  // Failed, Error: the message attribute (one line: the verdict's first failure line, or the
  // error); Skipped: why it was not judged.
  std::string message;
  std::string type;    // Failed, Error: the type attribute ("verdict", "tool-error", ...)
  std::string detail;  // Failed, Error: the element's text (more lines), may be empty
  // The testcase's <system-out> (omitted when empty). Jenkins' schema has it, Ant's does not:
  // only the property runner uses it (its counts), so the other files stay valid under both.
  std::string system_out;
};

// One <testsuite>; tests, failures, errors and skipped are counted from `cases`.
struct TestSuite {
  std::string name;  // e.g. "cdna-verify.audit"
  std::chrono::system_clock::time_point started = std::chrono::system_clock::now();
  double seconds = 0;
  std::vector<std::pair<std::string, std::string>> properties;  // <properties>: run settings
  std::vector<TestCase> cases;
  std::string system_out, system_err;
  int count(Status s) const;
};

// The first line of `text` (the message attribute of a failure is one line).
std::string first_line(std::string_view text);

// The whole document: <testsuites> holding `suites` (id 0, 1, …; package "cdna-verify"), each
// with timestamp (UTC, seconds, no zone: the Ant schema's form) and hostname. Throws
// std::runtime_error if libxml2 fails.
std::string to_xml(const std::vector<TestSuite>& suites);

// Writes to_xml(suites) to `path` atomically, creating its folder if needed. Throws
// std::runtime_error naming the path. Callers check `path` before any work with
// audit/output/output_paths.hpp check_output_file("--junit", path).
void write(const std::filesystem::path& path, const std::vector<TestSuite>& suites);

// Runs `work` (a subcommand's body) and returns its exit code; if it throws, first writes to
// `path` (when not empty) a suite `suite` whose one testcase `classname`/"run" is an <error>
// carrying the exception's message (so a CI system shows the tool error, not a missing file),
// then rethrows. A failure to write that file is reported on stderr, the first error kept.
int run_writing_errors(const std::filesystem::path& path, const std::string& suite, const std::string& classname,
                       const std::function<int()>& work);

}  // namespace cdna::audit::junit
