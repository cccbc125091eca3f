#include "audit/report/rounding_audit.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "numerics/bf16.hpp"
#include "audit/report/audit_result.hpp"
#include "reference/attention/compare.hpp"

namespace cdna::audit {

OErrorSums o_error_sums(std::span<const std::uint16_t> o, std::span<const double> exact, std::size_t row_length) {
  if (o.size() != exact.size()) throw std::invalid_argument("o_error_sums: sizes differ");
  if (row_length == 0 || o.size() % row_length != 0)
    throw std::invalid_argument("o_error_sums: " + std::to_string(o.size()) + " values are not rows of " +
                                std::to_string(row_length));
  constexpr int w = OErrorSums::kUlpHistogramHalfWidth;
  OErrorSums s;
  double ulp_limit = 0;
  for (std::size_t n = 0; n < o.size(); ++n) {
    if (n % row_length == 0) ulp_limit = reference::ulp_figure_limit(exact.subspan(n, row_length));
    const double x = exact[n], got = static_cast<double>(numerics::f32_from_bf16(o[n]));
    if (!std::isfinite(x) || !std::isfinite(got)) continue;
    // Signed away from zero: toward zero is negative for either sign of O.
    const double e = (got - x) * (std::signbit(x) ? -1.0 : 1.0);
    ++s.elements;
    s.sum_err += e;
    s.sum_sq_err += e * e;
    s.sum_sq_exact += x * x;
    if (std::abs(x) < ulp_limit) {
      ++s.near_zero;
      continue;
    }
    const double ulps = e / numerics::bf16_ulp(x);
    s.sum_ulp_err += ulps;
    s.sum_sq_ulp_err += ulps * ulps;
    const double k = std::round(ulps);
    ++s.ulp_histogram[k < -w ? 0 : k > w ? 2 * w + 2 : static_cast<std::size_t>(k + w + 1)];
    const double u = std::abs(ulps);
    ++s.abs_ulp_histogram[u == 0 ? 0 : u <= 0.5 ? 1 : u <= 1 ? 2 : u <= 2 ? 3 : 4];
  }
  return s;
}

std::vector<std::string> ulp_bin_labels() {
  constexpr int w = OErrorSums::kUlpHistogramHalfWidth;
  std::vector<std::string> labels{"<-" + std::to_string(w)};
  for (int k = -w; k <= w; ++k) labels.push_back(k > 0 ? "+" + std::to_string(k) : std::to_string(k));
  labels.push_back(">+" + std::to_string(w));
  return labels;
}

std::vector<std::string> abs_ulp_bin_labels() { return {"0", "<=0.5", "<=1", "<=2", ">2"}; }

std::vector<ModeAudit> rounding_audit(const AuditResult& result) {
  struct Sums {
    ModeAudit a;
    double err = 0, sq_err = 0, sq_exact = 0, ulp = 0, sq_ulp = 0, floor_sq_err = 0;
  };
  std::vector<Sums> modes;
  for (const CaseResult& r : result.rows) {
    if (!r.compared) continue;
    auto it = std::find_if(modes.begin(), modes.end(), [&](const Sums& s) { return s.a.mode == r.mode; });
    if (it == modes.end()) {
      modes.push_back({});
      modes.back().a.mode = r.mode;
      it = std::prev(modes.end());
    }
    const OErrorSums& c = r.o_sums;
    ++it->a.cases;
    it->a.elements += c.elements;
    it->a.near_zero += c.near_zero;
    it->a.max_ulp_err = std::max(it->a.max_ulp_err, r.comparison.max_ulp_err_o);
    it->err += c.sum_err;
    it->sq_err += c.sum_sq_err;
    it->sq_exact += c.sum_sq_exact;
    it->ulp += c.sum_ulp_err;
    it->sq_ulp += c.sum_sq_ulp_err;
    // The case's floor error, squared, back from its relative RMS (taken over the finite exact
    // elements; the sums here over those the kernel also gave finite, the same set unless the
    // kernel wrote a non-finite value where the exact one is finite — a failed case anyway).
    it->floor_sq_err += r.comparison.floor_rel_rms_o * r.comparison.floor_rel_rms_o * c.sum_sq_exact;
    for (std::size_t b = 0; b < c.ulp_histogram.size(); ++b) it->a.histogram[b] += c.ulp_histogram[b];
    for (std::size_t b = 0; b < c.abs_ulp_histogram.size(); ++b) it->a.abs_histogram[b] += c.abs_ulp_histogram[b];
  }
  std::vector<ModeAudit> out;
  for (Sums& s : modes) {
    if (s.a.elements > 0) {
      const auto n = static_cast<double>(s.a.elements);
      s.a.mean_err = s.err / n;
      const auto n_ulp = static_cast<double>(s.a.elements - s.a.near_zero);
      s.a.mean_ulp_err = n_ulp > 0 ? s.ulp / n_ulp : 0.0;
      s.a.rms_err = std::sqrt(s.sq_err / n);
      s.a.rms_ulp_err = n_ulp > 0 ? std::sqrt(s.sq_ulp / n_ulp) : 0.0;
      s.a.rel_rms_err = s.sq_exact > 0 ? std::sqrt(s.sq_err / s.sq_exact) : 0.0;
      s.a.floor_rel_rms = s.sq_exact > 0 ? std::sqrt(s.floor_sq_err / s.sq_exact) : 0.0;
      s.a.rms_to_floor = s.a.floor_rel_rms > 0 ? s.a.rel_rms_err / s.a.floor_rel_rms : 0.0;
    }
    out.push_back(s.a);
  }
  return out;
}

}  // namespace cdna::audit
