// The per-mode rounding audit of report.json and report.html: for each bf16 rounding mode, the
// signed error of O against the exact oracle pooled over every compared case of that mode —
// bias (mean signed error, absolute and in bf16 ULPs), RMS error, max ULP error, a histogram
// of the signed ULP error — from per-case sums (OErrorSums) carried in CaseResult.
// (The sums live here, not in reference::AttentionComparison, so that compare_attention and its
// verdict stay untouched; they cover the same elements: finite exact O with finite kernel O.)
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace cdna::audit {

struct AuditResult;

// Sums over the O elements whose exact value and kernel value are finite, of the error signed
// away from zero, e = (O_kernel − O_exact)·sign(O_exact) (negative: toward zero, so RTZ's lean
// shows whatever the signs of O; issue 23 §6), and, over those of them not near zero in their row
// (|O_exact| >= reference::ulp_figure_limit of the row; issue 23 §6), of its bf16 ULPs
// e / bf16_ulp(O_exact).
struct OErrorSums {
  static constexpr int kUlpHistogramHalfWidth = 4;  // bins −4..+4 plus one tail each side
  std::int64_t elements = 0;
  std::int64_t near_zero = 0;  // of `elements`, those left out of the ULP sums and histograms
  double sum_err = 0, sum_sq_err = 0, sum_sq_exact = 0, sum_ulp_err = 0, sum_sq_ulp_err = 0;
  // Count per signed ULP error rounded to the nearest integer k: [0] k < −4, [5 + k] for
  // |k| <= 4, [10] k > 4.
  std::array<std::int64_t, 2 * kUlpHistogramHalfWidth + 3> ulp_histogram{};
  // Count per |e| in bf16 ULPs of O_exact, u = |e| / bf16_ulp(O_exact): [0] u = 0 (the exact
  // value's bits), [1] 0 < u <= 0.5 (what a correctly rounded nearest result may err), [2] u <= 1
  // (what a correctly rounded RTZ result may err), [3] u <= 2, [4] u > 2.
  std::array<std::int64_t, 5> abs_ulp_histogram{};
};

// The sums of kernel O (bf16 bits) against exact O (same layout, rows of `row_length` = Dv
// consecutive values: [B, Sq, Hq, Dv], varlen [total_q, Hq, Dv], sampled rows × Dv). Throws
// std::invalid_argument if the sizes differ or are not a whole number of rows.
OErrorSums o_error_sums(std::span<const std::uint16_t> o, std::span<const double> exact, std::size_t row_length);

struct ModeAudit {
  std::string mode;             // "RTNE", "RTNA", "RTZ"
  int cases = 0;                // compared cases of this mode
  std::int64_t elements = 0;    // finite O elements pooled
  std::int64_t near_zero = 0;   // of them, near zero in their row: not in the ULP figures
  double mean_err = 0;          // mean of e (signed away from zero, as OErrorSums)
  double mean_ulp_err = 0;      // mean of e / ulp_bf16(O_exact) over the elements not near zero
  double rms_err = 0;           // sqrt(mean of e²)
  double rms_ulp_err = 0;       // the same in ULPs, over the elements not near zero
  double rel_rms_err = 0;       // pooled ‖O_kernel − O_exact‖₂ / ‖O_exact‖₂
  double max_ulp_err = 0;       // max |err| in ULPs over the cases (max_ulp_err_o: not near zero)
  // The floor model's pooled relative RMS error (reference/attention/floor.hpp) over the same cases, from
  // each case's floor_rel_rms_o weighted by its ‖O_exact‖₂², and rel_rms_err / that (the pass
  // rule allows <= 2 per case, docs/pass-rule.md); 0 when the floor is 0.
  double floor_rel_rms = 0;
  double rms_to_floor = 0;
  decltype(OErrorSums::ulp_histogram) histogram{};
  decltype(OErrorSums::abs_ulp_histogram) abs_histogram{};
};

// Bin labels of OErrorSums::ulp_histogram: "<-4", "-4", ..., "+4", ">+4".
std::vector<std::string> ulp_bin_labels();

// Bin labels of OErrorSums::abs_ulp_histogram: "0", "<=0.5", "<=1", "<=2", ">2".
std::vector<std::string> abs_ulp_bin_labels();

// One entry per mode that has at least one compared case, in order of first appearance.
std::vector<ModeAudit> rounding_audit(const AuditResult& result);

}  // namespace cdna::audit
