#include "reference/decode_envelope.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <span>
#include <stdexcept>
#include <string>

#include "reference/decode_ball.hpp"
#include "reference/decode_rope.hpp"

namespace cdna::reference {

using ball::Ball;

double storage_unit_roundoff(const Storage& storage) {
  switch (storage.format) {
    case StorageFormat::exact: return 0.0;
    case StorageFormat::fp32: return 0x1p-24;
    case StorageFormat::bf16: return storage.mode == numerics::Rounding::RTZ ? 0x1p-7 : 0x1p-8;
  }
  return 0.0;
}

DecodeArithmetic monokernel_arithmetic(numerics::Rounding kv_mode) {
  DecodeArithmetic a;
  a.kv_cache = {StorageFormat::bf16, kv_mode};
  a.activations = {StorageFormat::fp32, numerics::Rounding::RTNE};
  a.accumulation_u = 0x1p-24;
  a.underflow_abs = 0x1p-126;
  a.transcendental_rel = 0x1p-23;
  a.constant_rel = 0x1p-24;
  a.rope_abs = 0x1p-24 + 0x1p-26;  // decode_rope.hpp: 2^-24·|table| + 2^-26, |table| ≤ 1
  a.rope_abs_per_position = 0.0;
  a.max_finite = 0x1p127;
  a.identical_rows_identical_logits = true;
  return a;
}

DecodeArithmetic bf16_activation_arithmetic(numerics::Rounding kv_mode,
                                            numerics::Rounding activation_mode) {
  DecodeArithmetic a = monokernel_arithmetic(kv_mode);
  a.activations = {StorageFormat::bf16, activation_mode};
  return a;
}

DecodeArithmetic double_arithmetic() {
  DecodeArithmetic a;
  a.accumulation_u = 0x1p-53;
  a.underflow_abs = 0x1p-1022;
  a.transcendental_rel = 0x1p-52;
  a.constant_rel = 0x1p-52;
  a.rope_abs = 0x1p-52;                // cos/sin of the double argument, < 1 ULP
  a.rope_abs_per_position = 0x1p-47;   // argument error p·ω·2^-47 (ω ≤ 1)
  a.max_finite = 0x1p1000;
  a.identical_rows_identical_logits = true;  // the midpoint GEMV treats every row alike
  return a;
}

std::vector<std::int64_t> lm_head_tie_classes(const std::vector<std::uint16_t>& lm_head,
                                              std::int64_t vocab, std::int64_t hidden) {
  std::vector<std::int64_t> cls(static_cast<std::size_t>(vocab));
  std::map<std::vector<std::uint16_t>, std::int64_t> first;
  for (std::int64_t i = 0; i < vocab; ++i) {
    const auto* row = lm_head.data() + i * hidden;
    cls[static_cast<std::size_t>(i)] =
        first.try_emplace(std::vector<std::uint16_t>(row, row + hidden), i).first->second;
  }
  return cls;
}

namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument(what);
}

void require_size(const std::vector<std::uint16_t>& w, std::int64_t n, const std::string& name) {
  require(static_cast<std::int64_t>(w.size()) == n,
          name + " holds " + std::to_string(w.size()) + " values, expected " + std::to_string(n));
}

void validate(const DecoderModel& m) {
  const DecoderConfig& c = m.config;
  require(c.hidden_size > 0 && c.intermediate_size > 0 && c.vocab_size > 0 && c.head_dim > 0 &&
              c.head_dim % 2 == 0 && c.num_hidden_layers >= 0,
          "config: hidden_size, intermediate_size, vocab_size must be > 0, head_dim even > 0");
  require(c.num_attention_heads > 0 && c.num_key_value_heads > 0 &&
              c.num_attention_heads % c.num_key_value_heads == 0,
          "config: num_attention_heads must be a positive multiple of num_key_value_heads");
  require(c.rms_norm_eps > 0, "config: rms_norm_eps must be > 0");
  const std::int64_t h = c.hidden_size, q = c.num_attention_heads * c.head_dim;
  const std::int64_t kv = c.num_key_value_heads * c.head_dim, in = c.intermediate_size;
  require_size(m.weights.embed_tokens, c.vocab_size * h, "model.embed_tokens.weight");
  require(static_cast<std::int64_t>(m.weights.layers.size()) == c.num_hidden_layers,
          "weights hold " + std::to_string(m.weights.layers.size()) + " layers, expected " +
              std::to_string(c.num_hidden_layers));
  for (std::size_t l = 0; l < m.weights.layers.size(); ++l) {
    const DecoderLayerWeights& w = m.weights.layers[l];
    const std::string p = "model.layers." + std::to_string(l) + ".";
    require_size(w.input_layernorm, h, p + "input_layernorm.weight");
    require_size(w.q_proj, q * h, p + "self_attn.q_proj.weight");
    require_size(w.k_proj, kv * h, p + "self_attn.k_proj.weight");
    require_size(w.v_proj, kv * h, p + "self_attn.v_proj.weight");
    require_size(w.o_proj, h * q, p + "self_attn.o_proj.weight");
    require_size(w.post_attention_layernorm, h, p + "post_attention_layernorm.weight");
    require_size(w.gate_proj, in * h, p + "mlp.gate_proj.weight");
    require_size(w.up_proj, in * h, p + "mlp.up_proj.weight");
    require_size(w.down_proj, h * in, p + "mlp.down_proj.weight");
  }
  require_size(m.weights.norm, h, "model.norm.weight");
  require_size(m.weights.lm_head_matrix(c), c.vocab_size * h,
               c.tie_word_embeddings ? "model.embed_tokens.weight (tied LM head)" : "lm_head.weight");
}

Ball embedding(const DecoderModel& m, std::int64_t token) {
  const std::int64_t h = m.config.hidden_size;
  Ball x{Eigen::VectorXd(h), Eigen::VectorXd::Zero(h)};
  for (std::int64_t i = 0; i < h; ++i) {
    const std::uint32_t u = static_cast<std::uint32_t>(m.weights.embed_tokens[token * h + i]) << 16;
    float f;
    std::memcpy(&f, &u, sizeof f);
    x.mid(i) = f;  // bf16 -> double exactly
  }
  return x;
}

}  // namespace

DecodeEnvelope::DecodeEnvelope(const DecoderModel& model, DecodeArithmetic arithmetic)
    : model_(model), arithmetic_(arithmetic) {
  validate(model);
  rope_omega_ = rope_inverse_frequencies(model.config);
  cache_.resize(static_cast<std::size_t>(model.config.num_hidden_layers));
  tie_class_ = std::make_shared<const std::vector<std::int64_t>>(lm_head_tie_classes(
      model.weights.lm_head_matrix(model.config), model.config.vocab_size, model.config.hidden_size));
}

StepBounds DecodeEnvelope::step(std::int64_t token) {
  const DecoderConfig& c = model_.config;
  const DecodeArithmetic& a = arithmetic_;
  if (token < 0 || token >= c.vocab_size)
    throw std::out_of_range("token " + std::to_string(token) + " outside [0, vocab_size " +
                            std::to_string(c.vocab_size) + ")");
  if (position_ >= c.max_position_embeddings)
    throw std::out_of_range("position " + std::to_string(position_) +
                            " reaches max_position_embeddings " +
                            std::to_string(c.max_position_embeddings));
  const std::int64_t h = c.hidden_size, d = c.head_dim, hq = c.num_attention_heads;
  const std::int64_t hkv = c.num_key_value_heads, in = c.intermediate_size, p = position_;
  bool overflow = false;
  Ball x = embedding(model_, token);
  ball::store(x, a.activations, a);
  for (std::size_t l = 0; l < cache_.size(); ++l) {
    const DecoderLayerWeights& w = model_.weights.layers[l];
    Ball hn = ball::rms_norm(x, w.input_layernorm, c.rms_norm_eps, a);
    ball::store(hn, a.activations, a);
    Ball q = ball::gemv(w.q_proj, hq * d, h, hn, a, overflow);
    Ball k = ball::gemv(w.k_proj, hkv * d, h, hn, a, overflow);
    Ball v = ball::gemv(w.v_proj, hkv * d, h, hn, a, overflow);
    for (Ball* t : {&q, &k, &v}) ball::store(*t, a.activations, a);
    for (std::int64_t i = 0; i < hq; ++i) ball::rope(q, i * d, d, p, rope_omega_, a);
    for (std::int64_t i = 0; i < hkv; ++i) ball::rope(k, i * d, d, p, rope_omega_, a);
    ball::store(q, a.activations, a);
    ball::store(k, a.kv_cache, a);
    ball::store(v, a.kv_cache, a);
    LayerCache& kc = cache_[l];
    kc.k_mid.insert(kc.k_mid.end(), k.mid.begin(), k.mid.end());
    kc.k_rad.insert(kc.k_rad.end(), k.rad.begin(), k.rad.end());
    kc.v_mid.insert(kc.v_mid.end(), v.mid.begin(), v.mid.end());
    kc.v_rad.insert(kc.v_rad.end(), v.rad.begin(), v.rad.end());
    Ball o{Eigen::VectorXd(hq * d), Eigen::VectorXd(hq * d)};
    for (std::int64_t i = 0; i < hq; ++i) {
      const std::int64_t g = i / (hq / hkv), stride = hkv * d;
      const ball::HeadCache hc{kc.k_mid.data() + g * d, kc.k_rad.data() + g * d,
                               kc.v_mid.data() + g * d, kc.v_rad.data() + g * d, stride, p + 1};
      ball::attention_head(q, i * d, d, hc, a, o, i * d, overflow);
    }
    ball::store(o, a.activations, a);
    Ball y = ball::gemv(w.o_proj, h, hq * d, o, a, overflow);
    ball::store(y, a.activations, a);
    x = ball::add(x, y, a);
    ball::store(x, a.activations, a);
    hn = ball::rms_norm(x, w.post_attention_layernorm, c.rms_norm_eps, a);
    ball::store(hn, a.activations, a);
    Ball gate = ball::gemv(w.gate_proj, in, h, hn, a, overflow);
    Ball up = ball::gemv(w.up_proj, in, h, hn, a, overflow);
    ball::store(gate, a.activations, a);
    ball::store(up, a.activations, a);
    Ball act = ball::silu_mul(gate, up, a);
    ball::store(act, a.activations, a);
    y = ball::gemv(w.down_proj, h, in, act, a, overflow);
    ball::store(y, a.activations, a);
    x = ball::add(x, y, a);
    ball::store(x, a.activations, a);
    for (const Ball* t : {&x, &q, &k, &v, &o, &act}) ball::check_range(*t, a, overflow);
  }
  Ball hn = ball::rms_norm(x, model_.weights.norm, c.rms_norm_eps, a);
  ball::store(hn, a.activations, a);
  Ball logits = ball::gemv(model_.weights.lm_head_matrix(c), c.vocab_size, h, hn, a, overflow);
  ball::store(logits, a.activations, a);
  ball::check_range(logits, a, overflow);
  ++position_;
  StepBounds out;
  out.position = p;
  out.token = token;
  out.mid.assign(logits.mid.begin(), logits.mid.end());
  out.rad.assign(logits.rad.begin(), logits.rad.end());
  // A NaN radius with a finite midpoint comes from inf − inf inside the radius computation
  // (a ball that has overflowed), not from the definition: +inf. NaN stays only with a NaN
  // midpoint (a NaN or inf weight on the logit's path).
  constexpr double kInf = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < out.rad.size(); ++i) {
    if (std::isnan(out.mid[i]))
      out.rad[i] = out.mid[i];
    else if (overflow || std::isnan(out.rad[i]))
      out.rad[i] = kInf;
  }
  out.tie_class = tie_class_;
  out.identical_rows_identical_logits = a.identical_rows_identical_logits;
  return out;
}

}  // namespace cdna::reference
