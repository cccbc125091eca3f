// Properties of the extended definition (issue 12; properties/README.md "Feature properties").
//  (b) Metamorphic properties of the definition, on the MPFR oracle: a window past the
//      sequence is no window; a huge soft cap is no cap within the oracle's stated error; a
//      sink of -inf is no sink; paged equals packed and varlen equals each sequence alone, bit
//      for bit; a per-tensor fp8 descale 2^k scales the result exactly; Dv split into column
//      blocks gives the blocks' separate problems.
//  (a) Through our kernel on the simulator, what it takes: varlen (padded starts, used lengths,
//      lengths 0), paged KV with shuffled block tables and NaN-poisoned spare slots and pages,
//      and windows; each output passes reference::compare_varlen.
// RC_PARAMS sets the budgets (properties/CMakeLists.txt).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <optional>
#include <map>
#include <sstream>
#include <limits>

#include "device/attention_launcher.hpp"
#include "numerics/fp8.hpp"
#include "properties/feature_generators.hpp"
#include "properties/property_junit.hpp"
#include "properties/shard_argument.hpp"
#include "simulator/schedule/simulator_executor.hpp"
#include "audit/cases/audit_cases.hpp"

namespace cdna::properties {
namespace {

using reference::AttentionProblem;
using reference::AttentionResult;
using reference::VarlenProblem;

audit::CaseOutput exact(const AttentionProblem& p) {
  AttentionResult r = reference::attention_forward_exact(p);
  return {std::move(r.o), std::move(r.lse)};
}

audit::CaseOutput exact(const VarlenProblem& p) {
  AttentionResult r = reference::varlen_forward_exact(p);
  return {std::move(r.o), std::move(r.lse)};
}

template <class T>
std::string str(const T& x) {
  std::ostringstream o;
  o << x;
  return o.str();
}

std::string describe_dense(const AttentionProblem& p) {
  reference::VarlenProblem v = reference::as_varlen(p);
  return properties::describe(v);
}

CDNA_RC_GTEST_PROP(FeatureProperty, WindowPastTheSequenceIsNoWindow, ()) {
  FeatureSpec spec;
  spec.window = false, spec.softcap = spec.sinks = spec.dv = spec.fp8 = true;
  const AttentionProblem p = *gen_feature_problem(spec);
  AttentionProblem wide = p;
  const std::int64_t past = p.shape.seqlen_q + p.shape.seqlen_k;  // no diagonal is that far from a key
  wide.window_left = *rc::gen::element<std::int64_t>(-1, past, past + 3);
  wide.window_right = *rc::gen::element<std::int64_t>(-1, past, past + 3);
  RC_TAG(wide.window_left, wide.window_right);
  const std::string d = audit::bitwise_difference(exact(wide), exact(p));
  if (!d.empty()) RC_FAIL(d + " | " + describe_dense(wide));
}

// c · tanh(S / c) differs from S by at most |S|^3 / (3 c^2) (tanh x >= x - x^3/3 for x >= 0, and
// odd); with c = 1e30 and |S| < 2^40 that is below 1e-23. Each oracle O is the double nearest a
// value within exact_o_error_factor(n) · Σ P|V| <= factor · max|V| of its exact value (n visible
// keys; reference/attention/attention.hpp); a score change δ moves O by at most 2 δ max|V| (∂O/∂S_j =
// P_j (V_j − O)) and LSE by at most δ. Hence per element:
//   |O_cap − O| <= 2 · factor · max|V| + ulp(max(|O_cap|, |O|)) + 2 δ max|V|,
//   |LSE_cap − LSE| <= exact_lse_error(n, LSE_cap) + exact_lse_error(n, LSE) + ulp(...) + δ.
CDNA_RC_GTEST_PROP(FeatureProperty, HugeCapIsNoCapWithinTheOracleError, ()) {
  FeatureSpec spec;
  spec.sinks = spec.dv = true;
  const AttentionProblem p = *gen_feature_problem(spec);
  AttentionProblem capped = p;
  capped.softcap = 1e30f;
  const audit::CaseOutput a = exact(capped), b = exact(p);
  const auto& s = p.shape;
  const double delta = 1e-23;
  const auto ulp = [](double x, double y) {
    const double m = std::max(std::fabs(x), std::fabs(y));
    return m == 0 ? 0.0 : std::nextafter(m, INFINITY) - m;
  };
  for (std::int64_t bb = 0; bb < s.batch; ++bb)
    for (std::int64_t i = 0; i < s.seqlen_q; ++i) {
      const reference::KeyRange r = reference::visible_range(p, i);
      for (std::int64_t h = 0; h < s.heads_q; ++h) {
        const std::int64_t g = h / (s.heads_q / s.heads_kv);
        const std::size_t li = static_cast<std::size_t>((bb * s.heads_q + h) * s.seqlen_q + i);
        if (std::isfinite(b.lse[li]) || std::isfinite(a.lse[li])) {
          const double tol = reference::exact_lse_error(r.count, 128, a.lse[li]) +
                             reference::exact_lse_error(r.count, 128, b.lse[li]) + ulp(a.lse[li], b.lse[li]) + delta;
          RC_ASSERT(std::fabs(a.lse[li] - b.lse[li]) <= tol);
        } else {
          RC_ASSERT(a.lse[li] == b.lse[li]);
        }
        for (std::int64_t d = 0; d < s.dv(); ++d) {
          double max_v = 0;
          for (std::int64_t j = r.first; j < r.first + r.count; ++j)
            max_v = std::max(max_v, std::fabs(reference::element_value(
                                        p.dtype, p.v[static_cast<std::size_t>(((bb * s.seqlen_k + j) * s.heads_kv + g) * s.dv() + d)])));
          const std::size_t oi = static_cast<std::size_t>(((bb * s.seqlen_q + i) * s.heads_q + h) * s.dv() + d);
          const double tol = 2 * reference::exact_o_error_factor(r.count, 128) * max_v + ulp(a.o[oi], b.o[oi]) +
                             2 * delta * max_v;
          RC_ASSERT(std::fabs(a.o[oi] - b.o[oi]) <= tol);
        }
      }
    }
}

// Heads whose sink is -inf give exactly the output of the problem without sinks.
CDNA_RC_GTEST_PROP(FeatureProperty, MinusInfinitySinkIsNoSink, ()) {
  FeatureSpec spec;
  spec.softcap = spec.dv = true;
  AttentionProblem p = *gen_feature_problem(spec);
  AttentionProblem sunk = p;
  sunk.sinks.resize(static_cast<std::size_t>(p.shape.heads_q));
  for (float& x : sunk.sinks)
    x = *rc::gen::arbitrary<bool>() ? -std::numeric_limits<float>::infinity() : static_cast<float>(*rc::gen::inRange(-8, 9));
  const audit::CaseOutput a = exact(sunk), b = exact(p);
  const auto& s = p.shape;
  for (std::int64_t bb = 0; bb < s.batch; ++bb)
    for (std::int64_t i = 0; i < s.seqlen_q; ++i)
      for (std::int64_t h = 0; h < s.heads_q; ++h) {
        if (sunk.sinks[static_cast<std::size_t>(h)] != -INFINITY) continue;
        const std::size_t li = static_cast<std::size_t>((bb * s.heads_q + h) * s.seqlen_q + i);
        RC_ASSERT(std::memcmp(&a.lse[li], &b.lse[li], sizeof(double)) == 0 || (std::isnan(a.lse[li]) && std::isnan(b.lse[li])));
        for (std::int64_t d = 0; d < s.dv(); ++d) {
          const std::size_t oi = static_cast<std::size_t>(((bb * s.seqlen_q + i) * s.heads_q + h) * s.dv() + d);
          RC_ASSERT(std::memcmp(&a.o[oi], &b.o[oi], sizeof(double)) == 0 || (std::isnan(a.o[oi]) && std::isnan(b.o[oi])));
        }
      }
}

CDNA_RC_GTEST_PROP(FeatureProperty, PagedEqualsPackedBitForBit, ()) {
  FeatureSpec spec;
  spec.softcap = spec.sinks = spec.dv = spec.fp8 = true;
  const VarlenDraw d = *gen_varlen(spec);
  const std::string diff = audit::bitwise_difference(exact(d.paged), exact(d.packed));
  if (!diff.empty()) RC_FAIL(diff + " | " + describe(d.paged));
}

// Each sequence's rows of the varlen result are the dense result of that sequence drawn alone,
// bit for bit; rows no sequence owns are NaN.
CDNA_RC_GTEST_PROP(FeatureProperty, VarlenEqualsEachSequenceAlone, ()) {
  FeatureSpec spec;
  spec.softcap = spec.sinks = spec.dv = spec.fp8 = true;
  const VarlenDraw d = *gen_varlen(spec);
  const AttentionResult all = reference::varlen_forward_exact(d.packed);
  std::vector<bool> owned(static_cast<std::size_t>(d.packed.rows_q()), false);
  for (std::int64_t b = 0; b < d.packed.sequences(); ++b) {
    audit::CaseOutput got;
    reference::gather_sequence(d.packed, b, all.o, all.lse, got.o, got.lse);
    const std::string diff = audit::bitwise_difference(got, exact(d.sequences[static_cast<std::size_t>(b)]));
    if (!diff.empty()) RC_FAIL("sequence " + str(b) + ": " + diff + " | " + describe(d.packed));
    for (std::int64_t i = 0; i < d.packed.seqlen_q(b); ++i) owned[static_cast<std::size_t>(d.packed.q_row(b, i))] = true;
  }
  const std::int64_t row = d.packed.base.shape.heads_q * d.packed.base.shape.dv();
  for (std::size_t r = 0; r < owned.size(); ++r)
    if (!owned[r]) RC_ASSERT(std::isnan(all.o[r * static_cast<std::size_t>(row)]));
}

// Per-tensor descale factors 2^a, 2^b, 2^c: the scores are those of scale σ·2^(a+b) without
// descale (an exact fp32 product), and O is 2^c times that problem's O, exactly.
CDNA_RC_GTEST_PROP(FeatureProperty, Fp8PowerOfTwoDescaleScalesExactly, ()) {
  FeatureSpec spec;
  spec.window = spec.dv = true;
  AttentionProblem p = *gen_feature_problem(spec);
  p.dtype = *rc::gen::element(reference::ElementType::FP8_E4M3FNUZ, reference::ElementType::FP8_E5M2FNUZ);
  const auto kind = p.dtype == reference::ElementType::FP8_E4M3FNUZ ? numerics::Fp8Kind::Fp8 : numerics::Fp8Kind::Bf8;
  for (auto* t : {&p.q, &p.k, &p.v})
    for (std::uint16_t& x : *t) x = numerics::fp8_from_f32_rne(numerics::f32_from_bf16(x), kind);
  const int a = *rc::gen::inRange(-6, 7), b = *rc::gen::inRange(-6, 7), c = *rc::gen::inRange(-6, 7);
  AttentionProblem scaled = p;
  scaled.descale_q = {std::ldexp(1.0f, a)};
  scaled.descale_k = {std::ldexp(1.0f, b)};
  scaled.descale_v = {std::ldexp(1.0f, c)};
  p.scale = std::ldexp(p.scale, a + b);
  audit::CaseOutput want = exact(p);
  for (double& o : want.o) o = std::ldexp(o, c);
  const std::string diff = audit::bitwise_difference(exact(scaled), want);
  if (!diff.empty()) RC_FAIL(diff + " | a=" + str(a) + " b=" + str(b) + " c=" + str(c) + " " + describe_dense(scaled));
}

// V's Dv columns cut into blocks: block k's problem (same Q, K, features; V = those columns) has
// O = those columns of the whole O, and the same LSE, bit for bit.
CDNA_RC_GTEST_PROP(FeatureProperty, DvColumnBlocksAreSeparateProblems, ()) {
  FeatureSpec spec;
  spec.softcap = spec.sinks = spec.dv = spec.fp8 = true;
  const AttentionProblem p = *gen_feature_problem(spec);
  const auto& s = p.shape;
  const std::int64_t dv = s.dv();
  const std::int64_t cut = *rc::gen::inRange<std::int64_t>(1, dv);  // blocks [0, cut) and [cut, dv)
  const audit::CaseOutput whole = exact(p);
  for (auto [first, width] : {std::pair{std::int64_t{0}, cut}, std::pair{cut, dv - cut}}) {
    AttentionProblem block = p;
    block.shape.head_dim_v = width;
    block.v.clear();
    for (std::int64_t r = 0; r < s.batch * s.seqlen_k * s.heads_kv; ++r)
      for (std::int64_t d = first; d < first + width; ++d) block.v.push_back(p.v[static_cast<std::size_t>(r * dv + d)]);
    audit::CaseOutput want{{}, whole.lse};
    for (std::int64_t r = 0; r < s.batch * s.seqlen_q * s.heads_q; ++r)
      for (std::int64_t d = first; d < first + width; ++d) want.o.push_back(whole.o[static_cast<std::size_t>(r * dv + d)]);
    const std::string diff = audit::bitwise_difference(exact(block), want);
    if (!diff.empty()) RC_FAIL("columns " + str(first) + ".." + str(first + width - 1) + ": " + diff + " | " + describe_dense(p));
  }
}

// Our kernel on varlen, paged and windowed problems (the features it takes): the pass rule.
const std::vector<std::byte>& ours(numerics::Rounding mode) {
  static std::map<numerics::Rounding, std::vector<std::byte>> bytes;
  auto& b = bytes[mode];
  if (b.empty()) b = device::read_file(device::attention_code_object(mode), "attention code object");
  return b;
}

// The kernel property on the code objects `code` gives per mode (`mode`: one fixed mode, for a
// mutant built in RTNE only).
using CodeObjects = std::function<const std::vector<std::byte>&(numerics::Rounding)>;
void kernel_passes(const CodeObjects& code, std::optional<numerics::Rounding> mode) {
  FeatureSpec spec;
  spec.top_left = false;  // attn_fwd takes none and causal bottom-right
  VarlenDraw d = *gen_varlen(spec);
  if (mode) d.mode = *mode;
  const VarlenProblem& p = *rc::gen::element(d.packed, d.paged);
  if (const auto why = device::attention_unsupported_reason(p)) RC_FAIL("attn_fwd rejects a problem of its features: " + *why);
  // A verdict over nothing is not a pass: a draw without a query row is discarded (RapidCheck
  // counts discards and gives up, failing, if there are too many).
  std::int64_t rows = 0;
  for (std::int64_t b = 0; b < p.sequences(); ++b) rows += p.seqlen_q(b);
  RC_PRE(rows > 0);
  RC_TAG(p.paged() ? "paged" : "packed", p.base.window_left != -1 || p.base.window_right != -1 ? "window" : "no window");
  simulator::SimulatorExecutor sim;
  const device::AttentionOutput out = device::run_attention_varlen(sim, code(d.mode), p);
  const AttentionResult ex = reference::varlen_forward_exact(p);
  const reference::AttentionComparison c = reference::compare_varlen(p, ex, out.o, out.lse, d.mode);
  if (!c.pass()) RC_FAIL(c.first_failure + " | " + str(numerics::to_string(d.mode)) + " " + describe(p));
  // Every query row is judged, and rows no sequence owns keep the launcher's sentinels.
  RC_ASSERT(c.o_judged == rows * p.base.shape.heads_q * p.base.shape.dv());
  std::vector<bool> owned(static_cast<std::size_t>(p.rows_q()), false);
  for (std::int64_t b = 0; b < p.sequences(); ++b)
    for (std::int64_t i = 0; i < p.seqlen_q(b); ++i) owned[static_cast<std::size_t>(p.q_row(b, i))] = true;
  const std::size_t row = static_cast<std::size_t>(p.base.shape.heads_q * p.base.shape.dv());
  for (std::size_t r = 0; r < owned.size(); ++r) {
    if (owned[r]) continue;
    for (std::size_t x = 0; x < row; ++x) RC_ASSERT(out.o[r * row + x] == device::kUnwrittenO);
    for (std::int64_t h = 0; h < p.base.shape.heads_q; ++h) {
      std::uint32_t bits;
      std::memcpy(&bits, &out.lse[static_cast<std::size_t>(h) * owned.size() + r], 4);
      RC_ASSERT(bits == device::kUnwrittenLseBits);
    }
  }
}

// Dense problems with windows (sides -1, 0, small, past the sequence) through run_attention:
// compare_attention passes.
CDNA_RC_GTEST_PROP(FeatureProperty, KernelPassesOnDenseWindows, ()) {
  FeatureSpec spec;
  spec.top_left = false;
  AttentionProblem p = *gen_feature_problem(spec);
  if (p.window_left == -1 && p.window_right == -1) p.window_left = *rc::gen::inRange<std::int64_t>(0, 6);
  const auto mode = *rc::gen::element(numerics::Rounding::RTNE, numerics::Rounding::RTNA, numerics::Rounding::RTZ);
  if (const auto why = device::attention_unsupported_reason(p)) RC_FAIL("attn_fwd rejects a problem of its features: " + *why);
  simulator::SimulatorExecutor sim;
  const device::AttentionOutput out = device::run_attention(sim, ours(mode), p);
  const reference::AttentionComparison c =
      reference::compare_attention(p, reference::attention_forward_exact(p), out.o, out.lse, mode);
  if (!c.pass()) RC_FAIL(c.first_failure + " | " + str(numerics::to_string(mode)) + " " + describe_dense(p));
  RC_ASSERT(c.o_judged == p.shape.o_elements());
}

CDNA_RC_GTEST_PROP(FeatureProperty, KernelPassesOnVarlenPagedAndWindows, ()) {
  kernel_passes(ours, std::nullopt);
}

// The property fails on each feature mutant of the kernel (device/CMakeLists.txt): a window one
// key off, a page index off by one, causal alignment from the longest sequence.
TEST(FeatureProperty, KernelPropertyKillsTheFeatureMutants) {
  for (const char* name : {"window_off_by_one", "page_index_off_by_one", "varlen_global_alignment"}) {
    const std::vector<std::byte> bytes = device::read_file(
        std::filesystem::path(CDNA_CODE_OBJECT_DIR) / ("attention_fwd_mutant_" + std::string(name) + ".hsaco"), "mutant");
    const CodeObjects mutant = [&](numerics::Rounding) -> const std::vector<std::byte>& { return bytes; };
    EXPECT_FALSE(rc::check(std::string("mutant ") + name, [&] { kernel_passes(mutant, numerics::Rounding::RTNE); }))
        << name << " survived the property";
  }
}

}  // namespace
}  // namespace cdna::properties

// `--junit FILE` (properties/property_junit.hpp): the Kernel* properties run our kernel, the
// others the MPFR oracle alone (classname cdna-verify.property.attention-fwd / .oracle).
int main(int argc, char** argv) {
  if (!cdna::properties::take_shard_argument(argc, argv)) return 2;  // --shard I/N (shard_argument.hpp)
  ::testing::InitGoogleTest(&argc, argv);
  const auto kernel_of = [](const ::testing::TestInfo& info) {
    return std::string(info.name()).starts_with("Kernel") ? "attention-fwd" : "oracle";
  };
  if (const int rc = cdna::properties::setup_junit(argc, argv, kernel_of)) return rc;
  return cdna::properties::finish_junit(cdna::properties::nothing_ran_is_not_a_pass(RUN_ALL_TESTS(), argv[0]));
}
