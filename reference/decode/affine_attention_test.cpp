// affine::attention and affine::attention_projection (docs/decode-bounds.md §16) against the
// exact attention and o_proj (long double) of sampled queries inside the query's affine form:
// every sample inside the output's form, for flat and sharp attention, under the double and
// the monokernel arithmetic. The second-order remainder is what sharp scores stress.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "reference/decode/affine.hpp"
#include "reference/decode/ball.hpp"

namespace cdna::reference {
namespace {

std::uint16_t to_bf16(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return static_cast<std::uint16_t>(u >> 16);  // truncation: any bf16 weight will do
}

struct Problem {
  std::int64_t d = 8, hq = 4, hkv = 2, slots = 6, rows = 7;
  Eigen::Index symbols = 5;
  affine::Affine q;
  std::vector<double> k, v, zeros;
  std::vector<std::uint16_t> w;
  std::vector<ball::HeadCache> heads;
};

Problem make_problem(std::uint32_t seed, double scale) {
  Problem p;
  std::mt19937 rng(seed);
  std::normal_distribution<double> nd(0.0, 1.0);
  const std::int64_t n = p.hq * p.d, kv = p.slots * p.hkv * p.d;
  p.q.mid = Eigen::VectorXd(n);
  p.q.rad = Eigen::VectorXd(n);
  p.q.gen = Eigen::MatrixXd(n, p.symbols);
  for (std::int64_t i = 0; i < n; ++i) {
    p.q.mid(i) = scale * nd(rng);
    p.q.rad(i) = 1e-3 * std::abs(p.q.mid(i));
    for (Eigen::Index s = 0; s < p.symbols; ++s) p.q.gen(i, s) = 0.03 * scale * nd(rng);
  }
  p.k.resize(static_cast<std::size_t>(kv));
  p.v.resize(static_cast<std::size_t>(kv));
  p.zeros.assign(static_cast<std::size_t>(kv), 0.0);
  for (double& x : p.k) x = nd(rng);
  for (double& x : p.v) x = nd(rng);
  p.w.resize(static_cast<std::size_t>(p.rows * n));
  for (std::uint16_t& x : p.w) x = to_bf16(static_cast<float>(0.3 * nd(rng)));
  for (std::int64_t i = 0; i < p.hq; ++i) {
    const std::int64_t g = i / (p.hq / p.hkv), stride = p.hkv * p.d;
    p.heads.push_back({p.k.data() + g * p.d, p.zeros.data() + g * p.d, p.v.data() + g * p.d, p.zeros.data() + g * p.d,
                       stride, p.slots});
  }
  return p;
}

// y = W_o·attention(q) in long double for one realisation of q.
std::vector<long double> exact_output(const Problem& p, const Eigen::VectorXd& q) {
  std::vector<long double> o(static_cast<std::size_t>(p.hq * p.d), 0.0L);
  const long double sigma = 1.0L / std::sqrt(static_cast<long double>(p.d));
  for (std::int64_t h = 0; h < p.hq; ++h) {
    const ball::HeadCache& kv = p.heads[static_cast<std::size_t>(h)];
    std::vector<long double> s(static_cast<std::size_t>(p.slots));
    long double m = -INFINITY, z = 0;
    for (std::int64_t j = 0; j < p.slots; ++j) {
      long double dot = 0;
      for (std::int64_t e = 0; e < p.d; ++e) dot += static_cast<long double>(q(h * p.d + e)) * kv.k_mid[j * kv.stride + e];
      s[static_cast<std::size_t>(j)] = sigma * dot;
      m = std::max(m, s[static_cast<std::size_t>(j)]);
    }
    for (long double& x : s) z += (x = std::exp(x - m));
    for (std::int64_t c = 0; c < p.d; ++c)
      for (std::int64_t j = 0; j < p.slots; ++j)
        o[static_cast<std::size_t>(h * p.d + c)] += s[static_cast<std::size_t>(j)] / z * kv.v_mid[j * kv.stride + c];
  }
  std::vector<long double> y(static_cast<std::size_t>(p.rows), 0.0L);
  for (std::int64_t i = 0; i < p.rows; ++i)
    for (std::int64_t c = 0; c < p.hq * p.d; ++c)
      y[static_cast<std::size_t>(i)] += static_cast<long double>(ball::bf16_to_double(p.w[static_cast<std::size_t>(i * p.hq * p.d + c)])) * o[static_cast<std::size_t>(c)];
  return y;
}

// The largest |y_exact − (mid + gen·ε)| / (rad + Σ|gen of the new symbols|) over `samples`
// realisations (every third a corner of the symbol box), and the mean total radius.
struct Sampled {
  double worst = 0, mean_total = 0;
};
Sampled sample(const Problem& p, const affine::Affine& y, int samples, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  Sampled out;
  const Eigen::Index S = p.symbols;
  Eigen::VectorXd slack = y.rad;
  if (y.gen.cols() > S) slack += y.gen.rightCols(y.gen.cols() - S).cwiseAbs().rowwise().sum();
  out.mean_total = y.total().mean();
  for (int t = 0; t < samples; ++t) {
    Eigen::VectorXd eps(S);
    for (Eigen::Index s = 0; s < S; ++s) eps(s) = t % 3 == 0 ? (unit(rng) < 0 ? -1.0 : 1.0) : unit(rng);
    Eigen::VectorXd q = p.q.mid + p.q.gen * eps;
    for (Eigen::Index i = 0; i < q.size(); ++i) q(i) += p.q.rad(i) * unit(rng);
    const std::vector<long double> ye = exact_output(p, q);
    const Eigen::VectorXd lin = y.mid + y.gen.leftCols(S) * eps;
    for (std::int64_t i = 0; i < p.rows; ++i) {
      const double dev = static_cast<double>(std::abs(ye[static_cast<std::size_t>(i)] - static_cast<long double>(lin(i))));
      out.worst = std::max(out.worst, dev / slack(i));
    }
  }
  return out;
}

TEST(AffineAttention, ContainsTheExactOutputOfSampledQueries) {
  const DecodeArithmetic arithmetics[] = {double_arithmetic(), monokernel_arithmetic(numerics::Rounding::RTNE)};
  for (const DecodeArithmetic& a : arithmetics) {
    for (const double scale : {0.3, 1.0, 3.0}) {
      const Problem p = make_problem(7, scale);
      affine::AttentionRemainder rem;
      bool overflow = false;
      Eigen::Index symbols = p.symbols;
      const affine::Affine o = affine::attention(p.q, p.d, p.heads, a, overflow, rem);
      const affine::Affine y = affine::attention_projection(o, rem, p.heads, p.d, p.w, p.rows, a.activations, a, overflow, symbols);
      ASSERT_FALSE(overflow);
      // The same problem in balls (§7, §4), for the width figure.
      const ball::Ball qb = affine::to_ball(p.q);
      ball::Ball ob{Eigen::VectorXd(p.hq * p.d), Eigen::VectorXd(p.hq * p.d)};
      for (std::int64_t h = 0; h < p.hq; ++h)
        ball::attention_head(qb, h * p.d, p.d, p.heads[static_cast<std::size_t>(h)], a, ob, h * p.d, overflow);
      ball::store(ob, a.activations, a);
      const ball::Ball yb = ball::gemv(p.w, p.rows, p.hq * p.d, ob, a, overflow);
      const Sampled s = sample(p, y, 3000, 11);
      std::printf("scale %.1f, u %.3g: max |exact − form|/slack %.3g; mean radius affine %.3g, balls %.3g\n", scale,
                  a.accumulation_u, s.worst, s.mean_total, yb.rad.mean());
      EXPECT_LE(s.worst, 1.0) << "scale " << scale;
      EXPECT_GT(s.worst, 0.0);  // the samples reach into the radius
    }
  }
}

// A query whose symbols move the scores by several units: the heads fall back to §7's box (the
// linearisation's remainder would be the wider), and the box still contains every sample.
TEST(AffineAttention, WideScoresFallBackToTheBox) {
  Problem p = make_problem(3, 1.0);
  p.q.gen *= 40.0;
  const DecodeArithmetic a = double_arithmetic();
  affine::AttentionRemainder rem;
  bool overflow = false;
  Eigen::Index symbols = p.symbols;
  const affine::Affine o = affine::attention(p.q, p.d, p.heads, a, overflow, rem);
  for (double t2 : rem.t2) EXPECT_EQ(t2, 0.0);
  EXPECT_EQ(o.gen.cwiseAbs().sum(), 0.0);
  const affine::Affine y = affine::attention_projection(o, rem, p.heads, p.d, p.w, p.rows, a.activations, a, overflow, symbols);
  EXPECT_LE(sample(p, y, 1000, 5).worst, 1.0);
}

}  // namespace
}  // namespace cdna::reference
