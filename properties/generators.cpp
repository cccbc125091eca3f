#include "properties/generators.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "properties/values.hpp"

namespace cdna::properties {
namespace {

using reference::Mask;

constexpr std::uint16_t kPoisons[] = {0x0000, 0x7FC0 /* NaN */, 0x7F80 /* +inf */, 0xFF80 /* -inf */,
                                      0xFFFF /* NaN, sign set */, 0x7F00 /* 2^127 */, 0xFF00 /* -2^127 */};

CaseLayout draw_layout() {
  CaseLayout l;
  l.kind = *rc::gen::element(LayoutKind::Bshd, LayoutKind::Bhsd);
  l.row_pad = *rc::gen::element<std::int64_t>(0, 4, 12, 64);
  l.seq_slack = *rc::gen::element<std::int64_t>(0, 1, 5);
  l.pad_bits = *rc::gen::elementOf(std::vector<std::uint16_t>(std::begin(kPoisons), std::end(kPoisons)));
  return l;
}

// The mask: none and causal bottom-right at 4 in 9 each, top-left at 1 in 9 (our kernel rejects
// it, the property discards it). For an adapter's kernel a mask it does not take is not drawn,
// except top-left (rejected and counted unless taken).
Mask draw_mask(const adapters::KernelFeatures* kernel) {
  const auto takes = [&](Mask m) {
    return !kernel || std::find(kernel->masks.begin(), kernel->masks.end(), m) != kernel->masks.end();
  };
  if (takes(Mask::None) && takes(Mask::CausalBottomRight))
    return *rc::gen::weightedElement<Mask>({{4, Mask::None}, {4, Mask::CausalBottomRight}, {1, Mask::CausalTopLeft}});
  if (takes(Mask::None)) return *rc::gen::weightedElement<Mask>({{8, Mask::None}, {1, Mask::CausalTopLeft}});
  return *rc::gen::weightedElement<Mask>({{8, Mask::CausalBottomRight}, {1, Mask::CausalTopLeft}});
}

// Hq / Hkv in [min_group, 4]; for an adapter's kernel without GQA, 1 (9 in 10) or 2 (rejected).
std::int64_t draw_group(const CaseSpec& spec) {
  if (spec.kernel && !spec.kernel->gqa && spec.min_group <= 1)
    return *rc::gen::weightedElement<std::int64_t>({{9, 1}, {1, 2}});
  return *rc::gen::inRange<std::int64_t>(spec.min_group, 5);
}

}  // namespace

rc::Gen<PropertyCase> gen_case(const CaseSpec& spec) {
  return rc::gen::exec([spec] {
    PropertyCase c;
    auto& s = c.problem.shape;
    const std::int64_t hkv = *rc::gen::inRange<std::int64_t>(1, 3);
    const std::int64_t group = draw_group(spec);
    s.batch = *rc::gen::inRange<std::int64_t>(spec.min_batch, spec.max_batch + 1);
    s.seqlen_q = *rc::gen::inRange<std::int64_t>(0, spec.max_seqlen_q + 1);
    s.seqlen_k = *rc::gen::inRange<std::int64_t>(spec.min_seqlen_k, spec.max_seqlen_k + 1);
    s.heads_kv = hkv;
    s.heads_q = hkv * group;
    s.head_dim = spec.kernel ? *rc::gen::elementOf(spec.kernel->head_dims) : *rc::gen::element<std::int64_t>(64, 128);
    c.problem.mask = spec.masks ? draw_mask(spec.kernel) : Mask::None;
    c.mode = spec.mode     ? *spec.mode
             : spec.kernel ? *rc::gen::elementOf(spec.kernel->modes)
                           : *rc::gen::element(numerics::Rounding::RTNE, numerics::Rounding::RTNA,
                                               numerics::Rounding::RTZ);
    const double inv_sqrt_d = 1.0 / std::sqrt(static_cast<double>(s.head_dim));
    c.problem.scale = static_cast<float>(
        *rc::gen::weightedElement<double>({{8, inv_sqrt_d}, {1, 0.0}, {1, -inv_sqrt_d}}));
    // Half the cases keep BSHD contiguous (where shrinking ends), half draw a strided layout.
    if (spec.layouts && !spec.kernel && *rc::gen::arbitrary<bool>()) c.layout = draw_layout();
    if (spec.varlen && *rc::gen::arbitrary<bool>()) {
      for (std::int64_t b = 0; b < s.batch; ++b) {
        c.seqlens_q.push_back(*rc::gen::inRange<std::int64_t>(0, s.seqlen_q + 1));
        c.seqlens_k.push_back(*rc::gen::inRange<std::int64_t>(0, s.seqlen_k + 1));
      }
    }
    const ValueKind kind =
        spec.nonfinite ? *rc::gen::element(ValueKind::NonFinite, ValueKind::NanScore, ValueKind::InfScore)
                       : *rc::gen::elementOf(std::vector<ValueKind>(std::begin(kFiniteValueKinds),
                                                                    std::end(kFiniteValueKinds)));
    const int variant = *rc::gen::inRange(0, 9);
    const auto seed = *rc::gen::inRange<std::uint64_t>(0, 1u << 30);
    c.aux_seed = *rc::gen::inRange<std::uint64_t>(0, 1u << 30);
    c.values = fill_values(c.problem, kind, seed, variant);
    c.seeds = "values=" + std::to_string(seed) + " variant=" + std::to_string(variant);
    return c;
  });
}

}  // namespace cdna::properties
