#include "audit/decode/ball_forward.hpp"

#include <algorithm>
#include <functional>
#include <cmath>
#include <limits>
#include <numbers>
#include <cstring>
#include <stdexcept>
#include <string>

#include "reference/decode/rope.hpp"

namespace cdna::device {
namespace {

constexpr double kU = 0x1p-24;       // fp32 unit roundoff (round to nearest)
constexpr double kUlp1 = 0x1p-23;    // a 1-ULP transcendental: relative error < 2^-23
constexpr double kTiny = 0x1p-126;   // denormal flush / underflow: absolute error per operation
constexpr double kCentre = 0x1p-45;  // the centre's own double roundings, generously

// Where a value's magnitude bound reaches 2^127 its fp32 result may overflow (to inf, and inf −
// inf to NaN): nothing is known there, the radius is +inf (docs/decode-bounds.md §2,
// "Overflow"; the envelope's max_finite). Below it, a rounded sum of two such stays finite.
constexpr double kMaxFinite = 0x1p127;
constexpr double kUnknown = std::numeric_limits<double>::infinity();

// The kernel rounds an exact result to fp32: |error| <= u·|x| + 2^-126 (flush included).
Ball rounded(Ball b, double rel = kU) {
  const double m = std::abs(b.c) + b.r;
  b.r += (rel + kCentre) * m + kTiny;
  if (!(m < kMaxFinite)) b.r = kUnknown;
  return b;
}
Ball exact(double x) { return {x, 0}; }
Ball add(Ball a, Ball b) { return rounded({a.c + b.c, a.r + b.r}); }
Ball sub(Ball a, Ball b) { return rounded({a.c - b.c, a.r + b.r}); }
// |a·b − a.c·b.c| for a, b in their balls (0·inf taken as 0: an exact zero times anything).
double prod_radius(Ball a, Ball b) {
  auto m = [](double x, double y) { return x == 0 || y == 0 ? 0 : x * y; };
  return m(std::abs(a.c), b.r) + m(std::abs(b.c), a.r) + m(a.r, b.r);
}
Ball mul(Ball a, Ball b) { return rounded({a.c * b.c, prod_radius(a, b)}); }
Ball fma(Ball a, Ball b, Ball acc) { return rounded({a.c * b.c + acc.c, prod_radius(a, b) + acc.r}); }
// A monotone function on the ball, then its 1-ULP rounding. Unknown (+inf radius) if the ball
// leaves the domain [lo_domain, ∞).
template <class F>
Ball monotone(Ball a, F f, double lo_domain) {
  if (!(a.c - a.r > lo_domain) || !std::isfinite(a.r)) return {f(a.c), std::numeric_limits<double>::infinity()};
  const double x = f(a.c - a.r), y = f(a.c + a.r);
  return rounded({(x + y) / 2, std::abs(y - x) / 2}, kUlp1);
}
// bf16 rounding in `mode` of an fp32 value known to lie in the ball. Rounding is monotone, so
// the result lies between the roundings of the ball's ends (each end first taken to the fp32
// value beyond it): when both give the same bf16 value, that is the kernel's value exactly.
Ball to_bf16(Ball a, numerics::Rounding mode) {
  if (!std::isfinite(a.c) || !std::isfinite(a.r)) return {a.c, std::numeric_limits<double>::infinity()};
  // The fp32 values at or beyond the ball's ends (a cast may round inwards).
  float lo = static_cast<float>(a.c - a.r), hi = static_cast<float>(a.c + a.r);
  if (lo > a.c - a.r) lo = std::nextafter(lo, -INFINITY);
  if (hi < a.c + a.r) hi = std::nextafter(hi, INFINITY);
  const double x = numerics::f32_from_bf16(numerics::bf16_from_f32(lo, mode));
  const double y = numerics::f32_from_bf16(numerics::bf16_from_f32(hi, mode));
  return {(x + y) / 2, (y - x) / 2};
}
// Σ w_i x_i by fp32 FMAs and adds in any order: |error| <= γ_n Σ|w_i|(|x_i| + r_i) (Higham
// Thm 3.1 / §3.1, every intermediate sum rounded once), plus the flush of each operation.
Ball dot(const std::uint16_t* w, const std::vector<Ball>& x) {
  const double n = static_cast<double>(x.size());
  const double gamma = n * kU / (1 - n * kU);
  double c = 0, r = 0, m = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double wi = numerics::f32_from_bf16(w[i]);
    c += wi * x[i].c;
    r += std::abs(wi) * x[i].r;
    m += std::abs(wi) * (std::abs(x[i].c) + x[i].r);
  }
  // Every partial sum is at most (1 + γ_n)·m in magnitude: at 2^127 one may overflow.
  if (!(m * (1 + gamma) < kMaxFinite)) return {c, kUnknown};
  return {c, r + (gamma + n * 0x1p-52 + kCentre) * m + 2 * n * kTiny};
}
// The same sum with ball weights (attention: Σ_j p_j v_j and Σ_j p_j).
Ball dot(const std::vector<Ball>& a, const std::vector<Ball>& b) {
  const double n = static_cast<double>(a.size());
  const double gamma = n * kU / (1 - n * kU);
  double c = 0, r = 0, m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    c += a[i].c * b[i].c;
    r += prod_radius(a[i], b[i]);
    m += (std::abs(a[i].c) + a[i].r) * (std::abs(b[i].c) + b[i].r);
  }
  if (!(m * (1 + gamma) < kMaxFinite)) return {c, kUnknown};
  return {c, r + (gamma + n * 0x1p-52 + kCentre) * m + 2 * n * kTiny};
}

float f32(double x) { return static_cast<float>(x); }

// RMSNorm(x) ⊙ g as the kernel computes it: r = rsq(Σx²·fp32(1/H) + fp32(eps)), (x_i·r)·g_i.
std::vector<Ball> rmsnorm(const std::vector<Ball>& x, const std::vector<std::uint16_t>& g, double eps) {
  const Ball ss = dot(x, x);
  const Ball mean = mul(ss, exact(f32(1.0 / static_cast<double>(x.size()))));
  const Ball r = monotone(add(mean, exact(f32(eps))), [](double y) { return 1 / std::sqrt(y); }, 0);
  std::vector<Ball> h(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) h[i] = mul(mul(x[i], r), exact(numerics::f32_from_bf16(g[i])));
  return h;
}

std::vector<Ball> gemv(const std::vector<std::uint16_t>& w, std::int64_t rows, const std::vector<Ball>& x) {
  std::vector<Ball> y(static_cast<std::size_t>(rows));
  for (std::int64_t r = 0; r < rows; ++r) y[static_cast<std::size_t>(r)] = dot(w.data() + r * x.size(), x);
  return y;
}

// RoPE on one head (D balls) with table row p: r_i = fma(x_i, cos, −(x_j·sin)), r_j = fma(x_j, cos, x_i·sin).
void rope(std::vector<Ball>& x, const reference::RopeTable& t, std::int64_t p) {
  const std::size_t half = x.size() / 2;
  for (std::size_t i = 0; i < half; ++i) {
    const Ball co = exact(t.cos[static_cast<std::size_t>(p) * half + i]);
    const Ball si = exact(t.sin[static_cast<std::size_t>(p) * half + i]);
    const Ball xi = x[i], xj = x[i + half];
    Ball nxs = mul(xj, si);
    nxs.c = -nxs.c;
    x[i] = fma(xi, co, nxs);
    x[i + half] = fma(xj, co, mul(xi, si));
  }
}

// max_j of values in their balls: within [max(c − r), max(c + r)], which holds max(c).
Ball max_of(const std::vector<Ball>& v) {
  double lo = -std::numeric_limits<double>::infinity(), hi = lo, c = lo;
  for (const Ball& b : v) lo = std::max(lo, b.c - b.r), hi = std::max(hi, b.c + b.r), c = std::max(c, b.c);
  return {c, std::max(hi - c, c - lo)};
}

const auto kExp2 = [](double z) { return std::exp2(z); };
const auto kRcp = [](double z) { return 1 / z; };
constexpr double kNoBound = -std::numeric_limits<double>::infinity();

// One query head over slots k[j], v[j] (D balls each): t_j = (q·k_j)·fp32(log2 e/√D),
// p_j = 2^(t_j − max t), o = (Σ p_j v_j)·rcp(Σ p_j).
std::vector<Ball> attend(const std::vector<Ball>& q, const std::vector<std::vector<Ball>>& k,
                         const std::vector<std::vector<Ball>>& v) {
  const std::size_t D = q.size(), n = k.size();
  const Ball scale = exact(f32(std::numbers::log2e / std::sqrt(static_cast<double>(D))));
  std::vector<Ball> t(n);
  for (std::size_t j = 0; j < n; ++j) t[j] = mul(dot(q, k[j]), scale);
  const Ball mx = max_of(t);
  std::vector<Ball> pw(n);
  for (std::size_t j = 0; j < n; ++j) pw[j] = monotone(sub(t[j], mx), kExp2, kNoBound);
  const Ball inv = monotone(dot(pw, std::vector<Ball>(n, exact(1))), kRcp, 0);
  std::vector<Ball> o(D), vd(n);
  for (std::size_t d = 0; d < D; ++d) {
    for (std::size_t j = 0; j < n; ++j) vd[j] = v[j][d];
    o[d] = mul(dot(pw, vd), inv);
  }
  return o;
}

// silu(z)·u = (z·rcp(1 + 2^(z·fp32(−log2 e))))·u.
Ball silu_mul(Ball z, Ball u) {
  const Ball e = monotone(mul(z, exact(-1.44269504088896341f)), kExp2, kNoBound);
  return mul(mul(z, monotone(add(exact(1), e), kRcp, 0)), u);
}

std::vector<Ball> slice(const std::vector<Ball>& v, std::int64_t at, std::int64_t n) {
  return {v.begin() + at, v.begin() + at + n};
}
std::vector<Ball> exact_floats(std::span<const float> v) {
  std::vector<Ball> b(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) b[i] = exact(v[i]);
  return b;
}
std::vector<Ball> embedding(const reference::DecoderModel& m, std::int64_t token) {
  const std::int64_t H = m.config.hidden_size;
  std::vector<Ball> x(static_cast<std::size_t>(H));
  for (std::int64_t i = 0; i < H; ++i) x[i] = exact(numerics::f32_from_bf16(m.weights.embed_tokens[token * H + i]));
  return x;
}
std::vector<Ball> add_all(const std::vector<Ball>& a, const std::vector<Ball>& b) {
  std::vector<Ball> s(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) s[i] = add(a[i], b[i]);
  return s;
}

}  // namespace

namespace {

// Every query head of layer l at position pos (q: Hq·D balls before RoPE) over slots 0..pos of
// its KV head h / (Hq / Hkv), read through `slot` (layer, KV head, 0 = K / 1 = V, slot).
template <class Slot>
std::vector<Ball> attention(const std::vector<Ball>& q, const reference::RopeTable& table, std::int64_t pos,
                            std::int64_t l, std::int64_t Hq, std::int64_t Hkv, std::int64_t D, const Slot& slot) {
  std::vector<Ball> o;
  for (std::int64_t hq = 0; hq < Hq; ++hq) {
    std::vector<Ball> qh = slice(q, hq * D, D);
    rope(qh, table, pos);
    const std::int64_t g = hq / (Hq / Hkv);
    std::vector<std::vector<Ball>> ks, vs;
    for (std::int64_t j = 0; j <= pos; ++j) ks.push_back(slot(l, g, 0, j)), vs.push_back(slot(l, g, 1, j));
    const std::vector<Ball> oh = attend(qh, ks, vs);
    o.insert(o.end(), oh.begin(), oh.end());
  }
  return o;
}

// The slots a position's attention reads: (layer, KV head, 0 = K / 1 = V, slot) -> D balls.
using SlotSource = std::function<std::vector<Ball>(std::int64_t, std::int64_t, int, std::int64_t)>;
// Receives the position's own K (after RoPE) and V balls, bf16-rounded, before the attention reads
// slots 0..pos: (layer, KV head, 0 = K / 1 = V, D balls).
using NewSlot = std::function<void(std::int64_t, std::int64_t, int, const std::vector<Ball>&)>;

// One position's forward in the declared arithmetic (§2), from its token to its V logit balls.
std::vector<Ball> position_forward(const reference::DecoderModel& m, numerics::Rounding mode,
                                   const reference::RopeTable& table, std::int64_t token, std::int64_t pos,
                                   const SlotSource& slot, const NewSlot& new_slot) {
  const auto& c = m.config;
  const std::int64_t H = c.hidden_size, D = c.head_dim, Hq = c.num_attention_heads, Hkv = c.num_key_value_heads;
  std::vector<Ball> x = embedding(m, token);
  for (std::int64_t l = 0; l < c.num_hidden_layers; ++l) {
    const auto& y = m.weights.layers[l];
    const std::vector<Ball> h = rmsnorm(x, y.input_layernorm, c.rms_norm_eps);
    const std::vector<Ball> q = gemv(y.q_proj, Hq * D, h), k = gemv(y.k_proj, Hkv * D, h), v = gemv(y.v_proj, Hkv * D, h);
    for (std::int64_t g = 0; g < Hkv; ++g) {
      std::vector<Ball> kh = slice(k, g * D, D), vh = slice(v, g * D, D);
      rope(kh, table, pos);
      for (Ball& b : kh) b = to_bf16(b, mode);
      for (Ball& b : vh) b = to_bf16(b, mode);
      new_slot(l, g, 0, kh);
      new_slot(l, g, 1, vh);
    }
    const std::vector<Ball> o = attention(q, table, pos, l, Hq, Hkv, D, slot);
    x = add_all(x, gemv(y.o_proj, H, o));
    const std::vector<Ball> h2 = rmsnorm(x, y.post_attention_layernorm, c.rms_norm_eps);
    const std::vector<Ball> gt = gemv(y.gate_proj, c.intermediate_size, h2), up = gemv(y.up_proj, c.intermediate_size, h2);
    std::vector<Ball> act(gt.size());
    for (std::size_t i = 0; i < gt.size(); ++i) act[i] = silu_mul(gt[i], up[i]);
    x = add_all(x, gemv(y.down_proj, H, act));
  }
  return gemv(m.weights.lm_head_matrix(c), c.vocab_size, rmsnorm(x, m.weights.norm, c.rms_norm_eps));
}

}  // namespace

namespace {

// Counts the kernel values (fp32 bit patterns) outside their balls, naming the first; values
// whose ball is unbounded are not counted as checked.
void judge(StepCheck& out, const std::string& what, std::span<const std::uint32_t> kernel,
           const std::vector<Ball>& balls) {
  for (std::size_t i = 0; i < balls.size(); ++i) {
    float v;
    std::memcpy(&v, &kernel[i], 4);
    if (std::isinf(balls[i].r)) continue;  // an unbounded ball judges nothing: not counted
    ++out.checked;
    if (balls[i].contains(v) || (std::isnan(balls[i].c) && std::isnan(v))) continue;
    if (out.outside++ == 0) {
      out.first = what + "[" + std::to_string(i) + "] = " + std::to_string(v) + ", ball " +
                  std::to_string(balls[i].c) + " ± " + std::to_string(balls[i].r);
    }
  }
}
std::vector<float> floats(std::span<const std::uint32_t> w) {
  std::vector<float> f(w.size());
  std::memcpy(f.data(), w.data(), w.size() * 4);
  return f;
}

}  // namespace

namespace {

// KV-cache slot j of (layer l, KV head g, K (0) or V (1)) as D exact balls (layout:
// device/decode_launcher.hpp).
std::vector<Ball> kv_slot(std::span<const std::uint32_t> kv, const DecodeParams& p, std::int64_t hkv, std::int64_t d_head,
                          std::int64_t l, std::int64_t g, int which, std::int64_t j) {
  std::vector<Ball> b(static_cast<std::size_t>(d_head));
  const std::int64_t base = ((l * hkv + g) * 2 + which) * p.max_positions * (d_head / 2) + j * (d_head / 2);
  for (std::int64_t d = 0; d < d_head; ++d) {
    const std::uint32_t word = kv[static_cast<std::size_t>(base + d / 2)];
    b[d] = exact(numerics::f32_from_bf16(static_cast<std::uint16_t>(d % 2 ? word >> 16 : word & 0xFFFF)));
  }
  return b;
}

std::vector<std::uint32_t> ball_centre_bits(const std::vector<Ball>& v) {
  std::vector<std::uint32_t> bits(v.size());
  for (std::size_t d = 0; d < v.size(); ++d) {
    const float f = static_cast<float>(v[d].c);
    std::memcpy(&bits[d], &f, 4);
  }
  return bits;
}

}  // namespace

StepCheck check_position_from_kv(const reference::DecoderModel& m, numerics::Rounding mode, const DecodeParams& p,
                                 std::span<const std::uint32_t> kv, std::span<const float> logits, std::int64_t pos,
                                 std::int64_t token, std::vector<Ball>* logit_balls) {
  const auto& c = m.config;
  const std::int64_t D = c.head_dim, Hkv = c.num_key_value_heads;
  StepCheck out;
  std::vector<Ball> lg = position_forward(
      m, mode, reference::rope_table(c, pos + 1), token, pos,
      [&](std::int64_t l, std::int64_t g, int which, std::int64_t j) { return kv_slot(kv, p, Hkv, D, l, g, which, j); },
      [&](std::int64_t l, std::int64_t g, int which, const std::vector<Ball>& b) {
        judge(out,
              "layer " + std::to_string(l) + " " + (which ? "V" : "K") + " cache slot " + std::to_string(pos) +
                  " head " + std::to_string(g),
              ball_centre_bits(kv_slot(kv, p, Hkv, D, l, g, which, pos)), b);
      });
  std::vector<std::uint32_t> lbits(logits.size());
  std::memcpy(lbits.data(), logits.data(), logits.size() * 4);
  judge(out, "logits", lbits, lg);
  double top = 0;
  for (const Ball& b : lg) top = std::max(top, std::abs(b.c)), out.widest = std::max(out.widest, b.r);
  out.widest = top > 0 ? out.widest / top : out.widest;
  if (logit_balls) *logit_balls = std::move(lg);
  return out;
}

StepCheck check_last_position(const reference::DecoderModel& m, numerics::Rounding mode, const DecodeParams& p,
                              std::span<const std::uint32_t> set, std::span<const std::uint32_t> kv,
                              std::span<const float> logits, std::int64_t pos, std::int64_t token) {
  const auto& c = m.config;
  const std::int64_t H = c.hidden_size, I = c.intermediate_size, D = c.head_dim;
  const std::int64_t Hq = c.num_attention_heads, Hkv = c.num_key_value_heads;
  const reference::RopeTable table = reference::rope_table(c, pos + 1);
  auto region = [&](std::int64_t l, std::int64_t off, std::int64_t n) {
    return set.subspan(static_cast<std::size_t>(l * p.xlayer_words + off), static_cast<std::size_t>(n));
  };
  auto slot = [&](std::int64_t l, std::int64_t g, int which, std::int64_t j) {
    return kv_slot(kv, p, Hkv, D, l, g, which, j);
  };
  StepCheck out;
  std::vector<Ball> x = embedding(m, token);
  for (std::int64_t l = 0; l < c.num_hidden_layers; ++l) {
    const auto& y = m.weights.layers[l];
    const std::string at = "layer " + std::to_string(l) + " ";
    const std::vector<Ball> h = rmsnorm(x, y.input_layernorm, c.rms_norm_eps);
    std::vector<Ball> qkv = gemv(y.q_proj, Hq * D, h);
    for (const auto* wk : {&y.k_proj, &y.v_proj}) {
      const std::vector<Ball> part = gemv(*wk, Hkv * D, h);
      qkv.insert(qkv.end(), part.begin(), part.end());
    }
    const auto qkv_k = region(l, p.x_qkv, (Hq + 2 * Hkv) * D);
    judge(out, at + "q|k|v", qkv_k, qkv);
    const std::vector<Ball> raw = exact_floats(floats(qkv_k));  // the kernel's own values onwards
    for (std::int64_t g = 0; g < Hkv; ++g) {
      std::vector<Ball> kh = slice(raw, Hq * D + g * D, D), vh = slice(raw, (Hq + Hkv) * D + g * D, D);
      rope(kh, table, pos);
      for (Ball& b : kh) b = to_bf16(b, mode);
      for (Ball& b : vh) b = to_bf16(b, mode);
      for (int which = 0; which < 2; ++which) {
        judge(out, at + (which ? "V" : "K") + " cache slot " + std::to_string(pos) + " head " + std::to_string(g),
              ball_centre_bits(slot(l, g, which, pos)), which ? vh : kh);
      }
    }
    const std::vector<Ball> o = attention(raw, table, pos, l, Hq, Hkv, D, slot);
    const auto attn_k = region(l, p.x_attn, Hq * D);
    judge(out, at + "attention", attn_k, o);
    const auto xmid_k = region(l, p.x_xmid, H);
    judge(out, at + "x after attention", xmid_k, add_all(x, gemv(y.o_proj, H, exact_floats(floats(attn_k)))));
    const std::vector<Ball> xmid = exact_floats(floats(xmid_k));
    const std::vector<Ball> h2 = rmsnorm(xmid, y.post_attention_layernorm, c.rms_norm_eps);
    const std::vector<Ball> gt = gemv(y.gate_proj, I, h2), up = gemv(y.up_proj, I, h2);
    std::vector<Ball> act(gt.size());
    for (std::size_t i = 0; i < gt.size(); ++i) act[i] = silu_mul(gt[i], up[i]);
    const auto act_k = region(l, p.x_act, I);
    judge(out, at + "SiLU·up", act_k, act);
    const auto xout_k = region(l, p.x_xout, H);
    judge(out, at + "x after MLP", xout_k, add_all(xmid, gemv(y.down_proj, H, exact_floats(floats(act_k)))));
    x = exact_floats(floats(xout_k));
  }
  const std::vector<Ball> lg = gemv(m.weights.lm_head_matrix(c), c.vocab_size, rmsnorm(x, m.weights.norm, c.rms_norm_eps));
  std::vector<std::uint32_t> lbits(logits.size());
  std::memcpy(lbits.data(), logits.data(), logits.size() * 4);
  judge(out, "logits", lbits, lg);
  double top = 0;
  for (const Ball& b : lg) top = std::max(top, std::abs(b.c)), out.widest = std::max(out.widest, b.r);
  out.widest /= top;
  return out;
}

}  // namespace cdna::device
