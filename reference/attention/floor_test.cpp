#include "reference/attention/floor.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "reference/attention/inputs.hpp"

namespace cdna::reference {
namespace {

using numerics::Rounding;

std::uint16_t bf16(double x) { return numerics::bf16_from_f32(static_cast<float>(x), Rounding::RTNE); }

TEST(Floor, RelativeRmsError) {
  const std::vector<double> exact{3.0, 4.0, std::numeric_limits<double>::quiet_NaN()};
  EXPECT_DOUBLE_EQ(relative_rms_error(std::vector<double>{3.0, 4.0, 0.0}, exact), 0.0);
  // ‖(0.3, 0.4)‖ / ‖(3, 4)‖ = 0.5 / 5; the NaN exact element is left out.
  EXPECT_DOUBLE_EQ(relative_rms_error(std::vector<double>{3.3, 4.4, 7.0}, exact), 0.1);
  EXPECT_EQ(relative_rms_error(std::vector<double>{1.0}, std::vector<double>{0.0}),
            std::numeric_limits<double>::infinity());
  EXPECT_THROW(relative_rms_error(std::vector<double>{1.0}, exact), std::invalid_argument);
}

// Two keys with scores 0 and -ln 3 (scale 1, D 1 makes S = q·k): p = (1, 1/3).
// RTNE: bf16(1/3) = 0x3EAB = 0.333984375; O = (1·v0 + 0.333984375·v1) / (4/3), then rounded.
TEST(Floor, HandComputedTwoKeys) {
  AttentionProblem p;
  p.shape = {1, 1, 2, 1, 1, 1};
  p.scale = 1.0f;
  p.q = {bf16(1.0)};
  const double k1 = static_cast<double>(numerics::f32_from_bf16(bf16(-std::log(3.0))));
  p.k = {bf16(0.0), bf16(k1)};
  p.v = {bf16(1.0), bf16(2.0)};
  for (Rounding mode : numerics::kAllRoundings) {
    const double p1 = static_cast<double>(static_cast<float>(std::exp(k1)));
    const double p1_rounded = static_cast<double>(numerics::f32_from_bf16(numerics::bf16_from_f32(static_cast<float>(p1), mode)));
    const double o = (1.0 + 2.0 * p1_rounded) / (1.0 + p1);
    const double want = static_cast<double>(numerics::f32_from_bf16(numerics::bf16_from_f32(static_cast<float>(o), mode)));
    EXPECT_EQ(attention_floor_output(p, mode)[0], want) << numerics::to_string(mode);
  }
}

// One visible key: P = 1 is exact, so the floor's O is V exactly and its error is zero.
TEST(Floor, OneVisibleKeyIsExact) {
  AttentionProblem p;
  p.shape = {1, 3, 1, 2, 1, 64};
  p.mask = Mask::CausalBottomRight;  // rows 0, 1 see nothing; row 2 sees key 0
  p.q = randn_bf16(static_cast<std::size_t>(p.shape.q_elements()), 1);
  p.k = randn_bf16(static_cast<std::size_t>(p.shape.kv_elements()), 2);
  p.v = randn_bf16(static_cast<std::size_t>(p.shape.kv_elements()), 3);
  for (Rounding mode : numerics::kAllRoundings) {
    const auto floor = attention_floor_output(p, mode);
    for (std::int64_t h = 0; h < 2; ++h)
      for (std::int64_t d = 0; d < 64; ++d) {
        EXPECT_EQ(std::signbit(floor[static_cast<std::size_t>((0 * 2 + h) * 64 + d)]), false);
        EXPECT_EQ(floor[static_cast<std::size_t>((0 * 2 + h) * 64 + d)], 0.0);
        EXPECT_EQ(floor[static_cast<std::size_t>((2 * 2 + h) * 64 + d)],
                  static_cast<double>(numerics::f32_from_bf16(p.v[static_cast<std::size_t>(d)])));
      }
  }
}

// The floor is the rounding of P and O and nothing else: on random inputs its relative RMS
// error is within a small multiple of bf16's unit roundoff (2^-8 nearest, 2^-7 truncation).
TEST(Floor, ErrorIsOnTheScaleOfBf16Rounding) {
  AttentionProblem p;
  p.shape = {1, 32, 200, 2, 2, 64};
  p.scale = 0.125f;
  p.q = randn_bf16(static_cast<std::size_t>(p.shape.q_elements()), 11);
  p.k = randn_bf16(static_cast<std::size_t>(p.shape.kv_elements()), 12);
  p.v = randn_bf16(static_cast<std::size_t>(p.shape.kv_elements()), 13);
  const AttentionResult exact = attention_forward_exact(p);
  const double rtne = relative_rms_error(attention_floor_output(p, Rounding::RTNE), exact.o);
  const double rtz = relative_rms_error(attention_floor_output(p, Rounding::RTZ), exact.o);
  EXPECT_GT(rtne, 0.0);
  EXPECT_LT(rtne, 4 * 0x1p-8);
  // Truncation is biased: its error is clearly larger than nearest rounding's.
  EXPECT_GT(rtz, 1.5 * rtne);
  EXPECT_LT(rtz, 4 * 0x1p-7);
}

}  // namespace
}  // namespace cdna::reference
