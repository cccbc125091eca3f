#include "audit/decode/trace_profile.hpp"

#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "audit/decode/trace_layers.hpp"  // declared_profile
#include "reference/decode/ball.hpp"

namespace cdna::audit {

std::optional<TraceProfile> parse_trace_profile(std::string_view name) {
  if (name == "fp32") return TraceProfile::fp32;
  if (name == "bf16") return TraceProfile::bf16;
  if (name == "monokernel-rtne") return TraceProfile::monokernel_rtne;
  if (name == "monokernel-rtna") return TraceProfile::monokernel_rtna;
  if (name == "monokernel-rtz") return TraceProfile::monokernel_rtz;
  return std::nullopt;
}

const char* to_string(TraceProfile p) {
  switch (p) {
    case TraceProfile::fp32: return "fp32";
    case TraceProfile::bf16: return "bf16";
    case TraceProfile::monokernel_rtne: return "monokernel-rtne";
    case TraceProfile::monokernel_rtna: return "monokernel-rtna";
    case TraceProfile::monokernel_rtz: return "monokernel-rtz";
  }
  return "?";
}

TraceProfile monokernel_profile(numerics::Rounding mode) {
  switch (mode) {
    case numerics::Rounding::RTNA: return TraceProfile::monokernel_rtna;
    case numerics::Rounding::RTZ: return TraceProfile::monokernel_rtz;
    case numerics::Rounding::RTNE: break;
  }
  return TraceProfile::monokernel_rtne;
}

double lm_head_radius(const reference::DecodeArithmetic& ar, double m, double a, std::int64_t h) {
  const auto n = static_cast<double>(h);
  const double gacc = reference::ball::gamma(n, ar.accumulation_u), gmid = reference::ball::gamma(n + 2, 0x1p-53);
  const double flush = 2 * n * ar.underflow_abs;  // each product and partial sum below the normal range
  const double A = a * (1 + gmid);         // ≥ the real Σ|W_i||h_i| (a is its double sum)
  const double acc = gacc * A + flush;     // |z − y|: accumulation in any order
  const double mid = gmid * A;             // |m − y|: the products are exact in double, the sum not
  double r = acc + mid;
  // z stored: bf16 (2^-8·|z| under RTNE), or fp32 when the sum was wider than fp32.
  if (reference::ball::store_rounds(ar.activations, ar)) r += reference::storage_unit_roundoff(ar.activations) * (std::abs(m) + r);
  return r * (1 + 0x1p-50);
}

LmHeadCheck check_lm_head(const reference::DecoderModel& model, std::span<const float> hidden,
                          std::span<const float> logits, TraceProfile profile) {
  return check_lm_head(model, hidden, logits, declared_profile(profile, model.config));
}

LmHeadCheck check_lm_head(const reference::DecoderModel& model, std::span<const float> hidden,
                          std::span<const float> logits, const DeclaredProfile& profile) {
  const std::int64_t H = model.config.hidden_size, V = model.config.vocab_size;
  if (std::ssize(hidden) != H || std::ssize(logits) != V) throw std::invalid_argument("check_lm_head: sizes differ from the model");
  const auto& w = model.weights.lm_head_matrix(model.config);
  LmHeadCheck c;
  for (std::int64_t v = 0; v < V; ++v) {
    double m = 0, a = 0;
    const std::uint16_t* row = w.data() + v * H;
    for (std::int64_t i = 0; i < H; ++i) {
      const double x = reference::ball::bf16_to_double(row[i]) * static_cast<double>(hidden[static_cast<std::size_t>(i)]);
      m += x;
      a += std::abs(x);
    }
    const double got = logits[static_cast<std::size_t>(v)];
    ++c.checked;
    if (!std::isfinite(m) || !std::isfinite(a)) {
      // A NaN or infinite hidden value: the LM head of that state is NaN or infinite (IEEE, as
      // the definition extends real arithmetic, docs/decode-semantics.md §1.5); a kernel logit
      // must be that value, not a finite number.
      const bool same = std::isnan(m) ? std::isnan(got) : got == m;
      if (!same) {
        ++c.outside;
        c.worst_ratio = std::numeric_limits<double>::infinity();
        c.worst_logit = v;
        if (c.first.empty()) {
          std::ostringstream o;
          o << "LM head: logit " << v << " = " << got << " where the run's own hidden state (non-finite) gives " << m;
          c.first = o.str();
        }
      }
      continue;
    }
    const double r = lm_head_radius(profile.arithmetic, m, a, H);
    const double d = std::abs(got - m);
    const double ratio = std::isnan(got) ? std::numeric_limits<double>::infinity() : (d == 0 ? 0.0 : d / r);
    if (ratio > c.worst_ratio) {
      c.worst_ratio = ratio;
      c.worst_logit = v;
    }
    if (!(d <= r)) {
      ++c.outside;
      if (c.first.empty()) {
        std::ostringstream o;
        o << std::setprecision(9) << "LM head: logit " << v << " = " << got << " is not the LM head of the run's own hidden state under profile "
          << profile.name << ": " << m << " ± " << r;
        c.first = o.str();
      }
    }
  }
  return c;
}

}  // namespace cdna::audit
