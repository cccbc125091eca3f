// The golden set's cases of the extended definition (docs/semantics.md; golden format v3): the
// handed varlen cases C05 and C11 (C11 reduced) and one small case per feature, X01-X10. Each is
// seeded randn (reference::randn_bf16) and small (every file < 200 KB). Storage rows, slots and
// pages no sequence reads hold NaN, so a reader of them shows in the result.
#include <cmath>
#include <limits>

#include "numerics/bf16.hpp"
#include "numerics/fp8.hpp"
#include "reference/attention/inputs.hpp"
#include "audit/golden/golden_cases.hpp"

namespace cdna::audit {
namespace {

using reference::AttentionShape;
using reference::Mask;

constexpr std::uint16_t kBf16NaN = 0x7FC0;

// A varlen case: storage of rows_q query rows and rows_k key rows (or pages x page_size slots),
// randn everywhere, then NaN in every key row or slot no sequence reads and every query row no
// sequence owns.
GoldenCaseSpec varlen_case(std::string id, std::string description, reference::VarlenProblem vp, std::int64_t rows_q,
                           std::int64_t rows_k, std::uint64_t seed) {
  const AttentionShape& s = vp.base.shape;
  vp.q = reference::randn_bf16(static_cast<std::size_t>(rows_q * s.heads_q * s.head_dim), seed);
  vp.k = reference::randn_bf16(static_cast<std::size_t>(rows_k * s.heads_kv * s.head_dim), seed + 1);
  vp.v = reference::randn_bf16(static_cast<std::size_t>(rows_k * s.heads_kv * s.dv()), seed + 2);
  std::vector<bool> q_used(static_cast<std::size_t>(rows_q)), k_used(static_cast<std::size_t>(rows_k));
  for (std::int64_t b = 0; b < vp.sequences(); ++b) {
    for (std::int64_t i = 0; i < vp.seqlen_q(b); ++i) q_used[static_cast<std::size_t>(vp.q_row(b, i))] = true;
    for (std::int64_t j = 0; j < vp.seqlen_k(b); ++j) k_used[static_cast<std::size_t>(vp.k_row(b, j))] = true;
  }
  auto poison = [](std::vector<std::uint16_t>& t, const std::vector<bool>& used, std::int64_t row_elements) {
    for (std::size_t r = 0; r < used.size(); ++r)
      if (!used[r])
        std::fill_n(t.begin() + static_cast<std::ptrdiff_t>(r * static_cast<std::size_t>(row_elements)), row_elements, kBf16NaN);
  };
  poison(vp.q, q_used, s.heads_q * s.head_dim);
  poison(vp.k, k_used, s.heads_kv * s.head_dim);
  poison(vp.v, k_used, s.heads_kv * s.dv());
  GoldenCaseSpec c;
  c.id = std::move(id);
  c.description = std::move(description);
  c.varlen = std::move(vp);
  c.seeds = seeds_text(seed);
  c.inputs = "Q, K, V = randn in the storage; rows, slots and pages no sequence reads = NaN; scale = fl32(1/sqrt(D))";
  return c;
}

reference::VarlenProblem varlen_base(std::int64_t sequences, std::int64_t hq, std::int64_t hkv, std::int64_t d, Mask mask) {
  reference::VarlenProblem vp;
  vp.base.shape = {sequences, 0, 0, hq, hkv, d};
  vp.base.mask = mask;
  vp.base.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(d)));
  return vp;
}

// Q, K, V of `c` as fp8 patterns of `type`: each randn bf16 value rounded to the format (RNE).
void to_fp8(GoldenCaseSpec& c, reference::ElementType type) {
  const auto kind = type == reference::ElementType::FP8_E4M3FNUZ ? numerics::Fp8Kind::Fp8 : numerics::Fp8Kind::Bf8;
  for (auto* t : {&c.problem.q, &c.problem.k, &c.problem.v})
    for (std::uint16_t& x : *t) x = numerics::fp8_from_f32_rne(numerics::f32_from_bf16(x), kind);
  c.problem.dtype = type;
  c.inputs += "; Q, K, V rounded to " + std::string(reference::to_string(type)) + " (RNE)";
}

}  // namespace

std::vector<GoldenCaseSpec> golden_feature_cases() {
  std::vector<GoldenCaseSpec> cases;
  {  // C05 as handed: sequences 0 and 2 have no key.
    auto vp = varlen_base(3, 2, 2, 64, Mask::None);
    vp.cu_seqlens_q = {0, 4, 8, 12};
    vp.cu_seqlens_k = {0, 0, 7, 7};
    cases.push_back(varlen_case("C05", "varlen B 3, Sk_b 0/7/0: empty sequences give O = +0, LSE = -inf", std::move(vp),
                                12, 7, 3005));
  }
  {  // C11 reduced: a padded KV cache of capacity 32 per sequence, used 8/16/24/12.
    auto vp = varlen_base(4, 2, 2, 64, Mask::None);
    vp.cu_seqlens_q = {0, 8, 16, 24, 32};
    vp.cu_seqlens_k = {0, 32, 64, 96, 128};
    vp.seqused_k = {8, 16, 24, 12};
    auto c = varlen_case("C11", "varlen over a padded KV cache (capacity 32, used 8/16/24/12), unused slots NaN",
                         std::move(vp), 32, 128, 3011);
    c.reduction = "Sq 16 -> 8, capacity 128 -> 32 and used 32/64/96/48 -> 8/16/24/12, heads 4/4 -> 2/2, D 128 -> 64";
    cases.push_back(std::move(c));
  }
  {  // Paged KV: pages 2 and 5 are in no table; slots past the used lengths are NaN.
    auto vp = varlen_base(2, 2, 1, 64, Mask::CausalBottomRight);
    vp.cu_seqlens_q = {0, 5, 8};
    vp.seqused_k = {20, 27};
    vp.page_size = 16;
    vp.pages_per_sequence = 2;
    vp.block_table = {3, 1, 0, 4};
    cases.push_back(varlen_case("X01-paged", "paged KV: page size 16, block table [[3,1],[0,4]], used 20/27, causal",
                                std::move(vp), 8, 6 * 16, 3101));
  }
  {
    auto c = randn_case("X02-window", "sliding window (5, 2), no mask: keys i+Sk-Sq-5 .. i+Sk-Sq+2", {1, 16, 24, 2, 1, 64},
                        Mask::None, 3102);
    c.problem.window_left = 5;
    c.problem.window_right = 2;
    cases.push_back(std::move(c));
  }
  {
    auto c = randn_case("X03-window-0-0", "window (0, 0), causal: every row sees its diagonal key only, O = V of it",
                        {1, 8, 8, 1, 1, 64}, Mask::CausalBottomRight, 3103);
    c.problem.window_left = 0;
    c.problem.window_right = 0;
    cases.push_back(std::move(c));
  }
  {
    auto c = randn_case("X04-softcap", "soft cap 5 on logits of std about 16 (Q, K = 4 randn)", {1, 8, 40, 2, 1, 64},
                        Mask::None, 3104, 4.0);
    c.problem.softcap = 5.0f;
    cases.push_back(std::move(c));
  }
  {
    auto c = randn_case("X05-sinks", "sinks 0.5, -inf, 3, -2; Sq 8 > Sk 5 causal: rows 0-2 see no key, LSE = the sink",
                        {1, 8, 5, 4, 2, 64}, Mask::CausalBottomRight, 3105);
    c.problem.sinks = {0.5f, -std::numeric_limits<float>::infinity(), 3.0f, -2.0f};
    cases.push_back(std::move(c));
  }
  cases.push_back(randn_case("X06-dv", "D 192, Dv 128 (AITER's 192 x 128)", {1, 8, 16, 2, 2, 192, 128}, Mask::None, 3106));
  {
    auto c = randn_case("X07-fp8-e4m3", "fp8 e4m3fnuz inputs, descale per (batch, KV head)", {2, 8, 16, 4, 2, 64},
                        Mask::None, 3107);
    to_fp8(c, reference::ElementType::FP8_E4M3FNUZ);
    c.problem.descale_q = {0.5f, 0.25f, 1.0f, 2.0f};
    c.problem.descale_k = {1.5f, 0.75f, 0.125f, 1.0f};
    c.problem.descale_v = {2.0f, 0.5f, 1.0f, 0.0625f};
    cases.push_back(std::move(c));
  }
  {
    auto c = randn_case("X08-fp8-e5m2", "fp8 e5m2fnuz inputs, descale per tensor, causal", {1, 8, 16, 2, 1, 64},
                        Mask::CausalBottomRight, 3108);
    to_fp8(c, reference::ElementType::FP8_E5M2FNUZ);
    c.problem.descale_q = {0.5f};
    c.problem.descale_k = {2.0f};
    c.problem.descale_v = {0.125f};
    cases.push_back(std::move(c));
  }
  {
    auto c = randn_case("X09-layout-bhsd", "layout BHSD: the kernel reads Q, K, V and writes O head-major",
                        {1, 8, 12, 2, 1, 64}, Mask::CausalBottomRight, 3109);
    c.layout = *golden::named_layout("bhsd", c.problem.shape);
    cases.push_back(std::move(c));
  }
  {
    auto c = randn_case("X10-strided", "explicit strides with gaps (rows padded to 80 and 96 elements, O sequence-major)",
                        {2, 5, 7, 2, 1, 64}, Mask::None, 3110);
    c.layout.name = "strided";
    c.layout.q = {5 * 2 * 80, 2 * 80, 80, 1};
    c.layout.k = {7 * 96, 96, 64, 1};
    c.layout.v = {7 * 96, 96, 64, 1};
    c.layout.o = {128, 288, 64, 1};
    cases.push_back(std::move(c));
  }
  return cases;
}

}  // namespace cdna::audit
