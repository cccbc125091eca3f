#include "simulator/decode/isa.hpp"
#include "simulator/exec/handlers.hpp"

#include <sstream>

#include "simulator/state/wave.hpp"

namespace cdna::simulator {
namespace {

constexpr std::string_view kNames[] = {
#define OP(name, type) #name,
#include "simulator/decode/opcodes.def"
#undef OP
    "<unsupported>",
};

constexpr SrcType kTypes[] = {
#define OP(name, type) SrcType::type,
#include "simulator/decode/opcodes.def"
#undef OP
    SrcType::I,
};

static_assert(std::size(kNames) == kOpcodeCount);
static_assert(std::size(kTypes) == kOpcodeCount);

}  // namespace

std::string_view mnemonic(Opcode op) { return kNames[static_cast<std::size_t>(op)]; }
SrcType src_type(Opcode op) { return kTypes[static_cast<std::size_t>(op)]; }

Opcode opcode_from_mnemonic(std::string_view name) {
  static const std::unordered_map<std::string_view, Opcode> table = [] {
    std::unordered_map<std::string_view, Opcode> t;
    for (std::size_t i = 0; i + 1 < kOpcodeCount; ++i) t.emplace(kNames[i], static_cast<Opcode>(i));
    return t;
  }();
  auto it = table.find(name);
  return it == table.end() ? Opcode::kUnsupported : it->second;
}

std::string_view unsupported_reason(std::string_view name) {
  static const std::unordered_map<std::string_view, std::string_view> table = {
#define UNSUPPORTED(name, reason) {#name, reason},
#include "simulator/decode/unsupported.def"
#undef UNSUPPORTED
  };
  auto it = table.find(name);
  return it == table.end() ? std::string_view{} : it->second;
}

std::string hex(std::uint64_t v) {
  std::ostringstream o;
  o << "0x" << std::hex << v;
  return o.str();
}

void sim_fail(const std::string& message) { throw SimError(message); }

std::string Program::where(std::uint32_t index) const {
  if (index >= insts.size()) return "pc <out of range>";
  std::uint64_t a = insts[index].address;
  return "pc " + hex(a - code_entry) + " (address " + hex(a) + ") '" + text[index] + "'";
}

const HandlerTable& handler_table() {
  static const HandlerTable table = [] {
    HandlerTable t{};
    register_scalar(t);
    register_valu(t);
    register_valu_fp(t);
    register_valu_misc(t);
    register_valu16(t);
    register_valu_unary(t);
    register_valu_three(t);
    register_vmem(t);
    register_vmem_forms(t);
    register_lds(t);
    register_ds_atomic(t);
    register_mfma(t);
    register_mfma_sparse(t);
    register_valu_sat(t);
    register_trig_preop(t);
    register_salu_smem(t);
    return t;
  }();
  return table;
}

}  // namespace cdna::simulator
