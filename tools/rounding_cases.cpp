#include "tools/rounding_cases.hpp"

#include <random>

#include "numerics/bf16.hpp"
#include "reference/inputs.hpp"

namespace cdna::tools {
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

std::vector<RoundingCase> rounding_cases() {
  RoundingCase c;
  c.id = "R01";
  c.description =
      "Sq = Sk = 64 causal, scale 0, integer V: rows of 2^k keys compute their mean exactly, placed on bf16 ties "
      "of both parities and above half-ULPs, so RTNE, RTNA and RTZ give different bits";
  c.inputs =
      "Q, K = randn; V = integers in +-[1, 256] (tools/rounding_cases.cpp, mt19937_64 seed 8102) whose means over "
      "keys 0..n-1, n = 2..64 a power of two, are ties (lower neighbour even or odd) or 3/4 ULP above a bf16 number; "
      "scale 0";
  c.seeds = "q=8100 k=8101 (reference::randn_bf16); V: mt19937_64 seed 8102 in tools/rounding_cases.cpp";
  auto& p = c.problem;
  p.shape = {1, 64, 64, 1, 1, 64};
  p.mask = reference::Mask::CausalBottomRight;
  p.scale = 0.0f;
  reference::fill_randn(p, 8100);
  std::mt19937_64 gen(8102);
  for (std::int64_t d = 0; d < 64; ++d) {
    const std::vector<std::int64_t> col = column(gen, d);
    const double sign = d % 2 == 0 ? 1.0 : -1.0;
    for (std::int64_t j = 0; j < 64; ++j)
      p.v[static_cast<std::size_t>(j * 64 + d)] =
          numerics::bf16_from_f32(static_cast<float>(sign * static_cast<double>(col[static_cast<std::size_t>(j)])),
                                  numerics::Rounding::RTNE);  // integers <= 256: exact
  }
  return {c};
}

}  // namespace cdna::tools
