// The JUnit report of `cdna-verify audit --junit FILE` (audit/output/junit.hpp; conventions in
// docs/ci.md "JUnit output").
#pragma once

#include <chrono>
#include <vector>

#include "numerics/bf16.hpp"
#include "audit/report/audit_result.hpp"
#include "audit/output/junit.hpp"

namespace cdna::audit {

// Suite "cdna-verify.audit": one testcase per case x mode x kernel, classname
// "cdna-verify.audit.<kernel>", name "<case id> <MODE>"; the decode cases under kernel
// "decode-monokernel". A failed verdict is a <failure type="verdict"> whose message is the row's
// first failure line; a rejected case (outside the kernel's features) or a decode case whose
// bounds decide nothing is <skipped> with the reason. A case rejected before any mode ran (its
// row's mode "-") gives one testcase per audited mode in `modes`, each with the row's verdict.
// Suite "cdna-verify.audit.mutation-testing" (only when the kill matrices ran): one testcase per
// mutant or control of the attention kill matrix (classname
// "cdna-verify.audit.mutation.attention-fwd") and of the decode kill matrix
// ("cdna-verify.audit.mutation.decode-monokernel"); a mutant no check of ours kills, or a control
// one of our checks fails, is a <failure type="mutation">. It tests the verifier, not the
// audited kernel, and does not change the exit code (docs/mutation-testing.md).
std::vector<junit::TestSuite> audit_junit(const AuditResult& result, const std::vector<numerics::Rounding>& modes,
                                          std::chrono::system_clock::time_point started);

}  // namespace cdna::audit
