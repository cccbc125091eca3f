#include "audit/decode/trace_layers.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <limits>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "reference/decode/affine.hpp"
#include "reference/decode/ball.hpp"
#include "reference/decode/layer.hpp"
#include "reference/decode/rope.hpp"

namespace cdna::audit {
namespace {

namespace af = reference::affine;
namespace bl = reference::ball;
constexpr double kU = 0x1p-24;  // fp32 unit roundoff
constexpr double kInf = std::numeric_limits<double>::infinity();

// Relative error bound of transformers' fp32 inverse frequency ω̂_i, times p·ω_i the angle's
// error, the fp32 product p·ω̂ included (docs/decode-bounds.md §15.2).
std::vector<double> frequency_errors(const reference::DecoderConfig& c) {
  const std::int64_t half = c.head_dim / 2;
  const double base = (std::log(c.rope_theta) + 12) * kU;
  std::vector<double> rel(static_cast<std::size_t>(half), base);
  if (c.rope_scaling) {
    const auto& s = *c.rope_scaling;
    const double k = s.factor, lf = s.low_freq_factor, hf = s.high_freq_factor;
    const auto L = static_cast<double>(s.original_max_position_embeddings);
    const double medium = base * (1 + k * hf / (hf - lf)) + (k * (3.1 * hf / (hf - lf) + 2.1) + 4.1) * kU;
    for (std::int64_t i = 0; i < half; ++i) {
      const double w = 2 * M_PI * std::pow(c.rope_theta, 2.0 * static_cast<double>(i) / static_cast<double>(c.head_dim));
      const double near = 0x1p-16 * w;
      auto& r = rel[static_cast<std::size_t>(i)];
      if (w < L / hf - near) continue;                     // high frequency: kept
      r = w > L / lf + near ? base + 2 * kU : medium;      // low: ω/k; else the blend (or near a threshold)
    }
  }
  for (double& r : rel) r += kU * (1 + r) + 0x1p-50;
  return rel;
}

bl::Ball exact_row(const std::vector<float>& t, std::int64_t row, std::int64_t n) {
  bl::Ball b{Eigen::VectorXd(n), Eigen::VectorXd::Zero(n)};
  for (std::int64_t i = 0; i < n; ++i) b.mid(i) = t[static_cast<std::size_t>(row * n + i)];
  return b;
}

bl::Ball as_ball(const bl::Ball& x) { return x; }
bl::Ball as_ball(const af::Affine& x) { return af::to_ball(x); }

}  // namespace

reference::DecodeArithmetic trace_arithmetic(TraceProfile profile, const reference::DecoderConfig& config) {
  using reference::StorageFormat;
  switch (profile) {
    case TraceProfile::monokernel_rtne: return reference::monokernel_arithmetic(numerics::Rounding::RTNE);
    case TraceProfile::monokernel_rtna: return reference::monokernel_arithmetic(numerics::Rounding::RTNA);
    case TraceProfile::monokernel_rtz: return reference::monokernel_arithmetic(numerics::Rounding::RTZ);
    case TraceProfile::fp32:
    case TraceProfile::bf16: break;
  }
  reference::DecodeArithmetic a;
  const reference::Storage dtype = profile == TraceProfile::fp32 ? reference::Storage{StorageFormat::fp32}
                                                                 : reference::Storage{StorageFormat::bf16, numerics::Rounding::RTNE};
  a.kv_cache = dtype;
  a.activations = dtype;
  a.accumulation_u = kU;
  a.underflow_abs = 0x1p-126;
  a.transcendental_rel = 0x1p-22;  // CUDA expf, exp2f, rsqrtf, cosf, sinf: 2 ULP
  a.constant_rel = 0x1p-23;        // fp32 constants (2^-24), and the rounding of each x² in RMSNorm
  a.rope_abs = 0x1p-22 + 0x1p-24;  // cosf/sinf 2 ULP of a value ≤ 1, and the table's own rounding
  a.rope_omega_rel = frequency_errors(config);
  a.max_finite = 0x1p127;
  if (profile == TraceProfile::bf16) {
    a.elementwise_u = 0x1p-8 + 0x1p-24 * (1 + 0x1p-8);  // an fp32 rounding, then one to bf16
    a.rope_abs += 0x1p-8 * (1 + 0x1p-21);               // cos and sin cast to bf16
    a.attention_weights_u = 0x1p-8;                     // P (or e_j) in bf16 for P·V
    a.fused_exp_argument = true;
    a.attention_key_block = 16;                         // cuDNN's decode kernels: KV tiles of 32 or more
  }
  return a;
}

DeclaredProfile declared_profile(TraceProfile profile, const reference::DecoderConfig& config) {
  return DeclaredProfile{to_string(profile), profile, trace_arithmetic(profile, config)};
}

std::string LayerFinding::line() const {
  std::ostringstream o;
  o << std::setprecision(9) << "layer " << layer << ", position " << position << ": " << tensor << "[" << element
    << "] = " << value;
  if (tensor[0] == 'k' || tensor[0] == 'v')
    o << " (computed from hidden." << layer << ", the residual stream entering layer " << layer << ")";
  if (radius == 0)
    o << " is not " << mid << " (exact)";
  else
    o << " is outside " << mid << " ± " << std::setprecision(3) << radius << " (off by " << std::abs(value - mid) / radius
      << " radii)";
  return o.str();
}

TraceLayerCheck check_trace_layers(const reference::DecoderModel& model, const golden::DecodeTrace& trace,
                                   TraceProfile profile, reference::EnvelopeMethod method, unsigned threads,
                                   std::ostream* progress) {
  return check_trace_layers(model, trace, trace_arithmetic(profile, model.config), method, threads, progress);
}

TraceLayerCheck check_trace_layers(const reference::DecoderModel& model, const golden::DecodeTrace& trace,
                                   const reference::DecodeArithmetic& a, reference::EnvelopeMethod method,
                                   unsigned threads, std::ostream* progress) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto& c = model.config;
  const std::int64_t n = c.num_hidden_layers, H = c.hidden_size, D = c.head_dim, Hkv = c.num_key_value_heads;
  TraceLayerCheck out;
  out.worst_ratio.assign(static_cast<std::size_t>(n), 0.0);
  out.widest.assign(static_cast<std::size_t>(n), 0.0);
  for (std::int64_t l = 0; l <= n && out.missing.empty(); ++l) {
    if (!trace.hidden.contains(l)) out.missing = "hidden." + std::to_string(l);
    else if (l < n && !trace.k.contains(l)) out.missing = "k." + std::to_string(l);
    else if (l < n && !trace.v.contains(l)) out.missing = "v." + std::to_string(l);
  }
  if (!out.missing.empty()) return out;
  out.complete = true;
  const std::int64_t T1 = static_cast<std::int64_t>(trace.tokens.size()) - 1;
  for (std::int64_t l = 0; l <= n; ++l)
    if (std::ssize(trace.hidden.at(l)) != T1 * H || (l < n && (std::ssize(trace.k.at(l)) != T1 * Hkv * D || std::ssize(trace.v.at(l)) != T1 * Hkv * D)))
      throw std::invalid_argument("check_trace_layers: layer " + std::to_string(l) + " tensors disagree with the model's shapes");
  const std::vector<double> omega = reference::rope_inverse_frequencies(c);
  out.positions = T1;
  // The run's own cache as exact balls (radius 0), per layer [T − 1, Hkv, D].
  std::vector<std::vector<double>> kmid(static_cast<std::size_t>(n)), vmid(static_cast<std::size_t>(n));
  for (std::int64_t l = 0; l < n; ++l) {
    kmid[static_cast<std::size_t>(l)].assign(trace.k.at(l).begin(), trace.k.at(l).end());
    vmid[static_cast<std::size_t>(l)].assign(trace.v.at(l).begin(), trace.v.at(l).end());
  }
  const std::vector<double> zeros(static_cast<std::size_t>(T1 * Hkv * D), 0.0);

  // Judges the run's values at (layer, position) against their balls.
  auto judge = [&](TraceLayerCheck& o, std::int64_t layer, std::int64_t pos, const std::string& tensor, const float* got, const bl::Ball& b) {
    double sq = 0, r_max = 0;
    for (Eigen::Index i = 0; i < b.size(); ++i) {
      sq += static_cast<double>(got[i]) * got[i];
      if (std::isfinite(b.rad(i))) r_max = std::max(r_max, b.rad(i));
    }
    const double rms = b.size() > 0 ? std::sqrt(sq / static_cast<double>(b.size())) : 0.0;
    auto& wide = o.widest[static_cast<std::size_t>(layer)];
    if (r_max > 0) wide = std::max(wide, rms > 0 ? r_max / rms : kInf);
    for (Eigen::Index i = 0; i < b.size(); ++i) {
      const double v = got[i], m = b.mid(i), r = b.rad(i);
      if (std::isinf(r)) {
        if (o.unbounded++ == 0) o.first_unbounded_position = pos;
        continue;
      }
      ++o.checked;
      const double d = std::abs(v - m);
      const bool in = std::isnan(m) ? std::isnan(v) : d <= r;
      const double ratio = d == 0 ? 0 : (r > 0 && !std::isnan(v) ? d / r : kInf);
      auto& w = o.worst_ratio[static_cast<std::size_t>(layer)];
      w = std::max(w, ratio);
      if (in) continue;
      ++o.outside;
      if (!o.first) {
        o.first = LayerFinding{layer, pos, tensor, static_cast<std::int64_t>(i), v, m, r};
        o.first_bad_position = pos;
      }
    }
  };
  auto unbounded_if = [](bool overflow, bl::Ball b) {
    if (overflow) b.rad.setConstant(kInf);
    return b;
  };

  // One position's checks into `o` (its counts, its first finding, its worst ratios).
  auto check_position = [&](std::int64_t p, TraceLayerCheck& o) {
    o.worst_ratio.assign(static_cast<std::size_t>(n), 0.0);
    o.widest.assign(static_cast<std::size_t>(n), 0.0);
    // hidden.0: the embedding row of the fed token, exactly.
    const std::int64_t token = trace.tokens[static_cast<std::size_t>(p)];
    bl::Ball emb{Eigen::VectorXd(H), Eigen::VectorXd::Zero(H)};
    for (std::int64_t i = 0; i < H; ++i) emb.mid(i) = bl::bf16_to_double(model.weights.embed_tokens[static_cast<std::size_t>(token * H + i)]);
    judge(o, 0, p, "hidden.0", trace.hidden.at(0).data() + p * H, emb);
    for (std::int64_t l = 0; l < n; ++l) {
      bool overflow = false;
      Eigen::Index symbols = 0;
      const double* km = kmid[static_cast<std::size_t>(l)].data();
      const double* vm = vmid[static_cast<std::size_t>(l)].data();
      // The layer's own K/V are judged; the attention then reads the run's own cache rows.
      const reference::KvSlot slot = [&](const bl::Ball& k, const bl::Ball& v, bool of) {
        judge(o, l, p, "k." + std::to_string(l), trace.k.at(l).data() + p * Hkv * D, unbounded_if(of, k));
        judge(o, l, p, "v." + std::to_string(l), trace.v.at(l).data() + p * Hkv * D, unbounded_if(of, v));
        return reference::KvRows{km, zeros.data(), vm, zeros.data()};
      };
      // The layer in either value type; with V = affine forms the ball of its output is tighter,
      // at a cost of one symbol per rounding (H·I·symbols per GEMV: minutes at H 2048).
      auto layer = [&]<class V>(V x) {
        V next = reference::layer_forward(model, l, p, omega, a, x, slot, overflow, symbols);
        if (l + 1 < n) {
          judge(o, l, p, "hidden." + std::to_string(l + 1), trace.hidden.at(l + 1).data() + p * H, unbounded_if(overflow, as_ball(next)));
          return;
        }
        using reference::ball::rms_norm, reference::affine::rms_norm, reference::ball::store, reference::affine::store,
            reference::ball::check_range, reference::affine::check_range;
        V fin = rms_norm(next, model.weights.norm, c.rms_norm_eps, a, overflow);
        store(fin, a.activations, a);
        check_range(fin, a, overflow);
        judge(o, l, p, "hidden." + std::to_string(n), trace.hidden.at(n).data() + p * H, unbounded_if(overflow, as_ball(fin)));
      };
      const bl::Ball x = exact_row(trace.hidden.at(l), p, H);
      if (method == reference::EnvelopeMethod::ball) layer(x);
      else layer(af::from_ball(x));
    }
  };

  // Positions are independent given the run's own values: split over worker threads, each
  // position's result merged in position order (the first finding is the lowest position's).
  std::vector<TraceLayerCheck> parts(static_cast<std::size_t>(T1));
  std::atomic<std::int64_t> next{0}, done{0};
  std::mutex progress_mutex;
  std::exception_ptr error;
  auto worker = [&] {
    for (std::int64_t p; (p = next++) < T1;) {
      try {
        check_position(p, parts[static_cast<std::size_t>(p)]);
      } catch (...) {
        const std::lock_guard lock(progress_mutex);
        if (!error) error = std::current_exception();
        next = T1;
        return;
      }
      const std::int64_t d = ++done;
      if (progress != nullptr && (d % 10 == 0 || d == T1)) {
        const std::lock_guard lock(progress_mutex);
        *progress << ("trace: layers checked at " + std::to_string(d) + " of " + std::to_string(T1) + " positions\n")
                  << std::flush;
      }
    }
  };
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const auto workers = static_cast<unsigned>(std::min<std::int64_t>(threads != 0 ? threads : hw, std::max<std::int64_t>(T1, 1)));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < workers; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
  if (error) std::rethrow_exception(error);
  for (std::int64_t p = 0; p < T1; ++p) {
    const TraceLayerCheck& o = parts[static_cast<std::size_t>(p)];
    out.checked += o.checked;
    out.outside += o.outside;
    if (o.unbounded > 0 && out.unbounded == 0) out.first_unbounded_position = p;
    out.unbounded += o.unbounded;
    if (o.first && !out.first) {
      out.first = o.first;
      out.first_bad_position = p;
    }
    for (std::size_t l = 0; l < out.worst_ratio.size(); ++l) {
      out.worst_ratio[l] = std::max(out.worst_ratio[l], o.worst_ratio[l]);
      out.widest[l] = std::max(out.widest[l], o.widest[l]);
    }
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace cdna::audit
