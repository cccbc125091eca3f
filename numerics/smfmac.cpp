#include "numerics/smfmac.hpp"

#include <array>
#include <stdexcept>

#include "numerics/mfma.hpp"

namespace cdna::numerics {
namespace {

// The largest K/2 of a gfx942 v_smfmac is 32 (16x16x64 fp8/i8).
constexpr std::size_t kMaxStored = 32;

template <class T>
std::span<const T> gather(std::span<const T> a, std::span<const std::uint8_t> sel,
                          std::span<const T> b, std::array<T, kMaxStored>& out) {
  if (sel.size() != a.size() || b.size() != 2 * a.size() || a.size() > kMaxStored)
    throw std::invalid_argument("smfmac_dot: expected |sel| = |a| <= 32 and |b| = 2|a|");
  for (std::size_t e = 0; e < a.size(); ++e) {
    if (sel[e] > 3) throw std::invalid_argument("smfmac_dot: a 4:2 index is 0..3");
    out[e] = b[4 * (e / 2) + sel[e]];
  }
  return std::span<const T>(out.data(), a.size());
}

}  // namespace

float smfmac_dot_f16(std::span<const std::uint16_t> a, std::span<const std::uint8_t> sel,
                     std::span<const std::uint16_t> b, float c) {
  std::array<std::uint16_t, kMaxStored> g;
  return mfma_dot_f16(a, gather(a, sel, b, g), c);
}

float smfmac_dot_bf16(std::span<const std::uint16_t> a, std::span<const std::uint8_t> sel,
                      std::span<const std::uint16_t> b, float c) {
  std::array<std::uint16_t, kMaxStored> g;
  return mfma_dot_bf16(a, gather(a, sel, b, g), c);
}

float smfmac_dot_fp8(std::span<const std::uint8_t> a, Fp8Kind a_kind,
                     std::span<const std::uint8_t> sel, std::span<const std::uint8_t> b,
                     Fp8Kind b_kind, float c) {
  std::array<std::uint8_t, kMaxStored> g;
  return mfma_dot_fp8(a, a_kind, gather(a, sel, b, g), b_kind, c);
}

std::int32_t smfmac_dot_i8(std::span<const std::int8_t> a, std::span<const std::uint8_t> sel,
                           std::span<const std::int8_t> b, std::int32_t c) {
  std::array<std::int8_t, kMaxStored> g;
  return mfma_dot_i8(a, gather(a, sel, b, g), c);
}

}  // namespace cdna::numerics
