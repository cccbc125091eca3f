// The crafted rounding-mode cases R01, … (docs/golden-files.md, docs/mutation-testing.md): problems
// whose O every kernel with the declared arithmetic computes exactly before its final bf16
// rounding (reference/attention/exact_rows.hpp), with exact values placed on bf16 ties of both parities
// and above half-ULPs, so that a kernel rounding in RTNE, RTNA or RTZ gives different bits and
// the verdict in any other declared mode fails it. Used by the audit's handed cases, the golden
// set and the mutation-testing inputs.
#pragma once

#include <string>
#include <vector>

#include "reference/attention/attention.hpp"

namespace cdna::audit {

struct RoundingCase {
  std::string id;           // "R01"
  std::string description;  // one line
  std::string inputs;       // how Q, K, V are made
  std::string seeds;        // the seeds used, as golden files record them
  reference::AttentionProblem problem;
};

// R01: B 1, Sq = Sk = 64, Hq = Hkv = 1, D 64, causal bottom-right, scale 0; Q, K = randn (seeds
// 8100, 8101); V integers in ±[1, 256], built so that for the rows with n = 2, 4, …, 64 visible
// keys the mean of each column's first n values (|mean| in [128, 192), sign alternating with
// the column) is, cycling with column and n: a tie whose lower-magnitude neighbour is even
// (RTNE and RTZ round down in magnitude, RTNA up), a tie whose lower neighbour is odd (RTNE
// and RTNA up, RTZ down), or a value 3/4 of an ULP above a bf16 number (RTNE and RTNA up, RTZ
// down; an exact bf16 value for n = 2, which cannot hold a quarter).
std::vector<RoundingCase> rounding_cases();

// The same construction at D 128, the head dim of the peer kernels (AITER FMHA v3, MoonMath),
// which do not take R01, and with Q = 0 and scale fl(1/sqrt(128)) in place of scale 0 (AITER
// gives NaN for scale 0; docs/error-analysis.md §13 (a)): R02 causal bottom-right, heads 1/1; R03
// mask none, heads 4/4 (MoonMath takes neither a mask nor GQA), every row seeing all 64 keys. In the audit's handed cases;
// not in the golden set or the mutation-testing inputs (R01 covers our kernel there).
std::vector<RoundingCase> rounding_cases_d128();

}  // namespace cdna::audit
