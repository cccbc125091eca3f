#include "audit/decode/exact_check.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace cdna::audit {
namespace {

// Adds one position's exact logits against `ball`; returns the worst ratio and counts the logits
// outside (and, for the kernel's balls, the infinite radii, which contain anything).
double add_exact(const std::vector<double>& exact, const reference::StepBounds& ball, std::int64_t& outside,
                 std::int64_t* infinite) {
  double worst = 0;
  for (std::size_t i = 0; i < exact.size(); ++i) {
    if (!std::isfinite(ball.rad[i])) {
      if (infinite) ++*infinite;
      continue;
    }
    const double ratio = std::fabs(exact[i] - ball.mid[i]) / (ball.rad[i] + reference::exact_logit_error(exact[i]));
    if (!(ratio <= 1)) ++outside;  // NaN (a NaN exact logit against a finite ball) counts as outside
    worst = std::max(worst, std::isnan(ratio) ? INFINITY : ratio);
  }
  return worst;
}

}  // namespace

ExactCheck::ExactCheck(const reference::DecoderModel& model, std::int64_t positions)
    : limit_(positions), oracle_(model), fast_(model, reference::double_arithmetic()) {}

void ExactCheck::add(const reference::StepBounds& kernel_balls) {
  ExactReport& r = report_;
  if (r.positions >= limit_) return;
  const std::vector<double> e = oracle_.step(kernel_balls.token);
  const reference::StepBounds f = fast_.step(kernel_balls.token);
  r.worst_fast_ratio = std::max(r.worst_fast_ratio, add_exact(e, f, r.outside_fast, nullptr));
  r.worst_kernel_ratio = std::max(r.worst_kernel_ratio, add_exact(e, kernel_balls, r.outside_kernel, &r.kernel_infinite));
  ++r.positions;
}

void ExactCheck::judge(DecodeCheck& check) const {
  if (report_.ok() || check.outcome == DecodeOutcome::Fail) return;
  check.outcome = DecodeOutcome::Fail;
  check.failure = "--exact: the exact oracle lies outside " +
                  std::string(report_.outside_fast ? "the fast reference's proven distance" : "the kernel's balls");
}

}  // namespace cdna::audit
