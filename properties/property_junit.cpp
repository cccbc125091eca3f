#include "properties/property_junit.hpp"

#include <rapidcheck/detail/TestListener.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <vector>

#include "audit/output/junit.hpp"
#include "audit/output/output_paths.hpp"

namespace rc::detail {
// RapidCheck's default listener (progress, shrinking and the reproduce line), the one
// checkProperty(property, metadata, params) uses. Declared in RapidCheck's
// src/detail/DefaultTestListener.h, which the Debian package does not install; defined in
// librapidcheck.a.
TestListener& globalTestListener();
}  // namespace rc::detail

namespace cdna::properties {
namespace {

namespace junit = audit::junit;

struct Counts {
  std::int64_t judged = 0;                       // generated cases run to success or failure
  std::map<std::string, std::int64_t> discarded;  // reason -> count
  std::string failure;                           // RapidCheck's failure description, if it failed
};

struct State {
  std::string path;  // empty: no --junit
  std::function<std::string(const ::testing::TestInfo&)> kernel_of;
  std::string program;
  std::chrono::system_clock::time_point started;
  std::map<std::string, Counts> counts;  // by "<Suite>.<Test>"
  std::vector<junit::TestCase> cases;
};
State& state() {
  static State s;
  return s;
}

std::string test_name(const ::testing::TestInfo& info) {
  return std::string(info.test_suite_name()) + "." + info.name();
}

// The reason in a RapidCheck case description ("file.cpp:149:\nRC_DISCARD(<expr>)\n\n<message>"):
// the message after the macro line, or, without one (RC_ASSERT's "Expands to: …"), the macro
// line and where it is.
std::string reason(const std::string& description) {
  std::vector<std::string> lines;
  std::istringstream in(description);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::string where;
  if (!lines.empty() && lines.front().ends_with(":") && lines.front().find(':') + 1 < lines.front().size()) {
    where = lines.front().substr(0, lines.front().size() - 1);
    lines.erase(lines.begin());
  }
  if (lines.empty()) return where.empty() ? description : where;
  // e.g. "Exception thrown with message:" followed by the exception's text
  if (!lines.front().starts_with("RC_"))
    return lines.front().ends_with(":") && lines.size() > 1 ? lines[0] + " " + lines[1] : lines.front();
  for (std::size_t i = 1; i + 1 < lines.size(); ++i)
    if (lines[i].empty() && !lines[i + 1].empty() && !lines[i + 1].starts_with("Expands to")) return lines[i + 1];
  return lines.front() + (where.empty() ? "" : " at " + where);
}

// Counts the generated cases of one property run and forwards every event to RapidCheck's
// default listener, so its own output is unchanged.
class CountingListener : public rc::detail::TestListener {
 public:
  explicit CountingListener(Counts& c) : counts_(c) {}
  void onTestCaseFinished(const rc::detail::CaseDescription& d) override {
    if (d.result.type == rc::detail::CaseResult::Type::Discard) ++counts_.discarded[reason(d.result.description)];
    else ++counts_.judged;
    rc::detail::globalTestListener().onTestCaseFinished(d);
  }
  void onShrinkTried(const rc::detail::CaseDescription& d, bool accepted) override {
    rc::detail::globalTestListener().onShrinkTried(d, accepted);
  }
  void onTestFinished(const rc::detail::TestMetadata& m, const rc::detail::TestResult& r) override {
    rc::detail::globalTestListener().onTestFinished(m, r);
  }

 private:
  Counts& counts_;
};

std::string counts_text(const Counts& c) {
  std::int64_t discarded = 0;
  for (const auto& [why, n] : c.discarded) discarded += n;
  std::ostringstream o;
  o << "judged=" << c.judged << " rejected=" << discarded
    << " (RapidCheck's counts: generated cases run to a result; cases discarded, never counted as passes)";
  for (const auto& [why, n] : c.discarded) o << "\n  " << n << " x " << why;
  return o.str();
}

// The messages of the test's parts of `kind` (failures or the skip), one per line.
std::string part_messages(const ::testing::TestResult& r, bool skipped) {
  std::string s;
  for (int i = 0; i < r.total_part_count(); ++i) {
    const ::testing::TestPartResult& p = r.GetTestPartResult(i);
    if (skipped ? p.skipped() : p.failed()) s += (s.empty() ? "" : "\n") + std::string(p.message());
  }
  return s;
}

class JunitRecorder : public ::testing::EmptyTestEventListener {
  void OnTestEnd(const ::testing::TestInfo& info) override {
    State& st = state();
    const std::string name = test_name(info);
    junit::TestCase t;
    t.classname = "cdna-verify.property." + st.kernel_of(info);
    t.name = name;
    const ::testing::TestResult& r = *info.result();
    t.seconds = static_cast<double>(r.elapsed_time()) / 1000.0;
    const auto c = st.counts.find(name);
    t.system_out = c == st.counts.end() ? "not a RapidCheck property: no case counts" : counts_text(c->second);
    if (r.Skipped()) {
      t.status = junit::Status::Skipped;
      t.message = part_messages(r, true);
    } else if (r.Failed()) {
      t.status = junit::Status::Failed;
      t.type = "property";
      t.detail = part_messages(r, false);
      // The property's own failure first (RC_FAIL's text), not RapidCheck's "Falsifiable after …".
      t.message = c != st.counts.end() && !c->second.failure.empty() ? c->second.failure : t.detail;
    }
    st.cases.push_back(std::move(t));
  }
};

}  // namespace

int setup_junit(int& argc, char** argv, std::function<std::string(const ::testing::TestInfo&)> kernel_of) {
  State& st = state();
  st.kernel_of = std::move(kernel_of);
  st.program = std::filesystem::path(argc > 0 ? argv[0] : "properties").filename().string();
  st.started = std::chrono::system_clock::now();
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (std::strcmp(a, "--junit") == 0) {
      if (i + 1 >= argc) {
        std::cerr << st.program << ": error: --junit needs a file name (--junit FILE)\n";
        return 2;
      }
      st.path = argv[++i];
    } else if (std::strncmp(a, "--junit=", 8) == 0) {
      st.path = a + 8;
    } else {
      argv[out++] = argv[i];
    }
  }
  argc = out;
  argv[argc] = nullptr;
  if (st.path.empty()) return 0;
  try {
    audit::check_output_file("--junit", st.path);
  } catch (const std::exception& e) {
    std::cerr << st.program << ": error: " << e.what() << "\n";
    return 2;
  }
  ::testing::UnitTest::GetInstance()->listeners().Append(new JunitRecorder);
  return 0;
}

int finish_junit(int rc) {
  State& st = state();
  if (st.path.empty()) return rc;
  junit::TestSuite s;
  s.name = "cdna-verify.property." + st.program;
  s.started = st.started;
  s.seconds = std::chrono::duration<double>(std::chrono::system_clock::now() - st.started).count();
  for (const char* var : {"RC_PARAMS", "CDNA_PROPERTY_KERNEL", "CDNA_PROPERTY_VIA_ADAPTER", "GTEST_SHARD_INDEX",
                          "GTEST_TOTAL_SHARDS"}) {
    if (const char* v = std::getenv(var)) s.properties.emplace_back(var, v);
  }
  s.cases = std::move(st.cases);
  try {
    junit::write(st.path, {s});
  } catch (const std::exception& e) {
    std::cerr << st.program << ": error: " << e.what() << "\n";
    return 2;
  }
  std::cout << "JUnit: " << st.path << "\n";
  return rc;
}

void check_gtest_counted(const rc::detail::Property& property) {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  rc::detail::TestMetadata metadata;  // the id rapidcheck/gtest.h gives, so RC_PARAMS reproduce= still applies
  metadata.id = std::string(info->test_suite_name()) + "/" + info->name();
  metadata.description = info->name();
  Counts& counts = state().counts[test_name(*info)];
  counts = Counts{};
  CountingListener listener(counts);
  const rc::detail::TestResult result =
      rc::detail::checkProperty(property, metadata, rc::detail::configuration().testParams, listener);
  if (result.is<rc::detail::SuccessResult>()) {
    if (!result.get<rc::detail::SuccessResult>().distribution.empty()) {
      rc::detail::printResultMessage(result, std::cout);
      std::cout << std::endl;
    }
    return;
  }
  if (result.is<rc::detail::FailureResult>()) counts.failure = reason(result.get<rc::detail::FailureResult>().description);
  std::ostringstream message;
  rc::detail::printResultMessage(result, message);
  ADD_FAILURE() << message.str();
}

}  // namespace cdna::properties
