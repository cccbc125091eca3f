// The error a simulated dispatch raises when the kernel itself is at fault: a wait-state
// violation (hazard), an access outside its buffers, a hung wave or a dispatch past its
// instruction limit, an LDS race, an instruction the simulator does not implement. The tools
// turn it into exit code 1, "a verdict failed" (audit/output/exit_codes.hpp, docs/ci.md): the code
// object as written cannot pass. Its message names kernel, code object, workgroup, wave, pc and
// instruction (simulator/schedule/scheduler.cpp). Launch errors (a bad argument, a grid the launch cannot
// take) stay std::runtime_error / std::invalid_argument: the input is wrong, not the kernel.
#pragma once

#include <stdexcept>

namespace cdna::simulator {

class KernelFault : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace cdna::simulator
