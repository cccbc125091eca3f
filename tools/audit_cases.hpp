// The cases `cdna-verify audit` runs: a default matrix over real models' head layouts, and the
// handed edge cases C01–C14 of ../shared/cases/README.md translated into problems, and the
// crafted rounding-mode cases.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "device/attention_launcher.hpp"
#include "reference/attention.hpp"

namespace cdna::tools {

struct AuditCase {
  std::string id;           // "C03", or "llama3-8b/sq17-sk128/causal"
  std::string description;  // one line: what it checks
  std::uint64_t seed = 0;   // Q uses seed, K seed + 1, V seed + 2 (reference::randn_bf16)
  reference::AttentionProblem problem;
  // The kernel must reject this problem (C13: unsupported head dims); running it is a failure.
  bool expect_rejection = false;
  // Non-empty: the case needs a feature no launcher input can express for this kernel
  // (varlen); reported as rejected with this reason, counted apart from pass and fail.
  std::string unsupported_feature;
  // Case-specific exact facts of the handed cases: "" if they hold, else one line.
  std::function<std::string(const reference::AttentionProblem&, const device::AttentionOutput&)>
      exact_facts;
};

// Llama-3-8B (Hq 32, Hkv 8, D 128) and Llama-3.2-1B (Hq 32, Hkv 8, D 64) at sequence lengths
// sized for the simulator, no mask and causal bottom-right.
std::vector<AuditCase> default_matrix();

// Shapes around the peer kernels' query tiles: Sq, Sk ∈ {1, 255, 256, 257, 384, 385, 1000}
// (B 1, heads 1/1, D 128), no mask and causal bottom-right; and B 2, heads 8/2 at three of them.
std::vector<AuditCase> tile_cases();

// C01–C14 (C02 and C13 as two problems each), then the crafted rounding cases R01, …
// (tools/rounding_cases.hpp).
std::vector<AuditCase> handed_cases();

}  // namespace cdna::tools
