#include "reference/decode/envelope.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <span>
#include <stdexcept>
#include <string>

#include "reference/decode/affine.hpp"
#include "reference/decode/ball.hpp"
#include "reference/decode/config.hpp"
#include "reference/decode/layer.hpp"
#include "reference/decode/rope.hpp"

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

DecodeEnvelope::DecodeEnvelope(const DecoderModel& model, DecodeArithmetic arithmetic,
                               EnvelopeMethod method)
    : model_(model), arithmetic_(arithmetic), method_(method) {
  validate_decoder_model(model, "decode envelope");
  rope_omega_ = rope_inverse_frequencies(model.config);
  cache_.resize(static_cast<std::size_t>(model.config.num_hidden_layers));
  tie_class_ = std::make_shared<const std::vector<std::int64_t>>(lm_head_tie_classes(
      model.weights.lm_head_matrix(model.config), model.config.vocab_size, model.config.hidden_size));
}

// One position of §1 over value type V (Ball or Affine); returns the logits as a ball.
template <class V>
Ball DecodeEnvelope::forward(std::int64_t token, bool& overflow) {
  const DecoderConfig& c = model_.config;
  const DecodeArithmetic& a = arithmetic_;
  const std::int64_t h = c.hidden_size, p = position_;
  Eigen::Index symbols = 0;
  V x;
  convert(embedding(model_, token), x);
  store(x, a.activations, a);
  for (std::size_t l = 0; l < cache_.size(); ++l) {
    LayerCache& kc = cache_[l];
    // An overflow earlier in this step (this layer's k and v included) leaves the kernel's K/V
    // of this slot unknown: infinite radii, so every later position reading them claims nothing
    // either (decode-bounds.md §2, "Overflow").
    const KvSlot slot = [&kc](const Ball& k, const Ball& v, bool of) {
      const double r = std::numeric_limits<double>::infinity();
      kc.k_mid.insert(kc.k_mid.end(), k.mid.begin(), k.mid.end());
      kc.v_mid.insert(kc.v_mid.end(), v.mid.begin(), v.mid.end());
      if (of) {
        kc.k_rad.insert(kc.k_rad.end(), static_cast<std::size_t>(k.size()), r);
        kc.v_rad.insert(kc.v_rad.end(), static_cast<std::size_t>(v.size()), r);
      } else {
        kc.k_rad.insert(kc.k_rad.end(), k.rad.begin(), k.rad.end());
        kc.v_rad.insert(kc.v_rad.end(), v.rad.begin(), v.rad.end());
      }
      return KvRows{kc.k_mid.data(), kc.k_rad.data(), kc.v_mid.data(), kc.v_rad.data()};
    };
    x = layer_forward(model_, static_cast<std::int64_t>(l), p, rope_omega_, a, x, slot, overflow, symbols);
  }
  V hn = rms_norm(x, model_.weights.norm, c.rms_norm_eps, a, overflow);
  store(hn, a.activations, a);
    check_range(hn, a, overflow);  // g_i·x_i·ρ may reach max_finite with a large g_i
  make_symbols(hn, symbols);
  V logits = gemv(model_.weights.lm_head_matrix(c), c.vocab_size, h, hn, a, overflow);
  store(logits, a.activations, a);
  check_range(logits, a, overflow);
  return boxed(logits);
}

StepBounds DecodeEnvelope::step(std::int64_t token) {
  const DecoderConfig& c = model_.config;
  if (token < 0 || token >= c.vocab_size)
    throw std::out_of_range("token " + std::to_string(token) + " outside [0, vocab_size " +
                            std::to_string(c.vocab_size) + ")");
  if (position_ >= c.max_position_embeddings)
    throw std::out_of_range("position " + std::to_string(position_) +
                            " reaches max_position_embeddings " +
                            std::to_string(c.max_position_embeddings));
  const std::int64_t p = position_;
  bool overflow = false;
  const Ball logits = method_ == EnvelopeMethod::affine ? forward<affine::Affine>(token, overflow)
                                                        : forward<Ball>(token, overflow);
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
  out.identical_rows_identical_logits = arithmetic_.identical_rows_identical_logits;
  return out;
}

}  // namespace cdna::reference
