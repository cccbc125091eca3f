// Bound, floor and pass rule on the extended definition (issue 12; docs/error-analysis.md
// §14–§18): a CPU model of exactly the declared kernel arithmetic — MFMA block models for Q·Kᵀ
// (bf16 blocks of 8, fp8 blocks of 16) and P·V, fp32 VALU, the declared soft-cap tanh, the sink
// added once to l, descale multiplies — passes compare_attention (per-element bound, exact
// facts, floor rule) on random problems with every feature; the same model with one declared
// step done wrong (cap after the mask, sink left out, descale twice, window ignored) fails. The
// building blocks of the new terms are checked against the arithmetic they bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include "numerics/fp8.hpp"
#include "numerics/mfma.hpp"
#include "reference/attention/bound.hpp"
#include "reference/attention/compare.hpp"
#include "reference/attention/exact_rows.hpp"
#include "reference/attention/floor.hpp"
#include "reference/common/splitmix64.hpp"
#include "reference/attention/varlen.hpp"

namespace cdna::reference {
namespace {

using numerics::Rounding;
constexpr float kInfF = std::numeric_limits<float>::infinity();

// ---- the declared kernel (docs/error-analysis.md §1, §14–§18), one step per line -------------

// Ways to get one declared step wrong (each a mistake a real kernel makes).
struct Fault {
  bool cap_after_mask = false;  // masked keys read as −inf, then capped to −c: they weigh e^-c
  bool sink_dropped = false;    // the sink never enters l
  bool sink_outside_max = false;  // the sink added after the last tile against the keys' maximum
  bool descale_twice = false;   // O multiplied by dv twice
  bool window_ignored = false;  // the window is not applied, the mask is
};

struct KernelOut {
  std::vector<std::uint16_t> o;
  std::vector<float> lse;
};

float f32(double x) { return static_cast<float>(x); }
double value_of_bf16(std::uint16_t bits) { return static_cast<double>(numerics::f32_from_bf16(bits)); }

// The declared tanh (§15): 1 − 2·rcp(exp2(y·fl(2 log2 e)) + 1), every step rounded to fp32.
float declared_tanh(float y) {
  const float z = y * f32(2 * std::numbers::log2e);
  const float e = std::exp2(z);  // glibc's exp2f: under 1 ULP, the role of v_exp_f32
  const float d = e + 1.0f;
  const float r = 1.0f / d;  // correctly rounded: within v_rcp_f32's 1 ULP
  return 1.0f - 2.0f * r;
}

float qk_mfma(const AttentionProblem& p, std::size_t q_at, std::size_t k_at) {
  const auto D = static_cast<std::size_t>(p.shape.head_dim);
  if (p.dtype == ElementType::BF16) {
    return numerics::mfma_dot_bf16(std::span(p.q).subspan(q_at, D), std::span(p.k).subspan(k_at, D), 0.0f);
  }
  std::vector<std::uint8_t> a(D), b(D);
  for (std::size_t d = 0; d < D; ++d) {
    a[d] = static_cast<std::uint8_t>(p.q[q_at + d]);
    b[d] = static_cast<std::uint8_t>(p.k[k_at + d]);
  }
  const auto kind = p.dtype == ElementType::FP8_E4M3FNUZ ? numerics::Fp8Kind::Fp8 : numerics::Fp8Kind::Bf8;
  return numerics::mfma_dot_fp8(a, kind, b, kind, 0.0f);  // blocks of 16, the halves apart
}

// Where the declared kernel puts the sink into its running maximum (§16): as the state before
// the first tile (m̂ = ŝ₂,s, l̂ = 1: vLLM's and AITER's sink kernels), or after the last tile.
enum class SinkAt { First, Last };

// O [B, Sq, Hq, Dv] bf16 bits and LSE [B, Hq, Sq] of a kernel with KV tiles of `tile` keys.
KernelOut declared_kernel(const AttentionProblem& p, Rounding mode, std::int64_t tile, Fault fault = {},
                          SinkAt sink_at = SinkAt::First) {
  const AttentionShape& s = p.shape;
  const std::int64_t D = s.head_dim, Dv = s.dv(), Sq = s.seqlen_q, Sk = s.seqlen_k, group = s.heads_q / s.heads_kv;
  const bool fp8 = p.dtype != ElementType::BF16;
  const float log2e = f32(std::numbers::log2e), ln2 = f32(std::numbers::ln2);
  KernelOut out{std::vector<std::uint16_t>(static_cast<std::size_t>(s.o_elements())),
                std::vector<float>(static_cast<std::size_t>(s.lse_elements()))};
  for (std::int64_t b = 0; b < s.batch; ++b)
    for (std::int64_t h = 0; h < s.heads_q; ++h) {
      const std::int64_t hk = h / group;
      const float dq = f32(descale_at(p.descale_q, s.heads_kv, b, hk)), dk = f32(descale_at(p.descale_k, s.heads_kv, b, hk));
      const float dv = f32(descale_at(p.descale_v, s.heads_kv, b, hk));
      const float cap = p.softcap;
      const bool sink = !p.sinks.empty() && p.sinks[static_cast<std::size_t>(h)] != -kInfF && !fault.sink_dropped;
      for (std::int64_t i = 0; i < Sq; ++i) {
        const KeyRange r = fault.window_ignored ? visible_range(p.mask, -1, -1, i, Sq, Sk) : visible_range(p, i);
        const std::size_t q_at = static_cast<std::size_t>(((b * Sq + i) * s.heads_q + h) * D);
        auto score2 = [&](std::int64_t j) -> float {  // the base-2 score the kernel computes
          const bool visible = j >= r.first && j < r.first + r.count;
          if (!visible) return fault.cap_after_mask && cap > 0 ? -(cap * log2e) : -kInfF;
          const float raw = qk_mfma(p, q_at, static_cast<std::size_t>(((b * Sk + j) * s.heads_kv + hk) * D));
          if (cap > 0) {
            float y = raw * f32(static_cast<double>(p.scale) / cap);
            if (fp8) y = y * dq * dk;
            return declared_tanh(y) * (cap * log2e);
          }
          float x = raw * p.scale;
          if (fp8) x = x * dq * dk;
          return x * log2e;
        };
        const float sink2 = sink ? p.sinks[static_cast<std::size_t>(h)] * log2e : -kInfF;
        const bool sink_first = sink && !fault.sink_outside_max && sink_at == SinkAt::First;
        float m = sink_first ? sink2 : -kInfF, l = sink_first ? std::exp2(0.0f) : 0;
        std::vector<float> acc(static_cast<std::size_t>(Dv), 0.0f);
        const std::int64_t t0 = fault.cap_after_mask ? 0 : r.first / tile;
        const std::int64_t t1 = fault.cap_after_mask ? (Sk - 1) / tile : (r.first + r.count - 1) / tile;
        for (std::int64_t t = t0; r.count > 0 && t <= t1; ++t) {
          const std::int64_t j0 = t * tile, j1 = std::min(Sk, j0 + tile);
          std::vector<float> s2(static_cast<std::size_t>(j1 - j0));
          float mt = -kInfF;
          for (std::int64_t j = j0; j < j1; ++j) mt = std::max(mt, s2[static_cast<std::size_t>(j - j0)] = score2(j));
          if (mt == -kInfF) continue;
          const float m_new = std::max(m, mt);
          const float alpha = m == -kInfF ? 0.0f : std::exp2(m - m_new);
          float tile_sum = 0;
          std::vector<std::uint16_t> pt(s2.size());
          for (std::size_t j = 0; j < s2.size(); ++j) {
            const float pj = std::exp2(s2[j] - m_new);
            tile_sum += pj;
            pt[j] = numerics::bf16_from_f32(pj, mode);
          }
          l = l * alpha + tile_sum;
          for (std::int64_t d = 0; d < Dv; ++d) {
            std::vector<std::uint16_t> vcol(s2.size());  // V's values converted to bf16 exactly
            for (std::int64_t j = j0; j < j1; ++j) {
              const double v = element_value(p.dtype, p.v[static_cast<std::size_t>(((b * Sk + j) * s.heads_kv + hk) * Dv + d)]);
              vcol[static_cast<std::size_t>(j - j0)] = numerics::bf16_from_f32(f32(v), Rounding::RTNE);
            }
            acc[static_cast<std::size_t>(d)] = numerics::mfma_dot_bf16(pt, vcol, acc[static_cast<std::size_t>(d)] * alpha);
          }
          m = m_new;
        }
        const std::size_t lse_at = static_cast<std::size_t>((b * s.heads_q + h) * Sq + i);
        const std::size_t o_at = static_cast<std::size_t>(((b * Sq + i) * s.heads_q + h) * Dv);
        if (m == -kInfF) {  // no weighted key: O = +0.0; LSE from the sink alone (§17), or −inf
          for (std::int64_t d = 0; d < Dv; ++d) out.o[o_at + static_cast<std::size_t>(d)] = 0;
          out.lse[lse_at] = sink ? (sink2 + std::log2(std::exp2(0.0f))) * ln2 : -kInfF;
          continue;
        }
        if (sink && fault.sink_outside_max) l = l + std::exp2(sink2 - m);  // overflows for s_h ≫ m̂
        if (sink && !fault.sink_outside_max && sink_at == SinkAt::Last) {  // §16: a last rescale, one exp, one add
          const float m_new = std::max(m, sink2), alpha = std::exp2(m - m_new);
          l = l * alpha + std::exp2(sink2 - m_new);
          for (float& a : acc) a = a * alpha;
          m = m_new;
        }
        const float rcp = 1.0f / l;
        for (std::int64_t d = 0; d < Dv; ++d) {
          float o = acc[static_cast<std::size_t>(d)] * rcp;
          if (fp8) o = o * dv;
          if (fault.descale_twice) o = o * dv;
          out.o[o_at + static_cast<std::size_t>(d)] = numerics::bf16_from_f32(o, mode);
        }
        out.lse[lse_at] = (m + std::log2(l)) * ln2;
      }
    }
  return out;
}

// ---- random problems with the extended features ---------------------------------------------

struct Rng {
  std::uint64_t state;
  std::uint64_t next() { return state = splitmix64(state); }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1p-53; }
  std::int64_t below(std::int64_t n) { return static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(n)); }
  double normal() { return std::sqrt(-2 * std::log(1 - uniform())) * std::cos(2 * std::numbers::pi * uniform()); }
};

std::uint16_t encode(ElementType t, double x) {
  if (t == ElementType::BF16) return numerics::bf16_from_f32(f32(x), Rounding::RTNE);
  const auto kind = t == ElementType::FP8_E4M3FNUZ ? numerics::Fp8Kind::Fp8 : numerics::Fp8Kind::Bf8;
  return numerics::fp8_from_f32_rne(f32(x), kind, numerics::Fp8Overflow::Saturate);
}

std::vector<float> random_descale(Rng& g, std::int64_t per_head) {
  std::vector<float> f(static_cast<std::size_t>(g.below(2) == 0 ? 1 : per_head));
  for (float& x : f) x = f32(0.25 + 3.75 * g.uniform());  // not powers of two: every multiply rounds
  return f;
}

// A small problem with a random combination of window, soft cap, sinks, Dv, fp8 and descale.
AttentionProblem random_problem(std::uint64_t seed) {
  Rng g{seed};
  AttentionProblem p;
  const std::int64_t D = 16 * (1 + g.below(3)), dvs[] = {0, 8, 24};
  p.shape = {1 + g.below(2), 1 + g.below(9), 1 + g.below(40), 2, 1 + g.below(2), D, dvs[g.below(3)]};
  p.mask = static_cast<Mask>(g.below(3));
  if (g.below(2) == 0) {
    p.window_left = g.below(10) - 1;
    p.window_right = g.below(5) - 1;
  }
  const float caps[] = {0, 0, 2.5f, 20, 50};
  p.softcap = caps[g.below(5)];
  if (g.below(2) == 0) {
    for (int h = 0; h < 2; ++h) p.sinks.push_back(g.below(4) == 0 ? -kInfF : f32(2 * g.normal()));
  }
  p.dtype = static_cast<ElementType>(g.below(3));
  const double qk_std = 0.5 + 2 * g.uniform();
  p.scale = f32(1 / std::sqrt(static_cast<double>(D)));
  if (p.dtype != ElementType::BF16) {
    const std::int64_t per_head = p.shape.batch * p.shape.heads_kv;
    p.descale_q = random_descale(g, per_head);
    p.descale_k = random_descale(g, per_head);
    p.descale_v = random_descale(g, per_head);
  }
  auto fill = [&](std::vector<std::uint16_t>& t, std::int64_t n, double sd) {
    t.resize(static_cast<std::size_t>(n));
    for (auto& x : t) x = encode(p.dtype, sd * g.normal());
  };
  fill(p.q, p.shape.q_elements(), qk_std);
  fill(p.k, p.shape.kv_elements(), qk_std);
  fill(p.v, p.shape.v_elements(), 1.0);
  return p;
}

// ---- the declared arithmetic passes; each wrong step fails -------------------------------------

// 60 random problems × 3 modes, a random KV tile width each: every element within its bound,
// every LSE within its bound, the floor rule and the exact facts hold (compare_attention).
TEST(FeatureBound, DeclaredArithmeticPassesOnRandomProblems) {
  int with[5] = {};  // problems seen with: window, cap, sinks, fp8, Dv != D
  double worst_o = 0, worst_lse = 0, worst_floor = 0;  // err/bound and err/floor, printed
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    const AttentionProblem p = random_problem(seed * 7919);
    with[0] += p.window_left != -1 || p.window_right != -1;
    with[1] += p.softcap > 0;
    with[2] += !p.sinks.empty();
    with[3] += p.dtype != ElementType::BF16;
    with[4] += p.shape.dv() != p.shape.head_dim;
    const AttentionResult exact = attention_forward_exact(p);
    for (Rounding mode : numerics::kAllRoundings) {
      const std::int64_t tile = std::int64_t{16} << (seed % 4);
      const KernelOut k = declared_kernel(p, mode, tile, {}, seed % 2 ? SinkAt::First : SinkAt::Last);
      const AttentionComparison c = compare_attention(p, exact, k.o, k.lse, mode);
      ASSERT_TRUE(c.pass()) << "seed " << seed * 7919 << " " << numerics::to_string(mode) << " tile " << tile << " ("
                            << extended_feature(p).value_or("base") << "): " << c.first_failure;
      EXPECT_GT(c.o_judged, 0);
      worst_o = std::max(worst_o, c.max_err_to_bound_o);
      worst_lse = std::max(worst_lse, c.max_err_to_bound_lse);
      if (c.floor_rel_rms_o > 0) worst_floor = std::max(worst_floor, c.rel_rms_err_o / c.floor_rel_rms_o);
    }
  }
  std::printf("declared kernel, 60 problems x 3 modes: max err/bound O %.3f, LSE %.3f; max rms/floor %.3f\n", worst_o,
              worst_lse, worst_floor);
  for (int n : with) EXPECT_GE(n, 10);  // every feature exercised
}

// A causal problem whose masked keys would weigh e^-c each under a cap applied after the mask.
AttentionProblem capped_causal(double qk_std) {
  AttentionProblem p;
  p.shape = {1, 24, 24, 1, 1, 32};
  p.mask = Mask::CausalBottomRight;
  p.softcap = 4.0f;
  p.scale = f32(1 / std::sqrt(32.0));
  Rng g{77};
  for (auto* t : {&p.q, &p.k, &p.v}) {
    t->resize(24 * 32);
    for (auto& x : *t) x = encode(ElementType::BF16, (t == &p.v ? 1.0 : qk_std) * g.normal());
  }
  return p;
}

// The declared kernel passes `p` in `mode`; the comparison of the same kernel with `fault`.
AttentionComparison judge_fault(const AttentionProblem& p, Rounding mode, std::int64_t tile, Fault fault) {
  const AttentionResult exact = attention_forward_exact(p);
  const KernelOut right = declared_kernel(p, mode, tile);
  const AttentionComparison ok = compare_attention(p, exact, right.o, right.lse, mode);
  EXPECT_TRUE(ok.pass()) << ok.first_failure;
  const KernelOut wrong = declared_kernel(p, mode, tile, fault);
  return compare_attention(p, exact, wrong.o, wrong.lse, mode);
}

TEST(FeatureBound, CapAfterTheMaskFails) {
  const AttentionComparison c = judge_fault(capped_causal(0.5), Rounding::RTNE, 16, Fault{.cap_after_mask = true});
  EXPECT_FALSE(c.pass());
  EXPECT_GT(c.o_violations, 100);
  EXPECT_GT(c.lse_violations, 10);
}

AttentionProblem with_sinks() {
  AttentionProblem p = capped_causal(1.0);
  p.softcap = 0;
  p.sinks = {0.5f};
  return p;
}

TEST(FeatureBound, SinkLeftOutOfTheNormaliserFails) {
  const AttentionComparison c = judge_fault(with_sinks(), Rounding::RTZ, 32, Fault{.sink_dropped = true});
  EXPECT_FALSE(c.pass());
  EXPECT_EQ(c.lse_violations, 24);  // every row's LSE misses ln(1 + e^(s_h)/Σ)
  EXPECT_GT(c.o_violations, 0);
}

// §17: a row with no visible key and a finite sink is O = +0.0, LSE = s_h; the kernel that
// takes the sink as its only term passes, one that writes LSE = −inf (no sink) or O = −0.0 fails.
TEST(FeatureBound, EmptyRowWithSinkIsZeroAndTheSink) {
  AttentionProblem p = with_sinks();  // Sq = 24
  p.sinks = {-14.729082f};  // fl32(fl32(s_h·log2 e)·ln 2) is one ULP off s_h
  p.mask = Mask::None;
  p.shape.seqlen_k = 8;  // window (0, 0), diagonal i − 16: rows 0..15 see no key, 16..23 one
  p.window_left = p.window_right = 0;
  p.k.resize(8 * 32);
  p.v.resize(8 * 32);
  const AttentionResult exact = attention_forward_exact(p);
  std::int64_t empty = 0;
  for (std::int64_t i = 0; i < 24; ++i) empty += visible_range(p, i).count == 0;
  ASSERT_EQ(empty, 16);
  KernelOut k = declared_kernel(p, Rounding::RTNE, 16);
  const AttentionComparison ok = compare_attention(p, exact, k.o, k.lse, Rounding::RTNE);
  EXPECT_TRUE(ok.pass()) << ok.first_failure;
  const AttentionBounds b = attention_bounds(p, exact, Rounding::RTNE);
  EXPECT_EQ(exact.lse[0], static_cast<double>(p.sinks[0]));
  EXPECT_NE(k.lse[0], p.sinks[0]);  // the declared kernel's LSE is a few roundings off s_h …
  EXPECT_GT(b.lse[0], 0);           // … and its bound allows them
  EXPECT_LT(b.lse[0], 6 * 0x1p-20);  // under six fp32 ULPs of s_h (2^-20 at 14.7): five roundings
  KernelOut no_sink = k;
  no_sink.lse[0] = -kInfF;
  EXPECT_EQ(compare_attention(p, exact, no_sink.o, no_sink.lse, Rounding::RTNE).semantic_violations, 1);
  KernelOut neg_zero = k;
  neg_zero.o[0] = 0x8000;
  const AttentionComparison c = compare_attention(p, exact, neg_zero.o, neg_zero.lse, Rounding::RTNE);
  EXPECT_EQ(c.semantic_violations, 1);
  EXPECT_NE(c.first_failure.find("no-visible-key convention with a sink"), std::string::npos) << c.first_failure;
}

// Issue 23 §1: a sink far above every visible score is in the definition. The declared kernel
// puts it into its running maximum (§16), so no exponent argument is positive and every bound is
// finite: instance A, causal, sinks 0 on every head with Q and K = 8·randn (rows whose visible
// scores are all near −100 or below); B, the same with window (0, 0); C, a sink of 90 on ordinary
// scores with no mask. The kernel with the sink in its maximum (first or last) passes; one that
// adds it against the keys' maximum overflows l̂ there and fails.
// The first seed's problem with a row where that kernel's l̂ overflows (found by trying seeds).
bool old_form_overflows(const AttentionProblem& p) {
  const KernelOut k = declared_kernel(p, Rounding::RTNE, 16, Fault{.sink_outside_max = true});
  return std::any_of(k.lse.begin(), k.lse.end(), [](float x) { return std::isinf(x); });
}

AttentionProblem sink_above_scores(Mask mask, std::int64_t window, float sink, double qk_std) {
  AttentionProblem p;
  p.shape = {1, 16, 16, 8, 2, 64};
  p.mask = mask;
  p.window_left = p.window_right = window;
  p.scale = 0.125f;
  p.sinks.assign(8, sink);
  for (std::uint64_t seed = 1; seed <= 64; ++seed) {
    Rng g{seed};
    for (auto* t : {&p.q, &p.k, &p.v}) {
      t->resize(static_cast<std::size_t>(t == &p.q ? p.shape.q_elements() : p.shape.kv_elements()));
      for (auto& x : *t) x = encode(ElementType::BF16, (t == &p.v ? 1.0 : qk_std) * g.normal());
    }
    if (old_form_overflows(p)) break;
  }
  return p;
}

TEST(FeatureBound, SinkAboveEveryScoreHasAFiniteBound) {
  const std::pair<const char*, AttentionProblem> instances[] = {
      {"A causal, sinks 0, Q K 8 randn", sink_above_scores(Mask::CausalBottomRight, -1, 0.0f, 8)},
      {"B window (0, 0), sinks 0, Q K 8 randn", sink_above_scores(Mask::None, 0, 0.0f, 8)},
      {"C no mask, sink 90", sink_above_scores(Mask::None, -1, 90.0f, 1)}};
  for (const auto& [what, p] : instances) {
    const AttentionResult exact = attention_forward_exact(p);
    // The instance needs a row whose sink is more than 127·ln 2 above its best visible score.
    ASSERT_TRUE(old_form_overflows(p)) << what << ": no row where the sink outside the maximum overflows l̂";
    const KernelOut old_form = declared_kernel(p, Rounding::RTNE, 16, Fault{.sink_outside_max = true});
    for (Rounding mode : numerics::kAllRoundings) {
      const AttentionBounds b = attention_bounds(p, exact, mode);
      for (double x : b.o) ASSERT_TRUE(std::isfinite(x)) << what;
      for (double x : b.lse) ASSERT_TRUE(std::isfinite(x)) << what;
      for (SinkAt at : {SinkAt::First, SinkAt::Last}) {
        const KernelOut k = declared_kernel(p, mode, 16, {}, at);
        const AttentionComparison c = compare_attention(p, exact, k.o, k.lse, mode);
        EXPECT_TRUE(c.pass()) << what << " " << numerics::to_string(mode) << ": " << c.first_failure;
      }
      const AttentionComparison c = compare_attention(p, exact, old_form.o, old_form.lse, mode);
      EXPECT_FALSE(c.pass()) << what;
    }
  }
}

// Issue 23 §6: V ≈ bf16(3·10³⁸) on 8 keys (B1 Sq4 Sk8 H1/1 D64): the fp32 P·V accumulator of the
// declared arithmetic must overflow, so every O bound is +inf (error-analysis §6 "Range") and the
// declared kernel's output, inf there, is NOTHING JUDGED, not a FAIL; the LSE (no V in it) keeps a
// finite bound, and a wrong LSE still fails.
TEST(FeatureBound, OverflowingAccumulatorIsNotJudged) {
  AttentionProblem p;
  p.shape = {1, 4, 8, 1, 1, 64};
  p.scale = 0.125f;
  Rng g{11};
  p.q.resize(4 * 64);
  p.k.resize(8 * 64);
  for (auto& x : p.q) x = encode(ElementType::BF16, g.normal());
  for (auto& x : p.k) x = encode(ElementType::BF16, g.normal());
  p.v.assign(8 * 64, encode(ElementType::BF16, 3e38));
  const AttentionResult exact = attention_forward_exact(p);
  const AttentionBounds b = attention_bounds(p, exact, Rounding::RTNE);
  for (double x : b.o) EXPECT_TRUE(std::isinf(x));
  for (double x : b.lse) EXPECT_TRUE(std::isfinite(x));
  const KernelOut k = declared_kernel(p, Rounding::RTNE, 16);
  EXPECT_TRUE(std::isinf(value_of_bf16(k.o[0])));  // the declared arithmetic does overflow here
  const AttentionComparison c = compare_attention(p, exact, k.o, k.lse, Rounding::RTNE);
  EXPECT_FALSE(c.pass());
  EXPECT_TRUE(c.nothing_judged()) << c.first_failure;
  EXPECT_EQ(c.o_out_of_range, 256);
  EXPECT_EQ(c.lse_judged, 4);
  EXPECT_NE(c.first_failure.find("nothing judged: 256 O element(s)"), std::string::npos) << c.first_failure;
  KernelOut wrong = k;
  wrong.lse[0] += 1.0f;
  const AttentionComparison w = compare_attention(p, exact, wrong.o, wrong.lse, Rounding::RTNE);
  EXPECT_TRUE(w.violations());
  EXPECT_FALSE(w.nothing_judged());
}

TEST(FeatureBound, DescaleAppliedTwiceFails) {
  AttentionProblem p = capped_causal(1.0);
  p.softcap = 0;
  p.dtype = ElementType::FP8_E4M3FNUZ;
  for (auto* t : {&p.q, &p.k, &p.v})
    for (auto& x : *t) x = encode(p.dtype, value_of_bf16(x));
  p.descale_q = {0.75f};
  p.descale_k = {1.25f};
  p.descale_v = {1.0625f};  // dv² − dv = 6.6% of O: far outside two bf16 ULPs
  const AttentionComparison c = judge_fault(p, Rounding::RTNA, 64, Fault{.descale_twice = true});
  EXPECT_FALSE(c.pass());
  EXPECT_GT(c.o_violations, 24 * 32 / 2);
}

TEST(FeatureBound, WindowIgnoredFails) {
  AttentionProblem p = capped_causal(1.0);
  p.softcap = 0;
  p.window_left = 3;
  p.window_right = 0;
  const AttentionComparison c = judge_fault(p, Rounding::RTNE, 16, Fault{.window_ignored = true});
  EXPECT_FALSE(c.pass());
  EXPECT_EQ(c.lse_violations, 24 - 4);  // rows 0..3 see all their keys either way
}

// ---- the new terms against the arithmetic they bound ------------------------------------------

// §15: the declared tanh over a sweep of fp32 arguments (every 2^-12 in [-12, 12] and a
// geometric sweep of small ones) stays within tanh_abs_error(), which is not vacuous.
TEST(FeatureBound, DeclaredTanhWithinItsErrorBound) {
  const double bound = bound_terms::tanh_abs_error();
  EXPECT_GT(bound, 12 * 0x1p-24);
  EXPECT_LT(bound, 13 * 0x1p-24);
  double worst = 0;
  auto check = [&](float y) { worst = std::max(worst, static_cast<double>(std::abs(declared_tanh(y) - std::tanh(static_cast<long double>(y))))); };
  for (int k = -12 * 4096; k <= 12 * 4096; ++k) check(static_cast<float>(k) * 0x1p-12f);
  for (float y = 0x1p-30f; y < 1; y *= 1.001f) {
    check(y);
    check(-y);
  }
  check(kInfF);
  check(-kInfF);
  check(1e30f);
  EXPECT_LE(worst, bound);
  EXPECT_GT(worst, bound / 8);  // the formula's cancellation near ±1 shows
  std::printf("declared tanh: max |error| %.3g = %.2f x 2^-24, bound %.2f x 2^-24\n", worst, worst * 0x1p24, bound * 0x1p24);
}

// §18: fp8 blocks of 16 (the even and odd halves apart, C dropped or floored) within
// mfma_dot_error(⌈k/16⌉, A, kTrunc8) on random and adversarial blocks (one large product, the
// other products just below its truncation grid, C negative with a fine grid).
TEST(FeatureBound, Fp8MfmaWithinItsBlockBound) {
  Rng g{5};
  double worst = 0;  // error / (A·2^-24)
  for (int trial = 0; trial < 20000; ++trial) {
    const bool adversarial = trial % 2 == 1;
    const std::size_t k = adversarial ? 16 : 16 * static_cast<std::size_t>(1 + g.below(3));
    std::vector<std::uint8_t> a(k), b(k);
    for (std::size_t x = 0; x < k; ++x) {
      double av = g.normal() * std::exp2(static_cast<double>(g.below(8)) - 4), bv = g.normal();
      if (adversarial) {
        // Product 0 is 2^14 (grid 2^-10); the even ones 0.9375·2^-10, truncated to 0; the odd
        // half sums to just under 8·2^-10 and is floored to 7·2^-10 at the common exponent.
        bv = 0x1p-5;
        av = x == 0 ? 128.0 : (x % 2 == 1 && (x / 2) % 8 == static_cast<std::size_t>(trial / 2) % 8 ? 1.375 : 0.9375) * 0x1p-5;
        if (x == 0) bv = 128.0;
      }
      a[x] = numerics::fp8_from_f32_rne(f32(av), numerics::Fp8Kind::Fp8, numerics::Fp8Overflow::Saturate);
      b[x] = numerics::fp8_from_f32_rne(f32(bv), numerics::Fp8Kind::Fp8, numerics::Fp8Overflow::Saturate);
    }
    // Adversarial C: −(4 + 2^-21), floored toward −∞ to the 2^-10 grid (almost one grid lost).
    const float c = adversarial ? -f32(4 + 0x1p-21 * static_cast<double>(1 + g.below(4))) : f32(g.normal());
    double exact = c, abs_sum = 0;
    for (std::size_t x = 0; x < k; ++x) {
      const double av = numerics::f32_from_fp8(a[x], numerics::Fp8Kind::Fp8), bv = numerics::f32_from_fp8(b[x], numerics::Fp8Kind::Fp8);
      exact += av * bv;  // exact: products of 4-bit significands, few terms
      abs_sum += std::max(std::abs(av), 0x1p-7) * std::max(std::abs(bv), 0x1p-7) + 0x1p-126;
    }
    const double got = numerics::mfma_dot_fp8(a, numerics::Fp8Kind::Fp8, b, numerics::Fp8Kind::Fp8, c);
    // C is an input here, not the result of earlier blocks: its own magnitude enters the bound
    // as a node's relative error (§2).
    const double bound = bound_terms::mfma_dot_error(std::ceil(static_cast<double>(k) / 16), abs_sum, bound_terms::kTrunc8) +
                         bound_terms::gamma(std::ceil(static_cast<double>(k) / 16), bound_terms::kUBlock) * std::abs(c);
    ASSERT_LE(std::abs(got - exact), bound) << "trial " << trial;
    if (adversarial) worst = std::max(worst, std::abs(got - exact) / (abs_sum * 0x1p-24));
  }
  std::printf("fp8 block of 16: worst adversarial error %.2f x 2^-24 A; bound %.2f x 2^-24 A\n", worst,
              bound_terms::mfma_dot_error(1, 1, bound_terms::kTrunc8) * 0x1p24);
  EXPECT_GT(worst, 8);  // seven truncated products, the odd half's and C's floors: about 8.5
}

// §3 with a window: keys 20 .. 27 (8 keys) touch tiles 1 of 16 (16..31), 0 of 32 and 64, 0 of
// 128; one in-tile add chain of 7 keys plus the tile's multiply and add: h_l = 16 − 1 + 2·…
TEST(FeatureBound, WindowDepthsByHand) {
  const bound_terms::Depths d = bound_terms::kernel_depths(128, KeyRange{20, 8}, 16);
  EXPECT_EQ(d.qk, 8);    // 128 / 16: fp8 blocks
  EXPECT_EQ(d.exps, 1);  // one tile of 16 keys
  // W = 16: 1 tile, wc = 16, blocks min(2, 2 + 1) = 2 → h_pv 3, h_l 15 + 2 = 17; the same for
  // W = 32..128 (1 tile, wc = 16, the 8-key blocks misaligned: 3 blocks) → h_pv 4.
  EXPECT_EQ(d.pv, 4);
  EXPECT_EQ(d.l, 17);
  const bound_terms::Depths across = bound_terms::kernel_depths(64, KeyRange{14, 4}, 8);  // keys 14..17
  EXPECT_EQ(across.exps, 2);  // two 16-key tiles
  EXPECT_EQ(across.qk, 8);
}

// §13 on the extended definition: σ = 0 with fp8 inputs, a window and dv = 1.3 (not a power of
// two): every kernel holds fl32(mean·dv) before rounding O; the declared kernel gives those bits in
// its own mode, and compare fails it judged in another mode. A head with a sink is not decided.
TEST(FeatureBound, ExactRowsOnFp8WindowsAndSinks) {
  AttentionProblem p;
  p.shape = {1, 8, 8, 2, 1, 16};
  p.mask = Mask::CausalBottomRight;
  p.window_left = 3;
  p.window_right = 0;
  p.scale = 0.0f;
  p.dtype = ElementType::FP8_E4M3FNUZ;
  p.descale_v = {1.3f};
  p.sinks = {-kInfF, 1.0f};
  Rng g{9};
  for (auto* t : {&p.q, &p.k}) t->assign(8 * (t == &p.q ? 2 : 1) * 16, encode(p.dtype, 1.0));
  p.v.resize(8 * 16);
  for (auto& x : p.v) x = encode(p.dtype, static_cast<double>(g.below(16)) - 8);
  const std::vector<double> pre = exactly_computed_o(p);
  // Rows 0, 1 and 3 see 1, 2 and 4 keys (powers of two), rows 4.. see 4 (window 3 + 1).
  std::int64_t decided = 0;
  for (std::int64_t i = 0; i < 8; ++i)
    for (std::int64_t h = 0; h < 2; ++h)
      for (std::int64_t d = 0; d < 16; ++d) {
        const double x = pre[static_cast<std::size_t>((i * 2 + h) * 16 + d)];
        if (h == 1) {
          EXPECT_TRUE(std::isnan(x));  // the sink makes l̂ no power of two
          continue;
        }
        const KeyRange r = visible_range(p, i);
        if (!std::has_single_bit(static_cast<std::uint64_t>(r.count))) continue;
        double mean = 0;
        for (std::int64_t j = r.first; j < r.first + r.count; ++j)
          mean += element_value(p.dtype, p.v[static_cast<std::size_t>(j * 16 + d)]);
        mean /= static_cast<double>(r.count);
        EXPECT_EQ(x, mean == 0 ? 0.0 : static_cast<double>(f32(mean * static_cast<double>(1.3f))));
        decided += !std::isnan(x);
      }
  EXPECT_EQ(decided, 7 * 16);  // every row but row 2 (3 keys)
  const AttentionResult exact = attention_forward_exact(p);
  for (Rounding mode : numerics::kAllRoundings) {
    const KernelOut k = declared_kernel(p, mode, 16);
    const AttentionComparison own = compare_attention(p, exact, k.o, k.lse, mode);
    EXPECT_TRUE(own.pass()) << numerics::to_string(mode) << ": " << own.first_failure;
    for (Rounding other : numerics::kAllRoundings) {
      // RTNE and RTNA differ only at ties, which fl32(mean·1.3) never is: RTZ against the others.
      if (other == mode || (mode != Rounding::RTZ && other != Rounding::RTZ)) continue;
      const AttentionComparison c = compare_attention(p, exact, k.o, k.lse, other);
      EXPECT_GT(c.semantic_violations, 0) << numerics::to_string(mode) << " judged as " << numerics::to_string(other);
    }
  }
}

// compare_varlen on a paged varlen batch with every feature: the declared kernel run per sequence
// passes (rule 4 judged once over all sequences), the same kernel without its sink fails. Unused
// cache slots hold NaN (0x80): never read.
TEST(FeatureBound, PagedVarlenWithEveryFeature) {
  VarlenProblem p;
  p.base.shape = {3, 0, 0, 2, 1, 32, 16};
  p.base.mask = Mask::CausalBottomRight;
  p.base.window_left = 6;
  p.base.softcap = 20;
  p.base.sinks = {0.25f, -1.5f};
  p.base.scale = f32(1 / std::sqrt(32.0));
  p.base.dtype = ElementType::FP8_E5M2FNUZ;
  p.base.descale_q = {1.5f};
  p.base.descale_k = {0.7f, 1.1f, 2.3f};
  p.base.descale_v = {0.9f};
  p.cu_seqlens_q = {0, 3, 3, 8};
  p.seqused_k = {10, 0, 17};
  p.page_size = 4;
  p.pages_per_sequence = 5;
  p.block_table = {7, 2, 5, 0, 0, 0, 0, 0, 0, 0, 1, 6, 3, 4, 8};
  Rng g{31};
  p.q.resize(8 * 2 * 32);
  for (auto& x : p.q) x = encode(p.base.dtype, g.normal());
  p.k.assign(9 * 4 * 32, 0x80);
  p.v.assign(9 * 4 * 16, 0x80);
  for (std::int64_t b : {0, 2})
    for (std::int64_t j = 0; j < p.seqused_k[static_cast<std::size_t>(b)]; ++j) {
      const std::int64_t r = p.k_row(b, j);
      for (std::int64_t d = 0; d < 32; ++d) p.k[static_cast<std::size_t>(r * 32 + d)] = encode(p.base.dtype, g.normal());
      for (std::int64_t d = 0; d < 16; ++d) p.v[static_cast<std::size_t>(r * 16 + d)] = encode(p.base.dtype, g.normal());
    }
  validate(p);
  const AttentionResult exact = varlen_forward_exact(p);
  auto run = [&](Fault fault) {
    KernelOut all{std::vector<std::uint16_t>(static_cast<std::size_t>(p.o_elements())),
                  std::vector<float>(static_cast<std::size_t>(p.lse_elements()))};
    for (std::int64_t b = 0; b < p.sequences(); ++b) {
      const KernelOut k = declared_kernel(sequence_problem(p, b), Rounding::RTNE, 16, fault);
      scatter_sequence(p, b, k.o, k.lse, all.o, all.lse);
    }
    return compare_varlen(p, exact, all.o, all.lse, Rounding::RTNE);
  };
  const AttentionComparison ok = run({});
  EXPECT_TRUE(ok.pass()) << ok.first_failure;
  EXPECT_EQ(ok.o_judged, 8 * 2 * 16);
  const AttentionComparison wrong = run(Fault{.sink_dropped = true});
  EXPECT_FALSE(wrong.pass());
  EXPECT_GT(wrong.lse_violations, 8);
}

}  // namespace
}  // namespace cdna::reference
