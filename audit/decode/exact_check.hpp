// `cdna-verify decode --exact K` (docs/decode-bounds.md): the exact MPFR oracle
// (reference/decode/exact.hpp) run on the first K positions of a decode run, fed the same tokens as
// the kernel's balls, and its logits held against the fast reference's proven distance (its
// double_arithmetic balls widened by exact_logit_error) and against the balls the kernel's logits
// were judged by. A logit outside either is a failure of the run's verdict (decode_check.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "audit/decode/decode_check.hpp"
#include "reference/decode/envelope.hpp"
#include "reference/decode/exact.hpp"
#include "reference/decode/model.hpp"

namespace cdna::audit {

// What `--exact K` found.
struct ExactReport {
  std::int64_t positions = 0;
  double worst_fast_ratio = 0;    // max |exact − mid| / (rad + exact_logit_error), fast reference
  double worst_kernel_ratio = 0;  // the same against the kernel's balls, finite radii only
  std::int64_t outside_fast = 0, outside_kernel = 0, kernel_infinite = 0;
  bool ok() const { return outside_fast == 0 && outside_kernel == 0; }
};

class ExactCheck {
 public:
  // Checks the first `positions` positions of a run of `model`, which must outlive the check.
  ExactCheck(const reference::DecoderModel& model, std::int64_t positions);
  // One position: the oracle and the fast reference step on kernel_balls.token, and the oracle's
  // logits are held against both; nothing once `positions` positions were checked.
  void add(const reference::StepBounds& kernel_balls);
  const ExactReport& report() const { return report_; }
  // A run whose exact logits lay outside fails (outcome Fail, the failure line naming which
  // enclosure); a run that failed already keeps its first failure.
  void judge(DecodeCheck& check) const;

 private:
  std::int64_t limit_;
  reference::ExactDecoder oracle_;
  reference::DecodeEnvelope fast_;
  ExactReport report_;
};

}  // namespace cdna::audit
