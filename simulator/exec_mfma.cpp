// Matrix cores: v_mfma_f32_{16x16x16,32x32x8}_{bf16,f16}, with A/B/C/D in VGPRs or AGPRs.
//
// Arithmetic: cdna::numerics::mfma_dot_bf16 / mfma_dot_f16 per output element (the block
// model of cdna3-facts.md §4); MODE's rounding and denormal fields do not apply to MFMA.
//
// Operand layout (AMD Matrix Instruction Calculator, gfx9 rules, one block):
//   A[i][k]: lane (k / 4) * M + i, element k % 4 of the 64-bit register pair
//            (element e in register e / 2, low half for even e);
//   B[k][j]: lane (k / 4) * N + j, element k % 4;
//   C/D[i][j]: register 4 * (i / (4 * (64 / N))) + i % 4, lane ((i / 4) % (64 / N)) * N + j.
// For 16x16x16 that is D[4*(l/16) + r][l % 16] in lane l register r; for 32x32x8,
// register 4*(i/8) + i%4, lane 32*((i/4)%2) + j.
//
// EXEC: what an MFMA does with inactive lanes is not modelled; EXEC must be all ones.
#include <span>

#include "numerics/mfma.hpp"
#include "simulator/wave.hpp"

namespace cdna::simulator {
namespace {

template <int M, int K, bool Bf16>
void mfma(Wave& w, const Inst& I) {
  if (w.exec() != ~0ull)
    sim_fail("MFMA with EXEC " + hex(w.exec()) +
             " (not all lanes active): the behaviour for inactive lanes is not modelled");
  if (I.neg_lo || I.neg_hi || I.clamp || I.op_sel || I.op_sel_hi_given)
    sim_fail("MFMA modifiers (neg/clamp/op_sel) are not supported for this instruction");
  const Operand& D = I.ops[0];
  const Operand& A = I.ops[1];
  const Operand& B = I.ops[2];
  const Operand& C = I.ops[3];
  if (A.kind != OperandKind::Vreg || B.kind != OperandKind::Vreg)
    sim_fail("MFMA A/B operands must be registers");
  constexpr int N = M;
  constexpr int kGroups = 64 / M;
  constexpr int kRegs = M * N / 64;
  static_assert(K / kGroups == 4, "four 16-bit elements per lane");

  std::uint16_t a[M][K], b[N][K];
  for (int k = 0; k < K; ++k) {
    int e = k % 4;
    const std::uint32_t* ra = w.row(A.reg + static_cast<std::uint32_t>(e / 2));
    const std::uint32_t* rb = w.row(B.reg + static_cast<std::uint32_t>(e / 2));
    for (int i = 0; i < M; ++i) {
      std::uint32_t x = ra[(k / 4) * M + i];
      a[i][k] = static_cast<std::uint16_t>(e % 2 ? x >> 16 : x);
      std::uint32_t y = rb[(k / 4) * N + i];
      b[i][k] = static_cast<std::uint16_t>(e % 2 ? y >> 16 : y);
    }
  }
  float out[kRegs][kLanes];
  for (int i = 0; i < M; ++i) {
    int reg = 4 * (i / (4 * kGroups)) + i % 4;
    for (int j = 0; j < N; ++j) {
      int lane = ((i / 4) % kGroups) * N + j;
      float c = C.kind == OperandKind::Const
                    ? as_float(C.k32)
                    : as_float(w.row(C.reg + static_cast<std::uint32_t>(reg))[lane]);
      std::span<const std::uint16_t> sa(a[i], K), sb(b[j], K);
      out[reg][lane] = Bf16 ? numerics::mfma_dot_bf16(sa, sb, c) : numerics::mfma_dot_f16(sa, sb, c);
    }
  }
  for (int r = 0; r < kRegs; ++r) {
    std::uint32_t* d = w.row(D.reg + static_cast<std::uint32_t>(r));
    for (int l = 0; l < kLanes; ++l) d[l] = fbits(out[r][l]);
  }
  ++w.mfma_instructions;
}

}  // namespace

void register_mfma(HandlerTable& t) {
  auto set = [&](Opcode op, Handler h) { t[static_cast<std::size_t>(op)] = h; };
  set(Opcode::v_mfma_f32_16x16x16_bf16, mfma<16, 16, true>);
  set(Opcode::v_mfma_f32_32x32x8_bf16, mfma<32, 8, true>);
  set(Opcode::v_mfma_f32_16x16x16_f16, mfma<16, 16, false>);
  set(Opcode::v_mfma_f32_32x32x8_f16, mfma<32, 8, false>);
}

}  // namespace cdna::simulator
