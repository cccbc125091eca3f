// Whole kernels compiled from simulator/testdata/*.hip, run on the simulator and checked against
// straightforward host computations.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "simulator/decode/code_object.hpp"
#include "simulator/tests/test_util.hpp"
#include "simulator/testdata/int_ops_common.h"

namespace cdna::simulator {
namespace {

using namespace testing;

SimulatorExecutor& executor() {
  static SimulatorExecutor e;
  return e;
}

TEST(SimKernels, VectorAddWithTailMasking) {
  auto co = testdata("vector_add");
  const int n = 1000;
  std::vector<float> a(1024), b(1024), c(1024, -7.0f);
  for (int i = 0; i < 1024; ++i) {
    a[static_cast<std::size_t>(i)] = static_cast<float>(i) * 0.5f;
    b[static_cast<std::size_t>(i)] = 1.0f / static_cast<float>(i + 1);
  }
  auto& ex = executor();
  ex.run(co, dispatch("vector_add", {4, 1, 1}, {256, 1, 1}, {in(a), in(b), out(c), val(n)}));
  for (int i = 0; i < 1024; ++i) {
    auto u = static_cast<std::size_t>(i);
    if (i < n) EXPECT_EQ(as_u(c[u]), as_u(a[u] + b[u])) << i;
    else EXPECT_EQ(c[u], -7.0f) << i;  // masked lanes store nothing
  }
  EXPECT_EQ(ex.last_stats().workgroups, 4u);
  EXPECT_GT(ex.last_stats().wave_instructions, 16u * 10u);
  EXPECT_EQ(ex.last_stats().mfma_instructions, 0u);
  EXPECT_EQ(ex.name(), "simulator");
}

// A __device__ variable: the GOT entry holding its address is filled by the loader's relocation
// (CodeObject::relocations), and the host's write (Dispatch::symbols) is what the kernel reads.
TEST(SimKernels, DeviceVariableThroughRelocatedGotAndSymbolWrite) {
  auto co = testdata("device_global");
  const CodeObject parsed = CodeObject::load(co, "device_global.hsaco");
  ASSERT_EQ(parsed.relocations().size(), 1u);  // clang-19: one R_AMDGPU_ABS64 GOT entry for cdna_table
  std::vector<int> table(64), o(64, -1);
  for (int i = 0; i < 64; ++i) table[static_cast<std::size_t>(i)] = 1000 + 7 * i;
  auto d = dispatch("read_table", {1, 1, 1}, {64, 1, 1}, {out(o)});
  const auto bytes = std::as_bytes(std::span(table));
  d.symbols.push_back({"_ZN12_GLOBAL__N_110cdna_tableE", {bytes.begin(), bytes.end()}});
  executor().run(co, d);
  EXPECT_EQ(o, table);
  // Without the write the variable holds its initial zeros (.bss), in a fresh copy per dispatch.
  executor().run(co, dispatch("read_table", {1, 1, 1}, {64, 1, 1}, {out(o)}));
  EXPECT_EQ(o, std::vector<int>(64, 0));
}

TEST(SimKernels, TwoDimensionalGridAndHiddenArguments) {
  auto co = testdata("vector_add");
  const int w = 37, h = 11;
  std::vector<int> o(static_cast<std::size_t>(w * h), -1);
  executor().run(co, dispatch("index_2d", {3, 2, 1}, {16, 8, 1}, {out(o), val(w), val(h)}));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      EXPECT_EQ(o[static_cast<std::size_t>(y * w + x)], x + 1000 * y + 1000000 * 128) << x << "," << y;
}

TEST(SimKernels, OutOfBoundsStoreNamesAddressLanePcKernelWave) {
  auto co = testdata("vector_add");
  std::vector<int> p(16, 0);
  std::string msg = error_of([&] {
    executor().run(co, dispatch("store_at", {1, 1, 1}, {64, 1, 1}, {out(p), val(100)}));
  });
  ASSERT_FALSE(msg.empty());
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  EXPECT_NE(msg.find("kernel 'store_at'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("lane 5"), std::string::npos) << msg;
  EXPECT_NE(msg.find("store to address 0x"), std::string::npos) << msg;
  EXPECT_NE(msg.find("outside every buffer"), std::string::npos) << msg;
  EXPECT_NE(msg.find("pc 0x"), std::string::npos) << msg;
  EXPECT_NE(msg.find("global_store_dword"), std::string::npos) << msg;
  EXPECT_NE(msg.find("workgroup (0,0,0) wave 0"), std::string::npos) << msg;
}

TEST(SimKernels, StoreIntoAnInputBufferIsAnError) {
  auto co = testdata("vector_add");
  std::vector<int> p(16, 0);
  std::string msg = error_of([&] {
    executor().run(co, dispatch("store_at", {1, 1, 1}, {64, 1, 1}, {in(p), val(3)}));
  });
  EXPECT_NE(msg.find("read-only buffer"), std::string::npos) << msg;
}

TEST(SimKernels, UnsupportedInstructionNamesMnemonicKernelPcWave) {
  auto co = testdata("unsupported");
  std::vector<float> x(64, 1.0f);
  std::vector<int> o(64, 0);
  std::string msg = error_of([&] {
    executor().run(co, dispatch("uses_screen_partition", {1, 1, 1}, {64, 1, 1}, {in(x), out(o)}));
  });
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  EXPECT_NE(msg.find("v_screen_partition_4se_b32"), std::string::npos) << msg;
  EXPECT_NE(msg.find("graphics-pipeline"), std::string::npos) << msg;  // unsupported.def's reason
  EXPECT_NE(msg.find("kernel 'uses_screen_partition'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("pc 0x"), std::string::npos) << msg;
  EXPECT_NE(msg.find("wave 0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("unsupported instruction"), std::string::npos) << msg;
}

TEST(SimKernels, ArgumentMismatchesAreErrors) {
  auto co = testdata("vector_add");
  std::vector<float> a(64), c(64);
  auto& ex = executor();
  std::string m1 = error_of([&] { ex.run(co, dispatch("vector_add", {1, 1, 1}, {64, 1, 1}, {in(a), in(a), out(c)})); });
  EXPECT_NE(m1.find("passes 3 arguments; the kernel declares 4"), std::string::npos) << m1;
  std::string m2 = error_of([&] {
    ex.run(co, dispatch("vector_add", {1, 1, 1}, {64, 1, 1}, {in(a), in(a), out(c), val(std::int64_t{5})}));
  });
  EXPECT_NE(m2.find("is 8 bytes; the kernel's by_value argument is 4 bytes"), std::string::npos) << m2;
  std::string m3 = error_of([&] {
    ex.run(co, dispatch("vector_add", {1, 1, 1}, {64, 1, 1}, {in(a), val(1), out(c), val(5)}));
  });
  EXPECT_NE(m3.find("expected a buffer"), std::string::npos) << m3;
  std::string m4 = error_of([&] {
    ex.run(co, dispatch("vector_add", {1, 1, 1}, {64, 1, 1}, {in(a), in(a), out(c), out(c)}));
  });
  EXPECT_NE(m4.find("passed as a buffer"), std::string::npos) << m4;
  std::string m5 = error_of([&] { ex.run(co, dispatch("nope", {1, 1, 1}, {64, 1, 1}, {})); });
  EXPECT_NE(m5.find("kernel 'nope' not found; kernels present:"), std::string::npos) << m5;
  std::string m6 = error_of([&] {
    ex.run(co, dispatch("vector_add", {1, 0, 1}, {64, 1, 1}, {in(a), in(a), out(c), val(5)}));
  });
  EXPECT_NE(m6.find("zero extent"), std::string::npos) << m6;
}

TEST(SimKernels, DecodedOnceAndCached) {
  auto co = testdata("vector_add");
  auto& ex = executor();
  auto p1 = ex.program(co, "vector_add");
  std::vector<float> a(64, 1.0f), c(64);
  ex.run(co, dispatch("vector_add", {1, 1, 1}, {64, 1, 1}, {in(a), in(a), out(c), val(64)}));
  auto p2 = ex.program(co, "vector_add");
  EXPECT_EQ(p1.get(), p2.get());
  auto copy = co;  // same bytes, different buffer: same cache entry
  EXPECT_EQ(ex.program(copy, "vector_add").get(), p1.get());
}

TEST(SimKernels, WaveReductionWithShuffles) {
  auto co = testdata("reduce");
  const int n = 256;
  std::vector<float> x(n), s(n);
  for (int i = 0; i < n; ++i) x[static_cast<std::size_t>(i)] = static_cast<float>((i * 37) % 101 - 50);
  executor().run(co, dispatch("wave_sum", {2, 1, 1}, {128, 1, 1}, {in(x), out(s)}));
  for (int w = 0; w < n / 64; ++w) {
    float sum = 0;  // integers: any summation order is exact
    for (int l = 0; l < 64; ++l) sum += x[static_cast<std::size_t>(w * 64 + l)];
    for (int l = 0; l < 64; ++l) EXPECT_EQ(s[static_cast<std::size_t>(w * 64 + l)], sum);
  }
}

TEST(SimKernels, ShuffleDownMaxShuffleAndBallot) {
  auto co = testdata("reduce");
  auto r = random_u32(256, 3);
  std::vector<int> x(256), mx(4), sh(256);
  for (std::size_t i = 0; i < 256; ++i) x[i] = static_cast<int>(r[i] % 2001) - 1000;
  auto& ex = executor();
  ex.run(co, dispatch("wave_max_down", {1, 1, 1}, {256, 1, 1}, {in(x), out(mx)}));
  for (int w = 0; w < 4; ++w)
    EXPECT_EQ(mx[static_cast<std::size_t>(w)], *std::max_element(x.begin() + w * 64, x.begin() + w * 64 + 64));
  ex.run(co, dispatch("shuffle", {2, 1, 1}, {128, 1, 1}, {in(x), out(sh)}));
  for (int i = 0; i < 256; ++i) {
    int block = i / 128, t = i % 128;
    int wave_base = block * 128 + (t / 64) * 64;
    EXPECT_EQ(sh[static_cast<std::size_t>(i)], x[static_cast<std::size_t>(wave_base + ((t * 7) & 63))]) << i;
  }
  std::vector<unsigned long long> bal(4);
  ex.run(co, dispatch("ballot", {1, 1, 1}, {256, 1, 1}, {in(x), out(bal)}));
  for (int w = 0; w < 4; ++w) {
    unsigned long long e = 0;
    for (int l = 0; l < 64; ++l)
      if (x[static_cast<std::size_t>(w * 64 + l)] > 0) e |= 1ull << l;
    EXPECT_EQ(bal[static_cast<std::size_t>(w)], e);
  }
}

TEST(SimKernels, LdsAndBarriersAcrossWaves) {
  auto co = testdata("lds_sync");
  auto r = random_u32(1024, 5);
  std::vector<int> x(1024), o(1024);
  for (std::size_t i = 0; i < 1024; ++i) x[i] = static_cast<int>(r[i] % 100000);
  auto& ex = executor();
  ex.run(co, dispatch("reverse_neighbour", {4, 1, 1}, {256, 1, 1}, {in(x), out(o)}));
  for (int b = 0; b < 4; ++b)
    for (int t = 0; t < 256; ++t)
      EXPECT_EQ(o[static_cast<std::size_t>(b * 256 + t)],
                x[static_cast<std::size_t>(b * 256 + 255 - t)] + x[static_cast<std::size_t>(b * 256 + (t + 1) % 256)]);
  std::vector<int> sums(2);
  ex.run(co, dispatch("block_sum", {2, 1, 1}, {512, 1, 1}, {in(x), out(sums)}));
  for (int b = 0; b < 2; ++b) {
    long long s = 0;
    for (int t = 0; t < 512; ++t) s += x[static_cast<std::size_t>(b * 512 + t)];
    EXPECT_EQ(sums[static_cast<std::size_t>(b)], s);
  }
}

TEST(SimKernels, DynamicLdsTranspose) {
  auto co = testdata("lds_sync");
  auto r = random_u32(2 * 256 * 4, 9);
  std::vector<std::uint32_t> x(r.begin(), r.end()), o(x.size());
  executor().run(co, dispatch("transpose16", {2, 1, 1}, {256, 1, 1}, {in(x), out(o)}, 16 * 17 * 16));
  for (int b = 0; b < 2; ++b)
    for (int t = 0; t < 256; ++t) {
      int rr = t / 16, cc = t % 16;
      for (int k = 0; k < 4; ++k)
        EXPECT_EQ(o[static_cast<std::size_t>((b * 256 + t) * 4 + k)],
                  x[static_cast<std::size_t>((b * 256 + cc * 16 + rr) * 4 + k)]);
    }
  std::string msg = error_of([&] {
    executor().run(co, dispatch("transpose16", {1, 1, 1}, {256, 1, 1}, {in(x), out(o)}, 100));
  });
  EXPECT_NE(msg.find("outside the workgroup's 100 bytes of LDS"), std::string::npos) << msg;
}

TEST(SimKernels, PrivateMemoryThroughFlatAddressing) {
  auto co = testdata("scratch");
  auto r = random_u32(128, 13);
  std::vector<int> idx(128), o(128);
  for (std::size_t i = 0; i < 128; ++i) idx[i] = static_cast<int>(r[i]);
  executor().run(co, dispatch("scratch_array", {2, 1, 1}, {64, 1, 1}, {in(idx), out(o)}));
  for (int t = 0; t < 128; ++t)
    EXPECT_EQ(o[static_cast<std::size_t>(t)], (idx[static_cast<std::size_t>(t)] & 63) * t + 1) << t;
}

// VGPR index mode end to end (testdata/gpr_index.hip at -O3 and -O1): clang keeps a private
// float[16] in VGPRs and reads and writes elements at a uniform run-time index with
// s_set_gpr_idx_on; a lane-varying index gives compare/select chains. The host computes the same
// source; x*(i+1)+i is one fma (clang contracts it; HIP's default -ffp-contract=fast-honor-pragmas),
// every other operation a single f32 rounding, so the results are compared bit for bit.
TEST(SimKernels, PrivateArrayIndexedWithVgprIndexMode) {
  const int n = 200;
  auto r = random_u32(2 * n, 31);
  std::vector<float> x(n);
  std::vector<int> idx(n);
  for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
    x[i] = static_cast<float>(static_cast<int>(r[i] % 20001u) - 10000) / 64.0f;
    idx[i] = static_cast<int>(r[static_cast<std::size_t>(n) + i]);
  }
  for (const char* name : {"gpr_index", "gpr_index_o1"}) {
    auto co = testdata(name);
    auto prog = executor().program(co, "gpr_index");
    const bool indexed = std::any_of(prog->insts.begin(), prog->insts.end(),
                                     [](const Inst& I) { return I.op == Opcode::s_set_gpr_idx_on; });
    EXPECT_TRUE(indexed) << name << ": no s_set_gpr_idx_on in the code; the test would not reach VGPR index mode";
    for (int uniform : {0, 5, 15, 22, -3}) {
      std::vector<float> o(3 * static_cast<std::size_t>(n), -1.0f);
      executor().run(co, dispatch("gpr_index", {4, 1, 1}, {64, 1, 1},
                                  {in(x), in(idx), val(uniform), out(o), val(n)}));
      for (int t = 0; t < n; ++t) {
        const auto u = static_cast<std::size_t>(t);
        float a[16];
        for (int i = 0; i < 16; ++i)
          a[i] = std::fma(x[u], static_cast<float>(i + 1), static_cast<float>(i));
        const int k = idx[u] & 15;
        a[(k * 5 + 3) & 15] += 100.0f;
        a[uniform & 15] -= 0.5f;
        const float e[3] = {a[k], a[(uniform + 7) & 15], a[(k + uniform) & 15]};
        for (std::size_t j = 0; j < 3; ++j)
          EXPECT_EQ(as_u(o[3 * u + j]), as_u(e[j]))
              << name << " uniform=" << uniform << " t=" << t << " output " << j;
      }
    }
  }
}

TEST(SimKernels, IntegerOps) {
  auto co = testdata("int_ops");
  const int n = 300;
  auto a = random_u32(n, 21), b = random_u32(n, 22), c = random_u32(n, 23);
  // A few edge values.
  const std::uint32_t edges[] = {0u, 1u, 0xffffffffu, 0x80000000u, 0x7fffffffu, 31u, 32u, 63u};
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) {
      auto k = static_cast<std::size_t>(i * 8 + j);
      a[k] = edges[i];
      b[k] = edges[j];
    }
  std::vector<std::uint32_t> o(static_cast<std::size_t>(n) * CDNA_INT_OPS_OUTPUTS, 0xdeadbeef);
  executor().run(co, dispatch("int_ops", {2, 1, 1}, {256, 1, 1}, {in(a), in(b), in(c), out(o), val(n)}));
  for (int t = 0; t < n; ++t) {
    auto u = static_cast<std::size_t>(t);
    std::uint32_t e[CDNA_INT_OPS_OUTPUTS];
    cdna_int_ops(a[u], b[u], c[u], e);
    for (int i = 0; i < CDNA_INT_OPS_OUTPUTS; ++i)
      EXPECT_EQ(o[u * CDNA_INT_OPS_OUTPUTS + static_cast<std::size_t>(i)], e[i])
          << "t=" << t << " output " << i << " a=" << a[u] << " b=" << b[u] << " c=" << c[u];
  }
}

// Host references for the transcendental unit: correctly rounded (long double, then once to
// float), denormal inputs and results flushed (ISA; facts sheet §6).
float flush(float x) { return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x; }
float ref_exp2(float x) { return flush(static_cast<float>(std::exp2(static_cast<long double>(flush(x))))); }
float ref_log2(float x) {
  x = flush(x);
  if (x == 0) return -std::numeric_limits<float>::infinity();
  return static_cast<float>(std::log2(static_cast<long double>(x)));
}
float ref_rcp(float x) { return flush(1.0f / flush(x)); }
float ref_rsq(float x) {
  x = flush(x);
  if (x == 0) return std::copysign(std::numeric_limits<float>::infinity(), x);
  return flush(static_cast<float>(1.0L / std::sqrt(static_cast<long double>(x))));
}

bool same(float a, float b) { return (std::isnan(a) && std::isnan(b)) || as_u(a) == as_u(b); }

TEST(SimKernels, Fp32MathAndTranscendentals) {
  auto co = testdata("fp32_math");
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> x = {0.0f, -0.0f, 1.0f, 2.0f, 0.5f, -1.5f, 3.7f, 100.0f, 127.99f, 128.0f,
                          -126.0f, -130.5f, -149.0f, -160.0f, inf, -inf, nan, 1e-40f, -1e-40f,
                          1.1754944e-38f, 6.5e37f, 8.5e37f, 1e38f, 0.1f, 12345.678f, -0.75f,
                          2.5f, 3.5f, -2.5f, 1e9f, -1e10f, 5e-39f};
  auto r = random_u32(200, 31);
  for (std::size_t i = 0; i < r.size(); ++i)
    x.push_back(as_f((r[i] & 0x807fffffu) | ((96u + r[i] % 64u) << 23)));  // |x| in [2^-31, 2^33)
  const int n = static_cast<int>(x.size());
  std::vector<float> y(x.size()), z(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    y[i] = x[(i * 7 + 3) % x.size()];
    z[i] = x[(i * 13 + 5) % x.size()];
  }
  std::vector<float> o(x.size() * 20, -999.0f);
  executor().run(co, dispatch("fp32_math", {(static_cast<std::uint32_t>(n) + 63) / 64, 1, 1}, {64, 1, 1},
                              {in(x), in(y), in(z), out(o), val(n)}));
  for (int t = 0; t < n; ++t) {
    auto u = static_cast<std::size_t>(t);
    float a = x[u], b = y[u], c = z[u];
    const float* g = &o[u * 20];
    float cl = std::fmin(std::fmax(a, -1.0e9f), 1.0e9f);
    float e[20] = {ref_exp2(a), ref_log2(a), ref_rcp(a), ref_rsq(a), a + b, a * b, a - b,
                   std::fma(a, b, c), std::fmin(a, b), std::fmax(a, b),
                   static_cast<float>(static_cast<int>(cl)),
                   static_cast<float>(static_cast<unsigned>(std::fabs(cl))), std::floor(a),
                   std::ceil(a), std::trunc(a), std::nearbyint(a), std::fabs(a) * -b,
                   std::copysign(b, a), static_cast<float>(t * 77 - 3000) * 0.25f,
                   a < b ? c : a == b ? 1.0f : -1.0f};
    for (int i = 0; i < 20; ++i)
      EXPECT_TRUE(same(g[i], e[i])) << "t=" << t << " output " << i << " x=" << a << " y=" << b
                                     << " z=" << c << ": got " << g[i] << " expected " << e[i];
  }
}

}  // namespace
}  // namespace cdna::simulator

namespace cdna::simulator {
namespace {

// Every instruction form (opcode and encoding) in the attention-forward code objects of
// device/ also occurs in a test kernel of simulator/testdata that the tests above run and
// check; and none of them decodes to Unsupported.
TEST(SimAttentionCodeObjects, EveryInstructionIsImplementedAndUnitTested) {
  SimulatorExecutor ex;
  auto forms = [&](const std::vector<std::byte>& bytes, std::vector<std::string>* unsupported) {
    std::set<std::pair<Opcode, Encoding>> s;
    const CodeObject& co = ex.code_object(bytes);
    for (const auto& k : co.kernels()) {
      auto p = ex.program(bytes, k.name);
      for (std::size_t i = 0; i < p->insts.size(); ++i) {
        if (!p->reason[i].empty() && unsupported)
          unsupported->push_back(k.name + ": " + p->text[i] + " (" + p->reason[i] + ")");
        s.insert({p->insts[i].op, p->insts[i].enc});
      }
    }
    return s;
  };
  std::set<std::pair<Opcode, Encoding>> tested;
  for (const char* name : {"vector_add", "reduce", "lds_sync", "int_ops", "fp32_math", "mfma", "isa", "scratch"}) {
    auto f = forms(testing::testdata(name), nullptr);
    tested.insert(f.begin(), f.end());
  }
  int objects = 0;
  for (const char* mode : {"rtne", "rtna", "rtz"}) {
    std::string path = std::string(CDNA_SIM_DEVICE_DIR) + "/attention_fwd_" + mode + ".hsaco";
    auto bytes = testing::read_bytes(path);
    ASSERT_FALSE(bytes.empty()) << "attention code object missing: " << path;
    ++objects;
    std::vector<std::string> unsupported;
    auto used = forms(bytes, &unsupported);
    for (const auto& u : unsupported) ADD_FAILURE() << path << ": " << u;
    for (const auto& f : used)
      EXPECT_TRUE(tested.count(f)) << path << ": " << mnemonic(f.first) << " (encoding "
                                   << static_cast<int>(f.second) << ") occurs in no test kernel";
  }
  EXPECT_EQ(objects, 3);
}

}  // namespace
}  // namespace cdna::simulator

namespace cdna::simulator {
namespace {

TEST(SimKernels, PreloadedKernelArguments) {
  auto co = testing::testdata("preload");
  CodeObject obj = CodeObject::load(co, "preload.hsaco");
  EXPECT_GT(obj.kernel("vector_add_preloaded").descriptor.kernarg_preload_length(), 0u);
  std::vector<float> a(300), b(300), c(300, 0.0f);
  for (std::size_t i = 0; i < 300; ++i) {
    a[i] = static_cast<float>(i);
    b[i] = 0.25f * static_cast<float>(i);
  }
  SimulatorExecutor ex;
  ex.run(co, testing::dispatch("vector_add_preloaded", {2, 1, 1}, {256, 1, 1},
                               {testing::in(a), testing::in(b), testing::out(c), testing::val(300)}));
  for (std::size_t i = 0; i < 300; ++i) EXPECT_EQ(c[i], a[i] + b[i]) << i;
}

}  // namespace
}  // namespace cdna::simulator
