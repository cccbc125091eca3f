#include "audit/output/device_report.hpp"

#include <string>

#include "device/hip_executor.hpp"
#include "audit/output/exit_codes.hpp"

namespace cdna::audit {

void print_description(std::ostream& out, const device::Description& d) {
  for (const auto& [key, value] : d) out << key << ": " << value << "\n";
}

std::string description_line(const device::Description& d) {
  std::string s;
  for (const auto& [key, value] : d) s += (s.empty() ? "" : ", ") + key + "=" + value;
  return s;
}

int report_hip_device(std::ostream& out, std::ostream& err) {
  std::string why_not;
  bool wrong_device = false;
  const auto hip = device::make_hip_executor(why_not, &wrong_device);
  if (!hip) {
    err << "cdna-verify: error: " << why_not
        << (wrong_device ? "; cdna-verify's hardware path needs a gfx942 (MI300X) device" : "") << "\n";
    return wrong_device ? kExitBadInput : kExitExecutorUnavailable;
  }
  print_description(out, hip->describe());
  return kExitPass;
}

}  // namespace cdna::audit
