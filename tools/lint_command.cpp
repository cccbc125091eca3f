// `cdna-verify lint` (tools/lint_command.hpp).
#include "tools/lint_command.hpp"
#include "audit/output/summary_line.hpp"

#include <iostream>
#include <stdexcept>

#include "simulator/schedule/simulator_executor.hpp"
#include "audit/lint/lint.hpp"
#include "tools/sim_command.hpp"

namespace cdna::tools {

using namespace cdna::audit;  // the engine (audit/README.md)

LintCommand::LintCommand(CLI::App& app) {
  lint_ = app.add_subcommand(
      "lint",
      "Static hazard check of hand-written gfx942 code: walk every path of each kernel's control flow "
      "(loops to a fixed point, the fewest wait states at a join) with the simulator's hazard rules "
      "(simulator/README.md \"Hazard rules\") and print every pair of instructions with too few wait "
      "states: kernel, pc, both instructions, wait states needed and present, the rule's source (ISA "
      "case, or LLVM only). Exit 0 if no finding of a documented rule and every path was followed "
      "(findings of LLVM-only rules are listed and counted, never an exit 1), 1 if any such finding "
      "or a path that could not be followed (s_setpc_b64, an instruction the simulator does not "
      "decode), 2 on bad input.");
  lint_->add_option("CODE_OBJECT", code_object_, "gfx942 code object (.hsaco/.co)")->required();
  lint_->add_option("KERNEL", kernel_, "Only this kernel (default: every kernel of the code object)");
}

bool LintCommand::parsed() const { return lint_->parsed(); }

int LintCommand::run() {
  summary().start("lint");
  const auto bytes = read_whole_file(code_object_, "code object");
  simulator::SimulatorExecutor ex;
  ex.set_code_object_label(code_object_);
  const auto& co = ex.code_object(bytes);
  std::vector<std::string> kernels;
  if (!kernel_.empty()) {
    co.kernel(kernel_);  // throws naming the kernels there are
    kernels.push_back(kernel_);
  } else {
    for (const auto& k : co.kernels()) kernels.push_back(k.name);
  }
  std::size_t findings = 0, documented = 0, notes = 0, instructions = 0;
  bool clean = true;
  for (const auto& k : kernels) {
    const LintResult r = lint_program(*ex.program(bytes, k));
    clean = clean && r.clean();
    for (const auto& f : r.findings) std::cout << k << ": " << describe(f) << "\n";
    for (const auto& n : r.notes) std::cout << k << ": note: " << n << "\n";
    findings += r.findings.size();
    documented += r.documented();
    notes += r.notes.size();
    instructions += r.instructions;
  }
  std::cout << "lint: " << kernels.size() << " kernel(s), " << instructions << " instructions, " << findings
            << " hazard finding(s) (" << documented << " of documented rules, " << findings - documented
            << " LLVM-only), " << notes << " path(s) not followed\n";
  summary().set("kernels", kernels.size());
  summary().set("findings", findings);
  summary().set("documented", documented);
  summary().set("llvm_only", findings - documented);
  summary().set("not_followed", notes);
  return clean ? 0 : 1;
}

}  // namespace cdna::tools
