// What `cdna-verify device` prints, and the ROCm plumbing probe's whole job (tools/device_probe.cpp):
// the gfx942 device the HIP runtime would run on, or why there is none. Depends on the HIP executor
// only, so that a build against another HIP (cmake/rocm.cmake) can link it alone.
#pragma once

#include <ostream>
#include <string>

#include "device/executor.hpp"

namespace cdna::audit {

// "key: value" lines, one per entry.
void print_description(std::ostream& out, const device::Description& d);
// The same on one line: "key=value, key=value".
std::string description_line(const device::Description& d);

// Prints the description of the first gfx942 device (device::make_hip_executor) to `out` and
// returns 0; with HIP devices but none gfx942, one line on `err` naming them and returns 2; with no
// device (or no HIP runtime), one line on `err` and returns 3 (audit/output/exit_codes.hpp).
int report_hip_device(std::ostream& out, std::ostream& err);

}  // namespace cdna::audit
