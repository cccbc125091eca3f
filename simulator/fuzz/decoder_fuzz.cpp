// libFuzzer target: the decoder front end on arbitrary instruction words. The input is taken as
// a .text stream: each instruction is disassembled by LLVM and its text parsed into an Inst
// (parse_instruction) with register-file splits taken from the first bytes; undecodable words
// are skipped 4 bytes at a time. Anything but a clean return is a bug.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "simulator/decode/decoder.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace cdna::simulator;
  static Disassembler dis;
  if (size < 1) return 0;
  // The unified register file: 8..512 rows, AGPRs from a multiple of 4 within it.
  const std::uint32_t allocated = (static_cast<std::uint32_t>(data[0] & 0x3f) + 1) * 8;
  const std::uint32_t accum = std::min<std::uint32_t>(allocated, (static_cast<std::uint32_t>(data[0] >> 6) + 1) * 128);
  ++data;
  --size;
  std::size_t at = 0;
  while (at < size) {
    const std::uint64_t address = 0x1000 + at;
    const Disassembled d = dis.at(data + at, size - at, address);
    if (d.size == 0) {
      at += 4;
      continue;
    }
    Inst inst{};
    try {
      (void)parse_instruction(d.text, address, accum, allocated, inst);
    } catch (const std::runtime_error&) {
    }
    at += d.size;
  }
  return 0;
}
