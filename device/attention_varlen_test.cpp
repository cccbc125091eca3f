// The extended attention kernels (attn_fwd_ext_*: varlen, padded starts, seqused_k, paged KV,
// sliding window) on the simulator: facts checked on the bits (empty sequences, O = V of the
// diagonal key under window (0, 0), the visible key set of every row), equalities that must hold
// bit for bit (NaN vs zero unused cache slots, shuffled pages vs packed keys, varlen vs one
// dense dispatch per sequence), and the pass rule (reference::compare_varlen). The three
// feature mutants (WINDOW_OFF_BY_ONE, PAGE_INDEX_OFF_BY_ONE, VARLEN_GLOBAL_ALIGNMENT) must fail
// the visible-set check. Shapes are small: the simulator takes seconds per dispatch.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "device/attention_launcher.hpp"
#include "reference/attention/attention.hpp"
#include "reference/attention/inputs.hpp"
#include "reference/attention/varlen.hpp"
#include "reference/attention/varlen_inputs.hpp"
#include "simulator/schedule/simulator_executor.hpp"

namespace cdna::device {
namespace {

using reference::AttentionProblem;
using reference::AttentionShape;
using reference::Mask;
using reference::VarlenProblem;

constexpr std::uint16_t kNaN = 0x7FC0;
constexpr auto kRtne = numerics::Rounding::RTNE;

std::vector<std::byte> code(const std::string& name = "attention_fwd_rtne") {
  return read_file(std::filesystem::path(CDNA_CODE_OBJECT_DIR) / (name + ".hsaco"), "attention code object");
}

bool bf16_nan(std::uint16_t x) { return (x & 0x7F80) == 0x7F80 && (x & 0x7F) != 0; }

// The pass rule on a varlen output. A reference that does not yet take a feature of the problem
// (require_base_definition) makes the test an explicit skip, never a pass.
void expect_verdict_pass(const VarlenProblem& p, const AttentionOutput& out) {
  try {
    const auto exact = reference::varlen_forward_exact(p);
    const auto cmp = reference::compare_varlen(p, exact, out.o, out.lse, kRtne);
    EXPECT_TRUE(cmp.pass()) << cmp.first_failure;
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()).find("does not take") == std::string::npos) throw;
    GTEST_SKIP() << "the reference cannot judge this problem yet: " << e.what();
  }
}

// C05's shape: Sq_b 4, 4, 4 and Sk_b 0, 7, 0 (Hq = Hkv = 2, D 64). The rows of the sequences
// without keys are O = +0.0, LSE = -inf (docs/semantics.md §8); nothing is NaN or unwritten.
TEST(AttentionVarlen, SequencesWithoutKeysGiveZeroAndMinusInf) {
  const VarlenProblem p = reference::packed_varlen({1, 0, 0, 2, 2, 64}, Mask::None, {4, 4, 4}, {0, 7, 0}, 105);
  simulator::SimulatorExecutor ex;
  const AttentionOutput out = run_attention_varlen(ex, code(), p);
  const std::int64_t row = 2 * 64, rows = p.rows_q();
  for (std::int64_t r = 0; r < rows; ++r) {
    const bool empty = r < 4 || r >= 8;
    for (std::int64_t x = 0; x < row; ++x) {
      const std::uint16_t o = out.o[static_cast<std::size_t>(r * row + x)];
      EXPECT_FALSE(bf16_nan(o)) << "row " << r;
      if (empty) {
        EXPECT_EQ(o, 0x0000) << "row " << r << " element " << x;
      }
    }
    for (std::int64_t h = 0; h < 2; ++h) {
      const float l = out.lse[static_cast<std::size_t>(h * rows + r)];
      EXPECT_FALSE(std::isnan(l)) << "row " << r;
      if (empty) {
        EXPECT_EQ(l, -std::numeric_limits<float>::infinity()) << "row " << r;
      }
    }
  }
  expect_verdict_pass(p, out);
}

// C11's cache: used lengths 32, 64, 96, 48 of capacity 128 (Hq = Hkv = 4, D 128, Sq_b 16). The
// unused slots are never read: NaN there gives the bits of zeros there.
TEST(AttentionVarlen, PaddedCacheUnusedSlotsAreNeverRead) {
  const AttentionShape heads{1, 0, 0, 4, 4, 128};
  const std::vector<std::int32_t> sq{16, 16, 16, 16}, used{32, 64, 96, 48};
  const VarlenProblem nan = reference::padded_cache_varlen(heads, Mask::None, sq, used, 128, 111, kNaN);
  const VarlenProblem zero = reference::padded_cache_varlen(heads, Mask::None, sq, used, 128, 111, 0);
  simulator::SimulatorExecutor ex;
  const auto co = code();
  const AttentionOutput a = run_attention_varlen(ex, co, nan), b = run_attention_varlen(ex, co, zero);
  EXPECT_EQ(a.o, b.o);
  ASSERT_EQ(a.lse.size(), b.lse.size());
  for (std::size_t i = 0; i < a.lse.size(); ++i) EXPECT_EQ(std::bit_cast<std::uint32_t>(a.lse[i]), std::bit_cast<std::uint32_t>(b.lse[i])) << i;
  for (std::uint16_t o : a.o) ASSERT_FALSE(bf16_nan(o));
  expect_verdict_pass(nan, a);
}

// Keys in pages of 12 (not a multiple of the kernel's 16-key tile) under a shuffled block
// table, spare pages and unused slots NaN: the bits of the packed problem. Causal, so each
// sequence's own bottom-right alignment is exercised (Sq_b < Sk_b, Sq_b > Sk_b, Sk_b = 0).
TEST(AttentionVarlen, ShuffledPagesGiveThePackedBits) {
  const VarlenProblem packed =
      reference::packed_varlen({1, 0, 0, 2, 1, 64}, Mask::CausalBottomRight, {5, 17, 0, 9, 3}, {23, 40, 3, 0, 2}, 31);
  const VarlenProblem paged = reference::paged_from_packed(packed, 12, 3, 32, kNaN);
  ASSERT_NE(paged.block_table[0], 0);  // shuffled: the first page is not page 0
  simulator::SimulatorExecutor ex;
  const auto co = code();
  const AttentionOutput a = run_attention_varlen(ex, co, packed), b = run_attention_varlen(ex, co, paged);
  EXPECT_EQ(a.o, b.o);
  for (std::size_t i = 0; i < a.lse.size(); ++i) EXPECT_EQ(std::bit_cast<std::uint32_t>(a.lse[i]), std::bit_cast<std::uint32_t>(b.lse[i])) << i;
  expect_verdict_pass(paged, b);
}

// Padded query starts (AITER's group mode): the rows between sequences keep the launcher's
// sentinel, and each sequence's rows are the bits of a dense dispatch of that sequence alone.
TEST(AttentionVarlen, PaddedStartsEqualOneDenseRunPerSequence) {
  VarlenProblem p =
      reference::packed_varlen({1, 0, 0, 4, 2, 64}, Mask::CausalBottomRight, {3, 18, 1}, {20, 18, 33}, 41);
  // Query rows start at 0, 5 and 30 (2 and 7 and 3 rows of padding after the sequences).
  p.seqstart_q = {0, 5, 30, 34};
  p.q = reference::randn_bf16(static_cast<std::size_t>(34 * 4 * 64), 41);
  simulator::SimulatorExecutor ex;
  const auto co = code();
  const AttentionOutput out = run_attention_varlen(ex, co, p);
  for (std::int64_t b = 0; b < p.sequences(); ++b) {
    const AttentionOutput alone = run_attention(ex, co, reference::sequence_problem(p, b));
    std::vector<std::uint16_t> o;
    std::vector<float> lse;
    reference::gather_sequence(p, b, out.o, out.lse, o, lse);
    EXPECT_EQ(o, alone.o) << "sequence " << b;
    EXPECT_EQ(lse, alone.lse) << "sequence " << b;
  }
  for (std::int64_t r : {3, 4, 23, 29, 31, 33}) {
    for (std::int64_t x = 0; x < 4 * 64; ++x) ASSERT_EQ(out.o[static_cast<std::size_t>(r * 256 + x)], kUnwrittenO) << r;
    for (std::int64_t h = 0; h < 4; ++h)
      ASSERT_EQ(std::bit_cast<std::uint32_t>(out.lse[static_cast<std::size_t>(h * 34 + r)]), kUnwrittenLseBits) << r;
  }
  expect_verdict_pass(p, out);
}

// Window (0, 0): each row sees its diagonal key alone, P = 1 exactly, so O = V of that key bit
// for bit (and +0.0 where the diagonal is before key 0). Dense (Sq < Sk and Sq > Sk, both masks)
// and varlen with per-sequence diagonals.
TEST(AttentionVarlen, WindowZeroZeroIsTheDiagonalKeysV) {
  simulator::SimulatorExecutor ex;
  const auto co = code();
  for (const Mask mask : {Mask::None, Mask::CausalBottomRight}) {
    VarlenProblem p = reference::packed_varlen({1, 0, 0, 2, 1, 64}, mask, {20, 9, 6}, {37, 9, 2}, 51);
    p.base.window_left = p.base.window_right = 0;
    const AttentionOutput out = run_attention_varlen(ex, co, p);
    for (std::int64_t b = 0; b < p.sequences(); ++b) {
      const std::int64_t sq = p.seqlen_q(b), sk = p.seqlen_k(b);
      for (std::int64_t i = 0; i < sq; ++i) {
        const std::int64_t diag = i + sk - sq;
        for (std::int64_t h = 0; h < 2; ++h)
          for (std::int64_t d = 0; d < 64; ++d) {
            const std::uint16_t got = out.o[static_cast<std::size_t>((p.q_row(b, i) * 2 + h) * 64 + d)];
            const std::uint16_t want = diag < 0 ? 0 : p.v[static_cast<std::size_t>(p.k_row(b, diag) * 64 + d)];
            ASSERT_EQ(got, want) << "mask " << reference::to_string(mask) << " sequence " << b << " row " << i;
          }
      }
    }
    // The dense batch of the first sequence through run_attention (the extended kernel too).
    const AttentionProblem dense = reference::sequence_problem(p, 0);
    const AttentionOutput d = run_attention(ex, co, dense);
    for (std::int64_t i = 0; i < 20; ++i)
      for (std::int64_t x = 0; x < 128; ++x)
        ASSERT_EQ(d.o[static_cast<std::size_t>(i * 128 + x)], dense.v[static_cast<std::size_t>((i + 17) * 64 + x % 64)]);
  }
}

// The pass rule on windowed problems (random inputs, scale 1/sqrt(D)): window (0, 0), and
// windows with both masks on sequences of their own alignment.
TEST(AttentionVarlen, WindowedProblemsPassTheVerdict) {
  simulator::SimulatorExecutor ex;
  const auto co = code();
  for (const auto& [mask, left, right] : {std::tuple{Mask::None, 0, 0}, std::tuple{Mask::CausalBottomRight, 0, 0},
                                          std::tuple{Mask::None, 5, 3}, std::tuple{Mask::CausalBottomRight, 17, -1}}) {
    VarlenProblem p = reference::packed_varlen({1, 0, 0, 2, 1, 64}, mask, {20, 9, 6}, {37, 9, 2}, 53);
    p.base.window_left = left, p.base.window_right = right;
    SCOPED_TRACE(std::string(reference::to_string(mask)) + " window (" + std::to_string(left) + ", " +
                 std::to_string(right) + ")");
    expect_verdict_pass(p, run_attention_varlen(ex, co, p));
    if (IsSkipped()) return;
  }
}

// The visible set of every row, read off the bits: scale 0 (every visible key weighs 1) and V
// one-hot (key j's V is 1 in column j, 0 elsewhere), so O[i][d] != 0 exactly when key d is
// visible to row i. "" if every row's set is visible_range's, else the first difference.
std::string visible_set_mismatch(const VarlenProblem& p, const AttentionOutput& out) {
  const std::int64_t hq = p.base.shape.heads_q, d = p.base.shape.head_dim;
  for (std::int64_t b = 0; b < p.sequences(); ++b) {
    const AttentionProblem s = reference::sequence_problem(p, b);
    for (std::int64_t i = 0; i < s.shape.seqlen_q; ++i) {
      const reference::KeyRange r = reference::visible_range(s, i);
      for (std::int64_t h = 0; h < hq; ++h)
        for (std::int64_t j = 0; j < d; ++j) {
          const bool seen = out.o[static_cast<std::size_t>((p.q_row(b, i) * hq + h) * d + j)] != 0;
          const bool visible = j >= r.first && j < r.first + r.count;
          if (seen != visible) {
            return "sequence " + std::to_string(b) + " row " + std::to_string(i) + " head " + std::to_string(h) +
                   ": key " + std::to_string(j) + (seen ? " weighed" : " not weighed") + ", visible_range says " +
                   (visible ? "visible" : "invisible");
          }
        }
    }
  }
  return "";
}

// A varlen problem whose O shows each row's visible keys (visible_set_mismatch): Hq 2, Hkv 1,
// D 64, every Sk_b <= 64; scale 0, V one-hot.
VarlenProblem probe(Mask mask, std::int64_t left, std::int64_t right, const std::vector<std::int32_t>& sq,
                    const std::vector<std::int32_t>& sk) {
  VarlenProblem p = reference::packed_varlen({1, 0, 0, 2, 1, 64}, mask, sq, sk, 61);
  p.base.scale = 0.0f;
  p.base.window_left = left, p.base.window_right = right;
  for (std::int64_t b = 0; b < p.sequences(); ++b)
    for (std::int64_t j = 0; j < p.seqlen_k(b); ++j)
      for (std::int64_t x = 0; x < 64; ++x) p.v[static_cast<std::size_t>(p.k_row(b, j) * 64 + x)] = x == j ? 0x3F80 : 0;
  return p;
}

struct WindowCase {
  Mask mask;
  std::int64_t left, right;
};

// Windows with both masks, one or both sides bounded, on sequences of their own alignment
// (Sq_b < Sk_b, = and >), packed and in shuffled pages of 7 keys.
TEST(AttentionVarlen, WindowsShowExactlyTheVisibleKeys) {
  simulator::SimulatorExecutor ex;
  const auto co = code();
  const std::vector<std::int32_t> sq{7, 21, 30}, sk{50, 21, 12};
  for (const WindowCase& w : {WindowCase{Mask::None, 5, 3}, WindowCase{Mask::CausalBottomRight, 17, -1},
                              WindowCase{Mask::None, -1, 2}, WindowCase{Mask::CausalBottomRight, 0, 4},
                              WindowCase{Mask::None, -1, -1}}) {
    const VarlenProblem p = probe(w.mask, w.left, w.right, sq, sk);
    SCOPED_TRACE(std::string(reference::to_string(w.mask)) + " window (" + std::to_string(w.left) + ", " +
                 std::to_string(w.right) + ")");
    EXPECT_EQ(visible_set_mismatch(p, run_attention_varlen(ex, co, p)), "");
    const VarlenProblem paged = reference::paged_from_packed(p, 7, 1, 62, kNaN);
    EXPECT_EQ(visible_set_mismatch(paged, run_attention_varlen(ex, co, paged)), "");
  }
}

// The feature mutants fail the same check (each on the problem whose feature it breaks); the
// correct kernel passes it there (above).
TEST(AttentionVarlen, FeatureMutantsShowWrongVisibleKeys) {
  simulator::SimulatorExecutor ex;
  const VarlenProblem window = probe(Mask::CausalBottomRight, 5, -1, {20}, {40});
  const VarlenProblem varlen = probe(Mask::CausalBottomRight, -1, -1, {20, 4}, {20, 40});
  const VarlenProblem paged = reference::paged_from_packed(probe(Mask::None, -1, -1, {3}, {30}), 8, 0, 7, 0);
  const struct {
    const char* mutant;
    const VarlenProblem& problem;
  } cases[] = {{"window_off_by_one", window}, {"varlen_global_alignment", varlen}, {"page_index_off_by_one", paged}};
  for (const auto& c : cases) {
    const auto co = code(std::string("attention_fwd_mutant_") + c.mutant);
    EXPECT_NE(visible_set_mismatch(c.problem, run_attention_varlen(ex, co, c.problem)), "") << c.mutant;
    EXPECT_EQ(visible_set_mismatch(c.problem, run_attention_varlen(ex, code(), c.problem)), "") << c.mutant;
  }
}

// launch_attention's per-batch lengths (the property suite's varlen path): one length per batch,
// each within the batch's capacity, else one line naming the list; the rows past a batch's
// length are never written.
TEST(AttentionVarlen, StridedPerBatchLengths) {
  const AttentionProblem p = reference::randn_problem({2, 8, 20, 1, 1, 64}, Mask::CausalBottomRight, 71);
  std::vector<std::uint16_t> o(static_cast<std::size_t>(p.shape.o_elements()), kUnwrittenO);
  std::vector<float> lse(static_cast<std::size_t>(p.shape.lse_elements()), 0.0f);
  StridedAttention a;
  a.shape = p.shape, a.mask = p.mask, a.scale = p.scale, a.layout = contiguous_layout(p.shape);
  a.q = p.q, a.k = p.k, a.v = p.v, a.o = o, a.lse = lse;
  simulator::SimulatorExecutor ex;
  const auto co = code();
  const auto error = [&](std::vector<std::int32_t> q, std::vector<std::int32_t> k) -> std::string {
    a.seqlens_q = q, a.seqlens_k = k;
    try {
      launch_attention(ex, co, a);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(error({5}, {20, 3}), "seqlens_q has 1 lengths; B = 2 needs one per batch");
  EXPECT_EQ(error({5, 9}, {20, 3}), "seqlens_q holds 9; each length must be in [0, 8]");
  EXPECT_EQ(error({5, 8}, {20, -1}), "seqlens_k holds -1; each length must be in [0, 20]");
  ASSERT_EQ(error({5, 8}, {20, 3}), "");
  // Batch 0's rows 5..7 are never written; its rows 0..4 are those of the batch cut to 5 x 20.
  for (std::int64_t i = 5; i < 8; ++i) EXPECT_EQ(o[static_cast<std::size_t>(i * 64)], kUnwrittenO) << i;
  AttentionProblem first = p;
  first.shape = {1, 5, 20, 1, 1, 64};
  first.q.resize(5 * 64), first.k.resize(20 * 64), first.v.resize(20 * 64);
  const AttentionOutput alone = run_attention(ex, co, first);
  EXPECT_TRUE(std::equal(alone.o.begin(), alone.o.end(), o.begin()));
}

}  // namespace
}  // namespace cdna::device
