#include "reference/decode/exact.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>

#include "numerics/bf16.hpp"
#include "reference/decode/config.hpp"
#include "reference/common/mp_ball.hpp"
#include "reference/common/mpfr_range.hpp"

namespace cdna::reference {

using ball::Ball;
using ball::BallCRef;
using ball::BallRef;
using ball::MpBalls;

namespace {

constexpr double kRadiusLimit = 0x1p-70;  // step refuses radii above kRadiusLimit·(1 + |logit|)

double bf16_value(std::uint16_t bits) { return numerics::f32_from_bf16(bits); }

[[noreturn]] void raise_precision(const std::string& what, unsigned p) {
  throw std::runtime_error("ExactDecoder: " + what + " at " + std::to_string(p) + " bits; raise precision_bits");
}

}  // namespace

struct ExactDecoder::State {
  const DecoderModel* model;
  mpfr_prec_t prec;
  unsigned threads;
  std::int64_t position = 0;
  std::vector<double> radii;
  MpBalls omega;          // ω_i, i < D/2
  Ball inv_sqrt_d;        // 1/√D
  Ball one;               // 1, exact
  std::vector<std::vector<MpBalls>> k_cache, v_cache;  // [layer][slot] -> Hkv·D balls

  State(const DecoderModel& m, unsigned p, unsigned t)
      : model(&m),
        prec(p),
        threads(t != 0 ? t : std::max(1u, std::thread::hardware_concurrency())),
        omega(static_cast<std::size_t>(m.config.head_dim / 2), p),
        inv_sqrt_d(p),
        one(p, 1.0),
        k_cache(static_cast<std::size_t>(m.config.num_hidden_layers)),
        v_cache(k_cache.size()) {}

  std::size_t n(std::int64_t v) const { return static_cast<std::size_t>(v); }

  Ball exact(double v) const { return Ball(prec, v); }

  // ω_i = θ^(−2i/D) = exp(−(2i/D)·log θ), then the llama3 rule (decode-semantics.md §1).
  void compute_frequencies() {
    const DecoderConfig& c = model->config;
    Ball log_theta(prec), e(prec), f(prec);
    ball::log_of(log_theta, c.rope_theta);
    for (std::size_t i = 0; i < omega.size(); ++i) {
      ball::mul(e, log_theta, exact(2.0 * static_cast<double>(i)));
      ball::div(f, e, exact(static_cast<double>(c.head_dim)));
      ball::neg(e, f);
      ball::exp(omega[i], e);
      if (c.rope_scaling) apply_llama3(omega[i], i);
    }
    ball::rec_sqrt(inv_sqrt_d, exact(static_cast<double>(c.head_dim)));
  }

  // Wavelength λ = 2π/ω: below orig/high keep ω; above orig/low ω/factor; between,
  // (1 − s)·ω/factor + s·ω with s = (orig/λ − low)/(high − low).
  void apply_llama3(BallRef w, std::size_t i) {
    const Llama3RopeScaling& s = *model->config.rope_scaling;
    const Ball orig = exact(static_cast<double>(s.original_max_position_embeddings));
    Ball two_pi(prec), lambda(prec), hi_wave(prec), lo_wave(prec);
    ball::pi(two_pi);
    ball::mul(two_pi, two_pi, exact(2.0));
    ball::div(lambda, two_pi, w);
    ball::div(hi_wave, orig, exact(s.high_freq_factor));
    ball::div(lo_wave, orig, exact(s.low_freq_factor));
    const int vs_hi = ball::compare(lambda, hi_wave), vs_lo = ball::compare(lambda, lo_wave);
    if (vs_hi == 0 || vs_lo == 0)
      raise_precision("RoPE wavelength " + std::to_string(i) + " too close to a llama3 threshold", static_cast<unsigned>(prec));
    if (vs_hi < 0) return;
    Ball scaled(prec);
    ball::div(scaled, w, exact(s.factor));
    if (vs_lo > 0) {
      ball::copy(w, scaled);
      return;
    }
    Ball smooth(prec), t(prec), width(prec), a(prec), b(prec);
    ball::div(t, orig, lambda);
    ball::sub(smooth, t, exact(s.low_freq_factor));
    ball::sub(width, exact(s.high_freq_factor), exact(s.low_freq_factor));
    ball::div(smooth, smooth, width);
    ball::sub(t, one, smooth);
    ball::mul(a, t, scaled);
    ball::mul(b, smooth, w);
    ball::add(w, a, b);
  }

  // RMSNorm(x) ⊙ g: x_i / sqrt(mean(x²) + eps) · g_i.
  MpBalls rms_norm(const MpBalls& x, const std::vector<std::uint16_t>& g) const {
    Ball ss(prec), mean(prec), inv(prec), t(prec), gi(prec);
    ball::dot(ss, x.size(), [&](std::size_t j) { return x[j]; }, [&](std::size_t j) { return x[j]; });
    ball::div(mean, ss, exact(static_cast<double>(x.size())));
    ball::add(mean, mean, exact(model->config.rms_norm_eps));
    ball::rec_sqrt(inv, mean);
    MpBalls out(x.size(), prec);
    for (std::size_t j = 0; j < x.size(); ++j) {
      ball::mul(t, x[j], inv);
      ball::set_exact(gi, bf16_value(g[j]));
      ball::mul(out[j], t, gi);
    }
    return out;
  }

  MpBalls gemv(const std::vector<std::uint16_t>& w, std::int64_t rows, const MpBalls& x) const {
    MpBalls y(n(rows), prec);
    ball::gemv(y, x, w, threads);
    return y;
  }

  // RoPE at the current position on `heads` heads of D (rotate_half pairs i, i + D/2).
  void rope(MpBalls& v, std::int64_t heads, const MpBalls& cos, const MpBalls& sin) const {
    const std::size_t d = n(model->config.head_dim), half = d / 2;
    Ball t1(prec), t2(prec), a(prec), b(prec);
    for (std::size_t h = 0; h < n(heads); ++h)
      for (std::size_t i = 0; i < half; ++i) {
        const BallRef x = v[h * d + i], y = v[h * d + i + half];
        ball::mul(t1, x, cos[i]);
        ball::mul(t2, y, sin[i]);
        ball::sub(a, t1, t2);
        ball::mul(t1, y, cos[i]);
        ball::mul(t2, x, sin[i]);
        ball::add(b, t1, t2);
        ball::copy(x, a);
        ball::copy(y, b);
      }
  }

  // o_h = Σ_j softmax_j(q_h·k_j/√D) v_j over the slots of layer l, KV head h / (Hq/Hkv).
  MpBalls attention(std::size_t l, const MpBalls& q) const {
    const DecoderConfig& c = model->config;
    const std::size_t d = n(c.head_dim), group = n(c.num_attention_heads / c.num_key_value_heads);
    const std::vector<MpBalls>& ks = k_cache[l];
    const std::vector<MpBalls>& vs = v_cache[l];
    const std::size_t slots = ks.size();
    MpBalls o(q.size(), prec), w(slots, prec);
    Ball dotv(prec), shift(prec), t(prec), z(prec);
    for (std::size_t h = 0; h < n(c.num_attention_heads); ++h) {
      const std::size_t kv = (h / group) * d;
      std::size_t top = 0;
      for (std::size_t j = 0; j < slots; ++j) {
        ball::dot(dotv, d, [&](std::size_t e) { return q[h * d + e]; }, [&](std::size_t e) { return ks[j][kv + e]; });
        ball::mul(w[j], dotv, inv_sqrt_d);
        if (mpfr_cmp(w[j].m, w[top].m) > 0) top = j;
      }
      // Softmax is invariant under any exact shift: subtract the largest midpoint (exact, r = 0).
      mpfr_set(static_cast<BallRef>(shift).m, w[top].m, MPFR_RNDN);
      for (std::size_t j = 0; j < slots; ++j) {
        ball::sub(t, w[j], shift);
        ball::exp(w[j], t);
      }
      ball::dot(z, slots, [&](std::size_t j) { return w[j]; }, [&](std::size_t) { return BallCRef(one); });
      for (std::size_t e = 0; e < d; ++e) {
        ball::dot(dotv, slots, [&](std::size_t j) { return w[j]; }, [&](std::size_t j) { return vs[j][kv + e]; });
        ball::div(o[h * d + e], dotv, z);
      }
    }
    return o;
  }

  void add_into(MpBalls& x, const MpBalls& y) const {
    for (std::size_t j = 0; j < x.size(); ++j) ball::add(x[j], x[j], y[j]);
  }

  // silu(g)·u with silu(z) = z/(1 + e^−z).
  MpBalls swiglu(const MpBalls& gate, const MpBalls& up) const {
    MpBalls out(gate.size(), prec);
    Ball t(prec), e(prec), s(prec);
    for (std::size_t j = 0; j < gate.size(); ++j) {
      ball::neg(t, gate[j]);
      ball::exp(e, t);
      ball::add(t, e, one);
      ball::div(s, gate[j], t);
      ball::mul(out[j], s, up[j]);
    }
    return out;
  }

  void layer(std::size_t l, MpBalls& x, const MpBalls& cos, const MpBalls& sin) {
    const DecoderConfig& c = model->config;
    const DecoderLayerWeights& w = model->weights.layers[l];
    const std::int64_t q_rows = c.num_attention_heads * c.head_dim, kv_rows = c.num_key_value_heads * c.head_dim;
    MpBalls h = rms_norm(x, w.input_layernorm);
    MpBalls q = gemv(w.q_proj, q_rows, h), k = gemv(w.k_proj, kv_rows, h);
    rope(q, c.num_attention_heads, cos, sin);
    rope(k, c.num_key_value_heads, cos, sin);
    k_cache[l].push_back(std::move(k));
    v_cache[l].push_back(gemv(w.v_proj, kv_rows, h));
    add_into(x, gemv(w.o_proj, c.hidden_size, attention(l, q)));
    h = rms_norm(x, w.post_attention_layernorm);
    const MpBalls act = swiglu(gemv(w.gate_proj, c.intermediate_size, h), gemv(w.up_proj, c.intermediate_size, h));
    add_into(x, gemv(w.down_proj, c.hidden_size, act));
  }

  std::vector<double> round_logits(const MpBalls& logits) {
    std::vector<double> out(logits.size());
    radii.assign(logits.size(), 0.0);
    for (std::size_t i = 0; i < logits.size(); ++i) {
      out[i] = mpfr_get_d(logits[i].m, MPFR_RNDN);
      radii[i] = logits[i].r;
      if (!mpfr_number_p(logits[i].m)) continue;
      const double limit = ball::down(kRadiusLimit * ball::down(1.0 + ball::abs_down(logits[i].m)));
      if (!(logits[i].r <= limit))
        raise_precision("logit " + std::to_string(i) + " at position " + std::to_string(position) +
                            " has certified radius " + std::to_string(logits[i].r) + " > 2^-70·(1 + |logit|)",
                        static_cast<unsigned>(prec));
    }
    return out;
  }
};

ExactDecoder::ExactDecoder(const DecoderModel& model, unsigned precision_bits, unsigned threads) {
  validate_decoder_model(model, "ExactDecoder model");
  if (precision_bits < 64 || precision_bits > 4096)
    throw std::invalid_argument("ExactDecoder: precision_bits " + std::to_string(precision_bits) + " outside [64, 4096]");
  ExponentRangeGuard range;
  s_ = std::make_unique<State>(model, precision_bits, threads);
  s_->compute_frequencies();
}

ExactDecoder::~ExactDecoder() = default;
ExactDecoder::ExactDecoder(ExactDecoder&&) noexcept = default;
ExactDecoder& ExactDecoder::operator=(ExactDecoder&&) noexcept = default;

std::int64_t ExactDecoder::position() const { return s_->position; }
const std::vector<double>& ExactDecoder::radii() const { return s_->radii; }

std::vector<double> ExactDecoder::step(std::int64_t token) {
  State& s = *s_;
  const DecoderConfig& c = s.model->config;
  if (token < 0 || token >= c.vocab_size)
    throw std::invalid_argument("ExactDecoder: token " + std::to_string(token) + " outside [0, vocab_size " +
                                std::to_string(c.vocab_size) + ")");
  if (s.position >= c.max_position_embeddings)
    throw std::invalid_argument("ExactDecoder: position " + std::to_string(s.position) + " reaches max_position_embeddings " +
                                std::to_string(c.max_position_embeddings));
  ExponentRangeGuard range;
  const std::size_t hsz = s.n(c.hidden_size);
  MpBalls x(hsz, s.prec);
  for (std::size_t j = 0; j < hsz; ++j)
    ball::set_exact(x[j], bf16_value(s.model->weights.embed_tokens[s.n(token) * hsz + j]));
  MpBalls cos(s.omega.size(), s.prec), sin(s.omega.size(), s.prec);
  Ball angle(s.prec);
  for (std::size_t i = 0; i < s.omega.size(); ++i) {
    ball::mul(angle, s.omega[i], s.exact(static_cast<double>(s.position)));
    ball::sin_cos(sin[i], cos[i], angle);
  }
  for (std::size_t l = 0; l < s.k_cache.size(); ++l) s.layer(l, x, cos, sin);
  const MpBalls h = s.rms_norm(x, s.model->weights.norm);
  std::vector<double> logits = s.round_logits(s.gemv(s.model->weights.lm_head_matrix(c), c.vocab_size, h));
  ++s.position;
  return logits;
}

double exact_logit_error(double returned_logit) { return 0x1p-52 * std::fabs(returned_logit) + 0x1p-69; }

std::int64_t greedy_token(std::span<const double> logits) {
  if (logits.empty()) throw std::invalid_argument("greedy_token: no logits");
  std::size_t best = 0;
  for (std::size_t i = 0; i < logits.size(); ++i) {
    if (std::isnan(logits[i])) return -1;
    if (logits[i] > logits[best]) best = i;
  }
  return static_cast<std::int64_t>(best);
}

}  // namespace cdna::reference
