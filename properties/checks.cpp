#include "properties/checks.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <map>
#include <numeric>
#include <random>

#include "device/attention_launcher.hpp"
#include "properties/layout_run.hpp"
#include "reference/attention/compare.hpp"
#include "reference/attention/inputs.hpp"

namespace cdna::properties {
namespace {

std::size_t n(std::int64_t x) { return static_cast<std::size_t>(x); }

LayoutRun run(const CheckContext& ctx, const PropertyCase& c) {
  if (ctx.adapter) return run_through_adapter(*ctx.executor, ctx.adapter(c.mode), c);
  return run_in_layout(*ctx.executor, ctx.code_object(c.mode), c);
}

// Whether the kernel run for `c` gives an LSE (a kernel without one is judged on O alone).
bool lse_given(const CheckContext& ctx, const PropertyCase& c) {
  return !ctx.adapter || ctx.adapter(c.mode).features().writes_lse;
}

// Rows 0..len-1 of entry b: O [len, Hq, D] and LSE [Hq, len] of a [B, Sq, ...] output.
device::AttentionOutput sequence_rows(const device::AttentionOutput& out, const reference::AttentionShape& s,
                                      std::int64_t b, std::int64_t len) {
  device::AttentionOutput r;
  const auto first = out.o.begin() + b * s.seqlen_q * s.heads_q * s.head_dim;
  r.o.assign(first, first + len * s.heads_q * s.head_dim);
  for (std::int64_t h = 0; !out.lse.empty() && h < s.heads_q; ++h) {  // empty: a kernel without LSE
    const auto row = out.lse.begin() + (b * s.heads_q + h) * s.seqlen_q;
    r.lse.insert(r.lse.end(), row, row + len);
  }
  return r;
}

std::string verdict(const reference::AttentionProblem& p, const reference::AttentionResult& exact,
                    const device::AttentionOutput& out, numerics::Rounding mode, bool lse, const std::string& what) {
  const auto cmp = reference::compare_attention(p, exact, out.o, out.lse, mode, lse);
  return cmp.pass() ? "" : what + ": " + cmp.first_failure;
}

std::string same_output(const std::string& what, const device::AttentionOutput& a, const device::AttentionOutput& b) {
  std::string d = first_bit_difference(what + " O", a.o, b.o);
  return d.empty() ? first_bit_difference(what + " LSE", a.lse, b.lse) : d;
}

// Restores the executor's RoundRobin schedule however a check ends.
struct ScheduleGuard {
  simulator::SimulatorExecutor& sim;
  ~ScheduleGuard() { sim.options().schedule = simulator::Schedule::RoundRobin; }
};

}  // namespace

std::span<const std::byte> correct_code_object(numerics::Rounding mode) {
  static std::map<numerics::Rounding, std::vector<std::byte>> cache;
  auto it = cache.find(mode);
  if (it == cache.end()) {
    const char* dir = std::getenv("CDNA_PROPERTY_CODE_OBJECT_DIR");
    const auto path = dir && *dir ? device::attention_code_object(mode, dir) : device::attention_code_object(mode);
    it = cache.emplace(mode, device::read_file(path, "code object")).first;
  }
  return it->second;
}

std::string first_bit_difference(const std::string& what, std::span<const std::uint16_t> a,
                                 std::span<const std::uint16_t> b) {
  if (a.size() != b.size()) return what + ": sizes differ";
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) {
      char buf[96];
      std::snprintf(buf, sizeof buf, ": element %zu differs, 0x%04x vs 0x%04x", i, a[i], b[i]);
      return what + buf;
    }
  }
  return "";
}

std::string first_bit_difference(const std::string& what, std::span<const float> a, std::span<const float> b) {
  if (a.size() != b.size()) return what + ": sizes differ";
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto x = std::bit_cast<std::uint32_t>(a[i]), y = std::bit_cast<std::uint32_t>(b[i]);
    if (x != y) {
      char buf[128];
      std::snprintf(buf, sizeof buf, ": element %zu differs, %a (0x%08x) vs %a (0x%08x)", i,
                    static_cast<double>(a[i]), x, static_cast<double>(b[i]), y);
      return what + buf;
    }
  }
  return "";
}

std::string check_oracle_verdict(const CheckContext& ctx, const PropertyCase& c) {
  const LayoutRun r = run(ctx, c);
  if (!r.stray_write.empty()) return r.stray_write;
  if (!c.varlen()) {
    return verdict(c.problem, reference::attention_forward_exact(c.problem), r.out, c.mode, lse_given(ctx, c),
                   "oracle verdict");
  }
  for (std::int64_t b = 0; b < c.problem.shape.batch; ++b) {
    if (c.seqlens_q[n(b)] == 0) continue;  // no row to judge (its buffer rows: stray_write above)
    const auto alone = sequence_alone(c, b);
    const auto got = sequence_rows(r.out, c.problem.shape, b, alone.shape.seqlen_q);
    const std::string f = verdict(alone, reference::attention_forward_exact(alone), got, c.mode, lse_given(ctx, c),
                                  "oracle verdict, sequence " + std::to_string(b));
    if (!f.empty()) return f;
  }
  return "";
}

std::string check_key_permutation(const CheckContext& ctx, const PropertyCase& c) {
  if (c.problem.mask != reference::Mask::None || c.varlen()) return "key_permutation needs mask none, no varlen";
  const auto& s = c.problem.shape;
  std::vector<std::int64_t> perm(n(s.seqlen_k));
  std::iota(perm.begin(), perm.end(), 0);
  std::mt19937_64 rng(c.aux_seed);
  std::shuffle(perm.begin(), perm.end(), rng);
  PropertyCase pc = c;
  const std::int64_t row = s.heads_kv * s.head_dim;
  for (std::int64_t b = 0; b < s.batch; ++b) {
    for (std::int64_t j = 0; j < s.seqlen_k; ++j) {
      const std::int64_t to = (b * s.seqlen_k + j) * row, from = (b * s.seqlen_k + perm[n(j)]) * row;
      std::copy_n(c.problem.k.begin() + from, row, pc.problem.k.begin() + to);
      std::copy_n(c.problem.v.begin() + from, row, pc.problem.v.begin() + to);
    }
  }
  // The exact result is invariant (the definition's sums are over a set of keys); the kernel's
  // is not (block maxima, rescales and MFMA sums change order), so each run must lie within its
  // own bound of that one exact value.
  const auto exact = reference::attention_forward_exact(c.problem);
  const bool lse = lse_given(ctx, c);
  std::string f = verdict(c.problem, exact, run(ctx, c).out, c.mode, lse, "original keys");
  if (f.empty()) f = verdict(pc.problem, exact, run(ctx, pc).out, c.mode, lse, "permuted keys");
  return f;
}

std::string check_gqa_replication(const CheckContext& ctx, const PropertyCase& c) {
  const auto& s = c.problem.shape;
  const std::int64_t group = s.heads_q / s.heads_kv;
  PropertyCase rc = c;
  rc.problem.shape.heads_kv = s.heads_q;
  const auto replicate = [&](const std::vector<std::uint16_t>& x) {
    std::vector<std::uint16_t> y;
    y.reserve(n(s.batch * s.seqlen_k * s.heads_q * s.head_dim));
    for (std::int64_t r = 0; r < s.batch * s.seqlen_k; ++r) {
      for (std::int64_t h = 0; h < s.heads_q; ++h) {
        const auto first = x.begin() + (r * s.heads_kv + h / group) * s.head_dim;
        y.insert(y.end(), first, first + s.head_dim);
      }
    }
    return y;
  };
  rc.problem.k = replicate(c.problem.k);
  rc.problem.v = replicate(c.problem.v);
  const LayoutRun a = run(ctx, c), b = run(ctx, rc);
  if (!a.stray_write.empty()) return a.stray_write;
  return same_output("GQA vs K/V replicated to Hkv = Hq:", a.out, b.out);
}

std::string check_batch_independence(const CheckContext& ctx, const PropertyCase& c) {
  const auto& s = c.problem.shape;
  if (s.batch < 2) return "batch_independence needs B >= 2";
  const std::int64_t keep = static_cast<std::int64_t>(c.aux_seed % n(s.batch));
  PropertyCase other = c;
  const auto replace = [&](std::vector<std::uint16_t>& x, std::uint64_t seed) {
    const std::int64_t per = static_cast<std::int64_t>(x.size()) / s.batch;
    const auto fresh = reference::randn_bf16(x.size(), seed, 3.0);
    for (std::int64_t b = 0; b < s.batch; ++b) {
      if (b != keep) std::copy_n(fresh.begin() + b * per, per, x.begin() + b * per);
    }
  };
  replace(other.problem.q, c.aux_seed + 11), replace(other.problem.k, c.aux_seed + 12);
  replace(other.problem.v, c.aux_seed + 13);
  const LayoutRun a = run(ctx, c), b = run(ctx, other);
  const std::int64_t len = c.varlen() ? c.seqlens_q[n(keep)] : s.seqlen_q;
  return same_output("batch entry " + std::to_string(keep) + " with the other entries changed:",
                     sequence_rows(a.out, s, keep, len), sequence_rows(b.out, s, keep, len));
}

std::string check_padding_irrelevant(const CheckContext& ctx, const PropertyCase& c) {
  if (ctx.adapter) return "padding_irrelevant needs strided layouts, which the adapter path does not take";
  PropertyCase zero = c;
  zero.layout.pad_bits = 0;
  const LayoutRun poisoned = run(ctx, c), clean = run(ctx, zero);
  if (!poisoned.stray_write.empty()) return poisoned.stray_write;
  std::string f = same_output("poisoned vs zero padding:", poisoned.out, clean.out);
  if (!f.empty()) return f;
  if (!c.varlen()) {
    const auto contiguous = device::run_attention(*ctx.executor, ctx.code_object(c.mode), c.problem);
    return same_output("strided+poisoned vs contiguous BSHD:", poisoned.out, contiguous);
  }
  for (std::int64_t b = 0; b < c.problem.shape.batch; ++b) {
    const auto alone = sequence_alone(c, b);
    const auto ref = device::run_attention(*ctx.executor, ctx.code_object(c.mode), alone);
    f = same_output("varlen sequence " + std::to_string(b) + " vs run alone:",
                    sequence_rows(poisoned.out, c.problem.shape, b, alone.shape.seqlen_q), ref);
    if (!f.empty()) return f;
  }
  return "";
}

std::string check_invisible_keys(const CheckContext& ctx, const PropertyCase& c) {
  if (c.varlen()) return "invisible_keys needs no varlen";
  constexpr std::uint16_t kKeyPoisons[] = {0x7FC0 /* NaN */, 0xFFFF /* NaN */, 0x7F80 /* +inf */,
                                           0xFF80 /* -inf */, 0x7F00 /* 2^127 */, 0xFF00 /* -2^127 */};
  const auto& s = c.problem.shape;
  const bool causal = c.problem.mask == reference::Mask::CausalBottomRight;
  const std::int64_t cut = causal ? static_cast<std::int64_t>((c.aux_seed >> 3) % n(s.seqlen_k + 1)) : s.seqlen_k;
  const std::uint16_t poison = kKeyPoisons[c.aux_seed % std::size(kKeyPoisons)];
  PropertyCase poisoned = c, clean = c;
  clean.layout.pad_bits = 0;
  const std::int64_t row = s.heads_kv * s.head_dim;
  for (std::int64_t b = 0; b < s.batch; ++b) {
    for (std::int64_t j = cut; j < s.seqlen_k; ++j) {
      const std::int64_t first = (b * s.seqlen_k + j) * row;
      for (auto* x : {&poisoned.problem.k, &poisoned.problem.v}) std::fill_n(x->begin() + first, row, poison);
      for (auto* x : {&clean.problem.k, &clean.problem.v}) std::fill_n(x->begin() + first, row, 0);
    }
  }
  const LayoutRun a = run(ctx, poisoned), z = run(ctx, clean);
  if (!a.stray_write.empty()) return a.stray_write;
  char what[96];
  std::snprintf(what, sizeof what, "keys >= %lld and padding 0x%04x vs zero:", static_cast<long long>(cut), poison);
  for (std::int64_t i = 0; i < s.seqlen_q; ++i) {
    // Row i sees keys j <= i + Sk - Sq (causal) or all (none): does it see one >= cut?
    const std::int64_t last_seen = causal ? std::min(s.seqlen_k - 1, i + s.seqlen_k - s.seqlen_q) : s.seqlen_k - 1;
    if (last_seen >= cut) continue;
    for (std::int64_t b = 0; b < s.batch; ++b) {
      for (std::int64_t h = 0; h < s.heads_q; ++h) {
        const std::size_t o = n(((b * s.seqlen_q + i) * s.heads_q + h) * s.head_dim);
        const std::size_t l = n((b * s.heads_q + h) * s.seqlen_q + i);
        const std::string at = std::string(what) + " row b=" + std::to_string(b) + " h=" + std::to_string(h) +
                               " i=" + std::to_string(i);
        std::string f = first_bit_difference(at + " O", std::span(a.out.o).subspan(o, n(s.head_dim)),
                                             std::span(z.out.o).subspan(o, n(s.head_dim)));
        if (f.empty() && !a.out.lse.empty()) {  // a kernel without LSE: O alone
          f = first_bit_difference(at + " LSE", std::span(a.out.lse).subspan(l, 1), std::span(z.out.lse).subspan(l, 1));
        }
        if (!f.empty()) return f;
      }
    }
  }
  return "";
}

std::string check_determinism(const CheckContext& ctx, const PropertyCase& c) {
  const LayoutRun first = run(ctx, c);
  std::string f = same_output("repeated RoundRobin run:", first.out, run(ctx, c).out);
  auto* sim = dynamic_cast<simulator::SimulatorExecutor*>(ctx.executor);
  if (!sim) {
    for (int repeat = 3; repeat <= 4 && f.empty(); ++repeat)
      f = same_output("run " + std::to_string(repeat) + " on " + ctx.executor->name() + " vs run 1:", first.out,
                      run(ctx, c).out);
    return f;
  }
  ScheduleGuard guard{*sim};
  for (std::uint64_t seed : {c.aux_seed, c.aux_seed + 1}) {
    if (!f.empty()) break;
    sim->options().schedule = simulator::Schedule::Random;
    sim->options().seed = seed;
    f = same_output("Random schedule seed " + std::to_string(seed) + " vs RoundRobin:", first.out,
                    run(ctx, c).out);
  }
  return f;
}

std::string check_nonfinite_inputs(const CheckContext& ctx, const PropertyCase& c) {
  if (c.varlen()) return "nonfinite_inputs needs no varlen";
  const auto& s = c.problem.shape;
  PropertyCase clean = c;
  for (auto* x : {&clean.problem.q, &clean.problem.k, &clean.problem.v}) {
    for (auto& e : *x) e = (e & 0x7F80) == 0x7F80 ? std::uint16_t{0} : e;  // NaN, ±inf -> 0
  }
  const LayoutRun poisoned = run(ctx, c), ref = run(ctx, clean);
  if (!poisoned.stray_write.empty()) return poisoned.stray_write;
  const bool has_lse = lse_given(ctx, c);
  const auto exact = reference::attention_forward_exact(c.problem);
  const auto bits = [](float x) { return std::bit_cast<std::uint32_t>(x); };
  for (std::int64_t b = 0; b < s.batch; ++b) {
    for (std::int64_t h = 0; h < s.heads_q; ++h) {
      for (std::int64_t i = 0; i < s.seqlen_q; ++i) {
        const std::size_t l = n((b * s.heads_q + h) * s.seqlen_q + i);
        const std::string row = "row b=" + std::to_string(b) + " h=" + std::to_string(h) + " i=" + std::to_string(i);
        // A row of infinite LSE (+inf: an +inf score; -inf: no weighed key) has its O and LSE
        // from the definition alone: the clean case says nothing about it.
        const bool inf_row = std::isinf(exact.lse[l]);
        const float lse = has_lse ? poisoned.out.lse[l] : 0.0f;  // a kernel without LSE: O alone
        if (has_lse && (std::isnan(exact.lse[l]) ? !std::isnan(lse)
                        : inf_row                ? static_cast<double>(lse) != exact.lse[l]
                                                 : bits(lse) != bits(ref.out.lse[l]))) {
          return row + ": LSE " + std::to_string(lse) + ", the definition gives " + std::to_string(exact.lse[l]) +
                 " (the clean case's kernel LSE: " + std::to_string(ref.out.lse[l]) + ")";
        }
        for (std::int64_t d = 0; d < s.head_dim; ++d) {
          const std::size_t o = n(((b * s.seqlen_q + i) * s.heads_q + h) * s.head_dim + d);
          const double want = exact.o[o];
          const std::uint16_t got = poisoned.out.o[o];
          const double got_value = numerics::f32_from_bf16(got);
          // With LSE = ±inf a finite exact O is a bf16 value (V of the one +inf key, or 0):
          // exactly those bits, +0.0 for a zero (§5.8).
          const bool ok = std::isnan(want)   ? std::isnan(got_value)
                          : std::isinf(want) ? got_value == want
                          : inf_row          ? got == (want == 0 ? 0 : numerics::bf16_from_f32(static_cast<float>(want), c.mode))
                                             : got == ref.out.o[o];
          if (!ok) {
            char buf[160];
            std::snprintf(buf, sizeof buf, " d=%lld: O %g (0x%04x), exact %g, clean case's kernel O 0x%04x",
                          static_cast<long long>(d), got_value, got, want, ref.out.o[o]);
            return row + buf;
          }
        }
      }
    }
  }
  return verdict(clean.problem, reference::attention_forward_exact(clean.problem), ref.out, c.mode, has_lse,
                 "the clean case");
}

const std::map<std::string, Check>& all_checks() {
  static const std::map<std::string, Check> checks = {
      {"oracle_verdict", check_oracle_verdict},     {"key_permutation", check_key_permutation},
      {"gqa_replication", check_gqa_replication},   {"batch_independence", check_batch_independence},
      {"padding_irrelevant", check_padding_irrelevant}, {"determinism", check_determinism},
      {"nonfinite_inputs", check_nonfinite_inputs}, {"invisible_keys", check_invisible_keys}};
  return checks;
}

}  // namespace cdna::properties
