// The exact decode oracle against hand-computed logits, an independent plain-double forward, and
// itself at twice the precision.
#include "reference/decode/exact.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>

#include "numerics/bf16.hpp"
#include "reference/decode/config.hpp"
#include "reference/decode/random.hpp"
#include "reference/decode/rope.hpp"

namespace cdna::reference {
namespace {

using numerics::f32_from_bf16;

std::uint16_t bf(double v) { return numerics::bf16_from_f32(static_cast<float>(v), numerics::Rounding::RTNE); }
std::vector<std::uint16_t> bfs(std::initializer_list<double> v) {
  std::vector<std::uint16_t> out;
  for (double x : v) out.push_back(bf(x));
  return out;
}

// ---------------------------------------------------------------------------------------------
// An independent plain-double forward of docs/decode-semantics.md §1 (naive loops; RoPE
// frequencies from decode_rope.hpp's double code, not the oracle's MPFR ones). `kv_head` maps a
// query head to its KV head, so the tests can show that a wrong mapping gives other logits.
//
// Its distance to the exact logits: every value here is O(1)..O(10) and each logit is ~10
// dependent layers of dot products of ≤ 512 terms, so the double rounding error is at most a few
// thousand units of 2^-53 times the magnitudes (Higham γ_n per dot product, compounded over the
// layers): below 2^-30 by a wide margin. The tests compare at 2^-30 absolute; every bug they guard
// against (RoPE position, GQA mapping, a KV slot) moves logits by > 2^-12 (checked in the tests).
struct NaiveDecoder {
  const DecoderModel& m;
  std::int64_t (*kv_head)(std::int64_t h, std::int64_t hq, std::int64_t hkv);
  std::vector<std::vector<std::vector<double>>> k, v;  // [layer][slot][Hkv·D]
  std::int64_t pos = 0;
  std::int64_t k_offset = 0;  // keys rotated at pos + k_offset (a mutant: q and k at different positions)

  static std::int64_t grouped(std::int64_t h, std::int64_t hq, std::int64_t hkv) { return h / (hq / hkv); }
  static std::int64_t modulo(std::int64_t h, std::int64_t, std::int64_t hkv) { return h % hkv; }

  explicit NaiveDecoder(const DecoderModel& model, decltype(kv_head) map = grouped)
      : m(model), kv_head(map), k(static_cast<std::size_t>(model.config.num_hidden_layers)), v(k.size()) {}

  std::vector<double> gemv(const std::vector<std::uint16_t>& w, const std::vector<double>& x) const {
    std::vector<double> y(w.size() / x.size(), 0.0);
    for (std::size_t i = 0; i < y.size(); ++i)
      for (std::size_t j = 0; j < x.size(); ++j) y[i] += f32_from_bf16(w[i * x.size() + j]) * x[j];
    return y;
  }
  std::vector<double> norm(const std::vector<double>& x, const std::vector<std::uint16_t>& g) const {
    double ss = 0;
    for (double e : x) ss += e * e;
    const double inv = 1 / std::sqrt(ss / static_cast<double>(x.size()) + m.config.rms_norm_eps);
    std::vector<double> out(x.size());
    for (std::size_t j = 0; j < x.size(); ++j) out[j] = x[j] * inv * f32_from_bf16(g[j]);
    return out;
  }
  void rope(std::vector<double>& x, std::int64_t at) const {
    const std::vector<double> w = rope_inverse_frequencies(m.config);
    const std::size_t d = static_cast<std::size_t>(m.config.head_dim), half = d / 2;
    for (std::size_t h = 0; h < x.size() / d; ++h)
      for (std::size_t i = 0; i < half; ++i) {
        const double a = static_cast<double>(at) * w[i], c = std::cos(a), s = std::sin(a);
        const double x0 = x[h * d + i], x1 = x[h * d + i + half];
        x[h * d + i] = x0 * c - x1 * s;
        x[h * d + i + half] = x1 * c + x0 * s;
      }
  }
  std::vector<double> step(std::int64_t token) {
    const DecoderConfig& c = m.config;
    const auto H = static_cast<std::size_t>(c.hidden_size), D = static_cast<std::size_t>(c.head_dim);
    std::vector<double> x(H);
    for (std::size_t j = 0; j < H; ++j) x[j] = f32_from_bf16(m.weights.embed_tokens[static_cast<std::size_t>(token) * H + j]);
    for (std::size_t l = 0; l < k.size(); ++l) {
      const DecoderLayerWeights& w = m.weights.layers[l];
      std::vector<double> h = norm(x, w.input_layernorm), q = gemv(w.q_proj, h), kk = gemv(w.k_proj, h);
      rope(q, pos);
      rope(kk, pos + k_offset);
      k[l].push_back(kk);
      v[l].push_back(gemv(w.v_proj, h));
      std::vector<double> o(q.size(), 0.0);
      for (std::int64_t head = 0; head < c.num_attention_heads; ++head) {
        const auto kv = static_cast<std::size_t>(kv_head(head, c.num_attention_heads, c.num_key_value_heads)) * D;
        const auto qh = static_cast<std::size_t>(head) * D;
        std::vector<double> s(k[l].size());
        double mx = -std::numeric_limits<double>::infinity(), z = 0;
        for (std::size_t j = 0; j < s.size(); ++j) {
          for (std::size_t e = 0; e < D; ++e) s[j] += q[qh + e] * k[l][j][kv + e];
          s[j] /= std::sqrt(static_cast<double>(D));
          mx = std::max(mx, s[j]);
        }
        for (double& e : s) z += (e = std::exp(e - mx));
        for (std::size_t j = 0; j < s.size(); ++j)
          for (std::size_t e = 0; e < D; ++e) o[qh + e] += s[j] / z * v[l][j][kv + e];
      }
      const std::vector<double> a = gemv(w.o_proj, o);
      for (std::size_t j = 0; j < H; ++j) x[j] += a[j];
      h = norm(x, w.post_attention_layernorm);
      std::vector<double> g = gemv(w.gate_proj, h);
      const std::vector<double> u = gemv(w.up_proj, h);
      for (std::size_t j = 0; j < g.size(); ++j) g[j] = g[j] / (1 + std::exp(-g[j])) * u[j];
      const std::vector<double> dn = gemv(w.down_proj, g);
      for (std::size_t j = 0; j < H; ++j) x[j] += dn[j];
    }
    ++pos;
    return gemv(m.weights.lm_head_matrix(c), norm(x, m.weights.norm));
  }
};

constexpr double kNaiveTolerance = 0x1p-30;

double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, std::fabs(a[i] - b[i]));
  return d;
}

// A small random model with four query heads over two KV heads.
DecoderConfig small_config() {
  return {.hidden_size = 32, .intermediate_size = 48, .num_hidden_layers = 2, .num_attention_heads = 4,
          .num_key_value_heads = 2, .head_dim = 8, .rms_norm_eps = 1e-5,
          .rope_theta = 10.0,  // large angles: a RoPE position error shows
          .rope_scaling = std::nullopt, .vocab_size = 40, .tie_word_embeddings = true,
          .max_position_embeddings = 8192, .eos_token_id = {}};
}

// 1 layer, H = 2, one head of D = 2, V = 3, untied; every matrix zero except as set by the test.
DecoderModel two_wide_model() {
  DecoderModel m;
  m.config = {.hidden_size = 2, .intermediate_size = 2, .num_hidden_layers = 1, .num_attention_heads = 1,
              .num_key_value_heads = 1, .head_dim = 2,
              .rms_norm_eps = 3.5,  // mean(3², 4²) + 3.5 = 16: RMSNorm divides by exactly 4
              .rope_theta = 500000.0, .rope_scaling = std::nullopt, .vocab_size = 3, .tie_word_embeddings = false,
              .max_position_embeddings = 8192, .eos_token_id = {}};
  m.weights.layers.resize(1);
  m.weights.embed_tokens = bfs({3, 4, 1, 1, 0, 0});
  DecoderLayerWeights& w = m.weights.layers[0];
  w.input_layernorm = bfs({1, 1});
  w.post_attention_layernorm = bfs({1, 1});
  w.q_proj = w.k_proj = w.v_proj = w.o_proj = bfs({0, 0, 0, 0});
  w.gate_proj = w.up_proj = w.down_proj = bfs({0, 0, 0, 0});
  m.weights.norm = bfs({2, 0.5});
  m.weights.lm_head = bfs({1, 0, 0, 1, 1, -1});
  return m;
}

TEST(ExactDecoder, ZeroMatricesGiveTheNormedEmbeddingThroughTheHead) {
  // x = E[0] = (3, 4) passes both layers unchanged (zero matrices: v = 0, silu(0)·0 = 0);
  // RMSNorm: (3, 4)/4 ⊙ (2, 0.5) = (1.5, 0.5); logits = (1.5, 0.5, 1.0), exact doubles.
  const DecoderModel m = two_wide_model();
  ExactDecoder d(m);
  EXPECT_EQ(d.step(0), (std::vector<double>{1.5, 0.5, 1.0}));
  EXPECT_EQ(d.position(), 1);
  // Token 2 embeds (0, 0): RMSNorm of zero is zero, so are the logits.
  EXPECT_EQ(d.step(2), (std::vector<double>{0.0, 0.0, 0.0}));
}

TEST(ExactDecoder, MisplacedEpsilonWouldChangeTheClosedForm) {
  // The closed form above fails for eps outside the square root: (3,4)/(√12.5 + 3.5)·g.
  const double wrong = 3 / (std::sqrt(12.5) + 3.5) * 2;
  EXPECT_GT(std::fabs(wrong - 1.5), 0.1);
}

TEST(ExactDecoder, AttentionOverOneSlotReturnsV) {
  // Position 0 has one slot: softmax = 1 whatever q·k is, o = v. h = (3, 4)/4 = (0.75, 1);
  // v = W_v h = (1, 3); o_proj = I: x = (4, 7); mean(16, 49) + 3.5 = 36: RMSNorm divides by 6;
  // ⊙ (3, 6): (2, 7); logits (2, 7, −5).
  DecoderModel m = two_wide_model();
  DecoderLayerWeights& w = m.weights.layers[0];
  w.q_proj = bfs({0.5, -1.25, 2, 0.75});
  w.k_proj = bfs({-0.375, 1.5, 1, 3});
  w.v_proj = bfs({0, 1, 0, 3});
  w.o_proj = bfs({1, 0, 0, 1});
  m.weights.norm = bfs({3, 6});
  ExactDecoder d(m);
  EXPECT_EQ(d.step(0), (std::vector<double>{2, 7, -5}));
}

TEST(ExactDecoder, MatchesAnIndependentDoubleForwardOverSeveralPositions) {
  // Covers RoPE (identity at position 0, the rotation at later ones), KV slots, GQA, SwiGLU.
  const DecoderModel m = random_decoder_model(small_config(), 7, {.norm_std = 0.1, .matrix_std = 0.3});
  ExactDecoder exact(m);
  NaiveDecoder naive(m);
  const std::int64_t tokens[] = {3, 17, 17, 39, 0};
  for (std::int64_t t : tokens) {
    const std::vector<double> a = exact.step(t), b = naive.step(t);
    EXPECT_LT(max_abs_diff(a, b), kNaiveTolerance) << "position " << exact.position() - 1;
  }
}

TEST(ExactDecoder, GqaMapsQueryHeadToHeadOverGroupSize) {
  // Query head h reads KV head h / (Hq/Hkv); h mod Hkv differs for heads 1 and 2 of 4 over 2,
  // and with KV heads that differ it gives other logits.
  const DecoderModel m = random_decoder_model(small_config(), 11, {.norm_std = 0.1, .matrix_std = 0.3});
  ExactDecoder exact(m);
  NaiveDecoder right(m), wrong(m, NaiveDecoder::modulo);
  for (std::int64_t t : {5, 9, 21}) {
    const std::vector<double> a = exact.step(t), b = right.step(t), c = wrong.step(t);
    EXPECT_LT(max_abs_diff(a, b), kNaiveTolerance);
    if (exact.position() > 1) {
      EXPECT_GT(max_abs_diff(a, c), 0x1p-12) << "position " << exact.position() - 1;
    }
  }
}

TEST(ExactDecoder, RopeRotatesQueryAndKeyAtTheirPositions) {
  // Scores depend on the position difference only, so a forward whose keys are rotated one
  // position late (q·k_j at p − j − 1) gives other logits from position 1 on; at position 0 (one
  // slot) it cannot show.
  const DecoderModel m = random_decoder_model(small_config(), 13, {.norm_std = 0.1, .matrix_std = 0.3});
  ExactDecoder exact(m);
  NaiveDecoder late(m);
  late.k_offset = 1;
  EXPECT_LT(max_abs_diff(exact.step(4), late.step(4)), kNaiveTolerance);
  EXPECT_GT(max_abs_diff(exact.step(8), late.step(8)), 0x1p-12);
}

TEST(ExactDecoder, Llama3FrequenciesAgreeWithTheDoubleRule) {
  // orig 64 puts wavelengths of D = 16, θ = 10000 in all three llama3 bands.
  DecoderConfig c = small_config();
  c.head_dim = 16;
  c.rope_theta = 10000;
  c.rope_scaling = Llama3RopeScaling{8.0, 1.0, 4.0, 64};
  const DecoderModel m = random_decoder_model(c, 17, {.norm_std = 0.1, .matrix_std = 0.3});
  const std::vector<double> w = rope_inverse_frequencies(c);
  int bands[3] = {0, 0, 0};
  for (double f : w) {
    const double lambda = 2 * 3.141592653589793 / f;
    ++bands[lambda < 16 ? 0 : lambda > 64 ? 2 : 1];
  }
  EXPECT_GT(bands[0], 0);
  EXPECT_GT(bands[1], 0);
  EXPECT_GT(bands[2], 0);
  ExactDecoder exact(m);
  NaiveDecoder naive(m);
  for (std::int64_t t : {1, 2, 3, 30, 31})
    EXPECT_LT(max_abs_diff(exact.step(t), naive.step(t)), kNaiveTolerance);
}

TEST(ExactDecoder, NanWeightGivesNanLogitsAndNoToken) {
  DecoderModel m = random_decoder_model(small_config(), 19);
  m.weights.layers[0].q_proj[5] = 0x7FC0;  // NaN reaches every score, hence every output
  ExactDecoder d(m);
  const std::vector<double> logits = d.step(1);
  for (double l : logits) EXPECT_TRUE(std::isnan(l));
  EXPECT_EQ(greedy_token(logits), -1);

  DecoderModel one = random_decoder_model(small_config(), 19);
  one.weights.embed_tokens[7 * 32 + 3] = 0xFFC0;  // tied: row 7 of the LM head
  ExactDecoder e(one);
  const std::vector<double> l2 = e.step(1);  // token 1's embedding is finite
  for (std::size_t i = 0; i < l2.size(); ++i) EXPECT_EQ(std::isnan(l2[i]), i == 7) << i;
  EXPECT_EQ(greedy_token(l2), -1);
}

TEST(ExactDecoder, DuplicatedHeadRowsGiveEqualLogitsAndTheLowerToken) {
  const DecoderModel m = random_decoder_model(small_config(), 23, {.duplicate_lm_head_rows = true});
  ExactDecoder d(m);
  const std::vector<double> logits = d.step(2);
  for (std::size_t i = 0; i + 1 < logits.size(); i += 2) EXPECT_EQ(logits[i], logits[i + 1]) << i;
  EXPECT_EQ(greedy_token(logits) % 2, 0);
}

TEST(ExactDecoder, Precision128And256AgreeWithinTheStatedBound) {
  const DecoderModel m = random_decoder_model(decoder_preset("tiny"), 29);
  ExactDecoder lo(m, 128), hi(m, 256);
  const auto start = std::chrono::steady_clock::now();
  double worst = 0;  // largest |difference| in units of the summed stated bounds
  for (std::int64_t t : {1, 500, 999, 2, 2, 77, 640, 13}) {
    const std::vector<double> a = lo.step(t), b = hi.step(t);
    for (std::size_t i = 0; i < a.size(); ++i) {
      const double allowed = exact_logit_error(a[i]) + exact_logit_error(b[i]);
      worst = std::max(worst, std::fabs(a[i] - b[i]) / allowed);
      ASSERT_LE(std::fabs(a[i] - b[i]), allowed) << "logit " << i << " position " << lo.position() - 1;
      ASSERT_LT(hi.radii()[i], lo.radii()[i]);
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  double max_radius = 0;
  for (double r : lo.radii()) max_radius = std::max(max_radius, r);
  std::printf("tiny preset, 8 positions at 128 and 256 bits: %.2f s; worst |d|/bound %.3g; "
              "max radius at 128 bits 2^%.1f\n", seconds, worst, std::log2(max_radius));
}

TEST(ExactDecoder, RefusesAPrecisionTooLowForTheStatedBound) {
  // At 64 bits the radii (~2^-60) exceed 2^-70·(1 + |logit|): step refuses instead of
  // returning logits without the stated accuracy.
  const DecoderModel m = random_decoder_model(small_config(), 31);
  ExactDecoder d(m, 64);
  try {
    d.step(0);
    FAIL() << "no error at 64 bits";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("raise precision_bits"), std::string::npos) << e.what();
  }
}

TEST(ExactDecoder, RefusesBadTokensAndPrecisions) {
  const DecoderModel m = random_decoder_model(small_config(), 37);
  ExactDecoder d(m);
  EXPECT_THROW(d.step(-1), std::invalid_argument);
  EXPECT_THROW(d.step(40), std::invalid_argument);
  EXPECT_THROW(ExactDecoder(m, 32), std::invalid_argument);
  DecoderModel bad = m;
  bad.weights.norm.pop_back();
  EXPECT_THROW(ExactDecoder{bad}, ModelFileError);
}

TEST(GreedyToken, LowestIndexOnTiesNanGivesMinusOne) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(greedy_token(std::vector<double>{1, 3, 3, 2}), 1);
  EXPECT_EQ(greedy_token(std::vector<double>{-inf, -inf}), 0);
  EXPECT_EQ(greedy_token(std::vector<double>{-1, inf, inf}), 1);
  EXPECT_EQ(greedy_token(std::vector<double>{5, 1, std::nan("")}), -1);
  EXPECT_EQ(greedy_token(std::vector<double>{0.0, -0.0}), 0);
  EXPECT_THROW(greedy_token(std::vector<double>{}), std::invalid_argument);
}

}  // namespace
}  // namespace cdna::reference
