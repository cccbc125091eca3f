// Matrix cores: every CDNA3 (gfx942) dense MFMA (the sparse v_smfmac_*: exec/mfma_sparse.cpp),
// with A/B/C/D in VGPRs or AGPRs (one unified register file):
//   f16/bf16: v_mfma_f32_{32x32x8, 16x16x16, 32x32x4_2b, 16x16x4_4b, 4x4x4_16b}_{f16,bf16}
//   xf32:     v_mfma_f32_{16x16x8, 32x32x4}_xf32
//   fp8/bf8:  v_mfma_f32_{16x16x32, 32x32x16}_{fp8,bf8}_{fp8,bf8}
//   i8:       v_mfma_i32_{16x16x32, 32x32x16, 32x32x4_2b, 16x16x4_4b, 4x4x4_16b}_i8
//   f32:      v_mfma_f32_{16x16x4, 32x32x2, 32x32x1_2b, 16x16x1_4b, 4x4x1_16b}_f32
//   f64:      v_mfma_f64_{16x16x4_f64, 4x4x4_4b_f64}
//
// Arithmetic: cdna::numerics::mfma_dot_* per output element (cdna3-facts.md §4), bf16/f16 through
// its tile form numerics::mfma_tile_* (same bits, one call per matrix block); MODE's
// rounding field does not apply. The f32 MFMAs honour MODE.FP_DENORM for fp32 (bits 5:4): 3 keeps
// denormals, 0 flushes inputs and outputs; the split modes 1 and 2 are refused (not modelled).
// f64 keeps denormals whatever MODE says. i8 wraps on int32 overflow (numerics::I8Overflow::Wrap).
//
// Operand layout (AMD Matrix Instruction Calculator, gfx9 "CDNA" class, no modifiers), for an
// instruction M x N x K with B blocks and kpl = M*K*B/64 input elements per lane:
//   A[i][k] of block b: lane M*b + M*B*(k / kpl) + i, element k % kpl of the lane's registers
//     (elements packed little-endian from the first register: element e at bit e*size);
//   B[k][j] of block b: the same with N, j;
//   C/D (32-bit results): 4x4 (B = 16): register i, lane 4*b + j;
//     16x16: register 4*b + i%4, lane 16*(i/4) + j;
//     32x32: register 16*b + 4*(i/8) + i%4, lane 32*((i/4)%2) + j;
//   C/D (f64 results, register pairs): 16x16x4: pair i/4, lane 16*(i%4) + j;
//     4x4x4_4b: pair 0, lane 16*(i%4) + 4*b + j.
//
// Modifiers: CBSZ/ABID (A-block broadcast, multi-block MFMAs), BLGP (B lane-group pattern, every
// non-f64 MFMA), and on f64 the BLGP field as neg:[A,B,C] (sources at the code below). The
// decoder refuses values outside the ranges the AMD Matrix Instruction Calculator gives
// (check_mai_modifiers in decode/decoder.cpp). Refused here: other neg/clamp/op_sel modifiers, a partial
// EXEC (inactive-lane behaviour is not modelled), A/B given as constants.
#include <algorithm>
#include <array>
#include <cstring>
#include <span>

#include "numerics/fp8.hpp"
#include "numerics/mfma.hpp"
#include "numerics/mfma_tile.hpp"
#include "simulator/exec/mfma_layout.hpp"
#include "simulator/exec/handlers.hpp"
#include "simulator/state/wave.hpp"

namespace cdna::simulator {
namespace {

using mai::element;
using mai::In;
using mai::in_bits;
using mai::out_pos;

// BLGP (B-matrix lane group pattern): the lane whose B data an MFMA lane uses (AMD Matrix
// Instruction Calculator README, "Example of Using the BLGP Modifier": 1 lanes 0-31 broadcast to
// 32-63, 2 lanes 32-63 to 0-31, 3 rotate down by 16, 4..7 lanes 16*(blgp-4)..+15 to all).
constexpr int blgp_lane(int lane, int blgp) {
  switch (blgp) {
    case 1: return lane % 32;
    case 2: return lane % 32 + 32;
    case 3: return (lane + 16) % 64;
    case 4: case 5: case 6: case 7: return lane % 16 + 16 * (blgp - 4);
    default: return lane;
  }
}

// bf16/f16: A, B and C gathered once from the register rows into the tile layout of
// numerics/mfma_tile.hpp (A [block][i][k], B [block][j][k], C [block][i][j]), then the whole
// M x N tile of each block in one call; same bits as mfma_dot_bf16/f16 per element.
// Plain: no CBSZ/ABID/BLGP (what compilers emit), so the lane of an element is a constant
// expression of (block, i, k) and the gathering loops carry no modifier arithmetic.
template <int M, int K, int B, In T, bool Plain>
void mfma_tile16(Wave& w, const Inst& I, std::uint32_t (&out)[M * M * B / 64][kLanes]) {
  constexpr int N = M;
  constexpr int kpl = M * K * B / 64;
  const Operand& A = I.ops[1];
  const Operand& Bo = I.ops[2];
  const Operand& C = I.ops[3];
  std::array<std::uint16_t, B * M * K> a{}, b{};
  std::array<float, B * M * N> c{};
  for (int k = 0; k < K; ++k) {
    // Element k % kpl of a lane: register (k % kpl) / 2, half (k % kpl) % 2 (packed
    // little-endian, exec/mfma_layout.hpp).
    const int e = k % kpl;
    const std::uint32_t* ra = w.row(A.reg + static_cast<std::uint32_t>(e / 2));
    const std::uint32_t* rb = w.row(Bo.reg + static_cast<std::uint32_t>(e / 2));
    const int shift = 16 * (e % 2);
    for (int blk = 0; blk < B; ++blk) {
      const int ablock = Plain ? blk : ((blk >> I.cbsz) << I.cbsz) + I.abid;
      for (int i = 0; i < M; ++i) {
        const int row_lane = M * B * (k / kpl) + i;
        a[static_cast<std::size_t>((blk * M + i) * K + k)] =
            static_cast<std::uint16_t>(ra[M * ablock + row_lane] >> shift);
        const int b_lane = Plain ? M * blk + row_lane : blgp_lane(M * blk + row_lane, I.blgp);
        b[static_cast<std::size_t>((blk * N + i) * K + k)] = static_cast<std::uint16_t>(rb[b_lane] >> shift);
      }
    }
  }
  // Row i of a block's C/D occupies N consecutive lanes of one register (out_pos: lane =
  // lane0 + j), so rows are copied whole.
  for (int blk = 0; blk < B; ++blk)
    for (int i = 0; i < M; ++i) {
      float* dst = &c[static_cast<std::size_t>((blk * M + i) * N)];
      if (C.kind == OperandKind::Const) {
        std::fill_n(dst, N, as_float(C.k32));
        continue;
      }
      const auto [reg, lane0] = out_pos<M, B, false>(i, 0, blk);
      std::memcpy(dst, w.row(C.reg + static_cast<std::uint32_t>(reg)) + lane0, N * sizeof(float));
    }
  for (int blk = 0; blk < B; ++blk) {
    const auto ab = std::span<const std::uint16_t>(a).subspan(blk * M * K, M * K);
    const auto bb = std::span<const std::uint16_t>(b).subspan(blk * N * K, N * K);
    const auto cb = std::span<float>(c).subspan(blk * M * N, M * N);
    if constexpr (T == In::Bf16) numerics::mfma_tile_bf16(ab, bb, cb, M, N, K);
    else numerics::mfma_tile_f16(ab, bb, cb, M, N, K);
  }
  for (int blk = 0; blk < B; ++blk)
    for (int i = 0; i < M; ++i) {
      const auto [reg, lane0] = out_pos<M, B, false>(i, 0, blk);
      std::memcpy(&out[reg][lane0], &c[static_cast<std::size_t>((blk * M + i) * N)], N * sizeof(float));
    }
}

template <int M, int K, int B, In T>
void mfma(Wave& w, const Inst& I) {
  constexpr int N = M;
  constexpr int bits = in_bits(T);
  constexpr int kpl = M * K * B / 64;
  static_assert(kpl >= 1 && kpl * bits <= 128, "lane holds 1..4 registers of input");
  constexpr bool f64 = T == In::F64;
  constexpr int out_regs = M * N * B / 64 * (f64 ? 2 : 1);
  if (w.exec() != ~0ull)
    sim_fail("MFMA with EXEC " + hex(w.exec()) +
             " (not all lanes active): the behaviour for inactive lanes is not modelled");
  if (I.neg_hi || I.clamp || I.op_sel || I.op_sel_hi_given || (I.neg_lo && !f64))
    sim_fail("MFMA modifiers (neg/clamp/op_sel) are not supported for this instruction");
  const Operand& D = I.ops[0];
  const Operand& A = I.ops[1];
  const Operand& Bo = I.ops[2];
  const Operand& C = I.ops[3];
  if (A.kind != OperandKind::Vreg || Bo.kind != OperandKind::Vreg)
    sim_fail("MFMA A/B operands must be registers");
  bool flush = false;
  if constexpr (T == In::F32) {
    const std::uint32_t dm = (w.mode >> 4) & 3;
    if (dm == 1 || dm == 2)
      sim_fail("f32 MFMA with MODE.FP_DENORM(fp32) = " + std::to_string(dm) +
               " (split flush modes are not modelled; 0 and 3 are)");
    flush = dm == 0;
  }
  if constexpr (T == In::Bf16 || T == In::F16) {
    std::uint32_t out[out_regs][kLanes];
    if (I.cbsz == 0 && I.abid == 0 && I.blgp == 0) mfma_tile16<M, K, B, T, true>(w, I, out);
    else mfma_tile16<M, K, B, T, false>(w, I, out);
    mai::write_result(w, D, out);
    return;
  }

  // Inputs per block, row-major [b][i][k] / [b][j][k], raw bits. CBSZ/ABID: block b takes its A
  // from block (b rounded down to a multiple of 2^CBSZ) + ABID (the decoder keeps both in range);
  // BLGP: lane L takes its B from blgp_lane(L). f64 (gfx940+): the BLGP bits are neg:[A,B,C]
  // instead (AMD Matrix Instruction Calculator README, "Example of Using the BLGP Modifier to
  // Negate FP64 Input Matrices"; LLVM prints them as neg:[..]): flip the sign bits.
  constexpr std::uint64_t sign64 = 1ull << 63;
  const std::uint64_t neg_a = f64 && (I.neg_lo & 1) ? sign64 : 0;
  const std::uint64_t neg_b = f64 && (I.neg_lo & 2) ? sign64 : 0;
  const std::uint64_t neg_c = f64 && (I.neg_lo & 4) ? sign64 : 0;
  std::array<std::uint64_t, B * M * K> ra{}, rb{};
  for (int b = 0; b < B; ++b) {
    const int ablock = ((b >> I.cbsz) << I.cbsz) + I.abid;
    for (int k = 0; k < K; ++k)
      for (int i = 0; i < M; ++i) {
        const int row_lane = M * B * (k / kpl) + i;
        ra[static_cast<std::size_t>((b * M + i) * K + k)] =
            element(w, A.reg, bits, k % kpl, M * ablock + row_lane) ^ neg_a;
        rb[static_cast<std::size_t>((b * N + i) * K + k)] =
            element(w, Bo.reg, bits, k % kpl, blgp_lane(M * b + row_lane, I.blgp)) ^ neg_b;
      }
  }

  std::uint32_t out[out_regs][kLanes];
  auto cbits = [&](int reg, int lane) -> std::uint64_t {
    if (C.kind == OperandKind::Const) return f64 ? C.k64 ^ neg_c : C.k32;
    const std::uint32_t r = C.reg + static_cast<std::uint32_t>(reg);
    std::uint64_t x = w.row(r)[lane];
    if (f64) x = (x | std::uint64_t{w.row(r + 1)[lane]} << 32) ^ neg_c;
    return x;
  };
  for (int b = 0; b < B; ++b)
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        const auto [reg, lane] = out_pos<M, B, f64>(i, j, b);
        const std::uint64_t* pa = &ra[static_cast<std::size_t>((b * M + i) * K)];
        const std::uint64_t* pb = &rb[static_cast<std::size_t>((b * N + j) * K)];
        const std::uint64_t c = cbits(reg, lane);
        std::uint64_t d = 0;
        if constexpr (T == In::Xf32 || T == In::F32) {
          std::array<float, K> a, bb;
          for (int k = 0; k < K; ++k) {
            a[static_cast<std::size_t>(k)] = as_float(static_cast<std::uint32_t>(pa[k]));
            bb[static_cast<std::size_t>(k)] = as_float(static_cast<std::uint32_t>(pb[k]));
          }
          const float cf = as_float(static_cast<std::uint32_t>(c));
          d = fbits(T == In::Xf32 ? numerics::mfma_dot_xf32(a, bb, cf)
                                  : numerics::mfma_dot_f32(a, bb, cf, flush));
        } else if constexpr (T == In::I8) {
          std::array<std::int8_t, K> a, bb;
          for (int k = 0; k < K; ++k) {
            a[static_cast<std::size_t>(k)] = static_cast<std::int8_t>(static_cast<std::uint8_t>(pa[k]));
            bb[static_cast<std::size_t>(k)] = static_cast<std::int8_t>(static_cast<std::uint8_t>(pb[k]));
          }
          d = static_cast<std::uint32_t>(
              numerics::mfma_dot_i8(a, bb, static_cast<std::int32_t>(static_cast<std::uint32_t>(c))));
        } else if constexpr (T == In::F64) {
          std::array<double, K> a, bb;
          for (int k = 0; k < K; ++k) {
            a[static_cast<std::size_t>(k)] = std::bit_cast<double>(pa[k]);
            bb[static_cast<std::size_t>(k)] = std::bit_cast<double>(pb[k]);
          }
          d = std::bit_cast<std::uint64_t>(numerics::mfma_dot_f64(a, bb, std::bit_cast<double>(c)));
        } else {
          using numerics::Fp8Kind;
          constexpr Fp8Kind ka = (T == In::Fp8Fp8 || T == In::Fp8Bf8) ? Fp8Kind::Fp8 : Fp8Kind::Bf8;
          constexpr Fp8Kind kb = (T == In::Fp8Fp8 || T == In::Bf8Fp8) ? Fp8Kind::Fp8 : Fp8Kind::Bf8;
          std::array<std::uint8_t, K> a, bb;
          for (int k = 0; k < K; ++k) {
            a[static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(pa[k]);
            bb[static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(pb[k]);
          }
          d = fbits(numerics::mfma_dot_fp8(a, ka, bb, kb, as_float(static_cast<std::uint32_t>(c))));
        }
        out[reg][lane] = static_cast<std::uint32_t>(d);
        if constexpr (f64) out[reg + 1][lane] = static_cast<std::uint32_t>(d >> 32);
      }
  mai::write_result(w, D, out);
}

}  // namespace

void register_mfma(HandlerTable& t) {
  auto set = [&](Opcode op, Handler h) { t[static_cast<std::size_t>(op)] = h; };
  using enum In;
  set(Opcode::v_mfma_f32_16x16x16_bf16, mfma<16, 16, 1, Bf16>);
  set(Opcode::v_mfma_f32_32x32x8_bf16, mfma<32, 8, 1, Bf16>);
  set(Opcode::v_mfma_f32_16x16x16_f16, mfma<16, 16, 1, F16>);
  set(Opcode::v_mfma_f32_32x32x8_f16, mfma<32, 8, 1, F16>);
  set(Opcode::v_mfma_f32_32x32x4_2b_bf16, mfma<32, 4, 2, Bf16>);
  set(Opcode::v_mfma_f32_16x16x4_4b_bf16, mfma<16, 4, 4, Bf16>);
  set(Opcode::v_mfma_f32_4x4x4_16b_bf16, mfma<4, 4, 16, Bf16>);
  set(Opcode::v_mfma_f32_32x32x4_2b_f16, mfma<32, 4, 2, F16>);
  set(Opcode::v_mfma_f32_16x16x4_4b_f16, mfma<16, 4, 4, F16>);
  set(Opcode::v_mfma_f32_4x4x4_16b_f16, mfma<4, 4, 16, F16>);
  set(Opcode::v_mfma_f32_16x16x8_xf32, mfma<16, 8, 1, Xf32>);
  set(Opcode::v_mfma_f32_32x32x4_xf32, mfma<32, 4, 1, Xf32>);
  set(Opcode::v_mfma_f32_16x16x32_fp8_fp8, mfma<16, 32, 1, Fp8Fp8>);
  set(Opcode::v_mfma_f32_16x16x32_fp8_bf8, mfma<16, 32, 1, Fp8Bf8>);
  set(Opcode::v_mfma_f32_16x16x32_bf8_fp8, mfma<16, 32, 1, Bf8Fp8>);
  set(Opcode::v_mfma_f32_16x16x32_bf8_bf8, mfma<16, 32, 1, Bf8Bf8>);
  set(Opcode::v_mfma_f32_32x32x16_fp8_fp8, mfma<32, 16, 1, Fp8Fp8>);
  set(Opcode::v_mfma_f32_32x32x16_fp8_bf8, mfma<32, 16, 1, Fp8Bf8>);
  set(Opcode::v_mfma_f32_32x32x16_bf8_fp8, mfma<32, 16, 1, Bf8Fp8>);
  set(Opcode::v_mfma_f32_32x32x16_bf8_bf8, mfma<32, 16, 1, Bf8Bf8>);
  set(Opcode::v_mfma_i32_16x16x32_i8, mfma<16, 32, 1, I8>);
  set(Opcode::v_mfma_i32_32x32x16_i8, mfma<32, 16, 1, I8>);
  set(Opcode::v_mfma_i32_32x32x4_2b_i8, mfma<32, 4, 2, I8>);
  set(Opcode::v_mfma_i32_16x16x4_4b_i8, mfma<16, 4, 4, I8>);
  set(Opcode::v_mfma_i32_4x4x4_16b_i8, mfma<4, 4, 16, I8>);
  set(Opcode::v_mfma_f32_16x16x4_f32, mfma<16, 4, 1, F32>);
  set(Opcode::v_mfma_f32_32x32x2_f32, mfma<32, 2, 1, F32>);
  set(Opcode::v_mfma_f32_32x32x1_2b_f32, mfma<32, 1, 2, F32>);
  set(Opcode::v_mfma_f32_16x16x1_4b_f32, mfma<16, 1, 4, F32>);
  set(Opcode::v_mfma_f32_4x4x1_16b_f32, mfma<4, 1, 16, F32>);
  set(Opcode::v_mfma_f64_16x16x4_f64, mfma<16, 4, 1, F64>);
  set(Opcode::v_mfma_f64_4x4x4_4b_f64, mfma<4, 4, 4, F64>);
}

}  // namespace cdna::simulator
