#include "reference/decode/rope.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>

namespace cdna::reference {

std::vector<double> rope_inverse_frequencies(const DecoderConfig& config) {
  const std::int64_t d = config.head_dim;
  if (d < 2 || d % 2 != 0)
    throw std::invalid_argument("head_dim " + std::to_string(d) + " must be even and >= 2");
  std::vector<double> w(static_cast<std::size_t>(d / 2));
  for (std::int64_t i = 0; i < d / 2; ++i)
    w[static_cast<std::size_t>(i)] =
        std::pow(config.rope_theta, -static_cast<double>(2 * i) / static_cast<double>(d));
  if (!config.rope_scaling) return w;
  const Llama3RopeScaling& s = *config.rope_scaling;
  const double orig = static_cast<double>(s.original_max_position_embeddings);
  const double low_wavelen = orig / s.low_freq_factor;
  const double high_wavelen = orig / s.high_freq_factor;
  for (double& f : w) {
    const double wavelen = 2.0 * std::numbers::pi / f;
    if (wavelen < high_wavelen) continue;
    if (wavelen > low_wavelen) {
      f /= s.factor;
      continue;
    }
    const double smooth = (orig / wavelen - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor);
    f = (1.0 - smooth) * f / s.factor + smooth * f;
  }
  return w;
}

RopeTable rope_table(const DecoderConfig& config, std::int64_t positions) {
  if (positions < 0 || positions > (std::int64_t{1} << 20))
    throw std::invalid_argument("RoPE table positions " + std::to_string(positions) +
                                " outside [0, 2^20]");
  const std::vector<double> w = rope_inverse_frequencies(config);
  RopeTable t;
  t.positions = positions;
  t.half_dim = static_cast<std::int64_t>(w.size());
  t.cos.resize(static_cast<std::size_t>(positions) * w.size());
  t.sin.resize(t.cos.size());
  for (std::int64_t p = 0; p < positions; ++p)
    for (std::size_t i = 0; i < w.size(); ++i) {
      const double a = static_cast<double>(p) * w[i];
      t.cos[static_cast<std::size_t>(p) * w.size() + i] = static_cast<float>(std::cos(a));
      t.sin[static_cast<std::size_t>(p) * w.size() + i] = static_cast<float>(std::sin(a));
    }
  return t;
}

}  // namespace cdna::reference
