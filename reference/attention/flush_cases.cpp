#include "reference/attention/flush_cases.hpp"

#include <cmath>
#include <numbers>
#include <random>

#include "numerics/bf16.hpp"
#include "reference/attention/inputs.hpp"

namespace cdna::reference {
namespace {

std::uint16_t bf16(double x) { return numerics::bf16_from_f32(static_cast<float>(x), numerics::Rounding::RTNE); }

}  // namespace

AttentionProblem flushed_weights_instance(std::uint64_t seed) {
  AttentionProblem p;
  p.shape = {1, 8, 64, 1, 1, 64};
  p.mask = Mask::None;
  p.scale = static_cast<float>(140.0 / (63.0 * std::numbers::log2e));
  const std::int64_t D = 64;
  p.q.assign(static_cast<std::size_t>(p.shape.q_elements()), 0);
  p.k.assign(static_cast<std::size_t>(p.shape.kv_elements()), 0);
  for (std::int64_t i = 0; i < 8; ++i) p.q[static_cast<std::size_t>(i * D)] = bf16(1.0 + static_cast<double>(i) / 16);
  for (std::int64_t j = 0; j < 64; ++j) p.k[static_cast<std::size_t>(j * D)] = bf16(-static_cast<double>(j));
  p.v = randn_bf16(static_cast<std::size_t>(p.shape.kv_elements()), seed);
  std::mt19937_64 rng(seed + 1);
  std::uniform_real_distribution<double> small(0.0, 0.5);
  for (std::int64_t j = kFlushFirstKey; j < 64; ++j)
    for (std::int64_t d = 0; d < D; ++d) {
      const double sign = (rng() & 1) ? -1.0 : 1.0;
      p.v[static_cast<std::size_t>(j * D + d)] = bf16(sign * 0x1p126 * (1 + small(rng)));
    }
  return p;
}

AttentionProblem subnormal_v_instance(std::uint64_t seed) {
  AttentionProblem p;
  p.shape = {1, 8, 16, 1, 1, 64};
  p.mask = Mask::CausalBottomRight;
  p.scale = 0.125f;
  p.q = randn_bf16(static_cast<std::size_t>(p.shape.q_elements()), seed);
  p.k = randn_bf16(static_cast<std::size_t>(p.shape.kv_elements()), seed + 1);
  std::mt19937_64 rng(seed + 2);
  p.v.resize(static_cast<std::size_t>(p.shape.kv_elements()));
  for (auto& x : p.v) x = static_cast<std::uint16_t>(((rng() & 1) << 15) | (1 + rng() % 127));
  return p;
}

}  // namespace cdna::reference
