#include "reference/attention/peer_rules.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "reference/attention/floor.hpp"

namespace cdna::reference {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

float widen(std::uint16_t bits) { return numerics::f32_from_bf16(bits); }
// x rounded to bf16 (RTNE, PyTorch's .to(torch.bfloat16)) and widened back.
float bf16_round(float x) { return widen(numerics::bf16_from_f32(x, numerics::Rounding::RTNE)); }

// Index helpers for the BSHD layouts of attention.hpp.
struct Layout {
  const AttentionShape& s;
  std::int64_t group() const { return s.heads_q / s.heads_kv; }
  std::size_t q(std::int64_t b, std::int64_t i, std::int64_t h) const {
    return static_cast<std::size_t>(((b * s.seqlen_q + i) * s.heads_q + h) * s.head_dim);
  }
  std::size_t kv(std::int64_t b, std::int64_t j, std::int64_t hk) const {
    return static_cast<std::size_t>(((b * s.seqlen_k + j) * s.heads_kv + hk) * s.head_dim);
  }
  std::size_t lse(std::int64_t b, std::int64_t h, std::int64_t i) const {
    return static_cast<std::size_t>((b * s.heads_q + h) * s.seqlen_q + i);
  }
};

// The peer suites' references take masks and windows (FlashAttention's attention_ref has
// window_size); the other extended features are not modelled here (audit/mutants/feature_mutants.cpp
// judges those with feature-aware references of its own).
void require_modelled_features(const AttentionProblem& p) {
  if (p.shape.dv() != p.shape.head_dim || p.softcap != 0.0f || !p.sinks.empty() || p.dtype != ElementType::BF16 ||
      !p.descale_q.empty() || !p.descale_k.empty() || !p.descale_v.empty()) {
    throw std::invalid_argument("the peer rules take masks and windows only, not " + extended_feature(p).value_or("this problem"));
  }
}

bool visible(const AttentionProblem& p, std::int64_t i, std::int64_t j) {
  const KeyRange r = visible_range(p, i);
  return j >= r.first && j < r.first + r.count;
}

// Calls f(b, h, hk, i) for every query row.
template <typename F>
void for_each_row(const AttentionShape& s, F&& f) {
  const std::int64_t group = s.heads_q / s.heads_kv;
  for (std::int64_t b = 0; b < s.batch; ++b)
    for (std::int64_t h = 0; h < s.heads_q; ++h)
      for (std::int64_t i = 0; i < s.seqlen_q; ++i) f(b, h, h / group, i);
}

void check_sizes(const PeerReferences& refs, std::span<const std::uint16_t> o) {
  if (std::ssize(o) != refs.shape.o_elements()) {
    throw std::invalid_argument("peer rule: O has " + std::to_string(o.size()) + " elements, the shape " +
                                std::to_string(refs.shape.o_elements()));
  }
}

// max_i |O_i − ref_i| with the reference optionally rounded to bf16 first; NaN if any
// difference is NaN (torch.max propagates NaN).
double max_abs_diff(std::span<const std::uint16_t> o, std::span<const float> ref, bool round_ref) {
  double worst = 0;
  for (std::size_t n = 0; n < o.size(); ++n) {
    const double r = static_cast<double>(round_ref ? bf16_round(ref[n]) : ref[n]);
    const double d = std::abs(static_cast<double>(widen(o[n])) - r);
    if (std::isnan(d)) return kNaN;
    worst = std::max(worst, d);
  }
  return worst;
}

// max_i |a_i − b_i| over two fp32 vectors (b optionally rounded to bf16); NaN propagates.
double max_abs_diff(std::span<const float> a, std::span<const float> b, bool round_b) {
  double worst = 0;
  for (std::size_t n = 0; n < a.size(); ++n) {
    const double d = std::abs(static_cast<double>(a[n]) - static_cast<double>(round_b ? bf16_round(b[n]) : b[n]));
    if (std::isnan(d)) return kNaN;
    worst = std::max(worst, d);
  }
  return worst;
}

PeerVerdict verdict(double err, double tol, const std::string& what) {
  PeerVerdict v;
  v.err = err;
  v.tol = tol;
  v.pass = err <= tol;  // false when either is NaN
  if (!v.pass) {
    std::ostringstream m;
    m << what << " " << err << " > " << tol;
    v.note = m.str();
  }
  return v;
}

// torch.allclose(O, ref, rtol, atol): |O − ref| <= atol + rtol·|ref| everywhere. Reported as
// err = max |O − ref| / (atol + rtol·|ref|) against tol = 1.
PeerVerdict allclose(std::span<const std::uint16_t> o, std::span<const float> ref, double rtol, double atol,
                     const AttentionShape& s) {
  double worst = 0;
  std::size_t worst_at = 0;
  for (std::size_t n = 0; n < o.size(); ++n) {
    const double r = static_cast<double>(ref[n]);
    const double ratio = std::abs(static_cast<double>(widen(o[n])) - r) / (atol + rtol * std::abs(r));
    if (!(ratio <= worst)) {
      worst = ratio;
      worst_at = n;
      if (std::isnan(ratio)) break;
    }
  }
  PeerVerdict v;
  v.err = worst;
  v.tol = 1;
  v.pass = worst <= 1;
  if (!v.pass) {
    const std::size_t d = worst_at % static_cast<std::size_t>(s.head_dim);
    std::ostringstream m;
    m << "|O - ref| > " << atol << " + " << rtol << "|ref| at element " << worst_at << " (d=" << d << "): O "
      << widen(o[worst_at]) << ", ref " << ref[worst_at];
    v.note = m.str();
  }
  return v;
}

}  // namespace

std::vector<float> upcast_reference(const AttentionProblem& problem) {
  validate(problem);
  require_modelled_features(problem);
  const AttentionShape& s = problem.shape;
  const Layout at{s};
  const std::int64_t D = s.head_dim, Sk = s.seqlen_k;
  std::vector<float> out(static_cast<std::size_t>(s.o_elements()), 0.0f);
  std::vector<float> qs(static_cast<std::size_t>(D)), score(static_cast<std::size_t>(Sk)), acc(static_cast<std::size_t>(D));
  for_each_row(s, [&](std::int64_t b, std::int64_t h, std::int64_t hk, std::int64_t i) {
    const std::size_t qo = at.q(b, i, h);
    for (std::int64_t d = 0; d < D; ++d) qs[static_cast<std::size_t>(d)] = widen(problem.q[qo + static_cast<std::size_t>(d)]) * problem.scale;
    float m = -std::numeric_limits<float>::infinity();
    bool any = false;
    for (std::int64_t j = 0; j < Sk; ++j) {
      if (!visible(problem, i, j)) continue;
      const std::size_t ko = at.kv(b, j, hk);
      float dot = 0.0f;
      for (std::int64_t d = 0; d < D; ++d) dot += qs[static_cast<std::size_t>(d)] * widen(problem.k[ko + static_cast<std::size_t>(d)]);
      score[static_cast<std::size_t>(j)] = dot;
      m = any ? std::max(m, dot) : dot;
      any = true;
    }
    if (!any) return;  // O row stays 0
    float sum = 0.0f;
    for (std::int64_t j = 0; j < Sk; ++j) {
      if (!visible(problem, i, j)) continue;
      score[static_cast<std::size_t>(j)] = std::exp(score[static_cast<std::size_t>(j)] - m);
      sum += score[static_cast<std::size_t>(j)];
    }
    std::fill(acc.begin(), acc.end(), 0.0f);
    for (std::int64_t j = 0; j < Sk; ++j) {
      if (!visible(problem, i, j)) continue;
      const float pj = score[static_cast<std::size_t>(j)] / sum;
      const std::size_t vo = at.kv(b, j, hk);
      for (std::int64_t d = 0; d < D; ++d) acc[static_cast<std::size_t>(d)] += pj * widen(problem.v[vo + static_cast<std::size_t>(d)]);
    }
    std::copy(acc.begin(), acc.end(), out.begin() + static_cast<std::ptrdiff_t>(qo));
  });
  return out;
}

std::vector<float> bf16_reference(const AttentionProblem& problem) {
  validate(problem);
  require_modelled_features(problem);
  const AttentionShape& s = problem.shape;
  const Layout at{s};
  const std::int64_t D = s.head_dim, Sk = s.seqlen_k;
  // K · scale, one bf16 op.
  std::vector<float> ks(problem.k.size());
  for (std::size_t n = 0; n < ks.size(); ++n) ks[n] = bf16_round(widen(problem.k[n]) * problem.scale);
  std::vector<float> out(static_cast<std::size_t>(s.o_elements()), 0.0f);
  std::vector<float> score(static_cast<std::size_t>(Sk)), acc(static_cast<std::size_t>(D));
  for_each_row(s, [&](std::int64_t b, std::int64_t h, std::int64_t hk, std::int64_t i) {
    const std::size_t qo = at.q(b, i, h);
    float m = -std::numeric_limits<float>::infinity();
    bool any = false;
    for (std::int64_t j = 0; j < Sk; ++j) {
      if (!visible(problem, i, j)) continue;
      const std::size_t ko = at.kv(b, j, hk);
      float dot = 0.0f;
      for (std::int64_t d = 0; d < D; ++d) dot += widen(problem.q[qo + static_cast<std::size_t>(d)]) * ks[ko + static_cast<std::size_t>(d)];
      dot = bf16_round(dot);  // bf16 matmul output
      score[static_cast<std::size_t>(j)] = dot;
      m = any ? std::max(m, dot) : dot;
      any = true;
    }
    if (!any) return;
    float sum = 0.0f;
    for (std::int64_t j = 0; j < Sk; ++j) {
      if (!visible(problem, i, j)) continue;
      score[static_cast<std::size_t>(j)] = std::exp(score[static_cast<std::size_t>(j)] - m);
      sum += score[static_cast<std::size_t>(j)];
    }
    std::fill(acc.begin(), acc.end(), 0.0f);
    for (std::int64_t j = 0; j < Sk; ++j) {
      if (!visible(problem, i, j)) continue;
      const float pj = bf16_round(score[static_cast<std::size_t>(j)] / sum);  // softmax output in bf16
      const std::size_t vo = at.kv(b, j, hk);
      for (std::int64_t d = 0; d < D; ++d) acc[static_cast<std::size_t>(d)] += pj * widen(problem.v[vo + static_cast<std::size_t>(d)]);
    }
    for (std::int64_t d = 0; d < D; ++d) out[qo + static_cast<std::size_t>(d)] = bf16_round(acc[static_cast<std::size_t>(d)]);
  });
  return out;
}

std::vector<float> blocked_bf16p_reference(const AttentionProblem& problem, int block_keys) {
  validate(problem);
  require_modelled_features(problem);
  if (block_keys < 1) throw std::invalid_argument("blocked_bf16p_reference: block_keys must be >= 1");
  const AttentionShape& s = problem.shape;
  const Layout at{s};
  const std::int64_t D = s.head_dim, Sk = s.seqlen_k;
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  std::vector<float> out(static_cast<std::size_t>(s.o_elements()), 0.0f);
  std::vector<float> score(static_cast<std::size_t>(Sk)), acc(static_cast<std::size_t>(D));
  for_each_row(s, [&](std::int64_t b, std::int64_t h, std::int64_t hk, std::int64_t i) {
    const std::size_t qo = at.q(b, i, h);
    float m = kNegInf, l = 0.0f;
    std::fill(acc.begin(), acc.end(), 0.0f);
    for (std::int64_t j0 = 0; j0 < Sk; j0 += block_keys) {
      const std::int64_t j1 = std::min<std::int64_t>(Sk, j0 + block_keys);
      float block_max = kNegInf;
      for (std::int64_t j = j0; j < j1; ++j) {
        if (!visible(problem, i, j)) continue;
        const std::size_t ko = at.kv(b, j, hk);
        float dot = 0.0f;
        for (std::int64_t d = 0; d < D; ++d) dot += widen(problem.q[qo + static_cast<std::size_t>(d)]) * widen(problem.k[ko + static_cast<std::size_t>(d)]);
        score[static_cast<std::size_t>(j)] = dot * problem.scale;
        block_max = std::max(block_max, score[static_cast<std::size_t>(j)]);
      }
      if (block_max == kNegInf) continue;  // nothing visible in this block
      const float m_new = std::max(m, block_max);
      const float alpha = m == kNegInf ? 0.0f : std::exp(m - m_new);
      l *= alpha;
      for (float& a : acc) a *= alpha;
      for (std::int64_t j = j0; j < j1; ++j) {
        if (!visible(problem, i, j)) continue;
        const float pj = std::exp(score[static_cast<std::size_t>(j)] - m_new);
        l += pj;
        const float pb = bf16_round(pj);
        const std::size_t vo = at.kv(b, j, hk);
        for (std::int64_t d = 0; d < D; ++d) acc[static_cast<std::size_t>(d)] += pb * widen(problem.v[vo + static_cast<std::size_t>(d)]);
      }
      m = m_new;
    }
    if (l == 0.0f) return;
    for (std::int64_t d = 0; d < D; ++d) out[qo + static_cast<std::size_t>(d)] = acc[static_cast<std::size_t>(d)] / l;
  });
  return out;
}

Fp64Reference fp64_reference(const AttentionProblem& problem) {
  validate(problem);
  require_modelled_features(problem);
  const AttentionShape& s = problem.shape;
  const Layout at{s};
  const std::int64_t D = s.head_dim, Sk = s.seqlen_k;
  Fp64Reference r;
  r.o.assign(static_cast<std::size_t>(s.o_elements()), 0.0);
  r.lse.assign(static_cast<std::size_t>(s.lse_elements()), -kInf);
  std::vector<double> score(static_cast<std::size_t>(Sk)), acc(static_cast<std::size_t>(D));
  for_each_row(s, [&](std::int64_t b, std::int64_t h, std::int64_t hk, std::int64_t i) {
    const std::size_t qo = at.q(b, i, h);
    double m = -kInf;
    for (std::int64_t j = 0; j < Sk; ++j) {
      if (!visible(problem, i, j)) continue;
      const std::size_t ko = at.kv(b, j, hk);
      double dot = 0;
      for (std::int64_t d = 0; d < D; ++d) {
        dot += static_cast<double>(widen(problem.q[qo + static_cast<std::size_t>(d)])) *
               static_cast<double>(widen(problem.k[ko + static_cast<std::size_t>(d)]));
      }
      const double sc = static_cast<double>(problem.scale) * dot;
      score[static_cast<std::size_t>(j)] = sc;
      m = std::max(m, sc);
      r.max_abs_score = std::max(r.max_abs_score, std::abs(sc));
    }
    if (m == -kInf) return;
    double l = 0;
    std::fill(acc.begin(), acc.end(), 0.0);
    for (std::int64_t j = 0; j < Sk; ++j) {
      if (!visible(problem, i, j)) continue;
      const double w = std::exp(score[static_cast<std::size_t>(j)] - m);
      l += w;
      const std::size_t vo = at.kv(b, j, hk);
      for (std::int64_t d = 0; d < D; ++d) acc[static_cast<std::size_t>(d)] += w * static_cast<double>(widen(problem.v[vo + static_cast<std::size_t>(d)]));
    }
    for (std::int64_t d = 0; d < D; ++d) r.o[qo + static_cast<std::size_t>(d)] = acc[static_cast<std::size_t>(d)] / l;
    r.lse[at.lse(b, h, i)] = m + std::log(l);
  });
  return r;
}

PeerReferences peer_references(const AttentionProblem& problem, numerics::Rounding mode) {
  PeerReferences refs;
  refs.shape = problem.shape;
  refs.upcast = upcast_reference(problem);
  refs.lowp = bf16_reference(problem);
  refs.blocked = blocked_bf16p_reference(problem);
  refs.fp64 = fp64_reference(problem);
  refs.floor_o = attention_floor_output(problem, mode);
  const AttentionShape& s = problem.shape;
  refs.row_masked.assign(static_cast<std::size_t>(s.batch * s.seqlen_q * s.heads_q), false);
  for_each_row(s, [&](std::int64_t b, std::int64_t h, std::int64_t, std::int64_t i) {
    refs.row_masked[static_cast<std::size_t>((b * s.seqlen_q + i) * s.heads_q + h)] =
        visible_range(problem, i).count == 0;
  });
  return refs;
}

PeerVerdict aiter_rule(const PeerReferences& refs, std::span<const std::uint16_t> o) {
  check_sizes(refs, o);
  const double lowp_err = max_abs_diff(refs.lowp, refs.upcast, true);
  const double err = max_abs_diff(o, refs.upcast, true);
  return verdict(err, std::max(2 * lowp_err, 0.01), "max|O - ref| > max(2 max|O_bf16 - ref|, 0.01):");
}

PeerVerdict aiter_pa_rule(const PeerReferences& refs, std::span<const std::uint16_t> o) {
  check_sizes(refs, o);
  std::vector<float> ref(refs.upcast.size());
  for (std::size_t n = 0; n < ref.size(); ++n) ref[n] = bf16_round(refs.upcast[n]);
  return allclose(o, ref, 0.01, 0.01, refs.shape);
}

PeerVerdict flash_attention2_rule(const PeerReferences& refs, std::span<const std::uint16_t> o) {
  check_sizes(refs, o);
  const double lowp_err = max_abs_diff(refs.lowp, refs.upcast, true);
  return verdict(max_abs_diff(o, refs.upcast, true), 2 * lowp_err, "max|O - ref| > 2 max|O_bf16 - ref|:");
}

PeerVerdict flash_attention3_rule(const PeerReferences& refs, std::span<const std::uint16_t> o) {
  check_sizes(refs, o);
  const double lowp_err = max_abs_diff(refs.lowp, refs.upcast, true);
  // (ref + 0.3 - 0.3) in bf16: each op computed in fp32 and its result rounded to bf16.
  double shift_err = 0;
  for (float r : refs.upcast) {
    const float rb = bf16_round(r);
    const float back = bf16_round(bf16_round(rb + 0.3f) - 0.3f);
    const double d = std::abs(static_cast<double>(back) - static_cast<double>(rb));
    if (std::isnan(d)) {
      shift_err = kNaN;
      break;
    }
    shift_err = std::max(shift_err, d);
  }
  return verdict(max_abs_diff(o, refs.upcast, true), 2 * lowp_err + 2 * shift_err,
                 "max|O - ref| > 2 max|O_bf16 - ref| + 2 max|ref + 0.3 - 0.3 - ref|:");
}

PeerVerdict pytorch_sdpa_rule(const PeerReferences& refs, std::span<const std::uint16_t> o) {
  check_sizes(refs, o);
  const double lowp_err = max_abs_diff(refs.lowp, refs.upcast, false);
  return verdict(max_abs_diff(o, refs.upcast, true), std::max(1e-5, 4 * lowp_err),
                 "max|O - ref| > max(1e-5, 4 max|O_lowp - ref|):");
}

PeerVerdict cudnn_rule(const PeerReferences& refs, std::span<const std::uint16_t> o) {
  check_sizes(refs, o);
  return allclose(o, refs.blocked, 2e-2, 2e-2, refs.shape);
}

PeerVerdict moonmath_rule(const PeerReferences& refs, std::span<const std::uint16_t> o) {
  check_sizes(refs, o);
  return allclose(o, refs.upcast, 0.05, 0.05, refs.shape);
}

PeerVerdict aotriton_rule(const PeerReferences& refs, std::span<const std::uint16_t> o, std::span<const float> lse) {
  check_sizes(refs, o);
  const AttentionShape& s = refs.shape;
  if (std::ssize(lse) != s.lse_elements()) throw std::invalid_argument("peer rule: LSE size does not match the shape");
  std::vector<double> got(o.size());
  for (std::size_t n = 0; n < o.size(); ++n) got[n] = static_cast<double>(widen(o[n]));
  const double err = relative_rms_error(got, refs.fp64.o);
  const double floor = relative_rms_error(refs.floor_o, refs.fp64.o);
  PeerVerdict v = verdict(err, 2 * floor, "rel-RMS(O - ref64) > 2 x floor:");
  if (!v.pass) return v;
  const double lse_tol = 0x1p-16 * refs.fp64.max_abs_score;
  const std::int64_t D = s.head_dim;
  for (std::int64_t b = 0; b < s.batch; ++b)
    for (std::int64_t i = 0; i < s.seqlen_q; ++i)
      for (std::int64_t h = 0; h < s.heads_q; ++h) {
        const std::size_t row = static_cast<std::size_t>((b * s.seqlen_q + i) * s.heads_q + h);
        if (refs.row_masked[row]) {
          for (std::int64_t d = 0; d < D; ++d) {
            if (got[row * static_cast<std::size_t>(D) + static_cast<std::size_t>(d)] != 0.0) {
              std::ostringstream m;
              m << "masked row b=" << b << " h=" << h << " i=" << i << " has O[" << d << "] = "
                << got[row * static_cast<std::size_t>(D) + static_cast<std::size_t>(d)] << ", not 0";
              return {false, v.err, v.tol, m.str()};
            }
          }
          continue;
        }
        const std::size_t li = static_cast<std::size_t>((b * s.heads_q + h) * s.seqlen_q + i);
        const double e = std::abs(static_cast<double>(lse[li]) - refs.fp64.lse[li]);
        if (!(e <= lse_tol)) {
          std::ostringstream m;
          m << "LSE b=" << b << " h=" << h << " i=" << i << " = " << lse[li] << ", ref " << refs.fp64.lse[li]
            << ": |err| " << e << " > 2^-16 max|S| = " << lse_tol;
          return {false, v.err, v.tol, m.str()};
        }
      }
  return v;
}

std::string_view to_string(PeerRule rule) {
  switch (rule) {
    case PeerRule::Aiter: return "AITER";
    case PeerRule::FlashAttention2: return "FA2";
    case PeerRule::FlashAttention3: return "FA3";
    case PeerRule::PytorchSdpa: return "SDPA";
    case PeerRule::Cudnn: return "cuDNN";
    case PeerRule::MoonMath: return "MoonMath";
    case PeerRule::AOTriton: return "AOTriton";
  }
  return "?";
}

PeerVerdict judge(PeerRule rule, const PeerReferences& refs, std::span<const std::uint16_t> o,
                  std::span<const float> lse) {
  switch (rule) {
    case PeerRule::Aiter: return aiter_rule(refs, o);
    case PeerRule::FlashAttention2: return flash_attention2_rule(refs, o);
    case PeerRule::FlashAttention3: return flash_attention3_rule(refs, o);
    case PeerRule::PytorchSdpa: return pytorch_sdpa_rule(refs, o);
    case PeerRule::Cudnn: return cudnn_rule(refs, o);
    case PeerRule::MoonMath: return moonmath_rule(refs, o);
    case PeerRule::AOTriton: return aotriton_rule(refs, o, lse);
  }
  throw std::invalid_argument("judge: unknown peer rule");
}

}  // namespace cdna::reference
