#include "audit/cases/special_value_cases.hpp"

#include <cmath>
#include <cstdint>
#include <initializer_list>

#include "reference/attention/inputs.hpp"

namespace cdna::audit {
namespace {

constexpr std::uint16_t kOne = 0x3F80, kPosInf = 0x7F80, kNegInf = 0xFF80, kNaN = 0x7FC0;
constexpr std::int64_t kSq = 4, kSk = 8, kD = 128;

// B1 Sq4 Sk8 H1/1 D128, no mask, randn inputs; Q[i][0] = 1 in every row, so that an infinite
// K[j][0] makes score j infinite with the sign of K[j][0] (the other products are finite).
AuditCase base(const char* id, const char* description, std::uint64_t seed) {
  AuditCase c;
  c.id = id;
  c.description = description;
  c.seed = seed;
  c.problem.shape = {1, kSq, kSk, 1, 1, kD};
  c.problem.mask = reference::Mask::None;
  c.problem.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(kD)));
  reference::fill_randn(c.problem, seed);
  for (std::int64_t i = 0; i < kSq; ++i) c.problem.q[static_cast<std::size_t>(i * kD)] = kOne;
  return c;
}

void set_k0(AuditCase& c, std::initializer_list<std::int64_t> keys, std::uint16_t bits) {
  for (std::int64_t j : keys) c.problem.k[static_cast<std::size_t>(j * kD)] = bits;
}

}  // namespace

std::vector<AuditCase> special_value_cases() {
  std::vector<AuditCase> cases;
  cases.push_back(base("S01", "one +inf score per row (key 3): the definition's O = V of key 3, LSE = +inf", 9001));
  set_k0(cases.back(), {3}, kPosInf);
  cases.push_back(base("S02", "two +inf scores per row (keys 3 and 5): O = NaN, LSE = +inf", 9011));
  set_k0(cases.back(), {3, 5}, kPosInf);
  cases.push_back(base("S03", "a NaN in Q row 1: row 1 O = NaN, LSE = NaN; the other rows finite", 9021));
  cases.back().problem.q[static_cast<std::size_t>(1 * kD + 5)] = kNaN;
  cases.push_back(base("S04", "+inf in V of key 2, column 7: O column 7 = +inf in every row", 9031));
  cases.back().problem.v[static_cast<std::size_t>(2 * kD + 7)] = kPosInf;
  cases.push_back(base("S05", "-inf score on every key: every row sees no key, O = +0.0, LSE = -inf", 9041));
  set_k0(cases.back(), {0, 1, 2, 3, 4, 5, 6, 7}, kNegInf);
  return cases;
}

}  // namespace cdna::audit
