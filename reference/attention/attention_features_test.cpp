// Tests of the exact oracle on the extended definition (docs/semantics.md §3, §4, §9, §10):
// sliding windows, Dv != D, the soft cap, attention sinks, fp8 inputs with descale factors.
//
// Where the expectations come from (never from the code under test):
//  - exact facts of the definition: window (0, 0) is the diagonal key alone; a sink equal to
//    every score gives P = 1/(n + 1); a no-visible-key row with a sink gives (+0.0, s_h);
//  - equalities the definition implies, checked bit for bit against base problems the oracle
//    already evaluates (reference/attention/attention_test.cpp checks those): a row's window = the same row
//    over its visible keys alone; Dv < D = the first Dv columns of a wider V; Dv > D = Q and K
//    padded with zero columns; a power-of-two descale = the bf16 problem of the scaled values;
//  - a direct MPFR evaluation of single rows at 320 bits (direct_row_check below), written from
//    the definition's formulas with its own visibility rule and fp8 decoding.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "numerics/fp8.hpp"
#include "reference/attention/attention.hpp"
#include "reference/attention/inputs.hpp"
#include "reference/common/mpfr_var.hpp"

namespace cdna::reference {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr auto kAuto = ExactOptions::Algorithm::Auto;
constexpr auto kGeneric = ExactOptions::Algorithm::Generic;
constexpr ExactOptions::Algorithm kAlgorithms[] = {kAuto, kGeneric};

AttentionResult run(const AttentionProblem& p, ExactOptions::Algorithm algo, unsigned prec = 128) {
  ExactOptions o;
  o.algorithm = algo;
  o.precision_bits = prec;
  return attention_forward_exact_with(p, o);
}

bool same_bits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b) || (std::isnan(a) && std::isnan(b));
}

// Every O and LSE value of `a` and `b` has the same bits (NaN = NaN).
::testing::AssertionResult same_result(const AttentionResult& a, const AttentionResult& b) {
  if (a.o.size() != b.o.size() || a.lse.size() != b.lse.size()) return ::testing::AssertionFailure() << "sizes differ";
  for (std::size_t x = 0; x < a.o.size(); ++x) {
    if (!same_bits(a.o[x], b.o[x])) return ::testing::AssertionFailure() << "O[" << x << "] " << a.o[x] << " vs " << b.o[x];
  }
  for (std::size_t x = 0; x < a.lse.size(); ++x) {
    if (!same_bits(a.lse[x], b.lse[x])) {
      return ::testing::AssertionFailure() << "LSE[" << x << "] " << a.lse[x] << " vs " << b.lse[x];
    }
  }
  return ::testing::AssertionSuccess();
}

double ulp(double x) {
  const double a = std::fabs(x);
  return std::nextafter(a, kInf) - a;
}

double bf16_value(std::uint16_t b) {
  return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16));
}
std::uint16_t bf16_exact(double x) {  // x must be a bf16 value (checked)
  const auto f = static_cast<float>(x);
  const auto b = static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(f) >> 16);
  EXPECT_TRUE(bf16_value(b) == x || std::isnan(x)) << x << " is not a bf16 value";
  return b;
}

// The fp8 value of a pattern from the format table of numerics/fp8.hpp (written out here, not
// taken from its conversion): E4M3FNUZ bias 8, 3 mantissa bits; E5M2FNUZ bias 16, 2 bits;
// 0x80 NaN, no infinity.
double fp8_value(ElementType t, std::uint16_t bits) {
  if (bits == 0x80) return std::numeric_limits<double>::quiet_NaN();
  const int mbits = t == ElementType::FP8_E4M3FNUZ ? 3 : 2, bias = t == ElementType::FP8_E4M3FNUZ ? 8 : 16;
  const int e = (bits & 0x7F) >> mbits, m = bits & ((1 << mbits) - 1);
  const double mag = e == 0 ? std::ldexp(m, 1 - bias - mbits) : std::ldexp((1 << mbits) + m, e - bias - mbits);
  return (bits & 0x80) ? -mag : mag;
}
double input_value(ElementType t, std::uint16_t bits) {
  return t == ElementType::BF16 ? bf16_value(bits) : fp8_value(t, bits);
}

// AttentionShape{B, Sq, Sk, Hq, Hkv, D, Dv}.
AttentionShape shape_of(std::int64_t b, std::int64_t sq, std::int64_t sk, std::int64_t hq, std::int64_t hkv,
                        std::int64_t d, std::int64_t dv = 0) {
  return AttentionShape{b, sq, sk, hq, hkv, d, dv};
}

AttentionProblem randn_case(const AttentionShape& s, Mask mask, float scale, std::uint64_t seed, double qk_std = 1.0) {
  AttentionProblem p;
  p.shape = s;
  p.mask = mask;
  p.scale = scale;
  fill_randn(p, seed, qk_std, 1.0);
  return p;
}

// Offsets, written out from the BSHD layout of attention.hpp.
std::size_t q_at(const AttentionShape& s, std::int64_t b, std::int64_t i, std::int64_t h, std::int64_t d) {
  return static_cast<std::size_t>(((b * s.seqlen_q + i) * s.heads_q + h) * s.head_dim + d);
}
std::size_t k_at(const AttentionShape& s, std::int64_t b, std::int64_t j, std::int64_t g, std::int64_t d) {
  return static_cast<std::size_t>(((b * s.seqlen_k + j) * s.heads_kv + g) * s.head_dim + d);
}
std::size_t v_at(const AttentionShape& s, std::int64_t b, std::int64_t j, std::int64_t g, std::int64_t d) {
  return static_cast<std::size_t>(((b * s.seqlen_k + j) * s.heads_kv + g) * s.dv() + d);
}
std::size_t o_at(const AttentionShape& s, std::int64_t b, std::int64_t i, std::int64_t h, std::int64_t d) {
  return static_cast<std::size_t>(((b * s.seqlen_q + i) * s.heads_q + h) * s.dv() + d);
}
std::size_t lse_at(const AttentionShape& s, std::int64_t b, std::int64_t h, std::int64_t i) {
  return static_cast<std::size_t>((b * s.heads_q + h) * s.seqlen_q + i);
}

// Key j visible to query i, from the convention (docs/semantics.md §3): diagonal i + Sk - Sq
// (i for causal top-left); causal adds j <= diag; the window diag - left <= j <= diag + right.
bool visible_def(const AttentionProblem& p, std::int64_t i, std::int64_t j) {
  const AttentionShape& s = p.shape;
  if (j < 0 || j >= s.seqlen_k) return false;
  const std::int64_t diag = p.mask == Mask::CausalTopLeft ? i : i + s.seqlen_k - s.seqlen_q;
  if (p.mask != Mask::None && j > diag) return false;
  if (p.window_left >= 0 && j < diag - p.window_left) return false;
  if (p.window_right >= 0 && j > diag + p.window_right) return false;
  return true;
}

using Mp = MpfrVar;

// The oracle's stated guarantee (attention.hpp), restated: (2n + 8)·2^-p relative to
// Σ P|V| for O, (2n + 8 + |LSE|)·2^-p for LSE.
double o_eps(std::int64_t n, unsigned p) { return std::ldexp(2.0 * double(n) + 8.0, -int(p)); }
double lse_eps(std::int64_t n, unsigned p, double lse) { return std::ldexp(2.0 * double(n) + 8.0 + std::fabs(lse), -int(p)); }

// ---------------------------------------------------------------------------------------------
// The direct evaluation of one row (b, i, h) with at least one visible key and finite inputs
// in that row's Q and visible K, or raw ±inf scores under a cap.
//
// At 320 bits: the raw score σ·dq·dk·Σ q·k exactly (4096 bits hold it); the cap
// c·tanh(S/c) (relative error <= 4·2^-320, so absolute <= 2^-300 for c < 2^20); weights
// exp(S_j - M) with M the largest capped score or the sink; Z = Σ w + exp(s_h - M);
// O_d = dv·Σ w V_d / Z; LSE = M + ln Z. Its own error is below 2^-280 relative to Σ P|V| (O) and
// absolute (LSE) for the n <= 64 keys used here. Checks the oracle's result within
// RN's half ulp + the stated guarantee + that.
void direct_row_check(const AttentionProblem& p, const AttentionResult& r, std::int64_t b, std::int64_t i,
                      std::int64_t h, unsigned oracle_prec, const std::string& what) {
  constexpr mpfr_prec_t kWork = 320;
  const AttentionShape& s = p.shape;
  const std::int64_t g = h / (s.heads_q / s.heads_kv);
  auto factor = [&](const std::vector<float>& f) {
    if (f.empty()) return 1.0;
    return static_cast<double>(f.size() == 1 ? f[0] : f[static_cast<std::size_t>(b * s.heads_kv + g)]);
  };
  std::vector<std::int64_t> keys;
  for (std::int64_t j = 0; j < s.seqlen_k; ++j) {
    if (visible_def(p, i, j)) keys.push_back(j);
  }
  const auto n = static_cast<std::int64_t>(keys.size());
  ASSERT_GE(n, 1) << what;
  std::vector<Mp*> sc;
  Mp dot(4096), t(kWork), m(kWork), z(kWork), num(kWork), err(kWork);
  for (std::int64_t j : keys) {
    sc.push_back(new Mp(kWork));
    double ieee = 0;  // for raw ±inf scores only
    mpfr_set_zero(dot, 1);
    for (std::int64_t d = 0; d < s.head_dim; ++d) {
      const double qv = input_value(p.dtype, p.q[q_at(s, b, i, h, d)]);
      const double kv = input_value(p.dtype, p.k[k_at(s, b, j, g, d)]);
      ieee += qv * kv;
      mpfr_set_d(t, qv, MPFR_RNDN);
      mpfr_mul_d(t, t, kv, MPFR_RNDN);  // exact at 320 bits
      mpfr_add(dot, dot, t, MPFR_RNDN);  // exact at 4096 bits
    }
    mpfr_mul_d(dot, dot, p.scale, MPFR_RNDN);
    mpfr_mul_d(dot, dot, factor(p.descale_q), MPFR_RNDN);
    mpfr_mul_d(dot, dot, factor(p.descale_k), MPFR_RNDN);
    mpfr_ptr sj = *sc.back();
    if (std::isinf(ieee)) {
      ASSERT_GT(p.softcap, 0.0f) << what << ": a raw infinite score needs a cap here";
      mpfr_set_d(sj, ieee > 0 ? p.softcap : -p.softcap, MPFR_RNDN);
    } else if (p.softcap > 0) {
      mpfr_div_d(t, dot, p.softcap, MPFR_RNDN);
      mpfr_tanh(t, t, MPFR_RNDN);
      mpfr_mul_d(sj, t, p.softcap, MPFR_RNDN);
    } else {
      mpfr_set(sj, dot, MPFR_RNDN);
    }
  }
  const double sink = p.sinks.empty() ? -kInf : p.sinks[static_cast<std::size_t>(h)];
  mpfr_set_d(m, sink, MPFR_RNDN);
  for (Mp* x : sc) mpfr_max(m, m, *x, MPFR_RNDN);
  std::vector<Mp*> w;
  mpfr_set_d(z, sink, MPFR_RNDN);
  mpfr_sub(z, z, m, MPFR_RNDN);
  mpfr_exp(z, z, MPFR_RNDN);  // exp(-inf) = 0 for no sink
  for (Mp* x : sc) {
    w.push_back(new Mp(kWork));
    mpfr_sub(*w.back(), *x, m, MPFR_RNDN);
    mpfr_exp(*w.back(), *w.back(), MPFR_RNDN);
    mpfr_add(z, z, *w.back(), MPFR_RNDN);
  }
  const double dv = factor(p.descale_v);
  for (std::int64_t d = 0; d < s.dv(); ++d) {
    mpfr_set_zero(num, 1);
    double bd = 0;  // Σ P_j |dv·V_jd|
    for (std::size_t x = 0; x < keys.size(); ++x) {
      const double v = input_value(p.dtype, p.v[v_at(s, b, keys[x], g, d)]);
      mpfr_mul_d(t, *w[x], v, MPFR_RNDN);
      mpfr_add(num, num, t, MPFR_RNDN);
      mpfr_div(t, *w[x], z, MPFR_RNDN);
      bd += mpfr_get_d(t, MPFR_RNDU) * std::fabs(v) * dv;
    }
    mpfr_div(num, num, z, MPFR_RNDN);
    mpfr_mul_d(num, num, dv, MPFR_RNDN);
    const double o = r.o[o_at(s, b, i, h, d)];
    mpfr_sub_d(err, num, o, MPFR_RNDN);
    const double tol = 0.5 * ulp(o) + (o_eps(n, oracle_prec) + 0x1p-280) * bd * (1 + 0x1p-40);
    EXPECT_LE(std::fabs(mpfr_get_d(err, MPFR_RNDU)), tol)
        << what << " O b=" << b << " i=" << i << " h=" << h << " d=" << d << " oracle " << o << " direct "
        << mpfr_get_d(num, MPFR_RNDN);
  }
  mpfr_log(z, z, MPFR_RNDN);
  mpfr_add(z, z, m, MPFR_RNDN);
  const double lse = r.lse[lse_at(s, b, h, i)];
  mpfr_sub_d(err, z, lse, MPFR_RNDN);
  EXPECT_LE(std::fabs(mpfr_get_d(err, MPFR_RNDU)), 0.5 * ulp(lse) + lse_eps(n, oracle_prec, lse) + 0x1p-280)
      << what << " LSE b=" << b << " i=" << i << " h=" << h << " oracle " << lse << " direct " << mpfr_get_d(z, MPFR_RNDN);
  for (Mp* x : sc) delete x;
  for (Mp* x : w) delete x;
}

// Every row of `p` with a visible key checked by direct_row_check; rows without one must be
// (+0.0, s_h or -inf).
void direct_check_all(const AttentionProblem& p, const AttentionResult& r, unsigned oracle_prec, const std::string& what) {
  const AttentionShape& s = p.shape;
  for (std::int64_t b = 0; b < s.batch; ++b)
    for (std::int64_t h = 0; h < s.heads_q; ++h)
      for (std::int64_t i = 0; i < s.seqlen_q; ++i) {
        bool any = false;
        for (std::int64_t j = 0; j < s.seqlen_k; ++j) any = any || visible_def(p, i, j);
        if (any) {
          direct_row_check(p, r, b, i, h, oracle_prec, what);
          continue;
        }
        const double sink = p.sinks.empty() ? -kInf : p.sinks[static_cast<std::size_t>(h)];
        EXPECT_TRUE(same_bits(r.lse[lse_at(s, b, h, i)], sink + 0.0)) << what << " i=" << i << " h=" << h;
        for (std::int64_t d = 0; d < s.dv(); ++d) {
          EXPECT_TRUE(same_bits(r.o[o_at(s, b, i, h, d)], 0.0)) << what << " i=" << i << " d=" << d;
        }
      }
}

// ---------------------------------------------------------------------------------------------
// Windows.

TEST(Window, ZeroZeroIsTheDiagonalKeyAlone) {
  // O = V of the diagonal key bit for bit, LSE = its score correctly rounded (one visible key:
  // P = 1, docs/semantics.md §3); a diagonal outside 0..Sk-1 leaves the row without keys.
  for (const auto& [sq, sk] : {std::pair<std::int64_t, std::int64_t>{5, 8}, {8, 5}}) {
    for (Mask mask : {Mask::None, Mask::CausalBottomRight, Mask::CausalTopLeft}) {
      AttentionProblem p = randn_case(shape_of(1, sq, sk, 2, 1, 16), mask, 0.3f, 40 + static_cast<std::uint64_t>(sq));
      p.window_left = p.window_right = 0;
      for (auto algo : kAlgorithms) {
        const AttentionResult r = run(p, algo);
        for (std::int64_t h = 0; h < 2; ++h)
          for (std::int64_t i = 0; i < sq; ++i) {
            const std::int64_t j = mask == Mask::CausalTopLeft ? i : i + sk - sq;
            const std::string at = std::string(to_string(mask)) + " Sq " + std::to_string(sq) + " i " + std::to_string(i);
            if (j < 0 || j >= sk) {
              EXPECT_EQ(r.lse[lse_at(p.shape, 0, h, i)], -kInf) << at;
              continue;
            }
            Mp score(4096);
            mpfr_set_zero(score, 1);
            for (std::int64_t d = 0; d < 16; ++d) {
              mpfr_add_d(score, score, bf16_value(p.q[q_at(p.shape, 0, i, h, d)]) * bf16_value(p.k[k_at(p.shape, 0, j, 0, d)]),
                         MPFR_RNDN);
            }
            mpfr_mul_d(score, score, 0.3f, MPFR_RNDN);
            EXPECT_TRUE(same_bits(r.lse[lse_at(p.shape, 0, h, i)], mpfr_get_d(score, MPFR_RNDN) + 0.0)) << at;
            for (std::int64_t d = 0; d < 16; ++d) {
              EXPECT_TRUE(same_bits(r.o[o_at(p.shape, 0, i, h, d)], bf16_value(p.v[v_at(p.shape, 0, j, 0, d)]) + 0.0))
                  << at << " d " << d;
            }
          }
      }
    }
  }
}

TEST(Window, WiderThanTheSequenceChangesNothing) {
  const std::pair<std::int64_t, std::int64_t> windows[] = {{9, 9}, {40, -1}, {-1, 9}, {8, 8}};
  for (Mask mask : {Mask::None, Mask::CausalBottomRight, Mask::CausalTopLeft}) {
    const AttentionProblem base = randn_case(shape_of(2, 6, 9, 2, 2, 8), mask, 0.4f, 50, 2.0);
    for (const auto& [left, right] : windows) {
      AttentionProblem p = base;
      p.window_left = left;
      p.window_right = right;
      for (auto algo : kAlgorithms) {
        EXPECT_TRUE(same_result(run(p, algo), run(base, algo))) << to_string(mask) << " (" << left << ", " << right << ")";
      }
    }
  }
}

TEST(Window, EachRowEqualsItsVisibleKeysAloneAndNeverReadsTheOthers) {
  // Row i of a windowed problem, with every key it does not see set to NaN (K and V), equals the
  // unmasked one-row problem over exactly its visible keys (the visibility rule of the convention).
  const std::pair<std::int64_t, std::int64_t> windows[] = {{2, 0}, {1, 2}, {0, 3}, {3, -1}, {-1, 1}};
  const std::pair<std::int64_t, std::int64_t> lengths[] = {{7, 7}, {4, 9}, {9, 4}};
  std::uint64_t seed = 60;
  for (Mask mask : {Mask::None, Mask::CausalBottomRight, Mask::CausalTopLeft}) {
    for (const auto& [sq, sk] : lengths) {
      for (const auto& [left, right] : windows) {
        AttentionProblem p = randn_case(shape_of(1, sq, sk, 1, 1, 8), mask, 0.5f, seed++, 2.0);
        p.window_left = left;
        p.window_right = right;
        for (std::int64_t i = 0; i < sq; ++i) {
          AttentionProblem poisoned = p, alone = p;
          alone.shape.seqlen_q = 1;
          alone.mask = Mask::None;
          alone.window_left = alone.window_right = -1;
          alone.q.assign(p.q.begin() + i * 8, p.q.begin() + (i + 1) * 8);
          alone.k.clear();
          alone.v.clear();
          for (std::int64_t j = 0; j < sk; ++j) {
            for (std::int64_t d = 0; d < 8; ++d) {
              if (visible_def(p, i, j)) {
                alone.k.push_back(p.k[k_at(p.shape, 0, j, 0, d)]);
                alone.v.push_back(p.v[v_at(p.shape, 0, j, 0, d)]);
              } else {
                poisoned.k[k_at(p.shape, 0, j, 0, d)] = 0x7FC0;
                poisoned.v[v_at(p.shape, 0, j, 0, d)] = 0x7FC0;
              }
            }
          }
          alone.shape.seqlen_k = static_cast<std::int64_t>(alone.k.size() / 8);
          const std::string at = std::string(to_string(mask)) + " Sq " + std::to_string(sq) + " Sk " +
                                 std::to_string(sk) + " window (" + std::to_string(left) + ", " +
                                 std::to_string(right) + ") row " + std::to_string(i);
          for (auto algo : kAlgorithms) {
            const AttentionResult got = run(poisoned, algo), want = run(alone, algo);
            EXPECT_TRUE(same_bits(got.lse[lse_at(p.shape, 0, 0, i)], want.lse[0])) << at;
            for (std::int64_t d = 0; d < 8; ++d) {
              EXPECT_TRUE(same_bits(got.o[o_at(p.shape, 0, i, 0, d)], want.o[static_cast<std::size_t>(d)])) << at << " d " << d;
            }
          }
        }
      }
    }
  }
}

TEST(Window, Example) {
  // Sq = Sk = 6, causal, window (2, 0) (Mistral-style: the last 3 keys): row i sees
  // max(0, i - 2) .. i; with Sq = 3, Sk = 6 bottom-right the diagonal is i + 3.
  AttentionProblem p = randn_case(shape_of(1, 6, 6, 1, 1, 4), Mask::CausalBottomRight, 1.0f, 70);
  p.window_left = 2;
  p.window_right = 0;
  for (std::int64_t i = 0; i < 6; ++i) {
    const KeyRange r = visible_range(p, i);
    EXPECT_EQ(r.first, std::max<std::int64_t>(0, i - 2));
    EXPECT_EQ(r.count, i - std::max<std::int64_t>(0, i - 2) + 1);
  }
  p.shape.seqlen_q = 3;
  EXPECT_EQ(visible_range(p, 0).first, 1);
  EXPECT_EQ(visible_range(p, 0).count, 3);
}

// ---------------------------------------------------------------------------------------------
// Dv != D.

TEST(HeadDimV, Dv128OfD192EqualsTheFirstColumnsOfAWiderV) {
  // AITER's 192 × 128: each O column d depends on V column d only, so O equals the first 128
  // columns of the base problem (Dv = D = 192) whose V has 64 more (random) columns.
  AttentionProblem p = randn_case(shape_of(2, 3, 20, 4, 2, 192, 128), Mask::CausalBottomRight, 0.072f, 80, 2.0);
  AttentionProblem wide = p;
  wide.shape.head_dim_v = 0;
  const std::vector<std::uint16_t> extra = randn_bf16(static_cast<std::size_t>(2 * 20 * 2 * 64), 81);
  wide.v.clear();
  for (std::size_t row = 0; row < static_cast<std::size_t>(2 * 20 * 2); ++row) {
    wide.v.insert(wide.v.end(), p.v.begin() + static_cast<std::ptrdiff_t>(row * 128),
                  p.v.begin() + static_cast<std::ptrdiff_t>((row + 1) * 128));
    wide.v.insert(wide.v.end(), extra.begin() + static_cast<std::ptrdiff_t>(row * 64),
                  extra.begin() + static_cast<std::ptrdiff_t>((row + 1) * 64));
  }
  for (auto algo : kAlgorithms) {
    const AttentionResult a = run(p, algo), w = run(wide, algo);
    ASSERT_EQ(a.o.size(), static_cast<std::size_t>(2 * 3 * 4 * 128));
    for (std::size_t row = 0; row < static_cast<std::size_t>(2 * 3 * 4); ++row)
      for (std::size_t d = 0; d < 128; ++d) {
        EXPECT_TRUE(same_bits(a.o[row * 128 + d], w.o[row * 192 + d])) << "row " << row << " d " << d;
      }
    for (std::size_t x = 0; x < a.lse.size(); ++x) EXPECT_TRUE(same_bits(a.lse[x], w.lse[x])) << x;
  }
}

TEST(HeadDimV, DvAboveDEqualsQAndKPaddedWithZeroColumns) {
  // D = 64, Dv = 128: zero columns added to Q and K change no score, so the base problem with
  // D = Dv = 128 is the same problem.
  AttentionProblem p = randn_case(shape_of(1, 5, 11, 2, 1, 64, 128), Mask::CausalTopLeft, 0.125f, 90, 2.0);
  AttentionProblem padded = p;
  padded.shape.head_dim = 128;
  padded.shape.head_dim_v = 0;
  auto pad = [](const std::vector<std::uint16_t>& x) {
    std::vector<std::uint16_t> out;
    for (std::size_t row = 0; row < x.size() / 64; ++row) {
      out.insert(out.end(), x.begin() + static_cast<std::ptrdiff_t>(row * 64), x.begin() + static_cast<std::ptrdiff_t>(row * 64 + 64));
      out.insert(out.end(), 64, std::uint16_t{0});
    }
    return out;
  };
  padded.q = pad(p.q);
  padded.k = pad(p.k);
  for (auto algo : kAlgorithms) EXPECT_TRUE(same_result(run(p, algo), run(padded, algo)));
}

// ---------------------------------------------------------------------------------------------
// Soft cap.

TEST(SoftCap, MaskedKeysWeighNothingEvenWhenTheirKAndVAreNaN) {
  // Top-left causal, Sq = 4: keys 4..9 are masked for every row. With a cap they still weigh 0
  // (the cap comes before the mask; a cap after a -inf mask would give them weight e^-c): the
  // result equals the problem with only keys 0..3.
  AttentionProblem p = randn_case(shape_of(1, 4, 10, 2, 1, 16), Mask::CausalTopLeft, 0.5f, 100, 2.0);
  p.softcap = 3.0f;
  for (std::size_t x = 4 * 16; x < p.k.size(); ++x) p.k[x] = p.v[x] = 0x7FC0;
  AttentionProblem four = p;
  four.shape.seqlen_k = 4;
  four.k.resize(4 * 16);
  four.v.resize(4 * 16);
  for (auto algo : kAlgorithms) {
    const AttentionResult r = run(p, algo);
    EXPECT_TRUE(same_result(r, run(four, algo)));
    for (double o : r.o) EXPECT_FALSE(std::isnan(o));
  }
}

TEST(SoftCap, HugeCapEqualsNoCap) {
  // c = 1e30: c·tanh(S/c) = S·(1 - S²/(3c²) + ...), a relative change ~1e-58 (~2^-192) for
  // |S| < 100: far below the oracle's 2^-128, so the rounded results are those without a cap.
  for (Mask mask : {Mask::None, Mask::CausalBottomRight}) {
    const AttentionProblem base = randn_case(shape_of(1, 6, 13, 2, 2, 32), mask, 0.177f, 110, 2.0);
    AttentionProblem p = base;
    p.softcap = 1e30f;
    for (auto algo : kAlgorithms) EXPECT_TRUE(same_result(run(p, algo), run(base, algo))) << to_string(mask);
  }
}

TEST(SoftCap, SmallCapMatchesADirectMpfrEvaluation) {
  // Scores with std ~8 under caps 2.5 and 7.3: many saturate near ±c, so the cap shapes P.
  for (const float cap : {2.5f, 7.3f}) {
    AttentionProblem p = randn_case(shape_of(1, 4, 40, 2, 1, 32), Mask::CausalBottomRight, 0.177f, 120, 2.0);
    p.softcap = cap;
    for (auto algo : kAlgorithms) direct_check_all(p, run(p, algo), 128, "cap " + std::to_string(cap));
  }
}

TEST(SoftCap, InfiniteRawScoresCapToPlusMinusC) {
  // q[0] = +inf and k[j][0] = ±1: every raw score of row 0 is ±inf, capped to ±c
  // (docs/semantics.md §3): the row is finite, weights e^(±c - c).
  AttentionProblem p = randn_case(shape_of(1, 2, 6, 1, 1, 8), Mask::None, 0.5f, 130);
  p.softcap = 4.0f;
  p.q[0] = 0x7F80;
  for (std::int64_t j = 0; j < 6; ++j) p.k[k_at(p.shape, 0, j, 0, 0)] = j == 2 ? 0xBF80 : 0x3F80;  // key 2 at -c
  for (auto algo : kAlgorithms) {
    const AttentionResult r = run(p, algo);
    EXPECT_TRUE(std::isfinite(r.lse[0]));
    direct_check_all(p, r, 128, "inf under cap");
  }
  // Without the cap the row has +inf scores (§5.6): two or more give O = NaN, LSE = +inf.
  p.softcap = 0.0f;
  const AttentionResult r = run(p, kAuto);
  EXPECT_EQ(r.lse[0], kInf);
  EXPECT_TRUE(std::isnan(r.o[0]));
  // A NaN score stays NaN under a cap: inf · 0.
  p.softcap = 4.0f;
  p.k[k_at(p.shape, 0, 3, 0, 0)] = 0;
  EXPECT_TRUE(std::isnan(run(p, kAuto).lse[0]));
}

// ---------------------------------------------------------------------------------------------
// Sinks.

TEST(Sinks, MinusInfinityIsNoSink) {
  const AttentionProblem base = randn_case(shape_of(2, 5, 7, 4, 2, 16), Mask::CausalBottomRight, 0.25f, 140, 2.0);
  AttentionProblem p = base;
  p.sinks.assign(4, -std::numeric_limits<float>::infinity());
  for (auto algo : kAlgorithms) EXPECT_TRUE(same_result(run(p, algo), run(base, algo)));
}

TEST(Sinks, RowsWithoutVisibleKeysGiveZeroAndTheSink) {
  // Sq 5, Sk 2 bottom-right: rows 0..2 see nothing: O = +0.0, LSE = s_h (Z = exp(s_h)).
  // Row 3 of head 1 has only -inf scores (q = -inf against positive k): the same.
  AttentionProblem p = randn_case(shape_of(1, 5, 2, 2, 1, 4), Mask::CausalBottomRight, 1.0f, 150);
  p.sinks = {1.5f, -3.25f};
  for (std::int64_t d = 0; d < 4; ++d) {
    p.q[q_at(p.shape, 0, 3, 1, d)] = d == 0 ? 0xFF80 : 0;
    p.k[k_at(p.shape, 0, 0, 0, d)] = 0x3F80;
  }
  for (auto algo : kAlgorithms) {
    const AttentionResult r = run(p, algo);
    for (std::int64_t h = 0; h < 2; ++h)
      for (std::int64_t i = 0; i < 5; ++i) {
        if (i >= 3 && !(i == 3 && h == 1)) continue;
        EXPECT_TRUE(same_bits(r.lse[lse_at(p.shape, 0, h, i)], p.sinks[static_cast<std::size_t>(h)])) << h << " " << i;
        for (std::int64_t d = 0; d < 4; ++d) EXPECT_TRUE(same_bits(r.o[o_at(p.shape, 0, i, h, d)], 0.0)) << h << " " << i;
      }
  }
}

TEST(Sinks, ASinkEqualToEveryScoreIsOneMoreEqualKey) {
  // σ = 0: every score is 0; s_h = 0: P = 1/(n + 1) for each of the n visible keys.
  // n = 3: O = (V0 + V1 + V2)/4, exact in double for these values; LSE = ln 4.
  // n = 2: O = (V0 + V1)/3 and LSE = ln 3 within the stated guarantee.
  for (const std::int64_t n : {3, 2}) {
    AttentionProblem p = randn_case(shape_of(1, 1, n, 1, 1, 8), Mask::None, 0.0f, 160 + static_cast<std::uint64_t>(n));
    p.sinks = {0.0f};
    Mp ln(256);
    mpfr_set_si(ln, n + 1, MPFR_RNDN);
    mpfr_log(ln, ln, MPFR_RNDN);
    for (auto algo : kAlgorithms) {
      const AttentionResult r = run(p, algo);
      const double want_lse = mpfr_get_d(ln, MPFR_RNDN);
      EXPECT_LE(std::fabs(r.lse[0] - want_lse), ulp(want_lse) + lse_eps(n, 128, want_lse)) << n;
      for (std::int64_t d = 0; d < 8; ++d) {
        double sum = 0, mag = 0;
        for (std::int64_t j = 0; j < n; ++j) {
          sum += bf16_value(p.v[v_at(p.shape, 0, j, 0, d)]);  // exact: 8-bit values within 2^-12 .. 2^3
          mag += std::fabs(bf16_value(p.v[v_at(p.shape, 0, j, 0, d)]));
        }
        if (n == 3) {
          EXPECT_TRUE(same_bits(r.o[static_cast<std::size_t>(d)], sum / 4 + 0.0)) << d;
        } else {
          EXPECT_LE(std::fabs(r.o[static_cast<std::size_t>(d)] - sum / 3),
                    ulp(sum / 3) + o_eps(n, 128) * mag / 3) << d;
        }
      }
    }
  }
}

TEST(Sinks, SpecialScoresKeepTheirMeaning) {
  // One +inf score (no cap): O = V of that key, LSE = +inf; a NaN score: the row is NaN.
  AttentionProblem p = randn_case(shape_of(1, 2, 4, 1, 1, 4), Mask::None, 1.0f, 170);
  p.sinks = {2.0f};
  for (std::int64_t d = 0; d < 4; ++d) p.q[q_at(p.shape, 0, 0, 0, d)] = d == 0 ? 0x7F80 : 0;
  for (std::int64_t j = 0; j < 4; ++j) p.k[k_at(p.shape, 0, j, 0, 0)] = j == 1 ? 0x3F80 : 0xBF80;
  p.q[q_at(p.shape, 0, 1, 0, 2)] = 0x7FC0;
  for (auto algo : kAlgorithms) {
    const AttentionResult r = run(p, algo);
    EXPECT_EQ(r.lse[0], kInf);
    for (std::int64_t d = 0; d < 4; ++d) EXPECT_TRUE(same_bits(r.o[static_cast<std::size_t>(d)], bf16_value(p.v[v_at(p.shape, 0, 1, 0, d)]) + 0.0));
    EXPECT_TRUE(std::isnan(r.lse[1]));
    for (std::int64_t d = 0; d < 4; ++d) EXPECT_TRUE(std::isnan(r.o[o_at(p.shape, 0, 1, 0, d)]));
  }
}

TEST(Sinks, MatchADirectMpfrEvaluation) {
  // Sinks below, among and above the scores (the sink is then M and no key weighs 1).
  AttentionProblem p = randn_case(shape_of(1, 3, 9, 4, 2, 16), Mask::CausalTopLeft, 0.25f, 180, 2.0);
  p.sinks = {-6.0f, 0.5f, 3.0f, 40.0f};
  for (auto algo : kAlgorithms) direct_check_all(p, run(p, algo), 128, "sinks");
}

// ---------------------------------------------------------------------------------------------
// fp8 inputs.

std::vector<std::uint16_t> fp8_randn(std::size_t n, std::uint64_t seed, ElementType t, double stddev) {
  const auto kind = t == ElementType::FP8_E4M3FNUZ ? numerics::Fp8Kind::Fp8 : numerics::Fp8Kind::Bf8;
  std::vector<std::uint16_t> out = randn_bf16(n, seed, stddev);
  for (std::uint16_t& x : out) x = numerics::fp8_from_f32_rne(static_cast<float>(bf16_value(x)), kind, numerics::Fp8Overflow::Saturate);
  return out;
}

AttentionProblem fp8_case(const AttentionShape& s, ElementType t, std::uint64_t seed) {
  AttentionProblem p;
  p.shape = s;
  p.dtype = t;
  p.scale = 0.2f;
  p.mask = Mask::CausalBottomRight;
  p.q = fp8_randn(static_cast<std::size_t>(s.q_elements()), seed, t, 1.5);
  p.k = fp8_randn(static_cast<std::size_t>(s.kv_elements()), seed + 1, t, 1.5);
  p.v = fp8_randn(static_cast<std::size_t>(s.v_elements()), seed + 2, t, 1.0);
  return p;
}

// The bf16 problem of the real inputs when every descale is a power of two: each pattern's value
// times its factor (exact) as a bf16 pattern.
AttentionProblem dequantised(const AttentionProblem& p) {
  AttentionProblem out = p;
  out.dtype = ElementType::BF16;
  out.descale_q.clear();
  out.descale_k.clear();
  out.descale_v.clear();
  const AttentionShape& s = p.shape;
  const std::int64_t group = s.heads_q / s.heads_kv;
  auto f = [&](const std::vector<float>& x, std::int64_t b, std::int64_t g) {
    return x.empty() ? 1.0 : x.size() == 1 ? x[0] : x[static_cast<std::size_t>(b * s.heads_kv + g)];
  };
  for (std::int64_t b = 0; b < s.batch; ++b) {
    for (std::int64_t i = 0; i < s.seqlen_q; ++i)
      for (std::int64_t h = 0; h < s.heads_q; ++h)
        for (std::int64_t d = 0; d < s.head_dim; ++d) {
          const std::size_t x = q_at(s, b, i, h, d);
          out.q[x] = bf16_exact(fp8_value(p.dtype, p.q[x]) * f(p.descale_q, b, h / group));
        }
    for (std::int64_t j = 0; j < s.seqlen_k; ++j)
      for (std::int64_t g = 0; g < s.heads_kv; ++g) {
        for (std::int64_t d = 0; d < s.head_dim; ++d) {
          const std::size_t x = k_at(s, b, j, g, d);
          out.k[x] = bf16_exact(fp8_value(p.dtype, p.k[x]) * f(p.descale_k, b, g));
        }
        for (std::int64_t d = 0; d < s.dv(); ++d) {
          const std::size_t x = v_at(s, b, j, g, d);
          out.v[x] = bf16_exact(fp8_value(p.dtype, p.v[x]) * f(p.descale_v, b, g));
        }
      }
  }
  return out;
}

TEST(Fp8, PatternsDenoteTheirFormatValues) {
  for (ElementType t : {ElementType::FP8_E4M3FNUZ, ElementType::FP8_E5M2FNUZ}) {
    const AttentionProblem p = fp8_case(shape_of(1, 4, 9, 2, 1, 16), t, 200);
    for (auto algo : kAlgorithms) EXPECT_TRUE(same_result(run(p, algo), run(dequantised(p), algo))) << to_string(t);
  }
}

TEST(Fp8, PerTensorPowerOfTwoDescaleIsExactScaling) {
  for (ElementType t : {ElementType::FP8_E4M3FNUZ, ElementType::FP8_E5M2FNUZ}) {
    AttentionProblem p = fp8_case(shape_of(1, 5, 12, 2, 2, 32, 16), t, 210);
    p.descale_q = {8.0f};
    p.descale_k = {0.25f};
    p.descale_v = {0x1p-5f};
    for (auto algo : kAlgorithms) EXPECT_TRUE(same_result(run(p, algo), run(dequantised(p), algo))) << to_string(t);
  }
}

TEST(Fp8, PerBatchAndKvHeadFactorsIndexTheRightHead) {
  // B = 2, Hkv = 2, Hq = 4 (query heads 2g, 2g + 1 read KV head g): a different power of two
  // per (b, g) and tensor, so a factor taken from another head or batch changes the result.
  AttentionProblem p = fp8_case(shape_of(2, 3, 7, 4, 2, 16), ElementType::FP8_E4M3FNUZ, 220);
  p.descale_q = {1.0f, 4.0f, 0.5f, 2.0f};
  p.descale_k = {0.125f, 1.0f, 8.0f, 0.25f};
  p.descale_v = {2.0f, 0.0625f, 1.0f, 16.0f};
  for (auto algo : kAlgorithms) EXPECT_TRUE(same_result(run(p, algo), run(dequantised(p), algo)));
}

TEST(Fp8, OtherDescaleFactorsAreCarriedExactly) {
  // Factors that are not powers of two: σ·dq·dk has up to 72 significant bits; rounding it to a
  // double would move scores by ~2^-53 relative, far beyond the oracle's guarantee.
  AttentionProblem p = fp8_case(shape_of(2, 3, 10, 2, 1, 16, 8), ElementType::FP8_E5M2FNUZ, 230);
  p.descale_q = {0.3f, 1.7f};
  p.descale_k = {0.0123f};
  p.descale_v = {1.1f, 0.37f};
  for (auto algo : kAlgorithms) direct_check_all(p, run(p, algo), 128, "descale");
}

TEST(Fp8, NaNPatternPropagatesByTheRules) {
  // 0x80 in a visible Q row: the row is NaN (§5.4); in a visible V: that column only (§5.7);
  // in keys no row sees: nothing.
  AttentionProblem p = fp8_case(shape_of(1, 3, 8, 1, 1, 8), ElementType::FP8_E4M3FNUZ, 240);
  p.mask = Mask::CausalTopLeft;  // keys 3..7 are seen by no row
  const AttentionResult clean = run(p, kAuto);
  p.q[q_at(p.shape, 0, 1, 0, 5)] = 0x80;
  p.v[v_at(p.shape, 0, 0, 0, 2)] = 0x80;
  for (std::int64_t j = 3; j < 8; ++j) p.k[k_at(p.shape, 0, j, 0, 0)] = p.v[v_at(p.shape, 0, j, 0, 1)] = 0x80;
  for (auto algo : kAlgorithms) {
    const AttentionResult r = run(p, algo);
    EXPECT_TRUE(std::isnan(r.lse[1]));
    for (std::int64_t d = 0; d < 8; ++d) EXPECT_TRUE(std::isnan(r.o[o_at(p.shape, 0, 1, 0, d)]));
    for (const std::int64_t i : {0, 2}) {
      EXPECT_TRUE(same_bits(r.lse[static_cast<std::size_t>(i)], clean.lse[static_cast<std::size_t>(i)]));
      for (std::int64_t d = 0; d < 8; ++d) {
        const std::size_t x = o_at(p.shape, 0, i, 0, d);
        if (d == 2) {
          EXPECT_TRUE(std::isnan(r.o[x])) << i;
        } else {
          EXPECT_TRUE(same_bits(r.o[x], clean.o[x])) << i << " " << d;
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Every feature at once, random.

AttentionProblem random_feature_problem(std::mt19937_64& gen, std::uint64_t seed) {
  auto pick = [&gen](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(gen); };
  const std::int64_t hkv = pick(1, 2), group = pick(1, 2), batch = pick(1, 2);
  const std::int64_t dims[] = {8, 16, 24}, dvs[] = {0, 8, 12, 32};
  const AttentionShape s = shape_of(batch, pick(1, 6), pick(0, 12), hkv * group, hkv, dims[pick(0, 2)], dvs[pick(0, 3)]);
  const ElementType types[] = {ElementType::BF16, ElementType::FP8_E4M3FNUZ, ElementType::FP8_E5M2FNUZ};
  const ElementType t = types[pick(0, 2)];
  AttentionProblem p = t == ElementType::BF16 ? randn_case(s, Mask::None, 0.3f, seed, 2.0) : fp8_case(s, t, seed);
  const Mask masks[] = {Mask::None, Mask::CausalBottomRight, Mask::CausalTopLeft};
  p.mask = masks[pick(0, 2)];
  p.window_left = pick(-1, 5);
  p.window_right = pick(-1, 3);
  const float caps[] = {0.0f, 1.5f, 7.0f, 30.0f};
  p.softcap = caps[pick(0, 3)];
  if (pick(0, 1) == 1) {
    for (std::int64_t h = 0; h < s.heads_q; ++h) {
      p.sinks.push_back(pick(0, 3) == 0 ? -std::numeric_limits<float>::infinity() : static_cast<float>(pick(-40, 40)) * 0.15f);
    }
  }
  if (t != ElementType::BF16) {
    const float factors[] = {0.3f, 1.7f, 0.0123f, 2.0f};
    for (auto* f : {&p.descale_q, &p.descale_k, &p.descale_v}) {
      const std::int64_t form = pick(0, 2);  // none, per tensor, per (b, g)
      const std::int64_t count = form == 0 ? 0 : form == 1 ? 1 : batch * hkv;
      for (std::int64_t x = 0; x < count; ++x) f->push_back(factors[pick(0, 3)]);
    }
  }
  return p;
}

TEST(Features, RandomProblemsMatchADirectMpfrEvaluation) {
  std::mt19937_64 gen(20261201);
  for (int c = 0; c < 40; ++c) {
    const AttentionProblem p = random_feature_problem(gen, static_cast<std::uint64_t>(300 + 3 * c));
    const std::string what = "case " + std::to_string(c) + " " + extended_feature(p).value_or("base");
    direct_check_all(p, run(p, kAuto), 128, what + " auto");
    direct_check_all(p, run(p, kGeneric, 192), 192, what + " generic-192");
  }
}

TEST(Features, AutoAndGenericAgreeWithinTheStatedError) {
  // Both are within half an ulp plus the guarantee of the same exact value; B_d <= max |dv·V|.
  std::mt19937_64 gen(20261202);
  for (int c = 0; c < 40; ++c) {
    const AttentionProblem p = random_feature_problem(gen, static_cast<std::uint64_t>(500 + 3 * c));
    const AttentionResult a = run(p, kAuto), g = run(p, kGeneric, 256);
    const AttentionShape& s = p.shape;
    double vmax = 0;
    for (std::uint16_t v : p.v) vmax = std::max(vmax, std::fabs(input_value(p.dtype, v)));
    if (!p.descale_v.empty()) vmax *= *std::max_element(p.descale_v.begin(), p.descale_v.end());
    for (std::size_t x = 0; x < a.o.size(); ++x) {
      EXPECT_LE(std::fabs(a.o[x] - g.o[x]), 0.5 * ulp(a.o[x]) + 0.5 * ulp(g.o[x]) + 2 * o_eps(s.seqlen_k, 128) * vmax)
          << "case " << c << " O[" << x << "]";
    }
    for (std::size_t x = 0; x < a.lse.size(); ++x) {
      if (!std::isfinite(a.lse[x])) {
        EXPECT_TRUE(same_bits(a.lse[x], g.lse[x])) << "case " << c;
        continue;
      }
      EXPECT_LE(std::fabs(a.lse[x] - g.lse[x]), 0.5 * ulp(a.lse[x]) + 0.5 * ulp(g.lse[x]) + 2 * lse_eps(s.seqlen_k, 128, a.lse[x]))
          << "case " << c << " LSE[" << x << "]";
    }
  }
}

}  // namespace
}  // namespace cdna::reference
