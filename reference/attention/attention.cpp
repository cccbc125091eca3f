// The definition of attention forward (docs/semantics.md) and its exact MPFR oracle.
//
// Structure of the oracle, per output row (b, i, h) (fp8 inputs are first converted exactly to
// bf16 patterns, so everything runs on bf16 patterns):
//   1. scores S_j = scale · dq · dk · q·k_j of the visible keys (a range: mask and window),
//      exactly: bf16 × bf16 products are exact in double (8-bit significands, exponents in
//      [-266, 240]), and their sum is formed exactly by the cheapest of: a double sum when every
//      partial sum provably fits 53 bits, an __int128 sum when it fits 126 bits, else an MPFR sum
//      at 664 bits (enough for any D below 2^64). Multiplying by the fp32 scale (and descale
//      factors) is then exact at 80/160/704 bits (+48). With a soft cap, c·tanh(S/c) at
//      p + 72 + log2 c bits (absolute error <= 2^-(p + 70)).
//   2. the special cases of the definition (no visible key, NaN, +inf scores) decided exactly.
//   3. weights w_j = exp(S_j - M), M the row maximum (or the sink if larger), their sum (with
//      the sink's weight), the numerators sum_j w_j V_jd, O = dv · numerator / sum and
//      LSE = M + log(sum):
//      - Generic: MPFR at p bits throughout;
//      - Auto at p = 128: a 192-bit fixed-point exp (fixed_exp.cpp), and 256-bit fixed-point
//        accumulators whose window sits at the column's largest term, so each sum is exact up
//        to < 2^-176 of its sum of magnitudes; one MPFR division and one log per row.
// Rows are split over std::thread workers; each worker owns all its MPFR scratch.
#include "reference/attention/attention.hpp"

#include <gmp.h>
#include <mpfr.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cctype>
#include <climits>
#include <cmath>
#include <exception>
#include <limits>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "numerics/fp8.hpp"
#include "reference/attention/fixed_exp.hpp"
#include "reference/common/bf16_bits.hpp"
#include "reference/common/mpfr_range.hpp"
#include "reference/common/mpfr_var.hpp"

namespace cdna::reference {
namespace {

using detail::Acc256;
using detail::u128;
using detail::Weight128;
__extension__ typedef __int128 i128;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// ---------------------------------------------------------------------------------------------
// bf16 bit patterns. bits << 16 is the fp32 pattern. A finite bf16 value is m · 2^e with the
// integer significand m in [0, 255] and e = max(exponent field, 1) - 134 in [-133, 120].

bool bf16_negative(std::uint16_t b) { return (b & 0x8000u) != 0; }
int bf16_exp(std::uint16_t b) {
  const int field = (b >> 7) & 0xFF;
  return (field == 0 ? 1 : field) - 134;
}
int bf16_sig(std::uint16_t b) {
  const int field = (b >> 7) & 0xFF;
  return (b & 0x7F) | (field == 0 ? 0 : 0x80);
}
double bf16_to_double(std::uint16_t b) {
  const std::uint32_t u = static_cast<std::uint32_t>(b) << 16;
  return static_cast<double>(std::bit_cast<float>(u));
}

// ---------------------------------------------------------------------------------------------
// MPFR helpers.

using Mp = MpfrVar;

class MpArray {
 public:
  MpArray(std::size_t n, mpfr_prec_t prec) : v_(new mpfr_t[n]), n_(n) {
    for (std::size_t i = 0; i < n_; ++i) mpfr_init2(v_[i], prec);
  }
  ~MpArray() {
    for (std::size_t i = 0; i < n_; ++i) mpfr_clear(v_[i]);
    delete[] v_;
  }
  MpArray(const MpArray&) = delete;
  MpArray& operator=(const MpArray&) = delete;
  mpfr_ptr operator[](std::size_t i) { return v_[i]; }

 private:
  mpfr_t* v_;
  std::size_t n_;
};

// Sets the precision of x (discarding its value) only if it differs: set_prec reallocates.
void ensure_prec(mpfr_ptr x, mpfr_prec_t prec) {
  if (mpfr_get_prec(x) != prec) mpfr_set_prec(x, prec);
}

void set_from_i128(mpfr_ptr rop, i128 v, long exp2) {
  const bool negative = v < 0;
  const u128 mag = negative ? static_cast<u128>(0) - static_cast<u128>(v) : static_cast<u128>(v);
  mp_limb_t limbs[2] = {static_cast<mp_limb_t>(mag), static_cast<mp_limb_t>(mag >> 64)};
  const mp_size_t n = limbs[1] != 0 ? 2 : (limbs[0] != 0 ? 1 : 0);
  if (n == 0) {
    mpfr_set_zero(rop, +1);
    return;
  }
  mpz_t z;
  mpz_srcptr zp = mpz_roinit_n(z, limbs, negative ? -n : n);
  mpfr_set_z_2exp(rop, zp, exp2, MPFR_RNDN);
}

Weight128 weight_of(mpfr_srcptr w128) {  // w128: precision 128, >= 0
  Weight128 w;
  if (mpfr_zero_p(w128)) return w;
  const auto* l = static_cast<const mp_limb_t*>(mpfr_custom_get_significand(w128));
  w.significand = (static_cast<u128>(l[1]) << 64) | l[0];
  w.exponent = mpfr_get_exp(w128);
  return w;
}

// ---------------------------------------------------------------------------------------------
// The problem, decoded once and shared read-only by the workers.

struct VecStats {
  int emin = INT_MAX;  // smallest / largest e over the nonzero finite elements
  int emax = INT_MIN;
  bool nonfinite = false;
  bool all_zero() const { return emin > emax; }
};

enum class ScoreClass : std::uint8_t { Finite, NaN, PosInf, NegInf };

ScoreClass classify(double s) {
  if (std::isnan(s)) return ScoreClass::NaN;
  if (std::isinf(s)) return s > 0 ? ScoreClass::PosInf : ScoreClass::NegInf;
  return ScoreClass::Finite;
}

struct Prepared {
  const AttentionProblem& p;
  std::int64_t B, Sq, Sk, Hq, Hkv, D, Dv, group;
  double scale;
  int log2_d;  // ceil(log2 D)
  // Q, K and V as bf16 patterns: the problem's own for bf16, else each fp8 pattern converted
  // exactly (every e4m3fnuz / e5m2fnuz value is a bf16 value; 0x80 becomes the bf16 NaN 0x7FC0).
  const std::uint16_t *q16, *k16, *v16;
  std::vector<std::uint16_t> q_conv, k_conv, v_conv;
  bool descaled;         // some descale factor given: scores carry dq·dk, O carries dv
  double softcap;        // c (0 = none)
  mpfr_prec_t cap_prec;  // working precision of c·tanh(S/c) (docs/semantics.md §6)
  std::vector<double> qd, kd;    // exact values of Q and K
  std::vector<VecStats> qs, ks;  // per Q vector (b, i, h) and K vector (b, j, g)
  std::vector<std::uint8_t> v_special;  // per V vector (b, j, g): holds a NaN or inf
  // V as m · 2^e (signed integer significand, 0 for zeros and non-finite values; exponent),
  // transposed to [B, Hkv, Dv, Sk] so that one output column reads them contiguously.
  std::vector<std::int16_t> vt_m, vt_e;

  Prepared(const AttentionProblem& problem, unsigned precision_bits) : p(problem) {
    const AttentionShape& s = p.shape;
    B = s.batch;
    Sq = s.seqlen_q;
    Sk = s.seqlen_k;
    Hq = s.heads_q;
    Hkv = s.heads_kv;
    D = s.head_dim;
    Dv = s.dv();
    group = Hq / Hkv;
    scale = static_cast<double>(p.scale);
    log2_d = static_cast<int>(std::bit_width(static_cast<std::uint64_t>(D - 1)));
    q16 = as_bf16(p.q, q_conv);
    k16 = as_bf16(p.k, k_conv);
    v16 = as_bf16(p.v, v_conv);
    descaled = !p.descale_q.empty() || !p.descale_k.empty() || !p.descale_v.empty();
    softcap = static_cast<double>(p.softcap);
    // |c·tanh(S/c)| <= c < 2^cap_exp: 72 bits beyond p below that keep its absolute error
    // (<= 4·2^-cap_prec·c, three roundings) under 2^-(p + 70).
    const int cap_exp = softcap > 0 ? std::max(0, std::ilogb(softcap) + 1) : 0;
    cap_prec = static_cast<mpfr_prec_t>(precision_bits) + 72 + cap_exp;
    decode_qk(q16, p.q.size(), qd, qs);
    decode_qk(k16, p.k.size(), kd, ks);
    const std::size_t nv = p.v.size();
    v_special.assign(nv / static_cast<std::size_t>(Dv), 0);
    vt_m.assign(nv, 0);
    vt_e.assign(nv, 0);
    for (std::int64_t bb = 0; bb < B; ++bb)
      for (std::int64_t j = 0; j < Sk; ++j)
        for (std::int64_t g = 0; g < Hkv; ++g)
          for (std::int64_t d = 0; d < Dv; ++d) {
            const auto from = static_cast<std::size_t>(((bb * Sk + j) * Hkv + g) * Dv + d);
            const auto to = static_cast<std::size_t>(((bb * Hkv + g) * Dv + d) * Sk + j);
            const std::uint16_t b = v16[from];
            if (!bf16_finite(b)) {
              v_special[from / static_cast<std::size_t>(Dv)] = 1;
              continue;
            }
            const int m = bf16_sig(b);
            vt_m[to] = static_cast<std::int16_t>(bf16_negative(b) ? -m : m);
            vt_e[to] = static_cast<std::int16_t>(bf16_exp(b));
          }
  }

  // The bf16 patterns of `in`: `in` itself for bf16, else its fp8 patterns converted into `conv`.
  const std::uint16_t* as_bf16(const std::vector<std::uint16_t>& in, std::vector<std::uint16_t>& conv) const {
    if (p.dtype == ElementType::BF16) return in.data();
    conv.resize(in.size());
    for (std::size_t x = 0; x < in.size(); ++x) {
      // fp8 -> fp32 is exact (numerics/fp8.hpp) and its value has <= 4 significant bits, so the
      // upper half of the fp32 pattern is the same value as a bf16 pattern.
      const auto f = static_cast<float>(element_value(p.dtype, in[x]));
      conv[x] = static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(f) >> 16);
    }
    return conv.data();
  }

  void decode_qk(const std::uint16_t* in, std::size_t n, std::vector<double>& out,
                 std::vector<VecStats>& stats) const {
    out.resize(n);
    stats.assign(n / static_cast<std::size_t>(D), VecStats{});
    for (std::size_t x = 0; x < n; ++x) {
      const std::uint16_t b = in[x];
      out[x] = bf16_to_double(b);
      VecStats& st = stats[x / static_cast<std::size_t>(D)];
      if (!bf16_finite(b)) {
        st.nonfinite = true;
      } else if (!bf16_zero(b)) {
        st.emin = std::min(st.emin, bf16_exp(b));
        st.emax = std::max(st.emax, bf16_exp(b));
      }
    }
  }
};

// Special values of O entries, gathered over the keys with positive weight.
constexpr std::uint8_t kHasNaN = 1, kHasPosInf = 2, kHasNegInf = 4;

double special_value(std::uint8_t flags) {
  if ((flags & kHasNaN) || ((flags & kHasPosInf) && (flags & kHasNegInf))) return kNaN;
  return (flags & kHasPosInf) ? kInf : -kInf;
}

std::uint8_t special_flag(std::uint16_t b) {
  if ((b & 0x7F) != 0) return kHasNaN;
  return bf16_negative(b) ? kHasNegInf : kHasPosInf;
}

// A zero result is +0.0: exact zeros have no sign, and the sign of an underflowed value is not
// part of the definition (docs/semantics.md).

// ---------------------------------------------------------------------------------------------
// One worker: evaluates whole rows.

constexpr mpfr_prec_t kPrecDotDouble = 80;   // 53-bit dot · 24-bit scale
constexpr mpfr_prec_t kPrecDotI128 = 160;    // 127-bit dot · 24-bit scale
constexpr mpfr_prec_t kPrecDotWide = 664;    // any exact dot: 2^-266 .. 2^(256 + 64)
constexpr mpfr_prec_t kPrecScoreWide = 704;  // wide dot · 24-bit scale
constexpr long kSumLsb = -220;               // LSB of the weight-sum accumulator (weights <= 1)

class Worker {
 public:
  Worker(const Prepared& pr, AttentionResult& out, mpfr_prec_t prec, bool fast)
      : P_(pr),
        out_(out),
        fast_(fast),
        nk_(static_cast<std::size_t>(std::max<std::int64_t>(pr.Sk, 0))),
        nd_(static_cast<std::size_t>(pr.Dv)),
        scores_(nk_, kPrecDotDouble),
        capped_(pr.softcap > 0 ? nk_ : 0, pr.cap_prec),
        dot_wide_(kPrecDotWide),
        cap_tmp_(pr.cap_prec),
        sink_(53),
        x_(fast ? 192 : prec + 64),
        w128_(128),
        big_(256),
        sum_(fast ? 256 : prec),
        res_(prec),
        prod_(prec + 16),
        out_scaled_(prec + 24),
        cls_(nk_),
        flags_(nd_),
        gw_(fast ? 0 : nk_, prec),
        num_(fast ? 0 : nd_, prec) {
    if (fast) active_.reserve(nk_);
  }

  void row(std::int64_t b, std::int64_t h, std::int64_t i) {
    const std::int64_t Dv = P_.Dv;
    double* o = out_.o.data() + ((b * P_.Sq + i) * P_.Hq + h) * Dv;
    double& lse = out_.lse[static_cast<std::size_t>((b * P_.Hq + h) * P_.Sq + i)];
    const KeyRange range = visible_range(P_.p, i);
    const std::int64_t first = range.first, n = range.count;
    // The sink s_h (-inf = none) joins the normaliser only (docs/semantics.md, sinks).
    const double sink = P_.p.sinks.empty() ? -kInf : static_cast<double>(P_.p.sinks[static_cast<std::size_t>(h)]);
    auto no_weight = [&] {  // no visible key with positive weight: O = +0.0, LSE = ln exp(s_h)
      std::fill(o, o + Dv, 0.0);
      lse = plus_zero(sink);
    };
    if (n == 0) return no_weight();

    const std::int64_t g = h / P_.group;
    const std::int64_t qvec = (b * P_.Sq + i) * P_.Hq + h;
    const double dq = descale_at(P_.p.descale_q, P_.Hkv, b, g);
    const double dk = descale_at(P_.p.descale_k, P_.Hkv, b, g);
    std::int64_t n_nan = 0, n_pos = 0, n_fin = 0, j_pos = -1, t_max = -1;
    for (std::int64_t t = 0; t < n; ++t) {
      const auto tu = static_cast<std::size_t>(t);
      const std::int64_t kvec = (b * P_.Sk + first + t) * P_.Hkv + g;
      ScoreClass c = score(qvec, kvec, dq, dk, scores_[tu]);
      if (P_.softcap > 0) c = cap(c, scores_[tu], capped_[tu]);
      cls_[tu] = c;
      if (c == ScoreClass::NaN) ++n_nan;
      if (c == ScoreClass::PosInf) ++n_pos, j_pos = first + t;
      if (c == ScoreClass::Finite) {
        ++n_fin;
        if (t_max < 0 || mpfr_cmp(S(tu), S(static_cast<std::size_t>(t_max))) > 0) t_max = t;
      }
    }
    if (n_nan > 0) {  // a NaN score poisons the row
      std::fill(o, o + Dv, kNaN);
      lse = kNaN;
      return;
    }
    if (n_pos >= 2) {  // the softmax limit depends on how the scores grow: undefined
      std::fill(o, o + Dv, kNaN);
      lse = kInf;
      return;
    }
    if (n_pos == 1) {  // the limit is one-hot on that key (a finite sink weighs nothing beside it)
      const double dv = descale_at(P_.p.descale_v, P_.Hkv, b, g);
      const std::uint16_t* v = P_.v16 + ((b * P_.Sk + j_pos) * P_.Hkv + g) * Dv;
      // bf16 value × fp32 factor: at most 32 significant bits, inside double's range: exact.
      for (std::int64_t d = 0; d < Dv; ++d) o[d] = plus_zero(bf16_to_double(v[d]) * dv);
      lse = kInf;
      return;
    }
    if (n_fin == 0) return no_weight();  // every visible score is -inf: weight 0 each

    // M: the largest finite score, or the sink if that is larger.
    mpfr_srcptr m = S(static_cast<std::size_t>(t_max));
    mpfr_srcptr sink_x = nullptr;
    if (sink != -kInf) {
      mpfr_set_d(sink_, sink, MPFR_RNDN);  // exact: an fp32 value
      sink_x = sink_;
      if (mpfr_cmp(sink_, m) > 0) m = sink_;
    }
    RowKeys keys{b, g, first, n};
    if (fast_) {
      softmax_fast(o, lse, keys, m, sink_x);
    } else {
      softmax_generic(o, lse, keys, m, sink_x);
    }
  }

 private:
  struct RowKeys {  // the visible keys first .. first + n - 1 of KV head g in batch b
    std::int64_t b, g, first, n;
  };

  // The score the softmax uses for the t-th visible key: capped if the problem has a cap.
  mpfr_ptr S(std::size_t t) { return P_.softcap > 0 ? capped_[t] : scores_[t]; }

  // S = σ·dq·dk · q·k exactly into s (its precision is set here); returns its class.
  ScoreClass score(std::int64_t qvec, std::int64_t kvec, double dq, double dk, mpfr_ptr s) {
    const std::int64_t D = P_.D;
    const double* q = P_.qd.data() + qvec * D;
    const double* k = P_.kd.data() + kvec * D;
    const VecStats& a = P_.qs[static_cast<std::size_t>(qvec)];
    const VecStats& c = P_.ks[static_cast<std::size_t>(kvec)];
    if (a.nonfinite || c.nonfinite) {
      // Some product is inf or NaN, so the exact dot is; finite products (< 2^256) cannot
      // overflow a double sum, so IEEE double arithmetic yields exactly that special value.
      // The descale factors are finite and > 0 (validate()): they change no class.
      double s_dot = 0;
      for (std::int64_t d = 0; d < D; ++d) s_dot += q[d] * k[d];
      return classify(P_.scale * s_dot);
    }
    // Two more fp32 factors need 48 more bits to stay exact.
    const mpfr_prec_t extra = P_.descaled ? 48 : 0;
    if (a.all_zero() || c.all_zero()) {
      ensure_prec(s, kPrecDotDouble + extra);
      mpfr_set_zero(s, +1);
    } else {
      const int range = (a.emax + c.emax) - (a.emin + c.emin);
      // Every product is an integer multiple of 2^(emin_q + emin_k) below 2^(16 + range) of
      // that unit, so every partial sum of D of them is below 2^(16 + range + log2 D) units.
      const int bits = 16 + range + P_.log2_d;
      if (fast_ && bits <= 53) {
        // Exact in any order, so four independent chains are allowed.
        double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        std::int64_t d = 0;
        for (; d + 4 <= D; d += 4) {
          s0 += q[d] * k[d];
          s1 += q[d + 1] * k[d + 1];
          s2 += q[d + 2] * k[d + 2];
          s3 += q[d + 3] * k[d + 3];
        }
        for (; d < D; ++d) s0 += q[d] * k[d];
        ensure_prec(s, kPrecDotDouble + extra);
        mpfr_set_d(s, (s0 + s1) + (s2 + s3), MPFR_RNDN);
      } else if (fast_ && bits <= 126) {
        const std::uint16_t* qb = P_.q16 + qvec * D;
        const std::uint16_t* kb = P_.k16 + kvec * D;
        const int base = a.emin + c.emin;
        i128 acc = 0;
        for (std::int64_t d = 0; d < D; ++d) {
          if (bf16_zero(qb[d]) || bf16_zero(kb[d])) continue;
          const i128 t = static_cast<i128>(bf16_sig(qb[d]) * bf16_sig(kb[d]))
                         << (bf16_exp(qb[d]) + bf16_exp(kb[d]) - base);
          acc += bf16_negative(qb[d]) != bf16_negative(kb[d]) ? -t : t;
        }
        ensure_prec(s, kPrecDotI128 + extra);
        set_from_i128(s, acc, base);
      } else {
        mpfr_set_zero(dot_wide_, +1);
        for (std::int64_t d = 0; d < D; ++d) mpfr_add_d(dot_wide_, dot_wide_, q[d] * k[d], MPFR_RNDN);
        ensure_prec(s, kPrecScoreWide + extra);
        mpfr_set(s, dot_wide_, MPFR_RNDN);
      }
    }
    // Exact: the precision holds the dot's and each factor's significand (24 bits each); the
    // scale and the factors are finite (validate()).
    mpfr_mul_d(s, s, P_.scale, MPFR_RNDN);
    if (P_.descaled) {
      mpfr_mul_d(s, s, dq, MPFR_RNDN);
      mpfr_mul_d(s, s, dk, MPFR_RNDN);
    }
    return ScoreClass::Finite;
  }

  // The soft cap: capped = c·tanh(S/c) at cap_prec bits (three roundings, relative error
  // <= 4·2^-cap_prec since tanh's condition number 2y/sinh(2y) is <= 1). A raw ±inf score caps
  // to ±c exactly (tanh's limit); NaN stays NaN. Returns the class of the capped score.
  ScoreClass cap(ScoreClass raw, mpfr_srcptr s, mpfr_ptr capped) {
    switch (raw) {
      case ScoreClass::NaN:
        return raw;
      case ScoreClass::PosInf:
      case ScoreClass::NegInf:
        mpfr_set_d(capped, raw == ScoreClass::PosInf ? P_.softcap : -P_.softcap, MPFR_RNDN);
        return ScoreClass::Finite;
      case ScoreClass::Finite:
        mpfr_div_d(cap_tmp_, s, P_.softcap, MPFR_RNDN);
        mpfr_tanh(cap_tmp_, cap_tmp_, MPFR_RNDN);
        mpfr_mul_d(capped, cap_tmp_, P_.softcap, MPFR_RNDN);
        return ScoreClass::Finite;
    }
    return raw;
  }

  // Gathers, per column, the special values of V over keys with positive weight (finite score).
  void gather_special(const RowKeys& r) {
    std::fill(flags_.begin(), flags_.end(), 0);
    for (std::int64_t t = 0; t < r.n; ++t) {
      if (cls_[static_cast<std::size_t>(t)] != ScoreClass::Finite) continue;
      const std::int64_t vvec = (r.b * P_.Sk + r.first + t) * P_.Hkv + r.g;
      if (!P_.v_special[static_cast<std::size_t>(vvec)]) continue;
      const std::uint16_t* v = P_.v16 + vvec * P_.Dv;
      for (std::size_t d = 0; d < nd_; ++d) {
        if (!bf16_finite(v[d])) flags_[d] |= special_flag(v[d]);
      }
    }
  }

  // O[d] = dv · quotient, the product exact at p + 24 bits, then rounded once to double.
  double output_value(mpfr_srcptr quotient, double dv) {
    if (dv == 1.0) return plus_zero(mpfr_get_d(quotient, MPFR_RNDN));
    mpfr_mul_d(out_scaled_, quotient, dv, MPFR_RNDN);
    return plus_zero(mpfr_get_d(out_scaled_, MPFR_RNDN));
  }

  // exp(x - m) for x <= m as a 128-bit weight: the fixed-point exp, MPFR's for x - m <= -2^20.
  Weight128 fast_weight(mpfr_srcptr x, mpfr_srcptr m) {
    mpfr_sub(x_, x, m, MPFR_RNDN);  // relative error 2^-192
    Weight128 w;
    if (!detail::exp_nonpositive(x_, w)) {  // x <= -2^20: rare, MPFR's exp
      mpfr_exp(w128_, x_, MPFR_RNDN);
      w = weight_of(w128_);
    }
    return w;
  }

  void softmax_fast(double* o, double& lse, const RowKeys& r, mpfr_srcptr m, mpfr_srcptr sink) {
    Acc256 sum_acc;
    active_.clear();
    for (std::int64_t t = 0; t < r.n; ++t) {
      const auto tu = static_cast<std::size_t>(t);
      if (cls_[tu] != ScoreClass::Finite) continue;
      const Weight128 w = fast_weight(S(tu), m);
      if (w.significand == 0) continue;  // below MPFR's range: contributes nothing representable
      detail::add_scaled(sum_acc, w.significand, 1, false, w.exponent - 128 - kSumLsb);
      active_.push_back({w.significand, w.exponent, r.first + t});
    }
    if (sink != nullptr) {  // the sink's weight joins the normaliser only
      const Weight128 w = fast_weight(sink, m);
      if (w.significand != 0) detail::add_scaled(sum_acc, w.significand, 1, false, w.exponent - 128 - kSumLsb);
    }
    gather_special(r);
    detail::acc_to_mpfr(sum_, sum_acc, kSumLsb);
    const double dv = descale_at(P_.p.descale_v, P_.Hkv, r.b, r.g);

    // Column by column over V transposed (contiguous in j), the accumulators in registers.
    const std::size_t vt_base = static_cast<std::size_t>((r.b * P_.Hkv + r.g) * P_.Dv * P_.Sk);
    for (std::size_t d = 0; d < nd_; ++d) {
      if (flags_[d] != 0) {
        o[d] = special_value(flags_[d]);
        continue;
      }
      const std::int16_t* vm = P_.vt_m.data() + vt_base + d * nk_;
      const std::int16_t* ve = P_.vt_e.data() + vt_base + d * nk_;
      // Window: top bounds the exponent of the column's largest term W·|m|·2^(ew+e-128)
      // < 2^(ew + e + 8); the accumulator's LSB sits 220 bits below it.
      long top = LONG_MIN;
      for (const Active& a : active_) {
        const auto j = static_cast<std::size_t>(a.j);
        if (vm[j] != 0) top = std::max(top, a.exponent + ve[j] + 8);
      }
      if (top == LONG_MIN) {
        o[d] = 0.0;
        continue;
      }
      // Two accumulators alternate so that consecutive carry chains do not wait on each other.
      Acc256 acc[2];
      std::size_t t = 0;
      for (const Active& a : active_) {
        const auto j = static_cast<std::size_t>(a.j);
        const int mv = vm[j];
        if (mv == 0) continue;
        // shift = (ew + e - 128) - (top - 220) <= 84, as add_scaled requires.
        const long shift = a.exponent + ve[j] - 128 - (top - 220);
        detail::add_scaled(acc[t++ & 1], a.significand,
                           static_cast<std::uint32_t>(mv < 0 ? -mv : mv), mv < 0, shift);
      }
      acc[0].lo += acc[1].lo;
      acc[0].hi += acc[1].hi + static_cast<u128>(acc[0].lo < acc[1].lo);
      detail::acc_to_mpfr(big_, acc[0], top - 220);
      mpfr_div(res_, big_, sum_, MPFR_RNDN);
      o[d] = output_value(res_, dv);
    }
    lse = lse_of(m);
  }

  void softmax_generic(double* o, double& lse, const RowKeys& r, mpfr_srcptr m, mpfr_srcptr sink) {
    mpfr_set_zero(sum_, +1);
    for (std::size_t d = 0; d < nd_; ++d) mpfr_set_zero(num_[d], +1);
    for (std::int64_t t = 0; t < r.n; ++t) {
      const auto tu = static_cast<std::size_t>(t);
      if (cls_[tu] != ScoreClass::Finite) continue;
      mpfr_sub(x_, S(tu), m, MPFR_RNDN);  // p + 64 bits; |x| < 2^30 unless exp(x) underflows
      mpfr_exp(gw_[tu], x_, MPFR_RNDN);
      mpfr_add(sum_, sum_, gw_[tu], MPFR_RNDN);
      const std::uint16_t* v = P_.v16 + ((r.b * P_.Sk + r.first + t) * P_.Hkv + r.g) * P_.Dv;
      for (std::size_t d = 0; d < nd_; ++d) {
        if (!bf16_finite(v[d]) || bf16_zero(v[d])) continue;
        mpfr_mul_d(prod_, gw_[tu], bf16_to_double(v[d]), MPFR_RNDN);  // exact at p + 16 bits
        mpfr_add(num_[d], num_[d], prod_, MPFR_RNDN);
      }
    }
    if (sink != nullptr) {  // the sink's weight joins the normaliser only
      mpfr_sub(x_, sink, m, MPFR_RNDN);
      mpfr_exp(res_, x_, MPFR_RNDN);
      mpfr_add(sum_, sum_, res_, MPFR_RNDN);
    }
    gather_special(r);
    const double dv = descale_at(P_.p.descale_v, P_.Hkv, r.b, r.g);
    for (std::size_t d = 0; d < nd_; ++d) {
      if (flags_[d] != 0) {
        o[d] = special_value(flags_[d]);
      } else {
        mpfr_div(res_, num_[d], sum_, MPFR_RNDN);
        o[d] = output_value(res_, dv);
      }
    }
    lse = lse_of(m);
  }

  // LSE = M + log(sum). A sum of exactly 1 (one key, or the sink, carries all the weight) gives
  // M itself, rounded once: then LSE is the correctly rounded M, with no second rounding.
  double lse_of(mpfr_srcptr m) {
    if (mpfr_cmp_ui(sum_, 1) == 0) return plus_zero(mpfr_get_d(m, MPFR_RNDN));
    mpfr_log(res_, sum_, MPFR_RNDN);
    mpfr_add(res_, res_, m, MPFR_RNDN);
    return plus_zero(mpfr_get_d(res_, MPFR_RNDN));
  }

  const Prepared& P_;
  AttentionResult& out_;
  bool fast_;
  std::size_t nk_, nd_;
  MpArray scores_, capped_;
  Mp dot_wide_, cap_tmp_, sink_, x_, w128_, big_, sum_, res_, prod_, out_scaled_;
  struct Active {  // a key with positive weight: w = significand · 2^(exponent - 128)
    u128 significand;
    long exponent;
    std::int64_t j;
  };
  std::vector<ScoreClass> cls_;
  std::vector<Active> active_;
  std::vector<std::uint8_t> flags_;
  MpArray gw_, num_;
};

// Checked a * b for non-negative int64 values.
bool mul_overflows(std::int64_t a, std::int64_t b, std::int64_t& out) {
  return __builtin_mul_overflow(a, b, &out);
}

}  // namespace

// ---------------------------------------------------------------------------------------------

std::string_view to_string(Mask mask) {
  switch (mask) {
    case Mask::None:
      return "none";
    case Mask::CausalBottomRight:
      return "causal_bottom_right";
    case Mask::CausalTopLeft:
      return "causal_top_left";
  }
  return "invalid";
}

namespace {

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

std::optional<Mask> parse_mask(std::string_view name) {
  for (Mask m : {Mask::None, Mask::CausalBottomRight, Mask::CausalTopLeft}) {
    if (equal_ignoring_case(to_string(m), name)) return m;
  }
  return std::nullopt;
}

std::int64_t visible_keys(Mask mask, std::int64_t i, std::int64_t seqlen_q,
                          std::int64_t seqlen_k) {
  if (i < 0 || i >= seqlen_q || seqlen_k <= 0) return 0;
  switch (mask) {
    case Mask::None:
      return seqlen_k;
    case Mask::CausalBottomRight:  // j <= i + Sk - Sq
      return std::clamp<std::int64_t>(i + seqlen_k - seqlen_q + 1, 0, seqlen_k);
    case Mask::CausalTopLeft:  // j <= i
      return std::clamp<std::int64_t>(i + 1, 0, seqlen_k);
  }
  return 0;
}

bool key_visible(Mask mask, std::int64_t i, std::int64_t j, std::int64_t seqlen_q,
                 std::int64_t seqlen_k) {
  return j >= 0 && j < visible_keys(mask, i, seqlen_q, seqlen_k);
}

KeyRange visible_range(Mask mask, std::int64_t window_left, std::int64_t window_right, std::int64_t i,
                       std::int64_t seqlen_q, std::int64_t seqlen_k) {
  if (i < 0 || i >= seqlen_q || seqlen_k <= 0) return {};
  // The diagonal: the key a query is aligned with (bottom-right unless causal top-left).
  const std::int64_t diag = mask == Mask::CausalTopLeft ? i : i + seqlen_k - seqlen_q;
  std::int64_t hi = seqlen_k - 1;
  if (mask != Mask::None) hi = std::min(hi, diag);
  if (window_right >= 0) hi = std::min(hi, diag + window_right);
  std::int64_t lo = 0;
  if (window_left >= 0) lo = std::max(lo, diag - window_left);
  if (hi < lo) return {lo < 0 ? 0 : std::min(lo, seqlen_k), 0};
  return {lo, hi - lo + 1};
}

KeyRange visible_range(const AttentionProblem& problem, std::int64_t i) {
  return visible_range(problem.mask, problem.window_left, problem.window_right, i,
                       problem.shape.seqlen_q, problem.shape.seqlen_k);
}

std::string_view to_string(ElementType type) {
  switch (type) {
    case ElementType::BF16:
      return "bf16";
    case ElementType::FP8_E4M3FNUZ:
      return "fp8_e4m3fnuz";
    case ElementType::FP8_E5M2FNUZ:
      return "fp8_e5m2fnuz";
  }
  return "invalid";
}

std::optional<ElementType> parse_element_type(std::string_view name) {
  for (ElementType t : {ElementType::BF16, ElementType::FP8_E4M3FNUZ, ElementType::FP8_E5M2FNUZ}) {
    if (equal_ignoring_case(to_string(t), name)) return t;
  }
  return std::nullopt;
}

double element_value(ElementType type, std::uint16_t bits) {
  switch (type) {
    case ElementType::BF16:
      return bf16_to_double(bits);
    case ElementType::FP8_E4M3FNUZ:
      return numerics::f32_from_fp8(static_cast<std::uint8_t>(bits), numerics::Fp8Kind::Fp8);
    case ElementType::FP8_E5M2FNUZ:
      return numerics::f32_from_fp8(static_cast<std::uint8_t>(bits), numerics::Fp8Kind::Bf8);
  }
  return kNaN;
}

double descale_at(const std::vector<float>& factors, std::int64_t heads_kv, std::int64_t b, std::int64_t g) {
  if (factors.empty()) return 1.0;
  if (factors.size() == 1) return factors[0];
  return factors[static_cast<std::size_t>(b * heads_kv + g)];
}

std::optional<std::string> pattern_error(ElementType dtype, const std::vector<std::uint16_t>& q,
                                         const std::vector<std::uint16_t>& k, const std::vector<std::uint16_t>& v) {
  if (dtype == ElementType::BF16) return std::nullopt;
  for (const auto& [name, t] : {std::pair{"q", &q}, std::pair{"k", &k}, std::pair{"v", &v}}) {
    for (std::size_t x = 0; x < t->size(); ++x) {
      if ((*t)[x] > 0xFF) {
        return std::string(name) + "[" + std::to_string(x) + "] = " + std::to_string((*t)[x]) +
               " is not an 8-bit pattern (dtype " + std::string(to_string(dtype)) + ")";
      }
    }
  }
  return std::nullopt;
}

std::optional<std::string> extended_feature(const AttentionProblem& p) {
  const AttentionShape& s = p.shape;
  if (s.dv() != s.head_dim) return "Dv " + std::to_string(s.dv()) + " != D " + std::to_string(s.head_dim);
  if (p.window_left != -1 || p.window_right != -1) {
    return "window (" + std::to_string(p.window_left) + ", " + std::to_string(p.window_right) + ")";
  }
  if (p.softcap != 0.0f) {
    std::ostringstream m;
    m << "softcap " << p.softcap;
    return m.str();
  }
  if (!p.sinks.empty()) return std::string("sinks");
  if (p.dtype != ElementType::BF16) return "dtype " + std::string(to_string(p.dtype));
  if (!p.descale_q.empty() || !p.descale_k.empty() || !p.descale_v.empty()) return std::string("descale factors");
  return std::nullopt;
}

void require_base_definition(const AttentionProblem& problem, std::string_view who) {
  if (const auto f = extended_feature(problem)) {
    throw std::invalid_argument(std::string(who) + " does not take " + *f +
                                " (only bf16 inputs, Dv = D, no window, soft cap, sinks or descale)");
  }
}

namespace {

// The checks of the optional features (docs/semantics.md §3, §4, §9, §10).
template <class Fail>
void validate_features(const AttentionProblem& p, Fail fail) {
  const AttentionShape& s = p.shape;
  if (p.window_left < -1 || p.window_right < -1) {
    fail("window (" + std::to_string(p.window_left) + ", " + std::to_string(p.window_right) +
         ") has a side < -1; each side is -1 (unbounded) or a key count >= 0");
  }
  if (!(p.softcap >= 0.0f) || std::isinf(p.softcap)) {
    std::ostringstream m;
    m << "softcap = " << p.softcap << "; the soft cap must be 0 (none) or a finite value > 0";
    fail(m.str());
  }
  if (!p.sinks.empty() && p.sinks.size() != static_cast<std::size_t>(s.heads_q)) {
    fail("sinks has " + std::to_string(p.sinks.size()) + " values; it must be empty or hold one per query head (Hq = " +
         std::to_string(s.heads_q) + ")");
  }
  for (std::size_t h = 0; h < p.sinks.size(); ++h) {
    if (std::isnan(p.sinks[h]) || p.sinks[h] == std::numeric_limits<float>::infinity()) {
      fail("sinks[" + std::to_string(h) + "] is " + (std::isnan(p.sinks[h]) ? "NaN" : "+inf") +
           "; a sink logit must be finite or -inf (no sink)");
    }
  }
  const auto dt = static_cast<std::uint8_t>(p.dtype);
  if (dt > static_cast<std::uint8_t>(ElementType::FP8_E5M2FNUZ)) {
    fail("dtype = " + std::to_string(dt) + " is not an ElementType (bf16, fp8_e4m3fnuz, fp8_e5m2fnuz)");
  }
  if (const auto e = pattern_error(p.dtype, p.q, p.k, p.v)) fail(*e);
  const std::size_t per_head = static_cast<std::size_t>(s.batch * s.heads_kv);
  for (const auto& [name, f] : {std::pair{"descale_q", &p.descale_q}, std::pair{"descale_k", &p.descale_k},
                                std::pair{"descale_v", &p.descale_v}}) {
    if (f->empty()) continue;
    if (p.dtype == ElementType::BF16) {
      fail(std::string(name) + " is given for bf16 inputs; descale factors belong to fp8 inputs only");
    }
    if (f->size() != 1 && f->size() != per_head) {
      fail(std::string(name) + " has " + std::to_string(f->size()) +
           " values; it must be empty, 1 (per tensor) or B*Hkv = " + std::to_string(per_head) +
           " (per batch and KV head)");
    }
    for (std::size_t x = 0; x < f->size(); ++x) {
      if (!std::isfinite((*f)[x]) || !((*f)[x] > 0.0f)) {
        std::ostringstream m;
        m << name << "[" << x << "] = " << (*f)[x] << "; a descale factor must be finite and > 0";
        fail(m.str());
      }
    }
  }
}

}  // namespace

void validate(const AttentionProblem& problem) {
  const AttentionShape& s = problem.shape;
  auto fail = [](const std::string& what) {
    throw std::invalid_argument("AttentionProblem: " + what);
  };
  auto at_least = [&](const char* name, std::int64_t v, std::int64_t min) {
    if (v < min) {
      fail("shape." + std::string(name) + " = " + std::to_string(v) + ", must be >= " +
           std::to_string(min));
    }
  };
  at_least("batch", s.batch, 0);
  at_least("seqlen_q", s.seqlen_q, 0);
  at_least("seqlen_k", s.seqlen_k, 0);
  at_least("heads_q", s.heads_q, 0);
  at_least("heads_kv", s.heads_kv, 1);
  at_least("head_dim", s.head_dim, 1);
  if (s.heads_q % s.heads_kv != 0) {
    fail("shape.heads_q = " + std::to_string(s.heads_q) + " is not a multiple of shape.heads_kv = " +
         std::to_string(s.heads_kv) +
         " (GQA/MQA needs heads_q = g * heads_kv; query head h reads KV head h / g)");
  }
  if (!std::isfinite(problem.scale)) {
    // A NaN scale makes every score NaN and every output NaN, so any NaN output would "pass":
    // the definition takes finite scales only (docs/semantics.md §1).
    fail("scale = " + std::to_string(problem.scale) + " is not finite; the scale must be a finite fp32 value");
  }
  const auto m = static_cast<std::uint8_t>(problem.mask);
  if (m > static_cast<std::uint8_t>(Mask::CausalTopLeft)) {
    fail("mask = " + std::to_string(m) + " is not a Mask value (none, causal_bottom_right, causal_top_left)");
  }
  std::int64_t nq = 0, nkv = 0, t = 0;
  if (mul_overflows(s.batch, s.seqlen_q, t) || mul_overflows(t, s.heads_q, t) ||
      mul_overflows(t, s.head_dim, nq) || mul_overflows(s.batch, s.seqlen_k, t) ||
      mul_overflows(t, s.heads_kv, t) || mul_overflows(t, s.head_dim, nkv)) {
    fail("shape element counts overflow int64 (B, Sq, Sk, Hq, Hkv, D too large)");
  }
  at_least("head_dim_v", s.head_dim_v, 0);
  auto size_is = [&](const char* name, std::size_t got, std::int64_t want, const char* formula,
                     std::int64_t seq, std::int64_t heads, std::int64_t dim) {
    if (got != static_cast<std::size_t>(want)) {
      std::ostringstream msg;
      msg << name << " has " << got << " elements; the shape needs " << formula << " = "
          << s.batch << "*" << seq << "*" << heads << "*" << dim << " = " << want;
      fail(msg.str());
    }
  };
  size_is("q", problem.q.size(), nq, "B*Sq*Hq*D", s.seqlen_q, s.heads_q, s.head_dim);
  size_is("k", problem.k.size(), nkv, "B*Sk*Hkv*D", s.seqlen_k, s.heads_kv, s.head_dim);
  std::int64_t nv = 0;
  if (mul_overflows(s.batch, s.seqlen_k, t) || mul_overflows(t, s.heads_kv, t) || mul_overflows(t, s.dv(), nv)) {
    fail("shape element counts overflow int64 (B, Sk, Hkv, Dv too large)");
  }
  size_is("v", problem.v.size(), nv, "B*Sk*Hkv*Dv", s.seqlen_k, s.heads_kv, s.dv());
  validate_features(problem, fail);
}

double exact_o_error_factor(std::int64_t visible_keys_n, unsigned precision_bits) {
  return std::ldexp(2.0 * static_cast<double>(visible_keys_n) + 8.0,
                    -static_cast<int>(precision_bits));
}

double exact_lse_error(std::int64_t visible_keys_n, unsigned precision_bits, double lse) {
  return std::ldexp(2.0 * static_cast<double>(visible_keys_n) + 8.0 + std::fabs(lse),
                    -static_cast<int>(precision_bits));
}

AttentionResult attention_forward_exact(const AttentionProblem& problem, unsigned precision_bits) {
  ExactOptions options;
  options.precision_bits = precision_bits;
  return attention_forward_exact_with(problem, options);
}

AttentionResult attention_forward_exact_with(const AttentionProblem& problem,
                                             const ExactOptions& options) {
  validate(problem);
  const unsigned p = options.precision_bits;
  if (p < 128) {
    throw std::invalid_argument("attention_forward_exact: precision_bits = " + std::to_string(p) +
                                ", must be >= 128 (the oracle's guarantee needs 2^-128)");
  }
  if (static_cast<unsigned long long>(p) > static_cast<unsigned long long>(MPFR_PREC_MAX) - 64) {
    throw std::invalid_argument("attention_forward_exact: precision_bits = " + std::to_string(p) +
                                " exceeds MPFR_PREC_MAX - 64");
  }
  const Prepared pr(problem, p);
  AttentionResult out;
  out.o.assign(static_cast<std::size_t>(problem.shape.o_elements()), 0.0);
  out.lse.assign(static_cast<std::size_t>(problem.shape.lse_elements()), 0.0);
  const std::int64_t rows = pr.B * pr.Hq * pr.Sq;
  if (rows == 0) return out;

  // The fixed-point path needs p = 128 and fewer than 2^32 keys (accumulator headroom).
  const bool fast = options.algorithm == ExactOptions::Algorithm::Auto && p == 128 &&
                    pr.Sk < (std::int64_t{1} << 32);
  unsigned threads = options.threads != 0 ? options.threads : std::thread::hardware_concurrency();
  if (threads == 0) threads = 1;
  if (!mpfr_buildopt_tls_p()) threads = 1;  // MPFR without thread-local state: one thread only
  threads = static_cast<unsigned>(std::min<std::int64_t>(threads, rows));

  // Rows are handed out one at a time: causal rows differ in cost by up to Sk times.
  std::atomic<std::int64_t> next_row{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&] {
    try {
      ExponentRangeGuard range;
      Worker w(pr, out, static_cast<mpfr_prec_t>(p), fast);
      for (std::int64_t r = next_row.fetch_add(1); r < rows; r = next_row.fetch_add(1)) {
        const std::int64_t i = r % pr.Sq;
        const std::int64_t h = (r / pr.Sq) % pr.Hq;
        const std::int64_t b = r / (pr.Sq * pr.Hq);
        w.row(b, h, i);
      }
    } catch (...) {
      const std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
      next_row.store(rows);
    }
  };
  if (threads == 1) {
    work();
  } else {
    std::vector<std::thread> pool;
    pool.reserve(threads);
    for (unsigned t = 0; t < threads; ++t) {
      pool.emplace_back([&] {
        work();
        mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE);
      });
    }
    for (std::thread& t : pool) t.join();
  }
  if (error) std::rethrow_exception(error);
  return out;
}

}  // namespace cdna::reference
