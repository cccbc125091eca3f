// Simulator throughput (Google Benchmark; not a test, run by hand):
//   BM_ValuLoop  — a VALU-bound loop (testdata/bench.hip): counter wave_insts_per_s.
//   BM_LdsStaging/<policy> — an LDS-bound loop of 4 waves with barriers (testdata/bench.hip
//                  lds_staging), with the LDS race check at SchedulerOptions::lds_races = error (0)
//                  and off (2): the check's cost where it does the most work.
//   BM_Attention — a kernel through its adapter (adapters/kernel_adapter.hpp: ours at H 1 and 8,
//                  aiter-fmha-v3 and moonmath at H 8/8; B 1, Sq = Sk = 1024, D 128, RTNE) on the
//                  simulator: wave_insts_per_s, and sim_over_eigen, the simulated time (every
//                  launch of the adapter) over the time of a plain Eigen float attention
//                  (S = Q·Kᵀ·scale, row softmax, O = P·V) of the same problem, measured in the
//                  same run on the same thread. A peer kernel whose folder is absent is skipped
//                  with the reason.
//   BM_AttentionThreads — ours at H 8 (B 1, Sq = Sk = CDNA_BENCH_SEQ, D 128, RTNE) with 1, 2, ...
//                  up to the usable cores threads per dispatch (SchedulerOptions::threads), in one
//                  run: wall_s_t<N> and speedup_t<N> = wall_s_t1 / wall_s_t<N>; every thread count's
//                  O and LSE must be bitwise those of 1 thread (else the benchmark fails).
// The other benchmarks run with one thread per dispatch (SchedulerOptions::threads = 1): their
// figures are per core.
// Each figure comes twice: from wall time (the simulator's own stats) and from the thread's CPU
// time (CLOCK_THREAD_CPUTIME_ID, suffix _cpu). On a machine shared with other work the wall
// figures drop with the load; the CPU-time ones are the per-core rate the targets mean.
// The context block at the top of the output names the CPU, cores, load average, compiler and the
// flags the simulator and the Eigen attention were both built with (CDNA_HOST_ARCH).
// Usage: simulator_bench [--benchmark_filter=...]; CDNA_BENCH_SEQ overrides 1024, CDNA_BENCH_ITERS
// the VALU loop's 2000 iterations, CDNA_BENCH_MEMORY_MODEL=cdna3 runs BM_Attention in the
// memory-model mode (default coherent).
#include <benchmark/benchmark.h>

#include <Eigen/Dense>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>
#include <thread>
#include <time.h>

#include "adapters/kernel_adapter.hpp"
#include "simulator/schedule/parallel.hpp"
#include "device/attention_launcher.hpp"
#include "reference/attention/inputs.hpp"
#include "simulator/tests/test_util.hpp"

using namespace cdna::simulator;
using namespace cdna::simulator::testing;

namespace {

// CPU seconds consumed by the calling thread (POSIX CLOCK_THREAD_CPUTIME_ID).
double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

std::int64_t env_int(const char* name, std::int64_t fallback) {
  const char* v = std::getenv(name);
  return v ? std::atoll(v) : fallback;
}

void BM_ValuLoop(benchmark::State& state) {
  const int iters = static_cast<int>(env_int("CDNA_BENCH_ITERS", 2000));
  const auto co = testdata("bench");
  SimulatorExecutor ex;
  ex.options().threads = 1;  // per-core figure
  std::vector<float> out(64 * 256);
  std::uint64_t insts = 0;
  double seconds = 0, cpu = 0;
  for (auto _ : state) {
    const double c0 = thread_cpu_seconds();
    ex.run(co, dispatch("valu_loop", {64, 1, 1}, {256, 1, 1}, {testing::out(out), val(iters)}));
    cpu += thread_cpu_seconds() - c0;
    insts += ex.last_stats().wave_instructions;
    seconds += ex.last_stats().seconds;
  }
  state.counters["wave_insts_per_cpu_s"] = static_cast<double>(insts) / cpu;
  state.counters["wave_insts"] = static_cast<double>(ex.last_stats().wave_instructions);
  state.counters["wave_insts_per_s"] = static_cast<double>(insts) / seconds;
}

void BM_LdsStaging(benchmark::State& state) {
  const auto co = testdata("bench");
  SimulatorExecutor ex;
  ex.options().threads = 1;  // per-core figure
  ex.options().lds_races = static_cast<LdsRaces>(state.range(0));
  std::vector<float> in(256 * 4, 1.0f), out(64 * 256);
  std::uint64_t insts = 0;
  double seconds = 0, cpu = 0;
  for (auto _ : state) {
    const double c0 = thread_cpu_seconds();
    ex.run(co, dispatch("lds_staging", {64, 1, 1}, {256, 1, 1}, {testing::in(in), testing::out(out), val(200)}));
    cpu += thread_cpu_seconds() - c0;
    insts += ex.last_stats().wave_instructions;
    seconds += ex.last_stats().seconds;
  }
  state.counters["wave_insts_per_cpu_s"] = static_cast<double>(insts) / cpu;
  state.counters["wave_insts"] = static_cast<double>(ex.last_stats().wave_instructions);
  state.counters["wave_insts_per_s"] = static_cast<double>(insts) / seconds;
}

using Mat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

Mat to_matrix(const std::vector<std::uint16_t>& bf16, Eigen::Index rows, Eigen::Index cols) {
  Mat m(rows, cols);
  for (Eigen::Index i = 0; i < rows * cols; ++i) {
    const std::uint32_t bits = std::uint32_t{bf16[static_cast<std::size_t>(i)]} << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    m.data()[i] = f;
  }
  return m;
}

// Plain float attention of one head: O = softmax(Q·Kᵀ·scale)·V.
Mat eigen_attention(const Mat& q, const Mat& k, const Mat& v, float scale) {
  Mat s = (q * k.transpose()) * scale;
  for (Eigen::Index r = 0; r < s.rows(); ++r) {
    auto row = s.row(r);
    row = (row.array() - row.maxCoeff()).exp();
    row /= row.sum();
  }
  return s * v;
}

// Plain float attention of every head of a [1, S, H, D] problem (K/V head h / (Hq / Hkv)).
float eigen_attention_heads(const cdna::reference::AttentionProblem& p) {
  const auto& sh = p.shape;
  const std::int64_t seq_q = sh.seqlen_q, seq_k = sh.seqlen_k, d = sh.head_dim;
  float sink = 0;
  for (std::int64_t h = 0; h < sh.heads_q; ++h) {
    const std::int64_t hk = h / (sh.heads_q / sh.heads_kv);
    auto head = [&](const std::vector<std::uint16_t>& x, std::int64_t rows, std::int64_t heads, std::int64_t which) {
      std::vector<std::uint16_t> m(static_cast<std::size_t>(rows * d));
      for (std::int64_t r = 0; r < rows; ++r)
        std::copy_n(x.begin() + (r * heads + which) * d, d, m.begin() + r * d);
      return to_matrix(m, rows, d);
    };
    const Mat o = eigen_attention(head(p.q, seq_q, sh.heads_q, h), head(p.k, seq_k, sh.heads_kv, hk),
                                  head(p.v, seq_k, sh.heads_kv, hk), p.scale);
    sink += o(0, 0);
  }
  return sink;
}

// args: adapter index into adapters::adapter_names(), H (= Hq = Hkv). B 1, Sq = Sk = CDNA_BENCH_SEQ
// (1024), D 128, RTNE, scale 1/sqrt(D).
void BM_Attention(benchmark::State& state) {
  const std::string kernel = cdna::adapters::adapter_names().at(static_cast<std::size_t>(state.range(0)));
  const std::int64_t seq = env_int("CDNA_BENCH_SEQ", 1024), d = 128, heads = state.range(1);
  state.SetLabel(kernel + " B1 H" + std::to_string(heads) + "/" + std::to_string(heads) + " Sq=Sk=" +
                 std::to_string(seq) + " D128 RTNE");
  std::unique_ptr<cdna::adapters::KernelAdapter> adapter;
  try {
    adapter = cdna::adapters::make_adapter(kernel);
    adapter->load(cdna::numerics::Rounding::RTNE, kernel == "attention-fwd" ? CDNA_SIM_DEVICE_DIR : "");
  } catch (const std::exception& e) {
    state.SkipWithError((std::string("skipped: ") + e.what()).c_str());  // e.g. ../shared/peers absent
    return;
  }
  cdna::reference::AttentionProblem p;
  p.shape = {1, seq, seq, heads, heads, d};
  p.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(d)));
  p.q = cdna::reference::randn_bf16(static_cast<std::size_t>(p.shape.q_elements()), 1);
  p.k = cdna::reference::randn_bf16(static_cast<std::size_t>(p.shape.kv_elements()), 2);
  p.v = cdna::reference::randn_bf16(static_cast<std::size_t>(p.shape.kv_elements()), 3);

  SimulatorExecutor ex;
  ex.options().threads = 1;  // per-core figure
  // A peer's wait-state violations (AITER reads MFMA results early) are listed, not stopped at:
  // the time measured is that of one run as written (a differential run would be two).
  if (kernel != "attention-fwd") ex.options().hazard_policy = HazardPolicy::Report;
  if (const char* m = std::getenv("CDNA_BENCH_MEMORY_MODEL"); m && !parse_memory_model(m, ex.options().memory_model)) {
    state.SkipWithError("CDNA_BENCH_MEMORY_MODEL must be coherent or cdna3");
    return;
  }
  std::uint64_t insts = 0;
  double sim_seconds = 0, sim_cpu = 0, eigen_best = std::numeric_limits<double>::infinity();
  double eigen_best_cpu = std::numeric_limits<double>::infinity();
  std::int64_t runs = 0;
  float sink = 0;
  for (auto _ : state) {
    const double c0 = thread_cpu_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    try {
      const auto out = adapter->run(ex, p, cdna::numerics::Rounding::RTNE);
      benchmark::DoNotOptimize(out.o.data());
    } catch (const std::exception& e) {
      state.SkipWithError(e.what());
      return;
    }
    // Wall time of every launch of the adapter (MoonMath runs several), not only the last.
    sim_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    sim_cpu += thread_cpu_seconds() - c0;
    insts += ex.last_stats().wave_instructions;
    ++runs;
    state.PauseTiming();
    for (int rep = 0; rep < 3; ++rep) {
      const auto e_t0 = std::chrono::steady_clock::now();
      const double e0 = thread_cpu_seconds();
      sink += eigen_attention_heads(p);
      eigen_best_cpu = std::min(eigen_best_cpu, thread_cpu_seconds() - e0);
      eigen_best = std::min(eigen_best, std::chrono::duration<double>(std::chrono::steady_clock::now() - e_t0).count());
    }
    state.ResumeTiming();
  }
  benchmark::DoNotOptimize(sink);
  const double sim_per_run = sim_seconds / static_cast<double>(runs);
  state.counters["wave_insts_last_launch"] = static_cast<double>(ex.last_stats().wave_instructions);
  state.counters["wave_insts_per_s"] = static_cast<double>(insts) / sim_seconds;
  state.counters["sim_s"] = sim_per_run;
  state.counters["eigen_s"] = eigen_best;
  state.counters["sim_over_eigen"] = sim_per_run / eigen_best;
  state.counters["sim_over_eigen_cpu"] = sim_cpu / static_cast<double>(runs) / eigen_best_cpu;
}

void BM_AttentionThreads(benchmark::State& state) {
  const std::int64_t seq = env_int("CDNA_BENCH_SEQ", 1024), d = 128, heads = 8;
  const unsigned cores = usable_cores();
  std::string label = "attention-fwd B1 H8/8 Sq=Sk=" + std::to_string(seq) + " D128 RTNE, threads 1.." +
                      std::to_string(cores);
  auto adapter = cdna::adapters::make_adapter("attention-fwd");
  adapter->load(cdna::numerics::Rounding::RTNE, CDNA_SIM_DEVICE_DIR);
  cdna::reference::AttentionProblem p;
  p.shape = {1, seq, seq, heads, heads, d};
  p.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(d)));
  p.q = cdna::reference::randn_bf16(static_cast<std::size_t>(p.shape.q_elements()), 1);
  p.k = cdna::reference::randn_bf16(static_cast<std::size_t>(p.shape.kv_elements()), 2);
  p.v = cdna::reference::randn_bf16(static_cast<std::size_t>(p.shape.kv_elements()), 3);
  for (auto _ : state) {
    double wall1 = 0;
    std::string first;  // O and LSE bytes of 1 thread
    for (unsigned t = 1; t <= cores; ++t) {
      SimulatorExecutor ex;
      ex.options().threads = t;
      const auto t0 = std::chrono::steady_clock::now();
      const auto out = adapter->run(ex, p, cdna::numerics::Rounding::RTNE);
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::string bytes(reinterpret_cast<const char*>(out.o.data()), out.o.size() * sizeof(out.o[0]));
      bytes.append(reinterpret_cast<const char*>(out.lse.data()), out.lse.size() * sizeof(out.lse[0]));
      if (t == 1) {
        wall1 = wall;
        first = std::move(bytes);
      } else if (bytes != first) {
        state.SkipWithError(("threads " + std::to_string(t) + ": O or LSE differ from 1 thread's").c_str());
        return;
      }
      if (t == cores) label += ", parallel at " + std::to_string(t) + ": " + ex.last_stats().parallel;
      state.counters["wall_s_t" + std::to_string(t)] = wall;
      state.counters["speedup_t" + std::to_string(t)] = wall1 / wall;
    }
  }
  state.SetLabel(label);
}

}  // namespace

BENCHMARK(BM_ValuLoop)->Unit(benchmark::kMillisecond)->MinTime(2.0)->UseRealTime();
// {adapter, H}: ours at H1 (the figure of earlier issues) and H8, AITER FMHA v3 and MoonMath at H8/8.
BENCHMARK(BM_Attention)
    ->ArgNames({"kernel", "H"})
    ->Args({0, 1})
    ->Args({0, 8})
    ->Args({1, 8})
    ->Args({2, 8})
    ->Unit(benchmark::kSecond)
    ->Iterations(1)
    ->UseRealTime();
BENCHMARK(BM_AttentionThreads)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();
BENCHMARK(BM_LdsStaging)->Arg(0)->Arg(2)->Unit(benchmark::kMillisecond)->MinTime(2.0)->UseRealTime();

namespace {

// The first "model name" line of /proc/cpuinfo (Linux), or "unknown".
std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  for (std::string line; std::getline(f, line);)
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      return colon == std::string::npos ? line : line.substr(line.find_first_not_of(' ', colon + 1));
    }
  return "unknown";
}

// The three load averages of /proc/loadavg (Linux), or "unknown".
std::string load_average() {
  double l[3];
  if (getloadavg(l, 3) != 3) return "unknown";
  char b[64];
  std::snprintf(b, sizeof b, "%.2f %.2f %.2f", l[0], l[1], l[2]);
  return b;
}

// What every figure was measured on and built with, in the benchmark's context block.
void add_context() {
  benchmark::AddCustomContext("cpu_model", cpu_model());
  benchmark::AddCustomContext("cores_online", std::to_string(std::thread::hardware_concurrency()));
  benchmark::AddCustomContext("load_average_at_start", load_average());
#if defined(__clang__)
  benchmark::AddCustomContext("compiler", "clang " __clang_version__);
#elif defined(__GNUC__)
  benchmark::AddCustomContext("compiler", "gcc " __VERSION__);
#endif
  benchmark::AddCustomContext("build_type", CDNA_BENCH_BUILD_TYPE);
  // cdna_simulator, cdna_numerics and this file (its Eigen attention) share these flags
  // (simulator/CMakeLists.txt, cmake/host_arch.cmake); the simulator's VALU files add
  // -frounding-math.
  benchmark::AddCustomContext("simulator_and_eigen_flags", CDNA_BENCH_FLAGS);
  benchmark::AddCustomContext("eigen_version", std::to_string(EIGEN_WORLD_VERSION) + "." +
                                                   std::to_string(EIGEN_MAJOR_VERSION) + "." +
                                                   std::to_string(EIGEN_MINOR_VERSION));
  benchmark::AddCustomContext("eigen_simd", Eigen::SimdInstructionSetsInUse());
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  add_context();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
