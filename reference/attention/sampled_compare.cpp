#include "reference/attention/sampled_compare.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <mpfr.h>

#include "reference/attention/bound.hpp"
#include "reference/attention/fast_reference.hpp"
#include "reference/attention/floor.hpp"
#include "reference/common/parallel_for.hpp"

namespace cdna::reference {
namespace {

double value(std::uint16_t bits) { return static_cast<double>(numerics::f32_from_bf16(bits)); }

bool all_finite(const std::vector<std::uint16_t>& bits) {
  return std::all_of(bits.begin(), bits.end(), [](std::uint16_t x) { return std::isfinite(value(x)); });
}

// max |x| over the D values of each row of `bits` ([rows, D]).
std::vector<double> row_max_abs(const std::vector<std::uint16_t>& bits, std::int64_t D) {
  std::vector<double> m(bits.size() / static_cast<std::size_t>(D), 0.0);
  for (std::size_t n = 0; n < bits.size(); ++n) {
    double& x = m[n / static_cast<std::size_t>(D)];
    x = std::max(x, std::abs(value(bits[n])));
  }
  return m;
}

// Far below fp32's largest finite value (~3.4e38): an exact LSE whose magnitude bound stays
// under it is finite in fp32 with room for any rounding of the bound's own double arithmetic.
constexpr double kLseFiniteLimit = 1e37;

void finish(SampledComparison& out) {
  AttentionComparison& c = out.comparison;
  note_nothing_judged(c);
}

}  // namespace

AttentionProblem row_problem(const AttentionProblem& p, std::int64_t b, std::int64_t h, std::int64_t i) {
  const AttentionShape& s = p.shape;
  const KeyRange keys = visible_range(p, i);
  if (keys.count > 0 && keys.first != 0)
    throw std::invalid_argument("row_problem: row " + std::to_string(i) + " sees keys from " +
                                std::to_string(keys.first) + ", expected a range from key 0 (no sliding window)");
  const std::int64_t D = s.head_dim, Dv = s.dv(), hk = h / (s.heads_q / s.heads_kv);
  AttentionProblem r;
  r.shape = {1, 1, keys.count, 1, 1, D, s.head_dim_v};
  r.mask = Mask::None;
  r.scale = p.scale;
  const auto q_at = p.q.begin() + ((b * s.seqlen_q + i) * s.heads_q + h) * D;
  r.q.assign(q_at, q_at + D);
  r.k.reserve(static_cast<std::size_t>(keys.count * D));
  r.v.reserve(static_cast<std::size_t>(keys.count * Dv));
  for (std::int64_t j = 0; j < keys.count; ++j) {
    const auto k_at = p.k.begin() + ((b * s.seqlen_k + j) * s.heads_kv + hk) * D;
    const auto v_at = p.v.begin() + ((b * s.seqlen_k + j) * s.heads_kv + hk) * Dv;
    r.k.insert(r.k.end(), k_at, k_at + D);
    r.v.insert(r.v.end(), v_at, v_at + Dv);
  }
  return r;
}

namespace {

void require_sampleable(const AttentionProblem& problem) {
  validate(problem);
  require_base_definition(problem, "compare_sampled");
  if (problem.window_left != -1 || problem.window_right != -1)
    throw std::invalid_argument("compare_sampled takes no sliding window (a window's keys do not start at key 0)");
}

}  // namespace

ExactSample exact_sample(const AttentionProblem& problem, std::int64_t rows_per_head, std::uint64_t seed) {
  require_sampleable(problem);
  if (rows_per_head < 1)
    throw std::invalid_argument("exact_sample: rows_per_head = " + std::to_string(rows_per_head) + ", expected >= 1");
  const AttentionShape& s = problem.shape;
  ExactSample sample;
  sample.rows_per_head = rows_per_head;
  sample.seed = seed;
  FastOptions sampling;
  sampling.sample_rows = rows_per_head;
  sampling.seed = seed;
  for (std::int64_t b = 0; b < s.batch; ++b)
    for (std::int64_t h = 0; h < s.heads_q; ++h) {
      const std::vector<std::int64_t> rows = sampled_query_rows(s, b, h, sampling);
      for (std::int64_t i = 0; i < s.seqlen_q; ++i)
        // The facts of a row without keys cost nothing, so every such row is judged too.
        if (std::binary_search(rows.begin(), rows.end(), i) || visible_range(problem, i).count == 0)
          sample.rows.push_back({b, h, i, {}});
    }
  // MPFR without thread-local state allows one thread only (as attention_forward_exact).
  const unsigned threads = mpfr_buildopt_tls_p() ? std::max(1u, std::thread::hardware_concurrency()) : 1u;
  parallel_for(std::ssize(sample.rows), threads, [&](unsigned, std::int64_t t) {
    SampledRow& r = sample.rows[static_cast<std::size_t>(t)];
    ExactOptions one;
    one.threads = 1;
    r.exact = attention_forward_exact_with(row_problem(problem, r.b, r.h, r.i), one);
  });
  return sample;
}

SampledComparison compare_sampled(const AttentionProblem& problem, const ExactSample& sample,
                                  std::span<const std::uint16_t> o, std::span<const float> lse,
                                  numerics::Rounding mode, bool lse_given) {
  require_sampleable(problem);
  const AttentionShape& s = problem.shape;
  if (std::ssize(o) != s.o_elements() || (lse_given && std::ssize(lse) != s.lse_elements()))
    throw std::invalid_argument("compare_sampled: output sizes do not match the shape");
  const std::int64_t D = s.head_dim, Dv = s.dv(), Sq = s.seqlen_q;
  for (const SampledRow& r : sample.rows)
    if (r.b >= s.batch || r.h >= s.heads_q || r.i >= Sq || std::ssize(r.exact.o) != Dv)
      throw std::invalid_argument("compare_sampled: the exact sample is not of this problem's shape");

  SampledComparison out;
  out.rows_total = s.batch * s.heads_q * Sq;
  out.rows_per_head = sample.rows_per_head;
  out.seed = sample.seed;
  AttentionComparison& c = out.comparison;
  std::vector<double> got, flush, floor_o;
  auto name = [](std::int64_t b, std::int64_t h, std::int64_t i) {
    return "query row (b=" + std::to_string(b) + ", h=" + std::to_string(h) + ", i=" + std::to_string(i) + ")";
  };
  std::vector<bool> judged(static_cast<std::size_t>(out.rows_total), false);
  for (const SampledRow& r : sample.rows) {
    const std::int64_t o_row = ((r.b * Sq + r.i) * s.heads_q + r.h) * Dv;
    const std::int64_t lse_at = (r.b * s.heads_q + r.h) * Sq + r.i;
    judged[static_cast<std::size_t>(lse_at)] = true;
    const AttentionProblem row = row_problem(problem, r.b, r.h, r.i);
    const AttentionBounds bounds = attention_bounds(row, r.exact, mode);
    const auto row_o = o.subspan(static_cast<std::size_t>(o_row), static_cast<std::size_t>(Dv));
    const auto row_lse = lse_given ? lse.subspan(static_cast<std::size_t>(lse_at), 1) : std::span<const float>{};
    merge_elements(c, compare_elements(row, r.exact, row_o, row_lse, mode, lse_given, bounds),
                   name(r.b, r.h, r.i) + ", judged as the one-row problem of its " +
                       std::to_string(row.shape.seqlen_k) + " keys: ");
    const std::vector<double> f = attention_floor_output(row, mode);
    for (std::uint16_t bits : row_o) got.push_back(value(bits));
    out.o_sampled.insert(out.o_sampled.end(), row_o.begin(), row_o.end());
    out.exact_o_sampled.insert(out.exact_o_sampled.end(), r.exact.o.begin(), r.exact.o.end());
    flush.insert(flush.end(), bounds.o_flush.begin(), bounds.o_flush.end());
    floor_o.insert(floor_o.end(), f.begin(), f.end());
    ++out.rows_judged;
  }
  judge_floor_rule(c, got, out.exact_o_sampled, flush, floor_o);

  // The rows outside the sample: only what finite inputs make derivable.
  const bool finite_inputs = all_finite(problem.q) && all_finite(problem.k) && all_finite(problem.v);
  if (!finite_inputs) {
    finish(out);
    return out;
  }
  const std::vector<double> q_max = row_max_abs(problem.q, D), k_max_row = row_max_abs(problem.k, D);
  std::vector<double> k_max(static_cast<std::size_t>(s.batch * s.heads_kv), 0.0);  // per (b, KV head)
  for (std::size_t r = 0; r < k_max_row.size(); ++r) {
    const std::size_t b = r / static_cast<std::size_t>(s.seqlen_k * s.heads_kv), hk = r % static_cast<std::size_t>(s.heads_kv);
    double& m = k_max[b * static_cast<std::size_t>(s.heads_kv) + hk];
    m = std::max(m, k_max_row[r]);
  }
  auto fail = [&](const std::string& what) {
    ++c.semantic_violations;
    if (c.first_failure.empty()) c.first_failure = what;
  };
  for (std::int64_t b = 0; b < s.batch; ++b)
    for (std::int64_t h = 0; h < s.heads_q; ++h)
      for (std::int64_t i = 0; i < Sq; ++i) {
        const std::int64_t o_row = ((b * Sq + i) * s.heads_q + h) * Dv;
        const std::int64_t lse_at = (b * s.heads_q + h) * Sq + i;
        if (judged[static_cast<std::size_t>(lse_at)]) continue;
        ++out.rows_checked_finite;
        const std::int64_t n = visible_range(problem, i).count;
        for (std::int64_t d = 0; d < Dv; ++d) {
          const double x = value(o[static_cast<std::size_t>(o_row + d)]);
          if (std::isfinite(x)) continue;
          fail(name(b, h, i) + " (not sampled; finite inputs, " + std::to_string(n) + " visible keys): O d=" +
               std::to_string(d) + " is " + std::to_string(x) +
               " where the exact value is finite (a convex combination of finite V)");
          break;
        }
        if (!lse_given) continue;
        const std::size_t hk = static_cast<std::size_t>(b * s.heads_kv + h / (s.heads_q / s.heads_kv));
        const double limit = std::abs(static_cast<double>(problem.scale)) * static_cast<double>(D) *
                                 q_max[static_cast<std::size_t>((b * Sq + i) * s.heads_q + h)] * k_max[hk] +
                             std::log(static_cast<double>(n));
        const float x = lse[static_cast<std::size_t>(lse_at)];
        if (limit < kLseFiniteLimit && !std::isfinite(x))
          fail(name(b, h, i) + " (not sampled): LSE is " + std::to_string(x) +
               " where the exact value is finite (|LSE| <= |scale|·D·max|q|·max|k| + ln n = " + std::to_string(limit) + ")");
      }
  finish(out);
  return out;
}

std::string SampledComparison::summary() const {
  std::ostringstream m;
  m << "sampled: " << rows_judged << " of " << rows_total << " query rows judged exactly against the MPFR oracle ("
    << rows_per_head << " per head of each batch, seed " << seed << ", and any row without a visible key); the other "
    << rows_total - rows_judged;
  if (rows_checked_finite == rows_total - rows_judged)
    m << " checked finite only";
  else
    m << ": " << rows_checked_finite << " checked finite, the rest not judged (non-finite inputs)";
  return m.str();
}

}  // namespace cdna::reference
