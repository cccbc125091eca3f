// MFMA kernels (inline asm with the accumulator tied, AGPR and VGPR accumulators, C = 0,
// chained, and the compiler's own builtin) against a host computation that places the matrices
// with the AMD Matrix Instruction Calculator layouts (written out here, independently of the
// simulator) and evaluates each element with numerics::mfma_dot_bf16 / mfma_dot_f16.
#include <gtest/gtest.h>

#include <functional>

#include "numerics/mfma.hpp"
#include "simulator/test_util.hpp"

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

}  // namespace
}  // namespace cdna::simulator
