// Progress on stderr for runs longer than a few seconds (docs/ci.md "Exit codes, summary line,
// progress"): one line per finished step,
//   audit: case 12 of 124 (C05 RTNE), 0:31 elapsed, ~2:10 left: pass ...
// The estimate is the mean step time so far times the steps left (steps of one run take similar
// time; a wrong guess costs only a wrong estimate). A null stream (--quiet) prints nothing.
#pragma once

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>

namespace cdna::audit {

// Seconds as m:ss, or h:mm:ss from an hour on.
std::string clock_text(double seconds);

class Progress {
 public:
  // `task` starts each line ("audit"), `unit` names a step ("case"), `total` steps in all.
  // With min_interval_seconds > 0 a line is printed at most that often, the first after that long:
  // a short run prints nothing. The environment variable CDNA_PROGRESS_SECONDS replaces that
  // interval (tests set it to 0 to see the lines of a short run).
  Progress(std::ostream* out, std::string task, std::string unit, std::uint64_t total,
           double min_interval_seconds = 0);
  // Step `done` (1-based) has finished: its line, with `label` in parentheses when not empty and
  // `detail` after a colon when not empty.
  void step(std::uint64_t done, const std::string& label = "", const std::string& detail = "");
  // The next step, counted here.
  void next(const std::string& label = "", const std::string& detail = "") { step(++done_, label, detail); }
  // For a count known only once the work has started (a dispatch's workgroups).
  void set_total(std::uint64_t total) { total_ = total; }
  // The line step() would print after `elapsed` seconds (no newline), for tests.
  std::string line(std::uint64_t done, double elapsed, const std::string& label, const std::string& detail) const;

 private:
  using Clock = std::chrono::steady_clock;
  std::ostream* out_;
  std::string task_, unit_;
  std::uint64_t total_, done_ = 0;
  double min_interval_;
  Clock::time_point start_ = Clock::now();
  double last_line_ = 0;  // a throttled task's first line comes after min_interval, not at once
};

}  // namespace cdna::audit
