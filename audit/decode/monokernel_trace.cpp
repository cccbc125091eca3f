#include "audit/decode/monokernel_trace.hpp"

#include <cstring>
#include <stdexcept>
#include <string>

namespace cdna::audit {

golden::DecodeTrace monokernel_trace(const device::DecodeLaunch& launch, const device::DecodeResult& result) {
  const reference::DecoderConfig& c = launch.model->config;
  const std::int64_t n = c.num_hidden_layers, H = c.hidden_size, V = c.vocab_size;
  const std::int64_t Hkv = c.num_key_value_heads, D = c.head_dim;
  const auto P = static_cast<std::int64_t>(launch.prompt.size());
  const auto S = static_cast<std::int64_t>(result.tokens.size());
  const std::int64_t T1 = P + S - 1;  // positions run
  if (result.hidden.empty())
    throw std::invalid_argument("monokernel trace: the run recorded no hidden states; run it with record_hidden");
  if (result.status == device::DecodeStatus::Nan)
    throw std::invalid_argument("monokernel trace: the run stopped on a NaN logit (token -1); a trace holds tokens in [0, V) only");
  if (S < 1 || result.stats.positions != T1 || std::ssize(result.logits) != T1 * V ||
      std::ssize(result.hidden) != T1 * (n + 1) * H)
    throw std::invalid_argument("monokernel trace: the run's sizes disagree with its launch (" + std::to_string(S) +
                                " tokens, " + std::to_string(result.stats.positions) + " positions for a prompt of " +
                                std::to_string(P) + ")");
  const std::int64_t slots = result.params.max_positions, half = D / 2;
  if (std::ssize(result.kv_cache) != n * Hkv * 2 * slots * half)
    throw std::invalid_argument("monokernel trace: the run's KV cache has " + std::to_string(result.kv_cache.size()) +
                                " words, its parameters need " + std::to_string(n * Hkv * 2 * slots * half));

  golden::DecodeTrace t;
  t.tokens.assign(launch.prompt.begin(), launch.prompt.end());
  t.tokens.insert(t.tokens.end(), result.tokens.begin(), result.tokens.end());
  t.prompt_length = P;
  t.vocab = V;
  t.logits.assign(result.logits.begin() + (P - 1) * V, result.logits.end());
  for (std::int64_t l = 0; l <= n; ++l) {
    std::vector<float>& h = t.hidden[l];
    h.resize(static_cast<std::size_t>(T1 * H));
    for (std::int64_t p = 0; p < T1; ++p)
      std::memcpy(h.data() + p * H, result.hidden.data() + (p * (n + 1) + l) * H, static_cast<std::size_t>(H) * sizeof(float));
  }
  auto widen = [](std::uint32_t bits16) {
    const std::uint32_t b = bits16 << 16;
    float f;
    std::memcpy(&f, &b, sizeof f);
    return f;
  };
  for (std::int64_t l = 0; l < n; ++l)
    for (int kv = 0; kv < 2; ++kv) {
      std::vector<float>& dst = (kv == 0 ? t.k : t.v)[l];
      dst.resize(static_cast<std::size_t>(T1 * Hkv * D));
      for (std::int64_t g = 0; g < Hkv; ++g) {
        const std::uint32_t* src = result.kv_cache.data() + ((l * Hkv + g) * 2 + kv) * slots * half;
        for (std::int64_t p = 0; p < T1; ++p)
          for (std::int64_t i = 0; i < half; ++i) {
            const std::uint32_t w = src[p * half + i];
            float* out = dst.data() + (p * Hkv + g) * D + 2 * i;
            out[0] = widen(w & 0xFFFFu);
            out[1] = widen(w >> 16);
          }
      }
    }
  t.metadata["prompt_length"] = std::to_string(P);
  t.metadata["producer"] = "cdna-verify decode_monokernel (device/kernels/decode_monokernel.hip)";
  t.metadata["kv_rounding"] = std::string(numerics::to_string(launch.mode));
  t.metadata["grid"] = std::to_string(launch.grid);
  return t;
}

}  // namespace cdna::audit
