// MFMA cases: every CDNA3 (gfx942) v_mfma_*, and v_accvgpr_read/write/mov_b32.
//
// Model: each output element is computed by the test-side naive block model
// (numerics/mfma_naive_model.hpp: exact MPFR arithmetic, written independently of
// numerics/mfma.cpp, which the simulator uses). The matrices are placed in lanes and registers
// with the AMD Matrix Instruction Calculator layouts (gfx9 "CDNA" class, no broadcast
// modifiers; cdna3-facts.md §4 and the facts listed in simulator/exec_mfma.cpp's header),
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

#include "numerics/mfma_naive_model.hpp"
#include "simulator/directed/cases.hpp"

namespace cdna::simulator::directed {
namespace {

namespace nt = cdna::numerics::testing;

enum class In { F16, Bf16, Fp8, Bf8, Xf32, I8, F32, F64 };

int elem_bits(In t) {
  switch (t) {
    case In::F16: case In::Bf16: return 16;
    case In::Fp8: case In::Bf8: case In::I8: return 8;
    case In::Xf32: case In::F32: return 32;
    case In::F64: return 64;
  }
  return 0;
}

struct Mfma {
  std::string name;
  int m, k, blocks;
  In a, b;
  int kpl() const { return m * k * blocks / 64; }
  int in_regs() const { return std::max(1, kpl() * elem_bits(a) / 32); }
  bool f64() const { return a == In::F64; }
  int out_regs() const { return m * m * blocks / 64 * (f64() ? 2 : 1); }
};

std::vector<Mfma> instructions() {
  std::vector<Mfma> v;
  struct S { const char* shape; int m, k, b; };
  const S h[] = {{"32x32x8", 32, 8, 1}, {"16x16x16", 16, 16, 1}, {"32x32x4_2b", 32, 4, 2},
                 {"16x16x4_4b", 16, 4, 4}, {"4x4x4_16b", 4, 4, 16}};
  for (const auto& s : h) {
    v.push_back({std::string("v_mfma_f32_") + s.shape + "_f16", s.m, s.k, s.b, In::F16, In::F16});
    v.push_back({std::string("v_mfma_f32_") + s.shape + "_bf16", s.m, s.k, s.b, In::Bf16, In::Bf16});
  }
  v.push_back({"v_mfma_f32_16x16x8_xf32", 16, 8, 1, In::Xf32, In::Xf32});
  v.push_back({"v_mfma_f32_32x32x4_xf32", 32, 4, 1, In::Xf32, In::Xf32});
  for (const S& s : {S{"16x16x32", 16, 32, 1}, S{"32x32x16", 32, 16, 1}})
    for (In x : {In::Fp8, In::Bf8})
      for (In y : {In::Fp8, In::Bf8})
        v.push_back({std::string("v_mfma_f32_") + s.shape + "_" + (x == In::Fp8 ? "fp8" : "bf8") + "_" +
                         (y == In::Fp8 ? "fp8" : "bf8"),
                     s.m, s.k, s.b, x, y});
  const S i8[] = {{"16x16x32", 16, 32, 1}, {"32x32x16", 32, 16, 1}, {"32x32x4_2b", 32, 4, 2},
                  {"16x16x4_4b", 16, 4, 4}, {"4x4x4_16b", 4, 4, 16}};
  for (const auto& s : i8) v.push_back({std::string("v_mfma_i32_") + s.shape + "_i8", s.m, s.k, s.b, In::I8, In::I8});
  const S f32[] = {{"16x16x4", 16, 4, 1}, {"32x32x2", 32, 2, 1}, {"32x32x1_2b", 32, 1, 2},
                   {"16x16x1_4b", 16, 1, 4}, {"4x4x1_16b", 4, 1, 16}};
  for (const auto& s : f32) v.push_back({std::string("v_mfma_f32_") + s.shape + "_f32", s.m, s.k, s.b, In::F32, In::F32});
  v.push_back({"v_mfma_f64_16x16x4_f64", 16, 4, 1, In::F64, In::F64});
  v.push_back({"v_mfma_f64_4x4x4_4b_f64", 4, 4, 4, In::F64, In::F64});
  return v;
}

// ---- layouts (file comment) ----
int a_lane(const Mfma& f, int b, int i, int k) { return f.m * b + f.m * f.blocks * (k / f.kpl()) + i; }
// 32-bit result register and lane of D[i][j] in block b (for f64: the pair index).
std::pair<int, int> d_place(const Mfma& f, int b, int i, int j) {
  if (f.f64()) {
    if (f.m == 16) return {i / 4, 16 * (i % 4) + j};
    return {0, 16 * (i % 4) + 4 * b + j};
  }
  if (f.m == 4) return {i, 4 * b + j};
  if (f.m == 16) return {4 * b + i % 4, 16 * (i / 4) + j};
  return {16 * b + 4 * (i / 8) + i % 4, 32 * ((i / 4) % 2) + j};
}

// Element e (of `bits`) of a lane's operand registers starting at input VGPR `reg`.
u64 element(const State& s, int reg, int nregs, int lane, int e, int bits) {
  u64 w = s.vin[static_cast<std::size_t>(reg - 10)][static_cast<std::size_t>(lane)];
  if (nregs > 1) w |= static_cast<u64>(s.vin[static_cast<std::size_t>(reg - 9)][static_cast<std::size_t>(lane)]) << 32;
  const u64 mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
  return (w >> (e * bits)) & mask;
}

numerics::Fp8Kind kind8(In t) { return t == In::Fp8 ? numerics::Fp8Kind::Fp8 : numerics::Fp8Kind::Bf8; }

// D (out_regs x 64 words) of `f` with A from input VGPR a_reg, B from b_reg and C from the
// first out_regs output VGPRs of `s` (v32..).
std::vector<Lanes> mfma_result(const Mfma& f, const State& s, int a_reg, int b_reg, bool flush) {
  std::vector<Lanes> d(static_cast<std::size_t>(f.out_regs()));
  const int ab = elem_bits(f.a), nr = f.in_regs();
  for (int b = 0; b < f.blocks; ++b)
    for (int i = 0; i < f.m; ++i)
      for (int j = 0; j < f.m; ++j) {
        std::vector<u64> av, bv;
        for (int k = 0; k < f.k; ++k) {
          av.push_back(element(s, a_reg, nr, a_lane(f, b, i, k), k % f.kpl(), ab));
          bv.push_back(element(s, b_reg, nr, a_lane(f, b, j, k), k % f.kpl(), ab));  // B: same form with N, j
        }
        const auto [r, l] = d_place(f, b, i, j);
        const auto ur = static_cast<std::size_t>(r), ul = static_cast<std::size_t>(l);
        if (f.f64()) {
          const double c = std::bit_cast<double>(lane_pair(s.vout[2 * ur], s.vout[2 * ur + 1], l));
          std::vector<double> x, y;
          for (std::size_t k = 0; k < av.size(); ++k) {
            x.push_back(std::bit_cast<double>(av[k]));
            y.push_back(std::bit_cast<double>(bv[k]));
          }
          set_lane_pair(d[2 * ur], d[2 * ur + 1], l, std::bit_cast<u64>(nt::naive_mfma_dot_f64(x, y, c)));
          continue;
        }
        const u32 cw = s.vout[ur][ul];
        const float c = std::bit_cast<float>(cw);
        u32 out = 0;
        switch (f.a) {
          case In::F16: case In::Bf16: {
            std::vector<u16> x, y;
            for (u64 v : av) x.push_back(static_cast<u16>(v));
            for (u64 v : bv) y.push_back(static_cast<u16>(v));
            out = std::bit_cast<u32>(nt::naive_mfma_dot(f.a == In::F16 ? nt::InputFormat::F16 : nt::InputFormat::Bf16, x, y, c));
            break;
          }
          case In::Fp8: case In::Bf8: {
            std::vector<std::uint8_t> x, y;
            for (u64 v : av) x.push_back(static_cast<std::uint8_t>(v));
            for (u64 v : bv) y.push_back(static_cast<std::uint8_t>(v));
            out = std::bit_cast<u32>(nt::naive_mfma_dot_fp8(x, kind8(f.a), y, kind8(f.b), c));
            break;
          }
          case In::I8: {
            std::vector<std::int8_t> x, y;
            for (u64 v : av) x.push_back(static_cast<std::int8_t>(static_cast<std::uint8_t>(v)));
            for (u64 v : bv) y.push_back(static_cast<std::int8_t>(static_cast<std::uint8_t>(v)));
            out = static_cast<u32>(nt::naive_mfma_dot_i8(x, y, static_cast<i32>(cw), false));
            break;
          }
          case In::Xf32: case In::F32: {
            std::vector<float> x, y;
            for (u64 v : av) x.push_back(std::bit_cast<float>(static_cast<u32>(v)));
            for (u64 v : bv) y.push_back(std::bit_cast<float>(static_cast<u32>(v)));
            out = std::bit_cast<u32>(f.a == In::Xf32 ? nt::naive_mfma_dot_xf32(x, y, c)
                                                     : nt::naive_mfma_dot_f32(x, y, c, flush));
            break;
          }
          case In::F64: break;
        }
        d[ur][ul] = out;
      }
  return d;
}

// ---- operand values ----
// Random element patterns of type t: moderate exponents, some zeros and subnormals, no NaN/inf.
u64 random_element(In t, std::mt19937_64& g) {
  const u64 r = g();
  const u64 sign = r >> 63, pick = r % 32;
  switch (t) {
    case In::F16:
      if (pick < 2) return sign << 15;
      if (pick < 3) return (sign << 15) | ((r >> 8) & 0x3ff);
      return (sign << 15) | ((10 + (r >> 20) % 12) << 10) | ((r >> 8) & 0x3ff);
    case In::Bf16:
      if (pick < 2) return sign << 15;
      if (pick < 3) return (sign << 15) | ((r >> 8) & 0x7f);
      return (sign << 15) | ((120 + (r >> 20) % 16) << 7) | ((r >> 8) & 0x7f);
    case In::Fp8: case In::Bf8: {
      const u64 byte = (r >> 8) & 0xff;
      return byte == 0x80 ? 0 : byte;  // 0x80 is the only NaN (FNUZ)
    }
    case In::I8: return (r >> 8) & 0xff;
    case In::Xf32: case In::F32: {
      if (pick < 2) return sign << 31;
      if (pick < 4) return (sign << 31) | ((r >> 8) & 0x7fffff);  // subnormal
      const u64 e = t == In::Xf32 ? 120 + (r >> 40) % 16 : 115 + (r >> 40) % 26;
      return (sign << 31) | (e << 23) | ((r >> 8) & 0x7fffff);
    }
    case In::F64:
      if (pick < 2) return sign << 63;
      if (pick < 3) return (sign << 63) | ((r >> 4) & 0xfffffffffffff);
      return (sign << 63) | ((1013 + (r >> 52) % 21) << 52) | ((r >> 4) & 0xfffffffffffff);
  }
  return 0;
}

// Fills A (v10..) and B (v12..) element by element, and C in v32.. (out_regs registers).
void init_operands(const Mfma& f, State& s) {
  std::mt19937_64 g(s.mem[0] * 0x9e3779b97f4a7c15ull + s.mem[1]);  // the seed's random words
  const int bits = elem_bits(f.a), nr = f.in_regs();
  for (int reg : {10, 12})
    for (int l = 0; l < kLanes; ++l) {
      u64 w = 0;
      for (int e = 0; e < f.kpl(); ++e) w |= random_element(reg == 10 ? f.a : f.b, g) << (e * bits);
      s.vin[static_cast<std::size_t>(reg - 10)][static_cast<std::size_t>(l)] = static_cast<u32>(w);
      if (nr > 1) s.vin[static_cast<std::size_t>(reg - 9)][static_cast<std::size_t>(l)] = static_cast<u32>(w >> 32);
    }
  for (int r = 0; r < f.out_regs(); ++r)
    for (int l = 0; l < kLanes; ++l) {
      const u64 x = g();
      u32 c;
      if (f.a == In::I8) c = static_cast<u32>(static_cast<i32>(x % (1u << 31)) - (1 << 30));
      else if (f.f64()) c = static_cast<u32>(r % 2 == 0 ? x : ((x >> 63) << 31) | ((1010 + (x >> 40) % 21) << 20) | (x & 0xfffff));
      else if (x % 16 == 0) c = 0;
      else c = static_cast<u32>(((x >> 63) << 31) | ((115 + (x >> 40) % 21) << 23) | (x & 0x7fffff));
      s.vout[static_cast<std::size_t>(r)][static_cast<std::size_t>(l)] = c;
    }
}

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
      const auto d = mfma_result(f, init, 10, 12, flush);
      for (int r = 0; r < n; ++r) s.vout[static_cast<std::size_t>(r)] = d[static_cast<std::size_t>(r)];
    }
    if (both || agpr_only) {
      const auto d = agpr_only ? mfma_result(f, init, 10, 12, flush) : mfma_result(f, init, 12, 10, flush);
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
