// The decode monokernel under the simulator's memory-model mode (simulator/README.md
// "Memory-model mode"; docs/decode-semantics.md §5.6): the correct kernel decodes the same
// tokens and logits as on coherent memory; the mutant that drops the protocol's acquire
// (DROPPED_ACQUIRE) hangs there, while on coherent memory it is indistinguishable from the
// correct kernel. The mutant that drops the release but keeps sc1 on its stores (DROPPED_RELEASE)
// survives the fair scheduler and dies when a store is held (starvation,
// SchedulerOptions::starve_seed; docs/decode-semantics.md §5.6); the one that also stores
// its values without sc1 (DROPPED_RELEASE_PLAIN_STORE) hangs, its values stuck in the producer's L2.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include "device/attention_launcher.hpp"
#include "device/decode_launcher.hpp"
#include "audit/decode/test_model.hpp"
#include "reference/decode/random.hpp"
#include "simulator/schedule/simulator_executor.hpp"

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

// Runs memory mutant `name` (lower case): on coherent memory it gives the correct kernel's bits;
// under cdna3 it must hang on an exchange element's NaN sentinel, the watchdog naming it.
void expect_hang_on_sentinel(const DecodeLaunch& l, simulator::SimulatorExecutor& coherent,
                             simulator::SimulatorExecutor& cdna3, const std::string& name) {
  const std::vector<std::byte> code = mutant(name);
  EXPECT_TRUE(identical(run_decode(coherent, l), run_decode(coherent, code, l)));
  std::string msg;
  try {
    run_decode(cdna3, code, l);
  } catch (const std::runtime_error& e) {
    msg = e.what();
  }
  EXPECT_NE(msg.find("no progress"), std::string::npos) << msg;
  EXPECT_NE(msg.find("buffer 'exchange' (output) element "), std::string::npos) << msg;
  EXPECT_NE(msg.find("= 0x7f800001 (NaN) since round"), std::string::npos) << msg;
  if (const auto at = msg.find("polls "); at != std::string::npos)
    std::printf("[ mutant   ] %s under cdna3 hangs; first poll reported: %.160s\n", name.c_str(), msg.c_str() + at);
}

// Plain loads without sc bits and no acquire fence: under cdna3 the consumers keep reading the
// NaN sentinels their L1 holds.
TEST_F(DecodeMemoryModel, DroppedAcquireHangsOnASentinelUnderCdna3) {
  expect_hang_on_sentinel(launch(model_), coherent_, cdna3_, "dropped_acquire");
}

// Values stored without cache bits and no buffer_wbl2: they stay dirty in the producer's XCD's
// L2, so a consumer on another XCD (grid 4: four XCDs) polls the NaN sentinel in memory forever.
TEST_F(DecodeMemoryModel, DroppedReleasePlainStoreHangsOnASentinelUnderCdna3) {
  expect_hang_on_sentinel(launch(model_), coherent_, cdna3_, "dropped_release_plain_store");
}

// DROPPED_RELEASE keeps sc1 on every store, so each reaches memory; what it loses is the order of
// a wave's sentinel resets before its workgroup's LM-head partial (no s_waitcnt vmcnt between
// them in the compiled code, docs/decode-semantics.md §5.6). Under a fair scheduler every
// resetting wave performs its resets (vmcnt(0) in its poll of the partials) long before any
// consumer reaches the reset words at the next position, and the mutant gives the correct bits;
// with starvation (SchedulerOptions::starve_seed) a reset can be held past the partial, and the
// other workgroups take the partial and read the old word as new.
TEST_F(DecodeMemoryModel, DroppedReleaseDiesWhenAResetIsHeldPastThePartial) {
  const DecodeLaunch l = launch(model_);
  const DecodeResult good = run_decode(coherent_, l);
  const std::vector<std::byte> code = mutant("dropped_release");
  EXPECT_TRUE(identical(good, run_decode(cdna3_, code, l))) << "fair schedule: the gap is no longer only timing";
  simulator::SimulatorExecutor starved;
  starved.options() = cdna3_.options();
  starved.options().hang_rounds = 1u << 16;  // above starve_rounds (default 2^14)
  int killed = 0, seeds = 0;
  for (std::uint64_t seed = 1; seed <= 8; ++seed, ++seeds) {
    starved.options().starve_seed = seed;
    std::string how;
    try {
      const DecodeResult bad = run_decode(starved, code, l);
      if (!identical(good, bad)) how = "tokens or logits differ";
    } catch (const std::runtime_error& e) {
      how = std::string("error: ") + e.what();
    }
    if (!how.empty()) ++killed;
    std::printf("[ starve   ] DROPPED_RELEASE, starve seed %llu: %.1200s\n", static_cast<unsigned long long>(seed),
                how.empty() ? "same as the correct kernel" : how.c_str());
  }
  EXPECT_GT(killed, 0) << "DROPPED_RELEASE survived " << seeds << " starvation seeds";
}

// The correct kernel releases (buffer_wbl2 sc1; s_waitcnt vmcnt(0)) before each publish, so no
// starvation changes a bit of its result.
TEST_F(DecodeMemoryModel, CorrectKernelIsUnchangedUnderStarvation) {
  const DecodeLaunch l = launch(model_);
  const DecodeResult good = run_decode(coherent_, l);
  simulator::SimulatorExecutor starved;
  starved.options() = cdna3_.options();
  starved.options().hang_rounds = 1u << 16;  // above starve_rounds (default 2^14)
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    starved.options().starve_seed = seed;
    EXPECT_TRUE(identical(good, run_decode(starved, l))) << "starve seed " << seed;
  }
}

}  // namespace
}  // namespace cdna::device
