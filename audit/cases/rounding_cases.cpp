#include "audit/cases/rounding_cases.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include "numerics/bf16.hpp"
#include "reference/attention/inputs.hpp"

namespace cdna::audit {
namespace {

// Uniform integer in [lo, hi] from a generator whose output the C++ standard fixes.
std::int64_t draw(std::mt19937_64& gen, std::int64_t lo, std::int64_t hi) {
  return lo + static_cast<std::int64_t>(gen() % static_cast<std::uint64_t>(hi - lo + 1));
}

// Four times the target mean magnitude of the first n = 2^k values of column d: a + 1/2 or
// a + 3/4 with a in [128, 191] (bf16 ULP 1 there). The kind cycles with d + k: 0 a tie whose
// lower neighbour a is even, 1 a tie whose lower neighbour is odd, 2 three quarters of an ULP
// above a (n = 2 cannot hold a quarter: a itself, exact). One key (k = 0): a itself.
std::int64_t target_quarters(std::mt19937_64& gen, std::int64_t d, int k) {
  std::int64_t a = draw(gen, 128, 191);
  if (k == 0) return 4 * a;  // one key: V itself, exact
  switch ((d + k) % 3) {
    case 0: a &= ~std::int64_t{1}; return 4 * a + 2;          // a + 1/2, a even
    case 1: a |= 1; return 4 * a + 2;                          // a + 1/2, a odd
    default: return k == 1 ? 4 * a : 4 * a + 3;                // a + 3/4 (a for n = 2)
  }
}

// Column d of V over keys 0..63: integers in [1, 256] (times the column's sign) whose prefix
// means over n = 1, 2, 4, ..., 64 keys are the targets above.
std::vector<std::int64_t> column(std::mt19937_64& gen, std::int64_t d) {
  std::vector<std::int64_t> v(64);
  std::int64_t prev_sum = 0;  // sum of keys [0, n/2)
  for (int k = 0; k <= 6; ++k) {
    const std::int64_t n = std::int64_t{1} << k, first = k == 0 ? 0 : n / 2, count = n - first;
    const std::int64_t sum = target_quarters(gen, d, k) * n / 4;  // exact: n·quarters divisible by 4 for n >= 4
    const std::int64_t add = sum - prev_sum;                     // in (64, 256)·count
    for (std::int64_t j = first; j < n; ++j) v[static_cast<std::size_t>(j)] = add / count + (j - first < add % count ? 1 : 0);
    // Move value between random pairs of the new keys: the sum stays, the values spread.
    for (std::int64_t r = 0; r < count; ++r) {
      auto& x = v[static_cast<std::size_t>(draw(gen, first, n - 1))];
      auto& y = v[static_cast<std::size_t>(draw(gen, first, n - 1))];
      if (&x == &y) continue;
      const std::int64_t m = draw(gen, 0, std::min<std::int64_t>(256 - x, y - 1));
      x += m;
      y -= m;
    }
    prev_sum = sum;
  }
  return v;
}

}  // namespace

namespace {

// B 1, Sq = Sk = 64, Hq = Hkv = heads, D = head_dim, scale 0; Q, K = randn (seeds q_seed,
// q_seed + 1); V column by column from mt19937_64(v_seed), heads after each other.
RoundingCase make_case(std::string id, std::int64_t head_dim, std::int64_t heads, reference::Mask mask,
                       std::uint64_t q_seed, std::uint64_t v_seed, bool zero_q = false) {
  RoundingCase c;
  c.id = std::move(id);
  auto& p = c.problem;
  p.shape = {1, 64, 64, heads, heads, head_dim};
  p.mask = mask;
  p.scale = 0.0f;
  reference::fill_randn(p, q_seed);
  if (zero_q) {
    // Every score 0 through Q = 0 rather than scale 0 (docs/error-analysis.md §13 (a)).
    std::fill(p.q.begin(), p.q.end(), std::uint16_t{0});
    p.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(head_dim)));
  }
  std::mt19937_64 gen(v_seed);
  for (std::int64_t h = 0; h < heads; ++h)
    for (std::int64_t d = 0; d < head_dim; ++d) {
      const std::vector<std::int64_t> col = column(gen, d);
      const double sign = d % 2 == 0 ? 1.0 : -1.0;
      for (std::int64_t j = 0; j < 64; ++j)
        p.v[static_cast<std::size_t>((j * heads + h) * head_dim + d)] = numerics::bf16_from_f32(
            static_cast<float>(sign * static_cast<double>(col[static_cast<std::size_t>(j)])),
            numerics::Rounding::RTNE);  // integers <= 256: exact
    }
  c.seeds = "q=" + std::to_string(q_seed) + " k=" + std::to_string(q_seed + 1) +
            " (reference::randn_bf16); V: mt19937_64 seed " + std::to_string(v_seed) + " in audit/cases/rounding_cases.cpp";
  return c;
}

}  // namespace

std::vector<RoundingCase> rounding_cases() {
  RoundingCase c = make_case("R01", 64, 1, reference::Mask::CausalBottomRight, 8100, 8102);
  c.description =
      "Sq = Sk = 64 causal, scale 0, integer V: rows of 2^k keys compute their mean exactly, placed on bf16 ties "
      "of both parities and above half-ULPs, so RTNE, RTNA and RTZ give different bits";
  c.inputs =
      "Q, K = randn; V = integers in +-[1, 256] (audit/cases/rounding_cases.cpp, mt19937_64 seed 8102) whose means over "
      "keys 0..n-1, n = 2..64 a power of two, are ties (lower neighbour even or odd) or 3/4 ULP above a bf16 number; "
      "scale 0";
  return {c};
}

std::vector<RoundingCase> rounding_cases_d128() {
  RoundingCase causal = make_case("R02", 128, 1, reference::Mask::CausalBottomRight, 8200, 8202, true);
  causal.description = "R01 at D 128 (the peer kernels' head dim) with Q = 0 and scale 1/sqrt(D) instead of scale 0: "
                       "causal, rows of 2^k keys, exact means on ties of both parities and above half-ULPs";
  causal.inputs = "Q = 0, K = randn (seed 8201), scale fl(1/sqrt(128)); V as R01 from mt19937_64 seed 8202";
  RoundingCase none = make_case("R03", 128, 4, reference::Mask::None, 8300, 8302, true);
  none.description = "D 128, mask none, heads 4/4, Q = 0: every row the exact mean of 64 integer keys, on ties of "
                     "both parities or 3/4 ULP above, cycling with the column (kernels without causal or GQA)";
  none.inputs = "as R02 with 64 keys visible to every row, heads 4, V from mt19937_64 seed 8302";
  return {causal, none};
}

}  // namespace cdna::audit
