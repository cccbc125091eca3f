#include "reference/attention/conventions.hpp"

#include <cmath>
#include <cstdio>
#include <limits>

#include "numerics/bf16.hpp"

namespace cdna::reference {
namespace {

std::string bf16_text(std::uint16_t bits) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%g 0x%04X", static_cast<double>(numerics::f32_from_bf16(bits)), bits);
  std::string s = buf;
  if (s.rfind("nan", 0) == 0 || s.rfind("-nan", 0) == 0) s = "NaN" + s.substr(s.find(' '));
  return s;
}

std::string value_text(double x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "+inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

// Whether stored O bits hold the definition's value of a special row: NaN (any bits), or the
// value itself — on these rows it is +0.0, ±inf or a V entry, each a bf16 value exactly.
bool o_meets(double exact, std::uint16_t got) {
  const double g = static_cast<double>(numerics::f32_from_bf16(got));
  // A zero result is +0.0 (docs/semantics.md §5.8): -0.0 (0x8000) does not meet it.
  if (exact == 0) return got == 0x0000;
  return std::isnan(exact) ? std::isnan(g) : g == exact;
}

}  // namespace

RowClass exact_row_class(double lse_exact, bool no_visible_key) {
  if (no_visible_key) return RowClass::NoVisibleKey;
  if (std::isnan(lse_exact)) return RowClass::NaNScore;
  if (lse_exact == std::numeric_limits<double>::infinity()) return RowClass::PosInfScore;
  if (lse_exact == -std::numeric_limits<double>::infinity()) return RowClass::NoVisibleKey;
  return RowClass::Ordinary;
}

std::string convention_note(RowClass cls, std::int64_t b, std::int64_t h, std::int64_t i,
                            std::span<const double> o_exact, std::span<const std::uint16_t> o_got,
                            double lse_exact, const float* lse_got) {
  std::string rule;
  switch (cls) {
    case RowClass::Ordinary: return "";
    case RowClass::NoVisibleKey:
      rule = std::isfinite(lse_exact) ? "the definition's no-visible-key convention with a sink (O = +0.0, LSE = the sink logit " +
                                            value_text(lse_exact) + ")"
                                      : "the definition's no-visible-key convention (O = +0.0, LSE = -inf)";
      break;
    case RowClass::NaNScore:
      rule = "the definition's NaN-score rule (a NaN score among the visible keys: O = NaN, LSE = NaN)";
      break;
    case RowClass::PosInfScore: {
      bool all_nan = true;
      for (double x : o_exact) all_nan = all_nan && std::isnan(x);
      rule = all_nan ? "the definition's +inf-score convention (two or more +inf scores, or the +inf key's V NaN: "
                       "O = NaN, LSE = +inf)"
                     : "the definition's +inf-score convention (O = V of the +inf key, LSE = +inf)";
      break;
    }
  }
  // What the kernel wrote: the first column not meeting the definition, and whether every column
  // holds the same bits; then the LSE if it is not the definition's.
  std::string wrote;
  for (std::size_t d = 0; d < o_got.size(); ++d) {
    if (o_meets(o_exact[d], o_got[d])) continue;
    bool uniform = true;
    for (std::uint16_t x : o_got) uniform = uniform && x == o_got[d];
    wrote = "O " + bf16_text(o_got[d]) + (uniform ? " in every column" : " at d=" + std::to_string(d)) +
            " (the definition: " + value_text(o_exact[d]) + ")";
    break;
  }
  if (lse_got) {
    const double l = static_cast<double>(*lse_got);
    if (!(l == lse_exact || (std::isnan(l) && std::isnan(lse_exact))))
      wrote += std::string(wrote.empty() ? "" : ", ") + "LSE " + value_text(l);
  }
  if (wrote.empty()) wrote = "what the definition gives (no column differs)";
  return "row (b=" + std::to_string(b) + ", h=" + std::to_string(h) + ", i=" + std::to_string(i) + "): " + rule +
         " not followed: kernel writes " + wrote;
}

}  // namespace cdna::reference
