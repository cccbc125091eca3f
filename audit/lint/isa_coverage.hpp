// Instruction coverage of a code object (`cdna-verify coverage`): every instruction of its
// executable sections, disassembled linearly as llvm-objdump does (not only what one kernel's
// control flow reaches), decoded by the simulator's decoder (simulator::decode_instruction,
// the same call decode_kernel makes), and counted by instruction form: the mnemonic with the
// modifiers and source modifiers it carries, so that a DPP control, an SDWA select or op_sel the
// simulator does not know shows up even where the mnemonic is implemented.
//
// What "decodes" means here: the decoder accepts the instruction with every operand and modifier
// and binds it to an executor. A few modifier combinations are refused only when executed (the
// executors' own checks, each an error naming kernel, pc, wave and instruction); this report does
// not run the code, so it cannot count those.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "simulator/decode/code_object.hpp"

namespace cdna::audit {

struct RefusedInstructions {
  std::string reason;              // the decoder's reason
  std::string example;             // the first such instruction's disassembly
  std::uint64_t first_address = 0;  // its virtual address
  std::size_t count = 0;
};

struct CodeObjectCoverage {
  std::vector<std::string> kernels;
  std::size_t instructions = 0, decoded = 0;
  std::size_t undecodable_words = 0;        // of those instructions, 4-byte words LLVM does not decode
  std::map<std::string, std::size_t> forms;  // instruction form -> count (every instruction that decodes as gfx942)
  std::vector<RefusedInstructions> refused;  // by reason, in order of first address
  bool complete() const { return decoded == instructions; }
};

// The form of one instruction's disassembly: its mnemonic, then the names of its modifiers in
// sorted order ("v_mov_b32_dpp bank_mask row_mask row_newbcast"; "offset", "glc", "sc0", "op_sel",
// "vmcnt", ...) and "abs", "neg" for source modifiers. Operands (registers, constants) are left out.
std::string instruction_form(std::string_view text);

// The coverage of `code_object`. Each address is decoded under the register-file split of the
// kernel whose code entry is the nearest at or before it (the first kernel's before any); a word
// LLVM does not decode is counted as one refused instruction of 4 bytes and the sweep goes on.
CodeObjectCoverage isa_coverage(const simulator::CodeObject& code_object);

}  // namespace cdna::audit
