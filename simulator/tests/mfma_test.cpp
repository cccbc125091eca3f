// MFMA kernels (inline asm with the accumulator tied, AGPR and VGPR accumulators, C = 0,
// chained, and the compiler's own builtin) against a host computation that places the matrices
// with the AMD Matrix Instruction Calculator layouts (written out here, independently of the
// simulator) and evaluates each element with numerics::mfma_dot_bf16 / mfma_dot_f16.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>

#include "numerics/fp8.hpp"
#include "numerics/mfma.hpp"
#include "simulator/tests/test_util.hpp"

namespace cdna::simulator {
namespace {

using namespace testing;
using u16 = std::uint16_t;
using u32 = std::uint32_t;

SimulatorExecutor& executor() {
  static SimulatorExecutor e;
  return e;
}

// Random 16-bit floats with moderate exponents (bf16: exponent 120..135; f16: 10..21),
// some zeros and a few subnormals.
std::vector<u16> random_16(std::size_t n, u32 seed, bool bf16) {
  auto r = random_u32(n, seed);
  std::vector<u16> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    u32 x = r[i];
    u16 sign = static_cast<u16>((x >> 31) << 15);
    if (x % 29 == 0) { v[i] = sign; continue; }
    if (bf16) {
      u16 e = static_cast<u16>(x % 31 == 0 ? 0 : 120 + (x >> 8) % 16);
      v[i] = static_cast<u16>(sign | (e << 7) | ((x >> 12) & 0x7f));
    } else {
      u16 e = static_cast<u16>(x % 31 == 0 ? 0 : 10 + (x >> 8) % 12);
      v[i] = static_cast<u16>(sign | (e << 10) | ((x >> 12) & 0x3ff));
    }
  }
  return v;
}

struct Shape {
  int m, k;  // M = N = m
};

// Lane l of A holds A[l % M][4*(l / M) + e], e = 0..3 (element e at bits 16*(e%2) of register e/2).
std::vector<u16> pack_a(const std::vector<u16>& A, Shape s) {  // A row-major M x K
  std::vector<u16> lanes(64 * 4);
  for (int l = 0; l < 64; ++l)
    for (int e = 0; e < 4; ++e)
      lanes[static_cast<std::size_t>(4 * l + e)] = A[static_cast<std::size_t>((l % s.m) * s.k + 4 * (l / s.m) + e)];
  return lanes;
}
// Lane l of B holds B[4*(l / N) + e][l % N].
std::vector<u16> pack_b(const std::vector<u16>& B, Shape s) {  // B row-major K x N
  std::vector<u16> lanes(64 * 4);
  for (int l = 0; l < 64; ++l)
    for (int e = 0; e < 4; ++e)
      lanes[static_cast<std::size_t>(4 * l + e)] = B[static_cast<std::size_t>((4 * (l / s.m) + e) * s.m + l % s.m)];
  return lanes;
}
// C/D: lane l register r holds element (i, j) with j = l % N and
//   16x16: i = 4*(l/16) + r;  32x32: i = 8*(r/4) + 4*(l/32) + r%4.
std::pair<int, int> cd_element(Shape s, int l, int r) {
  if (s.m == 16) return {4 * (l / 16) + r, l % 16};
  return {8 * (r / 4) + 4 * (l / 32) + r % 4, l % 32};
}
int regs(Shape s) { return s.m * s.m / 64; }

std::vector<float> pack_cd(const std::vector<float>& C, Shape s) {  // row-major M x N
  std::vector<float> lanes(static_cast<std::size_t>(64 * regs(s)));
  for (int l = 0; l < 64; ++l)
    for (int r = 0; r < regs(s); ++r) {
      auto [i, j] = cd_element(s, l, r);
      lanes[static_cast<std::size_t>(l * regs(s) + r)] = C[static_cast<std::size_t>(i * s.m + j)];
    }
  return lanes;
}

std::vector<float> host_mfma(const std::vector<u16>& A, const std::vector<u16>& B,
                             const std::vector<float>& C, Shape s, bool bf16) {
  std::vector<float> D(static_cast<std::size_t>(s.m * s.m));
  for (int i = 0; i < s.m; ++i)
    for (int j = 0; j < s.m; ++j) {
      std::vector<u16> a(static_cast<std::size_t>(s.k)), b(static_cast<std::size_t>(s.k));
      for (int k = 0; k < s.k; ++k) {
        a[static_cast<std::size_t>(k)] = A[static_cast<std::size_t>(i * s.k + k)];
        b[static_cast<std::size_t>(k)] = B[static_cast<std::size_t>(k * s.m + j)];
      }
      float c = C[static_cast<std::size_t>(i * s.m + j)];
      D[static_cast<std::size_t>(i * s.m + j)] = bf16 ? numerics::mfma_dot_bf16(a, b, c) : numerics::mfma_dot_f16(a, b, c);
    }
  return D;
}

void expect_same(const std::vector<float>& got_lanes, const std::vector<float>& D, Shape s,
                 const std::string& what) {
  auto want = pack_cd(D, s);
  ASSERT_EQ(got_lanes.size(), want.size());
  int bad = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (as_u(got_lanes[i]) != as_u(want[i]) && bad++ < 10)
      ADD_FAILURE() << what << " lane " << i / static_cast<std::size_t>(regs(s)) << " reg "
                    << i % static_cast<std::size_t>(regs(s)) << ": got " << got_lanes[i] << " expected " << want[i];
  }
  EXPECT_EQ(bad, 0) << what;
}

void run_case(const std::string& kernel, Shape s, bool bf16, u32 seed,
              const std::function<std::vector<float>(const std::vector<u16>&, const std::vector<u16>&,
                                                     const std::vector<float>&)>& expected,
              bool zero_c = false) {
  auto co = testdata("mfma");
  auto A = random_16(static_cast<std::size_t>(s.m * s.k), seed, bf16);
  auto B = random_16(static_cast<std::size_t>(s.k * s.m), seed + 1, bf16);
  std::vector<float> C(static_cast<std::size_t>(s.m * s.m));
  auto rc = random_u32(C.size(), seed + 2);
  for (std::size_t i = 0; i < C.size(); ++i)
    C[i] = zero_c ? 0.0f : static_cast<float>(static_cast<int>(rc[i] % 2001) - 1000) / 64.0f;
  auto a = pack_a(A, s), b = pack_b(B, s);
  auto c = pack_cd(C, s);
  if (zero_c) std::fill(c.begin(), c.end(), -123.0f);  // D must not depend on the old register
  auto& ex = executor();
  ex.run(co, dispatch(kernel, {1, 1, 1}, {64, 1, 1}, {in(a), in(b), out(c)}));
  expect_same(c, expected(A, B, C), s, kernel);
  EXPECT_GE(ex.last_stats().mfma_instructions, 1u);
}

TEST(SimMfma, Bf16_16x16x16_Vgpr) {
  Shape s{16, 16};
  run_case("mfma_16x16x16_bf16", s, true, 1, [&](auto& A, auto& B, auto& C) { return host_mfma(A, B, C, s, true); });
}
TEST(SimMfma, Bf16_16x16x16_AgprTwice) {
  Shape s{16, 16};
  run_case("mfma_16x16x16_bf16_agpr_twice", s, true, 2, [&](auto& A, auto& B, auto& C) {
    return host_mfma(A, B, host_mfma(A, B, C, s, true), s, true); });
  EXPECT_EQ(executor().last_stats().mfma_instructions, 2u);
}
TEST(SimMfma, Bf16_16x16x16_ZeroC) {
  Shape s{16, 16};
  run_case("mfma_16x16x16_bf16_zero_c", s, true, 3,
           [&](auto& A, auto& B, auto& C) { return host_mfma(A, B, C, s, true); }, true);
}
TEST(SimMfma, Bf16_32x32x8) {
  Shape s{32, 8};
  run_case("mfma_32x32x8_bf16", s, true, 4, [&](auto& A, auto& B, auto& C) { return host_mfma(A, B, C, s, true); });
}
TEST(SimMfma, F16_16x16x16) {
  Shape s{16, 16};
  run_case("mfma_16x16x16_f16", s, false, 5, [&](auto& A, auto& B, auto& C) { return host_mfma(A, B, C, s, false); });
}
TEST(SimMfma, F16_32x32x8_Agpr) {
  Shape s{32, 8};
  run_case("mfma_32x32x8_f16", s, false, 6, [&](auto& A, auto& B, auto& C) { return host_mfma(A, B, C, s, false); });
}
TEST(SimMfma, CompilerBuiltin) {
  Shape s{16, 16};
  run_case("mfma_builtin_16x16x16_bf16", s, true, 7, [&](auto& A, auto& B, auto& C) { return host_mfma(A, B, C, s, true); });
}

// cdna3-facts.md §4 worked example E1': a = (2, 0...), b = (2, 0...), C = -(1 + 2^-23) gives
// 0x403fffff (not the correctly rounded 3.0), through the whole kernel path.
TEST(SimMfma, WorkedExampleThroughTheKernel) {
  Shape s{16, 16};
  std::vector<u16> A(256, 0), B(256, 0);
  A[0] = 0x4000;  // A[0][0] = 2
  B[0] = 0x4000;  // B[0][0] = 2
  std::vector<float> C(256, 0.0f);
  C[0] = -as_f(0x3f800001u);
  auto a = pack_a(A, s), b = pack_b(B, s);
  auto c = pack_cd(C, s);
  executor().run(testdata("mfma"), dispatch("mfma_16x16x16_bf16", {1, 1, 1}, {64, 1, 1}, {in(a), in(b), out(c)}));
  EXPECT_EQ(as_u(c[0]), 0x403fffffu);  // lane 0 register 0 holds D[0][0]
}

TEST(SimMfma, PartialExecIsRefused) {
  auto co = testdata("mfma");
  std::vector<u16> a(64 * 4), b(64 * 4);
  std::vector<float> c(64 * 4);
  // 48 work-items: the last wave has 16 inactive lanes.
  std::string msg = error_of([&] {
    executor().run(co, dispatch("mfma_16x16x16_bf16", {1, 1, 1}, {48, 1, 1}, {in(a), in(b), out(c)}));
  });
  EXPECT_NE(msg.find("not all lanes active"), std::string::npos) << msg;
}

// ---- every other MFMA, through a generic host computation.
//
// The host places the matrices by the AMD Matrix Instruction Calculator's register -> element
// formulas (gfx9 "CDNA", no modifiers), written here as the inverse of what the simulator uses:
// for an M x N x K instruction with B blocks and kpl = M*K*B/64 elements per lane, lane l
// element e of A holds A[i][k] of block b with i = l % M, g = l / M, b = g % B,
// k = kpl*(g / B) + e (B likewise with j); C/D register r lane l holds (i, j, b) as out_elem().
enum class Ty { Bf16, F16, Xf32, Fp8, Bf8, I8, F32, F64 };
int ty_bits(Ty t) {
  switch (t) {
    case Ty::Bf16: case Ty::F16: return 16;
    case Ty::Xf32: case Ty::F32: return 32;
    case Ty::F64: return 64;
    default: return 8;
  }
}
struct Spec {
  std::string kernel;
  int M, K, B;
  Ty ta, tb;
};
struct Elem { int i, j, b; };
// C/D element held by 32-bit register r (of a 64-bit pair for f64: r is the pair) of lane l.
Elem out_elem(const Spec& s, int r, int l) {
  if (s.ta == Ty::F64) {
    if (s.B == 1) return {4 * r + l / 16, l % 16, 0};  // 16x16x4: pair r
    return {l / 16, l % 4, (l / 4) % 4};                // 4x4x4_4b: pair 0
  }
  if (s.M == 4) return {r, l % 4, l / 4};
  if (s.M == 16) return {4 * (l / 16) + r % 4, l % 16, r / 4};
  return {8 * ((r % 16) / 4) + 4 * (l / 32) + r % 4, l % 32, r / 16};
}

std::uint64_t random_elem(Ty t, std::uint32_t x, std::uint32_t y) {
  const std::uint32_t sign = x >> 31;
  switch (t) {
    case Ty::Bf16: case Ty::F16: {
      auto v = random_16(1, x, t == Ty::Bf16);
      return v[0];
    }
    case Ty::Xf32: case Ty::F32: {
      if (x % 23 == 0) return sign << 31;
      std::uint32_t e = x % 37 == 0 ? 0u : 118u + (x >> 8) % 20u;  // a few subnormals
      return (sign << 31) | (e << 23) | (y & 0x7fffffu);
    }
    case Ty::Fp8: case Ty::Bf8: {
      std::uint32_t v = y & 0xffu;
      return v == 0x80u ? 0u : v;  // no NaN
    }
    case Ty::I8: return y & 0xffu;
    case Ty::F64: {
      if (x % 23 == 0) return std::uint64_t{sign} << 63;
      std::uint64_t e = 1016u + (x >> 8) % 16u;
      return (std::uint64_t{sign} << 63) | (e << 52) | (std::uint64_t{y} << 20) | (x & 0xfffffu);
    }
  }
  return 0;
}

std::uint64_t host_dot(const Spec& s, const std::vector<std::uint64_t>& a,
                       const std::vector<std::uint64_t>& b, std::uint64_t c) {
  const std::size_t K = a.size();
  auto f32 = [](std::uint64_t u) { return as_f(static_cast<u32>(u)); };
  switch (s.ta) {
    case Ty::Bf16: case Ty::F16: {
      std::vector<u16> x(K), y(K);
      for (std::size_t k = 0; k < K; ++k) { x[k] = static_cast<u16>(a[k]); y[k] = static_cast<u16>(b[k]); }
      return as_u(s.ta == Ty::Bf16 ? numerics::mfma_dot_bf16(x, y, f32(c)) : numerics::mfma_dot_f16(x, y, f32(c)));
    }
    case Ty::Xf32: case Ty::F32: {
      std::vector<float> x(K), y(K);
      for (std::size_t k = 0; k < K; ++k) { x[k] = f32(a[k]); y[k] = f32(b[k]); }
      return as_u(s.ta == Ty::Xf32 ? numerics::mfma_dot_xf32(x, y, f32(c))
                                   : numerics::mfma_dot_f32(x, y, f32(c), s.kernel.ends_with("_flush")));
    }
    case Ty::Fp8: case Ty::Bf8: {
      std::vector<std::uint8_t> x(K), y(K);
      for (std::size_t k = 0; k < K; ++k) { x[k] = static_cast<std::uint8_t>(a[k]); y[k] = static_cast<std::uint8_t>(b[k]); }
      auto kind = [](Ty t) { return t == Ty::Fp8 ? numerics::Fp8Kind::Fp8 : numerics::Fp8Kind::Bf8; };
      return as_u(numerics::mfma_dot_fp8(x, kind(s.ta), y, kind(s.tb), f32(c)));
    }
    case Ty::I8: {
      std::vector<std::int8_t> x(K), y(K);
      for (std::size_t k = 0; k < K; ++k) {
        x[k] = static_cast<std::int8_t>(static_cast<std::uint8_t>(a[k]));
        y[k] = static_cast<std::int8_t>(static_cast<std::uint8_t>(b[k]));
      }
      return static_cast<u32>(numerics::mfma_dot_i8(x, y, static_cast<std::int32_t>(static_cast<u32>(c))));
    }
    case Ty::F64: {
      std::vector<double> x(K), y(K);
      for (std::size_t k = 0; k < K; ++k) { x[k] = std::bit_cast<double>(a[k]); y[k] = std::bit_cast<double>(b[k]); }
      return std::bit_cast<std::uint64_t>(numerics::mfma_dot_f64(x, y, std::bit_cast<double>(c)));
    }
  }
  return 0;
}

// Runs s.kernel on random A, B, C and compares every D bit for bit.
void run_generic(const Spec& s, u32 seed) {
  const int bits = ty_bits(s.ta);
  const int kpl = s.M * s.K * s.B / 64;
  const int in_dw = std::max(1, kpl * bits / 32);
  const bool f64 = s.ta == Ty::F64;
  const int out_units = s.M * s.M * s.B / 64;  // results per lane
  const int out_dw = out_units * (f64 ? 2 : 1);
  const std::size_t nin = static_cast<std::size_t>(s.B * s.M * s.K);
  // Matrices: A[b][i][k], Bm[b][k][j], C[b][i][j].
  std::vector<std::uint64_t> A(nin), Bm(nin), C(static_cast<std::size_t>(s.B * s.M * s.M));
  auto r1 = random_u32(3 * nin + 2 * C.size(), seed);
  for (std::size_t x = 0; x < nin; ++x) {
    A[x] = random_elem(s.ta, r1[x], r1[nin + x]);
    Bm[x] = random_elem(s.tb, r1[nin + x] * 2654435761u, r1[2 * nin + x]);
  }
  for (std::size_t x = 0; x < C.size(); ++x) {
    u32 r = r1[3 * nin + x];
    if (s.ta == Ty::I8) C[x] = r;
    else if (f64) C[x] = std::bit_cast<std::uint64_t>(static_cast<double>(static_cast<int>(r % 2001) - 1000) / 64.0 + std::ldexp(static_cast<double>(r1[3 * nin + C.size() + x]), -40));
    else C[x] = as_u(static_cast<float>(static_cast<int>(r % 2001) - 1000) / 64.0f);
  }
  auto at = [&](const std::vector<std::uint64_t>& m, int b, int r, int c, int cols) {
    return m[static_cast<std::size_t>(b) * (m.size() / static_cast<std::size_t>(s.B)) +
             static_cast<std::size_t>(r * cols + c)];
  };
  // Pack A and B lanes.
  std::vector<u32> la(static_cast<std::size_t>(64 * in_dw), 0), lb(la.size(), 0);
  for (int l = 0; l < 64; ++l)
    for (int e = 0; e < kpl; ++e) {
      const int i = l % s.M, g = l / s.M, b = g % s.B, k = kpl * (g / s.B) + e;
      const std::uint64_t va = at(A, b, i, k, s.K);   // A[b][i][k]
      const std::uint64_t vb = at(Bm, b, k, i, s.M);  // B[b][k][j = i]
      for (int part = 0; part < (bits == 64 ? 2 : 1); ++part) {
        const int bit = e * bits + 32 * part;
        const std::size_t idx = static_cast<std::size_t>(l * in_dw + bit / 32);
        const u32 mask = bits >= 32 ? ~0u : ((1u << bits) - 1u);
        la[idx] |= (static_cast<u32>(va >> (32 * part)) & mask) << (bit % 32);
        lb[idx] |= (static_cast<u32>(vb >> (32 * part)) & mask) << (bit % 32);
      }
    }
  // Pack C and compute the expected D.
  std::vector<u32> lc(static_cast<std::size_t>(64 * out_dw)), want(lc.size());
  for (int l = 0; l < 64; ++l)
    for (int r = 0; r < out_units; ++r) {
      const Elem el = out_elem(s, r, l);
      const std::uint64_t c = at(C, el.b, el.i, el.j, s.M);
      std::vector<std::uint64_t> a(static_cast<std::size_t>(s.K)), b(a.size());
      for (int k = 0; k < s.K; ++k) {
        a[static_cast<std::size_t>(k)] = at(A, el.b, el.i, k, s.K);
        b[static_cast<std::size_t>(k)] = at(Bm, el.b, k, el.j, s.M);
      }
      const std::uint64_t d = host_dot(s, a, b, c);
      const std::size_t w = static_cast<std::size_t>(l * out_dw + (f64 ? 2 * r : r));
      lc[w] = static_cast<u32>(c);
      want[w] = static_cast<u32>(d);
      if (f64) { lc[w + 1] = static_cast<u32>(c >> 32); want[w + 1] = static_cast<u32>(d >> 32); }
    }
  executor().run(testdata("mfma"), dispatch(s.kernel, {1, 1, 1}, {64, 1, 1}, {in(la), in(lb), out(lc)}));
  int bad = 0;
  for (std::size_t x = 0; x < want.size(); ++x)
    if (lc[x] != want[x] && bad++ < 8)
      ADD_FAILURE() << s.kernel << " lane " << x / static_cast<std::size_t>(out_dw) << " dword "
                    << x % static_cast<std::size_t>(out_dw) << ": got 0x" << std::hex << lc[x]
                    << " expected 0x" << want[x] << std::dec;
  EXPECT_EQ(bad, 0) << s.kernel;
  EXPECT_EQ(executor().last_stats().mfma_instructions, 1u) << s.kernel;
}

TEST(SimMfmaAll, F16Bf16Blocks) {
  run_generic({"mfma_32x32x4_2b_f16", 32, 4, 2, Ty::F16, Ty::F16}, 11);
  run_generic({"mfma_16x16x4_4b_f16", 16, 4, 4, Ty::F16, Ty::F16}, 12);
  run_generic({"mfma_4x4x4_16b_f16", 4, 4, 16, Ty::F16, Ty::F16}, 13);
  run_generic({"mfma_32x32x4_2b_bf16", 32, 4, 2, Ty::Bf16, Ty::Bf16}, 14);
  run_generic({"mfma_16x16x4_4b_bf16", 16, 4, 4, Ty::Bf16, Ty::Bf16}, 15);
  run_generic({"mfma_4x4x4_16b_bf16", 4, 4, 16, Ty::Bf16, Ty::Bf16}, 16);
}
TEST(SimMfmaAll, Xf32) {
  run_generic({"mfma_16x16x8_xf32", 16, 8, 1, Ty::Xf32, Ty::Xf32}, 21);
  run_generic({"mfma_32x32x4_xf32", 32, 4, 1, Ty::Xf32, Ty::Xf32}, 22);
}
TEST(SimMfmaAll, Fp8Bf8AllPairs) {
  run_generic({"mfma_16x16x32_fp8_fp8", 16, 32, 1, Ty::Fp8, Ty::Fp8}, 31);
  run_generic({"mfma_16x16x32_fp8_bf8", 16, 32, 1, Ty::Fp8, Ty::Bf8}, 32);
  run_generic({"mfma_16x16x32_bf8_fp8", 16, 32, 1, Ty::Bf8, Ty::Fp8}, 33);
  run_generic({"mfma_16x16x32_bf8_bf8", 16, 32, 1, Ty::Bf8, Ty::Bf8}, 34);
  run_generic({"mfma_32x32x16_fp8_fp8", 32, 16, 1, Ty::Fp8, Ty::Fp8}, 35);
  run_generic({"mfma_32x32x16_fp8_bf8", 32, 16, 1, Ty::Fp8, Ty::Bf8}, 36);
  run_generic({"mfma_32x32x16_bf8_fp8", 32, 16, 1, Ty::Bf8, Ty::Fp8}, 37);
  run_generic({"mfma_32x32x16_bf8_bf8", 32, 16, 1, Ty::Bf8, Ty::Bf8}, 38);
}
TEST(SimMfmaAll, I8) {
  run_generic({"mfma_16x16x32_i8", 16, 32, 1, Ty::I8, Ty::I8}, 41);
  run_generic({"mfma_32x32x16_i8", 32, 16, 1, Ty::I8, Ty::I8}, 42);
  run_generic({"mfma_32x32x4_2b_i8", 32, 4, 2, Ty::I8, Ty::I8}, 43);
  run_generic({"mfma_16x16x4_4b_i8", 16, 4, 4, Ty::I8, Ty::I8}, 44);
  run_generic({"mfma_4x4x4_16b_i8", 4, 4, 16, Ty::I8, Ty::I8}, 45);
}
TEST(SimMfmaAll, F32) {
  run_generic({"mfma_16x16x4_f32", 16, 4, 1, Ty::F32, Ty::F32}, 51);
  run_generic({"mfma_32x32x2_f32", 32, 2, 1, Ty::F32, Ty::F32}, 52);
  run_generic({"mfma_32x32x1_2b_f32", 32, 1, 2, Ty::F32, Ty::F32}, 53);
  run_generic({"mfma_16x16x1_4b_f32", 16, 1, 4, Ty::F32, Ty::F32}, 54);
  run_generic({"mfma_4x4x1_16b_f32", 4, 1, 16, Ty::F32, Ty::F32}, 55);
}
// MODE.FP_DENORM(fp32) = 0 (s_setreg in the kernel): subnormal inputs and results flushed.
// The inputs include subnormals (random_elem), which the flushing host model reads as zeros.
// MODE.FP_DENORM = 1 (flush out only) is refused: the split modes are not modelled.
TEST(SimMfmaAll, F32HonoursModeDenormals) {
  run_generic({"mfma_16x16x4_f32_flush", 16, 4, 1, Ty::F32, Ty::F32}, 56);
  std::vector<u32> a(64), b(64), c(256);
  std::string msg = error_of([&] {
    executor().run(testdata("mfma"), dispatch("mfma_16x16x4_f32_mode1", {1, 1, 1}, {64, 1, 1}, {in(a), in(b), out(c)}));
  });
  EXPECT_NE(msg.find("FP_DENORM"), std::string::npos) << msg;
}
TEST(SimMfmaAll, F64) {
  run_generic({"mfma_16x16x4_f64", 16, 4, 1, Ty::F64, Ty::F64}, 61);
  run_generic({"mfma_4x4x4_4b_f64", 4, 4, 4, Ty::F64, Ty::F64}, 62);
}

}  // namespace
}  // namespace cdna::simulator
