// The per-mode rounding audit: the |error| histogram in bf16 ULPs of the exact value and the
// pooled floor, on hand-made outputs whose counts are derived in the comments.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "audit/report/audit_result.hpp"
#include "audit/report/rounding_audit.hpp"

namespace cdna::audit {
namespace {

// In [1, 2) a bf16 ULP is 2^-7 (numerics/bf16.hpp). Kernel 1.0 = 0x3F80, 1 + 2^-7 = 0x3F81.
TEST(RoundingAudit, AbsoluteUlpHistogram) {
  const double u = std::ldexp(1.0, -7), nan = std::numeric_limits<double>::quiet_NaN();
  //   exact            kernel    |e| in ULPs   bin
  //   1                1.0       0             "0"
  //   1 + u/2          1.0       0.5           "<=0.5"  (a tie: nearest may err half an ULP)
  //   1 + u/2          1 + u     0.5           "<=0.5"  (the other side of the tie)
  //   1 + 3u/4         1.0       0.75          "<=1"
  //   1 + 3u/2         1.0       1.5           "<=2"
  //   1 + 3u           1.0       3             ">2"
  //   NaN              1.0       -             not counted (exact not finite)
  //   1                NaN       -             not counted (kernel not finite)
  const std::vector<double> exact{1, 1 + u / 2, 1 + u / 2, 1 + 0.75 * u, 1 + 1.5 * u, 1 + 3 * u, nan, 1};
  const std::vector<std::uint16_t> o{0x3F80, 0x3F80, 0x3F81, 0x3F80, 0x3F80, 0x3F80, 0x3F80, 0x7FC0};
  const OErrorSums s = o_error_sums(o, exact, exact.size());
  EXPECT_EQ(s.elements, 6);
  EXPECT_EQ(s.near_zero, 0);
  const std::array<std::int64_t, 5> want{1, 2, 1, 1, 1};
  EXPECT_EQ(s.abs_ulp_histogram, want);
  EXPECT_EQ(abs_ulp_bin_labels(), (std::vector<std::string>{"0", "<=0.5", "<=1", "<=2", ">2"}));
}

// Issue 23 §6: truncation toward zero on O of both signs. Exact ±(1 + 3u/4), kernel ±1.0 (RTZ's
// result): the plain signed errors -0.75 and +0.75 ULP cancel; signed away from zero both are
// -0.75 ULP, the bias RTZ's lean is said to show.
TEST(RoundingAudit, BiasIsSignedAwayFromZero) {
  const double u = std::ldexp(1.0, -7);
  const std::vector<double> exact{1 + 0.75 * u, -(1 + 0.75 * u)};
  const std::vector<std::uint16_t> o{0x3F80, 0xBF80};  // 1.0, -1.0
  const OErrorSums s = o_error_sums(o, exact, 2);
  EXPECT_EQ(s.elements, 2);
  EXPECT_DOUBLE_EQ(s.sum_ulp_err, -1.5);
  EXPECT_DOUBLE_EQ(s.sum_err, -1.5 * u);
  EXPECT_EQ(s.ulp_histogram[static_cast<std::size_t>(OErrorSums::kUlpHistogramHalfWidth)], 2);  // bin "-1"
}

// Issue 23 §6: the ULP figures leave out elements near zero in their row (below one bf16 ULP of
// the row's largest |O_exact|), row by row. Rows of 2, the kernel writing 0 for exact 2^-12:
//   row 0: exact (1, 2^-12): limit bf16_ulp(1) = 2^-7 > 2^-12: near zero, not in the ULP sums;
//   row 1: exact (2^-12, 2^-12), kernel (2^-12, 0): limit 2^-19: counted, -2^-12 / 2^-19 = -128 ULPs.
// Both errors enter the absolute sums (signed away from zero: -2^-12 each).
TEST(RoundingAudit, NearZeroElementsStayOutOfTheUlpFigures) {
  const double t = std::ldexp(1.0, -12);
  const std::vector<double> exact{1, t, t, t};
  const std::vector<std::uint16_t> o{0x3F80, 0x0000, 0x3980, 0x0000};  // 1, 0, 2^-12, 0
  const OErrorSums s = o_error_sums(o, exact, 2);
  EXPECT_EQ(s.elements, 4);
  EXPECT_EQ(s.near_zero, 1);
  EXPECT_DOUBLE_EQ(s.sum_err, -2 * t);
  EXPECT_DOUBLE_EQ(s.sum_ulp_err, -128);
  EXPECT_EQ(s.ulp_histogram[0], 1);  // "<-4"
  EXPECT_EQ(s.ulp_histogram[static_cast<std::size_t>(OErrorSums::kUlpHistogramHalfWidth + 1)], 2);  // "0"
  EXPECT_EQ(s.abs_ulp_histogram, (std::array<std::int64_t, 5>{2, 0, 0, 0, 1}));
  EXPECT_THROW(o_error_sums(o, exact, 3), std::invalid_argument);  // 4 values are not rows of 3

  AuditResult r;  // pooled: the ULP mean over the 3 elements not near zero, the error mean over 4
  CaseResult c;
  c.mode = "RTNE";
  c.compared = true;
  c.o_sums = s;
  r.rows.push_back(c);
  const ModeAudit a = rounding_audit(r).at(0);
  EXPECT_EQ(a.near_zero, 1);
  EXPECT_DOUBLE_EQ(a.mean_ulp_err, -128.0 / 3);
  EXPECT_DOUBLE_EQ(a.mean_err, -2 * t / 4);
}

// Two RTNE cases: ‖O_exact‖² 4 and 12, floor rel-RMS 0.01 and 0.02, so the floor's squared
// errors are 4·1e-4 and 12·4e-4, pooled sqrt((4e-4 + 4.8e-3) / 16) = sqrt(3.25e-4); the kernel's
// squared errors 1.6e-3 and 0: rel-RMS sqrt(1.6e-3 / 16) = 0.01; ratio 0.01 / sqrt(3.25e-4).
TEST(RoundingAudit, PooledFloorAndHistogramPerMode) {
  AuditResult r;
  for (int k = 0; k < 2; ++k) {
    CaseResult c;
    c.mode = "RTNE";
    c.compared = true;
    c.o_sums.elements = 10;
    c.o_sums.sum_sq_exact = k == 0 ? 4 : 12;
    c.o_sums.sum_sq_err = k == 0 ? 1.6e-3 : 0;
    c.o_sums.abs_ulp_histogram = {k, 1, 2, 3, 4};
    c.comparison.floor_rel_rms_o = k == 0 ? 0.01 : 0.02;
    r.rows.push_back(c);
  }
  CaseResult other;  // another mode, not pooled with RTNE
  other.mode = "RTZ";
  other.compared = true;
  other.o_sums.abs_ulp_histogram = {0, 0, 0, 0, 7};
  r.rows.push_back(other);
  const std::vector<ModeAudit> a = rounding_audit(r);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].abs_histogram, (std::array<std::int64_t, 5>{1, 2, 4, 6, 8}));
  EXPECT_NEAR(a[0].rel_rms_err, 0.01, 1e-15);
  EXPECT_NEAR(a[0].floor_rel_rms, std::sqrt(3.25e-4), 1e-15);
  EXPECT_NEAR(a[0].rms_to_floor, 0.01 / std::sqrt(3.25e-4), 1e-12);
  EXPECT_EQ(a[1].abs_histogram, (std::array<std::int64_t, 5>{0, 0, 0, 0, 7}));
  EXPECT_EQ(a[1].rms_to_floor, 0);  // no floor: no ratio
}

}  // namespace
}  // namespace cdna::audit
