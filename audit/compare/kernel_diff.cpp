#include "audit/compare/kernel_diff.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <stdexcept>
#include <tuple>

namespace cdna::audit {
namespace {

// The element formats compared: bits, sign mask, exponent mask (all ones: inf or NaN).
struct Bf16Format {
  using Bits = std::uint16_t;
  static constexpr std::uint32_t kSign = 0x8000, kExp = 0x7F80, kMant = 0x007F;
};
struct Fp32Format {
  using Bits = std::uint32_t;
  static constexpr std::uint32_t kSign = 0x80000000u, kExp = 0x7F800000u, kMant = 0x007FFFFFu;
};

template <class F>
bool is_nan(std::uint32_t x) { return (x & F::kExp) == F::kExp && (x & F::kMant) != 0; }
template <class F>
bool is_inf(std::uint32_t x) { return (x & F::kExp) == F::kExp && (x & F::kMant) == 0; }

template <class F>
std::int64_t order_key(std::uint32_t x) {
  const auto mag = static_cast<std::int64_t>(x & ~F::kSign);
  return (x & F::kSign) ? -mag : mag;
}

template <class F>
std::uint64_t distance(std::uint32_t a, std::uint32_t b) {
  const std::int64_t d = order_key<F>(a) - order_key<F>(b);
  return static_cast<std::uint64_t>(d < 0 ? -d : d);
}

void keep(std::vector<DiffSite>& sites, const DiffSite& s) {
  if (sites.size() < TensorDiff::kExamples) sites.push_back(s);
}

// `site(n)` gives the position of flat index n; a[n], b[n] the elements' bits.
template <class F, class Site>
TensorDiff diff_tensor(std::size_t n, const typename F::Bits* a, const typename F::Bits* b, std::uint64_t within,
                       Site site) {
  TensorDiff t;
  t.within = within;
  t.elements = static_cast<std::int64_t>(n);
  for (std::size_t k = 0; k < n; ++k) {
    const std::uint32_t x = a[k], y = b[k];
    const bool xn = is_nan<F>(x), yn = is_nan<F>(y);
    const bool x_finite = !xn && !is_inf<F>(x), y_finite = !yn && !is_inf<F>(y);
    auto at = [&] {
      DiffSite s = site(k);
      s.a_bits = x;
      s.b_bits = y;
      return s;
    };
    if (x_finite && y_finite) {
      const std::uint64_t u = distance<F>(x, y);
      ++t.finite_pairs;
      ++t.histogram[diff_bin(u)];
      if (u > t.max_ulps) {
        t.max_ulps = u;
        t.max_site = {at()};
      }
      if (u > within) {
        ++t.beyond;
        if (t.first_beyond.empty()) t.first_beyond = {at()};
      }
    } else if (xn != yn) {
      ++t.nan_vs_number;
      keep(t.nan_vs_number_sites, at());
    } else if (xn) {  // NaN in both
      if (x == y) ++t.nonfinite_agree;
      else {
        ++t.nan_bits_differ;
        keep(t.nan_bits_sites, at());
      }
    } else if (x == y) {  // the same inf
      ++t.nonfinite_agree;
    } else {  // an inf against a finite value or the other inf
      ++t.inf_mismatch;
      keep(t.inf_sites, at());
    }
  }
  return t;
}

std::string hex(std::uint32_t x, int digits) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%0*X", digits, x);
  return buf;
}

// Position of flat index k of O [B, Sq, Hq, D] and of LSE [B, Hq, Sq].
DiffSite o_site(const reference::AttentionShape& s, std::size_t k) {
  const auto n = static_cast<std::int64_t>(k);
  const std::int64_t D = s.head_dim, H = s.heads_q, Sq = s.seqlen_q;
  return DiffSite{n / (D * H * Sq), n / (D * H) % Sq, n / D % H, n % D};
}
DiffSite lse_site(const reference::AttentionShape& s, std::size_t k) {
  const auto n = static_cast<std::int64_t>(k);
  const std::int64_t H = s.heads_q, Sq = s.seqlen_q;
  return DiffSite{n / (H * Sq), n % Sq, n / Sq % H, -1};
}

std::vector<std::uint32_t> fp32_bits(std::span<const float> x) {
  std::vector<std::uint32_t> bits(x.size());
  std::transform(x.begin(), x.end(), bits.begin(), [](float v) { return std::bit_cast<std::uint32_t>(v); });
  return bits;
}

bool earlier(const DiffSite& x, const DiffSite& y) {
  return std::tie(x.b, x.i, x.h, x.d) < std::tie(y.b, y.i, y.h, y.d);
}

}  // namespace

std::uint32_t bf16_values_apart(std::uint16_t a, std::uint16_t b) {
  return static_cast<std::uint32_t>(distance<Bf16Format>(a, b));
}
std::uint64_t fp32_values_apart(std::uint32_t a, std::uint32_t b) { return distance<Fp32Format>(a, b); }

std::size_t diff_bin(std::uint64_t ulps) {
  if (ulps <= 2) return static_cast<std::size_t>(ulps);
  if (ulps <= 4) return 3;
  if (ulps <= 8) return 4;
  return 5;
}

const std::array<std::string, kDiffBins>& diff_bin_labels() {
  static const std::array<std::string, kDiffBins> labels{"0", "1", "2", "3-4", "5-8", ">8"};
  return labels;
}

std::string DiffSite::text() const {
  const bool lse = d < 0;
  std::string s = std::string(lse ? "LSE" : "O") + " (b=" + std::to_string(b) + ", i=" + std::to_string(i) +
                  ", h=" + std::to_string(h) + (lse ? "" : ", d=" + std::to_string(d)) + "): A ";
  return s + hex(a_bits, lse ? 8 : 4) + ", B " + hex(b_bits, lse ? 8 : 4);
}

std::vector<DiffSite> TensorDiff::first_nonfinite() const {
  std::vector<DiffSite> firsts;
  for (const auto* v : {&nan_vs_number_sites, &nan_bits_sites, &inf_sites})
    if (!v->empty()) firsts.push_back(v->front());
  if (firsts.empty()) return {};
  return {*std::min_element(firsts.begin(), firsts.end(), earlier)};
}

void TensorDiff::add(const TensorDiff& o) {
  elements += o.elements;
  finite_pairs += o.finite_pairs;
  for (std::size_t k = 0; k < kDiffBins; ++k) histogram[k] += o.histogram[k];
  if (o.max_ulps > max_ulps) {
    max_ulps = o.max_ulps;
    max_site = o.max_site;
  }
  nan_vs_number += o.nan_vs_number;
  nan_bits_differ += o.nan_bits_differ;
  inf_mismatch += o.inf_mismatch;
  nonfinite_agree += o.nonfinite_agree;
  beyond += o.beyond;
  if (first_beyond.empty()) first_beyond = o.first_beyond;
  for (const auto& s : o.nan_vs_number_sites) keep(nan_vs_number_sites, s);
  for (const auto& s : o.nan_bits_sites) keep(nan_bits_sites, s);
  for (const auto& s : o.inf_sites) keep(inf_sites, s);
}

TensorDiff diff_o(const reference::AttentionShape& shape, std::span<const std::uint16_t> a,
                  std::span<const std::uint16_t> b, std::uint64_t within) {
  if (std::ssize(a) != shape.o_elements() || std::ssize(b) != shape.o_elements())
    throw std::invalid_argument("diff_o: O sizes " + std::to_string(a.size()) + " and " + std::to_string(b.size()) +
                                " do not match the shape's " + std::to_string(shape.o_elements()));
  return diff_tensor<Bf16Format>(a.size(), a.data(), b.data(), within,
                                 [&](std::size_t k) { return o_site(shape, k); });
}

TensorDiff diff_lse(const reference::AttentionShape& shape, std::span<const float> a, std::span<const float> b,
                    std::uint64_t within) {
  if (std::ssize(a) != shape.lse_elements() || std::ssize(b) != shape.lse_elements())
    throw std::invalid_argument("diff_lse: LSE sizes " + std::to_string(a.size()) + " and " + std::to_string(b.size()) +
                                " do not match the shape's " + std::to_string(shape.lse_elements()));
  const std::vector<std::uint32_t> ab = fp32_bits(a), bb = fp32_bits(b);
  return diff_tensor<Fp32Format>(ab.size(), ab.data(), bb.data(), within,
                                 [&](std::size_t k) { return lse_site(shape, k); });
}

RunIdentity identical_runs(const reference::AttentionShape& shape, std::span<const std::uint16_t> o1,
                           std::span<const float> lse1, std::span<const std::uint16_t> o2,
                           std::span<const float> lse2) {
  // Bits, not ULPs: a distance of 0 takes +0 = −0, and two NaNs of different bits must differ.
  if (o1.size() != o2.size() || lse1.size() != lse2.size())
    throw std::invalid_argument("identical_runs: the two runs' output sizes differ");
  RunIdentity r;
  for (std::size_t k = 0; k < o1.size(); ++k) {
    if (o1[k] != o2[k] && r.o_differ++ == 0) {
      DiffSite s = o_site(shape, k);
      s.a_bits = o1[k];
      s.b_bits = o2[k];
      r.first = s.text();
    }
  }
  const std::vector<std::uint32_t> l1 = fp32_bits(lse1), l2 = fp32_bits(lse2);
  for (std::size_t k = 0; k < l1.size(); ++k) {
    if (l1[k] != l2[k] && r.lse_differ++ == 0 && r.first.empty()) {
      DiffSite s = lse_site(shape, k);
      s.a_bits = l1[k];
      s.b_bits = l2[k];
      r.first = s.text();
    }
  }
  return r;
}

}  // namespace cdna::audit
