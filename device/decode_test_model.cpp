#include "device/decode_test_model.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <span>
#include <string>

#include "device/decode_ball_forward.hpp"
#include "numerics/bf16.hpp"

namespace cdna::device {

reference::DecoderModel random_decoder_model(const reference::DecoderConfig& c, std::uint64_t seed,
                                             bool paired_lm_rows) {
  reference::DecoderModel m;
  m.config = c;
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> mat(0.0f, 0.02f), norm(1.0f, 0.05f);
  auto fill = [&](std::vector<std::uint16_t>& v, std::int64_t n, auto& dist) {
    v.resize(static_cast<std::size_t>(n));
    for (auto& e : v) e = numerics::bf16_from_f32(dist(rng), numerics::Rounding::RTNE);
  };
  const std::int64_t H = c.hidden_size, I = c.intermediate_size, D = c.head_dim;
  const std::int64_t q = c.num_attention_heads * D, kv = c.num_key_value_heads * D;
  fill(m.weights.embed_tokens, c.vocab_size * H, mat);
  m.weights.layers.resize(static_cast<std::size_t>(c.num_hidden_layers));
  for (auto& y : m.weights.layers) {
    fill(y.input_layernorm, H, norm);
    fill(y.q_proj, q * H, mat);
    fill(y.k_proj, kv * H, mat);
    fill(y.v_proj, kv * H, mat);
    fill(y.o_proj, H * q, mat);
    fill(y.post_attention_layernorm, H, norm);
    fill(y.gate_proj, I * H, mat);
    fill(y.up_proj, I * H, mat);
    fill(y.down_proj, H * I, mat);
  }
  fill(m.weights.norm, H, norm);
  if (!c.tie_word_embeddings) fill(m.weights.lm_head, c.vocab_size * H, mat);
  if (paired_lm_rows)
    for (std::int64_t r = 1; r < c.vocab_size; r += 2)
      std::copy_n(m.weights.lm_head.begin() + (r - 1) * H, H, m.weights.lm_head.begin() + r * H);
  return m;
}

std::vector<std::int64_t> teacher_tokens(const DecodeLaunch& l, const DecodeResult& r) {
  std::vector<std::int64_t> t = l.prompt;
  for (std::size_t i = 0; t.size() < static_cast<std::size_t>(r.stats.positions); ++i) t.push_back(r.tokens[i]);
  return t;
}

void expect_correct(const reference::DecoderModel& m, const DecodeLaunch& l, const DecodeResult& r) {
  const std::int64_t V = m.config.vocab_size, P = static_cast<std::int64_t>(l.prompt.size());
  for (std::size_t k = 0; k < r.tokens.size(); ++k) {
    const float* row = r.logits.data() + (P - 1 + static_cast<std::int64_t>(k)) * V;
    EXPECT_EQ(r.tokens[k], std::max_element(row, row + V) - row) << "token " << k;
  }
  const std::vector<std::int64_t> tokens = teacher_tokens(l, r);
  const std::int64_t last = r.stats.positions - 1;
  const StepCheck c = check_last_position(m, l.mode, r.params, r.last_exchange_set, r.kv_cache,
                                          std::span(r.logits).subspan(static_cast<std::size_t>(last * V)), last,
                                          tokens[static_cast<std::size_t>(last)]);
  EXPECT_EQ(c.outside, 0u) << c.outside << " of " << c.checked << " outside; first: " << c.first;
  std::printf("[ figures  ] %s: last position: %zu values judged, %zu outside; widest logit ball radius %.3g of max |logit|\n",
              std::string(numerics::to_string(l.mode)).c_str(), c.checked, c.outside, c.widest);
}

}  // namespace cdna::device
