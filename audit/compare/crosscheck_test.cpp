// The bitwise comparison of `cdna-verify crosscheck` (audit/compare/crosscheck.hpp): equal outputs, the
// first differing element of O and of LSE with its multi-index, NaN payloads, size mismatches.
#include "audit/compare/crosscheck.hpp"

#include <gtest/gtest.h>

#include "simulator/schedule/simulator_executor.hpp"
#include "audit/golden/golden_kernel.hpp"

#include <bit>
#include <cmath>
#include <stdexcept>

namespace cdna::audit {
namespace {

// O [1,2,2,3] (12 bf16 values), LSE [1,2,2].
device::AttentionOutput sample() {
  device::AttentionOutput out;
  for (int i = 0; i < 12; ++i) out.o.push_back(static_cast<std::uint16_t>(0x3f80 + i));  // 1, 1.0078125, ...
  out.lse = {0.5f, -1.25f, 2.0f, 3.0f};
  return out;
}
const std::vector<std::int64_t> kO{1, 2, 2, 3}, kLse{1, 2, 2};

TEST(Crosscheck, EqualOutputsAreEqual) {
  const OutputComparison c = compare_outputs(sample(), sample(), kO, kLse);
  EXPECT_TRUE(c.equal());
  EXPECT_EQ(c.elements, 16);
  EXPECT_FALSE(c.first.has_value());
  EXPECT_EQ(describe(c), "bitwise equal (16 elements)");
}

TEST(Crosscheck, FirstDifferenceIsNamedWithItsIndexBitsAndValues) {
  device::AttentionOutput b = sample();
  b.o[7] = 0x3f81;   // [0,1,0,1]: 0x3f87 (1.0546875) -> 0x3f81 (1.0078125)
  b.o[10] = 0x0000;  // a second difference, counted but not first
  b.lse[3] = std::nextafter(3.0f, 4.0f);
  const OutputComparison c = compare_outputs(sample(), b, kO, kLse);
  EXPECT_FALSE(c.equal());
  EXPECT_EQ(c.differing, 3);
  ASSERT_TRUE(c.first.has_value());
  EXPECT_EQ(c.first->tensor, "o");
  EXPECT_EQ(c.first->flat_index, 7);
  EXPECT_EQ(c.first->index, "[0,1,0,1]");
  EXPECT_EQ(c.first->bits_a, 0x3f87u);
  EXPECT_EQ(c.first->value_b, 1.0078125);
  EXPECT_EQ(describe(c), "3 of 16 differ; first o[0,1,0,1] 0x3f87 (1.0546875) vs 0x3f81 (1.0078125)");
}

TEST(Crosscheck, LseDifferenceAndNanPayloadsCountAsDifferent) {
  device::AttentionOutput a = sample(), b = sample();
  a.lse[2] = std::bit_cast<float>(0x7fc00000u);
  b.lse[2] = std::bit_cast<float>(0x7fc00001u);  // another NaN: different bits
  const OutputComparison c = compare_outputs(a, b, kO, kLse);
  ASSERT_EQ(c.differing, 1);
  EXPECT_EQ(c.first->tensor, "lse");
  EXPECT_EQ(c.first->index, "[0,1,0]");
  EXPECT_EQ(describe(c), "1 of 16 differ; first lse[0,1,0] 0x7fc00000 (nan) vs 0x7fc00001 (nan)");
  // The same NaN bits on both sides are equal.
  EXPECT_TRUE(compare_outputs(a, a, kO, kLse).equal());
}

TEST(Crosscheck, KernelWithoutLseComparesOnlyO) {
  device::AttentionOutput a = sample();
  a.lse.clear();
  EXPECT_EQ(compare_outputs(a, a, kO, kLse).elements, 12);
}

TEST(Crosscheck, SizesThatDisagreeWithTheShapeThrow) {
  device::AttentionOutput b = sample();
  b.o.pop_back();
  EXPECT_THROW(compare_outputs(sample(), b, kO, kLse), std::invalid_argument);
  EXPECT_THROW(compare_outputs(sample(), sample(), {1, 2, 2, 4}, kLse), std::invalid_argument);
}

// Our kernel in a golden file's own layout gives the bits of the same problem run contiguous (BSHD,
// through the adapter): the layout moves elements, never changes them (properties/README.md,
// padding_irrelevant). Both committed layout files: BHSD and explicit strides with gaps.
TEST(Crosscheck, OursInTheFilesLayoutEqualsBshd) {
  simulator::SimulatorExecutor sim;
  for (const char* name : {"X09-layout-bhsd.rtne.safetensors", "X10-strided.rtne.safetensors"}) {
    const golden::GoldenFile g = golden::read_golden(std::string(CDNA_GOLDEN_SET_DIR) + "/" + name);
    ASSERT_NE(g.layout.name, "bshd") << name;
    golden::GoldenFile bshd = g;
    bshd.layout = golden::Layout{};
    CodeObjects code;
    ASSERT_FALSE(golden_kernel_reason(bshd, code).has_value()) << name;
    const device::AttentionOutput contiguous = run_golden_kernel(bshd, sim, code);
    const device::AttentionOutput strided = run_ours_in_layout(g, sim);
    const OutputComparison c = compare_outputs(contiguous, strided, g.o_shape(), g.lse_shape());
    EXPECT_TRUE(c.equal()) << name << ": " << describe(c);
    EXPECT_GT(c.elements, 0) << name;
  }
}

TEST(Crosscheck, LayoutRunRefusesAnOddDStride) {
  simulator::SimulatorExecutor sim;
  golden::GoldenFile g = golden::read_golden(std::string(CDNA_GOLDEN_SET_DIR) + "/X10-strided.rtne.safetensors");
  g.layout.q[3] = 2;
  EXPECT_THROW(run_ours_in_layout(g, sim), std::invalid_argument);
}

}  // namespace
}  // namespace cdna::audit
