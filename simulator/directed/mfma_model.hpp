// Test-side model of the dense MFMAs for the directed cases (cases_mfma.cpp,
// cases_mfma_sparse.cpp): operand layouts written from the AMD Matrix Instruction Calculator
// (file comment of cases_mfma.cpp), each output element computed by the naive MPFR block model
// (numerics/mfma_naive_model.hpp), independent of the simulator's numerics/mfma.cpp.
#pragma once

#include <algorithm>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "numerics/fp8.hpp"
#include "simulator/directed/harness.hpp"

namespace cdna::simulator::directed {

enum class In { F16, Bf16, Fp8, Bf8, Xf32, I8, F32, F64 };
int elem_bits(In t);

struct Mfma {
  std::string name;
  int m, k, blocks;
  In a, b;
  int kpl() const { return m * k * blocks / 64; }
  int in_regs() const { return std::max(1, kpl() * elem_bits(a) / 32); }
  bool f64() const { return a == In::F64; }
  int out_regs() const { return m * m * blocks / 64 * (f64() ? 2 : 1); }
};

// Every gfx942 dense MFMA with its shape and input types.
std::vector<Mfma> instructions();

// A[i][k] of block b: its lane (element k % kpl).
int a_lane(const Mfma& f, int b, int i, int k);
// 32-bit result register and lane of D[i][j] in block b (for f64: the pair index).
std::pair<int, int> d_place(const Mfma& f, int b, int i, int j);
// Element e (of `bits`) of a lane's operand registers starting at input VGPR `reg` (v10..).
u64 element(const State& s, int reg, int nregs, int lane, int e, int bits);
numerics::Fp8Kind kind8(In t);

// The matrix modifiers: cbsz/abid (A-block broadcast), blgp (B lane pattern), and for f64
// neg:[A,B,C] as bits 0..2.
struct MfmaMods {
  int cbsz = 0, abid = 0, blgp = 0, neg = 0;
};

// D (out_regs x 64 words) of `f` with A from input VGPR a_reg, B from b_reg and C from the
// first out_regs output VGPRs of `s` (v32..), under `mods`.
std::vector<Lanes> mfma_result(const Mfma& f, const State& s, int a_reg, int b_reg, bool flush,
                               const MfmaMods& mods);

// Random element patterns of type t: moderate exponents, some zeros and subnormals, no NaN/inf.
u64 random_element(In t, std::mt19937_64& g);
// Fills A (v10..) and B (v12..) element by element, and C in v32.. (out_regs registers).
void init_operands(const Mfma& f, State& s);

}  // namespace cdna::simulator::directed
