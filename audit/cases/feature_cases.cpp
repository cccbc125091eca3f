#include "audit/cases/feature_cases.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "numerics/bf16.hpp"
#include "numerics/fp8.hpp"
#include "reference/attention/inputs.hpp"
#include "reference/attention/varlen_inputs.hpp"

namespace cdna::audit {
namespace {

using reference::AttentionProblem;
using reference::AttentionShape;
using reference::ElementType;
using reference::Mask;
using reference::VarlenProblem;

constexpr std::uint16_t kNan = 0x7FC0;  // bf16 quiet NaN: unused slots and never-read keys
constexpr double kInf = std::numeric_limits<double>::infinity();

float inv_sqrt(std::int64_t d) { return static_cast<float>(1.0 / std::sqrt(static_cast<double>(d))); }

// V_j = j + 1 in every channel (exact in bf16 for the small j used here).
void set_v_to_key_index(AttentionProblem& p) {
  const auto& s = p.shape;
  for (std::int64_t b = 0; b < s.batch; ++b)
    for (std::int64_t j = 0; j < s.seqlen_k; ++j)
      for (std::int64_t x = 0; x < s.heads_kv * s.dv(); ++x)
        p.v[static_cast<std::size_t>((b * s.seqlen_k + j) * s.heads_kv * s.dv() + x)] =
            numerics::bf16_from_f32(static_cast<float>(j + 1), numerics::Rounding::RTNE);
}

// What a fact expects of one element: nullopt = not a fact (judged by the pass rule only).
using Want = std::function<std::optional<double>(std::int64_t b, std::int64_t i, std::int64_t h, std::int64_t d)>;
using WantLse = std::function<std::optional<double>(std::int64_t b, std::int64_t i, std::int64_t h)>;

bool same(double got, double want) {
  return got == want && std::signbit(got) == std::signbit(want);  // +0.0 is not -0.0
}

// The fact "O (and LSE where `lse` says) equal these values bit for bit" on a dense output.
std::function<std::string(const CaseOutput&)> dense_fact(const AttentionShape s, Want o, WantLse lse = {}) {
  return [s, o, lse](const CaseOutput& out) -> std::string {
    for (std::int64_t b = 0; b < s.batch; ++b)
      for (std::int64_t i = 0; i < s.seqlen_q; ++i)
        for (std::int64_t h = 0; h < s.heads_q; ++h) {
          for (std::int64_t d = 0; d < s.dv(); ++d) {
            const auto want = o(b, i, h, d);
            const double got = out.o[static_cast<std::size_t>(((b * s.seqlen_q + i) * s.heads_q + h) * s.dv() + d)];
            if (want && !same(got, *want)) {
              std::ostringstream m;
              m << "O[b=" << b << ", i=" << i << ", h=" << h << ", d=" << d << "] = " << got << ", the definition gives "
                << *want << " exactly";
              return m.str();
            }
          }
          const auto want = lse ? lse(b, i, h) : std::nullopt;
          if (!want || out.lse.empty()) continue;
          const double got = out.lse[static_cast<std::size_t>((b * s.heads_q + h) * s.seqlen_q + i)];
          if (!same(got, *want)) {
            std::ostringstream m;
            m << "LSE[b=" << b << ", h=" << h << ", i=" << i << "] = " << got << ", the definition gives " << *want
              << " exactly";
            return m.str();
          }
        }
    return "";
  };
}

// "" if no O or LSE value is NaN (every row of these cases is owned by a sequence).
std::string no_nan(const CaseOutput& out) {
  for (std::size_t x = 0; x < out.o.size(); ++x)
    if (std::isnan(out.o[x])) return "O[" + std::to_string(x) + "] is NaN";
  for (std::size_t x = 0; x < out.lse.size(); ++x)
    if (std::isnan(out.lse[x])) return "LSE[" + std::to_string(x) + "] is NaN";
  return "";
}

// A varlen case whose output must equal `twin`'s bit for bit and hold no NaN.
AuditCase varlen_case(std::string id, std::string description, std::uint64_t seed, VarlenProblem problem,
                      VarlenProblem twin) {
  AuditCase c;
  c.id = std::move(id);
  c.description = std::move(description);
  c.seed = seed;
  c.problem = reference::largest_sequence(problem);
  c.exact_facts = no_nan;
  c.varlen = std::move(problem);
  c.varlen_twin = std::move(twin);
  return c;
}

VarlenProblem varlen_base(AttentionShape heads, Mask mask) {
  VarlenProblem v;
  v.base.shape = heads;
  v.base.shape.seqlen_q = v.base.shape.seqlen_k = 0;
  v.base.mask = mask;
  v.base.scale = inv_sqrt(heads.head_dim);
  return v;
}

AuditCase c05() {
  // Sq_b 4, 4, 4; Sk_b 0, 7, 0; heads 2/2, D 64 (../shared/cases/README.md).
  VarlenProblem v = varlen_base({3, 0, 0, 2, 2, 64}, Mask::None);
  v.cu_seqlens_q = {0, 4, 8, 12};
  v.cu_seqlens_k = {0, 0, 7, 7};
  const std::size_t row_q = 2 * 64, row_k = 2 * 64;
  v.q = reference::randn_bf16(12 * row_q, 105);
  v.k = reference::randn_bf16(7 * row_k, 106);
  v.v = reference::randn_bf16(7 * row_k, 107);
  AuditCase c;
  c.id = "C05";
  c.description = "varlen B 3, Sq_b 4/4/4, Sk_b 0/7/0: sequences 0 and 2 give O = +0.0, LSE = -inf, no NaN";
  c.seed = 105;
  c.problem = reference::largest_sequence(v);
  // Rows 0-3 and 8-11 (sequences 0 and 2) have no key: O = +0.0, LSE = -inf; nothing is NaN.
  c.exact_facts = [](const CaseOutput& out) -> std::string {
    const std::int64_t rows = 12, Hq = 2, D = 64;
    for (std::int64_t r : {0, 1, 2, 3, 8, 9, 10, 11}) {
      for (std::int64_t x = 0; x < Hq * D; ++x)
        if (!same(out.o[static_cast<std::size_t>(r * Hq * D + x)], 0.0))
          return "O of row " + std::to_string(r) + " (a sequence without keys) is " +
                 std::to_string(out.o[static_cast<std::size_t>(r * Hq * D + x)]) + ", must be +0.0";
      for (std::int64_t h = 0; h < Hq && !out.lse.empty(); ++h)
        if (!same(out.lse[static_cast<std::size_t>(h * rows + r)], -kInf))
          return "LSE of row " + std::to_string(r) + " head " + std::to_string(h) + " is " +
                 std::to_string(out.lse[static_cast<std::size_t>(h * rows + r)]) + ", must be -inf";
    }
    return no_nan(out);
  };
  c.varlen = std::move(v);
  return c;
}

AuditCase c11() {
  // B 4, Sq 16 each, KV capacity 128 per sequence with used lengths 32, 64, 96, 48; 4/4, D 128.
  VarlenProblem v = varlen_base({4, 0, 0, 4, 4, 128}, Mask::None);
  v.cu_seqlens_q = {0, 16, 32, 48, 64};
  v.cu_seqlens_k = {0, 128, 256, 384, 512};
  v.seqused_k = {32, 64, 96, 48};
  const std::size_t row = 4 * 128;
  v.q = reference::randn_bf16(64 * row, 111);
  v.k = reference::randn_bf16(512 * row, 112);
  v.v = reference::randn_bf16(512 * row, 113);
  VarlenProblem zeroed = v;
  for (std::size_t b = 0; b < 4; ++b)
    for (std::size_t j = static_cast<std::size_t>(v.seqused_k[b]); j < 128; ++j)
      for (std::size_t x = 0; x < row; ++x) {
        const std::size_t at = (b * 128 + j) * row + x;
        v.k[at] = v.v[at] = kNan;
        zeroed.k[at] = zeroed.v[at] = 0;
      }
  return varlen_case("C11",
                     "varlen over a padded KV cache (capacity 128, used 32/64/96/48), unused slots NaN: "
                     "equal to the zero-filled run bit for bit, no NaN",
                     111, std::move(v), std::move(zeroed));
}

AuditCase w01() {
  AuditCase c = make_case("W01", "window (0, 0), Sq 16, Sk 40, heads 4/2: row i sees only key i + 24, O = V of it",
                           {1, 16, 40, 4, 2, 64}, Mask::None, 301);
  c.problem.window_left = c.problem.window_right = 0;
  const AttentionProblem p = c.problem;
  c.exact_facts = dense_fact(p.shape, [p](std::int64_t, std::int64_t i, std::int64_t h, std::int64_t d) {
    const std::int64_t j = i + 24, g = h / 2;  // diagonal i + Sk - Sq; query head h reads KV head h / 2
    return std::optional<double>(numerics::f32_from_bf16(p.v[static_cast<std::size_t>((j * 2 + g) * 64 + d)]));
  });
  return c;
}

// W02: window (3, 2) with causal (the causal j <= diag cuts the right side to 0), Sq 12, Sk 8,
// scale 0, V_j = j + 1. Bottom-right: diag = i - 4, keys max(0, i - 7)..i - 4 (none for i < 4).
// Top-left: diag = i, keys i - 3..min(i, 7) (keys from 0; none for i = 11, whose window starts
// at key 8). O = (first + last) / 2 + 1, the mean of V over the visible keys.
AuditCase w02(Mask mask) {
  const bool br = mask == Mask::CausalBottomRight;
  AuditCase c = make_case(br ? "W02-bottom-right" : "W02-top-left",
                           std::string("window (3, 2) + causal ") + (br ? "bottom-right" : "top-left") +
                               ", Sq 12, Sk 8, scale 0, V_j = j + 1: O = mean of the visible keys' V",
                           {1, 12, 8, 2, 1, 64}, mask, br ? 302 : 303);
  c.problem.window_left = 3;
  c.problem.window_right = 2;
  c.problem.scale = 0.0f;
  set_v_to_key_index(c.problem);
  const auto range = [br](std::int64_t i) -> std::pair<std::int64_t, std::int64_t> {
    if (br) return {std::max<std::int64_t>(0, i - 7), i - 4};
    return {std::max<std::int64_t>(0, i - 3), std::min<std::int64_t>(i, 7)};
  };
  c.exact_facts = dense_fact(
      c.problem.shape,
      [range](std::int64_t, std::int64_t i, std::int64_t, std::int64_t) {
        const auto [first, last] = range(i);
        return std::optional<double>(last < first ? 0.0 : static_cast<double>(first + last) / 2.0 + 1.0);
      },
      [range](std::int64_t, std::int64_t i, std::int64_t) {
        const auto [first, last] = range(i);
        return last < first ? std::optional<double>(-kInf) : std::nullopt;
      });
  return c;
}

AuditCase p01() {
  // Sequences: Sq_b 3, 5; Sk_b 40, 20; page size 16, 3 pages per sequence, 7 pages. Sequence 0's
  // keys sit in pages 5, 1, 3 (keys 32..39 in page 3's slots 0..7), sequence 1's in pages 0, 6;
  // its third table entry (page 4) lies past its used length. Pages 2 and 4, and every slot past
  // a used length, hold NaN.
  VarlenProblem paged = varlen_base({2, 0, 0, 4, 2, 64}, Mask::CausalBottomRight);
  paged.cu_seqlens_q = {0, 3, 8};
  paged.seqused_k = {40, 20};
  paged.page_size = 16;
  paged.pages_per_sequence = 3;
  paged.block_table = {5, 1, 3, 0, 6, 4};
  const std::size_t row = 2 * 64;
  paged.q = reference::randn_bf16(8 * 4 * 64, 311);
  paged.k.assign(7 * 16 * row, kNan);
  paged.v.assign(7 * 16 * row, kNan);
  VarlenProblem packed = varlen_base({2, 0, 0, 4, 2, 64}, Mask::CausalBottomRight);
  packed.cu_seqlens_q = paged.cu_seqlens_q;
  packed.cu_seqlens_k = {0, 40, 60};
  packed.q = paged.q;
  packed.k = reference::randn_bf16(60 * row, 312);
  packed.v = reference::randn_bf16(60 * row, 313);
  for (std::int64_t b = 0; b < 2; ++b)
    for (std::int64_t j = 0; j < paged.seqused_k[static_cast<std::size_t>(b)]; ++j) {
      const std::int64_t page = paged.block_table[static_cast<std::size_t>(b * 3 + j / 16)];
      const auto to = static_cast<std::ptrdiff_t>((page * 16 + j % 16) * static_cast<std::int64_t>(row));
      const auto from = static_cast<std::ptrdiff_t>((packed.cu_seqlens_k[static_cast<std::size_t>(b)] + j) *
                                                    static_cast<std::int64_t>(row));
      std::copy_n(packed.k.begin() + from, row, paged.k.begin() + to);
      std::copy_n(packed.v.begin() + from, row, paged.v.begin() + to);
    }
  return varlen_case("P01",
                     "paged KV, page size 16, shuffled block table, NaN in unused pages and slots, causal: "
                     "equal to the packed run bit for bit, no NaN",
                     311, std::move(paged), std::move(packed));
}

AuditCase sc01() {
  // Causal bottom-right with window (3, 0), Sq 4, Sk 40: row i sees keys i + 33..i + 36 (diagonal
  // i + 36), so keys 0..32 are masked for every row.
  AuditCase c = make_case("SC01", "soft cap 5, causal + window (3, 0), Sq 4, Sk 40, Q and K 3 randn: keys 0-32, "
                                  "masked for every row, NaN in K and V: equal bit for bit to finite values there",
                          {1, 4, 40, 2, 2, 64}, Mask::CausalBottomRight, 321, 3.0);
  c.problem.window_left = 3;
  c.problem.window_right = 0;
  c.problem.softcap = 5.0f;
  c.twin = c.problem;
  const std::size_t row = 2 * 64;
  std::fill_n(c.problem.k.begin(), 33 * row, kNan);
  std::fill_n(c.problem.v.begin(), 33 * row, kNan);
  c.exact_facts = no_nan;
  return c;
}

// SK01: sinks {0, -inf}, Hq 2 / Hkv 1, causal bottom-right, Sq 6, Sk 4, scale 0, V_j = j + 1.
// Row i sees keys 0..i - 2, n = i - 1 of them (none for i < 2). Every score is 0, so head 0's
// normaliser is n + exp(0): O = (1 + ... + n) / (n + 1) = n / 2, LSE = ln(n + 1); head 1 (no
// sink): O = (n + 1) / 2, LSE = ln n. Rows without keys: O = +0.0, LSE = 0 (head 0's sink logit)
// and -inf (head 1).
AuditCase sk01() {
  AuditCase c = make_case("SK01", "sinks {0, -inf}, causal Sq 6, Sk 4, scale 0, V_j = j + 1: O = n/2 (sink) "
                                   "and (n+1)/2 (none); keyless rows LSE = sink logit",
                           {1, 6, 4, 2, 1, 64}, Mask::CausalBottomRight, 331);
  c.problem.scale = 0.0f;
  c.problem.sinks = {0.0f, -std::numeric_limits<float>::infinity()};
  set_v_to_key_index(c.problem);
  c.exact_facts = dense_fact(
      c.problem.shape,
      [](std::int64_t, std::int64_t i, std::int64_t h, std::int64_t) {
        const double n = static_cast<double>(std::max<std::int64_t>(0, i - 1));
        return std::optional<double>(n == 0 ? 0.0 : h == 0 ? n / 2 : (n + 1) / 2);
      },
      [](std::int64_t, std::int64_t i, std::int64_t h) -> std::optional<double> {
        if (i >= 2) return i == 2 && h == 1 ? std::optional<double>(0.0) : std::nullopt;  // ln 1 = 0
        return h == 0 ? 0.0 : -kInf;
      });
  return c;
}

AuditCase dv01() {
  // One key: P = 1, O = V_0 of the query head's KV head (h / 2) in all Dv columns.
  AuditCase c = make_case("DV01", "D 192, Dv 128 (AITER's 192 x 128), B 2, heads 4/2, Sk 1: O = V of the key",
                           {2, 3, 1, 4, 2, 192, 128}, Mask::None, 341);
  const AttentionProblem p = c.problem;
  c.exact_facts = dense_fact(p.shape, [p](std::int64_t b, std::int64_t, std::int64_t h, std::int64_t d) {
    return std::optional<double>(numerics::f32_from_bf16(p.v[static_cast<std::size_t>(((b * 2) + h / 2) * 128 + d)]));
  });
  return c;
}

// F01/F02: fp8 inputs (randn rounded to the format, RTNE), per-(b, KV head) descale factors
// [B, Hkv] = [2, 2]; Sk 1, so O = dv(b, g) · V exactly (dv powers of two, V in the format).
AuditCase fp8_case(std::string id, ElementType type, numerics::Fp8Kind kind, std::uint64_t seed) {
  AuditCase c = make_case(std::move(id), std::string(reference::to_string(type)) +
                                              ", per-(b, KV head) descale, B 2, heads 4/2, Sk 1: O = dv(b, g) x V",
                           {2, 3, 1, 4, 2, 64}, Mask::None, seed);
  AttentionProblem& p = c.problem;
  p.dtype = type;
  for (auto* t : {&p.q, &p.k, &p.v})
    for (std::uint16_t& x : *t)
      x = numerics::fp8_from_f32_rne(numerics::f32_from_bf16(x), kind);
  p.descale_q = {0.5f, 3.0f, 1.25f, 0.75f};
  p.descale_k = {2.0f, 0.375f, 1.0f, 0.5f};
  p.descale_v = {0.5f, 2.0f, 4.0f, 0.125f};
  const AttentionProblem q = p;
  c.exact_facts = dense_fact(q.shape, [q](std::int64_t b, std::int64_t, std::int64_t h, std::int64_t d) {
    const std::int64_t g = h / 2;
    const double v = reference::element_value(q.dtype, q.v[static_cast<std::size_t>((b * 2 + g) * 64 + d)]);
    return std::optional<double>(q.descale_v[static_cast<std::size_t>(b * 2 + g)] * v);
  });
  return c;
}

// A varlen problem of sequences (Sq_b, Sk_b) packed, or with `gap` NaN rows before each
// sequence's query and key rows (padded starts); inputs seeded from `seed`.
VarlenProblem varlen_tiles(AttentionShape heads, Mask mask, const std::vector<std::pair<int, int>>& lengths, int gap,
                           std::uint64_t seed) {
  VarlenProblem v = varlen_base(heads, mask);
  v.base.shape.batch = static_cast<std::int64_t>(lengths.size());
  v.cu_seqlens_q = {0};
  v.cu_seqlens_k = {0};
  std::int32_t row_q = 0, row_k = 0;
  if (gap > 0) v.seqstart_q = v.seqstart_k = {0};
  for (auto [sq, sk] : lengths) {
    v.cu_seqlens_q.push_back(v.cu_seqlens_q.back() + sq);
    v.cu_seqlens_k.push_back(v.cu_seqlens_k.back() + sk);
    row_q += sq + gap;
    row_k += sk + gap;
    if (gap > 0) {
      v.seqstart_q.push_back(row_q);
      v.seqstart_k.push_back(row_k);
    }
  }
  const std::size_t wq = static_cast<std::size_t>(heads.heads_q * heads.head_dim);
  const std::size_t wk = static_cast<std::size_t>(heads.heads_kv * heads.head_dim);
  v.q = reference::randn_bf16(static_cast<std::size_t>(row_q) * wq, seed);
  v.k = reference::randn_bf16(static_cast<std::size_t>(row_k) * wk, seed + 1);
  v.v = reference::randn_bf16(static_cast<std::size_t>(row_k) * wk, seed + 2);
  if (gap > 0) {
    // Rows no sequence owns are never read: NaN shows a kernel that reads them.
    for (std::size_t b = 0; b < lengths.size(); ++b) {
      for (std::size_t r = static_cast<std::size_t>(v.seqstart_q[b]) + static_cast<std::size_t>(lengths[b].first);
           r < static_cast<std::size_t>(v.seqstart_q[b + 1]); ++r)
        std::fill_n(v.q.begin() + static_cast<std::ptrdiff_t>(r * wq), wq, kNan);
      for (std::size_t r = static_cast<std::size_t>(v.seqstart_k[b]) + static_cast<std::size_t>(lengths[b].second);
           r < static_cast<std::size_t>(v.seqstart_k[b + 1]); ++r) {
        std::fill_n(v.k.begin() + static_cast<std::ptrdiff_t>(r * wk), wk, kNan);
        std::fill_n(v.v.begin() + static_cast<std::ptrdiff_t>(r * wk), wk, kNan);
      }
    }
  }
  return v;
}

// No NaN in the rows the sequences own (the others have no defined value).
std::function<std::string(const CaseOutput&)> owned_rows_no_nan(const VarlenProblem& v) {
  return [v](const CaseOutput& out) -> std::string {
    const std::int64_t hq = v.base.shape.heads_q, dv = v.base.shape.dv(), rows = v.rows_q();
    for (std::int64_t b = 0; b < v.sequences(); ++b)
      for (std::int64_t i = 0; i < v.seqlen_q(b); ++i) {
        const std::int64_t r = v.q_row(b, i);
        for (std::int64_t x = 0; x < hq * dv; ++x)
          if (std::isnan(out.o[static_cast<std::size_t>(r * hq * dv + x)]))
            return "O of sequence " + std::to_string(b) + " row " + std::to_string(i) + " is NaN";
        for (std::int64_t h = 0; h < hq && !out.lse.empty(); ++h)
          if (std::isnan(out.lse[static_cast<std::size_t>(h * rows + r)]))
            return "LSE of sequence " + std::to_string(b) + " row " + std::to_string(i) + " head " + std::to_string(h) + " is NaN";
      }
    return "";
  };
}

}  // namespace

namespace {

// A tile case of varlen problem `v`: judged by the pass rule and the fact "no NaN in the rows the
// sequences own"; `problem` is its largest sequence, for the reports.
AuditCase varlen_tile_case(std::string id, std::string description, std::uint64_t seed, VarlenProblem v) {
  AuditCase c;
  c.id = std::move(id);
  c.description = std::move(description);
  c.seed = seed;
  c.problem = reference::largest_sequence(v);
  c.exact_facts = owned_rows_no_nan(v);
  c.varlen = std::move(v);
  return c;
}

}  // namespace

std::vector<AuditCase> varlen_tile_cases() {
  std::vector<AuditCase> cases;
  std::uint64_t seed = 7000;
  struct Spec {
    const char* id;
    AttentionShape heads;
    std::vector<std::pair<int, int>> lengths;
    int gap;
  };
  // Around AITER's 256-row query tile per sequence, in one launch: a tile boundary inside the
  // second sequence, a one-row sequence, GQA; padded starts (AITER's cu_seqlens_*_padded).
  const Spec specs[] = {
      {"tiles-varlen/packed", {3, 0, 0, 2, 1, 128}, {{1, 256}, {257, 300}, {300, 385}}, 0},
      {"tiles-varlen/padded", {2, 0, 0, 2, 2, 128}, {{255, 257}, {17, 33}}, 5},
  };
  for (const Spec& sp : specs)
    for (Mask mask : {Mask::None, Mask::CausalBottomRight}) {
      VarlenProblem v = varlen_tiles(sp.heads, mask, sp.lengths, sp.gap, seed);
      seed += 10;
      std::ostringstream what;
      what << "varlen B " << sp.lengths.size() << ", heads " << sp.heads.heads_q << "/" << sp.heads.heads_kv
           << " D 128, (Sq_b, Sk_b) =";
      for (auto [sq, sk] : sp.lengths) what << " (" << sq << ", " << sk << ")";
      what << (sp.gap > 0 ? ", padded starts (NaN between sequences)" : ", packed") << ", " << reference::to_string(mask);
      cases.push_back(varlen_tile_case(std::string(sp.id) + (mask == Mask::None ? "" : "/causal"), what.str(), seed,
                                       std::move(v)));
    }
  return cases;
}

namespace {

// A paged decode batch (reference/attention/varlen_inputs.hpp): sequence b has `q_rows` query
// rows and lengths[b] keys in pages of `page_size` slots of a shuffled block table, two spare
// pages; unused slots and pages hold `unused`.
VarlenProblem paged_decode(AttentionShape heads, Mask mask, const std::vector<std::int32_t>& lengths,
                           std::int32_t q_rows, std::int32_t page_size, std::uint64_t seed, std::uint16_t unused) {
  const std::vector<std::int32_t> rows(lengths.size(), q_rows);
  return reference::paged_from_packed(reference::packed_varlen(heads, mask, rows, lengths, seed), page_size, 2, seed,
                                      unused);
}

}  // namespace

std::vector<AuditCase> paged_decode_tile_cases() {
  struct Spec {
    const char* id;
    AttentionShape heads;
    std::vector<std::int32_t> lengths;
    std::int32_t q_rows;
    const char* what;
    std::uint16_t unused = 0;  // +0 in unused slots and pages: what a serving engine's cache holds
  };
  // Around AITER PA's 16-slot pages and its GQA groups of 8 and 16 query heads per KV head
  // (pa_asm.csv Gqa, blkSz; a ratio of 4 runs on the Gqa 8 kernel), one query row per sequence;
  // a long context; 2, 4 and 5 rows per sequence under the causal mask (multi-token prediction;
  // AITER's op_tests/test_pa_mtp.py runs 1-4); a sequence with no key;
  // NaN in the slots and pages no sequence uses, which the definition never reads.
  const Spec specs[] = {
      {"tiles-paged-decode/gqa8", {4, 0, 0, 8, 1, 128}, {1, 16, 17, 300}, 1, "GQA 8"},
      {"tiles-paged-decode/gqa16", {3, 0, 0, 32, 2, 128}, {15, 256, 513}, 1, "GQA 16"},
      {"tiles-paged-decode/gqa4", {2, 0, 0, 16, 4, 128}, {33, 1000}, 1, "GQA 4"},
      {"tiles-paged-decode/long", {1, 0, 0, 16, 1, 128}, {8193}, 1, "GQA 16"},
      {"tiles-paged-decode/mtp2", {3, 0, 0, 8, 1, 128}, {2, 40, 300}, 2, "GQA 8, 2 query rows per sequence"},
      {"tiles-paged-decode/mtp4", {2, 0, 0, 16, 4, 128}, {40, 7}, 4, "GQA 4, 4 query rows per sequence"},
      {"tiles-paged-decode/mtp5", {1, 0, 0, 1, 1, 128}, {5}, 5, "heads 1/1, 5 query rows per sequence"},
      {"tiles-paged-decode/empty", {2, 0, 0, 8, 1, 128}, {0, 5}, 1, "GQA 8, sequence 0 has no key (O = 0)"},
      {"tiles-paged-decode/nan-slots", {2, 0, 0, 8, 1, 128}, {17, 16}, 1, "GQA 8, NaN in unused slots and pages",
       kNan},
  };
  std::vector<AuditCase> cases;
  std::uint64_t seed = 7100;
  for (const Spec& sp : specs) {
    const Mask mask = sp.q_rows > 1 ? Mask::CausalBottomRight : Mask::None;
    VarlenProblem v = paged_decode(sp.heads, mask, sp.lengths, sp.q_rows, 16, seed, sp.unused);
    std::ostringstream what;
    what << "paged decode, page 16, shuffled block table: B " << sp.lengths.size() << ", heads "
         << sp.heads.heads_q << "/" << sp.heads.heads_kv << " D 128 (" << sp.what << "), used lengths";
    for (int n : sp.lengths) what << " " << n;
    what << ", " << reference::to_string(mask);
    cases.push_back(varlen_tile_case(sp.id, what.str(), seed, std::move(v)));
    seed += 10;
  }
  return cases;
}

std::vector<AuditCase> varlen_handed_cases() {
  std::vector<AuditCase> cases;
  cases.push_back(c05());
  cases.push_back(c11());
  return cases;
}

std::vector<AuditCase> audit_feature_cases() {
  std::vector<AuditCase> cases;
  cases.push_back(w01());
  cases.push_back(w02(Mask::CausalBottomRight));
  cases.push_back(w02(Mask::CausalTopLeft));
  cases.push_back(p01());
  cases.push_back(sc01());
  cases.push_back(sk01());
  cases.push_back(dv01());
  cases.push_back(fp8_case("F01", ElementType::FP8_E4M3FNUZ, numerics::Fp8Kind::Fp8, 351));
  cases.push_back(fp8_case("F02", ElementType::FP8_E5M2FNUZ, numerics::Fp8Kind::Bf8, 352));
  return cases;
}

}  // namespace cdna::audit
