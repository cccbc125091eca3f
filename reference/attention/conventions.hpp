// The special-value conventions of the definition (docs/semantics.md §5) that a kernel may
// follow differently, and the failure note that names them (docs/pass-rule.md, "Convention
// failures"). A row whose exact LSE is not finite is one of:
//   - no visible key (§5.1, §5.5): O = +0.0, LSE = −inf (LSE = s_h with a finite sink);
//   - a NaN score among the visible keys (§5.4): O = NaN, LSE = NaN;
//   - +inf score(s) (§5.6, a choice): with one +inf key whose V column is a number, O = V of that
//     key; with two or more (or that V column NaN), O = NaN; LSE = +inf.
// A kernel that fails such a row follows another convention there (e.g. AITER and MoonMath write
// NaN 0x7FFF on +inf-score rows, AITER writes LSE −inf on NaN-score rows): still a failure, but
// the note says which rule was not followed instead of a generic numeric failure.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace cdna::reference {

enum class RowClass : std::uint8_t { Ordinary, NoVisibleKey, NaNScore, PosInfScore };

// The class of an exact row from its exact LSE; `no_visible_key` makes a row with a finite
// sink (exact LSE = s_h) NoVisibleKey too.
RowClass exact_row_class(double lse_exact, bool no_visible_key = false);

// "row (b=0, h=1, i=2): the definition's +inf-score convention (O = V of the +inf key, LSE =
// +inf) not followed: kernel writes O NaN 0x7FFF in every column, LSE +inf". `o_exact` and
// `o_got` are the row's D elements; `lse_got` is nullptr when the kernel writes no LSE.
std::string convention_note(RowClass cls, std::int64_t b, std::int64_t h, std::int64_t i,
                            std::span<const double> o_exact, std::span<const std::uint16_t> o_got,
                            double lse_exact, const float* lse_got);

}  // namespace cdna::reference
