// The property suite's adapter path (properties/kernel_under_test.hpp): the kernel selection
// from the environment, the skip when a kernel's folder is absent, run_through_adapter against
// the native strided path, a property failing and passing through an adapter, and a kernel
// without LSE judged on O alone.
#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>

#include "adapters/attention_fwd.hpp"
#include "properties/checks.hpp"
#include "properties/kernel_under_test.hpp"
#include "properties/layout_run.hpp"
#include "properties/values.hpp"
#include "audit/mutants/mutants.hpp"

namespace cdna::properties {
namespace {

using numerics::Rounding;

// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value, 1);
  }
  ~ScopedEnv() { old_ ? setenv(name_, old_->c_str(), 1) : unsetenv(name_); }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// B = 2, Sq = 20, Sk = 37 (a partial last 16-key tile), Hq = 2, Hkv = 1, D = 64, causal.
PropertyCase example_case(bool varlen) {
  PropertyCase c;
  c.problem.shape = {2, 20, 37, 2, 1, 64};
  c.problem.mask = reference::Mask::CausalBottomRight;
  c.problem.scale = 0.125f;
  c.mode = Rounding::RTNE;
  fill_values(c.problem, ValueKind::Randn, 7, 0);
  if (varlen) c.seqlens_q = {20, 7}, c.seqlens_k = {37, 17};
  return c;
}

// Our kernel behind the adapter interface, reporting no LSE (as MoonMath does), with an
// optional flipped O bit to show that O is still judged.
class NoLseAdapter : public adapters::AttentionFwdAdapter {
 public:
  bool corrupt_o = false;
  adapters::KernelFeatures features() const override {
    auto f = AttentionFwdAdapter::features();
    f.writes_lse = false;
    return f;
  }

 protected:
  device::AttentionOutput launch(device::Executor& e, const reference::AttentionProblem& p, Rounding m) override {
    device::AttentionOutput out = AttentionFwdAdapter::launch(e, p, m);
    out.lse.clear();
    if (corrupt_o && !out.o.empty()) out.o[0] ^= 0x0100;
    return out;
  }
};

TEST(PropertyKernelSelection, DefaultIsOursNative) {
  ScopedEnv a("CDNA_PROPERTY_KERNEL", ""), b("CDNA_PROPERTY_VIA_ADAPTER", "");
  const KernelSelection s = kernel_selection_from_env();
  EXPECT_EQ(s.name, "attention-fwd");
  EXPECT_FALSE(s.via_adapter);
}

TEST(PropertyKernelSelection, ForeignKernelAndForcedAdapterPath) {
  ScopedEnv a("CDNA_PROPERTY_KERNEL", "aiter-fmha-v3");
  EXPECT_TRUE(kernel_selection_from_env().via_adapter);
  ScopedEnv b("CDNA_PROPERTY_KERNEL", "attention-fwd"), c("CDNA_PROPERTY_VIA_ADAPTER", "1");
  EXPECT_TRUE(kernel_selection_from_env().via_adapter);
}

TEST(PropertyKernelSelection, BadVariablesAreRefusedWithTheValue) {
  {
    ScopedEnv a("CDNA_PROPERTY_KERNEL", "flash");
    try {
      kernel_selection_from_env();
      FAIL() << "an unknown kernel name was taken";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("'flash'"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("aiter-fmha-v3"), std::string::npos) << e.what();
    }
  }
  {
    ScopedEnv b("CDNA_PROPERTY_VIA_ADAPTER", "yes");
    EXPECT_THROW(kernel_selection_from_env(), std::invalid_argument);
  }
  {
    ScopedEnv b("CDNA_PROPERTY_HAZARDS", "ignore");
    EXPECT_THROW(kernel_selection_from_env(), std::invalid_argument);
  }
  {
    ScopedEnv b("CDNA_PROPERTY_HAZARDS", "report");
    EXPECT_EQ(kernel_selection_from_env().hazards, simulator::HazardPolicy::Report);
  }
  ScopedEnv c("CDNA_PROPERTY_MODE", "rtn");
  EXPECT_THROW(kernel_selection_from_env(), std::invalid_argument);
  ScopedEnv d("CDNA_PROPERTY_MODE", "rtz");
  EXPECT_EQ(kernel_selection_from_env().mode, Rounding::RTZ);
}

TEST(PropertyKernelSelection, AbsentSourceIsASkipReasonNamingIt) {
  KernelUnderTest absent({"aiter-fmha-v3", "/nonexistent/aiter-fmha-v3-gfx942", true});
  ASSERT_TRUE(absent.absent_reason().has_value());
  EXPECT_NE(absent.absent_reason()->find("/nonexistent/aiter-fmha-v3-gfx942"), std::string::npos);
  KernelUnderTest ours({"attention-fwd", CDNA_CODE_OBJECT_DIR, true});
  EXPECT_EQ(ours.absent_reason(), std::nullopt);
  // A source that exists (a build folder) does not hide an absent peer folder.
  KernelUnderTest no_peer({"attention-fwd", CDNA_CODE_OBJECT_DIR, true, "/nonexistent/moonmath-attention"});
  ASSERT_TRUE(no_peer.absent_reason().has_value());
  EXPECT_NE(no_peer.absent_reason()->find("/nonexistent/moonmath-attention"), std::string::npos);
}

// Rejections are the adapter's for the problems actually run: a varlen case by its sequences
// (AITER takes top-left only when Sq = Sk), a sequence with Sq_b = 0 not at all. Needs only the
// AITER code objects' metadata, no simulator run.
TEST(PropertyKernelSelection, VarlenRejectionIsBySequence) {
  KernelUnderTest aiter({"aiter-fmha-v3", "", true});
  if (const auto why = aiter.absent_reason()) GTEST_SKIP() << *why;
  PropertyCase c;
  c.problem.shape = {1, 5, 7, 1, 1, 128};
  c.problem.mask = reference::Mask::CausalTopLeft;
  fill_values(c.problem, ValueKind::Randn, 1, 0);
  EXPECT_TRUE(aiter.rejection(c).has_value()) << "Sq != Sk top-left taken";
  c.seqlens_q = {4}, c.seqlens_k = {4};
  EXPECT_EQ(aiter.rejection(c), std::nullopt) << "a square sequence refused";
  c.seqlens_q = {0}, c.seqlens_k = {3};
  EXPECT_EQ(aiter.rejection(c), std::nullopt) << "a sequence that is never run refused";
  c.seqlens_q = {4}, c.seqlens_k = {5};
  ASSERT_TRUE(aiter.rejection(c).has_value());
  EXPECT_NE(aiter.rejection(c)->find("varlen sequence alone"), std::string::npos) << *aiter.rejection(c);
}

// The Sk = 0 probe: ours takes it (so Sk = 0 stays drawn); a kernel that refuses it does not.
class NoKeysRefused : public adapters::AttentionFwdAdapter {
 protected:
  std::optional<std::string> unsupported_detail(const reference::AttentionProblem& p, Rounding m) const override {
    if (p.shape.seqlen_k == 0) return "Sk = 0 refused";
    return AttentionFwdAdapter::unsupported_detail(p, m);
  }
};

TEST(PropertyKernelSelection, SkZeroProbe) {
  KernelUnderTest ours({"attention-fwd", "", true});
  EXPECT_TRUE(ours.takes_no_keys());
  KernelUnderTest refusing({"attention-fwd", "", true}, std::make_unique<NoKeysRefused>());
  EXPECT_FALSE(refusing.takes_no_keys());
}

// The adapter path gives our kernel's native results bit for bit (contiguous BSHD; varlen as
// one run per sequence vs slices of shared buffers), and refuses a strided layout.
TEST(RunThroughAdapter, EqualsTheNativeContiguousRun) {
  simulator::SimulatorExecutor sim;
  KernelUnderTest ours({"attention-fwd", "", true});
  for (bool varlen : {false, true}) {
    const PropertyCase c = example_case(varlen);
    const LayoutRun native = run_in_layout(sim, correct_code_object(c.mode), c);
    const LayoutRun adapted = run_through_adapter(sim, ours.loaded(c.mode), c);
    EXPECT_EQ(first_bit_difference("O", native.out.o, adapted.out.o), "") << "varlen " << varlen;
    EXPECT_EQ(first_bit_difference("LSE", native.out.lse, adapted.out.lse), "") << "varlen " << varlen;
  }
  PropertyCase strided = example_case(false);
  strided.layout.row_pad = 4;
  EXPECT_THROW(run_through_adapter(sim, ours.loaded(strided.mode), strided), std::logic_error);
}

// A property fails through the adapter path on a wrong kernel and holds on ours.
TEST(RunThroughAdapter, OracleVerdictFailsForAMutantAndHoldsForOurs) {
  simulator::SimulatorExecutor sim;
  KernelUnderTest ours({"attention-fwd", "", true});
  KernelUnderTest mutant(
      {"attention-fwd", audit::mutant_code_object("DROP_LAST_KV_TILE", CDNA_CODE_OBJECT_DIR), true});
  const auto via = [&](KernelUnderTest& k) {
    return CheckContext{nullptr, &sim, [&k](Rounding m) -> adapters::KernelAdapter& { return k.loaded(m); }};
  };
  for (bool varlen : {false, true}) {
    const PropertyCase c = example_case(varlen);
    EXPECT_EQ(check_oracle_verdict(via(ours), c), "") << "varlen " << varlen;
    EXPECT_NE(check_oracle_verdict(via(mutant), c), "") << "varlen " << varlen;
  }
}

// A kernel without LSE: the checks judge O alone (no LSE compared, no out-of-range read), and a
// wrong O still fails.
TEST(RunThroughAdapter, KernelWithoutLseIsJudgedOnO) {
  simulator::SimulatorExecutor sim;
  NoLseAdapter no_lse;
  no_lse.load(Rounding::RTNE, "");
  const CheckContext ctx{nullptr, &sim, [&](Rounding) -> adapters::KernelAdapter& { return no_lse; }};
  PropertyCase c = example_case(true);
  EXPECT_TRUE(run_through_adapter(sim, no_lse, c).out.lse.empty());
  EXPECT_EQ(check_oracle_verdict(ctx, c), "");
  c = example_case(false);
  EXPECT_EQ(check_invisible_keys(ctx, c), "");
  PropertyCase nonfinite = c;
  fill_values(nonfinite.problem, ValueKind::NonFinite, 3, 0);
  EXPECT_EQ(check_nonfinite_inputs(ctx, nonfinite), "");
  no_lse.corrupt_o = true;
  EXPECT_NE(check_oracle_verdict(ctx, c), "");
}

}  // namespace
}  // namespace cdna::properties
