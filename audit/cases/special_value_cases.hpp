// Problems with NaN and inf inputs for `cdna-verify compare` (docs/compare.md): the rows where
// kernels follow different special-value conventions (docs/semantics.md §5, docs/pass-rule.md
// "Convention failures"), which the audit's cases do not hold. D = 128 (the head dim both our
// kernel and AITER FMHA v3 take), seeded randn inputs with a few entries replaced.
#pragma once

#include <vector>

#include "audit/cases/audit_cases.hpp"

namespace cdna::audit {

// S01 one +inf score per row (key 3's K[0] = +inf, every Q[0] > 0: O = V of key 3);
// S02 two +inf keys (O = NaN); S03 a NaN in Q row 1 (row 1: O = NaN, LSE = NaN);
// S04 an inf in V of key 2 (columns of that V entry ±inf); S05 -inf score on every key of row 0
// (K[0] = -inf on all keys and Q[0] of row 0 > 0, Q[0] of the other rows < 0: row 0 sees no
// key, the others see +inf scores). Each B1 Sq4 Sk8 H1/1, no mask.
std::vector<AuditCase> special_value_cases();

}  // namespace cdna::audit
