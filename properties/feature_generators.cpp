#include "properties/feature_generators.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>

#include "numerics/fp8.hpp"
#include "reference/attention/inputs.hpp"

namespace cdna::properties {
namespace {

using reference::AttentionProblem;
using reference::ElementType;
using reference::Mask;
using reference::VarlenProblem;

constexpr std::uint16_t kNan = 0x7FC0;  // bf16 quiet NaN (fp8: never stored, see fill_inputs)
constexpr std::uint16_t kNanFp8 = 0x80;  // the FNUZ formats' one NaN

// A window side for lengths Sq + Sk = n: -1 (unbounded), 0, a few keys, or past the sequence.
std::int64_t draw_side(std::int64_t n) {
  switch (*rc::gen::weightedElement<int>({{3, 0}, {2, 1}, {3, 2}, {2, 3}})) {
    case 0: return -1;
    case 1: return 0;
    case 2: return *rc::gen::inRange<std::int64_t>(1, 5);
    default: return *rc::gen::inRange<std::int64_t>(n, n + 5);
  }
}

std::vector<float> draw_descale(std::int64_t per_head_values) {
  const auto factor = [] { return *rc::gen::element(0.25f, 0.5f, 0.75f, 1.0f, 1.5f, 2.0f, 3.0f); };
  switch (*rc::gen::inRange(0, 3)) {
    case 0: return {};
    case 1: return {factor()};
    default: {
      std::vector<float> f(static_cast<std::size_t>(per_head_values));
      for (float& x : f) x = factor();
      return f;
    }
  }
}

// Heads, D, Dv, mask, scale and the allowed features on `p` (batch = B of the descale lists).
void draw_features(AttentionProblem& p, const FeatureSpec& spec, std::int64_t window_extent) {
  auto& s = p.shape;
  s.heads_kv = *rc::gen::inRange<std::int64_t>(1, 3);
  s.heads_q = s.heads_kv * *rc::gen::inRange<std::int64_t>(1, 3);
  s.head_dim = *rc::gen::elementOf(spec.head_dims);
  if (spec.dv) {
    s.head_dim_v = *rc::gen::element<std::int64_t>(0, 32, 64, 96, 128, 192);
    if (s.head_dim_v == s.head_dim) s.head_dim_v = 0;
  }
  p.mask = spec.top_left ? *rc::gen::weightedElement<Mask>(
                               {{4, Mask::None}, {4, Mask::CausalBottomRight}, {2, Mask::CausalTopLeft}})
                         : *rc::gen::element(Mask::None, Mask::CausalBottomRight);
  const double inv_sqrt_d = 1.0 / std::sqrt(static_cast<double>(s.head_dim));
  p.scale = static_cast<float>(*rc::gen::weightedElement<double>({{8, inv_sqrt_d}, {1, 0.0}, {1, -inv_sqrt_d}}));
  if (spec.window && *rc::gen::arbitrary<bool>()) {
    p.window_left = draw_side(window_extent);
    p.window_right = draw_side(window_extent);
  }
  if (spec.softcap && *rc::gen::arbitrary<bool>()) p.softcap = *rc::gen::element(1.0f, 5.0f, 30.0f, 1e4f);
  if (spec.sinks && *rc::gen::arbitrary<bool>()) {
    p.sinks.resize(static_cast<std::size_t>(s.heads_q));
    for (float& x : p.sinks)
      x = *rc::gen::weightedElement<int>({{1, 0}, {3, 1}}) == 0 ? -std::numeric_limits<float>::infinity()
                                                                 : static_cast<float>(*rc::gen::inRange(-40, 41)) / 8;
  }
  if (spec.fp8 && *rc::gen::arbitrary<bool>()) {
    p.dtype = *rc::gen::element(ElementType::FP8_E4M3FNUZ, ElementType::FP8_E5M2FNUZ);
    p.descale_q = draw_descale(s.batch * s.heads_kv);
    p.descale_k = draw_descale(s.batch * s.heads_kv);
    p.descale_v = draw_descale(s.batch * s.heads_kv);
  }
}

// Q, K, V of p.shape: std · randn rounded to bf16, then to the fp8 format (RTNE) if p.dtype is one.
void fill_inputs(AttentionProblem& p, std::uint64_t seed, double qk_std) {
  const auto& s = p.shape;
  p.q = reference::randn_bf16(static_cast<std::size_t>(s.q_elements()), seed, qk_std);
  p.k = reference::randn_bf16(static_cast<std::size_t>(s.kv_elements()), seed + 1, qk_std);
  p.v = reference::randn_bf16(static_cast<std::size_t>(s.v_elements()), seed + 2);
  if (p.dtype == ElementType::BF16) return;
  const auto kind = p.dtype == ElementType::FP8_E4M3FNUZ ? numerics::Fp8Kind::Fp8 : numerics::Fp8Kind::Bf8;
  for (auto* t : {&p.q, &p.k, &p.v})
    for (std::uint16_t& x : *t) x = numerics::fp8_from_f32_rne(numerics::f32_from_bf16(x), kind);
}

// Sequence b's descale factors of a [B, Hkv] list (per-tensor and empty lists unchanged).
std::vector<float> descale_of(const std::vector<float>& f, std::int64_t heads_kv, std::int64_t b) {
  if (f.size() <= 1) return f;
  const auto first = f.begin() + b * heads_kv;
  return {first, first + heads_kv};
}

// Copies `rows` rows of `row` elements from `from` (starting at row 0) into `to` at row `at`.
void put_rows(const std::vector<std::uint16_t>& from, std::int64_t rows, std::int64_t row,
              std::vector<std::uint16_t>& to, std::int64_t at) {
  std::copy_n(from.begin(), rows * row, to.begin() + at * row);
}

}  // namespace

rc::Gen<AttentionProblem> gen_feature_problem(const FeatureSpec& spec) {
  return rc::gen::exec([spec] {
    AttentionProblem p;
    auto& s = p.shape;
    s.batch = *rc::gen::inRange<std::int64_t>(1, spec.max_batch + 1);
    s.seqlen_q = *rc::gen::inRange<std::int64_t>(1, spec.max_seqlen_q + 1);
    s.seqlen_k = *rc::gen::inRange<std::int64_t>(0, spec.max_seqlen_k + 1);
    draw_features(p, spec, s.seqlen_q + s.seqlen_k);
    fill_inputs(p, *rc::gen::inRange<std::uint64_t>(0, 1u << 30), *rc::gen::element(1.0, 2.0));
    return p;
  });
}

rc::Gen<VarlenDraw> gen_varlen(const FeatureSpec& spec) {
  return rc::gen::exec([spec] {
    VarlenDraw d;
    AttentionProblem base;
    const std::int64_t B = *rc::gen::inRange<std::int64_t>(1, spec.max_batch + 2);
    base.shape.batch = B;
    std::vector<std::int64_t> sq(static_cast<std::size_t>(B)), sk(sq.size());
    for (std::size_t b = 0; b < sq.size(); ++b) {
      sq[b] = *rc::gen::weightedElement<int>({{1, 0}, {5, 1}}) ? *rc::gen::inRange<std::int64_t>(1, spec.max_seqlen_q + 1) : 0;
      sk[b] = *rc::gen::weightedElement<int>({{1, 0}, {5, 1}}) ? *rc::gen::inRange<std::int64_t>(1, spec.max_seqlen_k + 1) : 0;
    }
    draw_features(base, spec, spec.max_seqlen_q + spec.max_seqlen_k);
    const double qk_std = *rc::gen::element(1.0, 2.0);
    const auto seed = *rc::gen::inRange<std::uint64_t>(0, 1u << 30);
    d.mode = *rc::gen::element(numerics::Rounding::RTNE, numerics::Rounding::RTNA, numerics::Rounding::RTZ);
    const auto& h = base.shape;
    for (std::int64_t b = 0; b < B; ++b) {
      AttentionProblem e = base;
      e.shape.batch = 1;
      e.shape.seqlen_q = sq[static_cast<std::size_t>(b)];
      e.shape.seqlen_k = sk[static_cast<std::size_t>(b)];
      e.descale_q = descale_of(base.descale_q, h.heads_kv, b);
      e.descale_k = descale_of(base.descale_k, h.heads_kv, b);
      e.descale_v = descale_of(base.descale_v, h.heads_kv, b);
      fill_inputs(e, seed + 10 * static_cast<std::uint64_t>(b), qk_std);
      d.sequences.push_back(std::move(e));
    }
    const std::uint16_t nan = base.dtype == ElementType::BF16 ? kNan : kNanFp8;
    const std::int64_t row_q = h.heads_q * h.head_dim, row_k = h.heads_kv * h.head_dim, row_v = h.heads_kv * h.dv();

    // Packed: queries with optional gaps (padded starts); keys packed, with padded starts, or in a
    // capacity above the used length (seqused_k).
    VarlenProblem& v = d.packed;
    v.base = base;
    v.base.shape.seqlen_q = v.base.shape.seqlen_k = 0;
    const bool pad_q = *rc::gen::arbitrary<bool>();
    const int k_layout = *rc::gen::inRange(0, 3);  // 0 packed, 1 padded starts, 2 capacity + seqused_k
    v.cu_seqlens_q = {0};
    v.cu_seqlens_k = {0};
    if (pad_q) v.seqstart_q = {0};
    if (k_layout == 1) v.seqstart_k = {0};
    for (std::size_t b = 0; b < sq.size(); ++b) {
      v.cu_seqlens_q.push_back(v.cu_seqlens_q.back() + static_cast<std::int32_t>(sq[b]));
      if (pad_q) v.seqstart_q.push_back(v.seqstart_q.back() + static_cast<std::int32_t>(sq[b] + *rc::gen::inRange(0, 3)));
      const auto extra = static_cast<std::int32_t>(k_layout == 2 ? *rc::gen::inRange(0, 4) : 0);
      v.cu_seqlens_k.push_back(v.cu_seqlens_k.back() + static_cast<std::int32_t>(sk[b]) + extra);
      if (k_layout == 1) v.seqstart_k.push_back(v.seqstart_k.back() + static_cast<std::int32_t>(sk[b] + *rc::gen::inRange(0, 3)));
      if (k_layout == 2) v.seqused_k.push_back(static_cast<std::int32_t>(sk[b]));
    }
    const std::int64_t rows_q = pad_q ? v.seqstart_q.back() : v.cu_seqlens_q.back();
    const std::int64_t rows_k = k_layout == 1 ? v.seqstart_k.back() : v.cu_seqlens_k.back();
    v.q.assign(static_cast<std::size_t>(rows_q * row_q), nan);
    v.k.assign(static_cast<std::size_t>(rows_k * row_k), nan);
    v.v.assign(static_cast<std::size_t>(rows_k * row_v), nan);
    for (std::int64_t b = 0; b < B; ++b) {
      const auto& e = d.sequences[static_cast<std::size_t>(b)];
      put_rows(e.q, e.shape.seqlen_q, row_q, v.q, v.q_row(b, 0));
      const std::int64_t k0 = (k_layout == 1 ? v.seqstart_k : v.cu_seqlens_k)[static_cast<std::size_t>(b)];
      put_rows(e.k, e.shape.seqlen_k, row_k, v.k, k0);
      put_rows(e.v, e.shape.seqlen_k, row_v, v.v, k0);
    }

    // Paged: the same queries; keys in pages of a random size, the pages shuffled, spare pages.
    VarlenProblem& g = d.paged;
    g.base = v.base;
    g.cu_seqlens_q = v.cu_seqlens_q;
    g.seqstart_q = v.seqstart_q;
    g.q = v.q;
    g.page_size = *rc::gen::element<std::int64_t>(1, 3, 8, 16, 64);
    std::int64_t pages = 0, widest = 0;
    for (std::int64_t n : sk) {
      const std::int64_t need = (n + g.page_size - 1) / g.page_size;
      pages += need;
      widest = std::max(widest, need);
      g.seqused_k.push_back(static_cast<std::int32_t>(n));
    }
    pages += *rc::gen::inRange<std::int64_t>(pages == 0 ? 1 : 0, 3);  // spare pages (at least one page)
    g.pages_per_sequence = widest + *rc::gen::inRange<std::int64_t>(0, 2);
    std::vector<std::int32_t> order(static_cast<std::size_t>(pages));
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), std::mt19937_64(*rc::gen::inRange<std::uint64_t>(0, 1u << 30)));
    g.block_table.assign(static_cast<std::size_t>(B * g.pages_per_sequence), 0);
    std::size_t next = 0;
    for (std::int64_t b = 0; b < B; ++b)
      for (std::int64_t c = 0; c < g.pages_per_sequence; ++c) {
        const bool used = c * g.page_size < sk[static_cast<std::size_t>(b)];
        // Entries past a sequence's pages are never read: any page index.
        g.block_table[static_cast<std::size_t>(b * g.pages_per_sequence + c)] =
            used ? order[next++] : order[static_cast<std::size_t>(c) % order.size()];
      }
    g.k.assign(static_cast<std::size_t>(pages * g.page_size * row_k), nan);
    g.v.assign(static_cast<std::size_t>(pages * g.page_size * row_v), nan);
    for (std::int64_t b = 0; b < B; ++b) {
      const auto& e = d.sequences[static_cast<std::size_t>(b)];
      for (std::int64_t j = 0; j < e.shape.seqlen_k; ++j) {
        const std::int64_t slot = g.k_row(b, j);
        std::copy_n(e.k.begin() + j * row_k, row_k, g.k.begin() + slot * row_k);
        std::copy_n(e.v.begin() + j * row_v, row_v, g.v.begin() + slot * row_v);
      }
    }
    return d;
  });
}

std::string describe(const VarlenProblem& p) {
  const auto& s = p.base.shape;
  std::ostringstream o;
  o << "B=" << p.sequences() << " Hq=" << s.heads_q << " Hkv=" << s.heads_kv << " D=" << s.head_dim
    << " Dv=" << s.dv() << " mask=" << reference::to_string(p.base.mask) << " scale=" << p.base.scale << " window=("
    << p.base.window_left << "," << p.base.window_right << ") cap=" << p.base.softcap
    << " dtype=" << reference::to_string(p.base.dtype) << " Sq_b/Sk_b=";
  for (std::int64_t b = 0; b < p.sequences(); ++b) o << (b ? "," : "") << p.seqlen_q(b) << "/" << p.seqlen_k(b);
  if (p.paged()) o << " page_size=" << p.page_size << " pages_per_sequence=" << p.pages_per_sequence;
  if (!p.seqstart_q.empty()) o << " padded_q";
  if (!p.seqstart_k.empty()) o << " padded_k";
  if (!p.seqused_k.empty() && !p.paged()) o << " seqused_k";
  return o.str();
}

}  // namespace cdna::properties
