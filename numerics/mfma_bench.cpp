// Rough throughput of the MFMA model for one output element (k = 16: two blocks), on
// pre-generated random normal inputs so the data pattern does not make it look faster.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "numerics/mfma.hpp"

namespace {

std::vector<std::uint16_t> random_inputs(std::size_t n, std::uint16_t exp_lo, std::uint16_t exp_hi,
                                         int frac_bits, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> e(exp_lo, exp_hi), m(0, (1 << frac_bits) - 1), s(0, 1);
  std::vector<std::uint16_t> v(n);
  for (auto& x : v) x = static_cast<std::uint16_t>(s(rng) << 15 | e(rng) << frac_bits | m(rng));
  return v;
}

template <float (*Dot)(std::span<const std::uint16_t>, std::span<const std::uint16_t>, float)>
void dot_k16(benchmark::State& state, std::uint16_t exp_lo, std::uint16_t exp_hi, int frac) {
  constexpr std::size_t kK = 16, kCases = 4096;
  const auto a = random_inputs(kK * kCases, exp_lo, exp_hi, frac, 1);
  const auto b = random_inputs(kK * kCases, exp_lo, exp_hi, frac, 2);
  // Independent calls (as a simulator makes them for distinct output elements): c does not
  // depend on the previous result, so the figure is throughput, not latency.
  std::size_t i = 0;
  for (auto _ : state) {
    const std::span<const std::uint16_t> sa(a.data() + i * kK, kK), sb(b.data() + i * kK, kK);
    float d = Dot(sa, sb, 0.5f);
    benchmark::DoNotOptimize(d);
    i = (i + 1) % kCases;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}

void BM_MfmaDotBf16K16(benchmark::State& state) {
  dot_k16<cdna::numerics::mfma_dot_bf16>(state, 120, 134, 7);
}
void BM_MfmaDotF16K16(benchmark::State& state) {
  dot_k16<cdna::numerics::mfma_dot_f16>(state, 8, 22, 10);
}
BENCHMARK(BM_MfmaDotBf16K16);
BENCHMARK(BM_MfmaDotF16K16);

}  // namespace

BENCHMARK_MAIN();
