// CPU mutants for the extended features our kernel does not take (issue 12; docs/mutation-testing.md,
// "Feature mutants"): a CPU model of the declared arithmetic (docs/semantics.md §10, docs/
// error-analysis.md) on problems with a soft cap, fp8 descale, sinks and windows, correct and with
// one mistake each, judged by our verdict (reference::compare_attention on the extended problem)
// and by the peer rules that read only an fp32 reference (MoonMath's and cuDNN's allclose rules of
// reference/attention/peer_rules.hpp, given feature-aware references).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "numerics/bf16.hpp"
#include "reference/attention/attention.hpp"
#include "reference/attention/peer_rules.hpp"

namespace cdna::audit {

enum class FeatureMutant : std::uint8_t {
  None,              // the correct model
  SoftcapAfterMask,  // cap applied after the mask: a masked key's -inf score caps to -c, weight exp(-c - m)
  DescaleTwice,      // fp8 descale factors applied twice: scores times (dq dk)^2, O times dv^2
  SinkDropped,       // the sink left out of the running max and the normaliser
  WindowOffByOne,    // the window's left edge one key too far: j >= diag - left - 1
};
inline constexpr FeatureMutant kFeatureMutants[] = {FeatureMutant::SoftcapAfterMask, FeatureMutant::DescaleTwice,
                                                    FeatureMutant::SinkDropped, FeatureMutant::WindowOffByOne};
std::string_view to_string(FeatureMutant m);  // "SOFTCAP_AFTER_MASK", ..., "CORRECT"

// One output of the CPU model: O [B, Sq, Hq, Dv] bf16 bits, LSE [B, Hq, Sq] fp32 (natural log).
struct CpuOutput {
  std::vector<std::uint16_t> o;
  std::vector<float> lse;
};

// The declared arithmetic on the CPU, in fp32 (each operation rounded to fp32, sequential sums):
// per row, S_j = ((q·k_j · σ) · dq) · dk over the element values (bf16, or fp8 converted exactly),
// S_j <- c·tanh(S_j / c) when capped, visible keys from reference::visible_range; m = the max over
// the visible scores and the sink; p_j = exp(S_j − m); l = Σ p_j + exp(s_h − m); P_j = p_j rounded
// to bf16 in `mode`; acc = Σ P_j V_j (V exact in fp32); O = (acc / l) · dv rounded to bf16 in
// `mode`; LSE = m + log l. A row with no visible key and no sink: O = +0.0, LSE = −inf; with a
// finite sink: O = +0.0, LSE = s_h. `mutant` makes the one mistake it names. Throws
// std::invalid_argument as reference::validate does.
CpuOutput cpu_attention(const reference::AttentionProblem& problem, numerics::Rounding mode,
                        FeatureMutant mutant = FeatureMutant::None);

// The fp32 references of the peer suites for a problem with features (the suites' attention_ref
// with soft cap, window, sinks and descale, in fp32): `upcast` is the model above without any
// rounding to bf16 (MoonMath's fp32 SDPA); `blocked` rounds P to bf16 (RTNE) and not O, over the
// whole row as one block (cuDNN's reference for Sk <= 64; docs/mutation-testing.md). Other fields
// of PeerReferences are left empty: only moonmath_rule and cudnn_rule may read them.
reference::PeerReferences feature_peer_references(const reference::AttentionProblem& problem);

// The cases of the feature matrix: F1 soft cap 8 (causal, Sq = Sk = 32), F2 fp8 e4m3 with descale
// 1.0078125 on Q, K, V, F3 sinks (causal, two heads), F4 window (128, 0) with causal at Sq = Sk = 160.
struct FeatureCase {
  std::string id, description;
  reference::AttentionProblem problem;
};
std::vector<FeatureCase> feature_cases();

// One cell: a mutant (or the correct model) on one case.
struct FeatureCell {
  std::string case_id;
  // Our verdict: nullopt when compare_attention does not take the problem yet (the reason in
  // `ours_note`): an explicit "not judged", never a pass or a kill.
  std::optional<bool> ours_pass;
  std::string ours_note;
  bool moonmath_pass = false, cudnn_pass = false;
};
struct FeatureRow {
  FeatureMutant mutant = FeatureMutant::None;
  std::vector<FeatureCell> cells;
};
// Every mutant and the correct model on every case, in RTNE.
std::vector<FeatureRow> run_feature_matrix();

// The matrix as text: one line per mutant, columns ours / MoonMath / cuDNN with the cases each
// kills ("killed on F1", "missed", "not judged: ...").
std::string feature_matrix_text(const std::vector<FeatureRow>& rows);

}  // namespace cdna::audit
