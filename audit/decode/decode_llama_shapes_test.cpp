// Label slow: one decoder layer at Llama-3.2-1B's shapes (H 2048, I 8192, Hq 32, Hkv 8, D 64,
// V 128256, tied, llama3 RoPE scaling) on the simulator, seeded random weights: 2 prompt
// positions and 2 generated tokens, judged by the one-step checks (decode_test_model.hpp), with
// the figures per position. About 1.5 GB of host memory.
#include <gtest/gtest.h>

#include <cstdio>

#include "device/decode_launcher.hpp"
#include "audit/decode/test_model.hpp"
#include "reference/decode/random.hpp"
#include "simulator/schedule/simulator_executor.hpp"

namespace cdna::device {
namespace {

TEST(DecodeLlamaShapes, OneLayerOfLlama32OneBOnTheSimulator) {
  const reference::DecoderModel m =
      reference::random_decoder_model(reference::decoder_preset("llama-3.2-1b-layer"), 7);
  DecodeLaunch l;
  l.model = &m;
  l.prompt = {128000, 9906};
  l.steps = 2;
  l.grid = 16;
  simulator::SimulatorExecutor ex;
  const DecodeResult r = run_decode(ex, l);
  ASSERT_EQ(r.stats.positions, 3);
  expect_correct(m, l, r);
  const auto& s = ex.last_stats();
  std::printf("[ figures  ] one Llama-3.2-1B layer, grid 16: %.3g wave instructions and %.2f s per position "
              "(simulator); %llu weight bytes streamed per position of a %llu-byte model\n",
              static_cast<double>(s.wave_instructions) / 3.0, r.stats.seconds / 3.0,
              static_cast<unsigned long long>(r.stats.weight_bytes_per_token),
              static_cast<unsigned long long>(r.stats.model_bytes));
}

}  // namespace
}  // namespace cdna::device
