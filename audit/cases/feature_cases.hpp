// The audit's cases of the extended definition (docs/semantics.md, issue 12), each with an exact
// fact derived by hand from the definition: C05 and C11 of ../shared/cases/README.md as varlen
// problems, and one case per feature (W01, W02, P01, SC01, SK01, DV01, F01, F02).
#pragma once

#include <vector>

#include "audit/cases/audit_cases.hpp"

namespace cdna::audit {

// C05 (varlen, Sk_b 0/7/0) and C11 (a padded KV cache whose unused slots are NaN): varlen
// problems run through the kernel's varlen launcher.
std::vector<AuditCase> varlen_handed_cases();

// Varlen problems around the peers' 256-row query tiles, no mask and causal bottom-right:
//  tiles-varlen/packed  B 3, heads 2/1, (Sq_b, Sk_b) = (1, 256), (257, 300), (300, 385), packed;
//  tiles-varlen/padded  B 2, heads 2/2, (255, 257), (17, 33), 5 NaN rows before each next start.
// Exact fact: no NaN in the rows the sequences own.
std::vector<AuditCase> varlen_tile_cases();

// Paged decode batches around AITER paged attention's 16-slot pages and GQA groups (D 128, page
// 16, a shuffled block table with two spare pages, +0 in unused slots and pages unless said):
//  tiles-paged-decode/gqa8   B 4, heads 8/1, used lengths 1, 16, 17, 300;
//  tiles-paged-decode/gqa16  B 3, heads 32/2, 15, 256, 513;
//  tiles-paged-decode/gqa4   B 2, heads 16/4, 33, 1000;
//  tiles-paged-decode/long   B 1, heads 16/1, 8193;
//  tiles-paged-decode/mtp2   B 3, heads 8/1, 2 query rows per sequence, causal, 2, 40, 300;
//  tiles-paged-decode/mtp4   B 2, heads 16/4, 4 query rows per sequence, causal, 40, 7;
//  tiles-paged-decode/mtp5   B 1, heads 1/1, 5 query rows per sequence, causal, 5;
//  tiles-paged-decode/empty  B 2, heads 8/1, 0 and 5 (sequence 0 sees no key: O = 0);
//  tiles-paged-decode/nan-slots  B 2, heads 8/1, 17 and 16, NaN in unused slots and pages.
// Exact fact: no NaN in the rows the sequences own.
std::vector<AuditCase> paged_decode_tile_cases();

// One case per feature, in this order:
//  W01  window (0, 0), Sq 16 < Sk 40: row i sees only key i + 24 (its diagonal): O = V of it.
//  W02  window (3, 2) with causal, both alignments (-bottom-right, -top-left), Sq 12 > Sk 8,
//       scale 0 and V_j = j + 1: row i's O = (first + last) / 2 + 1 over its visible keys
//       first..last (closed forms in the source), O = +0.0 and LSE = -inf for rows seeing none.
//  P01  paged KV (page size 16, a shuffled block table, NaN in unused pages and slots): equal bit
//       for bit to the same sequences packed, no NaN.
//  SC01 soft cap 5, causal bottom-right + window (3, 0), Sq 4, Sk 40: keys 0..32 are masked for
//       every row; their K and V are NaN, and the output equals the run with finite values there
//       bit for bit.
//  SK01 sinks {0, -inf} (Hq 2), scale 0, V_j = j + 1, causal Sq 6 > Sk 4: head 0 O = n / 2
//       (P = 1 / (n + 1) with the sink's exp(0)), head 1 O = (n + 1) / 2; rows seeing no key:
//       O = +0.0 and LSE = 0 (head 0, the sink's logit) or -inf (head 1).
//  DV01 D 192, Dv 128 (AITER's shape), Sk 1: O = V of the one key in all 128 columns.
//  F01/F02 fp8 e4m3fnuz / e5m2fnuz, per-(batch, KV head) descale factors, Sk 1: O = dv(b, g) x V
//       exactly (dv are powers of two).
std::vector<AuditCase> audit_feature_cases();

}  // namespace cdna::audit
