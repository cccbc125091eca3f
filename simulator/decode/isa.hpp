// Typed instruction records: what the decoder produces once per code object and the
// executor runs. No strings are touched while executing; the disassembly text is kept in the
// Program only for error messages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace cdna::simulator {

enum class Opcode : std::uint16_t {
#define OP(name, type) name,
#include "simulator/decode/opcodes.def"
#undef OP
  kUnsupported,
  kCount
};
inline constexpr std::size_t kOpcodeCount = static_cast<std::size_t>(Opcode::kCount);

// How inline float constants and literals of an opcode's sources are read.
enum class SrcType : std::uint8_t { I, H, F, D };

std::string_view mnemonic(Opcode op);
SrcType src_type(Opcode op);
// The opcode spelled `name` (without encoding suffix), or Opcode::kUnsupported.
Opcode opcode_from_mnemonic(std::string_view name);
// Why the simulator refuses the gfx942 instruction `name` (simulator/decode/unsupported.def), or empty
// if it is not listed there.
std::string_view unsupported_reason(std::string_view name);

// Scalar register file, indexed as the hardware encodes scalar operands.
enum SregIndex : std::uint16_t {
  kSgprCount = 102,  // s0..s101
  kFlatScratchLo = 102,
  kFlatScratchHi = 103,
  kXnackMaskLo = 104,
  kXnackMaskHi = 105,
  kVccLo = 106,
  kVccHi = 107,
  kTtmp0 = 108,
  kM0 = 124,
  kExecLo = 126,
  kExecHi = 127,
  kSregFileSize = 128,
};

// Rows of the per-wave vector register file: the unified 512-register VGPR/AGPR file
// (AGPR n is row ACCUM_OFFSET + n), then scratch rows used by the SDWA/DPP wrappers.
inline constexpr std::uint32_t kVgprFileRows = 512;
inline constexpr std::uint32_t kScratchRow0 = 512;
inline constexpr std::uint32_t kScratchRows = 8;
inline constexpr std::uint32_t kVectorRowsTotal = kVgprFileRows + kScratchRows;

enum class OperandKind : std::uint8_t {
  None,
  Sreg,   // scalar register(s), index into the scalar file (SGPRs, VCC, EXEC, M0, ...)
  Vreg,   // vector register row(s) (VGPR or AGPR, already mapped into the unified file)
  Const,  // inline constant or literal, resolved at decode time (k32, k64)
  Scc,    // src_scc
  Vccz,   // src_vccz
  Execz,  // src_execz
  Off,    // "off" (no address register)
};

struct Operand {
  OperandKind kind = OperandKind::None;
  std::uint8_t width = 1;  // registers (dwords)
  bool neg = false;        // -x
  bool abs = false;        // |x|
  bool sext = false;       // sext(x) (SDWA)
  bool agpr = false;       // spelled aN
  std::uint16_t reg = 0;   // Sreg: scalar index; Vreg: unified row
  std::uint32_t k32 = 0;   // Const as a 32-bit (or 16-bit, low half) source
  std::uint64_t k64 = 0;   // Const as a 64-bit source

  bool is_vreg() const { return kind == OperandKind::Vreg; }
};

enum class Encoding : std::uint8_t { Native, E32, E64, Sdwa, Dpp };

struct Wave;
struct Inst;
using Handler = void (*)(Wave&, const Inst&);

inline constexpr int kMaxOperands = 6;

struct Inst {
  Handler fn = nullptr;
  Opcode op = Opcode::kUnsupported;
  Encoding enc = Encoding::Native;
  std::uint8_t nops = 0;
  std::uint8_t src0 = 1;  // index of the first source in ops (after vdst and carry-out)
  // VOP3 / VOP3P
  bool clamp = false;
  std::uint8_t omod = 0;  // 0 none, 1 mul:2, 2 mul:4, 3 div:2
  std::uint8_t op_sel = 0, op_sel_hi = 0, neg_lo = 0, neg_hi = 0;
  bool op_sel_hi_given = false;
  // memory
  bool sc0 = false, sc1 = false, nt = false, offen = false, idxen = false, lds = false;
  std::int32_t offset = 0;
  std::uint8_t offset0 = 0, offset1 = 0;
  std::uint8_t format = 1;  // MTBUF: data format | num format << 4 (default 8-bit UNORM, LLVM's)
  // SDWA
  std::uint8_t dst_sel = 6, dst_unused = 0, src0_sel = 6, src1_sel = 6;
  // DPP
  std::uint16_t dpp_ctrl = 0;
  std::uint8_t row_mask = 0xf, bank_mask = 0xf;
  bool bound_ctrl = false;
  // MAI
  std::uint8_t cbsz = 0, abid = 0, blgp = 0;
  // SOPK/SOPP immediates, hwreg(id, offset, size) packed as the hardware does.
  std::int32_t simm = 0;
  // Branch target (instruction index) and derived-instruction index (SDWA/DPP).
  std::uint32_t target = 0;
  std::uint32_t aux = 0;
  // Byte address of this instruction in the code object (virtual address).
  std::uint64_t address = 0;
  Operand ops[kMaxOperands];
};

// One kernel's decoded code: the instructions reachable from its entry point.
struct Program {
  std::string kernel;
  std::string code_object;      // label for messages
  std::uint64_t code_entry = 0;     // the kernel's code entry (pc offsets are relative to it)
  std::uint64_t entry_address = 0;  // where waves start (code entry, +256 with kernarg preload)
  std::uint32_t entry_index = 0;    // the instruction at entry_address
  std::uint32_t accum_offset = 0;   // first AGPR row of the unified register file
  std::uint32_t allocated_vgprs = 0;  // rows of the unified file the descriptor allocates
  std::vector<Inst> insts;
  std::vector<Inst> aux;        // derived instructions run by the SDWA/DPP wrappers
  std::vector<std::string> text;     // disassembly per instruction
  std::vector<std::string> reason;   // why an instruction is unsupported (empty otherwise)
  std::vector<struct HazardInfo> hazards;  // per instruction (simulator/checks/hazard.hpp)
  std::unordered_map<std::uint64_t, std::uint32_t> index_of;  // address -> instruction

  // "pc 0x1c (address 0x191c) 'v_add_f32_e32 v1, v2, v3'"
  std::string where(std::uint32_t index) const;
};

}  // namespace cdna::simulator
