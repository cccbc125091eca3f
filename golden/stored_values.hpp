// Sanity of the reference values a golden file stores (o_exact, lse_exact, o_bound, lse_bound,
// o_floor), checked against the definition (docs/semantics.md) without re-deriving them: cheap
// enough to run on every read, before a candidate is judged. The digest (golden/digest.hpp)
// catches a file edited after it was written; these checks catch a file that was written wrong
// (a tool bug, a hand-made file). Rules and their reasons: docs/golden-files.md, "Stored values".
#pragma once

#include <string>

#include "golden/golden_file.hpp"

namespace cdna::golden {

// "" if every stored value is possible under the definition, else one line naming the first
// tensor element that is not and why. Sizes must already match the shape (from_safetensors
// checks them first). A varlen file is checked per sequence (reference::sequence_problem; the
// first line names it), rows no sequence owns are not checked. Per row (b, i, h), with n = the
// keys its mask and window let it see (reference::visible_range), inputs read as values of the
// file's dtype times their descale factors:
//   - finite inputs (Q row, and K and V rows of its n keys, all finite): o_exact finite
//     (a convex combination of V), lse_exact finite if n > 0, and if n = 0 lse_exact = -inf
//     (the head's sink s_h if finite: docs/semantics.md), O = +0.0, o_bound 0 and lse_bound 0
//     (unless a finite sink makes LSE a computed value); NaN or an infinity in the exact values of such a row is the
//     file's fault;
//   - o_bound, lse_bound: >= 0, NaN exactly where the exact value is NaN; +inf where the exact
//     value is finite only if the row has a non-finite input, or for some visible key
//     S = sum_d |Q_d K_d| has S * max(1, 2|scale|) >= 2^120 (fp32 may overflow: 2^128) or
//     |scale| * D * S >= 2^40 (scores near 2^49, where the bound's double evaluation of P gives
//     up; derivation in docs/golden-files.md);
//   - o_floor: a bf16 value everywhere, finite where o_exact is finite.
std::string stored_values_problem(const GoldenFile& g);

}  // namespace cdna::golden
