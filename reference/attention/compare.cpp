#include "reference/attention/compare.hpp"

#include "reference/attention/conventions.hpp"
#include "reference/attention/exact_rows.hpp"
#include "reference/attention/floor.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace cdna::reference {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double bf16_value(std::uint16_t bits) { return static_cast<double>(numerics::f32_from_bf16(bits)); }

struct RowContext {
  std::int64_t b, h, i;
};

std::string where(const RowContext& r, std::int64_t d) {
  std::ostringstream s;
  s << "b=" << r.b << " h=" << r.h << " i=" << r.i;
  if (d >= 0) s << " d=" << d;
  return s.str();
}

void require_sizes(const AttentionProblem& problem, const AttentionResult& exact, std::span<const std::uint16_t> o,
                   std::span<const float> lse, bool lse_given) {
  const AttentionShape& s = problem.shape;
  if (std::ssize(o) != s.o_elements() || (lse_given && std::ssize(lse) != s.lse_elements()) ||
      std::ssize(exact.o) != s.o_elements() || std::ssize(exact.lse) != s.lse_elements()) {
    throw std::invalid_argument("compare_attention: output sizes do not match the shape");
  }
}

}  // namespace

double ulp_figure_limit(std::span<const double> exact_row) {
  double largest = 0;
  for (double x : exact_row)
    if (std::isfinite(x)) largest = std::max(largest, std::abs(x));
  return numerics::bf16_ulp(largest);
}

AttentionComparison compare_elements(const AttentionProblem& problem, const AttentionResult& exact,
                                     std::span<const std::uint16_t> o, std::span<const float> lse,
                                     numerics::Rounding mode, bool lse_given, const AttentionBounds& bounds) {
  require_sizes(problem, exact, o, lse, lse_given);
  if (bounds.o.size() != exact.o.size() || bounds.lse.size() != exact.lse.size()) {
    throw std::invalid_argument("compare_elements: bounds sizes do not match the shape");
  }
  const AttentionShape& s = problem.shape;
  const std::int64_t D = s.dv(), Sq = s.seqlen_q;  // O's row length (Dv)
  const std::vector<double> exact_pre = exactly_computed_o(problem);  // NaN: not decided

  AttentionComparison c;
  auto fail = [&](const std::string& what) {
    if (c.first_failure.empty()) c.first_failure = what;
  };

  for (std::int64_t b = 0; b < s.batch; ++b) {
    for (std::int64_t h = 0; h < s.heads_q; ++h) {
      for (std::int64_t i = 0; i < Sq; ++i) {
        const RowContext rc{b, h, i};
        const std::int64_t o_row = ((b * Sq + i) * s.heads_q + h) * D;
        const std::int64_t lse_idx = (b * s.heads_q + h) * Sq + i;
        const double lse_exact = exact.lse[static_cast<std::size_t>(lse_idx)];
        const double lse_got = lse_given ? static_cast<double>(lse[static_cast<std::size_t>(lse_idx)]) : lse_exact;

        // The row's judgement; a row whose exact LSE is not finite that fails is a convention
        // failure (reference/attention/conventions.hpp): counted apart, its note naming the rule.
        auto judge_row = [&] {
          // Exact semantic fact: a row with no visible key is O = +0.0, LSE = -inf.
          // With a finite sink s_h the same row is O = +0.0 with LSE = s_h, judged by its bound
          // (docs/error-analysis.md §17).
          const bool no_key = visible_range(problem, i).count == 0;
          if (no_key && lse_exact != -kInf) {
            bool ok = true;
            for (std::int64_t d = 0; d < D; ++d) ok = ok && o[static_cast<std::size_t>(o_row + d)] == 0;
            if (!ok) {
              ++c.semantic_violations;
              fail("row " + where(rc, -1) + " has no visible key and is not O = +0.0");
            }
          }
          if (lse_exact == -kInf) {
            c.o_judged += D;
            c.o_exact_facts += D;
            c.lse_judged += lse_given;
            bool ok = lse_got == -kInf;
            for (std::int64_t d = 0; d < D; ++d) ok = ok && o[static_cast<std::size_t>(o_row + d)] == 0;
            if (!ok) {
              ++c.semantic_violations;
              fail("fully masked row " + where(rc, -1) + " is not O = +0.0, LSE = -inf");
            }
            return;
          }

          const double ulp_limit =
              ulp_figure_limit(std::span(exact.o).subspan(static_cast<std::size_t>(o_row), static_cast<std::size_t>(D)));
          for (std::int64_t d = 0; d < D; ++d) {
            const double o_exact = exact.o[static_cast<std::size_t>(o_row + d)];
            const double o_got = bf16_value(o[static_cast<std::size_t>(o_row + d)]);
            ++c.o_judged;
            if (!std::isfinite(o_exact)) ++c.o_exact_facts;
            if (std::isnan(o_exact)) {
              if (!std::isnan(o_got)) {
                ++c.semantic_violations;
                fail("O " + where(rc, d) + " is " + std::to_string(o_got) + " where the definition gives NaN");
              }
              continue;
            }
            const double bound = bounds.o[static_cast<std::size_t>(o_row + d)];
            if (std::isfinite(o_exact) && std::isinf(bound)) {  // fp32 may overflow: nothing claimed
              --c.o_judged;
              ++c.o_out_of_range;
              continue;
            }
            if (std::isinf(o_exact)) {  // a visible infinite V with nonzero weight
              if (o_got != o_exact) {
                ++c.semantic_violations;
                fail("O " + where(rc, d) + " is " + std::to_string(o_got) + " where the definition gives " +
                     std::to_string(o_exact));
              }
              continue;
            }
            if (!std::isfinite(o_got)) {
              ++c.semantic_violations;
              fail("O " + where(rc, d) + " is " + std::to_string(o_got) + " where the exact value is finite");
              continue;
            }
            // Exact fact: rows every correct kernel computes exactly before rounding (exact_rows.hpp).
            const double pre = exact_pre[static_cast<std::size_t>(o_row + d)];
            if (!std::isnan(pre) && !exact_o_holds(pre, o[static_cast<std::size_t>(o_row + d)], mode)) {
              ++c.semantic_violations;
              fail("O " + where(rc, d) + " " + exact_o_violation(pre, o[static_cast<std::size_t>(o_row + d)], mode));
            }
            const double err = std::abs(o_got - o_exact);
            c.max_abs_err_o = std::max(c.max_abs_err_o, err);
            if (std::abs(o_exact) >= ulp_limit) c.max_ulp_err_o = std::max(c.max_ulp_err_o, err / numerics::bf16_ulp(o_exact));
            c.max_err_to_bound_o = std::max(c.max_err_to_bound_o, err / bound);
            if (!(err <= bound)) {
              ++c.o_violations;
              std::ostringstream m;
              m << "O " << where(rc, d) << " = " << o_got << ", exact " << o_exact << ", |err| " << err
                << " > bound " << bound;
              fail(m.str());
            }
          }

          // LSE = ln2 * (m + log2 l) in fp32 (§5). A NaN or +inf exact LSE (NaN or +inf scores)
          // is a fact the kernel must reproduce exactly.
          if (!lse_given) return;
          const double lse_bound = bounds.lse[static_cast<std::size_t>(lse_idx)];
          if (std::isfinite(lse_exact) && std::isfinite(static_cast<float>(lse_exact)) && std::isinf(lse_bound)) {
            ++c.lse_out_of_range;  // fp32 may overflow in the declared arithmetic: nothing claimed
            return;
          }
          ++c.lse_judged;
          if (!std::isfinite(lse_exact)) {
            if (!(lse_got == lse_exact || (std::isnan(lse_exact) && std::isnan(lse_got)))) {
              ++c.semantic_violations;
              fail("LSE " + where(rc, -1) + " is " + std::to_string(lse_got) + " where the definition gives " +
                   std::to_string(lse_exact));
            }
            return;
          }
          // An exact LSE beyond fp32's range (scores near 2^128 and above): its nearest fp32 value
          // is ±inf, the only right answer of an fp32 LSE, whatever the bound (+inf there).
          if (const double nearest = static_cast<float>(lse_exact); std::isinf(nearest)) {
            if (lse_got != nearest) {
              ++c.semantic_violations;
              fail("LSE " + where(rc, -1) + " is " + std::to_string(lse_got) + " where the exact value, beyond fp32's range, "
                   "rounds to " + std::to_string(nearest));
            }
            return;
          }
          if (!std::isfinite(lse_got)) {
            ++c.semantic_violations;
            fail("LSE " + where(rc, -1) + " is " + std::to_string(lse_got) + " where the exact value is finite");
            return;
          }
          const double lse_err = std::abs(lse_got - lse_exact);
          c.max_abs_err_lse = std::max(c.max_abs_err_lse, lse_err);
          c.max_err_to_bound_lse = std::max(c.max_err_to_bound_lse, lse_err / lse_bound);
          if (!(lse_err <= lse_bound)) {
            ++c.lse_violations;
            std::ostringstream m;
            m << "LSE " << where(rc, -1) << " = " << lse_got << ", exact " << lse_exact << ", |err| " << lse_err
              << " > bound " << lse_bound;
            fail(m.str());
          }
        };
        const std::int64_t violations_before = c.o_violations + c.lse_violations + c.semantic_violations;
        const bool failure_before = !c.first_failure.empty();
        judge_row();
        const RowClass cls = exact_row_class(lse_exact, visible_range(problem, i).count == 0);
        if (cls != RowClass::Ordinary && c.o_violations + c.lse_violations + c.semantic_violations > violations_before) {
          ++c.convention_rows;
          if (!failure_before) {
            const auto at = static_cast<std::size_t>(o_row), n = static_cast<std::size_t>(D);
            c.first_failure = convention_note(cls, b, h, i, std::span(exact.o).subspan(at, n), o.subspan(at, n), lse_exact,
                                              lse_given ? &lse[static_cast<std::size_t>(lse_idx)] : nullptr);
          }
        }
      }
    }
  }
  return c;
}

void judge_floor_rule(AttentionComparison& c, std::span<const double> got, std::span<const double> exact,
                      std::span<const double> flush, std::span<const double> floor) {
  // Rule 4 with the bound's flush allowance taken out of each element's error: what the declared
  // flushes may move an element is not rounding error, and the floor does not flush.
  c.rel_rms_err_o = relative_rms_error(got, exact, flush);
  // Elements beyond the declared arithmetic's range (infinite allowance) are left out of both.
  std::vector<double> skip;
  if (std::any_of(flush.begin(), flush.end(), [](double f) { return std::isinf(f); })) {
    skip.resize(flush.size());
    for (std::size_t n = 0; n < flush.size(); ++n) skip[n] = std::isinf(flush[n]) ? kInf : 0.0;
  }
  c.floor_rel_rms_o = relative_rms_error(floor, exact, skip);
  if (!(c.rel_rms_err_o <= 2 * c.floor_rel_rms_o)) {
    c.floor_violation = true;
    if (c.first_failure.empty()) {
      std::ostringstream m;
      m << "relative RMS error of O " << c.rel_rms_err_o << " > 2 x floor " << c.floor_rel_rms_o;
      c.first_failure = m.str();
    }
  }
}

void merge_elements(AttentionComparison& c, const AttentionComparison& s, const std::string& piece) {
  c.max_abs_err_o = std::max(c.max_abs_err_o, s.max_abs_err_o);
  c.max_ulp_err_o = std::max(c.max_ulp_err_o, s.max_ulp_err_o);
  c.max_err_to_bound_o = std::max(c.max_err_to_bound_o, s.max_err_to_bound_o);
  c.max_abs_err_lse = std::max(c.max_abs_err_lse, s.max_abs_err_lse);
  c.max_err_to_bound_lse = std::max(c.max_err_to_bound_lse, s.max_err_to_bound_lse);
  c.o_violations += s.o_violations;
  c.lse_violations += s.lse_violations;
  c.semantic_violations += s.semantic_violations;
  c.convention_rows += s.convention_rows;
  c.o_judged += s.o_judged;
  c.lse_judged += s.lse_judged;
  c.o_exact_facts += s.o_exact_facts;
  c.o_out_of_range += s.o_out_of_range;
  c.lse_out_of_range += s.lse_out_of_range;
  if (c.first_failure.empty() && !s.first_failure.empty()) c.first_failure = piece + s.first_failure;
}

AttentionComparison compare_attention(const AttentionProblem& problem, const AttentionResult& exact,
                                      std::span<const std::uint16_t> o, std::span<const float> lse,
                                      numerics::Rounding mode, bool lse_given) {
  require_sizes(problem, exact, o, lse, lse_given);
  const AttentionBounds bounds = attention_bounds(problem, exact, mode);
  AttentionComparison c = compare_elements(problem, exact, o, lse, mode, lse_given, bounds);
  std::vector<double> got(o.size());
  for (std::size_t n = 0; n < o.size(); ++n) got[n] = bf16_value(o[n]);
  judge_floor_rule(c, got, exact.o, bounds.o_flush, attention_floor_output(problem, mode));
  note_nothing_judged(c);
  return c;
}

void note_nothing_judged(AttentionComparison& c) {
  if (!c.first_failure.empty() || c.violations()) return;
  if (!c.complete()) {
    std::ostringstream m;
    m << "nothing judged: " << c.o_out_of_range << " O element(s) and " << c.lse_out_of_range
      << " LSE value(s) are beyond the declared arithmetic's range (fp32 may overflow there, so their bound is +inf: "
         "docs/pass-rule.md \"Outcome\"); a verdict needs every element judged";
    c.first_failure = m.str();
  } else if (!c.judged()) {
    c.first_failure = "nothing judged: the output has no element (B, Sq or Hq is 0)";
  }
}

}  // namespace cdna::reference
