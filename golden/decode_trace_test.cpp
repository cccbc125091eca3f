// Decode traces (golden/decode_trace.hpp): a written trace reads back; every tensor or key that
// is not what the format defines is refused with one line naming it.
#include "golden/decode_trace.hpp"

#include <gtest/gtest.h>

#include <functional>

#include "reference/decode/random.hpp"

namespace cdna::golden {
namespace {

// A 2-layer model's trace: prompt 3 tokens, 2 steps (T 5), every optional tensor present.
struct Fixture {
  reference::DecoderConfig c = reference::decoder_preset("tiny");
  DecodeTrace t;
  Fixture() {
    t.tokens = {1, 17, 42, 7, 99};
    t.prompt_length = 3;
    t.vocab = c.vocab_size;
    t.logits.assign(static_cast<std::size_t>(2 * c.vocab_size), 0.25f);
    for (std::int64_t l = 0; l <= c.num_hidden_layers; ++l)
      t.hidden[l].assign(static_cast<std::size_t>(4 * c.hidden_size), static_cast<float>(l));
    for (std::int64_t l = 0; l < c.num_hidden_layers; ++l) {
      t.k[l].assign(static_cast<std::size_t>(4 * c.num_key_value_heads * c.head_dim), 1.5f);
      t.v[l].assign(static_cast<std::size_t>(4 * c.num_key_value_heads * c.head_dim), -2.0f);
    }
    t.metadata["producer"] = "test";
  }
};

TEST(DecodeTrace, RoundTrip) {
  const Fixture f;
  const DecodeTrace back = parse_decode_trace(decode_trace_file(f.t, f.c), f.c, "t.safetensors");
  EXPECT_EQ(back.tokens, f.t.tokens);
  EXPECT_EQ(back.prompt_length, 3);
  EXPECT_EQ(back.steps(), 2);
  EXPECT_EQ(back.position_of_step(0), 2);
  EXPECT_EQ(back.logits, f.t.logits);
  EXPECT_EQ(back.hidden, f.t.hidden);
  EXPECT_EQ(back.k, f.t.k);
  EXPECT_EQ(back.v, f.t.v);
  EXPECT_EQ(back.metadata.at("producer"), "test");
}

// Each edit of a good file, and the start of the one-line error it must give.
TEST(DecodeTrace, EachMalformedPartIsNamed) {
  const Fixture f;
  const std::pair<std::function<void(SafetensorsFile&)>, std::string> cases[] = {
      {[](SafetensorsFile& s) { s.metadata.erase("prompt_length"); }, "t: metadata prompt_length: missing"},
      {[](SafetensorsFile& s) { s.metadata["prompt_length"] = "3x"; }, "t: metadata prompt_length: \"3x\""},
      {[](SafetensorsFile& s) { s.metadata["prompt_length"] = "5"; }, "t: metadata prompt_length: 5 leaves no"},
      {[](SafetensorsFile& s) { s.tensors.erase("logits"); }, "t: no tensor 'logits'"},
      {[](SafetensorsFile& s) { s.tensors["tokens"] = make_i32({5}, std::vector<std::int32_t>{1, 2, 3, 4, 1000}); },
       "t: tokens: 1000 is not a token id"},
      {[](SafetensorsFile& s) { s.tensors["tokens"] = make_f32({5}, std::vector<float>(5, 1.0f)); }, "t: tokens: F32 [5]"},
      {[&](SafetensorsFile& s) { s.tensors["logits"] = make_f32({3, f.c.vocab_size}, std::vector<float>(3 * 1000)); },
       "t: logits: shape [3, 1000], need [2, 1000]"},
      {[&](SafetensorsFile& s) { s.tensors["hidden.1"] = make_f32({4, 5}, std::vector<float>(20)); },
       "t: hidden.1: shape [4, 5], need [4, 256]"},
      {[&](SafetensorsFile& s) { s.tensors["hidden.1"] = make_f64({4, 256}, std::vector<double>(1024)); },
       "t: hidden.1: dtype F64, need F32"},
      {[&](SafetensorsFile& s) { s.tensors["hidden.3"] = s.tensors["hidden.2"]; }, "t: tensor 'hidden.3': not a tensor"},
      {[&](SafetensorsFile& s) { s.tensors["k.2"] = s.tensors["k.1"]; }, "t: tensor 'k.2': not a tensor"},
      {[&](SafetensorsFile& s) { s.tensors["hidden.01"] = s.tensors["hidden.1"]; }, "t: tensor 'hidden.01': not a tensor"},
      {[&](SafetensorsFile& s) { s.tensors["attn_out.0"] = s.tensors["hidden.1"]; }, "t: tensor 'attn_out.0': not a tensor"}};
  for (const auto& [edit, want] : cases) {
    SafetensorsFile s = decode_trace_file(f.t, f.c);
    edit(s);
    try {
      parse_decode_trace(s, f.c, "t");
      ADD_FAILURE() << "accepted: " << want;
    } catch (const SafetensorsError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind(want, 0), 0u) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
  }
}

TEST(DecodeTrace, Bf16ValuesAreWidenedAndOptionalTensorsMayBeAbsent) {
  Fixture f;
  f.t.hidden.clear();
  f.t.k.clear();
  f.t.v.clear();
  SafetensorsFile s = decode_trace_file(f.t, f.c);
  s.tensors["logits"] = make_bf16({2, f.c.vocab_size}, std::vector<std::uint16_t>(2000, 0x3F80));  // 1.0
  const DecodeTrace t = parse_decode_trace(s, f.c, "t");
  EXPECT_EQ(t.logits, std::vector<float>(2000, 1.0f));
  EXPECT_TRUE(t.hidden.empty() && t.k.empty() && t.v.empty());
}

}  // namespace
}  // namespace cdna::golden
