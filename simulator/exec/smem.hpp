// Scalar-memory address pieces shared by the SMEM executors (exec/scalar.cpp loads,
// exec/salu_smem.cpp stores and atomics). CDNA3 ISA guide, "Scalar Memory Operations".
#pragma once

#include <cstdint>

#include "simulator/state/wave.hpp"

namespace cdna::simulator {

// Byte offset of an SMEM instruction: the SGPR or immediate operand (ops[2]; an immediate is a
// signed 21-bit byte offset) plus the `offset:` modifier.
inline std::uint64_t smem_offset(const Wave& w, const Inst& I) {
  const Operand& o = I.ops[2];
  const std::int64_t off = o.kind == OperandKind::Const
                               ? static_cast<std::int64_t>(static_cast<std::int32_t>(o.k32))
                               : static_cast<std::int64_t>(read_s32(w, o));
  return static_cast<std::uint64_t>(off + I.offset);
}

// Buffer resource (V#) in 4 SGPRs: base 47:0, num_records 95:64 (bytes for scalar access).
struct ScalarBuffer {
  std::uint64_t base;
  std::uint32_t num_records;
};
inline ScalarBuffer scalar_buffer(const Wave& w, const Operand& rsrc) {
  const std::uint32_t* r = &w.s[rsrc.reg];
  return {r[0] | (std::uint64_t{r[1] & 0xffffu} << 32), r[2]};
}

}  // namespace cdna::simulator
