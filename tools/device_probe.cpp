// cdna-device-probe: `cdna-verify device` alone, linked with nothing but the HIP executor, for the
// ROCm build-plumbing test (tools/rocm_plumbing_test.sh, docs/ci.md "ROCm builds").
#include <iostream>

#include "device/hip_executor.hpp"
#include "audit/output/device_report.hpp"

int main() {
  std::cout << "build_hip: " << cdna::device::build_hip() << "\n";
  return cdna::audit::report_hip_device(std::cout, std::cerr);
}
