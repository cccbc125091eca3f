// The aiter-fmha-v3 adapter (adapters/aiter_fmha_v3.hpp) on AMD's shipped code objects in
// ../shared/peers/aiter-fmha-v3-gfx942: its rejections; the mode recorded by the kernel name
// (a file declared for another mode, an fp8 file refused); AITER run through the simulator and
// judged against the exact oracle (reference::compare_attention, compare_varlen) in all three
// modes, with and without the causal mask, GQA and B > 1, batch and group (varlen) mode, packed
// and with padded starts; the group mode's refusals (paged, seqused_k); and the findings of
// docs/peer-kernels.md that a later change of the kernel, the adapter or the simulator must not
// lose silently. Everything that needs the code objects skips with one line when the folder is
// absent.
#include "adapters/aiter_fmha_v3.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "reference/attention/compare.hpp"
#include "reference/attention/inputs.hpp"
#include "simulator/schedule/simulator_executor.hpp"

namespace cdna::adapters {
namespace {

using numerics::Rounding;
using reference::AttentionProblem;
using reference::Mask;

const std::filesystem::path kDir = peers_dir() / "aiter-fmha-v3-gfx942";

#define SKIP_WITHOUT_AITER()                 \
  if (!std::filesystem::exists(kDir / "fwd_hd128_bf16_rtne.co")) \
  GTEST_SKIP() << "skipped (not a pass): " << kDir.string() << " is absent (AITER's code objects)"

AttentionProblem problem(std::int64_t b, std::int64_t sq, std::int64_t sk, std::int64_t hq, std::int64_t hkv,
                         Mask mask, std::uint64_t seed) {
  return reference::randn_problem({b, sq, sk, hq, hkv, 128}, mask, seed);
}

// The simulator with the hazard policy `report`: AITER reads MFMA results and v_cmp masks
// sooner than LLVM's gfx940 wait states (docs/peer-kernels.md); the values as written are judged.
simulator::SimulatorExecutor reporting_simulator() {
  simulator::SimulatorExecutor ex;
  ex.options().hazard_policy = simulator::HazardPolicy::Report;
  return ex;
}

TEST(AiterAdapter, RejectsWhatTheKernelDoesNotTake) {
  AiterFmhaV3Adapter a;
  const auto why = [&](const AttentionProblem& p) { return a.unsupported_reason(p, Rounding::RTZ).value_or(""); };
  EXPECT_NE(why(reference::randn_problem({1, 8, 8, 1, 1, 64}, Mask::None, 1)).find("head dim D = 64"),
            std::string::npos);
  EXPECT_NE(why(problem(1, 8, 9, 1, 1, Mask::CausalTopLeft, 1)).find("causal_top_left"), std::string::npos);
  EXPECT_EQ(why(problem(1, 9, 9, 1, 1, Mask::CausalTopLeft, 1)), "");  // Sq = Sk: the same mask as bottom-right
  EXPECT_EQ(why(problem(2, 8, 8, 4, 2, Mask::CausalBottomRight, 1)), "");
}

TEST(AiterAdapter, ModeIsReadFromTheKernelName) {
  SKIP_WITHOUT_AITER();
  AiterFmhaV3Adapter a;
  EXPECT_EQ(a.load(Rounding::RTNA, kDir).size(), 4u);  // mask none and causal, batch and group mode
  try {
    a.load(Rounding::RTNE, kDir / "fwd_hd128_bf16_rtz.co");
    FAIL() << "an RTZ code object declared RTNE was taken";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("declared RTNE"), std::string::npos) << e.what();
  }
  EXPECT_THROW(a.load(Rounding::RTNE, kDir / "fwd_hd128_bf16_rtz_group.co"), std::runtime_error);  // another mode
  EXPECT_THROW(a.load(Rounding::RTNA, kDir / "fwd_hd128_fp8.co"), std::runtime_error);           // fp8
  // One file: only its mask is taken.
  AiterFmhaV3Adapter one;
  one.load(Rounding::RTZ, kDir / "fwd_hd128_bf16_rtz.co");
  EXPECT_NE(one.unsupported_reason(problem(1, 8, 8, 1, 1, Mask::CausalBottomRight, 1), Rounding::RTZ)
                .value_or("")
                .find("no batch-mode AITER code object with mask causal"),
            std::string::npos);
}

// Shapes across AITER's 256-row query tile and 32-key blocks, each mode: the oracle verdict.
TEST(AiterAdapter, PassesTheOracleInEveryMode) {
  SKIP_WITHOUT_AITER();
  AiterFmhaV3Adapter a;
  simulator::SimulatorExecutor ex = reporting_simulator();
  const AttentionProblem cases[] = {problem(1, 300, 300, 1, 1, Mask::None, 11),
                                    problem(1, 257, 100, 1, 1, Mask::CausalBottomRight, 12),
                                    problem(2, 40, 77, 4, 2, Mask::None, 13)};
  for (Rounding mode : numerics::kAllRoundings) {
    a.load(mode, kDir);
    for (const AttentionProblem& p : cases) {
      const auto out = a.run(ex, p, mode);
      const auto c = reference::compare_attention(p, reference::attention_forward_exact(p), out.o, out.lse, mode);
      EXPECT_TRUE(c.pass()) << numerics::to_string(mode) << " Sq " << p.shape.seqlen_q << " Sk " << p.shape.seqlen_k
                            << ": " << c.first_failure;
      EXPECT_GT(c.o_judged, 0);
      EXPECT_GT(c.lse_judged, 0);
    }
  }
}

// Sequences packed, (Sq_b, Sk_b) = (1, 256), (257, 300); or `gap` NaN rows after each sequence.
reference::VarlenProblem varlen(Mask mask, int gap, bool gqa) {
  reference::VarlenProblem v;
  v.base.shape = {2, 0, 0, 2, gqa ? 1 : 2, 128};
  v.base.mask = mask;
  v.base.scale = 1.0f / std::sqrt(128.0f);
  v.cu_seqlens_q = {0, 1, 258};
  v.cu_seqlens_k = {0, 256, 556};
  if (gap > 0) {
    v.seqstart_q = {0, 1 + gap, 258 + 2 * gap};
    v.seqstart_k = {0, 256 + gap, 556 + 2 * gap};
  }
  const std::size_t rq = 258 + 2 * static_cast<std::size_t>(gap), rk = 556 + 2 * static_cast<std::size_t>(gap);
  v.q = reference::randn_bf16(rq * 2 * 128, 21);
  v.k = reference::randn_bf16(rk * v.base.shape.heads_kv * 128, 22);
  v.v = reference::randn_bf16(rk * v.base.shape.heads_kv * 128, 23);
  if (gap > 0) {  // rows no sequence owns: NaN, never read
    for (std::size_t r : {1ul, 259ul + gap})
      for (std::size_t g = 0; g < static_cast<std::size_t>(gap); ++g)
        std::fill_n(v.q.begin() + static_cast<std::ptrdiff_t>((r + g) * 256), 256, 0x7FC0);
    const std::size_t wk = static_cast<std::size_t>(v.base.shape.heads_kv) * 128;
    for (std::size_t r : {256ul, 556ul + gap})
      for (std::size_t g = 0; g < static_cast<std::size_t>(gap); ++g) {
        std::fill_n(v.k.begin() + static_cast<std::ptrdiff_t>((r + g) * wk), wk, 0x7FC0);
        std::fill_n(v.v.begin() + static_cast<std::ptrdiff_t>((r + g) * wk), wk, 0x7FC0);
      }
  }
  return v;
}

TEST(AiterAdapter, GroupModePassesTheOracleInEveryMode) {
  SKIP_WITHOUT_AITER();
  AiterFmhaV3Adapter a;
  simulator::SimulatorExecutor ex = reporting_simulator();
  const reference::VarlenProblem cases[] = {varlen(Mask::None, 0, true), varlen(Mask::CausalBottomRight, 0, false),
                                            varlen(Mask::None, 3, false), varlen(Mask::CausalBottomRight, 3, true)};
  for (Rounding mode : numerics::kAllRoundings) {
    a.load(mode, kDir);
    for (const reference::VarlenProblem& v : cases) {
      ASSERT_FALSE(a.varlen_unsupported_reason(v, mode)) << *a.varlen_unsupported_reason(v, mode);
      const auto out = a.run_varlen(ex, v, mode);
      const auto c = reference::compare_varlen(v, reference::varlen_forward_exact(v), out.o, out.lse, mode);
      EXPECT_TRUE(c.pass()) << numerics::to_string(mode) << " mask " << reference::to_string(v.base.mask) << " padded "
                            << !v.seqstart_q.empty() << ": " << c.first_failure;
      EXPECT_GT(c.o_judged, 0);
      EXPECT_GT(c.lse_judged, 0);
    }
  }
}

TEST(AiterAdapter, GroupModeRefusesWhatItHasNoArgumentsFor) {
  SKIP_WITHOUT_AITER();
  AiterFmhaV3Adapter a;
  a.load(Rounding::RTNE, kDir);
  reference::VarlenProblem used = varlen(Mask::None, 0, false);
  used.seqused_k = {200, 300};
  EXPECT_NE(a.varlen_unsupported_reason(used, Rounding::RTNE).value_or("").find("seqused_k is not taken"), std::string::npos);
  reference::VarlenProblem d64 = varlen(Mask::None, 0, false);
  d64.base.shape.head_dim = 64;
  EXPECT_NE(a.varlen_unsupported_reason(d64, Rounding::RTNE).value_or("").find("head dim D = 64"), std::string::npos);
  // Only the batch-mode file given: a varlen problem is refused naming the group file.
  AiterFmhaV3Adapter batch_only;
  batch_only.load(Rounding::RTNE, kDir / "fwd_hd128_bf16_rtne.co");
  EXPECT_NE(batch_only.varlen_unsupported_reason(varlen(Mask::None, 0, false), Rounding::RTNE)
                .value_or("")
                .find("fwd_hd128_bf16_rtne_group.co"),
            std::string::npos);
}

// Findings (docs/peer-kernels.md, "AITER"): each is what the kernel does today.
TEST(AiterFinding, OutputDependsOnItsEarlyReadsUnderTheDifferentialPolicy) {
  SKIP_WITHOUT_AITER();
  AiterFmhaV3Adapter a;
  a.load(Rounding::RTZ, kDir);
  simulator::SimulatorExecutor ex;
  ex.options().hazard_policy = simulator::HazardPolicy::Differential;
  EXPECT_THROW(a.run(ex, problem(1, 300, 300, 1, 1, Mask::None, 21), Rounding::RTZ), std::runtime_error);
  bool changes = false, mfma_rule = false;
  for (const auto& v : ex.last_hazards()) {
    changes |= v.verdict == simulator::HazardViolation::Verdict::ChangesOutput;
    // Documented (issue 23 §3): the MFMA result read by v_max3_f32/v_cndmask early, ISA case 106;
    // the LLVM-only sites (v_cndmask select mask, M0 before the LDS DMA loads) never change the
    // verdict and are not judged.
    if (v.rule == "mfma-result-valu") {
      mfma_rule = true;
      EXPECT_NE(v.source.find("case 106"), std::string::npos) << v.source;
    }
    if (v.llvm_only) EXPECT_EQ(v.verdict, simulator::HazardViolation::Verdict::Reported) << simulator::describe(v);
  }
  EXPECT_TRUE(changes);
  EXPECT_TRUE(mfma_rule);
}

TEST(AiterFinding, NonPositiveScaleGivesNaN) {
  SKIP_WITHOUT_AITER();
  AiterFmhaV3Adapter a;
  a.load(Rounding::RTNE, kDir);
  simulator::SimulatorExecutor ex = reporting_simulator();
  AttentionProblem p = problem(1, 4, 4, 1, 1, Mask::None, 31);
  p.scale = -p.scale;
  const auto out = a.run(ex, p, Rounding::RTNE);
  EXPECT_TRUE(std::isnan(numerics::f32_from_bf16(out.o[0])));  // the definition: finite
}

// RTZ with one key: the maximum key's fused argument s·c − fl(s·c) is not 0, v_exp gives
// 1 − 2⁻²⁴ for some rows, RTZ truncates P to 1 − 2⁻⁸: O is not V bit for bit.
TEST(AiterFinding, RtzWithOneKeyIsNotVBitForBit) {
  SKIP_WITHOUT_AITER();
  AiterFmhaV3Adapter a;
  a.load(Rounding::RTZ, kDir);
  simulator::SimulatorExecutor ex = reporting_simulator();
  const AttentionProblem p = problem(1, 256, 1, 1, 1, Mask::None, 5000 + 42 * 10);
  const auto out = a.run(ex, p, Rounding::RTZ);
  int differ = 0;
  for (std::int64_t i = 0; i < 256; ++i)
    for (std::int64_t d = 0; d < 128; ++d) differ += out.o[static_cast<std::size_t>(i * 128 + d)] != p.v[static_cast<std::size_t>(d)];
  EXPECT_GT(differ, 0);
  a.load(Rounding::RTNE, kDir);  // RTNE rounds the same P back to 1
  const auto rtne = a.run(ex, p, Rounding::RTNE);
  for (std::int64_t i = 0; i < 256; ++i)
    for (std::int64_t d = 0; d < 128; ++d)
      ASSERT_EQ(rtne.o[static_cast<std::size_t>(i * 128 + d)], p.v[static_cast<std::size_t>(d)]) << i << " " << d;
}

}  // namespace
}  // namespace cdna::adapters
