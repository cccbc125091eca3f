#include "reference/inputs.hpp"

#include <cmath>
#include <numbers>
#include <random>

#include "numerics/bf16.hpp"

namespace cdna::reference {
namespace {

std::uint16_t to_bf16(double x) {
  return numerics::bf16_from_f32(static_cast<float>(x), numerics::Rounding::RTNE);
}

}  // namespace

std::vector<std::uint16_t> randn_bf16(std::size_t n, std::uint64_t seed, double stddev) {
  std::mt19937_64 gen(seed);
  // 53 random bits -> a double in (0, 1]: never 0, so the logarithm is finite.
  auto uniform = [&gen] { return (static_cast<double>(gen() >> 11) + 1.0) * 0x1p-53; };
  std::vector<std::uint16_t> out(n);
  for (std::size_t i = 0; i < n; i += 2) {
    const double r = std::sqrt(-2.0 * std::log(uniform()));
    const double t = 2.0 * std::numbers::pi * uniform();
    out[i] = to_bf16(stddev * r * std::cos(t));
    if (i + 1 < n) out[i + 1] = to_bf16(stddev * r * std::sin(t));
  }
  return out;
}

AttentionProblem randn_problem(const AttentionShape& shape, Mask mask, std::uint64_t seed, double qk_std,
                               double v_std) {
  AttentionProblem p;
  p.shape = shape;
  p.mask = mask;
  p.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(shape.head_dim)));
  fill_randn(p, seed, qk_std, v_std);
  return p;
}

void fill_randn(AttentionProblem& p, std::uint64_t seed, double qk_std, double v_std) {
  const auto nq = static_cast<std::size_t>(p.shape.q_elements());
  const auto nkv = static_cast<std::size_t>(p.shape.kv_elements());
  p.q = randn_bf16(nq, seed, qk_std);
  p.k = randn_bf16(nkv, seed + 1, qk_std);
  p.v = randn_bf16(static_cast<std::size_t>(p.shape.v_elements()), seed + 2, v_std);
}

std::vector<std::uint16_t> filled_bf16(std::size_t n, double value) {
  return std::vector<std::uint16_t>(n, to_bf16(value));
}

}  // namespace cdna::reference
