// Simulator throughput (not a test): wave-instructions per second on a VALU-bound loop and on
// the attention-forward kernel. Usage: simulator_bench [iterations]
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "simulator/test_util.hpp"

using namespace cdna::simulator;
using namespace cdna::simulator::testing;

int main(int argc, char** argv) {
  int iters = argc > 1 ? std::atoi(argv[1]) : 2000;
  auto co = testdata("bench");
  SimulatorExecutor ex;
  std::vector<float> out(64 * 256);
  for (int rep = 0; rep < 3; ++rep) {
    ex.run(co, dispatch("valu_loop", {64, 1, 1}, {256, 1, 1}, {testing::out(out), val(iters)}));
    const auto& s = ex.last_stats();
    std::printf("valu_loop: %llu wave instructions in %.3f s = %.1f M wave-instructions/s\n",
                static_cast<unsigned long long>(s.wave_instructions), s.seconds,
                static_cast<double>(s.wave_instructions) / s.seconds / 1e6);
  }
  return 0;
}
