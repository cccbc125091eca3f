// Static hazard check of a decoded kernel (`cdna-verify lint`): walks every path of the
// kernel's control flow with the simulator's hazard rules (simulator/checks/hazard.hpp) and reports
// every producer/consumer pair with fewer wait states than a rule needs on some path.
//
// The state at an instruction is, per producer instruction, the smallest number of wait states
// since it on any path reaching there (a join keeps the minimum over its incoming paths); loops
// are iterated to a fixed point. A producer leaves the state once its window (the largest count
// any of its rules needs) has passed; it stops counting for a rule once a later producer of that
// rule has written all its registers on every path to the consumer (simulator::supersedes: only
// the latest writer of a register is checked, as LLVM and the hardware do). Paths the walk cannot follow (s_setpc_b64, s_swappc_b64,
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
  bool llvm_only = false;                 // an LLVM-only rule: listed, never makes the kernel unclean
};

struct LintResult {
  std::vector<LintFinding> findings;  // in pc order, one per consumer and rule (the worst producer)
  std::vector<std::string> notes;     // paths not followed, one line each
  std::size_t instructions = 0;       // reachable instructions walked
  // Findings of documented rules (HazardSource::Isa); the others are LLVM-only.
  std::size_t documented() const {
    std::size_t n = 0;
    for (const auto& f : findings) n += !f.llvm_only;
    return n;
  }
  // Clean: no finding of a documented rule, and every path followed (a path not followed is not
  // known to be clean). LLVM-only findings are listed but leave a kernel clean.
  bool clean() const { return documented() == 0 && notes.empty(); }
};

// Lints one decoded kernel (SimulatorExecutor::program).
LintResult lint_program(const simulator::Program& program);

// "pc 0x1c 'v_add_f32_e32 v7, v6, v1': VALU read of a transcendental result (v6) 0 wait states
// after pc 0x18 'v_exp_f32_e32 v6, v1'; needs 1 (rule trans-use, <source>)"
std::string describe(const LintFinding& f);

}  // namespace cdna::audit
