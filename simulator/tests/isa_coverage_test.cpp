// The whole gfx942 instruction set against the simulator: every mnemonic LLVM's disassembler
// decodes for gfx942 is either implemented (has a handler) or refused with a reason in
// simulator/decode/unsupported.def, and unsupported.def lists nothing else.
//
// The set is enumerated by disassembling every value of the opcode field of every encoding
// class (CDNA3 ISA guide, "Microcode Formats"; field positions as in LLVM's SIInstrFormats.td /
// VOP*Instructions.td for GFX9) with a few operand words per class, so that opcodes whose
// operands must be aligned register pairs, SGPRs, AGPRs or a literal also decode. The
// enumeration is checked to find every implemented mnemonic, which shows it is not missing
// whole forms.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "simulator/decode/decoder.hpp"
#include "simulator/exec/handlers.hpp"
#include "simulator/decode/isa.hpp"
#include "simulator/state/wave.hpp"

namespace cdna::simulator {
namespace {

// One encoding class: the fixed bits of the first dword, where its opcode field lies, and the
// operand dwords tried with every opcode.
struct EncodingClass {
  const char* name;
  std::uint32_t fixed;
  int op_shift;
  int op_bits;
  std::vector<std::uint32_t> first_extra;  // ORed into the first dword (vdst, modifiers)
  std::vector<std::uint32_t> second;       // second dword (ignored by 32-bit encodings)
};

// VOP3 source fields: src0 8:0, src1 17:9, src2 26:18 (256 + n = v[n], n < 102 = s[n]).
constexpr std::uint32_t srcs(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
  return a | b << 9 | c << 18;
}

std::vector<EncodingClass> encoding_classes() {
  const std::vector<std::uint32_t> vop3_second = {
      srcs(0x102, 0x104, 0x108), srcs(0x002, 0x004, 0x108), srcs(0x102, 0x004, 0x108),
      srcs(0x002, 0x104, 0x108), srcs(0x080, 0x080, 0x080), srcs(0x102, 0x104, 0x0ea),
      srcs(0x102, 0x104, 0x108) | 3u << 27,  // op_sel_hi / acc bits
      srcs(0x102, 0x104, 0x108) | 1u << 27, srcs(0x102, 0x104, 0x108) | 2u << 27,
      // Unused source fields must be 0 for the disassembler to accept a 1- or 2-source op.
      srcs(0x102, 0x104, 0), srcs(0x102, 0x004, 0), srcs(0x002, 0x004, 0), srcs(0x102, 0, 0),
      srcs(0x002, 0, 0), srcs(0x102, 0x104, 0) | 3u << 27, srcs(0x102, 0, 0) | 1u << 27,
      srcs(0x102, 0x104, 0) | 1u << 27, srcs(0x102, 0x104, 0) | 2u << 27, srcs(0x102, 0, 0) | 3u << 27};
  return {
      {"SOP2", 0x80000000u, 23, 7, {0x0}, {0}},
      {"SOPK", 0xb0000000u, 23, 5, {0x0, 0x2u << 16}, {0}},
      {"SOP1", 0xbe800000u, 8, 8, {0x0, 0x2, 0x2u << 16 | 0x2}, {0}},
      {"SOPC", 0xbf000000u, 16, 7, {0x0, 0x2 | 0x4u << 8}, {0}},
      {"SOPP", 0xbf800000u, 16, 7, {0x0, 0x1}, {0}},
      {"SMEM", 0xc0000000u, 18, 8, {0x0, 0x2u << 6, 0x1u << 17, 0x1u << 16}, {0, 0x1}},
      {"VOP2", 0x00000000u, 25, 6, {0x102 | 2u << 9, 0x0ff | 2u << 9, 0x002 | 2u << 9}, {0}},
      {"VOP1", 0x7e000000u, 9, 8, {0x102, 0x002, 0x102 | 2u << 17, 0x0ff}, {0}},
      {"VOPC", 0x7c000000u, 17, 8, {0x102 | 2u << 9, 0x002 | 2u << 9}, {0}},
      {"VOP3", 0xd0000000u, 16, 10, {0x0, 0x2, 0x6a}, vop3_second},
      {"VOP3P", 0xd3800000u, 16, 7, {0x0, 0x1u << 15, 0x4000, 0x4000 | 0x1u << 15}, vop3_second},
      {"DS", 0xd8000000u, 17, 8, {0x0, 0x1u << 16}, {0x0, 0x02040602, 0x04060402, 0x00000402, 0x02000402, 0x00000302, 0x02000302,
                                         0x00060402, 0x02060402}},
      {"FLAT", 0xdc000000u, 18, 7, {0x0, 0x1u << 14, 0x2u << 14, 0x1u << 23, 0x1u << 16},
       {0x0, 0x7f0000, 0x7f0002, 0x020002, 0x02000002, 0x0002, 0x0402, 0x02000402, 0x7f0402,
        0x027f0402, 0x040402, 0x02040402}},
      {"MUBUF", 0xe0000000u, 18, 7, {0x0, 0x1u << 16, 0x1u << 12}, {0x80000000u, 0x80000102u, 0x0, 0x80010200u, 0x80010202u}},
      {"MTBUF", 0xe8000000u, 15, 4, {0x1u << 19, 0x7fu << 19, 0x1u << 12}, {0x80000000u, 0x0, 0x80010200u, 0x80010202u}},
  };
}

std::set<std::string> enumerate_gfx942_mnemonics() {
  Disassembler dis;
  std::set<std::string> found;
  for (const auto& cls : encoding_classes()) {
    for (std::uint32_t op = 0; op < (1u << cls.op_bits); ++op) {
      for (std::uint32_t extra : cls.first_extra) {
        for (std::uint32_t second : cls.second) {
          const std::uint32_t first = cls.fixed | op << cls.op_shift | extra;
          // Four dwords: an instruction of 8 bytes followed by a literal, and zero padding.
          std::array<std::uint8_t, 16> bytes{};
          for (int i = 0; i < 4; ++i) {
            bytes[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(first >> (8 * i));
            bytes[static_cast<std::size_t>(4 + i)] = static_cast<std::uint8_t>(second >> (8 * i));
          }
          const Disassembled d = dis.at(bytes.data(), bytes.size(), 0x1000);
          if (d.size == 0) continue;
          std::string m = d.text.substr(0, d.text.find_first_of(" \t"));
          for (const char* suffix : {"_e32", "_e64", "_sdwa", "_dpp"}) {
            const std::string s = suffix;
            if (m.size() > s.size() && m.compare(m.size() - s.size(), s.size(), s) == 0) {
              m.resize(m.size() - s.size());
              break;
            }
          }
          found.insert(m);
        }
      }
    }
  }
  return found;
}

bool implemented(const std::string& m) {
  const Opcode op = opcode_from_mnemonic(m);
  return op != Opcode::kUnsupported && handler_table()[static_cast<std::size_t>(op)] != nullptr;
}

std::vector<std::string> listed_unsupported() {
  return {
#define UNSUPPORTED(name, reason) #name,
#include "simulator/decode/unsupported.def"
#undef UNSUPPORTED
  };
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : " ") + x;
  return s;
}

TEST(IsaCoverage, EveryGfx942MnemonicIsImplementedOrRefusedWithAReason) {
  const auto all = enumerate_gfx942_mnemonics();
  ASSERT_GT(all.size(), 1000u) << "the enumeration found too few mnemonics to be the gfx942 set";

  std::vector<std::string> neither;
  std::size_t n_impl = 0;
  for (const auto& m : all) {
    if (implemented(m)) ++n_impl;
    else if (unsupported_reason(m).empty()) neither.push_back(m);
  }
  EXPECT_TRUE(neither.empty()) << neither.size()
                               << " gfx942 mnemonics neither implemented nor in unsupported.def: " << join(neither);

  // Every implemented mnemonic is found: the enumeration reaches every form we execute.
  std::vector<std::string> not_found;
  for (std::size_t i = 0; i < kOpcodeCount; ++i) {
    const auto op = static_cast<Opcode>(i);
    const std::string m(mnemonic(op));
    if (op == Opcode::kUnsupported || !implemented(m)) continue;
    if (!all.count(m)) not_found.push_back(m);
  }
  EXPECT_TRUE(not_found.empty()) << "implemented but not found by the enumeration: " << join(not_found);

  std::printf("[ isa ] %zu gfx942 mnemonics: %zu implemented, %zu refused with a reason\n", all.size(), n_impl,
              all.size() - n_impl - neither.size());
}

TEST(IsaCoverage, UnsupportedListHoldsOnlyRefusedGfx942Mnemonics) {
  const auto all = enumerate_gfx942_mnemonics();
  std::vector<std::string> stale, unknown;
  for (const auto& m : listed_unsupported()) {
    if (implemented(m)) stale.push_back(m);
    if (!all.count(m)) unknown.push_back(m);
  }
  EXPECT_TRUE(stale.empty()) << "listed as unsupported but implemented: " << join(stale);
  EXPECT_TRUE(unknown.empty()) << "listed as unsupported but not a gfx942 mnemonic: " << join(unknown);
}

}  // namespace
}  // namespace cdna::simulator
