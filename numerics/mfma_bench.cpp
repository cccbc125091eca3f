// Rough throughput of the MFMA models for one output element (bf16/f16 k = 16: two blocks;
// the other types at their instruction's k) and of the bf16/f16 tile form per output element,
// on pre-generated random normal inputs so the data pattern does not make it look faster.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "numerics/mfma.hpp"
#include "numerics/mfma_tile.hpp"

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

// The tile form on the same inputs: one 16 x 16 x 16 tile (v_mfma_f32_16x16x16_*) per
// iteration, items = its 256 output elements, so items_per_second compares with the per-element
// figures above (ns per output element = 1e9 / items_per_second).
template <void (*Tile)(std::span<const std::uint16_t>, std::span<const std::uint16_t>,
                       std::span<float>, int, int, int)>
void tile_16x16x16(benchmark::State& state, std::uint16_t exp_lo, std::uint16_t exp_hi, int frac) {
  constexpr int kM = 16, kK = 16;
  constexpr std::size_t kTiles = 256, kIn = kM * kK;
  const auto a = random_inputs(kIn * kTiles, exp_lo, exp_hi, frac, 1);
  const auto b = random_inputs(kIn * kTiles, exp_lo, exp_hi, frac, 2);
  std::vector<float> c(kM * kM);
  std::size_t i = 0;
  for (auto _ : state) {
    std::fill(c.begin(), c.end(), 0.5f);  // independent tiles, as for the per-element figure
    Tile(std::span(a.data() + i * kIn, kIn), std::span(b.data() + i * kIn, kIn), c, kM, kM, kK);
    benchmark::DoNotOptimize(c.data());
    i = (i + 1) % kTiles;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * kM * kM);
}
void BM_MfmaTileBf16K16(benchmark::State& state) {
  tile_16x16x16<cdna::numerics::mfma_tile_bf16>(state, 120, 134, 7);
}
void BM_MfmaTileF16K16(benchmark::State& state) {
  tile_16x16x16<cdna::numerics::mfma_tile_f16>(state, 8, 22, 10);
}
BENCHMARK(BM_MfmaTileBf16K16);
BENCHMARK(BM_MfmaTileF16K16);

// fp8 x bf8, k = 32 (v_mfma_f32_16x16x32_fp8_bf8: two blocks of 16), normal inputs.
void BM_MfmaDotFp8Bf8K32(benchmark::State& state) {
  constexpr std::size_t kK = 32, kCases = 4096;
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> byte(0x08, 0x7F), sign(0, 1);
  std::vector<std::uint8_t> a(kK * kCases), b(kK * kCases);
  for (auto& x : a) x = static_cast<std::uint8_t>(byte(rng) | sign(rng) << 7);
  for (auto& x : b) x = static_cast<std::uint8_t>(byte(rng) | sign(rng) << 7);
  std::size_t i = 0;
  for (auto _ : state) {
    const std::span<const std::uint8_t> sa(a.data() + i * kK, kK), sb(b.data() + i * kK, kK);
    float d = cdna::numerics::mfma_dot_fp8(sa, cdna::numerics::Fp8Kind::Fp8, sb,
                                           cdna::numerics::Fp8Kind::Bf8, 0.5f);
    benchmark::DoNotOptimize(d);
    i = (i + 1) % kCases;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_MfmaDotFp8Bf8K32);

// Random normal fp32 inputs around 1 for the xf32 and f32 forms.
std::vector<float> random_floats(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-4.0f, 4.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

// xf32, k = 8 (v_mfma_f32_16x16x8_xf32: two blocks of 4).
void BM_MfmaDotXf32K8(benchmark::State& state) {
  constexpr std::size_t kK = 8, kCases = 4096;
  const auto a = random_floats(kK * kCases, 4), b = random_floats(kK * kCases, 5);
  std::size_t i = 0;
  for (auto _ : state) {
    float d = cdna::numerics::mfma_dot_xf32(std::span(a.data() + i * kK, kK),
                                            std::span(b.data() + i * kK, kK), 0.5f);
    benchmark::DoNotOptimize(d);
    i = (i + 1) % kCases;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_MfmaDotXf32K8);

// f32, k = 4 (v_mfma_f32_16x16x4_f32), both denormal modes.
void BM_MfmaDotF32K4(benchmark::State& state) {
  constexpr std::size_t kK = 4, kCases = 4096;
  const auto a = random_floats(kK * kCases, 6), b = random_floats(kK * kCases, 7);
  const bool flush = state.range(0) != 0;
  std::size_t i = 0;
  for (auto _ : state) {
    float d = cdna::numerics::mfma_dot_f32(std::span(a.data() + i * kK, kK),
                                           std::span(b.data() + i * kK, kK), 0.5f, flush);
    benchmark::DoNotOptimize(d);
    i = (i + 1) % kCases;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_MfmaDotF32K4)->Arg(0)->Arg(1);

// i8, k = 32 (v_mfma_i32_16x16x32_i8).
void BM_MfmaDotI8K32(benchmark::State& state) {
  constexpr std::size_t kK = 32, kCases = 4096;
  std::mt19937 rng(8);
  std::uniform_int_distribution<int> v(-128, 127);
  std::vector<std::int8_t> a(kK * kCases), b(kK * kCases);
  for (auto& x : a) x = static_cast<std::int8_t>(v(rng));
  for (auto& x : b) x = static_cast<std::int8_t>(v(rng));
  std::size_t i = 0;
  for (auto _ : state) {
    std::int32_t d = cdna::numerics::mfma_dot_i8(std::span(a.data() + i * kK, kK),
                                                 std::span(b.data() + i * kK, kK), 12345);
    benchmark::DoNotOptimize(d);
    i = (i + 1) % kCases;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_MfmaDotI8K32);

// fp32 -> fp8 conversions.
void BM_Fp8FromF32Rne(benchmark::State& state) {
  const auto x = random_floats(4096, 9);
  std::size_t i = 0;
  for (auto _ : state) {
    std::uint8_t d = cdna::numerics::fp8_from_f32_rne(x[i] * 37.0f, cdna::numerics::Fp8Kind::Fp8);
    benchmark::DoNotOptimize(d);
    i = (i + 1) % x.size();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_Fp8FromF32Rne);

}  // namespace

BENCHMARK_MAIN();
