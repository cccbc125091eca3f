#include "reference/compare.hpp"

#include "reference/floor.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace cdna::reference {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double bf16_value(std::uint16_t bits) { return static_cast<double>(numerics::f32_from_bf16(bits)); }

// Unit roundoff of one fp32 -> bf16 rounding (relative, normal range): half an ULP for the
// nearest modes, a whole ULP for truncation. bf16 has 8 significant bits.
double bf16_unit_roundoff(numerics::Rounding mode) {
  return mode == numerics::Rounding::RTZ ? 0x1p-7 : 0x1p-8;
}

// Error of one MFMA chain of `blocks` blocks of the CDNA3 block model whose terms (products and
// the incoming C) sum in magnitude to `abs_sum` (docs/pass-rule.md §2).
double mfma_chain_error(double blocks, double abs_sum) { return blocks * 0x1p-20 * abs_sum; }

struct RowContext {
  std::int64_t b, h, i;
};

std::string where(const RowContext& r, std::int64_t d) {
  std::ostringstream s;
  s << "b=" << r.b << " h=" << r.h << " i=" << r.i;
  if (d >= 0) s << " d=" << d;
  return s.str();
}

}  // namespace

AttentionBounds attention_bounds(const AttentionProblem& problem, const AttentionResult& exact,
                                 numerics::Rounding mode) {
  const AttentionShape& s = problem.shape;
  if (std::ssize(exact.o) != s.o_elements() || std::ssize(exact.lse) != s.lse_elements()) {
    throw std::invalid_argument("attention_bounds: exact result sizes do not match the shape");
  }
  const std::int64_t D = s.head_dim, Sq = s.seqlen_q, Sk = s.seqlen_k;
  const std::int64_t group = s.heads_q / s.heads_kv;
  const double u_p = bf16_unit_roundoff(mode);
  const double u_o = u_p;
  const double scale = static_cast<double>(problem.scale);
  // The kernel multiplies by fl32(scale * log2 e): scores in base 2.
  const double scale_log2 = scale * std::numbers::log2e;
  const double blocks_qk = std::ceil(static_cast<double>(D) / 8.0);
  const double kv_blocks16 = std::ceil(static_cast<double>(Sk) / 16.0);
  // P·V: two 8-blocks per 16-key MFMA; one rescale multiply per 16-key block (§3).
  const double eta_pv = mfma_chain_error(2.0 * kv_blocks16, 1.0) + kv_blocks16 * 0x1p-24;
  // Running sum l: 4 lane adds, 2 cross-lane adds, 1 rescale multiply, 1 add per block (§4).
  const double eta_l = (8.0 * kv_blocks16 + 2.0) * 0x1p-24;
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

  AttentionBounds bounds;
  bounds.o.assign(exact.o.size(), kNaN);
  bounds.o_oracle.assign(exact.o.size(), kNaN);
  bounds.lse.assign(exact.lse.size(), kNaN);
  bounds.lse_oracle.assign(exact.lse.size(), kNaN);

  std::vector<double> score(static_cast<std::size_t>(Sk)), abs_dot(static_cast<std::size_t>(Sk));
  std::vector<double> weight(static_cast<std::size_t>(Sk));
  for (std::int64_t b = 0; b < s.batch; ++b) {
    for (std::int64_t h = 0; h < s.heads_q; ++h) {
      const std::int64_t hk = h / group;
      for (std::int64_t i = 0; i < Sq; ++i) {
        const std::int64_t o_row = ((b * Sq + i) * s.heads_q + h) * D;
        const std::size_t lse_idx = static_cast<std::size_t>((b * s.heads_q + h) * Sq + i);
        const double lse_exact = exact.lse[lse_idx];

        // A row with no visible key must be O = +0.0, LSE = -inf exactly.
        if (lse_exact == -kInf) {
          for (std::int64_t d = 0; d < D; ++d) {
            bounds.o[static_cast<std::size_t>(o_row + d)] = 0;
            bounds.o_oracle[static_cast<std::size_t>(o_row + d)] = 0;
          }
          bounds.lse[lse_idx] = 0;
          bounds.lse_oracle[lse_idx] = 0;
          continue;
        }

        // Scores in double: bf16 products are exact in double, the sum's error is negligible
        // next to the fp32 terms bounded below.
        double s2_max = -kInf;
        const std::uint16_t* qrow = &problem.q[static_cast<std::size_t>(((b * Sq + i) * s.heads_q + h) * D)];
        double v_abs_max = 0;
        for (std::int64_t j = 0; j < Sk; ++j) {
          weight[static_cast<std::size_t>(j)] = 0;
          if (!key_visible(problem.mask, i, j, Sq, Sk)) continue;
          const std::uint16_t* krow = &problem.k[static_cast<std::size_t>(((b * Sk + j) * s.heads_kv + hk) * D)];
          double dot = 0, adot = 0;
          for (std::int64_t d = 0; d < D; ++d) {
            const double p = bf16_value(qrow[d]) * bf16_value(krow[d]);
            dot += p;
            adot += std::abs(p);
          }
          score[static_cast<std::size_t>(j)] = scale * dot;
          abs_dot[static_cast<std::size_t>(j)] = adot;
          s2_max = std::max(s2_max, scale_log2 * dot);
          weight[static_cast<std::size_t>(j)] = std::exp(scale * dot - lse_exact);  // exact P_ij
        }
        // Largest relative error of one kernel probability p_j = 2^(s2_j - m) (§1).
        double eps_p = 0;
        for (std::int64_t j = 0; j < Sk; ++j) {
          if (!key_visible(problem.mask, i, j, Sq, Sk)) continue;
          const double s2 = score[static_cast<std::size_t>(j)] * std::numbers::log2e;
          const double arg_err = std::abs(scale_log2) * mfma_chain_error(blocks_qk, abs_dot[static_cast<std::size_t>(j)]) +
                                 0x1p-23 * std::abs(s2) + 0x1p-24 * std::abs(s2 - s2_max);
          const double arg = arg_err * 1.0001;
          eps_p = std::max(eps_p, std::expm1(arg * std::numbers::ln2) + 0x1p-23);
        }
        const double denom_rel = eps_p + eta_l + 0x1p-23 + 0x1p-24;  // p, l, v_rcp, final multiply
        // The oracle's own distance from the exact value (attention.hpp), then its rounding to double.
        const std::int64_t n_visible = visible_keys(problem.mask, i, Sq, Sk);
        const double oracle_o_factor = exact_o_error_factor(n_visible, 128);

        for (std::int64_t d = 0; d < D; ++d) {
          double e_abs = 0;  // E_d = sum_j P_j |V_jd|
          for (std::int64_t j = 0; j < Sk; ++j) {
            const double w = weight[static_cast<std::size_t>(j)];
            if (w == 0) continue;
            const double vv = std::abs(bf16_value(problem.v[static_cast<std::size_t>(((b * Sk + j) * s.heads_kv + hk) * D + d)]));
            e_abs += w * vv;
            v_abs_max = std::max(v_abs_max, vv);
          }
          const double o_exact = exact.o[static_cast<std::size_t>(o_row + d)];
          if (std::isnan(o_exact)) continue;  // no bound: the definition gives NaN
          // Probabilities below fp32's normal range are flushed by v_exp_f32 (§1).
          const double underflow = static_cast<double>(Sk) * 0x1p-126 * v_abs_max;
          const double err_fp32 = (u_p + eps_p * (1 + u_p) + eta_pv) * e_abs + denom_rel * std::abs(o_exact) + underflow;
          const double oracle = oracle_o_factor * e_abs + 0x1p-53 * std::abs(o_exact);
          bounds.o[static_cast<std::size_t>(o_row + d)] =
              (1 + u_o) * err_fp32 + u_o * std::abs(o_exact) + 0x1p-133 + oracle;
          bounds.o_oracle[static_cast<std::size_t>(o_row + d)] = oracle;
        }

        // LSE = ln2 * (m + log2 l) in fp32 (§5).
        const double lse2 = lse_exact * std::numbers::log2e;
        const double log2_l = lse2 - s2_max;
        const double lse_oracle = exact_lse_error(n_visible, 128, lse_exact) + 0x1p-53 * std::abs(lse_exact);
        bounds.lse[lse_idx] =
            std::numbers::ln2 * ((eps_p + eta_l) / std::numbers::ln2 * 1.0001 + 0x1p-23 * std::abs(log2_l) +
                                 0x1p-24 * std::abs(lse2) + 0x1p-149) +
            0x1p-23 * std::abs(lse_exact) + exact_lse_error(n_visible, 128, lse_exact) +
            0x1p-53 * std::abs(lse_exact);
        bounds.lse_oracle[lse_idx] = lse_oracle;
      }
    }
  }
  return bounds;
}

AttentionComparison compare_attention(const AttentionProblem& problem, const AttentionResult& exact,
                                      std::span<const std::uint16_t> o, std::span<const float> lse,
                                      numerics::Rounding mode) {
  const AttentionShape& s = problem.shape;
  if (std::ssize(o) != s.o_elements() || std::ssize(lse) != s.lse_elements() ||
      std::ssize(exact.o) != s.o_elements() || std::ssize(exact.lse) != s.lse_elements()) {
    throw std::invalid_argument("compare_attention: output sizes do not match the shape");
  }
  const std::int64_t D = s.head_dim, Sq = s.seqlen_q;
  const AttentionBounds bounds = attention_bounds(problem, exact, mode);

  AttentionComparison c;
  auto fail = [&](const std::string& what) {
    if (c.first_failure.empty()) c.first_failure = what;
  };

  for (std::int64_t b = 0; b < s.batch; ++b) {
    for (std::int64_t h = 0; h < s.heads_q; ++h) {
      for (std::int64_t i = 0; i < Sq; ++i) {
        const RowContext rc{b, h, i};
        const std::int64_t o_row = ((b * Sq + i) * s.heads_q + h) * D;
        const std::int64_t lse_idx = (b * s.heads_q + h) * Sq + i;
        const double lse_exact = exact.lse[static_cast<std::size_t>(lse_idx)];
        const double lse_got = static_cast<double>(lse[static_cast<std::size_t>(lse_idx)]);

        // Exact semantic fact: a row with no visible key is O = +0.0, LSE = -inf.
        if (lse_exact == -kInf) {
          bool ok = lse_got == -kInf;
          for (std::int64_t d = 0; d < D; ++d) ok = ok && o[static_cast<std::size_t>(o_row + d)] == 0;
          if (!ok) {
            ++c.semantic_violations;
            fail("fully masked row " + where(rc, -1) + " is not O = +0.0, LSE = -inf");
          }
          continue;
        }

        for (std::int64_t d = 0; d < D; ++d) {
          const double o_exact = exact.o[static_cast<std::size_t>(o_row + d)];
          const double o_got = bf16_value(o[static_cast<std::size_t>(o_row + d)]);
          if (std::isnan(o_exact)) {
            if (!std::isnan(o_got)) {
              ++c.semantic_violations;
              fail("O " + where(rc, d) + " is " + std::to_string(o_got) + " where the definition gives NaN");
            }
            continue;
          }
          if (!std::isfinite(o_got)) {
            ++c.semantic_violations;
            fail("O " + where(rc, d) + " is " + std::to_string(o_got) + " where the exact value is finite");
            continue;
          }
          const double bound = bounds.o[static_cast<std::size_t>(o_row + d)];
          const double err = std::abs(o_got - o_exact);
          c.max_abs_err_o = std::max(c.max_abs_err_o, err);
          c.max_ulp_err_o = std::max(c.max_ulp_err_o, err / numerics::bf16_ulp(o_exact));
          c.max_err_to_bound_o = std::max(c.max_err_to_bound_o, err / bound);
          if (!(err <= bound)) {
            ++c.o_violations;
            std::ostringstream m;
            m << "O " << where(rc, d) << " = " << o_got << ", exact " << o_exact << ", |err| " << err
              << " > bound " << bound;
            fail(m.str());
          }
        }

        // LSE = ln2 * (m + log2 l) in fp32 (§5).
        if (!std::isfinite(lse_got)) {
          ++c.semantic_violations;
          fail("LSE " + where(rc, -1) + " is " + std::to_string(lse_got) + " where the exact value is finite");
          continue;
        }
        const double lse_bound = bounds.lse[static_cast<std::size_t>(lse_idx)];
        const double lse_err = std::abs(lse_got - lse_exact);
        c.max_abs_err_lse = std::max(c.max_abs_err_lse, lse_err);
        c.max_err_to_bound_lse = std::max(c.max_err_to_bound_lse, lse_err / lse_bound);
        if (!(lse_err <= lse_bound)) {
          ++c.lse_violations;
          std::ostringstream m;
          m << "LSE " << where(rc, -1) << " = " << lse_got << ", exact " << lse_exact << ", |err| " << lse_err
            << " > bound " << lse_bound;
          fail(m.str());
        }
      }
    }
  }
  std::vector<double> got(o.size());
  for (std::size_t n = 0; n < o.size(); ++n) got[n] = bf16_value(o[n]);
  for (double& x : got) if (std::isnan(x)) x = kInf;
  c.rel_rms_err_o = relative_rms_error(got, exact.o);
  c.floor_rel_rms_o = relative_rms_error(attention_floor_output(problem, mode), exact.o);
  if (!(c.rel_rms_err_o <= 2 * c.floor_rel_rms_o)) {
    c.floor_violation = true;
    std::ostringstream m;
    m << "relative RMS error of O " << c.rel_rms_err_o << " > 2 x floor " << c.floor_rel_rms_o;
    fail(m.str());
  }
  return c;
}

}  // namespace cdna::reference
