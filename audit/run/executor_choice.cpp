#include "audit/run/executor_choice.hpp"

#include <iostream>
#include <stdexcept>

#include "device/hip_executor.hpp"
#include "audit/output/exit_codes.hpp"

namespace cdna::audit {
namespace {
bool notes_quiet = false;
bool fallback_said = false;  // the note once per process, however many executors are made
}  // namespace

void set_executor_notes_quiet(bool quiet) { notes_quiet = quiet; }

ChosenExecutor choose_executor(const std::string& name) {
  ChosenExecutor c;
  if (name != "simulator") {
    std::string why_not;
    c.executor = device::make_hip_executor(why_not);
    if (!c.executor) {
      if (name == "hip") throw ExecutorUnavailable(why_not);
      if (!notes_quiet && !fallback_said)
        std::cerr << "cdna-verify: " << why_not << "; falling back to the CDNA3 simulator\n";
      fallback_said = true;
    }
  }
  if (!c.executor) {
    auto s = std::make_unique<simulator::SimulatorExecutor>();
    c.sim = s.get();
    c.executor = std::move(s);
  }
  return c;
}

}  // namespace cdna::audit
