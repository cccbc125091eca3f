// The audit's production cases (`audit --set production`, issue 14 item 3): the shapes the
// kernels are benchmarked on, judged on a seeded sample of query rows (reference/attention/sampled_compare.hpp;
// docs/pass-rule.md "Production cases").
#pragma once

#include <string_view>
#include <vector>

#include "audit/cases/audit_cases.hpp"

namespace cdna::audit {

// Query rows judged exactly per (batch, head) of a production case; the rest are checked finite.
inline constexpr std::int64_t kProductionSampleRows = 64;

// The production cases of `kernel` (an adapter name), no mask, randn inputs, D 128:
//  prod/h8-sq4096-sk4096    B 1, heads 8/8, Sq = Sk = 4096 (the peers' benchmark shape; for
//                           aiter-fmha-v3 and moonmath)
//  prod/h1-sq1024-sk33000   B 1, heads 1/1, Sq 1024, Sk 33000 (past 32768 keys, as C14, at a
//                           large Sq; for attention-fwd, ours)
std::vector<AuditCase> production_cases(std::string_view kernel);

}  // namespace cdna::audit
