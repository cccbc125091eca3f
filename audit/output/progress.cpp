#include "audit/output/progress.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace cdna::audit {

std::string clock_text(double seconds) {
  const auto s = static_cast<std::uint64_t>(std::llround(std::max(seconds, 0.0)));
  char b[48];
  if (s >= 3600) std::snprintf(b, sizeof b, "%llu:%02llu:%02llu", static_cast<unsigned long long>(s / 3600),
                               static_cast<unsigned long long>(s / 60 % 60), static_cast<unsigned long long>(s % 60));
  else std::snprintf(b, sizeof b, "%llu:%02llu", static_cast<unsigned long long>(s / 60),
                     static_cast<unsigned long long>(s % 60));
  return b;
}

Progress::Progress(std::ostream* out, std::string task, std::string unit, std::uint64_t total,
                   double min_interval_seconds)
    : out_(out), task_(std::move(task)), unit_(std::move(unit)), total_(total), min_interval_(min_interval_seconds) {
  // CDNA_PROGRESS_SECONDS replaces a throttled task's interval (tests set 0 to see every line).
  if (const char* s = std::getenv("CDNA_PROGRESS_SECONDS"); s && min_interval_ > 0) min_interval_ = std::atof(s);
}

std::string Progress::line(std::uint64_t done, double elapsed, const std::string& label,
                           const std::string& detail) const {
  std::string s = task_ + ": " + unit_ + " " + std::to_string(done) + " of " + std::to_string(total_);
  if (!label.empty()) s += " (" + label + ")";
  s += ", " + clock_text(elapsed) + " elapsed";
  // Mean time per finished step times the steps left.
  if (done > 0 && done < total_) s += ", ~" + clock_text(elapsed / static_cast<double>(done) * static_cast<double>(total_ - done)) + " left";
  if (!detail.empty()) s += ": " + detail;
  return s;
}

void Progress::step(std::uint64_t done, const std::string& label, const std::string& detail) {
  done_ = done;
  if (!out_) return;
  const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  if (elapsed - last_line_ < min_interval_) return;
  last_line_ = elapsed;
  *out_ << line(done, elapsed, label, detail) << std::endl;
}

}  // namespace cdna::audit
