// Exit codes of every cdna-verify subcommand (README "Exit codes", `cdna-verify --help`), so that
// CI can tell "the kernel is wrong" from "the runner is broken".
#pragma once

#include <stdexcept>

namespace cdna::audit {

enum ExitCode : int {
  kExitPass = 0,                 // something was judged and every verdict passed
  kExitFail = 1,                 // a verdict failed: the kernel (or a golden file's bits) is wrong
  kExitBadInput = 2,             // bad input or tool error; also NOTHING JUDGED
  kExitExecutorUnavailable = 3,  // the executor asked for cannot run here (no HIP runtime or device)
};

// Thrown when the executor named on the command line cannot run (e.g. `--executor hip` with no
// gfx942 device); main turns it into kExitExecutorUnavailable.
class ExecutorUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace cdna::audit
