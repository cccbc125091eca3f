// Decoder: LLVM's MC disassembler (C API, llvm-c/Disassembler.h) turns the kernel's machine
// code into text once per code object; the text is parsed here, at decode time only, into
// typed instruction records (simulator/decode/isa.hpp). Decoding starts at the kernel's entry point
// and follows fall-through and branch targets, so padding after s_endpgm and other kernels'
// code are never decoded.
//
// Instructions the simulator does not implement (or whose operands it cannot honour) decode to
// an Unsupported record; executing one is an error naming the mnemonic, kernel, pc and wave.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "simulator/decode/code_object.hpp"
#include "simulator/decode/isa.hpp"

namespace cdna::simulator {

// Decodes the code of `kernel` in `code_object`.
std::shared_ptr<const Program> decode_kernel(const CodeObject& code_object,
                                             const KernelInfo& kernel);

// Parses one line of disassembly (as LLVM prints it) at `address` into `out`, for a kernel
// whose unified register file is split at `accum_offset` with `allocated_vgprs` rows.
// Returns an empty string if the instruction is supported, else the reason it is not.
std::string parse_instruction(std::string_view text, std::uint64_t address,
                              std::uint32_t accum_offset, std::uint32_t allocated_vgprs,
                              Inst& out);

// Disassembles one instruction with LLVM (size 0 if the bytes do not decode).
struct Disassembled {
  std::string text;
  std::uint32_t size = 0;
};
class Disassembler {
 public:
  Disassembler();
  ~Disassembler();
  Disassembler(const Disassembler&) = delete;
  Disassembler& operator=(const Disassembler&) = delete;
  Disassembled at(const std::uint8_t* bytes, std::size_t available, std::uint64_t address);

 private:
  void* ctx_ = nullptr;
};

// One instruction at `address` of section `section` (nullptr: outside the code) decoded as
// decode_kernel decodes each: its record, disassembly, size in bytes (0: the bytes do not decode)
// and the reason it is not supported (empty: supported; then `inst` executes). For a kernel
// whose unified register file is split at `accum_offset` with `allocated_vgprs` rows.
struct DecodedInstruction {
  Inst inst;
  std::string text;
  std::string reason;
  std::uint32_t size = 0;
};
DecodedInstruction decode_instruction(Disassembler& dis, const CodeSection* section, std::uint64_t address,
                                      std::uint32_t accum_offset, std::uint32_t allocated_vgprs);

}  // namespace cdna::simulator
