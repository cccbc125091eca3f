// The exact fma emulation (used on hosts without FMA instructions) against the host's fma,
// and the multiversioned lane kernels against scalar references.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "simulator/exec/fp_lanes.hpp"
#include "simulator/tests/test_util.hpp"

namespace cdna::simulator {
namespace {

using testing::as_f;
using testing::as_u;

bool same(std::uint32_t a, std::uint32_t b) {
  bool na = (a & 0x7fffffffu) > 0x7f800000u, nb = (b & 0x7fffffffu) > 0x7f800000u;
  return (na && nb) || a == b;
}

TEST(SimFpLanes, FmaEmulationIsCorrectlyRounded) {
  auto r = testing::random_u32(3 * 400000, 41);
  int checked = 0;
  for (std::size_t i = 0; i + 2 < r.size(); i += 3) {
    std::uint32_t a = r[i], b = r[i + 1], c = r[i + 2];
    if (i % 2 == 0) {  // keep exponents close so that the sum cancels and rounds near ties
      a = (a & 0x807fffffu) | ((100u + (a >> 24) % 50u) << 23);
      b = (b & 0x807fffffu) | ((100u + (b >> 24) % 50u) << 23);
      float p = as_f(a) * as_f(b);
      c = as_u(-p) ^ (c & 0x1fu);  // c close to -a*b
    }
    if (i % 7 == 0) c = (c & 0x807fffffu) | ((c >> 23) % 4u) << 23;  // tiny / subnormal addends
    std::uint32_t want = as_u(std::fma(as_f(a), as_f(b), as_f(c)));
    ASSERT_TRUE(same(fma32_emulated(a, b, c), want))
        << std::hex << a << " " << b << " " << c << " got " << fma32_emulated(a, b, c) << " want " << want;
    ++checked;
  }
  const float inf = std::numeric_limits<float>::infinity();
  const float specials[] = {0.0f, -0.0f, inf, -inf, std::numeric_limits<float>::quiet_NaN(),
                            1e-45f, -1e-45f, 3.4e38f, -3.4e38f, 1.0f, -1.0f};
  for (float x : specials)
    for (float y : specials)
      for (float z : specials)
        EXPECT_TRUE(same(fma32_emulated(as_u(x), as_u(y), as_u(z)), as_u(std::fma(x, y, z))))
            << x << " " << y << " " << z;
  EXPECT_GT(checked, 300000);
}

TEST(SimFpLanes, LaneKernelsMatchScalarReferences) {
  auto r = testing::random_u32(64 * 3, 43);
  std::uint32_t a[64], b[64], c[64], out[64];
  for (int l = 0; l < 64; ++l) {
    a[l] = r[static_cast<std::size_t>(l)];
    b[l] = r[static_cast<std::size_t>(64 + l)];
    c[l] = r[static_cast<std::size_t>(128 + l)];
  }
  a[0] = 0x7f800001u;  // sNaN
  b[1] = 0x7fc00000u;  // qNaN
  a[2] = 0x80000000u;
  b[2] = 0x00000000u;  // -0 vs +0
  fma32_lanes(a, b, c, out);
  for (int l = 0; l < 64; ++l)
    EXPECT_TRUE(same(out[l], as_u(std::fma(as_f(a[l]), as_f(b[l]), as_f(c[l]))))) << l;
  max32_lanes(a, b, out, true);
  EXPECT_EQ(out[0], 0x7fc00001u);  // signalling NaN quieted
  EXPECT_EQ(out[1], a[1]);         // quiet NaN loses to the number
  EXPECT_EQ(out[2], 0x00000000u);  // max(-0, +0) = +0
  min32_lanes(a, b, out, true);
  EXPECT_EQ(out[2], 0x80000000u);  // min(-0, +0) = -0
  for (int l = 3; l < 64; ++l) {
    if (std::isnan(as_f(a[l])) || std::isnan(as_f(b[l]))) continue;
    EXPECT_EQ(out[l], as_u(std::fmin(as_f(a[l]), as_f(b[l])))) << l;
  }
}

}  // namespace
}  // namespace cdna::simulator
