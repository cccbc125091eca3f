// libFuzzer target: the code-object loader (CodeObject::load, kernel lookup) and, for every
// kernel it finds, the decoder on that kernel's (fuzzed) code. Every malformed input must end
// in std::runtime_error; anything else (crash, sanitizer report, other exception) is a bug.
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>

#include "simulator/decode/code_object.hpp"
#include "simulator/decode/decoder.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace cdna::simulator;
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  try {
    const CodeObject co = CodeObject::load(bytes, "fuzz");
    for (const KernelInfo& k : co.kernels()) {
      const KernelInfo& again = co.kernel(k.name);
      (void)co.section_at(again.entry_address);
      try {
        (void)decode_kernel(co, again);
      } catch (const std::runtime_error&) {
      }
    }
    try {
      (void)co.kernel("no_such_kernel");
    } catch (const std::runtime_error&) {
    }
  } catch (const std::runtime_error&) {
  }
  return 0;
}
