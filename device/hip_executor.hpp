// The HIP-runtime executor: runs a gfx942 code object on a real device through
// hipModuleLoadData / hipModuleLaunchKernel (HIP runtime API, Debian libamdhip64).
#pragma once

#include <memory>
#include <string>

#include "device/executor.hpp"

namespace cdna::device {

// A HIP executor on the first gfx942 device, or nullptr with `why_not` set to one line
// (e.g. "HIP runtime: no device (hipErrorNoDevice)") when there is none.
std::unique_ptr<Executor> make_hip_executor(std::string& why_not);

}  // namespace cdna::device
