// Tests of the attention-forward definition and its exact oracle (reference/attention/attention.hpp).
//
// Where the expectations come from (never from the code under test):
//  - exact facts that the definition states (docs/semantics.md, attention-conventions.md):
//    one visible key gives O = V and LSE = that score; fully masked rows give (+0.0, -inf);
//    scale 0 gives the mean of the visible V rows; NaN/inf rules;
//  - MPFR evaluated directly in this file for single quantities (an exact score, a mean);
//  - an independent long-double evaluation of the definition (naive_ld below) with a derived
//    a-priori bound on its error;
//  - invariances of the definition (key permutation, GQA as repeated KV heads).
#include "reference/attention/attention.hpp"

#include <gmp.h>
#include <gtest/gtest.h>
#include <mpfr.h>

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "reference/attention/fixed_exp.hpp"

namespace cdna::reference {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// ---------------------------------------------------------------------------------------------
// Inputs.

std::uint16_t bf16_of(double x) {  // x -> fp32 (nearest) -> bf16 (nearest, ties to even)
  const auto u = std::bit_cast<std::uint32_t>(static_cast<float>(x));
  if (std::isnan(x)) return 0x7FC0;
  return static_cast<std::uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}
double val(std::uint16_t b) {
  return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16));
}
constexpr std::uint16_t kBf16NaN = 0x7FC0, kBf16PosInf = 0x7F80, kBf16NegInf = 0xFF80;

// stddev · N(0, 1) rounded to bf16; Box–Muller on mt19937_64, so the stream is the same
// with every standard library.
std::vector<std::uint16_t> randn(std::size_t n, std::uint64_t seed, double stddev = 1.0) {
  std::mt19937_64 gen(seed);
  auto uniform = [&gen] { return (static_cast<double>(gen() >> 11) + 1.0) * 0x1p-53; };
  std::vector<std::uint16_t> out(n);
  for (std::size_t i = 0; i < n; i += 2) {
    const double r = std::sqrt(-2.0 * std::log(uniform()));
    const double t = 2.0 * 3.14159265358979323846 * uniform();
    out[i] = bf16_of(stddev * r * std::cos(t));
    if (i + 1 < n) out[i + 1] = bf16_of(stddev * r * std::sin(t));
  }
  return out;
}

AttentionProblem make_problem(AttentionShape shape, Mask mask, float scale, std::uint64_t seed,
                              double qk_std = 1.0, double v_std = 1.0) {
  AttentionProblem p;
  p.shape = shape;
  p.mask = mask;
  p.scale = scale;
  p.q = randn(static_cast<std::size_t>(shape.q_elements()), seed, qk_std);
  p.k = randn(static_cast<std::size_t>(shape.kv_elements()), seed + 1, qk_std);
  p.v = randn(static_cast<std::size_t>(shape.kv_elements()), seed + 2, v_std);
  return p;
}

AttentionShape shape_of(std::int64_t b, std::int64_t sq, std::int64_t sk, std::int64_t hq,
                        std::int64_t hkv, std::int64_t d) {
  AttentionShape s;
  s.batch = b;
  s.seqlen_q = sq;
  s.seqlen_k = sk;
  s.heads_q = hq;
  s.heads_kv = hkv;
  s.head_dim = d;
  return s;
}

// BSHD / [B, H, S] indices, written out from the layout in attention.hpp.
std::size_t qo_at(const AttentionShape& s, std::int64_t b, std::int64_t i, std::int64_t h,
                  std::int64_t d) {
  return static_cast<std::size_t>(((b * s.seqlen_q + i) * s.heads_q + h) * s.head_dim + d);
}
std::size_t kv_at(const AttentionShape& s, std::int64_t b, std::int64_t j, std::int64_t g,
                  std::int64_t d) {
  return static_cast<std::size_t>(((b * s.seqlen_k + j) * s.heads_kv + g) * s.head_dim + d);
}
std::size_t lse_at(const AttentionShape& s, std::int64_t b, std::int64_t h, std::int64_t i) {
  return static_cast<std::size_t>((b * s.heads_q + h) * s.seqlen_q + i);
}

// Spacing of doubles just above |x| (>= the spacing at the double nearest to any y that rounds
// to x, so |x - y| <= ulp(x) / 2 for x = RN(y)).
double ulp(double x) {
  const double a = std::fabs(x);
  return std::nextafter(a, kInf) - a;
}

// The oracle's documented guarantee (attention.hpp, docs/semantics.md), restated here.
double oracle_o_eps(std::int64_t n, unsigned p) { return std::ldexp(2.0 * double(n) + 8.0, -int(p)); }
double oracle_lse_eps(std::int64_t n, unsigned p, double lse) {
  return std::ldexp(2.0 * double(n) + 8.0 + std::fabs(lse), -int(p));
}

bool same_bits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b) ||
         (std::isnan(a) && std::isnan(b));
}

// The last key visible to query i, straight from attention-conventions.md.
std::int64_t visible_count_def(Mask mask, std::int64_t i, std::int64_t sq, std::int64_t sk) {
  std::int64_t last = sk - 1;
  if (mask == Mask::CausalBottomRight) last = std::min(last, i + sk - sq);
  if (mask == Mask::CausalTopLeft) last = std::min(last, i);
  return std::max<std::int64_t>(last + 1, 0);
}

// ---------------------------------------------------------------------------------------------
// MPFR helpers for single exact quantities.

class Mp {
 public:
  explicit Mp(mpfr_prec_t prec = 2400) { mpfr_init2(v_, prec); }
  ~Mp() { mpfr_clear(v_); }
  Mp(const Mp&) = delete;
  Mp& operator=(const Mp&) = delete;
  operator mpfr_ptr() { return v_; }

 private:
  mpfr_t v_;
};

// The exact score S = scale · q·k into `out` (2400 bits hold any bf16 dot product exactly:
// products of bf16 values are exact doubles within 2^-266 .. 2^256).
void exact_score(const AttentionProblem& p, std::int64_t b, std::int64_t i, std::int64_t h,
                 std::int64_t j, mpfr_ptr out) {
  const AttentionShape& s = p.shape;
  const std::int64_t g = h / (s.heads_q / s.heads_kv);
  mpfr_set_zero(out, 1);
  for (std::int64_t d = 0; d < s.head_dim; ++d) {
    mpfr_add_d(out, out, val(p.q[qo_at(s, b, i, h, d)]) * val(p.k[kv_at(s, b, j, g, d)]),
               MPFR_RNDN);
  }
  mpfr_mul_d(out, out, static_cast<double>(p.scale), MPFR_RNDN);
}

double exact_score_rn(const AttentionProblem& p, std::int64_t b, std::int64_t i, std::int64_t h,
                      std::int64_t j) {
  Mp s;
  exact_score(p, b, i, h, j, s);
  return mpfr_get_d(s, MPFR_RNDN);
}

// ---------------------------------------------------------------------------------------------
// The naive long-double evaluation and its error bound.
//
// Algorithm, per row with n >= 1 visible keys, all inputs finite, u = 2^-64 (x87 long double,
// round to nearest), gamma_k = k·u / (1 - k·u):
//   d_j = fl(sum_d q_d·k_jd)      products exact (bf16 × bf16 needs 16 significant bits)
//   s_j = fl(scale · d_j),  m = max_j s_j
//   e_j = expl(fl(s_j - m)),  l = fl(sum_j e_j),  num_d = fl(sum_j fl(e_j · v_jd))
//   o_d = fl(num_d / l),  lse = fl(m + logl(l))
// Bound (Higham, Accuracy and Stability, §3.1 and (3.4)-(3.5): recursive sums and dot products
// of n terms err by <= gamma_n · sum|terms|):
//   |d_j - q·k_j| <= gamma_{D-1}·A_j with A_j = sum_d|q_d k_jd|, so with c = max_j |scale|·A_j
//   (an upper bound on |S_j|): |s_j - S_j| <= gamma_D·c =: a,  |m - M| <= a.
//   The argument of expl errs by <= 2a + u·|s_j - m| <= 2a + u·(2c + 2a) =: Delta; glibc's
//   x86-64 expl and logl have a maximal known error of 1 ulp (sysdeps/x86_64/fpu/libm-test-ulps,
//   "exp"/"log", ldouble: 1), i.e. <= 2u relative. So every e_j has relative error
//   <= rho = (e^Delta - 1) + 2u·e^Delta.
//   l = L·(1 + t), |t| <= lambda = (1 + rho)(1 + gamma_{n-1}) - 1   (positive terms).
//   |num_d - N_d| <= nu·L·B_d with nu = (1 + rho)(1 + gamma_n) - 1, B_d = sum_j P_j|v_jd|.
//   |num/l - N/L| <= |num - N|/l + |O|·|L/l - 1| <= (nu + lambda)/(1 - lambda)·B_d (|O| <= B_d),
//   and the division adds u·|num/l|:  |o_d - O_d| <= beta·B_d,
//   beta = (nu + lambda)/(1 - lambda)·(1 + u) + u.   We use B_d <= max_j |v_jd| (sum_j P_j = 1).
//   LSE: |m - M| <= a; |log l - log L| <= lambda/(1 - lambda); logl adds <= 2u·|log l|; the sum
//   adds <= u/(1 - u)·|lse|.
// Rounding in evaluating the bound itself is far below these terms (they are ~2^-50 relative
// and computed to 2^-64).
struct Naive {
  std::vector<long double> o, lse;
  std::vector<long double> o_bound;  // per O element: bound on |o_naive - O_exact|
  std::vector<double> v_max;         // per O element: max_j |v_jd| over the visible keys
  std::vector<long double> lse_bound;
  std::vector<std::int64_t> visible;  // per LSE element
};

Naive naive_ld(const AttentionProblem& p) {
  static_assert(LDBL_MANT_DIG == 64, "the bound assumes x87 80-bit long double");
  const AttentionShape& s = p.shape;
  const long double u = LDBL_EPSILON / 2;
  auto gamma = [u](long double k) { return k * u / (1 - k * u); };
  const long double scale = p.scale;
  Naive r;
  r.o.assign(static_cast<std::size_t>(s.o_elements()), 0);
  r.o_bound.assign(r.o.size(), 0);
  r.v_max.assign(r.o.size(), 0);
  r.lse.assign(static_cast<std::size_t>(s.lse_elements()), 0);
  r.lse_bound.assign(r.lse.size(), 0);
  r.visible.assign(r.lse.size(), 0);
  const std::int64_t D = s.head_dim;
  for (std::int64_t b = 0; b < s.batch; ++b) {
    for (std::int64_t h = 0; h < s.heads_q; ++h) {
      const std::int64_t g = h / (s.heads_q / s.heads_kv);
      for (std::int64_t i = 0; i < s.seqlen_q; ++i) {
        const std::int64_t n = visible_count_def(p.mask, i, s.seqlen_q, s.seqlen_k);
        const std::size_t li = lse_at(s, b, h, i);
        r.visible[li] = n;
        if (n == 0) {
          r.lse[li] = -INFINITY;
          continue;
        }
        std::vector<long double> sc(static_cast<std::size_t>(n));
        long double c = 0;
        for (std::int64_t j = 0; j < n; ++j) {
          long double dot = 0, abs_sum = 0;
          for (std::int64_t d = 0; d < D; ++d) {
            const long double prod = static_cast<long double>(val(p.q[qo_at(s, b, i, h, d)])) *
                                     val(p.k[kv_at(s, b, j, g, d)]);
            dot += prod;
            abs_sum += std::fabs(prod);
          }
          sc[static_cast<std::size_t>(j)] = scale * dot;
          // abs_sum is itself a rounded sum of positive terms: inflate it to an upper bound.
          c = std::max(c, std::fabs(scale) * abs_sum * (1 + gamma(static_cast<long double>(D))));
        }
        const long double m = *std::max_element(sc.begin(), sc.end());
        std::vector<long double> e(sc.size());
        long double l = 0;
        for (std::size_t j = 0; j < sc.size(); ++j) {
          e[j] = std::exp(sc[j] - m);
          l += e[j];
        }
        const long double a = gamma(static_cast<long double>(D)) * c;
        const long double delta = 2 * a + u * (2 * c + 2 * a);
        const long double rho = std::expm1(delta) + 2 * u * std::exp(delta);
        const long double nn = static_cast<long double>(n);
        const long double lambda = (1 + rho) * (1 + gamma(nn - 1)) - 1;
        const long double nu = (1 + rho) * (1 + gamma(nn)) - 1;
        const long double beta = (nu + lambda) / (1 - lambda) * (1 + u) + u;
        for (std::int64_t d = 0; d < D; ++d) {
          long double num = 0;
          double vmax = 0;
          for (std::int64_t j = 0; j < n; ++j) {
            const double v = val(p.v[kv_at(s, b, j, g, d)]);
            num += e[static_cast<std::size_t>(j)] * v;
            vmax = std::max(vmax, std::fabs(v));
          }
          const std::size_t oi = qo_at(s, b, i, h, d);
          r.o[oi] = num / l;
          r.v_max[oi] = vmax;
          r.o_bound[oi] = beta * vmax;
        }
        const long double logl_ = std::log(l);
        r.lse[li] = m + logl_;
        r.lse_bound[li] = a + lambda / (1 - lambda) + 2 * u * std::fabs(logl_) / (1 - 2 * u) +
                          u / (1 - u) * std::fabs(r.lse[li]);
      }
    }
  }
  return r;
}

// Checks an oracle result against naive_ld: |oracle - naive| <= (oracle's rounding to double)
// + (oracle's documented error) + (naive's bound). Fully masked rows must be exactly
// (+0.0, -inf).
void expect_matches_naive(const AttentionProblem& p, const AttentionResult& r, unsigned prec,
                          const std::string& what) {
  const Naive nv = naive_ld(p);
  const AttentionShape& s = p.shape;
  ASSERT_EQ(r.o.size(), nv.o.size()) << what;
  ASSERT_EQ(r.lse.size(), nv.lse.size()) << what;
  int failures = 0;
  for (std::int64_t b = 0; b < s.batch; ++b) {
    for (std::int64_t h = 0; h < s.heads_q; ++h) {
      for (std::int64_t i = 0; i < s.seqlen_q; ++i) {
        const std::size_t li = lse_at(s, b, h, i);
        const std::int64_t n = nv.visible[li];
        const std::string at = what + " b=" + std::to_string(b) + " h=" + std::to_string(h) +
                               " i=" + std::to_string(i);
        if (n == 0) {
          EXPECT_EQ(r.lse[li], -kInf) << at;
          for (std::int64_t d = 0; d < s.head_dim; ++d) {
            const double o = r.o[qo_at(s, b, i, h, d)];
            EXPECT_TRUE(o == 0.0 && !std::signbit(o)) << at << " d=" << d << " o=" << o;
          }
          continue;
        }
        const double lse = r.lse[li];
        const long double lse_tol =
            0.5L * ulp(lse) + oracle_lse_eps(n, prec, lse) + nv.lse_bound[li];
        if (!(std::fabs(lse - nv.lse[li]) <= lse_tol) && failures++ < 5) {
          ADD_FAILURE() << at << " LSE " << lse << " naive " << static_cast<double>(nv.lse[li])
                        << " tol " << static_cast<double>(lse_tol);
        }
        for (std::int64_t d = 0; d < s.head_dim; ++d) {
          const std::size_t oi = qo_at(s, b, i, h, d);
          const double o = r.o[oi];
          const long double tol =
              0.5L * ulp(o) + oracle_o_eps(n, prec) * nv.v_max[oi] + nv.o_bound[oi];
          if (!(std::fabs(o - nv.o[oi]) <= tol) && failures++ < 5) {
            ADD_FAILURE() << at << " d=" << d << " O " << o << " naive "
                          << static_cast<double>(nv.o[oi]) << " tol " << static_cast<double>(tol);
          }
        }
      }
    }
  }
}

AttentionResult run(const AttentionProblem& p, ExactOptions::Algorithm algo, unsigned prec = 128,
                    unsigned threads = 0) {
  ExactOptions o;
  o.algorithm = algo;
  o.precision_bits = prec;
  o.threads = threads;
  return attention_forward_exact_with(p, o);
}
constexpr auto kAuto = ExactOptions::Algorithm::Auto;
constexpr auto kGeneric = ExactOptions::Algorithm::Generic;

// Two oracle results of the same exact quantity (e.g. from two algorithms or from two problems
// that the definition makes equal): each is within half an ulp plus its documented error.
void expect_same_exact(double a, double b, double eps, const std::string& at) {
  if (std::isnan(a) || std::isnan(b) || std::isinf(a) || std::isinf(b)) {
    EXPECT_TRUE(same_bits(a, b)) << at << " " << a << " vs " << b;
    return;
  }
  EXPECT_LE(std::fabs(a - b), 0.5 * ulp(a) + 0.5 * ulp(b) + 2 * eps) << at << " " << a << " vs " << b;
}

// ---------------------------------------------------------------------------------------------
// Masks.

TEST(Mask, NamesRoundTrip) {
  for (Mask m : {Mask::None, Mask::CausalBottomRight, Mask::CausalTopLeft}) {
    EXPECT_EQ(parse_mask(to_string(m)), m);
  }
  EXPECT_EQ(parse_mask("CAUSAL_BOTTOM_RIGHT"), Mask::CausalBottomRight);
  EXPECT_EQ(parse_mask("causal"), std::nullopt);
  EXPECT_NE(to_string(Mask::CausalBottomRight), to_string(Mask::CausalTopLeft));
}

TEST(Mask, ConventionExampleSq2Sk5) {
  // Bottom-right: row 0 sees keys 0..3, row 1 sees 0..4. Top-left: row 0 sees key 0 only.
  for (std::int64_t j = 0; j < 5; ++j) {
    EXPECT_EQ(key_visible(Mask::CausalBottomRight, 0, j, 2, 5), j <= 3) << j;
    EXPECT_TRUE(key_visible(Mask::CausalBottomRight, 1, j, 2, 5)) << j;
    EXPECT_EQ(key_visible(Mask::CausalTopLeft, 0, j, 2, 5), j == 0) << j;
    EXPECT_EQ(key_visible(Mask::CausalTopLeft, 1, j, 2, 5), j <= 1) << j;
    EXPECT_TRUE(key_visible(Mask::None, 0, j, 2, 5)) << j;
  }
  EXPECT_FALSE(key_visible(Mask::None, 0, 5, 2, 5));  // j < Sk
  EXPECT_EQ(visible_keys(Mask::CausalBottomRight, 0, 2, 5), 4);
  EXPECT_EQ(visible_keys(Mask::CausalTopLeft, 0, 2, 5), 1);
}

TEST(Mask, ConventionExampleSq5Sk2) {
  // Bottom-right: rows 0..2 see nothing, row 3 sees key 0, row 4 sees keys 0..1.
  for (std::int64_t i = 0; i < 5; ++i) {
    for (std::int64_t j = 0; j < 2; ++j) {
      EXPECT_EQ(key_visible(Mask::CausalBottomRight, i, j, 5, 2), j <= i - 3) << i << "," << j;
    }
  }
  EXPECT_EQ(visible_keys(Mask::CausalBottomRight, 2, 5, 2), 0);
  EXPECT_EQ(visible_keys(Mask::CausalBottomRight, 3, 5, 2), 1);
  EXPECT_EQ(visible_keys(Mask::CausalBottomRight, 4, 5, 2), 2);
}

TEST(Mask, CausalFormsAgreeWhenSqEqualsSkAndVisibleSetIsAPrefix) {
  for (std::int64_t sq : {1, 4, 9}) {
    for (std::int64_t sk : {0, 1, 4, 9}) {
      for (Mask m : {Mask::None, Mask::CausalBottomRight, Mask::CausalTopLeft}) {
        for (std::int64_t i = 0; i < sq; ++i) {
          const std::int64_t n = visible_keys(m, i, sq, sk);
          EXPECT_EQ(n, visible_count_def(m, i, sq, sk));
          for (std::int64_t j = 0; j < sk; ++j) EXPECT_EQ(key_visible(m, i, j, sq, sk), j < n);
          if (sq == sk) {
            EXPECT_EQ(key_visible(Mask::CausalBottomRight, i, sq - 1, sq, sk),
                      key_visible(Mask::CausalTopLeft, i, sq - 1, sq, sk));
            EXPECT_EQ(visible_keys(Mask::CausalBottomRight, i, sq, sk),
                      visible_keys(Mask::CausalTopLeft, i, sq, sk));
          }
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// validate() and argument checks.

std::string error_of(const AttentionProblem& p, unsigned prec = 128) {
  try {
    attention_forward_exact(p, prec);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(Validate, AcceptsConsistentProblems) {
  EXPECT_NO_THROW(validate(make_problem(shape_of(2, 3, 4, 6, 2, 8), Mask::None, 0.5f, 1)));
  EXPECT_NO_THROW(validate(make_problem(shape_of(1, 3, 0, 2, 2, 8), Mask::None, 0.5f, 1)));
  EXPECT_NO_THROW(validate(make_problem(shape_of(0, 3, 4, 2, 1, 8), Mask::None, 0.5f, 1)));
}

TEST(Validate, RejectsHqNotAMultipleOfHkv) {
  AttentionProblem p = make_problem(shape_of(1, 2, 3, 6, 4, 8), Mask::None, 0.5f, 1);
  const std::string e = error_of(p);
  EXPECT_TRUE(contains(e, "heads_q = 6") && contains(e, "heads_kv = 4") && contains(e, "multiple"))
      << e;
  EXPECT_FALSE(contains(e, "\n")) << e;
}

TEST(Validate, RejectsWrongVectorSizes) {
  const AttentionProblem good = make_problem(shape_of(1, 2, 3, 4, 2, 8), Mask::None, 0.5f, 1);
  AttentionProblem p = good;
  p.q.pop_back();
  std::string e = error_of(p);
  EXPECT_TRUE(contains(e, "q has 63 elements") && contains(e, "B*Sq*Hq*D") && contains(e, "= 64"))
      << e;
  p = good;
  p.k.push_back(0);
  e = error_of(p);
  EXPECT_TRUE(contains(e, "k has 49 elements") && contains(e, "B*Sk*Hkv*D") && contains(e, "= 48"))
      << e;
  p = good;
  p.v.clear();
  e = error_of(p);
  EXPECT_TRUE(contains(e, "v has 0 elements") && contains(e, "= 48")) << e;
  EXPECT_FALSE(contains(e, "\n")) << e;
}

TEST(Validate, RejectsBadExtents) {
  AttentionProblem p = make_problem(shape_of(1, 2, 3, 4, 2, 8), Mask::None, 0.5f, 1);
  p.shape.seqlen_k = -1;
  EXPECT_TRUE(contains(error_of(p), "seqlen_k = -1")) << error_of(p);
  p.shape.seqlen_k = 3;
  p.shape.head_dim = 0;
  EXPECT_TRUE(contains(error_of(p), "head_dim = 0")) << error_of(p);
  p.shape.head_dim = 8;
  p.shape.heads_kv = 0;
  EXPECT_TRUE(contains(error_of(p), "heads_kv = 0")) << error_of(p);
  p.shape.heads_kv = 2;
  p.shape.batch = std::int64_t{1} << 40;
  p.shape.seqlen_q = std::int64_t{1} << 40;
  EXPECT_TRUE(contains(error_of(p), "overflow")) << error_of(p);
}

TEST(Validate, OracleRejectsPrecisionBelow128) {
  const AttentionProblem p = make_problem(shape_of(1, 1, 1, 1, 1, 4), Mask::None, 0.5f, 1);
  const std::string e = error_of(p, 127);
  EXPECT_TRUE(contains(e, "precision_bits = 127") && contains(e, ">= 128")) << e;
  EXPECT_EQ(error_of(p, 128), "");
}

// ---------------------------------------------------------------------------------------------
// Exact facts of the definition.

TEST(Exact, OneVisibleKeyGivesVExactlyAndLseTheScaledScore) {
  // C01: 1, 1, 1, 1/1, 64 with Q, K, V = 3·randn.
  const AttentionProblem p = make_problem(shape_of(1, 1, 1, 1, 1, 64), Mask::None, 0.125f, 11, 3.0, 3.0);
  for (auto algo : {kAuto, kGeneric}) {
    const AttentionResult r = run(p, algo);
    for (std::int64_t d = 0; d < 64; ++d) EXPECT_TRUE(same_bits(r.o[std::size_t(d)], val(p.v[std::size_t(d)]))) << d;
    EXPECT_EQ(r.lse[0], exact_score_rn(p, 0, 0, 0, 0));
  }
}

TEST(Exact, SingleQueryCausalFormsC02) {
  // C02: 1, 1, 239, 8/8, 128. Bottom-right: the one query is the last one, it sees every key:
  // identical to no mask. Top-left: it sees key 0 only: O = V of key 0, LSE = that score.
  AttentionProblem p = make_problem(shape_of(1, 1, 239, 8, 8, 128), Mask::None, 0.08838834764831845f, 21);
  const AttentionResult none = run(p, kAuto);
  p.mask = Mask::CausalBottomRight;
  const AttentionResult br = run(p, kAuto);
  for (std::size_t x = 0; x < none.o.size(); ++x) EXPECT_TRUE(same_bits(none.o[x], br.o[x])) << x;
  for (std::size_t x = 0; x < none.lse.size(); ++x) EXPECT_TRUE(same_bits(none.lse[x], br.lse[x]));
  p.mask = Mask::CausalTopLeft;
  const AttentionResult tl = run(p, kAuto);
  for (std::int64_t h = 0; h < 8; ++h) {
    for (std::int64_t d = 0; d < 128; ++d) {
      EXPECT_TRUE(same_bits(tl.o[qo_at(p.shape, 0, 0, h, d)], val(p.v[kv_at(p.shape, 0, 0, h, d)])));
    }
    EXPECT_EQ(tl.lse[lse_at(p.shape, 0, h, 0)], exact_score_rn(p, 0, 0, h, 0)) << h;
  }
}

TEST(Exact, CausalBottomRightSq5Sk2C03) {
  const AttentionProblem p = make_problem(shape_of(1, 5, 2, 4, 4, 64), Mask::CausalBottomRight, 0.125f, 31);
  const AttentionShape& s = p.shape;
  for (auto algo : {kAuto, kGeneric}) {
    const AttentionResult r = run(p, algo);
    for (std::int64_t h = 0; h < 4; ++h) {
      for (std::int64_t i = 0; i < 3; ++i) {  // fully masked
        EXPECT_EQ(r.lse[lse_at(s, 0, h, i)], -kInf);
        for (std::int64_t d = 0; d < 64; ++d) {
          const double o = r.o[qo_at(s, 0, i, h, d)];
          EXPECT_TRUE(o == 0.0 && !std::signbit(o)) << "i=" << i << " d=" << d << " " << o;
        }
      }
      for (std::int64_t d = 0; d < 64; ++d) {  // row 3: key 0 only
        EXPECT_TRUE(same_bits(r.o[qo_at(s, 0, 3, h, d)], val(p.v[kv_at(s, 0, 0, h, d)])));
      }
      EXPECT_EQ(r.lse[lse_at(s, 0, h, 3)], exact_score_rn(p, 0, 3, h, 0));
    }
    expect_matches_naive(p, r, 128, "C03");  // row 4: both keys, per definition
  }
}

TEST(Exact, CausalSq2Sk5MatchesUnmaskedPrefixes) {
  // The definition restricts softmax to the visible keys, so a causal row equals the unmasked
  // attention over its visible prefix. Bottom-right row 0 = keys 0..3, row 1 = keys 0..4;
  // top-left row 0 = key 0 (O = V0 exactly), row 1 = keys 0..1.
  const AttentionProblem base = make_problem(shape_of(1, 2, 5, 2, 2, 32), Mask::None, 0.3f, 41, 2.0);
  auto prefix = [&](std::int64_t i, std::int64_t keys) {
    AttentionProblem p;
    p.shape = shape_of(1, 1, keys, 2, 2, 32);
    p.mask = Mask::None;
    p.scale = base.scale;
    for (std::int64_t h = 0; h < 2; ++h)
      for (std::int64_t d = 0; d < 32; ++d) p.q.push_back(base.q[qo_at(base.shape, 0, i, h, d)]);
    p.k.assign(base.k.begin(), base.k.begin() + keys * 2 * 32);
    p.v.assign(base.v.begin(), base.v.begin() + keys * 2 * 32);
    return run(p, kAuto);
  };
  AttentionProblem br = base, tl = base;
  br.mask = Mask::CausalBottomRight;
  tl.mask = Mask::CausalTopLeft;
  const AttentionResult rbr = run(br, kAuto), rtl = run(tl, kAuto);
  const struct { const AttentionResult* r; std::int64_t i, keys; } cases[] = {
      {&rbr, 0, 4}, {&rbr, 1, 5}, {&rtl, 0, 1}, {&rtl, 1, 2}};
  for (const auto& c : cases) {
    const AttentionResult ref = prefix(c.i, c.keys);
    for (std::int64_t h = 0; h < 2; ++h) {
      const std::string at = "i=" + std::to_string(c.i) + " keys=" + std::to_string(c.keys);
      for (std::int64_t d = 0; d < 32; ++d) {
        double vmax = 0;
        for (std::int64_t j = 0; j < c.keys; ++j) vmax = std::max(vmax, std::fabs(val(base.v[kv_at(base.shape, 0, j, h, d)])));
        expect_same_exact(c.r->o[qo_at(base.shape, 0, c.i, h, d)], ref.o[std::size_t(h * 32 + d)],
                          oracle_o_eps(c.keys, 128) * vmax, at);
      }
      const double l = ref.lse[std::size_t(h)];
      expect_same_exact(c.r->lse[lse_at(base.shape, 0, h, c.i)], l, oracle_lse_eps(c.keys, 128, l), at);
    }
  }
  for (std::int64_t d = 0; d < 32; ++d) {
    EXPECT_TRUE(same_bits(rtl.o[qo_at(base.shape, 0, 0, 1, d)], val(base.v[kv_at(base.shape, 0, 0, 1, d)])));
  }
  // The two alignments must differ on row 0 (4 keys vs 1), or this test could not tell them apart.
  EXPECT_NE(rbr.lse[0], rtl.lse[0]);
  expect_matches_naive(br, rbr, 128, "Sq2Sk5 bottom-right");
  expect_matches_naive(tl, rtl, 128, "Sq2Sk5 top-left");
}

TEST(Exact, AllEqualHugeValuesGiveVExactlyC06) {
  // C06: 1, 1, 4, 1/1, 64, scale 0.25, every element 133120 (exact in bf16): all four scores
  // equal 0.25·64·133120² = 2.8e11, so P = 1/4 each, O = V exactly, LSE = S + ln 4.
  AttentionProblem p;
  p.shape = shape_of(1, 1, 4, 1, 1, 64);
  p.scale = 0.25f;
  ASSERT_EQ(val(bf16_of(133120.0)), 133120.0);
  p.q.assign(64, bf16_of(133120.0));
  p.k.assign(4 * 64, bf16_of(133120.0));
  p.v.assign(4 * 64, bf16_of(133120.0));
  Mp lse_exact;
  mpfr_set_ui(lse_exact, 4, MPFR_RNDN);
  mpfr_log(lse_exact, lse_exact, MPFR_RNDN);
  mpfr_add_d(lse_exact, lse_exact, 0.25 * 64 * 133120.0 * 133120.0, MPFR_RNDN);  // exact double
  for (auto algo : {kAuto, kGeneric}) {
    const AttentionResult r = run(p, algo);
    for (double o : r.o) EXPECT_EQ(o, 133120.0);
    const double lse = r.lse[0];
    Mp diff;
    mpfr_sub_d(diff, lse_exact, lse, MPFR_RNDN);
    EXPECT_LE(std::fabs(mpfr_get_d(diff, MPFR_RNDN)), 0.5 * ulp(lse) + oracle_lse_eps(4, 128, lse)) << lse;
  }
}

TEST(Exact, ScaleZeroGivesMeanOfVisibleValuesC08) {
  // C08: 1, 64, 64, 2/2, 64, causal, scale 0: every score is 0, so row i = mean of V_0..V_i and
  // LSE = ln(i + 1); no NaN (no 0·(-inf)).
  const AttentionProblem p = make_problem(shape_of(1, 64, 64, 2, 2, 64), Mask::CausalBottomRight, 0.0f, 51);
  const AttentionShape& s = p.shape;
  for (auto algo : {kAuto, kGeneric}) {
    const AttentionResult r = run(p, algo);
    Mp mean, lse_exact;
    for (std::int64_t h = 0; h < 2; ++h) {
      for (std::int64_t i = 0; i < 64; ++i) {
        for (std::int64_t d = 0; d < 64; ++d) {
          mpfr_set_zero(mean, 1);
          double vmax = 0;
          for (std::int64_t j = 0; j <= i; ++j) {
            const double v = val(p.v[kv_at(s, 0, j, h, d)]);
            mpfr_add_d(mean, mean, v, MPFR_RNDN);  // exact at 2400 bits
            vmax = std::max(vmax, std::fabs(v));
          }
          mpfr_div_ui(mean, mean, static_cast<unsigned long>(i + 1), MPFR_RNDN);
          const double o = r.o[qo_at(s, 0, i, h, d)];
          mpfr_sub_d(mean, mean, o, MPFR_RNDN);
          ASSERT_LE(std::fabs(mpfr_get_d(mean, MPFR_RNDN)), 0.5 * ulp(o) + oracle_o_eps(i + 1, 128) * vmax)
              << "h=" << h << " i=" << i << " d=" << d;
        }
        mpfr_set_ui(lse_exact, static_cast<unsigned long>(i + 1), MPFR_RNDN);
        mpfr_log(lse_exact, lse_exact, MPFR_RNDN);
        const double lse = r.lse[lse_at(s, 0, h, i)];
        if (i == 0) {  // ln 1; zero results are +0.0
          EXPECT_TRUE(lse == 0.0 && !std::signbit(lse)) << lse;
        }
        mpfr_sub_d(lse_exact, lse_exact, lse, MPFR_RNDN);
        EXPECT_LE(std::fabs(mpfr_get_d(lse_exact, MPFR_RNDN)), 0.5 * ulp(lse) + oracle_lse_eps(i + 1, 128, lse));
      }
    }
  }
}

TEST(Exact, ZeroResultsArePositiveZero) {
  // Exact zeros have no sign; the definition returns them as +0.0: LSE = 0·(negative dot),
  // O = -0.0·1, and O = (1 + (-1)) / 2 with equal scores.
  AttentionProblem p;
  p.shape = shape_of(1, 1, 2, 1, 1, 1);
  p.scale = 0.0f;
  p.q = {bf16_of(1.0)};
  p.k = {bf16_of(-1.0), bf16_of(-2.0)};
  p.v = {bf16_of(1.0), bf16_of(-1.0)};
  for (auto algo : {kAuto, kGeneric}) {
    AttentionResult r = run(p, algo);
    EXPECT_TRUE(r.o[0] == 0.0 && !std::signbit(r.o[0])) << r.o[0];
    AttentionProblem one = p;
    one.shape.seqlen_k = 1;
    one.k = {bf16_of(-1.0)};
    one.v = {0x8000};  // -0.0
    r = run(one, algo);
    EXPECT_TRUE(r.o[0] == 0.0 && !std::signbit(r.o[0])) << r.o[0];
    EXPECT_TRUE(r.lse[0] == 0.0 && !std::signbit(r.lse[0])) << r.lse[0];
  }
}

TEST(Exact, GqaQueryHeadReadsKvHeadHDivGroup) {
  // Hq = 6, Hkv = 2 (group 3): heads 0-2 read KV head 0, heads 3-5 KV head 1. Every query head
  // gets the same Q, so heads differ only through their KV head: a mapping h mod Hkv would give
  // head 1 the KV head 1 and break the equalities below.
  AttentionProblem p = make_problem(shape_of(2, 3, 5, 6, 2, 16), Mask::CausalBottomRight, 0.25f, 61);
  const AttentionShape& s = p.shape;
  for (std::int64_t b = 0; b < 2; ++b)
    for (std::int64_t i = 0; i < 3; ++i)
      for (std::int64_t h = 1; h < 6; ++h)
        for (std::int64_t d = 0; d < 16; ++d) p.q[qo_at(s, b, i, h, d)] = p.q[qo_at(s, b, i, 0, d)];
  const AttentionResult r = run(p, kAuto);
  for (std::int64_t g = 0; g < 2; ++g) {
    // Multi-head problem with one query head and KV head g only.
    AttentionProblem one;
    one.shape = shape_of(2, 3, 5, 1, 1, 16);
    one.mask = p.mask;
    one.scale = p.scale;
    for (std::int64_t b = 0; b < 2; ++b)
      for (std::int64_t i = 0; i < 3; ++i)
        for (std::int64_t d = 0; d < 16; ++d) one.q.push_back(p.q[qo_at(s, b, i, 0, d)]);
    for (std::int64_t b = 0; b < 2; ++b)
      for (std::int64_t j = 0; j < 5; ++j)
        for (std::int64_t d = 0; d < 16; ++d) {
          one.k.push_back(p.k[kv_at(s, b, j, g, d)]);
          one.v.push_back(p.v[kv_at(s, b, j, g, d)]);
        }
    const AttentionResult ref = run(one, kAuto);
    for (std::int64_t h = 3 * g; h < 3 * g + 3; ++h) {
      for (std::int64_t b = 0; b < 2; ++b) {
        for (std::int64_t i = 0; i < 3; ++i) {
          const std::int64_t n = visible_count_def(p.mask, i, 3, 5);
          for (std::int64_t d = 0; d < 16; ++d) {
            double vmax = 0;
            for (std::int64_t j = 0; j < n; ++j) vmax = std::max(vmax, std::fabs(val(p.v[kv_at(s, b, j, g, d)])));
            expect_same_exact(r.o[qo_at(s, b, i, h, d)], ref.o[qo_at(one.shape, b, i, 0, d)],
                              oracle_o_eps(n, 128) * vmax, "h=" + std::to_string(h));
          }
          const double l = ref.lse[lse_at(one.shape, b, 0, i)];
          expect_same_exact(r.lse[lse_at(s, b, h, i)], l, oracle_lse_eps(n, 128, l), "lse h=" + std::to_string(h));
        }
      }
    }
  }
  // The two KV heads really differ (else the test could not detect a wrong mapping).
  EXPECT_NE(r.lse[lse_at(s, 0, 1, 2)], r.lse[lse_at(s, 0, 4, 2)]);
  expect_matches_naive(p, r, 128, "GQA");
}

TEST(Exact, PermutingKeysWithTheirValuesChangesNothing) {
  const AttentionProblem p = make_problem(shape_of(1, 3, 17, 2, 1, 32), Mask::None, 0.4f, 71, 2.0);
  std::vector<std::int64_t> perm(17);
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), std::mt19937_64(7));
  AttentionProblem q = p;
  for (std::int64_t j = 0; j < 17; ++j)
    for (std::int64_t d = 0; d < 32; ++d) {
      q.k[kv_at(p.shape, 0, j, 0, d)] = p.k[kv_at(p.shape, 0, perm[std::size_t(j)], 0, d)];
      q.v[kv_at(p.shape, 0, j, 0, d)] = p.v[kv_at(p.shape, 0, perm[std::size_t(j)], 0, d)];
    }
  for (auto algo : {kAuto, kGeneric}) {
    const AttentionResult a = run(p, algo), b = run(q, algo);
    for (std::int64_t i = 0; i < 3; ++i)
      for (std::int64_t h = 0; h < 2; ++h) {
        for (std::int64_t d = 0; d < 32; ++d) {
          double vmax = 0;
          for (std::int64_t j = 0; j < 17; ++j) vmax = std::max(vmax, std::fabs(val(p.v[kv_at(p.shape, 0, j, 0, d)])));
          const std::size_t x = qo_at(p.shape, 0, i, h, d);
          expect_same_exact(a.o[x], b.o[x], oracle_o_eps(17, 128) * vmax, "perm");
        }
        const std::size_t l = lse_at(p.shape, 0, h, i);
        expect_same_exact(a.lse[l], b.lse[l], oracle_lse_eps(17, 128, a.lse[l]), "perm lse");
      }
  }
}

TEST(Exact, MatchesNaiveLongDoubleOnRandomShapes) {
  std::mt19937_64 gen(20261129);
  auto pick = [&gen](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(gen);
  };
  const float scales[] = {0.125f, 1.0f, -0.7f, 0.03f, 0.0f};
  const Mask masks[] = {Mask::None, Mask::CausalBottomRight, Mask::CausalTopLeft};
  const std::int64_t dims[] = {1, 3, 8, 16, 64};
  for (int c = 0; c < 30; ++c) {
    const std::int64_t hkv = pick(1, 2), group = pick(1, 3);
    const AttentionShape s = shape_of(pick(1, 2), pick(1, 9), pick(0, 12), hkv * group, hkv, dims[pick(0, 4)]);
    const double qk_std = c % 3 == 0 ? 4.0 : 1.0;  // logit std up to ~16·|scale|·sqrt(D)
    const AttentionProblem p = make_problem(s, masks[pick(0, 2)], scales[pick(0, 4)],
                                            static_cast<std::uint64_t>(1000 + 7 * c), qk_std);
    const std::string what = "case " + std::to_string(c) + " (" + std::to_string(s.batch) + "," +
                             std::to_string(s.seqlen_q) + "," + std::to_string(s.seqlen_k) + "," +
                             std::to_string(s.heads_q) + "/" + std::to_string(s.heads_kv) + "," +
                             std::to_string(s.head_dim) + ") " + std::string(to_string(p.mask)) +
                             " scale " + std::to_string(p.scale);
    expect_matches_naive(p, run(p, kAuto), 128, what + " auto");
    expect_matches_naive(p, run(p, kGeneric, 128), 128, what + " generic-128");
    expect_matches_naive(p, run(p, kGeneric, 192), 192, what + " generic-192");
  }
}

TEST(Exact, FastPathAgreesWithGeneric256) {
  // The long-double check cannot see errors below ~2^-50; the generic MPFR path at 256 bits
  // can: both must be within half an ulp plus their documented error of the same exact value.
  struct Case { AttentionShape s; Mask m; float scale; double qk_std; };
  const Case cases[] = {
      {shape_of(1, 9, 70, 4, 2, 64), Mask::CausalBottomRight, 0.125f, 4.0},  // logit std ~16
      {shape_of(2, 5, 33, 3, 1, 24), Mask::CausalTopLeft, -1.0f, 1.0},
      {shape_of(1, 3, 40, 2, 2, 128), Mask::None, 1.0f, 8.0},  // many weights far below 2^-64
  };
  int k = 0;
  for (const Case& c : cases) {
    const AttentionProblem p = make_problem(c.s, c.m, c.scale, static_cast<std::uint64_t>(300 + k++), c.qk_std);
    const AttentionResult a = run(p, kAuto), g = run(p, kGeneric, 256);
    for (std::int64_t b = 0; b < c.s.batch; ++b)
      for (std::int64_t h = 0; h < c.s.heads_q; ++h)
        for (std::int64_t i = 0; i < c.s.seqlen_q; ++i) {
          const std::int64_t n = visible_count_def(c.m, i, c.s.seqlen_q, c.s.seqlen_k);
          const std::int64_t kvh = h / (c.s.heads_q / c.s.heads_kv);
          for (std::int64_t d = 0; d < c.s.head_dim; ++d) {
            double vmax = 0;
            for (std::int64_t j = 0; j < n; ++j) vmax = std::max(vmax, std::fabs(val(p.v[kv_at(c.s, b, j, kvh, d)])));
            const std::size_t x = qo_at(c.s, b, i, h, d);
            EXPECT_LE(std::fabs(a.o[x] - g.o[x]), 0.5 * ulp(a.o[x]) + 0.5 * ulp(g.o[x]) +
                                                    (oracle_o_eps(n, 128) + oracle_o_eps(n, 256)) * vmax)
                << k << " " << x;
          }
          const std::size_t l = lse_at(c.s, b, h, i);
          expect_same_exact(a.lse[l], g.lse[l], oracle_lse_eps(n, 128, a.lse[l]), "lse");
        }
  }
}

TEST(Exact, ExactDotProductInEveryExponentRegime) {
  // One visible key: LSE is the scaled score, correctly rounded. The three exponent spreads
  // exercise the oracle's three exact summations (double, 128-bit integer, 664-bit MPFR).
  // (tiny, big): exponent spreads of ~10, ~90 and ~340 bits across the products.
  const std::pair<double, double> spreads[] = {{0x1p-3, 2.0}, {0x1p-40, 2.0}, {0x1p-120, 0x1p100}};
  for (const auto& [tiny, big] : spreads) {
    AttentionProblem p;
    p.shape = shape_of(1, 1, 1, 1, 1, 8);
    p.scale = 0.3f;
    const double qv[] = {3.0, tiny, -5.5, tiny * 3, 1.0, -tiny, 0.0, 7.0};
    const double kv[] = {1.5, tiny * 5, 2.25, -1.0, -tiny, big, 9.0, tiny};
    for (int d = 0; d < 8; ++d) {
      p.q.push_back(bf16_of(qv[d]));
      p.k.push_back(bf16_of(kv[d]));
      p.v.push_back(bf16_of(d + 1.0));
    }
    for (auto algo : {kAuto, kGeneric}) {
      const AttentionResult r = run(p, algo);
      EXPECT_EQ(r.lse[0], exact_score_rn(p, 0, 0, 0, 0)) << tiny;
      for (int d = 0; d < 8; ++d) EXPECT_EQ(r.o[std::size_t(d)], d + 1.0);
    }
  }
}

TEST(Exact, TinyProductsDecideRoundingOfAMidpointScore) {
  // S = 1·1 + 2^-27·2^-26 + t·t' = 1 + 2^-53 ± 2^-k: 1 + 2^-53 is the midpoint between 1 and
  // 1 + 2^-52, so only the exact sum rounds right: to 1 + 2^-52 if the tail is positive, to 1
  // if it is negative. k = 90 needs 108-bit sums, k = 140 more than 128 bits.
  for (double tail : {0x1p-45, 0x1p-70}) {
    for (double sign : {1.0, -1.0}) {
      AttentionProblem p;
      p.shape = shape_of(1, 1, 1, 1, 1, 3);
      p.scale = 1.0f;
      p.q = {bf16_of(1.0), bf16_of(0x1p-27), bf16_of(sign * tail)};
      p.k = {bf16_of(1.0), bf16_of(0x1p-26), bf16_of(tail)};
      p.v = {bf16_of(1.0), bf16_of(2.0), bf16_of(3.0)};
      for (auto algo : {kAuto, kGeneric}) {
        EXPECT_EQ(run(p, algo).lse[0], sign > 0 ? 1.0 + 0x1p-52 : 1.0) << tail << " " << sign;
      }
    }
  }
}

TEST(Exact, ScoreSpreadBeyond2To20UsesWideExpAndStaysExact) {
  // D = 1, scale 1: scores 1e6 and -1e6 (|S_j - M| = 2e6 > 2^20). The small weight
  // e^-2e6 = 2^-2.9e6 is far below double resolution: O = V of the top key, LSE = 1e6.
  AttentionProblem p;
  p.shape = shape_of(1, 3, 2, 1, 1, 1);
  p.scale = 1.0f;
  p.q = {bf16_of(1000.0), bf16_of(1000.0), bf16_of(1000.0)};
  p.k = {bf16_of(1000.0), bf16_of(-1000.0)};
  const double s_top = val(p.q[0]) * val(p.k[0]);
  for (auto algo : {kAuto, kGeneric}) {
    p.v = {bf16_of(2.5), bf16_of(-7.0)};
    AttentionResult r = run(p, algo);
    EXPECT_EQ(r.o[0], 2.5);
    EXPECT_EQ(r.lse[0], s_top);
    // V of the top key 0: O = -7·e^-2e6 / (1 + ...), a negative number that rounds to zero;
    // zero results are +0.0 by definition.
    p.v = {bf16_of(0.0), bf16_of(-7.0)};
    r = run(p, algo);
    EXPECT_TRUE(r.o[0] == 0.0 && !std::signbit(r.o[0])) << r.o[0];
  }
}

// ---------------------------------------------------------------------------------------------
// NaN and inf.

TEST(Exact, NaNInInvisibleKvRowsHasNoEffect) {
  // C11 in small: causal bottom-right with Sq = 4, Sk = 8: row i sees keys 0..i+4. Key 7 is
  // visible to row 3 only; keys 5..7 are invisible to row 0. Poison K and V of keys 5..7
  // of batch 0 and compare rows that cannot see them with the zero-filled problem.
  const AttentionProblem clean = make_problem(shape_of(2, 4, 8, 2, 2, 16), Mask::CausalBottomRight, 0.25f, 81);
  AttentionProblem zero = clean, poisoned = clean;
  const AttentionShape& s = clean.shape;
  for (std::int64_t j = 5; j < 8; ++j)
    for (std::int64_t g = 0; g < 2; ++g)
      for (std::int64_t d = 0; d < 16; ++d) {
        const std::size_t x = kv_at(s, 0, j, g, d);
        zero.k[x] = zero.v[x] = 0;
        poisoned.k[x] = poisoned.v[x] = kBf16NaN;
        if (d == 3) poisoned.v[x] = kBf16PosInf;
      }
  for (auto algo : {kAuto, kGeneric}) {
    const AttentionResult rz = run(zero, algo), rp = run(poisoned, algo);
    for (std::int64_t h = 0; h < 2; ++h) {
      for (std::int64_t i = 0; i < 4; ++i) {
        const bool sees_poison = i >= 1;  // row i sees keys 0 .. i + 4
        for (std::int64_t d = 0; d < 16; ++d) {
          const std::size_t x = qo_at(s, 0, i, h, d);
          if (sees_poison) {
            EXPECT_TRUE(std::isnan(rp.o[x])) << i << " " << d;  // a NaN score
          } else {
            EXPECT_TRUE(same_bits(rz.o[x], rp.o[x])) << i << " " << d;
          }
          EXPECT_FALSE(std::isnan(rz.o[x]));
        }
        const double l = rp.lse[lse_at(s, 0, h, i)];
        if (sees_poison) {
          EXPECT_TRUE(std::isnan(l));
        } else {
          EXPECT_TRUE(same_bits(l, rz.lse[lse_at(s, 0, h, i)]));
        }
        // Batch 1 is untouched.
        for (std::int64_t d = 0; d < 16; ++d) EXPECT_TRUE(same_bits(rz.o[qo_at(s, 1, i, h, d)], rp.o[qo_at(s, 1, i, h, d)]));
      }
    }
  }
}

TEST(Exact, NaNOrInfInVisibleValuesPropagateToTheirColumnOnly) {
  // Scores stay finite (K untouched), so every visible key has positive weight: a NaN in its V
  // makes that column NaN, +inf makes it +inf, +inf and -inf in one column make it NaN. The
  // other columns and LSE do not depend on that V row.
  const AttentionProblem clean = make_problem(shape_of(1, 3, 4, 1, 1, 8), Mask::CausalBottomRight, 0.5f, 91);
  const AttentionShape& s = clean.shape;
  AttentionProblem p = clean;
  p.v[kv_at(s, 0, 3, 0, 0)] = kBf16NaN;     // key 3: visible to row 2 only
  p.v[kv_at(s, 0, 2, 0, 1)] = kBf16PosInf;  // key 2: rows 1, 2
  p.v[kv_at(s, 0, 2, 0, 2)] = kBf16NegInf;
  p.v[kv_at(s, 0, 3, 0, 2)] = kBf16PosInf;
  p.v[kv_at(s, 0, 1, 0, 5)] = kBf16NaN;     // key 1: rows 0, 1, 2
  for (auto algo : {kAuto, kGeneric}) {
    const AttentionResult rc = run(clean, algo), r = run(p, algo);
    auto o = [&](const AttentionResult& x, std::int64_t i, std::int64_t d) { return x.o[qo_at(s, 0, i, 0, d)]; };
    EXPECT_TRUE(std::isnan(o(r, 2, 0)));
    EXPECT_FALSE(std::isnan(o(r, 1, 0)));
    EXPECT_EQ(o(r, 1, 1), kInf);
    EXPECT_EQ(o(r, 2, 1), kInf);
    EXPECT_FALSE(std::isinf(o(r, 0, 1)));
    EXPECT_EQ(o(r, 1, 2), -kInf);
    EXPECT_TRUE(std::isnan(o(r, 2, 2)));
    for (std::int64_t i = 0; i < 3; ++i) {
      EXPECT_TRUE(std::isnan(o(r, i, 5)));
      for (std::int64_t d : {3, 4, 6, 7}) EXPECT_TRUE(same_bits(o(r, i, d), o(rc, i, d))) << i << " " << d;
      EXPECT_TRUE(same_bits(r.lse[std::size_t(i)], rc.lse[std::size_t(i)]));
    }
    EXPECT_TRUE(same_bits(o(r, 0, 0), o(rc, 0, 0)));
  }
}

TEST(Exact, InfiniteScoresFollowTheirLimits) {
  // Key scores are made infinite through an inf in K (q_0 = 1 > 0, scale > 0):
  //  - one +inf score: softmax tends to one-hot on it: O = its V, LSE = +inf;
  //  - two +inf scores: the limit depends on how they grow: O = NaN, LSE = +inf;
  //  - -inf scores weigh 0 (as masked); all -inf: the row is fully masked (+0.0, -inf);
  //  - scale 0 times an infinite dot is NaN (IEEE): the row is NaN.
  AttentionProblem p;
  p.shape = shape_of(1, 1, 3, 1, 1, 2);
  p.scale = 0.5f;
  p.q = {bf16_of(1.0), bf16_of(2.0)};
  p.v = {bf16_of(1.0), bf16_of(2.0), bf16_of(3.0), kBf16NaN, bf16_of(5.0), bf16_of(6.0)};
  for (auto algo : {kAuto, kGeneric}) {
    p.scale = 0.5f;
    p.k = {bf16_of(1.0), bf16_of(1.0), kBf16PosInf, bf16_of(1.0), bf16_of(1.0), bf16_of(1.0)};
    AttentionResult r = run(p, algo);
    EXPECT_EQ(r.o[0], 3.0);
    EXPECT_TRUE(std::isnan(r.o[1]));  // V of the +inf key is NaN in column 1
    EXPECT_EQ(r.lse[0], kInf);

    p.k = {kBf16PosInf, bf16_of(1.0), kBf16PosInf, bf16_of(1.0), bf16_of(1.0), bf16_of(1.0)};
    r = run(p, algo);
    EXPECT_TRUE(std::isnan(r.o[0]) && std::isnan(r.o[1]));
    EXPECT_EQ(r.lse[0], kInf);

    p.k = {kBf16NegInf, bf16_of(1.0), bf16_of(1.0), bf16_of(1.0), kBf16NegInf, bf16_of(1.0)};
    r = run(p, algo);  // only key 1 has a finite score: O = V1 exactly (its NaN included)
    EXPECT_TRUE(std::isnan(r.o[1]));
    EXPECT_EQ(r.o[0], 3.0);
    EXPECT_EQ(r.lse[0], exact_score_rn(p, 0, 0, 0, 1));

    p.k = {kBf16NegInf, bf16_of(1.0), kBf16NegInf, bf16_of(1.0), kBf16NegInf, bf16_of(1.0)};
    r = run(p, algo);
    EXPECT_TRUE(r.o[0] == 0.0 && !std::signbit(r.o[0]) && r.o[1] == 0.0 && !std::signbit(r.o[1]));
    EXPECT_EQ(r.lse[0], -kInf);

    p.scale = 0.0f;
    p.k = {bf16_of(1.0), bf16_of(1.0), kBf16PosInf, bf16_of(1.0), bf16_of(1.0), bf16_of(1.0)};
    r = run(p, algo);
    EXPECT_TRUE(std::isnan(r.o[0]) && std::isnan(r.o[1]) && std::isnan(r.lse[0]));
  }
}

TEST(Exact, EmptyKeySequencesAndEmptyShapes) {
  // C05 in spirit: Sk = 0 leaves every row without a visible key.
  const AttentionProblem p = make_problem(shape_of(2, 4, 0, 2, 2, 8), Mask::None, 0.5f, 101);
  for (auto algo : {kAuto, kGeneric}) {
    const AttentionResult r = run(p, algo);
    ASSERT_EQ(r.o.size(), 2u * 4 * 2 * 8);
    for (double o : r.o) EXPECT_TRUE(o == 0.0 && !std::signbit(o));
    for (double l : r.lse) EXPECT_EQ(l, -kInf);
  }
  const AttentionResult e = attention_forward_exact(make_problem(shape_of(0, 4, 3, 2, 2, 8), Mask::None, 0.5f, 1));
  EXPECT_TRUE(e.o.empty() && e.lse.empty());
}

TEST(Exact, ResultsDoNotDependOnThreadCount) {
  const AttentionProblem p = make_problem(shape_of(2, 7, 19, 4, 2, 32), Mask::CausalTopLeft, 0.2f, 111, 3.0);
  const AttentionResult one = run(p, kAuto, 128, 1), three = run(p, kAuto, 128, 3);
  for (std::size_t x = 0; x < one.o.size(); ++x) ASSERT_TRUE(same_bits(one.o[x], three.o[x])) << x;
  for (std::size_t x = 0; x < one.lse.size(); ++x) ASSERT_TRUE(same_bits(one.lse[x], three.lse[x])) << x;
}

// ---------------------------------------------------------------------------------------------
// The fixed-point parts of the fast path, against MPFR.

TEST(FixedExp, WithinItsBoundOfMpfr) {
  gmp_randstate_t rs;
  gmp_randinit_default(rs);
  gmp_randseed_ui(rs, 20261129);
  std::mt19937_64 gen(5);
  Mp x192(192), x300(300), ref(512), got(512), err(64);
  const double bound = 0x1p-128 + 0x1p-168;
  double worst = 0;
  for (int t = 0; t < 3000; ++t) {
    mpfr_ptr x = (t % 3 == 0) ? static_cast<mpfr_ptr>(x300) : static_cast<mpfr_ptr>(x192);
    mpfr_urandomb(x, rs);  // [0, 1)
    const long e = static_cast<long>(gen() % 221) - 200;  // |x| < 2^e, e in [-200, 20]
    mpfr_mul_2si(x, x, e, MPFR_RNDN);
    mpfr_neg(x, x, MPFR_RNDN);
    detail::Weight128 w;
    ASSERT_TRUE(detail::exp_nonpositive(x, w)) << t;
    ASSERT_EQ(w.significand >> 127, 1u);
    mpfr_exp(ref, x, MPFR_RNDN);
    mpfr_set_ui(got, static_cast<unsigned long>(w.significand >> 64), MPFR_RNDN);
    mpfr_mul_2ui(got, got, 64, MPFR_RNDN);
    mpfr_add_ui(got, got, static_cast<unsigned long>(w.significand & ~std::uint64_t{0}), MPFR_RNDN);
    mpfr_mul_2si(got, got, w.exponent - 128, MPFR_RNDN);
    mpfr_sub(err, got, ref, MPFR_RNDN);
    mpfr_div(err, err, ref, MPFR_RNDN);
    const double rel = std::fabs(mpfr_get_d(err, MPFR_RNDN));
    worst = std::max(worst, rel);
    ASSERT_LE(rel, bound) << "t=" << t << " e=" << e;
  }
  // Half-ulp rounding of a 128-bit significand: the worst case seen should be of that order.
  EXPECT_GT(worst, 0x1p-131);
  gmp_randclear(rs);
}

TEST(FixedExp, ZeroIsExactlyOneAndOutOfRangeIsRefused) {
  Mp x(192);
  detail::Weight128 w;
  mpfr_set_zero(x, -1);
  ASSERT_TRUE(detail::exp_nonpositive(x, w));
  EXPECT_TRUE(w.significand == (detail::u128{1} << 127) && w.exponent == 1);
  mpfr_set_si_2exp(x, -1, 20, MPFR_RNDN);  // -2^20
  EXPECT_FALSE(detail::exp_nonpositive(x, w));
  mpfr_set_d(x, 0x1p-30, MPFR_RNDN);
  EXPECT_FALSE(detail::exp_nonpositive(x, w));
  mpfr_set_nan(x);
  EXPECT_FALSE(detail::exp_nonpositive(x, w));
  mpfr_set_d(x, -(0x1p20 - 0x1p-20), MPFR_RNDN);
  EXPECT_TRUE(detail::exp_nonpositive(x, w));
}

TEST(Accumulator, EqualsTheSumOfTermsTruncatedTowardZero) {
  std::mt19937_64 gen(9);
  Mp expected(2000), term(2000), got(600);
  for (int trial = 0; trial < 20; ++trial) {
    detail::Acc256 acc;
    mpfr_set_zero(expected, 1);
    const int n = 1 + static_cast<int>(gen() % 500);
    for (int t = 0; t < n; ++t) {
      const detail::u128 sig = (detail::u128{gen() | (std::uint64_t{1} << 63)} << 64) | gen();
      const auto m = static_cast<std::uint32_t>(gen() % 256);
      const bool neg = (gen() & 1) != 0;
      const long shift = static_cast<long>(gen() % 226) - 141;  // [-141, 84]
      detail::add_scaled(acc, sig, m, neg, shift);
      mpfr_set_ui(term, static_cast<unsigned long>(sig >> 64), MPFR_RNDN);
      mpfr_mul_2ui(term, term, 64, MPFR_RNDN);
      mpfr_add_ui(term, term, static_cast<unsigned long>(sig & ~std::uint64_t{0}), MPFR_RNDN);
      mpfr_mul_ui(term, term, m, MPFR_RNDN);
      mpfr_mul_2si(term, term, shift, MPFR_RNDN);
      mpfr_trunc(term, term);
      if (neg) mpfr_neg(term, term, MPFR_RNDN);
      mpfr_add(expected, expected, term, MPFR_RNDN);
    }
    detail::acc_to_mpfr(got, acc, -220);
    mpfr_mul_2si(expected, expected, -220, MPFR_RNDN);
    EXPECT_EQ(mpfr_cmp(got, expected), 0) << trial;
  }
}

TEST(ErrorBound, FollowsTheDocumentedFormula) {
  EXPECT_EQ(exact_o_error_factor(10, 128), 28.0 * 0x1p-128);
  EXPECT_EQ(exact_lse_error(10, 128, -3.0), 31.0 * 0x1p-128);
  EXPECT_EQ(exact_o_error_factor(1, 256), 10.0 * 0x1p-256);
}

}  // namespace
}  // namespace cdna::reference
