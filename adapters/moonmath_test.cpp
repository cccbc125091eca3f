// The moonmath adapter (adapters/moonmath.hpp): its rejections; the code objects built from
// ../shared/peers/moonmath-attention and the mode each records; the launch sequence MoonMath's
// host launcher would issue (recorded, not run); and MoonMath run through the simulator on small
// shapes in all three bf16 modes plus one tail-split shape, judged against the exact oracle with
// the pass rule (reference::compare_attention, no LSE given). Everything that needs MoonMath's
// sources skips with one line when the folder is absent.
#include "adapters/moonmath.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>

#include "adapters/moonmath_plan.hpp"
#include "reference/attention/compare.hpp"
#include "reference/attention/inputs.hpp"
#include "simulator/schedule/simulator_executor.hpp"

namespace cdna::adapters {
namespace {

using numerics::Rounding;
using reference::AttentionProblem;
using reference::Mask;

const std::filesystem::path kSources = peers_dir() / "moonmath-attention";

#define SKIP_WITHOUT_MOONMATH()                                                                    \
  if (!std::filesystem::exists(kSources / "attention_kernel.hip"))                                  \
  GTEST_SKIP() << "skipped (not a pass): " << kSources.string() << " is absent (MoonMath's sources)"

AttentionProblem problem(std::int64_t b, std::int64_t sq, std::int64_t sk, std::int64_t hq, std::int64_t hkv,
                         std::int64_t d, Mask mask, std::uint64_t seed) {
  return reference::randn_problem({b, sq, sk, hq, hkv, d}, mask, seed);
}

TEST(MoonmathAdapter, RejectsWhatTheKernelDoesNotTake) {
  MoonmathAdapter a;
  const auto why = [&](const AttentionProblem& p) { return a.unsupported_reason(p, Rounding::RTNE).value_or(""); };
  EXPECT_NE(why(problem(1, 8, 8, 1, 1, 64, Mask::None, 1)).find("head dim D = 64"), std::string::npos);
  EXPECT_NE(why(problem(1, 8, 8, 1, 1, 128, Mask::CausalBottomRight, 1)).find("mask causal"), std::string::npos);
  EXPECT_NE(why(problem(1, 8, 8, 2, 1, 128, Mask::None, 1)).find("no grouped-query attention"), std::string::npos);
  EXPECT_NE(why(problem(1, 8, 0, 1, 1, 128, Mask::None, 1)).find("Sk = 0"), std::string::npos);
  AttentionProblem negative = problem(1, 8, 8, 1, 1, 128, Mask::None, 1);
  negative.scale = -0.25f;
  EXPECT_NE(why(negative).find("< 0"), std::string::npos);
  negative.scale = -0.0f;  // equal to 0: every score times it is ±0, the maximum is right
  EXPECT_EQ(why(negative), "");
  EXPECT_EQ(why(problem(2, 8, 8, 3, 3, 128, Mask::None, 1)), "");  // and the taken shape passes
  EXPECT_THROW(a.run(*static_cast<device::Executor*>(nullptr), problem(1, 8, 8, 2, 1, 128, Mask::None, 1),
                     Rounding::RTNE),
               std::invalid_argument);  // refused before any launch
}

TEST(MoonmathAdapter, ScaleConstantIsOneProductWithFlLog2e) {
  // fl(σ · fl(log₂e)) for σ = fl(1/√128): within one ULP of the launcher's fl(fl(log₂e) / fl(√128)).
  const float sigma = static_cast<float>(1.0 / std::sqrt(128.0));
  const float ours = moonmath_scale_log2e(sigma), launcher = 1.4426950408889634f / std::sqrt(128.0f);
  EXPECT_LE(std::fabs(ours - launcher), std::nextafter(launcher, 1.f) - launcher);
  EXPECT_EQ(moonmath_scale_log2e(1.0f), 1.4426950408889634f);
  EXPECT_EQ(moonmath_scale_log2e(0.0f), 0.0f);
}

TEST(MoonmathAdapter, MissingSourcesAreNamed) {
  const std::string why = moonmath_missing_reason("/nonexistent/moonmath-attention", "/nonexistent/moonmath_rtz.hsaco");
  EXPECT_NE(why.find("folder '/nonexistent/moonmath-attention'"), std::string::npos) << why;
  EXPECT_EQ(why.find('\n'), std::string::npos);
  SKIP_WITHOUT_MOONMATH();
  EXPECT_NE(moonmath_missing_reason(kSources, "/nonexistent/moonmath_rtz.hsaco").find("not built"), std::string::npos);
  EXPECT_EQ(moonmath_missing_reason(kSources, std::filesystem::path(CDNA_MOONMATH_DIR) / "moonmath_rtz.hsaco"), "");
}

TEST(MoonmathAdapter, EachCodeObjectRecordsItsMode) {
  SKIP_WITHOUT_MOONMATH();
  for (Rounding built : numerics::kAllRoundings) {
    MoonmathAdapter a;
    const auto loaded = a.load(built, "");
    ASSERT_EQ(loaded.size(), 1u);
    EXPECT_TRUE(loaded[0].mode_recorded) << loaded[0].path;
    for (Rounding declared : numerics::kAllRoundings) {
      if (declared == built) continue;
      try {
        a.load(declared, loaded[0].path);
        ADD_FAILURE() << loaded[0].path << " was accepted as " << numerics::to_string(declared);
      } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("built for bf16 rounding " + std::string(numerics::to_string(built))),
                  std::string::npos)
            << e.what();
      }
    }
  }
}

// Records every dispatch instead of running it.
class RecordingExecutor : public device::Executor {
 public:
  std::string name() const override { return "recording"; }
  void run(std::span<const std::byte> code_object, const device::Dispatch& d) override {
    if (!co) co.emplace(simulator::CodeObject::load(code_object, "moonmath"));
    dispatches.push_back(d);
  }
  std::int32_t arg(std::size_t i, const std::string& name) const {  // a by-value int argument by name
    const device::Dispatch& d = dispatches.at(i);
    std::size_t k = 0;
    for (const auto& a : co->kernel(d.kernel).args) {
      if (a.is_hidden()) continue;
      if (a.name == name) {
        std::int32_t v;
        std::memcpy(&v, d.args.at(k).value.data(), 4);
        return v;
      }
      ++k;
    }
    throw std::runtime_error("no argument " + name);
  }
  std::optional<simulator::CodeObject> co;
  std::vector<device::Dispatch> dispatches;
};

std::vector<std::string> kernels(const RecordingExecutor& r) {
  std::vector<std::string> k;
  for (const auto& d : r.dispatches) k.push_back(d.kernel);
  return k;
}

TEST(MoonmathAdapter, LaunchSequenceAsItsLauncher) {
  SKIP_WITHOUT_MOONMATH();
  MoonmathAdapter a;
  a.load(Rounding::RTNE, "");
  using A = MoonmathAdapter;
  {  // dense: transpose, then one 2-D forward launch (q-blocks, B·H)
    RecordingExecutor r;
    a.run(r, problem(2, 400, 128, 3, 3, 128, Mask::None, 1), Rounding::RTNE);
    ASSERT_EQ(kernels(r), (std::vector<std::string>{A::kTransposeKernel, A::kDenseKernel}));
    EXPECT_EQ(r.dispatches[0].grid, (std::array<std::uint32_t, 3>{2 * 3 * 2, 1, 1}));
    EXPECT_EQ(r.dispatches[0].block, (std::array<std::uint32_t, 3>{256, 1, 1}));
    EXPECT_EQ(r.dispatches[1].grid, (std::array<std::uint32_t, 3>{2, 6, 1}));
    EXPECT_EQ(r.dispatches[1].block, (std::array<std::uint32_t, 3>{512, 1, 1}));
    EXPECT_EQ(r.arg(1, "grid_nqb"), 0);
    EXPECT_TRUE(r.dispatches[1].symbols.empty());
  }
  {  // B1 H1 Sq 384 Sk 3072: tail 1, G = 12, no prefix: transpose, split (12 parts), merge (48)
    RecordingExecutor r;
    a.run(r, problem(1, 384, 3072, 1, 1, 128, Mask::None, 1), Rounding::RTNE);
    ASSERT_EQ(kernels(r), (std::vector<std::string>{A::kTransposeKernel, A::kSplitKernel, A::kMergeKernel}));
    EXPECT_EQ(r.dispatches[1].grid[0], 12u);
    EXPECT_EQ(r.arg(1, "split_ways"), 12);
    EXPECT_EQ(r.arg(1, "grid_nqb"), 1);
    EXPECT_EQ(r.dispatches[2].grid[0], 48u);
    EXPECT_EQ(r.dispatches[2].block[0], 256u);
    for (std::size_t i : {1u, 2u}) {
      ASSERT_EQ(r.dispatches[i].symbols.size(), 1u);
      EXPECT_EQ(r.dispatches[i].symbols[0].symbol, A::kTailScheduleSymbol);
      EXPECT_EQ(r.dispatches[i].symbols[0].bytes.size(), 16u * (moonmath::kMaxParts + 1));
    }
  }
  {  // 305 q-blocks (Sq = 305·384) of one (b, h): a 1-D prefix of 304 workgroups first
    AttentionProblem p;  // zeros: only the launches are recorded
    p.shape = {1, 305 * 384, 3072, 1, 1, 128};
    p.q.assign(static_cast<std::size_t>(p.shape.q_elements()), 0);
    p.k.assign(static_cast<std::size_t>(p.shape.kv_elements()), 0);
    p.v = p.k;
    RecordingExecutor r;
    a.run(r, p, Rounding::RTNE);
    ASSERT_EQ(kernels(r), (std::vector<std::string>{A::kTransposeKernel, A::kDenseKernel, A::kSplitKernel,
                                                    A::kMergeKernel}));
    EXPECT_EQ(r.dispatches[1].grid, (std::array<std::uint32_t, 3>{304, 1, 1}));
    EXPECT_EQ(r.arg(1, "grid_nqb"), 305);
    EXPECT_EQ(r.dispatches[2].grid[0], 12u);
    EXPECT_TRUE(r.dispatches[1].symbols.empty());
  }
}

// Runs `p` through the simulator in `mode` and judges it (no LSE: MoonMath writes none). Under
// the default hazard policy every run stops at a wait-state violation in MoonMath's inline asm
// (MoonmathFinding below), so the output is judged under policy Report, which lets the reads see
// the new values, and the sites are listed.
void expect_pass(const AttentionProblem& p, Rounding mode, const char* name) {
  SCOPED_TRACE(std::string(name) + " " + std::string(numerics::to_string(mode)));
  MoonmathAdapter a;
  a.load(mode, "");
  simulator::SimulatorExecutor ex;
  ex.options().hazard_policy = simulator::HazardPolicy::Report;
  const device::AttentionOutput out = a.run(ex, p, mode);
  EXPECT_TRUE(out.lse.empty());
  const auto exact = reference::attention_forward_exact(p);
  const auto cmp = reference::compare_attention(p, exact, out.o, out.lse, mode, /*lse_given=*/false);
  EXPECT_TRUE(cmp.pass()) << cmp.first_failure << " (max ulp " << cmp.max_ulp_err_o << ")";
  std::printf("[ moonmath ] %s %s: %.3f of the bound, rel RMS %.3g (floor %.3g), %zu hazard sites reported\n", name,
              std::string(numerics::to_string(mode)).c_str(), cmp.max_err_to_bound_o, cmp.rel_rms_err_o,
              cmp.floor_rel_rms_o, ex.all_hazards().size());
}

class MoonmathOnSimulator : public ::testing::TestWithParam<Rounding> {};

TEST_P(MoonmathOnSimulator, SmallShapesPassTheOracle) {
  SKIP_WITHOUT_MOONMATH();
  expect_pass(problem(1, 300, 256, 1, 1, 128, Mask::None, 31), GetParam(), "1x300x256");
  expect_pass(problem(2, 40, 128, 2, 2, 128, Mask::None, 32), GetParam(), "2x40x128 H2");
}

// Finding (docs/peer-kernels.md): its V transpose writes ⌈Sk/64⌉·64 rows per (b, h) into a V_t of
// V's byte size (the launcher's contract), Sk rows per (b, h): past the end unless 64 | Sk.
TEST(MoonmathFinding, VTransposeWritesPastVtUnlessSkIsAMultipleOf64) {
  SKIP_WITHOUT_MOONMATH();
  MoonmathAdapter a;
  a.load(Rounding::RTZ, "");
  const auto first_error = [&](std::int64_t sk) -> std::string {
    simulator::SimulatorExecutor ex;
    ex.options().hazard_policy = simulator::HazardPolicy::Report;  // past the dense kernel's hazards
    try {
      a.run(ex, problem(1, 16, sk, 1, 1, 128, Mask::None, 34), Rounding::RTZ);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "";
  };
  const std::string e300 = first_error(300);
  EXPECT_NE(e300.find("v_transpose_kernel_16x16"), std::string::npos) << e300;
  EXPECT_NE(e300.find("outside every buffer (nearest: argument 1 ('V_t') (output) [0x"), std::string::npos) << e300;
  EXPECT_NE(e300.find(", +76800)"), std::string::npos) << e300;  // 300 rows × 128 × 2 bytes
  EXPECT_EQ(first_error(320), "");                                // 64 | Sk: the whole run goes through
}

// Finding (docs/peer-kernels.md): `buffer_load_dword ... offen lds` takes its SOFFSET from a
// v_readfirstlane_b32 one wait state earlier (LLVM asks 5): the default policy stops the run, and
// the differential policy finds that the stale SGPR would change the output.
TEST(MoonmathFinding, SgprReadByVmemOneWaitStateAfterAValuWrite) {
  SKIP_WITHOUT_MOONMATH();
  MoonmathAdapter a;
  a.load(Rounding::RTZ, "");
  const AttentionProblem p = problem(1, 16, 64, 1, 1, 128, Mask::None, 35);
  simulator::SimulatorExecutor ex;
  try {
    a.run(ex, p, Rounding::RTZ);
    ADD_FAILURE() << "the dense kernel ran without a wait-state error";
  } catch (const std::runtime_error& e) {
    // A documented hazard (issue 23 §3): named with its ISA case.
    EXPECT_NE(std::string(e.what()).find("rule valu-sgpr-vmem, CDNA3 ISA §4.5 table, case 10"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("offen lds"), std::string::npos) << e.what();
  }
  ex.options().hazard_policy = simulator::HazardPolicy::Differential;
  EXPECT_THROW(a.run(ex, p, Rounding::RTZ), std::runtime_error);
  bool changes = false;
  for (const auto& h : ex.last_hazards())
    changes |= h.rule == "valu-sgpr-vmem" && h.verdict == simulator::HazardViolation::Verdict::ChangesOutput;
  EXPECT_TRUE(changes) << ex.last_hazards().size() << " sites";
}

INSTANTIATE_TEST_SUITE_P(Modes, MoonmathOnSimulator, ::testing::ValuesIn(numerics::kAllRoundings),
                         [](const ::testing::TestParamInfo<Rounding>& mode) { return std::string(numerics::to_string(mode.param)); });

// All of its launches: V transpose, 12 split parts (tail_sched through the relocated GOT entry),
// 48 merge workgroups.
TEST(MoonmathTailSplit, OneStrandedQueryBlockPassesTheOracle) {
  SKIP_WITHOUT_MOONMATH();
  expect_pass(problem(1, 384, 3072, 1, 1, 128, Mask::None, 33), Rounding::RTNE, "1x384x3072 tail split");
}

}  // namespace
}  // namespace cdna::adapters
