// compare_sampled: the pass rule on a seeded sample of query rows judges each sampled row as
// compare_attention judges it in the whole problem, and the other rows by the facts derivable
// without the oracle.
#include "reference/attention/sampled_compare.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "reference/attention/fast_reference.hpp"
#include "reference/attention/floor.hpp"
#include "reference/attention/inputs.hpp"

namespace cdna::reference {
namespace {

using numerics::Rounding;

// A correct kernel's output: the floor model's O (bf16 values) and the exact LSE in fp32.
struct Output {
  std::vector<std::uint16_t> o;
  std::vector<float> lse;
};
Output correct_output(const AttentionProblem& p, Rounding mode) {
  Output out;
  for (double x : attention_floor_output(p, mode)) out.o.push_back(numerics::bf16_from_f32(static_cast<float>(x), mode));
  for (double x : attention_forward_exact(p).lse) out.lse.push_back(static_cast<float>(x));
  return out;
}

std::size_t o_index(const AttentionShape& s, std::int64_t b, std::int64_t h, std::int64_t i, std::int64_t d) {
  return static_cast<std::size_t>(((b * s.seqlen_q + i) * s.heads_q + h) * s.dv() + d);
}

// A row of (b, h) that the seeded sample leaves out, and one it takes.
std::pair<std::int64_t, std::int64_t> unsampled_and_sampled(const AttentionShape& s, std::int64_t b, std::int64_t h,
                                                            std::int64_t k, std::uint64_t seed) {
  FastOptions f;
  f.sample_rows = k;
  f.seed = seed;
  const std::vector<std::int64_t> rows = sampled_query_rows(s, b, h, f);
  std::int64_t out = -1;
  for (std::int64_t i = 0; i < s.seqlen_q && out < 0; ++i)
    if (std::find(rows.begin(), rows.end(), i) == rows.end()) out = i;
  return {out, rows.front()};
}

class EveryRowSampled : public ::testing::TestWithParam<Mask> {};

// With every row in the sample, the verdict and figures are those of compare_attention.
TEST_P(EveryRowSampled, EqualsTheWholeComparison) {
  for (Rounding mode : {Rounding::RTNE, Rounding::RTZ}) {
    const AttentionProblem p = randn_problem({2, 9, 37, 4, 2, 64}, GetParam(), 31);
    const Output out = correct_output(p, mode);
    const AttentionComparison whole = compare_attention(p, attention_forward_exact(p), out.o, out.lse, mode);
    const SampledComparison s = compare_sampled(p, exact_sample(p, 9, 5), out.o, out.lse, mode, true);
    const AttentionComparison& c = s.comparison;
    EXPECT_TRUE(whole.pass()) << whole.first_failure;
    EXPECT_EQ(c.pass(), whole.pass()) << c.first_failure;
    EXPECT_EQ(s.rows_judged, 2 * 4 * 9);
    EXPECT_EQ(s.rows_total, 2 * 4 * 9);
    EXPECT_EQ(c.o_judged, whole.o_judged);
    EXPECT_EQ(c.o_exact_facts, whole.o_exact_facts);
    EXPECT_EQ(c.lse_judged, whole.lse_judged);
    EXPECT_EQ(c.max_abs_err_o, whole.max_abs_err_o);
    EXPECT_EQ(c.max_err_to_bound_o, whole.max_err_to_bound_o);
    EXPECT_EQ(c.max_err_to_bound_lse, whole.max_err_to_bound_lse);
    // The RMS sums run in another order (row after row): equal to a few roundings.
    EXPECT_NEAR(c.rel_rms_err_o, whole.rel_rms_err_o, 1e-12 * whole.rel_rms_err_o);
    EXPECT_NEAR(c.floor_rel_rms_o, whole.floor_rel_rms_o, 1e-12 * whole.floor_rel_rms_o);
  }
}
INSTANTIATE_TEST_SUITE_P(Masks, EveryRowSampled,
                         ::testing::Values(Mask::None, Mask::CausalBottomRight, Mask::CausalTopLeft));

TEST(CompareSampled, JudgesTheSeededRowsAndChecksTheRestFinite) {
  const AttentionProblem p = randn_problem({1, 40, 50, 2, 1, 64}, Mask::None, 7);
  const Output out = correct_output(p, Rounding::RTNE);
  const SampledComparison s = compare_sampled(p, exact_sample(p, 3, 11), out.o, out.lse, Rounding::RTNE, true);
  EXPECT_TRUE(s.comparison.pass()) << s.comparison.first_failure;
  EXPECT_EQ(s.rows_judged, 2 * 3);
  EXPECT_EQ(s.rows_checked_finite, 2 * 40 - 6);
  EXPECT_EQ(s.comparison.o_judged, 6 * 64);
  EXPECT_EQ(s.o_sampled.size(), 6u * 64);
  EXPECT_EQ(s.exact_o_sampled.size(), 6u * 64);
  EXPECT_EQ(s.summary(),
            "sampled: 6 of 80 query rows judged exactly against the MPFR oracle (3 per head of each batch, seed 11, and "
            "any row without a visible key); the other 74 checked finite only");
}

TEST(CompareSampled, AWrongSampledRowFails) {
  const AttentionProblem p = randn_problem({1, 40, 50, 2, 1, 64}, Mask::None, 7);
  Output out = correct_output(p, Rounding::RTNE);
  const auto [unsampled, sampled] = unsampled_and_sampled(p.shape, 0, 1, 3, 11);
  out.o[o_index(p.shape, 0, 1, sampled, 5)] ^= 0x0040;  // a flipped exponent bit: far outside the bound
  const SampledComparison s = compare_sampled(p, exact_sample(p, 3, 11), out.o, out.lse, Rounding::RTNE, true);
  EXPECT_FALSE(s.comparison.pass());
  EXPECT_EQ(s.comparison.o_violations, 1);
  EXPECT_NE(s.comparison.first_failure.find("query row (b=0, h=1, i=" + std::to_string(sampled) + ")"), std::string::npos)
      << s.comparison.first_failure;
}

TEST(CompareSampled, ANonFiniteUnsampledRowFails) {
  const AttentionProblem p = randn_problem({1, 40, 50, 2, 1, 64}, Mask::None, 7);
  const auto [unsampled, sampled] = unsampled_and_sampled(p.shape, 0, 0, 3, 11);
  for (bool in_lse : {false, true}) {
    Output out = correct_output(p, Rounding::RTNE);
    if (in_lse)
      out.lse[static_cast<std::size_t>(unsampled)] = std::numeric_limits<float>::infinity();
    else
      out.o[o_index(p.shape, 0, 0, unsampled, 3)] = 0x7FC0;  // NaN
    const SampledComparison s = compare_sampled(p, exact_sample(p, 3, 11), out.o, out.lse, Rounding::RTNE, true);
    EXPECT_FALSE(s.comparison.pass()) << in_lse;
    EXPECT_EQ(s.comparison.semantic_violations, 1);
    EXPECT_NE(s.comparison.first_failure.find("query row (b=0, h=0, i=" + std::to_string(unsampled) + ") (not sampled"),
              std::string::npos)
        << s.comparison.first_failure;
  }
}

// The limit of sampling, stated: a finite wrong value in a row outside the sample is not seen.
TEST(CompareSampled, AFiniteErrorOutsideTheSampleIsNotSeen) {
  const AttentionProblem p = randn_problem({1, 40, 50, 2, 1, 64}, Mask::None, 7);
  Output out = correct_output(p, Rounding::RTNE);
  const auto [unsampled, sampled] = unsampled_and_sampled(p.shape, 0, 0, 3, 11);
  out.o[o_index(p.shape, 0, 0, unsampled, 3)] ^= 0x0040;
  EXPECT_TRUE(compare_sampled(p, exact_sample(p, 3, 11), out.o, out.lse, Rounding::RTNE, true).comparison.pass());
  EXPECT_FALSE(compare_sampled(p, exact_sample(p, 40, 11), out.o, out.lse, Rounding::RTNE, true).comparison.pass());
}

// Rows without a visible key are judged by their exact facts whether sampled or not.
TEST(CompareSampled, RowsWithoutKeysAreAlwaysJudged) {
  const AttentionProblem p = randn_problem({1, 30, 10, 1, 1, 64}, Mask::CausalBottomRight, 8);  // rows 0-19: no key
  Output out = correct_output(p, Rounding::RTNE);
  SampledComparison s = compare_sampled(p, exact_sample(p, 2, 3), out.o, out.lse, Rounding::RTNE, true);
  EXPECT_TRUE(s.comparison.pass()) << s.comparison.first_failure;
  EXPECT_GE(s.rows_judged, 20);
  out.o[o_index(p.shape, 0, 0, 4, 0)] = 0x8000;  // -0.0: not the +0.0 the definition gives
  s = compare_sampled(p, exact_sample(p, 2, 3), out.o, out.lse, Rounding::RTNE, true);
  EXPECT_FALSE(s.comparison.pass());
  EXPECT_NE(s.comparison.first_failure.find("query row (b=0, h=0, i=4)"), std::string::npos) << s.comparison.first_failure;
}

TEST(CompareSampled, RefusesWhatItCannotJudge) {
  AttentionProblem p = randn_problem({1, 8, 8, 1, 1, 64}, Mask::None, 9);
  const Output out = correct_output(p, Rounding::RTNE);
  EXPECT_THROW(compare_sampled(p, exact_sample(p, 0, 1), out.o, out.lse, Rounding::RTNE, true), std::invalid_argument);
  p.window_left = 2;
  EXPECT_THROW(compare_sampled(p, exact_sample(p, 2, 1), out.o, out.lse, Rounding::RTNE, true), std::invalid_argument);
  p.window_left = -1;
  p.softcap = 30;
  EXPECT_THROW(compare_sampled(p, exact_sample(p, 2, 1), out.o, out.lse, Rounding::RTNE, true), std::invalid_argument);
  p.softcap = 0;
  EXPECT_THROW(compare_sampled(p, exact_sample(p, 2, 1), std::span(out.o).first(10), out.lse, Rounding::RTNE, true),
               std::invalid_argument);
  const AttentionProblem larger = randn_problem({1, 20, 8, 2, 1, 64}, Mask::None, 9);
  EXPECT_THROW(compare_sampled(p, exact_sample(larger, 20, 1), out.o, out.lse, Rounding::RTNE, true),
               std::invalid_argument);
}

}  // namespace
}  // namespace cdna::reference
