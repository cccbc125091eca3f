// The HIP-runtime executor: runs a gfx942 code object on a real device through
// hipModuleLoadData / hipModuleLaunchKernel (HIP runtime API, Debian libamdhip64).
#pragma once

#include <memory>
#include <string>

#include "device/executor.hpp"

namespace cdna::device {

// A HIP executor on the first gfx942 device, or nullptr with `why_not` set to one line
// (e.g. "HIP runtime: no device (hipErrorNoDevice)") when there is none; `wrong_device`, if
// given, is set to whether HIP devices exist but none is gfx942 (why_not then names their
// gcnArchName). Its describe() gives device, gcn_arch_name (hipDeviceProp_t), pci_bus_id
// (hipDeviceGetPCIBusId), compute_units, clock_rate_khz, memory_clock_rate_khz (hipDeviceGetAttribute:
// hipDeviceAttributeMultiprocessorCount, ...ClockRate, ...MemoryClockRate, in kHz),
// driver_version (hipDriverGetVersion), hip_runtime_version (hipRuntimeGetVersion), build_hip
// (build_hip()) and rocm_installed (/opt/rocm/.info/version, when readable).
std::unique_ptr<Executor> make_hip_executor(std::string& why_not, bool* wrong_device = nullptr);

// The HIP this program was built with, one line (cmake/rocm.cmake, CDNA_BUILD_HIP): e.g.
// "ROCm 6.2.0-66 (/opt/rocm)" or "Debian HIP 5.2.21153 (clang-19, /usr)".
std::string build_hip();

}  // namespace cdna::device
