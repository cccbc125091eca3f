// IEEE division and square root end to end: simulator/testdata/division.hip compiled by clang-19
// at -O3 and -O1 (LLVM SIISelLowering LowerFDIV32/LowerFDIV64: v_div_scale x2, v_rcp, an fma
// refinement chain, v_div_fmas, v_div_fixup; sqrt: lowerFSQRTF32/F64), run on the simulator and
// compared bit for bit with the host's IEEE 754 division and sqrt. Bit-exact is the right bar:
// LLVM's fdiv and llvm.sqrt without fast-math flags or !fpmath metadata are the IEEE operations
// (LangRef 'fdiv', 'llvm.sqrt'), HIP attaches neither by default, and the AMDGPU lowering is the
// correctly rounded one (the relaxed 1-2.5 ULP forms are only chosen under !fpmath/afn,
// AMDGPUCodeGenPrepare.cpp). NaN results of division are compared bit for bit too: 0/0 and
// inf/inf give 0xffc00000 (v_div_fixup, ISA guide), as x86 SSE does; a NaN operand comes back
// quieted, numerator first, as on x86. sqrt of a negative number only needs to be a NaN.
// Operands: all pairs of specials (±0, ±inf, quiet and signalling NaNs, smallest/largest
// subnormal, smallest normal, largest finite, 1, 3) and random bit patterns over every exponent,
// plus quotients that overflow, underflow and land in the subnormal range.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <iostream>
#include <random>

#include "numerics/bf16.hpp"
#include "simulator/decode/isa.hpp"
#include "simulator/exec/handlers.hpp"
#include "simulator/tests/test_util.hpp"
#include "simulator/state/wave.hpp"

namespace cdna::simulator {
namespace {

using namespace testing;

// Why the f64 kernels cannot run in this build ("" if they can): they need v_rcp_f64/v_rsq_f64.
std::string missing(std::initializer_list<const char*> names) {
  for (const char* n : names) {
    const Opcode op = opcode_from_mnemonic(n);
    if (op == Opcode::kUnsupported || !handler_table()[static_cast<std::size_t>(op)])
      return std::string(n) + " is not implemented by the simulator";
  }
  return {};
}

template <class U>
std::vector<U> specials() {
  if constexpr (sizeof(U) == 4) {
    return {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00001u, 0xffa00002u,
            0x00000001u, 0x807fffffu, 0x00800000u, 0x7f7fffffu, 0xff7fffffu, 0x3f800000u,
            0x40400000u, 0xbf800001u, 0x1f800000u, 0x5f800000u};
  } else {
    return {0x0ull, 0x8000000000000000ull, 0x7ff0000000000000ull, 0xfff0000000000000ull,
            0x7ff8000000000001ull, 0xfff4000000000002ull, 0x1ull, 0x800fffffffffffffull,
            0x0010000000000000ull, 0x7fefffffffffffffull, 0xffefffffffffffffull,
            0x3ff0000000000000ull, 0x4008000000000000ull, 0xbff0000000000001ull,
            0x2000000000000000ull, 0x5ff0000000000000ull};
  }
}

// Operand pairs: every pair of specials, then random patterns (any exponent, either sign), then
// random pairs whose quotient is near the overflow and subnormal boundaries.
template <class U>
void operands(std::vector<U>& a, std::vector<U>& b, std::size_t n_random) {
  const auto s = specials<U>();
  for (U x : s)
    for (U y : s) a.push_back(x), b.push_back(y);
  std::mt19937_64 g(42);
  constexpr int kMan = sizeof(U) == 4 ? 23 : 52, kBias = sizeof(U) == 4 ? 127 : 1023;
  for (std::size_t i = 0; i < n_random; ++i) {
    a.push_back(static_cast<U>(g()));
    b.push_back(static_cast<U>(g()));
  }
  for (std::size_t i = 0; i < n_random; ++i) {  // exponent difference about ±(bias .. bias + man)
    const U mant_a = static_cast<U>(g() & ((U{1} << kMan) - 1)), mant_b = static_cast<U>(g() & ((U{1} << kMan) - 1));
    const int shift = static_cast<int>(g() % static_cast<unsigned>(kMan + 8)) - 4;
    const U ea = static_cast<U>(kBias + kBias / 2 + (i % 2 ? shift : 0)), eb = static_cast<U>(kBias / 2 - (i % 2 ? 0 : shift));
    const U sign = static_cast<U>(g() & 1) << (8 * sizeof(U) - 1);
    U x = sign | (ea << kMan) | mant_a, y = (eb << kMan) | mant_b;
    if (i % 4 >= 2) std::swap(x, y);  // tiny / huge: subnormal and underflowing quotients
    if (i % 8 == 7) y &= (U{1} << kMan) - 1;  // subnormal divisor
    a.push_back(x);
    b.push_back(y);
  }
}

// Returns the number of quotients that differ from IEEE; each must be within `ulps` of it
// (0: bit-exact).
template <class U>
int check_div(const std::string& co_name, const char* kernel, std::optional<std::uint64_t> envelope, int ulps = 0) {
  using F = std::conditional_t<sizeof(U) == 4, float, double>;
  std::vector<U> a, b;
  operands(a, b, 4096);
  const int n = static_cast<int>(a.size());
  std::vector<U> q(a.size(), 0);
  SimulatorExecutor ex;
  ex.options().transcendental_envelope = envelope;
  const auto co = testdata(co_name);
  const std::uint32_t groups = static_cast<std::uint32_t>((a.size() + 255) / 256);
  ex.run(co, dispatch(kernel, {groups, 1, 1}, {256, 1, 1}, {in(a), in(b), out(q), val(n)}));
  int bad = 0, differ = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const U want = std::bit_cast<U>(std::bit_cast<F>(a[i]) / std::bit_cast<F>(b[i]));
    if (q[i] == want) continue;
    ++differ;
    // Same sign, both finite, bit patterns (monotonic in magnitude) at most `ulps` apart.
    const U mag = static_cast<U>(~U{0} >> 1);
    const bool near = ulps > 0 && ((q[i] ^ want) & ~mag) == 0 && std::isfinite(std::bit_cast<F>(q[i])) &&
                      std::isfinite(std::bit_cast<F>(want)) &&
                      (q[i] > want ? q[i] - want : want - q[i]) <= static_cast<U>(ulps);
    if (!near && ++bad <= 10)
      ADD_FAILURE() << co_name << " " << kernel << ": " << std::hexfloat << std::bit_cast<F>(a[i]) << " / "
                    << std::bit_cast<F>(b[i]) << " gave " << std::bit_cast<F>(q[i]) << " (0x" << std::hex
                    << q[i] << "), IEEE 0x" << want;
  }
  EXPECT_EQ(bad, 0) << "of " << a.size();
  return differ;
}

template <class U>
void check_sqrt(const std::string& co_name, const char* kernel, std::optional<std::uint64_t> envelope) {
  using F = std::conditional_t<sizeof(U) == 4, float, double>;
  std::vector<U> a, unused;
  operands(a, unused, 4096);
  const int n = static_cast<int>(a.size());
  std::vector<U> r(a.size(), 0);
  SimulatorExecutor ex;
  ex.options().transcendental_envelope = envelope;
  const std::uint32_t groups = static_cast<std::uint32_t>((a.size() + 255) / 256);
  ex.run(testdata(co_name), dispatch(kernel, {groups, 1, 1}, {256, 1, 1}, {in(a), out(r), val(n)}));
  int bad = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const U want = std::bit_cast<U>(std::sqrt(std::bit_cast<F>(a[i])));
    // sqrt of a negative number: the default NaN's bits are the simulator's choice for
    // v_sqrt_f32 (README "NaN results"), so any NaN passes there; a NaN input must come back
    // quieted, bit for bit.
    const bool invalid = std::isnan(std::bit_cast<F>(want)) && !std::isnan(std::bit_cast<F>(a[i]));
    if (invalid && std::isnan(std::bit_cast<F>(r[i]))) continue;
    if (r[i] != want && ++bad <= 10)
      ADD_FAILURE() << co_name << " " << kernel << ": sqrt(" << std::hexfloat << std::bit_cast<F>(a[i])
                    << ") gave " << std::bit_cast<F>(r[i]) << ", IEEE " << std::bit_cast<F>(want);
  }
  EXPECT_EQ(bad, 0) << "of " << a.size();
}

TEST(SimDivision, F32DivisionIsBitExactAtO3AndO1) {
  for (const char* co : {"division", "division_o1"}) check_div<std::uint32_t>(co, "div_f32", std::nullopt);
}

// v_rcp_f32 is documented as 1 ULP; envelope mode picks either neighbour of the exact
// reciprocal. LLVM's refinement is then NOT always correctly rounded: 2^64 / FLT_MAX (scaled by
// v_div_scale to 1 / (2^64 (1 - 2^-24))) with the reciprocal rounded down to 2^-64 meets a tie in
// every fma step and returns 2^-64, one ULP below IEEE's 0x1f800001 (traced by hand with exact
// rationals). So the sequence relies on the hardware reciprocal being better than its documented
// bound for such operands; here every quotient must be within 1 ULP, and that operand must show
// the effect under some seed (else the envelope is not reaching the sequence).
TEST(SimDivision, F32DivisionWithRcpInTheOneUlpEnvelopeIsWithinOneUlp) {
  int differ = 0;
  for (std::uint64_t seed : {1ull, 2ull, 3ull, 4ull}) differ += check_div<std::uint32_t>("division", "div_f32", seed, 1);
  std::cout << "quotients off by one ULP under the rcp envelope (4 seeds): " << differ << "\n";
  EXPECT_GT(differ, 0);
}

// f16 division (v_cvt_f32_f16, v_rcp_f32, v_fma_mixlo_f16, v_div_fixup_f16) against the correctly
// rounded f16 quotient: the f32 quotient rounded to f16 (numerics::f16_from_f32_rtne). That double
// rounding is exact: a quotient of 11-bit significands lies at least 2^-23 (relative) from an f16
// midpoint, more than f32's half-ULP 2^-24 — unless it IS a midpoint, which for 11-bit operands
// happens only in the f16 subnormal range (q * 2^25 an odd integer). There LLVM's sequence is not
// correctly rounded: a * rcp(b) lies just off the tie (rcp is rounded) and v_fma_mixlo_f16 rounds
// away from even (e.g. 0x1.86p-10 / -49920 = -2^-25 exactly gives 0x8001, not -0; checked with
// exact rationals). Such results may be either neighbour of the tie; all others must be exact.
// Every pair of 256 spread f16 values plus 16384 random pairs; NaN results only need to be NaN
// (payloads pass through helper conversions).
TEST(SimDivision, F16DivisionIsCorrectlyRoundedExceptSubnormalTies) {
  std::vector<std::uint16_t> vals;
  for (std::uint32_t i = 0; i < 256; ++i) vals.push_back(static_cast<std::uint16_t>(i * 257u + (i >> 3)));
  std::vector<std::uint16_t> a, b;
  for (auto x : vals)
    for (auto y : vals) a.push_back(x), b.push_back(y);
  std::mt19937 g(7);
  for (int i = 0; i < 16384; ++i) a.push_back(static_cast<std::uint16_t>(g())), b.push_back(static_cast<std::uint16_t>(g()));
  const int n = static_cast<int>(a.size());
  for (const char* co : {"division", "division_o1"}) {
    std::vector<std::uint16_t> q(a.size(), 0);
    SimulatorExecutor ex;
    const std::uint32_t groups = static_cast<std::uint32_t>((a.size() + 255) / 256);
    ex.run(testdata(co), dispatch("div_f16", {groups, 1, 1}, {256, 1, 1}, {in(a), in(b), out(q), val(n)}));
    int bad = 0, ties_off = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      const float x = numerics::f32_from_f16(a[i]), y = numerics::f32_from_f16(b[i]);
      const float quo = x / y;
      const std::uint16_t want = numerics::f16_from_f32_rtne(quo);
      const bool both_nan = std::isnan(numerics::f32_from_f16(want)) && std::isnan(numerics::f32_from_f16(q[i]));
      const double scaled = std::ldexp(static_cast<double>(quo), 25);
      const bool tie = std::isfinite(quo) && std::fmaf(quo, y, -x) == 0.0f && std::fabs(quo) < 0x1p-14f &&
                       scaled == std::trunc(scaled) && std::fmod(std::fabs(scaled), 2.0) == 1.0;
      const bool neighbour = ((q[i] ^ want) & 0x8000u) == 0 && (q[i] == want + 1 || q[i] + 1 == want);
      if (q[i] != want && tie && neighbour) {
        ++ties_off;
        continue;
      }
      if (q[i] != want && !both_nan && ++bad <= 10)
        ADD_FAILURE() << co << " div_f16: " << x << " / " << y << " gave 0x" << std::hex << q[i] << ", IEEE 0x" << want;
    }
    EXPECT_EQ(bad, 0) << co << ", of " << a.size();
    std::cout << co << " div_f16: exact subnormal ties rounded away from even: " << ties_off << "\n";
  }
}

TEST(SimDivision, F64DivisionIsBitExactAtO3AndO1) {
  const std::string why = missing({"v_rcp_f64"});
  if (!why.empty()) GTEST_SKIP() << "SKIPPED (not a pass): div_f64 needs " << why;
  for (const char* co : {"division", "division_o1"}) check_div<std::uint64_t>(co, "div_f64", std::nullopt);
}

TEST(SimDivision, F32SqrtIsBitExact) {
  for (const char* co : {"division", "division_o1"}) check_sqrt<std::uint32_t>(co, "sqrt_f32", std::nullopt);
  check_sqrt<std::uint32_t>("division", "sqrt_f32", 7);
}

TEST(SimDivision, F64SqrtIsBitExact) {
  const std::string why = missing({"v_rsq_f64"});
  if (!why.empty()) GTEST_SKIP() << "SKIPPED (not a pass): sqrt_f64 needs " << why;
  for (const char* co : {"division", "division_o1"}) check_sqrt<std::uint64_t>(co, "sqrt_f64", std::nullopt);
}

}  // namespace
}  // namespace cdna::simulator
