// The attention kernel (device/kernels/attention_fwd.hip) on the simulator, in all three bf16
// modes, on the non-finite classes of docs/semantics.md §5: +inf scores (one, several, with a
// NaN score), −inf scores, and NaN/inf V of keys that some rows of a 16-row tile cannot see
// (issue 9 §2 and §3). Each expected value is the definition's, checked on the bits directly,
// and the pass rule (reference::compare_attention) judges every case too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "device/attention_launcher.hpp"
#include "reference/attention/attention.hpp"
#include "reference/attention/compare.hpp"
#include "reference/attention/inputs.hpp"
#include "simulator/schedule/simulator_executor.hpp"

namespace cdna::device {
namespace {

using reference::AttentionProblem;
using reference::Mask;

constexpr std::uint16_t kPosInf = 0x7F80, kNegInf = 0xFF80, kNaN = 0x7FC0, kOne = 0x3F80;
constexpr std::uint16_t kHuge = 0x7F00, kNegHuge = 0xFF00;  // ±2^127

bool is_nan(std::uint16_t x) { return (x & 0x7F80) == 0x7F80 && (x & 0x7F) != 0; }

// B = 1, Hq = Hkv = 1: Q and K zero, V randn (seed 5), scale 2^-3 (issue 9 §2's instance).
AttentionProblem problem(std::int64_t sq, std::int64_t sk, std::int64_t d, Mask mask) {
  AttentionProblem p;
  p.shape = {1, sq, sk, 1, 1, d};
  p.mask = mask;
  p.scale = 0x1p-3f;
  reference::fill_randn(p, 5);
  std::fill(p.q.begin(), p.q.end(), 0);
  std::fill(p.k.begin(), p.k.end(), 0);
  return p;
}
std::uint16_t& at(std::vector<std::uint16_t>& t, const AttentionProblem& p, std::int64_t row,
                  std::int64_t d) {
  return t[static_cast<std::size_t>(row * p.shape.head_dim + d)];
}
void set_row(std::vector<std::uint16_t>& t, const AttentionProblem& p, std::int64_t row, std::uint16_t x) {
  for (std::int64_t d = 0; d < p.shape.head_dim; ++d) at(t, p, row, d) = x;
}

class AttentionNonFinite : public ::testing::TestWithParam<numerics::Rounding> {
 protected:
  AttentionOutput run(const AttentionProblem& p) {
    const auto co = read_file(attention_code_object(GetParam()), "attention code object");
    return run_attention(ex_, co, p);
  }
  // The pass rule (reference::compare_attention, which judges ±inf scores by the definition).
  void expect_pass(const AttentionProblem& p, const AttentionOutput& out) {
    const auto exact = reference::attention_forward_exact(p);
    const auto cmp = reference::compare_attention(p, exact, out.o, out.lse, GetParam());
    EXPECT_TRUE(cmp.pass()) << cmp.first_failure;
  }
  simulator::SimulatorExecutor ex_;
};

// Q = (1, 0, …): key j's score is K[j][0] · 2^-3, +inf for K[j][0] = +inf.
AttentionProblem inf_score_problem(std::int64_t sk, std::int64_t d) {
  auto p = problem(1, sk, d, Mask::None);
  at(p.q, p, 0, 0) = kOne;
  for (std::int64_t j = 0; j < sk; ++j) at(p.k, p, j, 0) = kOne;
  return p;
}

// §5.6, one +inf score: O = V of that key (NaN and inf entries included), LSE = +inf; the
// other keys weigh 0, their NaN/inf V entries included.
TEST_P(AttentionNonFinite, OneInfScoreGivesThatKeysVAndInfLse) {
  struct Case {
    std::int64_t sk, d, inf_key;
  };
  for (const Case c : {Case{2, 64, 0}, Case{2, 128, 1}, Case{40, 64, 35}, Case{40, 128, 17}}) {
    SCOPED_TRACE("Sk " + std::to_string(c.sk) + " D " + std::to_string(c.d) + " +inf key " +
                 std::to_string(c.inf_key));
    auto p = inf_score_problem(c.sk, c.d);
    at(p.k, p, c.inf_key, 0) = kPosInf;
    at(p.v, p, c.inf_key, 5) = kPosInf;
    at(p.v, p, c.inf_key, 6) = kNaN;
    at(p.v, p, c.inf_key, 7) = kNegInf;
    const std::int64_t other = c.inf_key == 0 ? 1 : 0;  // weight 0; before the +inf key if 1
    at(p.v, p, other, 9) = kNaN;
    at(p.v, p, other, 10) = kPosInf;
    const auto out = run(p);
    for (std::int64_t d = 0; d < c.d; ++d) {
      const std::uint16_t want = at(p.v, p, c.inf_key, d);
      if (d == 6) {
        EXPECT_TRUE(is_nan(out.o[d])) << "d " << d;
      } else {
        EXPECT_EQ(out.o[d], want) << "d " << d;
      }
    }
    EXPECT_EQ(out.lse[0], INFINITY);
    expect_pass(p, out);
  }
}

// §5.6, two or more +inf scores: O = NaN, LSE = +inf; with a NaN score anywhere (§5.4): O and
// LSE NaN, whichever tile the NaN and the +inf are in.
TEST_P(AttentionNonFinite, SeveralInfScoresGiveNaNAndNaNScoresWin) {
  struct Case {
    std::int64_t inf_a, inf_b, nan_key;  // nan_key < 0: none
  };
  for (const Case c : {Case{0, 1, -1}, Case{3, 30, -1}, Case{0, -1, 1}, Case{20, -1, 0}, Case{0, -1, 33}}) {
    SCOPED_TRACE("+inf keys " + std::to_string(c.inf_a) + ", " + std::to_string(c.inf_b) +
                 ", NaN key " + std::to_string(c.nan_key));
    auto p = inf_score_problem(40, 64);
    at(p.k, p, c.inf_a, 0) = kPosInf;
    if (c.inf_b >= 0) at(p.k, p, c.inf_b, 0) = kPosInf;
    if (c.nan_key >= 0) at(p.k, p, c.nan_key, 3) = kNaN;
    const auto out = run(p);
    for (std::int64_t d = 0; d < 64; ++d) EXPECT_TRUE(is_nan(out.o[d])) << "d " << d << ": " << out.o[d];
    if (c.nan_key >= 0) {
      EXPECT_TRUE(std::isnan(out.lse[0])) << out.lse[0];
    } else {
      EXPECT_EQ(out.lse[0], INFINITY);
    }
    expect_pass(p, out);
  }
}

// §5.5: −inf scores weigh 0 (their V's NaN/inf too); all −inf is a row without keys: O = +0.0,
// LSE = −inf. Mixed with finite scores: the bits of the same case with those keys' V set to 0,
// which passes the oracle.
TEST_P(AttentionNonFinite, MinusInfScoresWeighZero) {
  auto all = inf_score_problem(20, 64);
  for (std::int64_t j = 0; j < 20; ++j) at(all.k, all, j, 0) = kNegInf;
  set_row(all.v, all, 0, kNaN);
  set_row(all.v, all, 17, kPosInf);
  const auto out = run(all);
  for (std::int64_t d = 0; d < 64; ++d) EXPECT_EQ(out.o[d], 0u) << "d " << d;
  EXPECT_EQ(out.lse[0], -INFINITY);

  auto mixed = inf_score_problem(20, 128);
  at(mixed.k, mixed, 2, 0) = kNegInf;
  at(mixed.k, mixed, 18, 0) = kNegInf;
  auto clean = mixed;
  set_row(mixed.v, mixed, 2, kNaN);
  set_row(mixed.v, mixed, 18, kNegInf);
  const auto got = run(mixed);
  const auto want = run(clean);
  EXPECT_EQ(got.o, want.o);
  EXPECT_EQ(std::memcmp(got.lse.data(), want.lse.data(), sizeof(float)), 0);
  expect_pass(mixed, got);
  expect_pass(all, out);
}

// §5.2 (issue 9 §3): V of a key that some rows of a tile see and others cannot. Causal, key 3
// (and its mirror cases for Sq < Sk and Sq > Sk) filled with NaN, ±inf or ±2^127: the rows that
// cannot see it are bitwise the rows of the case with that V row zero; the rows that see it get
// NaN/±inf columns as the definition says; everything passes the oracle.
TEST_P(AttentionNonFinite, InvisibleVHasNoEffect) {
  struct Case {
    std::int64_t sq, sk, key;
  };
  for (const Case c : {Case{16, 16, 3}, Case{8, 24, 18}, Case{24, 8, 3}, Case{20, 20, 17}}) {
    for (const std::uint16_t x : {kNaN, kPosInf, kNegInf, kHuge, kNegHuge}) {
      SCOPED_TRACE("Sq " + std::to_string(c.sq) + " Sk " + std::to_string(c.sk) + " key " +
                   std::to_string(c.key) + " V = " + std::to_string(x));
      auto clean = problem(c.sq, c.sk, 64, Mask::CausalBottomRight);
      reference::fill_randn(clean, 7);
      auto poisoned = clean;
      set_row(poisoned.v, poisoned, c.key, x);
      const auto got = run(poisoned);
      const auto zero = [&] {
        auto z = clean;
        set_row(z.v, z, c.key, 0);
        return run(z);
      }();
      for (std::int64_t i = 0; i < c.sq; ++i) {
        const bool sees = reference::key_visible(Mask::CausalBottomRight, i, c.key, c.sq, c.sk);
        for (std::int64_t d = 0; d < 64; ++d) {
          const std::uint16_t o = got.o[static_cast<std::size_t>(i * 64 + d)];
          if (!sees) {
            ASSERT_EQ(o, zero.o[static_cast<std::size_t>(i * 64 + d)]) << "row " << i << " d " << d;
          } else if (x == kNaN) {
            ASSERT_TRUE(is_nan(o)) << "row " << i << " d " << d;
          } else if (x == kPosInf || x == kNegInf) {
            ASSERT_EQ(o, x) << "row " << i << " d " << d;
          }
        }
      }
      expect_pass(poisoned, got);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, AttentionNonFinite, ::testing::ValuesIn(numerics::kAllRoundings),
                         [](const ::testing::TestParamInfo<numerics::Rounding>& p) {
                           return std::string(numerics::to_string(p.param));
                         });

}  // namespace
}  // namespace cdna::device
