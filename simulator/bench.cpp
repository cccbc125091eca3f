// Simulator throughput (not a test): wave-instructions per second on a VALU-bound loop and on
// the attention-forward kernel. Usage: simulator_bench [iterations] [seqlen]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "device/attention_launcher.hpp"
#include "reference/inputs.hpp"
#include "simulator/test_util.hpp"

using namespace cdna::simulator;
using namespace cdna::simulator::testing;

namespace {
void report(const char* what, const SimStats& s) {
  std::printf("%s: %llu wave instructions (%llu MFMA), %llu workgroups in %.3f s = %.1f M wave-instructions/s\n",
              what, static_cast<unsigned long long>(s.wave_instructions),
              static_cast<unsigned long long>(s.mfma_instructions),
              static_cast<unsigned long long>(s.workgroups), s.seconds,
              static_cast<double>(s.wave_instructions) / s.seconds / 1e6);
}
}  // namespace

int main(int argc, char** argv) {
  int iters = argc > 1 ? std::atoi(argv[1]) : 2000;
  std::int64_t seq = argc > 2 ? std::atoll(argv[2]) : 256;
  auto co = testdata("bench");
  SimulatorExecutor ex;
  std::vector<float> out(64 * 256);
  for (int rep = 0; rep < 3; ++rep) {
    ex.run(co, dispatch("valu_loop", {64, 1, 1}, {256, 1, 1}, {testing::out(out), val(iters)}));
    report("valu_loop", ex.last_stats());
  }
  auto path = cdna::device::attention_code_object(cdna::numerics::Rounding::RTNE, CDNA_SIM_DEVICE_DIR);
  auto attn = cdna::device::read_file(path, "attention code object");
  cdna::reference::AttentionProblem p;
  p.shape = {1, seq, seq, 2, 2, 128};
  p.scale = static_cast<float>(1.0 / std::sqrt(128.0));
  p.q = cdna::reference::randn_bf16(static_cast<std::size_t>(p.shape.q_elements()), 1);
  p.k = cdna::reference::randn_bf16(static_cast<std::size_t>(p.shape.kv_elements()), 2);
  p.v = cdna::reference::randn_bf16(static_cast<std::size_t>(p.shape.kv_elements()), 3);
  for (int rep = 0; rep < 2; ++rep) {
    cdna::device::run_attention(ex, attn, p);
    report("attention d128", ex.last_stats());
  }
  return 0;
}
