#include "properties/values.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <string>

#include "numerics/bf16.hpp"
#include "reference/attention/inputs.hpp"

namespace cdna::properties {
namespace {

constexpr std::uint16_t kNaN = 0x7FC0, kPosInf = 0x7F80, kNegInf = 0xFF80;

std::uint16_t bf16_of(double x) { return reference::filled_bf16(1, x)[0]; }
double value_of(std::uint16_t bits) { return static_cast<double>(numerics::f32_from_bf16(bits)); }

std::size_t n(std::int64_t x) { return static_cast<std::size_t>(x); }

// Multiplies `channels` head-dim channels (of every row and head) of x [.., D] by `factor`.
void scale_channels(std::vector<std::uint16_t>& x, std::int64_t d, std::mt19937_64& rng, int channels,
                    double factor) {
  for (int c = 0; c < channels; ++c) {
    const auto ch = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(d));
    for (std::size_t e = n(ch); e < x.size(); e += n(d)) x[e] = bf16_of(value_of(x[e]) * factor);
  }
}

// Element `d` of key `j` of a random batch entry and KV head, in a K/V vector of shape s.
std::size_t key_element(const reference::AttentionShape& s, std::mt19937_64& rng, std::int64_t j, std::int64_t d) {
  const auto b = static_cast<std::int64_t>(rng() % n(s.batch));
  const auto h = static_cast<std::int64_t>(rng() % n(s.heads_kv));
  return n(((b * s.seqlen_k + j) * s.heads_kv + h) * s.head_dim + d);
}
// A random element of key 0 / of a random key.
std::size_t key0_element(const reference::AttentionShape& s, std::mt19937_64& rng) {
  return key_element(s, rng, 0, static_cast<std::int64_t>(rng() % n(s.head_dim)));
}
std::size_t any_key_element(const reference::AttentionShape& s, std::mt19937_64& rng) {
  const auto j = static_cast<std::int64_t>(rng() % n(s.seqlen_k));
  return key_element(s, rng, j, static_cast<std::int64_t>(rng() % n(s.head_dim)));
}

}  // namespace

std::string_view to_string(ValueKind kind) {
  switch (kind) {
    case ValueKind::Randn: return "randn";
    case ValueKind::ScaledLogits: return "scaled_logits";
    case ValueKind::Outliers: return "outlier_channels";
    case ValueKind::TiesAtMax: return "ties_at_row_max";
    case ValueKind::HugeEqual: return "huge_equal";
    case ValueKind::NonFinite: return "nonfinite_v";
    case ValueKind::NanScore: return "nan_score";
    case ValueKind::InfScore: return "inf_score";
  }
  return "?";
}

std::string fill_values(reference::AttentionProblem& p, ValueKind kind, std::uint64_t seed, int variant) {
  const auto& s = p.shape;
  const std::size_t nq = n(s.q_elements()), nkv = n(s.kv_elements());
  const std::int64_t d = s.head_dim;
  std::mt19937_64 rng(seed ^ 0x9E3779B97F4A7C15ull);
  const std::string tag = std::string(to_string(kind));
  switch (kind) {
    case ValueKind::Randn:
      reference::fill_randn(p, seed);
      return tag + ": Q, K, V = randn";
    case ValueKind::ScaledLogits: {
      const double sigma = std::array{1.0, 2.0, 4.0}[n(variant % 3)];
      reference::fill_randn(p, seed, sigma);
      return tag + ": Q, K = " + std::to_string(static_cast<int>(sigma)) + " * randn, V = randn";
    }
    case ValueKind::Outliers: {
      const double factor = variant % 2 ? 32.0 : 8.0;
      const int channels = 1 + variant % 3;
      reference::fill_randn(p, seed);
      scale_channels(p.k, d, rng, channels, factor);
      scale_channels(p.v, d, rng, channels, factor);
      return tag + ": randn, " + std::to_string(channels) + " channels of K and V x " +
             std::to_string(static_cast<int>(factor));
    }
    case ValueKind::TiesAtMax: {
      p.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(d)));
      reference::fill_randn(p, seed);
      for (auto& x : p.q) x &= 0x7FFF;  // |q|
      for (auto& x : p.k) x = bf16_of(std::clamp(value_of(x), -2.0, 2.0));
      const std::int64_t rows = s.batch * s.seqlen_k * s.heads_kv;
      int tied = 0;
      for (std::int64_t r = 0; r < rows; ++r) {
        if (rng() % 3 != 0) continue;  // about a third of the keys tie
        ++tied;
        std::fill_n(p.k.begin() + r * d, d, bf16_of(2.0));
      }
      return tag + ": Q = |randn|, K clamped to [-2, 2], " + std::to_string(tied) +
             " key rows = 2 (tied maxima), V = randn";
    }
    case ValueKind::HugeEqual: {
      p.q.assign(nq, bf16_of(64.0)), p.k.assign(nkv, bf16_of(64.0));
      const double v = variant % 2 ? std::ldexp(1.5, 100) : -3.0;
      p.v.assign(nkv, bf16_of(v));
      return tag + ": Q = K = 64 (all scores equal, |s| = 4096*D*scale), V = " +
             (variant % 2 ? std::string("1.5*2^100") : std::string("-3"));
    }
    case ValueKind::NonFinite: {
      reference::fill_randn(p, seed);
      if (s.seqlen_k == 0 || s.batch == 0) return tag + ": randn (no key to poison)";
      const std::size_t e = any_key_element(s, rng);
      const std::uint16_t bad = std::array{kNaN, kPosInf, kNegInf}[n(variant % 3)];
      p.v[e] = bad;
      return tag + ": randn, V element " + std::to_string(e) + " = " +
             (bad == kNaN ? "NaN" : bad == kPosInf ? "+inf" : "-inf");
    }
    case ValueKind::NanScore: {
      reference::fill_randn(p, seed);
      if (p.mask == reference::Mask::None && variant % 2 && s.seqlen_k > 0 && s.batch > 0) {
        const std::size_t e = key0_element(s, rng);
        p.k[e] = kNaN;
        return tag + ": randn, K element " + std::to_string(e) + " (key 0) = NaN";
      }
      if (nq == 0) return tag + ": randn (no query to poison)";
      const std::size_t e = rng() % nq;
      p.q[e] = kNaN;
      return tag + ": randn, Q element " + std::to_string(e) + " = NaN";
    }
    case ValueKind::InfScore: {
      reference::fill_randn(p, seed);
      // The sign that makes the score +inf (-inf times a negative scale); scale 0 gives NaN.
      const bool negative = std::signbit(p.scale);
      const std::uint16_t inf = negative ? kNegInf : kPosInf;
      const std::string name = negative ? "-inf" : "+inf";
      if (variant % 3 == 2 || s.seqlen_k == 0 || s.batch == 0) {
        if (nq == 0) return tag + ": randn (no query to poison)";
        const std::size_t e = rng() % nq;
        p.q[e] = inf;  // that query's scores: +inf where K > 0, -inf where K < 0
        return tag + ": randn, Q element " + std::to_string(e) + " = " + name;
      }
      // One key, or two keys, in channel ch where every query is made >= 0: every row that
      // sees such a key scores it +inf (one or two +inf scores per row).
      const auto ch = static_cast<std::int64_t>(rng() % n(d));
      for (std::size_t e = n(ch); e < nq; e += n(d)) p.q[e] &= 0x7FFF;
      std::string what;
      for (int k = 0; k < 1 + variant % 3; ++k) {
        const std::size_t e = key_element(s, rng, static_cast<std::int64_t>(rng() % n(s.seqlen_k)), ch);
        p.k[e] = inf;
        what += (what.empty() ? "" : ", ") + std::to_string(e);
      }
      return tag + ": randn, Q channel " + std::to_string(ch) + " = |randn|, K element(s) " + what + " = " + name;
    }
  }
  return tag;
}

}  // namespace cdna::properties
