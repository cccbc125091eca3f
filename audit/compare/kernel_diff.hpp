// The comparison core of `cdna-verify compare` (docs/compare.md): two kernels' outputs of the
// same problem, element by element, with no oracle. O is bf16 bits [B, Sq, Hq, D], LSE fp32
// [B, Hq, Sq] (device::AttentionOutput).
//
// Distance of a pair of finite values, in ULPs: the number of steps between them along the
// ordered representable values of the format (bf16 for O, fp32 for LSE), with +0 and -0 one
// value. With key(x) = the bits without the sign bit, negated when the sign bit is set, the
// distance is |key(a) − key(b)|: adjacent values are 1 apart, subnormals included, and 1.0 vs
// −1.0 in bf16 is 2·0x3F80 apart.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "reference/attention/attention.hpp"

namespace cdna::audit {

// |key(a) − key(b)| as above; a and b must be finite (not checked: NaN/inf give their key).
std::uint32_t bf16_values_apart(std::uint16_t a, std::uint16_t b);
std::uint64_t fp32_values_apart(std::uint32_t a, std::uint32_t b);

// Bins of ULP distance over elements finite in both: 0, 1, 2, 3–4, 5–8, >8.
inline constexpr std::size_t kDiffBins = 6;
std::size_t diff_bin(std::uint64_t ulps);
const std::array<std::string, kDiffBins>& diff_bin_labels();  // "0", "1", "2", "3-4", "5-8", ">8"

// One element of disagreement, with its position: O (b, i, h, d) or LSE (b, i, h; d = −1).
struct DiffSite {
  std::int64_t b = 0, i = 0, h = 0, d = -1;
  std::uint32_t a_bits = 0, b_bits = 0;  // bf16 bits for O, fp32 bits for LSE
  // "O (b=0, i=3, h=1, d=7): A 0x7FFF, B 0x7FC0" or "LSE (b=0, i=3, h=1): A 0xFF800000, B 0x7FC00000"
  std::string text() const;
};

// The element-wise comparison of one tensor (O or LSE).
struct TensorDiff {
  static constexpr std::size_t kExamples = 3;  // first sites kept per kind
  std::int64_t elements = 0;
  std::int64_t finite_pairs = 0;                // finite in both: in the histogram
  std::array<std::int64_t, kDiffBins> histogram{};
  std::uint64_t max_ulps = 0;                   // over finite pairs
  std::vector<DiffSite> max_site;               // the first element at max_ulps (empty if 0 pairs or max 0)
  std::int64_t nan_vs_number = 0;               // NaN in one, not NaN in the other
  std::int64_t nan_bits_differ = 0;             // NaN in both, bit patterns differ
  std::int64_t inf_mismatch = 0;                // neither NaN, an inf in at least one, bits differ
  std::int64_t nonfinite_agree = 0;             // same NaN bits, or the same inf
  std::vector<DiffSite> nan_vs_number_sites, nan_bits_sites, inf_sites;  // first kExamples each
  std::uint64_t within = 0;          // the ULP distance the claim allows (compare --ulp N)
  std::int64_t beyond = 0;           // finite pairs more than `within` apart
  std::vector<DiffSite> first_beyond;  // the first of them in layout order (empty if none)
  std::int64_t nonfinite_mismatches() const { return nan_vs_number + nan_bits_differ + inf_mismatch; }
  // The first non-finite disagreement in layout order of kinds NaN vs number, NaN bits, inf (empty if none).
  std::vector<DiffSite> first_nonfinite() const;
  void add(const TensorDiff& other);  // sums counts and histogram; max; keeps the first sites of both
};

// O of two kernels ([B, Sq, Hq, D] of `shape`, bf16 ULPs); `within`: see TensorDiff. Throws
// std::invalid_argument if a size does not match the shape.
TensorDiff diff_o(const reference::AttentionShape& shape, std::span<const std::uint16_t> a,
                  std::span<const std::uint16_t> b, std::uint64_t within);
// LSE of two kernels ([B, Hq, Sq], fp32 ULPs). Same errors.
TensorDiff diff_lse(const reference::AttentionShape& shape, std::span<const float> a, std::span<const float> b,
                    std::uint64_t within);

// Bitwise identity of two runs of one kernel (determinism): the number of O and LSE elements
// whose bits differ and the first one ("O b=.. i=.. h=.. d=..: 0x.., 0x.."), empty if identical.
struct RunIdentity {
  std::int64_t o_differ = 0, lse_differ = 0;
  std::string first;
  bool identical() const { return o_differ == 0 && lse_differ == 0; }
};
RunIdentity identical_runs(const reference::AttentionShape& shape, std::span<const std::uint16_t> o1,
                           std::span<const float> lse1, std::span<const std::uint16_t> o2,
                           std::span<const float> lse2);

}  // namespace cdna::audit
