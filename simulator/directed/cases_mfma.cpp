// MFMA cases: every CDNA3 (gfx942) v_mfma_*, and v_accvgpr_read/write/mov_b32.
//
// Model: each output element is computed by the test-side naive block model
// (numerics/mfma_naive_model.hpp: exact MPFR arithmetic, written independently of
// numerics/mfma.cpp, which the simulator uses). The matrices are placed in lanes and registers
// with the AMD Matrix Instruction Calculator layouts (gfx9 "CDNA" class, no broadcast
// modifiers; cdna3-facts.md §4 and the facts listed in simulator/exec/mfma.cpp's header),
// written out here for an instruction M x N x K (M = N) with B blocks and
// kpl = M*K*B/64 input elements per lane:
//   A[i][k] of block b: lane M*b + M*B*(k / kpl) + i, element k % kpl of the lane's
//     registers (element e at bit e*size of the little-endian concatenation);
//   B[k][j] of block b: lane N*b + N*B*(k / kpl) + j, element k % kpl;
//   32-bit C/D: 4x4: register i, lane 4*b + j; 16x16: register 4*b + i%4, lane 16*(i/4) + j;
//     32x32: register 16*b + 4*(i/8) + i%4, lane 32*((i/4)%2) + j;
//   f64 C/D (register pairs): 16x16x4: pair i/4, lane 16*(i%4) + j;
//     4x4x4_4b: pair 0, lane 16*(i%4) + 4*b + j.
// (Checked against the gfx9 formulas of ROCm/amd_matrix_instruction_calculator,
// matrix_calculator.py: _coord_to_lane_eqn, _coord_to_output_reg_eqn, _coord_to_input_reg_eqn.)
// Wait states (cdna3-facts.md §5): a VALU write (v_accvgpr_write) before an MFMA that reads it
// needs 2; an MFMA result read by v_accvgpr_read needs up to 19 (16-pass XDL): the cases wait
// 24 (three s_nop 7); the epilogue waits 24 before reading VGPR results.
// MODE: the kernel descriptor leaves fp32 denormals at 0 (flush in and out, compute_pgm_rsrc1
// float mode 0xc0), which the f32 MFMAs honour (cdna3-facts.md §4); one f32 case sets 3 (keep).
// Inputs avoid NaN/inf (their MFMA results beyond "NaN in, NaN out" are not published) and the
// i8 accumulators stay within ±2^30 (int32 overflow behaviour is not published).
#include <bit>
#include <random>
#include <string>

#include "simulator/directed/cases.hpp"
#include "simulator/directed/mfma_model.hpp"

namespace cdna::simulator::directed {
namespace {

std::string range(const char* file, int first, int n) {
  return std::string(file) + "[" + std::to_string(first) + ":" + std::to_string(first + n - 1) + "]";
}
std::string operand(int reg, int n) { return n == 1 ? "v" + std::to_string(reg) : range("v", reg, n); }

const std::string kWait = "  s_nop 7\n  s_nop 7\n  s_nop 7\n";  // 24 wait states

// One case per MFMA. Forms: VGPR C/D (v32..) and, as far as the 32 output VGPRs allow, AGPR
// C/D with A and B swapped (C copied to a0.. by v_accvgpr_write, D read back by
// v_accvgpr_read into v48.., or into v32.. when the result needs all 32 registers).
Case mfma_case(const Mfma& f) {
  const int n = f.out_regs(), nr = f.in_regs();
  const bool both = n <= 16;
  const bool agpr_only = !both && (f.a == In::Bf16 || f.a == In::I8);
  const bool keep = f.name == "v_mfma_f32_4x4x1_16b_f32";  // fp32 denormals kept (MODE 3)
  std::string b;
  if (keep) b += "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 3\n  s_nop 3\n";
  const bool use_agpr = both || agpr_only;
  if (use_agpr) {
    for (int r = 0; r < n; ++r) b += "  v_accvgpr_write_b32 a" + std::to_string(r) + ", v" + std::to_string(32 + r) + "\n";
    b += "  s_nop 1\n";
  }
  if (!agpr_only)
    b += "  " + f.name + " " + range("v", 32, n) + ", " + operand(10, nr) + ", " + operand(12, nr) + ", " + range("v", 32, n) + "\n";
  if (use_agpr) {
    b += "  " + f.name + " " + range("a", 0, n) + ", " + operand(agpr_only ? 10 : 12, nr) + ", " +
         operand(agpr_only ? 12 : 10, nr) + ", " + range("a", 0, n) + "\n" + kWait;
    const int dst = agpr_only ? 32 : 48;
    for (int r = 0; r < n; ++r) b += "  v_accvgpr_read_b32 v" + std::to_string(dst + r) + ", a" + std::to_string(r) + "\n";
  }
  auto model = [f, n, both, agpr_only, keep](State& s) {
    const bool flush = f.a == In::F32 && !keep;
    const State init = s;
    if (!agpr_only) {
      const auto d = mfma_result(f, init, 10, 12, flush, {});
      for (int r = 0; r < n; ++r) s.vout[static_cast<std::size_t>(r)] = d[static_cast<std::size_t>(r)];
    }
    if (both || agpr_only) {
      const auto d = agpr_only ? mfma_result(f, init, 10, 12, flush, {}) : mfma_result(f, init, 12, 10, flush, {});
      const int dst = agpr_only ? 0 : 16;
      for (int r = 0; r < n; ++r) s.vout[static_cast<std::size_t>(dst + r)] = d[static_cast<std::size_t>(r)];
    }
  };
  return Case{f.name, b, model, Values::Int, [f](State& s) { init_operands(f, s); }};
}

// v_accvgpr_write/read/mov: full and partial EXEC (s[26:27]); inline-constant and SGPR sources.
constexpr u32 kExecLo = 0x6b3c90f5u, kExecHi = 0xd1e2a487u;

void add_accvgpr_cases(std::vector<Case>& cs) {
  const std::string prologue =
      "  v_accvgpr_write_b32 a0, v10\n  v_accvgpr_write_b32 a1, v11\n"
      "  v_accvgpr_write_b32 a2, 7\n  v_accvgpr_write_b32 a3, s16\n";
  auto init = [](State& s) { s.sin[10] = kExecLo; s.sin[11] = kExecHi; };
  auto base = [](State& s) {  // the prologue's effect, read back into v32..v35
    for (int l = 0; l < kLanes; ++l) {
      const auto ul = static_cast<std::size_t>(l);
      s.vout[0][ul] = s.vin[0][ul];
      s.vout[1][ul] = s.vin[1][ul];
      s.vout[2][ul] = 7;
      s.vout[3][ul] = s.sin[0];
    }
  };
  const std::string readback =
      "  s_nop 1\n  v_accvgpr_read_b32 v32, a0\n  v_accvgpr_read_b32 v33, a1\n"
      "  v_accvgpr_read_b32 v34, a2\n  v_accvgpr_read_b32 v35, a3\n";
  const std::string partial = "  s_mov_b64 exec, s[26:27]\n";
  // write: a0 <- v12 in the lanes of the partial EXEC.
  cs.push_back({"v_accvgpr_write_b32", prologue + partial + "  v_accvgpr_write_b32 a0, v12\n  s_mov_b64 exec, -1\n" + readback,
                [base](State& s) {
                  base(s);
                  const u64 ex = sgpr_pair(s, 10);
                  for (int l = 0; l < kLanes; ++l)
                    if ((ex >> l) & 1) s.vout[0][static_cast<std::size_t>(l)] = s.vin[2][static_cast<std::size_t>(l)];
                },
                Values::Int, init});
  // read: under the partial EXEC, v36 <- a1; other lanes keep v36's preset; EXEC stays partial.
  cs.push_back({"v_accvgpr_read_b32", prologue + readback + partial + "  v_accvgpr_read_b32 v36, a1\n",
                [base](State& s) {
                  base(s);
                  const u64 ex = sgpr_pair(s, 10);
                  s.exec = ex;
                  for (int l = 0; l < kLanes; ++l)
                    if ((ex >> l) & 1) s.vout[4][static_cast<std::size_t>(l)] = s.vin[1][static_cast<std::size_t>(l)];
                },
                Values::Int, init});
  // mov: a3 <- a0 on all lanes, then a1 <- a2 under the partial EXEC.
  cs.push_back({"v_accvgpr_mov_b32",
                prologue + "  s_nop 1\n  v_accvgpr_mov_b32 a3, a0\n" + partial + "  v_accvgpr_mov_b32 a1, a2\n  s_mov_b64 exec, -1\n" + readback,
                [base](State& s) {
                  base(s);
                  const u64 ex = sgpr_pair(s, 10);
                  for (int l = 0; l < kLanes; ++l) {
                    const auto ul = static_cast<std::size_t>(l);
                    s.vout[3][ul] = s.vin[0][ul];
                    if ((ex >> l) & 1) s.vout[1][ul] = 7;
                  }
                },
                Values::Int, init});
}

}  // namespace

void add_mfma_cases(std::vector<Case>& cs) {
  add_accvgpr_cases(cs);
  for (const auto& f : instructions()) cs.push_back(mfma_case(f));
}

}  // namespace cdna::simulator::directed
