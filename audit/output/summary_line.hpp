// The summary line: the last stdout line of every judging run, for CI logs to grep (docs/ci.md
// "Exit codes, summary line, progress"):
//   cdna-verify summary: <subcommand> <PASS|FAIL|NOTHING JUDGED> key=value ... exit=N seconds=S
// `sim` has no verdict: its word is OK (the dispatch ran to its end) instead of PASS.
// The subcommand records its figures while it runs (RunSummary::set); main prints the line once
// the exit code is known, whatever the path (a verdict, a thrown input error, a kernel fault).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace cdna::audit {

class RunSummary {
 public:
  // Starts the summary of `subcommand` ("audit", "golden verify", ...); `verdictless` for sim.
  void start(std::string subcommand, bool verdictless = false);
  bool started() const { return !subcommand_.empty(); }
  // Sets key=value (a later set of the same key replaces the value, keeping its place). Keys are
  // words without spaces; a value's spaces become '_' so that every field stays one token.
  void set(const std::string& key, const std::string& value);
  void set(const std::string& key, std::uint64_t value) { set(key, std::to_string(value)); }
  // A run that judged nothing and still exits 0 because it was told it may (a shard of a fleet
  // under --allow-empty-shard): its line says NOTHING JUDGED, with that exit code.
  void set_nothing_judged() { nothing_judged_ = true; }
  // The line for `exit_code` (audit/output/exit_codes.hpp) after `seconds` of wall time, no newline.
  std::string line(int exit_code, double seconds) const;

 private:
  std::string subcommand_;
  bool verdictless_ = false;
  bool nothing_judged_ = false;
  std::vector<std::pair<std::string, std::string>> fields_;
};

// The status word of an exit code: 0 PASS (OK when verdictless), 1 FAIL, anything else NOTHING
// JUDGED (2: bad input, tool error or nothing to judge; 3: the executor cannot run here).
const char* summary_word(int exit_code, bool verdictless);

// The one summary of this process (cdna-verify runs one subcommand per process).
RunSummary& summary();

}  // namespace cdna::audit
