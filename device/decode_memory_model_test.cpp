// The decode monokernel under the simulator's memory-model mode (simulator/README.md
// "Memory-model mode"; docs/decode-semantics.md §5.6): the correct kernel decodes the same
// tokens and logits as on coherent memory; the mutant that drops the protocol's acquire
// (DROPPED_ACQUIRE) hangs there, while on coherent memory it is indistinguishable from the
// correct kernel; the one that drops the release (DROPPED_RELEASE) is not caught yet (a known gap).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include "device/attention_launcher.hpp"
#include "device/decode_launcher.hpp"
#include "device/decode_test_model.hpp"
#include "reference/decode_random.hpp"
#include "simulator/simulator_executor.hpp"

namespace cdna::device {
namespace {

DecodeLaunch launch(const reference::DecoderModel& m) {
  DecodeLaunch l;
  l.model = &m;
  l.prompt = {17, 400, 3};
  l.steps = 3;
  l.grid = 4;  // workgroups 0-3 on four different XCDs
  l.block = 256;
  return l;
}

bool identical(const DecodeResult& a, const DecodeResult& b) {
  return a.tokens == b.tokens && a.logits.size() == b.logits.size() &&
         std::memcmp(a.logits.data(), b.logits.data(), a.logits.size() * sizeof(float)) == 0;
}

class DecodeMemoryModel : public ::testing::Test {
 protected:
  DecodeMemoryModel() : model_(reference::random_decoder_model(reference::decoder_preset("tiny"), 11)) {
    cdna3_.options().memory_model = simulator::MemoryModel::Cdna3;
    cdna3_.options().hang_rounds = 4096;
  }
  reference::DecoderModel model_;
  simulator::SimulatorExecutor coherent_, cdna3_;
};

TEST_F(DecodeMemoryModel, CorrectKernelIsUnchangedUnderCdna3) {
  const DecodeLaunch l = launch(model_);
  const DecodeResult a = run_decode(coherent_, l);
  const DecodeResult b = run_decode(cdna3_, l);
  EXPECT_TRUE(identical(a, b)) << "tokens or logits differ between coherent and cdna3 memory";
  expect_correct(model_, l, b);
}

std::vector<std::byte> mutant(const std::string& lower_name) {  // CDNA_DECODE_MUTANTS, lower case
  return read_file(std::filesystem::path(CDNA_CODE_OBJECT_DIR) / ("decode_monokernel_mutant_" + lower_name + ".hsaco"),
                   "mutant");
}

// Plain loads without sc bits and no acquire fence: under cdna3 the consumers keep reading the
// NaN sentinels their L1 holds and the watchdog names them; on coherent memory the same mutant
// gives the correct kernel's bits.
TEST_F(DecodeMemoryModel, DroppedAcquireHangsOnASentinelUnderCdna3) {
  const DecodeLaunch l = launch(model_);
  const std::vector<std::byte> code = mutant("dropped_acquire");
  EXPECT_TRUE(identical(run_decode(coherent_, l), run_decode(coherent_, code, l)));
  std::string msg;
  try {
    run_decode(cdna3_, code, l);
  } catch (const std::runtime_error& e) {
    msg = e.what();
  }
  EXPECT_NE(msg.find("no progress"), std::string::npos) << msg;
  EXPECT_NE(msg.find("buffer 'exchange' (output) element "), std::string::npos) << msg;
  EXPECT_NE(msg.find("= 0x7f800001 (NaN) since round"), std::string::npos) << msg;
  if (const auto at = msg.find("polls "); at != std::string::npos)
    std::printf("[ mutant   ] DROPPED_ACQUIRE under cdna3 hangs; first poll reported: %.160s\n", msg.c_str() + at);
}

// Known gap (simulator/README.md "Memory-model mode", not modelled): every store here completes
// at once and in program order, and DROPPED_RELEASE's stores are all agent-scope (sc1), so they
// reach memory in order and nothing can observe the missing release: the mutant survives. A
// model of stores completing out of order until s_waitcnt vmcnt / buffer_wbl2 would catch it;
// this test then fails and is to be turned round.
TEST_F(DecodeMemoryModel, DroppedReleaseIsNotCaughtYet) {
  const DecodeLaunch l = launch(model_);
  const DecodeResult good = run_decode(coherent_, l);
  const DecodeResult bad = run_decode(cdna3_, mutant("dropped_release"), l);
  EXPECT_TRUE(identical(good, bad));
  std::printf("[ gap      ] DROPPED_RELEASE under cdna3: %s the correct kernel's result\n",
              identical(good, bad) ? "same as" : "differs from");
}

}  // namespace
}  // namespace cdna::device
