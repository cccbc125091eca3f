// Decode trace golden files (golden/trace_golden.hpp): a round trip keeps the trace bit for bit
// (its BF16 tensors too) and the verdicts; a changed byte, an unknown key, a missing key, a
// misshaped verdict tensor, a verdict code past 3, another reference or outcome spelling are each
// refused with one line naming it. The judgement itself is audit's (cli_trace runs it).
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

#include "golden/digest.hpp"
#include "golden/trace_golden.hpp"

namespace cdna::golden {
namespace {

namespace fs = std::filesystem;

TraceGolden sample() {
  TraceGolden g;
  const std::vector<std::int32_t> tokens = {3, 1, 4, 1, 5};  // prompt 2, 3 steps
  g.trace.tensors["tokens"] = make_i32({5}, tokens);
  const std::vector<std::uint16_t> logits = {0x3f80, 0xbf80, 0x4000, 0x0000, 0x7fc0, 0x3f00};
  g.trace.tensors["logits"] = make_bf16({3, 2}, logits);
  g.trace.metadata = {{"prompt_length", "2"}, {"producer", "test"}};
  g.model = "/models/x";
  g.model_sha256 = std::string(64, 'a');
  g.profile = R"({"format":"cdna-verify-profile-1","name":"bf16","base":"bf16"})";
  g.outcome = "PASS";
  g.exact_token = {1, -1, 5};
  g.step_verdict = {0, 1, 0};
  return g;
}

fs::path written(const SafetensorsFile& f, const std::string& name) {
  const fs::path p = fs::path(::testing::TempDir()) / name;
  write_safetensors(p, f);
  return p;
}

// The file of `sample()` changed by `edit`, resealed (so only the reader's checks can see it).
fs::path edited(const std::string& name, const std::function<void(SafetensorsFile&)>& edit) {
  SafetensorsFile f = to_safetensors(sample());
  edit(f);
  f.metadata[kDigestKey] = golden_digest(f);
  return written(f, name);
}

void expect_refused(const fs::path& p, const std::string& what) {
  try {
    read_trace_golden(p);
    ADD_FAILURE() << p << " was read";
  } catch (const SafetensorsError& e) {
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
  }
}

TEST(TraceGolden, RoundTripKeepsTheTraceBitForBit) {
  const TraceGolden g = sample();
  const TraceGolden r = read_trace_golden(written(to_safetensors(g), "round.safetensors"));
  EXPECT_EQ(r.trace.metadata, g.trace.metadata);
  ASSERT_EQ(r.trace.tensors.size(), 2u);
  EXPECT_EQ(r.trace.tensors.at("logits").dtype, Dtype::BF16);
  EXPECT_EQ(r.trace.tensors.at("logits").data, g.trace.tensors.at("logits").data);
  EXPECT_EQ(r.trace.tensors.at("tokens").data, g.trace.tensors.at("tokens").data);
  EXPECT_EQ(r.model, g.model);
  EXPECT_EQ(r.model_sha256, g.model_sha256);
  EXPECT_EQ(r.profile, g.profile);
  EXPECT_EQ(r.reference, "exact");
  EXPECT_EQ(r.layer_envelope, "affine");
  EXPECT_EQ(r.outcome, "PASS");
  EXPECT_EQ(r.exact_token, g.exact_token);
  EXPECT_EQ(r.step_verdict, g.step_verdict);
}

TEST(TraceGolden, AChangedByteIsADigestMismatch) {
  SafetensorsFile f = to_safetensors(sample());
  f.tensors.at("tokens").data[8] ^= std::byte{1};  // tokens[2], a generated token
  expect_refused(written(f, "flipped.safetensors"), "digest mismatch");
}

TEST(TraceGolden, EachMalformedPartIsNamed) {
  expect_refused(edited("key.safetensors", [](SafetensorsFile& f) { f.metadata["dtype"] = "bf16"; }),
                 "metadata key 'dtype' is not one of a decode trace golden file");
  expect_refused(edited("nokey.safetensors", [](SafetensorsFile& f) { f.metadata.erase("model_sha256"); }),
                 "no metadata 'model_sha256'");
  expect_refused(edited("ref.safetensors", [](SafetensorsFile& f) { f.metadata["reference"] = "mpfr"; }),
                 "metadata reference 'mpfr' is not exact, affine or ball");
  expect_refused(edited("env.safetensors", [](SafetensorsFile& f) { f.metadata["layer_envelope"] = "exact"; }),
                 "metadata layer_envelope 'exact' is not affine or ball");
  expect_refused(edited("outcome.safetensors", [](SafetensorsFile& f) { f.metadata["outcome"] = "pass"; }),
                 "metadata outcome 'pass' is not PASS, FAIL or NOT CLASSIFIED");
  expect_refused(edited("prompt.safetensors", [](SafetensorsFile& f) { f.metadata["trace.prompt_length"] = "5"; }),
                 "trace.prompt_length in [1, T)");
  expect_refused(edited("shape.safetensors",
                        [](SafetensorsFile& f) {
                          const std::vector<std::int32_t> two = {1, 2};
                          f.tensors["exact_token"] = make_i32({2}, two);
                        }),
                 "tensor 'exact_token' has the wrong shape; need [3]");
  expect_refused(edited("code.safetensors", [](SafetensorsFile& f) { f.tensors.at("step_verdict").data[1] = std::byte{4}; }),
                 "step_verdict[1] = 4 is not a verdict");
  expect_refused(edited("format.safetensors", [](SafetensorsFile& f) { f.metadata["format"] = "cdna-verify decode golden v1"; }),
                 "need 'cdna-verify decode trace golden v1'");
}

TEST(TraceGolden, WritingRefusesVerdictsOfAnotherLength) {
  TraceGolden g = sample();
  g.step_verdict.pop_back();
  EXPECT_THROW(to_safetensors(g), std::invalid_argument);
  g = sample();
  g.trace.tensors["exact_token"] = g.trace.tensors.at("tokens");
  EXPECT_THROW(to_safetensors(g), std::invalid_argument);
}

}  // namespace
}  // namespace cdna::golden
