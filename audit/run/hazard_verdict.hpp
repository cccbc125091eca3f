// What the simulator's wait-state hazard findings mean for a verdict (simulator/checks/hazard_policy.hpp;
// simulator/README.md "Hazard policy"; docs/peer-kernels.md): which policy a kernel is run under
// when none is given, whether a case fails because its output depends on a hazard site, and the
// lines that list the sites.
#pragma once

#include <string>
#include <vector>

#include "simulator/checks/hazard_policy.hpp"

namespace cdna::audit {

// The hazard policy when none is given: error for our kernel (its wait states are ours to get
// right), differential for a peer kernel (AITER reads MFMA results early, on purpose or by
// timing: the verdict is whether its output depends on it).
std::string default_hazard_policy(const std::string& kernel);
// The policy of both sides of `crosscheck` unless --hazards says otherwise: error for our kernel,
// report for a peer (AITER reads MFMA results early: the simulator's output is then the one its
// timing model gives, to be compared with the device's).
std::string crosscheck_hazard_policy(const std::string& kernel);

// One line per violation site ("hazard: <describe>"), empty when there is none.
std::string hazard_lines(const std::vector<simulator::HazardViolation>& v);
// For executor_settings: "none", or "N sites (B benign, C changes the output, ..., L LLVM only)"
// (an LLVM-only site is counted as such, whatever the policy).
std::string hazard_summary(const std::vector<simulator::HazardViolation>& v);
// A case's hazard verdict, reported beside its numerics verdict (issue 23 §3; docs/peer-kernels.md
// "Two verdicts"): "none" (no site), "llvm-only" (sites of LLVM-only rules only: never a fail),
// "reported" (sites of documented rules, not judged: policy report), "benign" (differential: no
// documented site changes the output), "fails" (differential: one changes it or cannot be judged).
std::string hazard_verdict(const std::vector<simulator::HazardViolation>& v);
// Sites of documented rules, and of LLVM-only rules.
std::size_t documented_sites(const std::vector<simulator::HazardViolation>& v);
std::size_t llvm_only_sites(const std::vector<simulator::HazardViolation>& v);

// "" when no site changes the output or went unjudged under the differential policy; else one
// line: "the output depends on N wait-state hazard site(s) (differential): <first site>".
std::string hazard_failure(const std::vector<simulator::HazardViolation>& v);

}  // namespace cdna::audit
