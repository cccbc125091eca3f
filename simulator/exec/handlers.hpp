// The instruction families' handlers (exec/*.cpp, one family per file): each file registers the
// opcodes it implements into the table the decoder binds to instructions (Inst::fn).
#pragma once

#include <array>

#include "simulator/decode/isa.hpp"

namespace cdna::simulator {

using HandlerTable = std::array<Handler, kOpcodeCount>;
void register_scalar(HandlerTable& t);
void register_valu(HandlerTable& t);
void register_valu_fp(HandlerTable& t);
void register_valu_misc(HandlerTable& t);
void register_valu16(HandlerTable& t);
void register_valu_unary(HandlerTable& t);
void register_valu_three(HandlerTable& t);
void register_vmem(HandlerTable& t);
void register_vmem_forms(HandlerTable& t);  // exec/vmem_forms.cpp
void register_lds(HandlerTable& t);
void register_ds_atomic(HandlerTable& t);
void register_mfma(HandlerTable& t);
void register_mfma_sparse(HandlerTable& t);
void register_valu_sat(HandlerTable& t);
void register_trig_preop(HandlerTable& t);
void register_salu_smem(HandlerTable& t);
// The table of every family, filled once (decode/isa.cpp); unimplemented opcodes hold null.
const HandlerTable& handler_table();

}  // namespace cdna::simulator
