#include "reference/common/randn.hpp"

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

std::vector<std::uint16_t> filled_bf16(std::size_t n, double value) {
  return std::vector<std::uint16_t>(n, to_bf16(value));
}

}  // namespace cdna::reference
