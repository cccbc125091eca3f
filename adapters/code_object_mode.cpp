#include "adapters/code_object_mode.hpp"

#include <stdexcept>

#include "device/attention_launcher.hpp"
#include "simulator/decode/code_object.hpp"

namespace cdna::adapters {

AttentionCodeObject load_attention_code_object(const std::filesystem::path& path, numerics::Rounding declared,
                                               std::span<const char* const> kernels) {
  AttentionCodeObject c{path, device::read_file(path, "code object"), declared, false};
  const auto loaded = simulator::CodeObject::load(c.bytes, path.string());
  for (const char* kernel : kernels) loaded.kernel(kernel);
  if (auto tag = loaded.object_bytes(device::kRoundingSymbol)) {
    const numerics::Rounding recorded = device::decode_rounding_symbol(*tag, path.string());
    if (recorded != declared) {
      throw std::runtime_error("code object '" + path.string() + "' was built for bf16 rounding " +
                               std::string(numerics::to_string(recorded)) + " (its symbol " +
                               device::kRoundingSymbol + ") but is declared " +
                               std::string(numerics::to_string(declared)) + "; declare " +
                               std::string(numerics::to_string(recorded)) + " or give the code object built for " +
                               std::string(numerics::to_string(declared)));
    }
    c.mode_recorded = true;
  }
  return c;
}

std::string unchecked_mode_notice(std::string_view path, std::string_view declared_mode, std::string_view kernel) {
  const std::string who = kernel == "aiter-pa"
                              ? " is the aiter-pa adapter's declaration (AITER PA's fp32-to-bf16 conversions round ties "
                                "away, read from the disassembly: docs/peer-kernels.md) and is not checked per file"
                              : " is the user's declaration and is not checked";
  return "code object '" + std::string(path) + "' records no bf16 rounding mode (no symbol " +
         device::kRoundingSymbol + "): " + std::string(declared_mode) + who;
}

}  // namespace cdna::adapters
