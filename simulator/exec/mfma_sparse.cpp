// Sparse matrix cores: every CDNA3 (gfx942) v_smfmac_* (D += A*B with A 4:2 structured-sparse):
//   v_smfmac_f32_{16x16x32, 32x32x16}_{f16, bf16}
//   v_smfmac_f32_{16x16x64, 32x32x32}_{fp8,bf8}_{fp8,bf8}, v_smfmac_i32_{16x16x64, 32x32x32}_i8
// Syntax (LLVM 19, gfx940+): v_smfmac_* vdst, srcA, srcB, vidx [cbsz:N] [abid:N]; vdst is also
// the accumulator, vidx an architected VGPR holding the compression indices.
//
// Layout, for M x N x K (M = N; K dense), Ks = K/2 stored A entries per row, kpa = M*Ks/64 stored
// entries per lane and kpb = M*K/64 B entries per lane (AMD Matrix Instruction Calculator README,
// "Example of Printing Compression Index Information for a Sparse Matrix Instruction": e.g.
// K[2][31] of v_smfmac_f32_16x16x32_f16 is v0{50}.[7:4]):
//   stored A entry s of row i: lane i + M*(s / kpa), element s % kpa of srcA (packed as for the
//     dense MFMAs); it sits in dense group s/2 (k = 4*(s/2) .. 4*(s/2)+3) at position idx(s);
//   idx(s): bits [2e+1:2e], e = s % kpa, of the lane's index segment: 16-bit inputs use one byte
//     of vidx, byte ABID when CBSZ = 0 and byte 0 when CBSZ != 0 (ABID then ignored); 8-bit inputs
//     use one half, half ABID when CBSZ = 0, the low half otherwise (same source);
//   B[k][j]: lane j + M*(k / kpb), element k % kpb (the dense layout);
//   C = D: the dense 16x16 / 32x32 layouts (exec/mfma.cpp).
// Arithmetic: numerics::smfmac_dot_* per element (gather of the indexed B entries, then the dense
// block model of the type: numerics/smfmac.hpp, an unpublished detail chosen there). fp32 MODE
// does not apply (as for the dense MFMAs).
// Refused: a partial EXEC, neg/clamp/op_sel, blgp (LLVM has no blgp for v_smfmac), ABID beyond
// the index segments (decode/decoder.cpp), the index in an AGPR or a constant.
#include <array>
#include <span>

#include "numerics/smfmac.hpp"
#include "simulator/exec/mfma_layout.hpp"
#include "simulator/exec/handlers.hpp"
#include "simulator/state/wave.hpp"

namespace cdna::simulator {
namespace {

using mai::element;
using mai::In;
using mai::in_bits;
using mai::out_pos;

template <int M, int K, In T>
void smfmac(Wave& w, const Inst& I) {
  constexpr int bits = in_bits(T);
  constexpr int Ks = K / 2;
  constexpr int kpa = M * Ks / 64, kpb = M * K / 64;
  static_assert(kpa * bits == 64 && kpb * bits == 128, "A in 2 registers, B in 4");
  constexpr int out_regs = M * M / 64;
  if (w.exec() != ~0ull)
    sim_fail("v_smfmac with EXEC " + hex(w.exec()) +
             " (not all lanes active): the behaviour for inactive lanes is not modelled");
  if (I.neg_lo || I.neg_hi || I.clamp || I.op_sel || I.op_sel_hi_given || I.blgp)
    sim_fail("v_smfmac modifiers other than cbsz/abid are not supported");
  const Operand& D = I.ops[0];
  const Operand& A = I.ops[1];
  const Operand& Bo = I.ops[2];
  const Operand& X = I.ops[3];
  if (A.kind != OperandKind::Vreg || Bo.kind != OperandKind::Vreg)
    sim_fail("v_smfmac A/B operands must be registers");
  if (X.kind != OperandKind::Vreg || X.agpr)
    sim_fail("v_smfmac index operand must be an architected VGPR");

  // Index segment of each lane: 2 bits per stored entry (8 bits for 16-bit inputs, 16 for 8-bit).
  constexpr int seg_bits = 2 * kpa;
  const int shift = I.cbsz ? 0 : seg_bits * I.abid;
  std::array<std::uint32_t, kLanes> seg;
  const std::uint32_t* xr = w.row(X.reg);
  for (int l = 0; l < kLanes; ++l) seg[static_cast<std::size_t>(l)] = (xr[l] >> shift) & ((1u << seg_bits) - 1u);

  // Per row i: the Ks stored A entries and their indices; per column j: the K B entries.
  std::array<std::uint64_t, M * Ks> ra;
  std::array<std::uint8_t, M * Ks> rsel;
  std::array<std::uint64_t, M * K> rb;
  for (int i = 0; i < M; ++i)
    for (int s = 0; s < Ks; ++s) {
      const int lane = i + M * (s / kpa), e = s % kpa;
      const auto at = static_cast<std::size_t>(i * Ks + s);
      ra[at] = element(w, A.reg, bits, e, lane);
      rsel[at] = static_cast<std::uint8_t>((seg[static_cast<std::size_t>(lane)] >> (2 * e)) & 3u);
    }
  for (int j = 0; j < M; ++j)
    for (int k = 0; k < K; ++k)
      rb[static_cast<std::size_t>(j * K + k)] = element(w, Bo.reg, bits, k % kpb, j + M * (k / kpb));

  std::uint32_t out[out_regs][kLanes];
  for (int i = 0; i < M; ++i) {
    const std::span<const std::uint8_t> sel(&rsel[static_cast<std::size_t>(i * Ks)], static_cast<std::size_t>(Ks));
    for (int j = 0; j < M; ++j) {
      const auto [reg, lane] = out_pos<M, 1, false>(i, j, 0);
      const std::uint32_t c = w.row(D.reg + static_cast<std::uint32_t>(reg))[lane];
      const std::uint64_t* pa = &ra[static_cast<std::size_t>(i * Ks)];
      const std::uint64_t* pb = &rb[static_cast<std::size_t>(j * K)];
      std::uint32_t d;
      if constexpr (T == In::Bf16 || T == In::F16) {
        std::array<std::uint16_t, Ks> a;
        std::array<std::uint16_t, K> b;
        for (int s = 0; s < Ks; ++s) a[static_cast<std::size_t>(s)] = static_cast<std::uint16_t>(pa[s]);
        for (int k = 0; k < K; ++k) b[static_cast<std::size_t>(k)] = static_cast<std::uint16_t>(pb[k]);
        d = fbits(T == In::Bf16 ? numerics::smfmac_dot_bf16(a, sel, b, as_float(c))
                                : numerics::smfmac_dot_f16(a, sel, b, as_float(c)));
      } else if constexpr (T == In::I8) {
        std::array<std::int8_t, Ks> a;
        std::array<std::int8_t, K> b;
        for (int s = 0; s < Ks; ++s) a[static_cast<std::size_t>(s)] = static_cast<std::int8_t>(static_cast<std::uint8_t>(pa[s]));
        for (int k = 0; k < K; ++k) b[static_cast<std::size_t>(k)] = static_cast<std::int8_t>(static_cast<std::uint8_t>(pb[k]));
        d = static_cast<std::uint32_t>(numerics::smfmac_dot_i8(a, sel, b, static_cast<std::int32_t>(c)));
      } else {
        using numerics::Fp8Kind;
        constexpr Fp8Kind ka = (T == In::Fp8Fp8 || T == In::Fp8Bf8) ? Fp8Kind::Fp8 : Fp8Kind::Bf8;
        constexpr Fp8Kind kb = (T == In::Fp8Fp8 || T == In::Bf8Fp8) ? Fp8Kind::Fp8 : Fp8Kind::Bf8;
        std::array<std::uint8_t, Ks> a;
        std::array<std::uint8_t, K> b;
        for (int s = 0; s < Ks; ++s) a[static_cast<std::size_t>(s)] = static_cast<std::uint8_t>(pa[s]);
        for (int k = 0; k < K; ++k) b[static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(pb[k]);
        d = fbits(numerics::smfmac_dot_fp8(a, ka, sel, b, kb, as_float(c)));
      }
      out[reg][lane] = d;
    }
  }
  mai::write_result(w, D, out);
}

}  // namespace

void register_mfma_sparse(HandlerTable& t) {
  auto set = [&](Opcode op, Handler h) { t[static_cast<std::size_t>(op)] = h; };
  using enum In;
  set(Opcode::v_smfmac_f32_16x16x32_f16, smfmac<16, 32, F16>);
  set(Opcode::v_smfmac_f32_32x32x16_f16, smfmac<32, 16, F16>);
  set(Opcode::v_smfmac_f32_16x16x32_bf16, smfmac<16, 32, Bf16>);
  set(Opcode::v_smfmac_f32_32x32x16_bf16, smfmac<32, 16, Bf16>);
  set(Opcode::v_smfmac_i32_16x16x64_i8, smfmac<16, 64, I8>);
  set(Opcode::v_smfmac_i32_32x32x32_i8, smfmac<32, 32, I8>);
  set(Opcode::v_smfmac_f32_16x16x64_bf8_bf8, smfmac<16, 64, Bf8Bf8>);
  set(Opcode::v_smfmac_f32_16x16x64_bf8_fp8, smfmac<16, 64, Bf8Fp8>);
  set(Opcode::v_smfmac_f32_16x16x64_fp8_bf8, smfmac<16, 64, Fp8Bf8>);
  set(Opcode::v_smfmac_f32_16x16x64_fp8_fp8, smfmac<16, 64, Fp8Fp8>);
  set(Opcode::v_smfmac_f32_32x32x32_bf8_bf8, smfmac<32, 32, Bf8Bf8>);
  set(Opcode::v_smfmac_f32_32x32x32_bf8_fp8, smfmac<32, 32, Bf8Fp8>);
  set(Opcode::v_smfmac_f32_32x32x32_fp8_bf8, smfmac<32, 32, Fp8Bf8>);
  set(Opcode::v_smfmac_f32_32x32x32_fp8_fp8, smfmac<32, 32, Fp8Fp8>);
}

}  // namespace cdna::simulator
