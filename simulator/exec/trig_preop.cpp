// v_trig_preop_f64: a 53-bit segment of 2/π for the Payne-Hanek argument reduction of f64 sin/cos
// (ocml's large-argument path). Semantics as LLVM constant-folds the instruction
// (AMDGPUInstCombineIntrinsic.cpp, amdgcn_trig_preop, "hardware behavior"; CDNA3 ISA guide,
// V_TRIG_PREOP_F64): with e the biased exponent of S0 (after abs/neg) and seg = S1[4:0],
//   shift = 53·seg + max(e − 1077, 0);
//   D = (the 53 bits of the binary fraction of 2/π at positions shift+1 .. shift+53) · 2^(−53−shift),
//   times 2^128 when e ≥ 1968 (so that the product with a huge S0 stays in range),
// rounded to f64 (nearest even: only the subnormal range rounds); D = +0 when the segment runs
// past the 1184 fraction bits the hardware holds; a NaN S0 gives S0 quieted. The bits of 2/π are
// computed here with MPFR, not copied from a table.
#include <gmp.h>
#include <mpfr.h>

#include <array>
#include <cmath>

#include "simulator/exec/fp.hpp"
#include "simulator/exec/handlers.hpp"
#include "simulator/state/wave.hpp"

namespace cdna::simulator {
namespace {

using u32 = std::uint32_t;
using u64 = std::uint64_t;

constexpr int kFractionBits = 1184;  // 37 words of 2/π, as the hardware holds (LLVM, above)

// Bit i (0-based) of the binary fraction of 2/π, i.e. the digit of 2^-(i+1).
const std::array<bool, kFractionBits>& two_over_pi_bits() {
  static const std::array<bool, kFractionBits> bits = [] {
    std::array<bool, kFractionBits> b{};
    mpfr_t x;
    mpfr_init2(x, kFractionBits + 64);
    mpfr_const_pi(x, MPFR_RNDN);
    mpfr_ui_div(x, 2, x, MPFR_RNDN);  // 2/π, error far below bit kFractionBits
    mpz_t z;
    mpz_init(z);
    mpfr_mul_2si(x, x, kFractionBits, MPFR_RNDN);
    mpfr_get_z(z, x, MPFR_RNDD);  // floor(2/π · 2^1184): bit 1183 - i is fraction bit i
    for (int i = 0; i < kFractionBits; ++i) b[static_cast<std::size_t>(i)] = mpz_tstbit(z, static_cast<mp_bitcnt_t>(kFractionBits - 1 - i)) != 0;
    mpz_clear(z);
    mpfr_clear(x);
    return b;
  }();
  return bits;
}

u64 trig_preop(u64 x, u32 segment) {
  if (is_nan64(x)) return x | 0x0008000000000000ull;
  const int e = static_cast<int>((x >> 52) & 0x7ff);
  const int shift = 53 * static_cast<int>(segment & 31u) + (e > 1077 ? e - 1077 : 0);
  // The hardware reads 64 bits from word shift/32 on; past its table the result is 0.
  if (shift / 32 + 2 >= kFractionBits / 32) return 0;
  const auto& bits = two_over_pi_bits();
  u64 m = 0;
  for (int i = 0; i < 53; ++i) m = m << 1 | (bits[static_cast<std::size_t>(shift + i)] ? 1u : 0u);
  int scale = -53 - shift;
  if (e >= 1968) scale += 128;
  return dbits(std::ldexp(static_cast<double>(m), scale));
}

void v_trig_preop_f64(Wave& w, const Inst& I) {
  if (I.clamp || I.omod) sim_fail("clamp/omod on v_trig_preop_f64 is not supported");
  Lanes64 a, r;
  Lanes tb;
  fsrc64(w, I.ops[1], a, false);
  const u32* b = vsrc(w, I.ops[2], tb);
  for (int l = 0; l < kLanes; ++l) r.u[l] = trig_preop(a.u[l], b[l]);
  vwrite64(w, I.ops[0], r);
}

}  // namespace

void register_trig_preop(HandlerTable& t) { t[static_cast<std::size_t>(Opcode::v_trig_preop_f64)] = v_trig_preop_f64; }

}  // namespace cdna::simulator
