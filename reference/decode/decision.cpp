#include "reference/decode/decision.hpp"
#include "reference/common/splitmix64.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace cdna::reference {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Directed ends of a ball computed in round-to-nearest double: fl(m ∓ r) errs by at most
// 2^-53·|fl(m ∓ r)| (plus 2^-1074 if subnormal), so one ULP outward covers it.
double lower_end(double m, double r) {
  const double x = m - r;
  return x - std::abs(x) * 0x1p-52 - 0x1p-1074;
}
double upper_end(double m, double r) {
  const double x = m + r;
  return x + std::abs(x) * 0x1p-52 + 0x1p-1074;
}

bool any_nan(const StepBounds& b) {
  for (std::size_t i = 0; i < b.mid.size(); ++i)
    if (std::isnan(b.mid[i]) || std::isnan(b.rad[i])) return true;
  return false;
}

TokenDecision nan_decision() {
  TokenDecision d;
  d.kind = DecisionKind::nan;
  d.token = -1;
  return d;
}

TokenDecision from_candidates(std::vector<std::int64_t> candidates) {
  TokenDecision d;
  if (candidates.size() == 1) {
    d.kind = DecisionKind::decided;
    d.token = candidates.front();
  } else {
    d.kind = DecisionKind::ambiguous;
    d.candidates = std::move(candidates);
  }
  return d;
}

}  // namespace

TokenDecision decide_greedy(const StepBounds& b) {
  if (any_nan(b)) return nan_decision();
  double lo_max = -kInf;
  for (std::size_t i = 0; i < b.mid.size(); ++i) lo_max = std::max(lo_max, lower_end(b.mid[i], b.rad[i]));
  std::vector<std::int64_t> cand;
  for (std::size_t i = 0; i < b.mid.size(); ++i)
    if (upper_end(b.mid[i], b.rad[i]) >= lo_max) cand.push_back(static_cast<std::int64_t>(i));
  if (cand.size() > 1 && b.identical_rows_identical_logits && b.tie_class) {
    const auto& cls = *b.tie_class;
    const std::int64_t c0 = cls[static_cast<std::size_t>(cand.front())];
    const bool one_class = std::all_of(cand.begin(), cand.end(), [&](std::int64_t j) {
      return cls[static_cast<std::size_t>(j)] == c0;
    });
    if (one_class) {
      TokenDecision d;
      d.kind = DecisionKind::decided;
      d.token = c0;
      d.by_tie_class = true;
      return d;
    }
  }
  return from_candidates(std::move(cand));
}

double sampling_uniform(std::uint64_t seed, std::int64_t step) {
  const std::uint64_t x = splitmix64(splitmix64(seed) + static_cast<std::uint64_t>(step));
  return static_cast<double>(x >> 11) * 0x1p-53;
}

TokenDecision decide_sampled(const StepBounds& b, double temperature, double u) {
  if (!(temperature > 0.0) || !std::isfinite(temperature))
    throw std::invalid_argument("temperature " + std::to_string(temperature) +
                                " must be finite and > 0");
  if (!(u >= 0.0 && u < 1.0))
    throw std::invalid_argument("uniform " + std::to_string(u) + " must lie in [0, 1)");
  if (any_nan(b)) return nan_decision();
  const std::size_t n = b.mid.size();
  // Ends of logit/T, outward (one division: 2^-53 relative, widened to 2^-52).
  std::vector<double> xlo(n), xhi(n);
  double shift = -kInf;
  for (std::size_t i = 0; i < n; ++i) {
    const double lo = lower_end(b.mid[i], b.rad[i]) / temperature;
    const double hi = upper_end(b.mid[i], b.rad[i]) / temperature;
    xlo[i] = lo - std::abs(lo) * 0x1p-52 - 0x1p-1074;
    xhi[i] = hi + std::abs(hi) * 0x1p-52 + 0x1p-1074;
    shift = std::max(shift, xhi[i]);
  }
  std::vector<std::int64_t> all(n);
  for (std::size_t i = 0; i < n; ++i) all[i] = static_cast<std::int64_t>(i);
  if (!std::isfinite(shift)) return from_candidates(all);
  // Bounds of e^(x − shift): the subtraction errs by ≤ 2^-53|x − shift| in the exponent,
  // exp by < 1 ULP (docs/decode-bounds.md §11).
  std::vector<double> elo(n), ehi(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double dl = xlo[i] - shift, dh = xhi[i] - shift;
    elo[i] = std::exp(dl - std::abs(dl) * 0x1p-52) * (1.0 - 0x1p-50);
    ehi[i] = std::exp(dh + std::abs(dh) * 0x1p-52) * (1.0 + 0x1p-50);
  }
  // Prefix sums A_j = Σ_{k≤j} and suffix sums B_j = Σ_{k>j}, each of ≤ n positive terms:
  // relative error ≤ γ_n(2^-53) < (n + 16)·2^-52.
  const double rel = (static_cast<double>(n) + 16.0) * 0x1p-52;
  std::vector<double> alo(n), ahi(n), blo(n), bhi(n);
  double s_lo = 0, s_hi = 0;
  for (std::size_t i = 0; i < n; ++i) {
    s_lo += elo[i];
    s_hi += ehi[i];
    alo[i] = s_lo * (1.0 - rel);
    ahi[i] = s_hi * (1.0 + rel);
  }
  s_lo = s_hi = 0;
  for (std::size_t i = n; i-- > 0;) {
    blo[i] = s_lo * (1.0 - rel);
    bhi[i] = s_hi * (1.0 + rel);
    s_lo += elo[i];
    s_hi += ehi[i];
  }
  // CDF_j = A_j/(A_j + B_j) increases with A and decreases with B.
  auto cdf_lo = [&](std::size_t j) {
    return j + 1 == n ? 1.0 : alo[j] / (alo[j] + bhi[j]) * (1.0 - 0x1p-50);
  };
  auto cdf_hi = [&](std::size_t j) {
    return j + 1 == n ? 1.0 : std::min(1.0, ahi[j] / (ahi[j] + blo[j]) * (1.0 + 0x1p-50));
  };
  std::vector<std::int64_t> cand;
  for (std::size_t j = 0; j < n; ++j) {
    const bool below_certain = j == 0 || cdf_hi(j - 1) < u;  // CDF_{j−1} ≤ u surely
    const bool below_possible = j == 0 || cdf_lo(j - 1) <= u;
    const double lo = cdf_lo(j), hi = cdf_hi(j);
    if (below_certain && u < lo) {
      TokenDecision d;
      d.kind = DecisionKind::decided;
      d.token = static_cast<std::int64_t>(j);
      return d;
    }
    if (below_possible && u < hi) cand.push_back(static_cast<std::int64_t>(j));
  }
  TokenDecision d;
  d.kind = DecisionKind::ambiguous;
  d.candidates = std::move(cand);
  return d;
}

StepVerdict judge_step(const StepBounds& b, const TokenDecision& decision,
                       std::span<const float> kernel_logits, std::int64_t kernel_token) {
  if (kernel_logits.size() != b.mid.size())
    throw std::invalid_argument("kernel logits hold " + std::to_string(kernel_logits.size()) +
                                " values, expected vocab_size " + std::to_string(b.mid.size()));
  StepVerdict v;
  v.decision = decision;
  v.expected_token = decision.token;
  v.kernel_token = kernel_token;
  for (std::size_t i = 0; i < b.mid.size(); ++i) {
    if (std::isnan(b.mid[i]) || std::isnan(b.rad[i])) continue;
    // An infinite radius claims nothing (the kernel may overflow there: inf, or NaN from
    // inf − inf; docs/decode-bounds.md §2): every value, NaN included, lies in it.
    if (std::isinf(b.rad[i])) continue;
    const double k = kernel_logits[i];
    // The double difference errs by ≤ 2^-53 relative: judged in the kernel's favour.
    const double diff = std::abs(k - b.mid[i]) * (1.0 - 0x1p-52);
    const double ratio = std::isnan(k) ? kInf : (diff == 0.0 ? 0.0 : diff / b.rad[i]);
    v.max_ratio = std::max(v.max_ratio, ratio);
    if (std::isnan(k) || diff > b.rad[i]) {
      ++v.outside;
      const double excess = std::isnan(k) || b.rad[i] == 0.0 ? kInf : (diff - b.rad[i]) / b.rad[i];
      if (v.worst_index < 0 || excess > v.worst_excess) {
        v.worst_index = static_cast<std::int64_t>(i);
        v.worst_excess = excess;
      }
    }
  }
  const bool settled = decision.kind != DecisionKind::ambiguous;
  v.match = settled && kernel_token == decision.token;
  if (v.outside > 0 || (settled && !v.match))
    v.outcome = StepOutcome::fail;
  else
    v.outcome = settled ? StepOutcome::pass : StepOutcome::ambiguous;
  return v;
}

StepVerdict judge_step(const StepBounds& b, std::span<const float> kernel_logits,
                       std::int64_t kernel_token) {
  return judge_step(b, decide_greedy(b), kernel_logits, kernel_token);
}

}  // namespace cdna::reference
