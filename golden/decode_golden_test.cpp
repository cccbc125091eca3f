// Decode golden files (golden/decode_golden.hpp): a round trip re-derives bit for bit; another
// model, a changed stored number (with the digest recomputed, so only the re-derivation can see
// it), a changed byte, and malformed files are each caught.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "golden/decode_golden.hpp"
#include "golden/digest.hpp"
#include "reference/decode/decision.hpp"
#include "reference/decode/envelope.hpp"
#include "reference/decode/random.hpp"

namespace cdna::golden {
namespace {

reference::DecoderModel small_model(std::uint64_t seed) {
  reference::DecoderConfig c;
  c.num_hidden_layers = 1;
  c.hidden_size = 32;
  c.intermediate_size = 64;
  c.num_attention_heads = 2;
  c.num_key_value_heads = 1;
  c.head_dim = 16;
  c.vocab_size = 200;
  return reference::random_decoder_model(c, seed);
}

// A golden of a run that fed {4, 9} and then the decided tokens (the kernel's logits stand in as
// the midpoints rounded to fp32: the file stores them, it does not judge them).
DecodeGolden make_golden(const reference::DecoderModel& m) {
  DecodeGolden g;
  g.model = "random:test:1";
  g.envelope = "ball";  // the envelope below
  g.steps = 3;
  g.vocab = m.config.vocab_size;
  g.prompt = {4, 9};
  reference::DecodeEnvelope env(m, reference::monokernel_arithmetic(g.mode));
  std::int64_t token = g.prompt[0];
  for (int q = 0; q < 4; ++q) {
    const reference::StepBounds b = env.step(token);
    const reference::TokenDecision d = reference::decide_greedy(b);
    g.mid.insert(g.mid.end(), b.mid.begin(), b.mid.end());
    g.rad.insert(g.rad.end(), b.rad.begin(), b.rad.end());
    for (double x : b.mid) g.kernel_logits.push_back(static_cast<float>(x));
    g.decided.push_back(d.kind != reference::DecisionKind::ambiguous);
    g.decided_token.push_back(static_cast<std::int32_t>(d.token));
    if (q >= 1) g.kernel_tokens.push_back(d.token);
    token = q + 1 < 2 ? g.prompt[q + 1] : d.token;
  }
  return g;
}

class DecodeGoldenTest : public ::testing::Test {
 protected:
  std::filesystem::path file(const char* name) { return std::filesystem::path(::testing::TempDir()) / name; }
  reference::DecoderModel model_ = small_model(5);
  DecodeGolden golden_ = make_golden(model_);
};

TEST_F(DecodeGoldenTest, RoundTripReDerivesBitForBit) {
  ASSERT_EQ(golden_.kernel_tokens.size(), 3u);
  int decided = 0;
  for (auto d : golden_.decided) decided += d;
  EXPECT_GT(decided, 0) << "the test model should have finite balls and decided steps";
  write_safetensors(file("ok.safetensors"), to_safetensors(golden_));
  const DecodeGolden back = read_decode_golden(file("ok.safetensors"));
  EXPECT_EQ(back.kernel_tokens, golden_.kernel_tokens);
  EXPECT_EQ(verify_decode_golden(back, model_), "");
}

TEST_F(DecodeGoldenTest, AnotherModelIsCaught) {
  EXPECT_NE(verify_decode_golden(golden_, small_model(6)), "");
}

TEST_F(DecodeGoldenTest, AChangedRadiusIsCaughtByTheReDerivation) {
  DecodeGolden g = golden_;
  g.rad[250] = std::nextafter(g.rad[250], INFINITY);  // one ULP
  write_safetensors(file("rad.safetensors"), to_safetensors(g));  // a valid digest over the change
  EXPECT_NE(verify_decode_golden(read_decode_golden(file("rad.safetensors")), model_).find("position 1, logit 50"),
            std::string::npos);
}

TEST_F(DecodeGoldenTest, AChangedByteIsCaughtByTheDigest) {
  std::vector<std::byte> bytes = serialize_safetensors(to_safetensors(golden_));
  bytes[bytes.size() - 3] ^= std::byte{1};  // a data byte (every byte is under the digest)
  write_file_atomically(file("tampered.safetensors"), bytes);
  EXPECT_THROW(read_decode_golden(file("tampered.safetensors")), SafetensorsError);
}

TEST_F(DecodeGoldenTest, MalformedFilesAreRefused) {
  SafetensorsFile f = to_safetensors(golden_);
  SafetensorsFile missing = f;
  missing.tensors.erase("decided");
  missing.metadata[kDigestKey] = golden_digest(missing);
  write_safetensors(file("missing.safetensors"), missing);
  EXPECT_THROW(read_decode_golden(file("missing.safetensors")), SafetensorsError);

  SafetensorsFile shape = f;
  shape.tensors["decided"] = make_u8({2}, std::vector<std::uint8_t>{1, 1});
  shape.metadata[kDigestKey] = golden_digest(shape);
  write_safetensors(file("shape.safetensors"), shape);
  EXPECT_THROW(read_decode_golden(file("shape.safetensors")), SafetensorsError);

  SafetensorsFile format = f;
  format.metadata["format"] = "something else";
  format.metadata[kDigestKey] = golden_digest(format);
  write_safetensors(file("format.safetensors"), format);
  EXPECT_THROW(read_decode_golden(file("format.safetensors")), SafetensorsError);

  std::vector<std::byte> bytes = serialize_safetensors(f);
  bytes.resize(bytes.size() / 2);
  write_file_atomically(file("truncated.safetensors"), bytes);
  EXPECT_THROW(read_decode_golden(file("truncated.safetensors")), SafetensorsError);
}

}  // namespace
}  // namespace cdna::golden
