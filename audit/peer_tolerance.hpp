// A peer kernel's own test suite's pass rule on one audit output, reported beside our verdict
// (issue 25 §3): what the kernel's authors would have concluded from the same output. It never
// changes the verdict. Rules from reference/attention/peer_rules.hpp:
//  - aiter-fmha-v3: AITER op_tests/test_mha.py, max|O − ref| <= max(2·max|O_bf16 − ref|, 0.01)
//    (reference::aiter_rule);
//  - aiter-pa: AITER op_tests/test_pa.py and test_pa_mtp.py, |O − ref| <= 0.01 + 0.01·|ref|
//    (reference::aiter_pa_rule);
//  - moonmath: MoonMath's kernel tests, |O − ref| <= 0.05 + 0.05·|ref| (reference::moonmath_rule).
// Other kernels have none here.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "reference/attention/attention.hpp"
#include "reference/attention/varlen.hpp"

namespace cdna::audit {

struct PeerTolerance {
  bool pass = false;
  std::string text;  // "AITER test_mha.py rule: pass, max|O - ref| 0.0037 <= 0.01"
};

// The rule of `kernel` on O of a dense problem ([B, Sq, Hq, Dv] bf16 bits) or of a varlen one
// (O [rows_q, Hq, Dv]; each sequence judged as its own problem, the worst reported); nullopt
// for a kernel without a rule here or a problem the rule's references do not take (Dv ≠ D or an
// extended feature: the references are the base definition's). Throws std::invalid_argument on
// sizes.
std::optional<PeerTolerance> peer_tolerance(std::string_view kernel, const reference::AttentionProblem* dense,
                                            const reference::VarlenProblem* varlen, std::span<const std::uint16_t> o);

}  // namespace cdna::audit
