// Fast certified reference for attention forward (reference/attention/fast_reference.hpp). The bound's
// derivation, term by term, is docs/fast-reference.md; the comments below name its steps.
//
// Structure, per batch b and KV head g (the query heads h with h / (Hq/Hkv) = g share K, V):
//   1. K and V in double (bf16 values are exact), non-finite entries replaced by 0 (rows that
//      read one are evaluated by the exact oracle instead, so the replacement only protects
//      rows that do not read it from 0·NaN in the products), |K|, [V | |V|], prefix min/max of
//      V per column (the enclosure), per-key exponent ranges (exactness of the scores).
//   2. Query rows in blocks: T = Q·Kᵀ and, only if some score sum may be inexact, |Q|·|K|ᵀ;
//      per row the shifted exponents, weights W and W∘r; then W·[V | |V|] and (W∘r)·|V|.
//   3. Per row O = (W·V)/l, LSE = scale·c + log l, and the bounds.
#include "reference/attention/fast_reference.hpp"
#include "reference/common/bf16_bits.hpp"
#include "reference/common/parallel_for.hpp"

#include <Eigen/Core>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cfenv>
#include <climits>
#include <cmath>
#include <exception>
#include <limits>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace cdna::reference {
namespace {

using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kU = 0x1p-53;      // unit roundoff of double, round to nearest
constexpr double kEta = 0x1p-1074;  // smallest subnormal: >= 2x the underflow error of one op
constexpr double kE = kFastLibmRelativeError;  // assumed relative error of exp and log
constexpr double kFlushBelow = -708.0;         // exp(x) for x >= -708 is normal (> 2^-1022)
// Margin for evaluating a bound formula in round-to-nearest: a formula of k <= 2^12 operations
// on non-negative numbers can fall short of its exact value by at most γ_k < 2^-40 relative.
constexpr double kUp = 1.0 + 0x1p-40;
constexpr double kDown = 1.0 - 0x1p-40;
// Rows with a score error Δ_j above this use the enclosure only (derivation needs Δ <= 1/4).
constexpr double kMaxDelta = 0.25;

double up(double x) { return x * kUp; }
double down(double x) { return x * kDown; }
// γ_k = k·u / (1 − k·u) (Higham, Lemma 3.1); +inf where k·u >= 1/2 (not needed in practice).
double gamma_of(double k) {
  const double ku = k * kU;
  return ku < 0.5 ? up(ku / (1.0 - ku)) : kInf;
}

double bf16_value(std::uint16_t b) {
  return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16));
}
// Exponent of the unit in the last place of a finite bf16: value = m · 2^e, m in [0, 255].
int bf16_unit_exp(std::uint16_t b) {
  const int field = (b >> 7) & 0xFF;
  return (field == 0 ? 1 : field) - 134;
}

// Exponent spread of one vector (max − min unit exponent over its nonzero elements), -1 if
// every element is zero, INT_MAX if some element is not finite.
int exponent_range(const std::uint16_t* x, std::int64_t n) {
  int lo = INT_MAX, hi = INT_MIN;
  for (std::int64_t d = 0; d < n; ++d) {
    if (!bf16_finite(x[d])) return INT_MAX;
    if (bf16_zero(x[d])) continue;
    const int e = bf16_unit_exp(x[d]);
    lo = std::min(lo, e);
    hi = std::max(hi, e);
  }
  return lo > hi ? -1 : hi - lo;
}

void check_fp_environment() {
  if (std::fegetround() != FE_TONEAREST) {
    throw std::runtime_error(
        "attention_forward_fast: the rounding mode is not round-to-nearest (FE_TONEAREST); "
        "the error bound assumes it");
  }
#if defined(__x86_64__) || defined(__i386__)
  // MXCSR bit 15: flush to zero; bit 6: denormals are zero (e.g. set by -ffast-math startup).
  if ((_mm_getcsr() & 0x8040u) != 0) {
    throw std::runtime_error(
        "attention_forward_fast: MXCSR has flush-to-zero or denormals-are-zero set; the error "
        "bound assumes IEEE gradual underflow");
  }
#endif
}

// ---------------------------------------------------------------------------------------------
// Row sampling: splitmix64 (Steele, Lea & Flood 2014) and Floyd's algorithm (Bentley 1987).

std::uint64_t mix64(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    const std::uint64_t out = mix64(state_);
    state_ += 0x9E3779B97F4A7C15ull;
    return out;
  }
  // Uniform in [0, bound), bound >= 1, by rejection (no modulo bias).
  std::uint64_t below(std::uint64_t bound) {
    const std::uint64_t threshold = (0 - bound) % bound;  // 2^64 mod bound
    for (;;) {
      const std::uint64_t x = next();
      if (x >= threshold) return x % bound;
    }
  }

 private:
  std::uint64_t state_;
};

// ---------------------------------------------------------------------------------------------
// One (b, g): K and V in double, and what the rows need to know about them.

struct GroupData {
  std::int64_t Sk = 0, D = 0;
  RowMat k, k_abs;                      // [Sk, D]
  RowMat v2;                            // [Sk, 2D]: V | |V|
  RowMat v_min, v_max;                  // [Sk, D]: min/max of V[0..j, d]
  std::vector<int> k_range;             // exponent_range of each key's K row (INT_MAX: bad)
  std::vector<int> k_range_prefix_max;  // max over keys 0..j of k_range
  std::int64_t k_first_bad = 0, v_first_bad = 0;  // first key whose K (V) row is not finite

  void load(const AttentionProblem& p, std::int64_t b, std::int64_t g) {
    const AttentionShape& s = p.shape;
    Sk = s.seqlen_k;
    D = s.head_dim;
    k.resize(Sk, D);
    k_abs.resize(Sk, D);
    v2.resize(Sk, 2 * D);
    v_min.resize(Sk, D);
    v_max.resize(Sk, D);
    k_range.assign(static_cast<std::size_t>(Sk), -1);
    k_range_prefix_max.assign(static_cast<std::size_t>(Sk), -1);
    k_first_bad = Sk;
    v_first_bad = Sk;
    int range_max = -1;
    for (std::int64_t j = 0; j < Sk; ++j) {
      const std::int64_t off = ((b * Sk + j) * s.heads_kv + g) * D;
      const std::uint16_t* kr = p.k.data() + off;
      const std::uint16_t* vr = p.v.data() + off;
      const int range = exponent_range(kr, D);
      if (range == INT_MAX && k_first_bad == Sk) k_first_bad = j;
      range_max = std::max(range_max, range);
      k_range[static_cast<std::size_t>(j)] = range;
      k_range_prefix_max[static_cast<std::size_t>(j)] = range_max;
      bool v_bad = false;
      for (std::int64_t d = 0; d < D; ++d) {
        const double kv = bf16_finite(kr[d]) ? bf16_value(kr[d]) : 0.0;
        k(j, d) = kv;
        k_abs(j, d) = std::fabs(kv);
        double vv = 0.0;
        if (bf16_finite(vr[d])) {
          vv = bf16_value(vr[d]);
        } else {
          v_bad = true;
        }
        v2(j, d) = vv;
        v2(j, D + d) = std::fabs(vv);
        v_min(j, d) = j == 0 ? vv : std::min(v_min(j - 1, d), vv);
        v_max(j, d) = j == 0 ? vv : std::max(v_max(j - 1, d), vv);
      }
      if (v_bad && v_first_bad == Sk) v_first_bad = j;
    }
  }
};

// Per-row quantities of step 2 that step 3 needs.
struct RowState {
  enum class Kind : std::uint8_t { Masked, Fallback, Single, Softmax } kind = Kind::Masked;
  std::int64_t n = 0;        // visible keys
  std::int64_t flushed = 0;  // visible keys with x̂ < -708, weight set to 0
  double c = 0;              // shift: the computed dot product at the row's maximum score
  double l = 0;              // l̂ = Σ ŵ_j (sequential)
  double rsum = 0;           // Σ fl(ŵ_j · r_j) (sequential)
  double rmax = 0;           // max r_j over kept keys
  double delta_max = 0;      // max Δ_j over visible keys
  double score_err_max = 0;  // max_j |scale|·|t̂_j − t_j| bound (enclosure of LSE)
};

// Per-thread matrices. They only grow (a block uses their top-left corner), so that blocks of
// different shapes do not reallocate.
struct Scratch {
  RowMat q, q_abs, t, a, w, wr, nc, g;
  std::vector<RowState> rows;
  std::vector<int> q_range;
};

void grow_to(RowMat& x, Eigen::Index rows, Eigen::Index cols) {
  if (x.rows() < rows || x.cols() < cols)
    x.resize(std::max(x.rows(), rows), std::max(x.cols(), cols));
}

struct Counters {
  std::atomic<std::int64_t> fallback{0}, enclosure{0};
};

class Evaluator {
 public:
  Evaluator(const AttentionProblem& p, FastAttentionResult& out, Counters& counters)
      : p_(p), s_(p.shape), out_(out), counters_(counters) {
    D_ = s_.head_dim;
    scale_ = static_cast<double>(p.scale);
    scale_abs_ = std::fabs(scale_);
    const int log2_d = static_cast<int>(std::bit_width(static_cast<std::uint64_t>(D_ - 1)));
    // A score sum over D products is exact when range_q + range_k <= this (step 1).
    exact_budget_ = 53 - 16 - log2_d;
    gamma_d_ = gamma_of(static_cast<double>(D_));
  }

  // Rows `rows` (sorted query indices) of query head h, which reads group `gd` of batch b.
  void block(std::int64_t b, std::int64_t h, std::span<const std::int64_t> rows,
             const GroupData& gd, Scratch& sc) const {
    const auto m = static_cast<Eigen::Index>(rows.size());
    const std::int64_t Sk = gd.Sk, Sq = s_.seqlen_q;
    sc.rows.assign(rows.size(), RowState{});
    sc.q_range.assign(rows.size(), -1);
    grow_to(sc.q, m, D_);
    grow_to(sc.q_abs, m, D_);
    bool any_softmax = false, need_abs = false;
    std::int64_t kcols = 0;  // widest visible prefix of the block's rows: the products stop there
    for (Eigen::Index r = 0; r < m; ++r) {
      const std::int64_t i = rows[static_cast<std::size_t>(r)];
      const std::uint16_t* qr = p_.q.data() + ((b * Sq + i) * s_.heads_q + h) * D_;
      for (std::int64_t d = 0; d < D_; ++d) {
        const double x = bf16_finite(qr[d]) ? bf16_value(qr[d]) : 0.0;
        sc.q(r, d) = x;
        sc.q_abs(r, d) = std::fabs(x);
      }
      RowState& st = sc.rows[static_cast<std::size_t>(r)];
      st.n = visible_keys(p_.mask, i, Sq, Sk);
      const int qrange = exponent_range(qr, D_);
      sc.q_range[static_cast<std::size_t>(r)] = qrange;
      if (st.n == 0) {
        st.kind = RowState::Kind::Masked;
      } else if (qrange == INT_MAX || st.n > gd.k_first_bad ||
                 st.n > gd.v_first_bad) {
        st.kind = RowState::Kind::Fallback;
      } else {
        st.kind = st.n == 1 ? RowState::Kind::Single : RowState::Kind::Softmax;
        any_softmax = true;
        kcols = std::max(kcols, st.n);
        const int krange = gd.k_range_prefix_max[static_cast<std::size_t>(st.n - 1)];
        if (qrange >= 0 && krange >= 0 && qrange + krange > exact_budget_) need_abs = true;
      }
    }

    if (any_softmax) {
      // Keys >= kcols are invisible to every row here: their weights would be exact zeros.
      const auto kc = static_cast<Eigen::Index>(kcols);
      for (RowMat* x : {&sc.t, &sc.w, &sc.wr}) grow_to(*x, m, kc);
      const auto q = sc.q.topLeftCorner(m, D_);
      sc.t.topLeftCorner(m, kc).noalias() = q * gd.k.topRows(kc).transpose();
      if (need_abs) {
        grow_to(sc.a, m, kc);
        sc.a.topLeftCorner(m, kc).noalias() =
            sc.q_abs.topLeftCorner(m, D_) * gd.k_abs.topRows(kc).transpose();
      }
      for (Eigen::Index r = 0; r < m; ++r) {
        RowState& st = sc.rows[static_cast<std::size_t>(r)];
        if (st.kind == RowState::Kind::Single || st.kind == RowState::Kind::Softmax) {
          weights(r, st, sc.q_range[static_cast<std::size_t>(r)], gd, sc);
        }
        // W and W∘r are zero outside the row's kept keys (written by weights()).
        const std::int64_t from = st.kind == RowState::Kind::Softmax ? st.n : 0;
        std::fill(sc.w.row(r).data() + from, sc.w.row(r).data() + kc, 0.0);
        std::fill(sc.wr.row(r).data() + from, sc.wr.row(r).data() + kc, 0.0);
      }
      grow_to(sc.nc, m, 2 * D_);
      grow_to(sc.g, m, D_);
      sc.nc.topLeftCorner(m, 2 * D_).noalias() = sc.w.topLeftCorner(m, kc) * gd.v2.topRows(kc);
      sc.g.topLeftCorner(m, D_).noalias() =
          sc.wr.topLeftCorner(m, kc) * gd.v2.topRightCorner(kc, D_);
    }

    for (Eigen::Index r = 0; r < m; ++r) {
      const std::int64_t i = rows[static_cast<std::size_t>(r)];
      const RowState& st = sc.rows[static_cast<std::size_t>(r)];
      double* o = out_.o.data() + ((b * Sq + i) * s_.heads_q + h) * D_;
      double* ob = out_.o_bound.data() + ((b * Sq + i) * s_.heads_q + h) * D_;
      const auto li = static_cast<std::size_t>((b * s_.heads_q + h) * Sq + i);
      out_.computed[li] = 1;
      switch (st.kind) {
        case RowState::Kind::Masked:
          std::fill(o, o + D_, 0.0);
          std::fill(ob, ob + D_, 0.0);
          out_.lse[li] = -kInf;
          out_.lse_bound[li] = 0.0;
          break;
        case RowState::Kind::Fallback:
          fallback(b, h, i, st.n, o, ob, out_.lse[li], out_.lse_bound[li]);
          counters_.fallback.fetch_add(1, std::memory_order_relaxed);
          break;
        case RowState::Kind::Single:
          single(st, gd, o, ob, out_.lse[li], out_.lse_bound[li]);
          break;
        case RowState::Kind::Softmax:
          if (softmax(st, r, gd, sc, o, ob, out_.lse[li], out_.lse_bound[li])) {
            counters_.enclosure.fetch_add(1, std::memory_order_relaxed);
          }
          break;
      }
    }
  }

 private:
  // Bound on |scale|·|t̂_j − t_j| (step 1): 0 if the sum is exact (every partial sum of the
  // D products fits 53 bits), else |scale|·γ_D·Σ_d|q_d||k_jd| from the |Q|·|K|ᵀ product.
  double score_error(Eigen::Index r, std::int64_t j, int qrange, const GroupData& gd,
                     const Scratch& sc) const {
    const int krange = gd.k_range[static_cast<std::size_t>(j)];
    if (qrange < 0 || krange < 0 || qrange + krange <= exact_budget_) return 0.0;
    const double a = sc.a(r, static_cast<Eigen::Index>(j));
    return up(scale_abs_ * gamma_d_ * a / (1.0 - gamma_d_));
  }

  // Step 2: shift, exponents, weights, their error bounds r_j, W and W∘r.
  void weights(Eigen::Index r, RowState& st, int qrange, const GroupData& gd, Scratch& sc) const {
    const std::int64_t n = st.n;
    const double* t = sc.t.row(r).data();
    // The shift c: the computed dot product where scale·t̂ is largest.
    std::int64_t jc = 0;
    for (std::int64_t j = 1; j < n; ++j) {
      if ((scale_ > 0 && t[j] > t[jc]) || (scale_ < 0 && t[j] < t[jc])) jc = j;
    }
    st.c = t[jc];
    if (st.kind == RowState::Kind::Single) {
      st.score_err_max = score_error(r, 0, qrange, gd, sc);
      return;
    }
    double l = 0, rsum = 0, rmax = 0, dmax = 0, emax = 0;
    std::int64_t flushed = 0;
    double* w = sc.w.row(r).data();
    double* wr = sc.wr.row(r).data();
    for (std::int64_t j = 0; j < n; ++j) {
      const double x = scale_ * (t[j] - st.c);  // x̂_j <= 0
      const double se = score_error(r, j, qrange, gd, sc);
      emax = std::max(emax, se);
      // Δ_j >= |x̂_j − scale·(t_j − c)|: score sum, then the subtraction and the product.
      const double delta = up(se + 3.0 * kU * std::fabs(x) + kEta);
      dmax = std::max(dmax, delta);
      double wj = 0, rj = 0;
      if (x == 0) {  // exp(0) = 1 without libm
        wj = 1.0;
        rj = up(delta + delta * delta);
      } else if (x < kFlushBelow) {  // weight < 2^-1021: dropped, bounded in step 3
        ++flushed;
        w[j] = 0.0;
        wr[j] = 0.0;
        continue;
      } else {
        wj = std::exp(x);
        rj = up((delta + delta * delta) * (1.0 + kE) + kE);
      }
      w[j] = wj;
      wr[j] = wj * rj;
      l += wj;
      rsum += wr[j];
      rmax = std::max(rmax, rj);
    }
    st.l = l;
    st.rsum = rsum;
    st.rmax = rmax;
    st.delta_max = dmax;
    st.flushed = flushed;
    st.score_err_max = emax;
  }

  // One visible key: P = 1, O = V exactly; LSE = scale · t̂_0 rounded once.
  void single(const RowState& st, const GroupData& gd, double* o, double* ob, double& lse,
              double& lse_bound) const {
    for (std::int64_t d = 0; d < D_; ++d) {
      o[d] = plus_zero(gd.v2(0, d));
      ob[d] = 0.0;
    }
    lse = plus_zero(scale_ * st.c);
    lse_bound = up(st.score_err_max + kU * std::fabs(lse) / (1.0 - kU) + kEta);
  }

  // Step 3 for n >= 2. Returns true if some bound of the row came from the enclosure.
  bool softmax(const RowState& st, Eigen::Index r, const GroupData& gd, const Scratch& sc,
               double* o, double* ob, double& lse, double& lse_bound) const {
    const auto nd = static_cast<double>(st.n);
    const double gn = gamma_of(nd), gl = gamma_of(nd - 1.0);
    const double l = st.l;                     // >= 1: the key at the shift has ŵ = 1
    const double l_lo = down(l / (1.0 + gl));  // <= l̃ = Σ ŵ_j exactly
    bool valid = st.delta_max <= kMaxDelta && gn < 0.5;
    double rbar = kInf, k1 = kInf;
    if (valid) {
      const double r_up = up(st.rsum / ((1.0 - gn) * l_lo));  // >= Σ P̃_j r_j
      valid = st.rmax + r_up < 0.5;
      if (valid) {
        rbar = up(r_up / (1.0 - st.rmax - r_up));  // >= |ρ̄|
        valid = rbar < 0.5;
        k1 = up((1.0 + rbar) / ((1.0 - st.rmax) * (1.0 - rbar)));
      }
    }
    const double n_eta = nd * kEta;
    const double flush_o = static_cast<double>(st.flushed) * 0x1p-880;
    const auto last = static_cast<Eigen::Index>(st.n - 1);
    bool used_enclosure = false;
    for (std::int64_t d = 0; d < D_; ++d) {
      const double num = sc.nc(r, d), cabs = sc.nc(r, D_ + d), gsum = sc.g(r, d);
      const double od = plus_zero(num / l);
      o[d] = od;
      const double lo = gd.v_min(last, d), hi = gd.v_max(last, d);
      const double enclosure = up(std::max(od - lo, hi - od));
      double derived = kInf;
      if (valid) {
        const double c_til = (cabs + n_eta) / (1.0 - gn);                       // >= Σ ŵ_j|V_jd|
        const double b_up = c_til / l_lo;                                       // >= Σ P̃_j|V_jd|
        const double g_up = (gsum + n_eta) / ((1.0 - gn) * (1.0 - kU) * l_lo);  // >= Σ P̃ r|V|
        const double e_num = gn * c_til + n_eta;                                // |N̂ − Ñ|
        const double term_a = kU * std::fabs(od) / (1.0 - kU) + kEta;           // the division
        const double term_b = (e_num + gl * (std::fabs(num) + e_num)) / l;      // sums N̂, l̂
        const double term_c = k1 * (g_up + rbar * b_up);                        // weights
        derived = up(term_a + term_b + term_c + flush_o) + 0x1p-1000;
      }
      if (enclosure < derived) used_enclosure = true;
      ob[d] = std::min(derived, enclosure);
    }

    const double m_hat = scale_ * st.c;
    const double lam = std::log(l);
    lse = plus_zero(m_hat + lam);
    const double m_err = kU * std::fabs(m_hat) / (1.0 - kU) + kEta;
    // Enclosure: LSE in [S_max, S_max + ln n], S_max within score_err_max of scale·c.
    const double lse_enclosure = up(std::fabs(lse - m_hat) * (1.0 + 2.0 * kU) + m_err +
                                    st.score_err_max + std::log(nd) * (1.0 + kE) + kEta);
    double lse_derived = kInf;
    if (valid) {
      lse_derived = up(m_err + kE * std::fabs(lam) / (1.0 - kE) + kEta + gl / (1.0 - gl) +
                       rbar / (1.0 - rbar) + static_cast<double>(st.flushed) * 0x1p-1000 +
                       kU * std::fabs(lse) / (1.0 - kU));
    }
    if (lse_enclosure < lse_derived) used_enclosure = true;
    lse_bound = std::min(lse_derived, lse_enclosure);
    return used_enclosure;
  }

  // A row that reads a NaN or inf: the exact oracle on that row
  // alone (its visible keys, no mask), with the oracle's stated error as the bound.
  void fallback(std::int64_t b, std::int64_t h, std::int64_t i, std::int64_t n, double* o,
                double* ob, double& lse, double& lse_bound) const {
    const std::int64_t Sq = s_.seqlen_q, Sk = s_.seqlen_k, g = h / (s_.heads_q / s_.heads_kv);
    AttentionProblem sub;
    sub.shape = AttentionShape{1, 1, n, 1, 1, D_};
    sub.mask = Mask::None;
    sub.scale = p_.scale;
    const std::uint16_t* qr = p_.q.data() + ((b * Sq + i) * s_.heads_q + h) * D_;
    sub.q.assign(qr, qr + D_);
    sub.k.resize(static_cast<std::size_t>(n * D_));
    sub.v.resize(static_cast<std::size_t>(n * D_));
    for (std::int64_t j = 0; j < n; ++j) {
      const std::int64_t off = ((b * Sk + j) * s_.heads_kv + g) * D_;
      std::copy_n(p_.k.data() + off, D_, sub.k.data() + j * D_);
      std::copy_n(p_.v.data() + off, D_, sub.v.data() + j * D_);
    }
    ExactOptions eo;
    eo.threads = 1;
    const AttentionResult ex = attention_forward_exact_with(sub, eo);
    const double factor = exact_o_error_factor(n, eo.precision_bits);
    for (std::int64_t d = 0; d < D_; ++d) {
      const double od = ex.o[static_cast<std::size_t>(d)];
      o[d] = od;
      if (!std::isfinite(od)) {
        ob[d] = 0.0;
        continue;
      }
      // Σ_j P_j |V_jd| <= the largest finite |V_jd| over the visible keys (a finite O_d means
      // every key of positive weight has a finite V_jd).
      double vmax = 0;
      for (std::int64_t j = 0; j < n; ++j) {
        const std::uint16_t v = sub.v[static_cast<std::size_t>(j * D_ + d)];
        if (bf16_finite(v)) vmax = std::max(vmax, std::fabs(bf16_value(v)));
      }
      ob[d] = up(factor * vmax + kU * std::fabs(od) / (1.0 - kU) + kEta);
    }
    lse = ex.lse[0];
    lse_bound = std::isfinite(lse) ? up(exact_lse_error(n, eo.precision_bits, lse) +
                                        kU * std::fabs(lse) / (1.0 - kU) + kEta)
                                   : 0.0;
  }

  const AttentionProblem& p_;
  const AttentionShape& s_;
  FastAttentionResult& out_;
  Counters& counters_;
  std::int64_t D_ = 1;
  double scale_ = 0, scale_abs_ = 0, gamma_d_ = 0;
  int exact_budget_ = 0;
};

}  // namespace

std::vector<std::int64_t> sampled_query_rows(const AttentionShape& shape, std::int64_t b,
                                             std::int64_t h, const FastOptions& options) {
  const std::int64_t sq = std::max<std::int64_t>(shape.seqlen_q, 0);
  std::vector<std::int64_t> rows;
  if (!options.sample_rows) {
    rows.resize(static_cast<std::size_t>(sq));
    for (std::int64_t i = 0; i < sq; ++i) rows[static_cast<std::size_t>(i)] = i;
    return rows;
  }
  const std::int64_t k = *options.sample_rows;
  if (k < 0) {
    throw std::invalid_argument("FastOptions.sample_rows = " + std::to_string(k) +
                                ", must be >= 0 (rows per batch and query head)");
  }
  if (k >= sq) return sampled_query_rows(shape, b, h, FastOptions{});
  SplitMix64 gen(mix64(mix64(mix64(options.seed) ^ static_cast<std::uint64_t>(b)) ^
                       static_cast<std::uint64_t>(h)));
  std::vector<std::uint8_t> chosen(static_cast<std::size_t>(sq), 0);
  for (std::int64_t j = sq - k; j < sq; ++j) {  // Floyd: k distinct, uniformly
    const auto t = static_cast<std::size_t>(gen.below(static_cast<std::uint64_t>(j) + 1));
    if (chosen[t]) {
      chosen[static_cast<std::size_t>(j)] = 1;
    } else {
      chosen[t] = 1;
    }
  }
  rows.reserve(static_cast<std::size_t>(k));
  for (std::int64_t i = 0; i < sq; ++i) {
    if (chosen[static_cast<std::size_t>(i)]) rows.push_back(i);
  }
  return rows;
}

FastAttentionResult attention_forward_fast(const AttentionProblem& problem,
                                           const FastOptions& options) {
  validate(problem);
  require_base_definition(problem, "the fast reference");
  if (options.sample_rows && *options.sample_rows < 0) {
    throw std::invalid_argument(
        "FastOptions.sample_rows = " + std::to_string(*options.sample_rows) +
        ", must be >= 0 (rows per batch and query head)");
  }
  check_fp_environment();
  const AttentionShape& s = problem.shape;
  FastAttentionResult out;
  out.o.assign(static_cast<std::size_t>(s.o_elements()), kNaN);
  out.o_bound.assign(out.o.size(), kNaN);
  out.lse.assign(static_cast<std::size_t>(s.lse_elements()), kNaN);
  out.lse_bound.assign(out.lse.size(), kNaN);
  out.computed.assign(out.lse.size(), 0);
  if (s.batch == 0 || s.heads_q == 0 || s.seqlen_q == 0) return out;

  unsigned threads = options.threads != 0 ? options.threads : std::thread::hardware_concurrency();
  if (threads == 0) threads = 1;
  Eigen::initParallel();

  const std::int64_t group = s.heads_q / s.heads_kv;
  // Rows per product: enough for efficient products, few enough that the four [rows, Sk]
  // matrices stay near 32 MiB per thread.
  const std::int64_t block_rows = std::clamp<std::int64_t>(
      (std::int64_t{1} << 20) / std::max<std::int64_t>(s.seqlen_k, 1), 8, 256);

  Counters counters;
  Evaluator ev(problem, out, counters);
  std::vector<Scratch> scratch(threads);
  GroupData gd;
  for (std::int64_t b = 0; b < s.batch; ++b) {
    for (std::int64_t g = 0; g < s.heads_kv; ++g) {
      // Rows of the group's query heads, cut into blocks.
      std::vector<std::vector<std::int64_t>> head_rows(static_cast<std::size_t>(group));
      struct Task {
        std::int64_t h, begin, end;
      };
      std::vector<Task> tasks;
      for (std::int64_t hh = 0; hh < group; ++hh) {
        const std::int64_t h = g * group + hh;
        auto& rows = head_rows[static_cast<std::size_t>(hh)];
        rows = sampled_query_rows(s, b, h, options);
        const auto count = static_cast<std::int64_t>(rows.size());
        for (std::int64_t x = 0; x < count; x += block_rows) {
          tasks.push_back({h, x, std::min(count, x + block_rows)});
        }
      }
      if (tasks.empty()) continue;
      gd.load(problem, b, g);
      parallel_for(static_cast<std::int64_t>(tasks.size()), threads,
                   [&](unsigned worker, std::int64_t t) {
                     const Task& task = tasks[static_cast<std::size_t>(t)];
                     const auto& rows = head_rows[static_cast<std::size_t>(task.h - g * group)];
                     ev.block(b, task.h,
                              std::span<const std::int64_t>(rows).subspan(
                                  static_cast<std::size_t>(task.begin),
                                  static_cast<std::size_t>(task.end - task.begin)),
                              gd, scratch[worker]);
                   });
    }
  }
  out.rows_exact_fallback = counters.fallback.load();
  out.rows_enclosure_bound = counters.enclosure.load();
  out.rows_computed = std::count(out.computed.begin(), out.computed.end(), std::uint8_t{1});
  return out;
}

}  // namespace cdna::reference
