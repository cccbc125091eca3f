// Static hazard check of a decoded kernel (`cdna-verify lint`): walks every path of the
// kernel's control flow with the simulator's hazard rules (simulator/checks/hazard.hpp) and reports
// every producer/consumer pair with fewer wait states than a rule needs on some path.
//
// The state at an instruction is, per producer instruction, the smallest number of wait states
// since it on any path reaching there (a join keeps the minimum over its incoming paths); loops
// are iterated to a fixed point. A producer leaves the state once its window (the largest count
// any of its rules needs) has passed. Paths the walk cannot follow (s_setpc_b64, s_swappc_b64,
// an instruction that does not decode or the simulator does not model) are reported as notes:
// code after them is not checked.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "simulator/decode/isa.hpp"

namespace cdna::audit {

struct LintFinding {
  std::uint64_t pc = 0, producer_pc = 0;  // byte offsets from the kernel's code entry
  std::string consumer, producer;         // disassembly
  std::string rule, what, reg, source;    // the rule (simulator/checks/hazard_rules.cpp)
  int need = 0, present = 0;              // wait states
};

struct LintResult {
  std::vector<LintFinding> findings;  // in pc order, one per consumer and rule (the worst producer)
  std::vector<std::string> notes;     // paths not followed, one line each
  std::size_t instructions = 0;       // reachable instructions walked
  // Clean: no finding, and every path followed (a path not followed is not known to be clean).
  bool clean() const { return findings.empty() && notes.empty(); }
};

// Lints one decoded kernel (SimulatorExecutor::program).
LintResult lint_program(const simulator::Program& program);

// "pc 0x1c 'v_add_f32_e32 v7, v6, v1': VALU read of a transcendental result (v6) 0 wait states
// after pc 0x18 'v_exp_f32_e32 v6, v1'; needs 1 (rule trans-use, <source>)"
std::string describe(const LintFinding& f);

}  // namespace cdna::audit
