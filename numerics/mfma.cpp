// CDNA3 MFMA block model for bf16/f16 inputs (contract and sources: numerics/mfma.hpp).
//
// Everything is exact integer arithmetic. Units used below:
//   input   x = sig * 2^(e - F)        (F = 7 for bf16, 10 for f16; sig < 2^(F+1))
//   product p = sig_a*sig_b * 2^(e_a + e_b - 2F)
//   block   S counts units of 2^(E - 24), |S| < 8 * 2^26
//   total   T counts units of 2^(M - 31), |T| < 2^38
#include "numerics/mfma.hpp"

#include <algorithm>
#include <bit>
#include <climits>
#include <cstddef>
#include <stdexcept>

namespace cdna::numerics {
namespace {

constexpr std::uint32_t kF32QuietNaN = 0x7FC00000u;
constexpr std::uint32_t kF32PosInf = 0x7F800000u;
constexpr std::uint32_t kF32NegInf = 0xFF800000u;
// Exponent a zero C counts with (cdna3-facts.md §4 step 3); zero products use it too (see
// mfma.hpp).
constexpr int kZeroExp = -126;
constexpr std::size_t kBlock = 8;

template <int FracBits, int ExpBits>
struct Format {
  static constexpr int kFrac = FracBits;
  static constexpr std::uint32_t kExpMask = (1u << ExpBits) - 1u;
  static constexpr int kBias = (1 << (ExpBits - 1)) - 1;
  static constexpr int kEmin = 1 - kBias;  // exponent of subnormals (no flushing)
  // Left shift that puts a product significand (2F fraction bits) on the 2^(E-24) grid when
  // its exponent equals E.
  static constexpr int kAlign = 24 - 2 * FracBits;
};
using Bf16 = Format<7, 8>;
using F16 = Format<10, 5>;

template <class Fmt>
inline std::uint32_t exp_field(std::uint16_t x) {
  return (x >> Fmt::kFrac) & Fmt::kExpMask;
}

// Significand (hidden bit included) and exponent of a finite input; a subnormal has no hidden
// bit and the minimum exponent. (Branches measured faster than a branch-free form here:
// subnormal inputs are rare and predict well.)
template <class Fmt>
inline void decode(std::uint16_t x, std::uint32_t& sig, int& e) {
  const std::uint32_t ef = exp_field<Fmt>(x);
  const std::uint32_t man = x & ((1u << Fmt::kFrac) - 1u);
  sig = ef != 0 ? (man | (1u << Fmt::kFrac)) : man;
  e = ef != 0 ? static_cast<int>(ef) - Fmt::kBias : Fmt::kEmin;
}

// The outcome of a block that holds a NaN, an infinity or a product >= 2^128
// (cdna3-facts.md §4 step 4, plus the documented choices for inf inputs), or 0 when the
// block turns out to be finite after all (the fast path only flags candidates).
template <class Fmt>
std::uint32_t special_block(const std::uint16_t* a, const std::uint16_t* b, std::size_t n,
                            std::uint32_t c) {
  bool nan = (c & 0x7FFFFFFFu) > kF32PosInf;
  bool pos_inf = c == kF32PosInf;
  bool neg_inf = c == kF32NegInf;
  constexpr std::uint32_t kManMask = (1u << Fmt::kFrac) - 1u;
  for (std::size_t j = 0; j < n; ++j) {
    const std::uint16_t x = a[j], y = b[j];
    const bool x_special = exp_field<Fmt>(x) == Fmt::kExpMask;
    const bool y_special = exp_field<Fmt>(y) == Fmt::kExpMask;
    if ((x_special && (x & kManMask)) || (y_special && (y & kManMask))) {
      nan = true;
      continue;
    }
    const bool neg = ((x ^ y) >> 15) != 0;
    const bool x_zero = (x & 0x7FFFu) == 0, y_zero = (y & 0x7FFFu) == 0;
    bool inf = false;
    if (x_special || y_special) {
      if (x_zero || y_zero) {
        nan = true;  // inf * 0
        continue;
      }
      inf = true;
    } else if (!x_zero && !y_zero) {
      std::uint32_t sx, sy;
      int ex, ey;
      decode<Fmt>(x, sx, ex);
      decode<Fmt>(y, sy, ey);
      const int top = static_cast<int>(std::bit_width(sx * sy)) - 1 + ex + ey - 2 * Fmt::kFrac;
      inf = top >= 128;  // |product| >= 2^128
    }
    if (inf) (neg ? neg_inf : pos_inf) = true;
  }
  if (nan || (pos_inf && neg_inf)) return kF32QuietNaN;
  if (pos_inf) return kF32PosInf;
  if (neg_inf) return kF32NegInf;
  return 0;
}

// T * 2^unit_exp rounded to fp32, nearest even, subnormals kept, overflow to ±inf.
// A zero total gives +0.
inline std::uint32_t round_to_f32(std::int64_t t, int unit_exp) {
  if (t == 0) return 0;
  const std::uint32_t sign = t < 0 ? 0x80000000u : 0u;
  const std::uint64_t mag = t < 0 ? 0 - static_cast<std::uint64_t>(t) : static_cast<std::uint64_t>(t);
  const int lead = unit_exp + 63 - std::countl_zero(mag);  // exponent of the leading bit
  const int q = std::max(lead - 23, -149);                  // fp32 quantum exponent there
  const int sh = q - unit_exp;
  std::uint64_t r;
  if (sh <= 0) {
    r = mag << -sh;
  } else {
    r = mag >> sh;
    const std::uint64_t rem = mag & ((std::uint64_t{1} << sh) - 1u);
    const std::uint64_t half = std::uint64_t{1} << (sh - 1);
    // Bitwise, not ||: whether the discarded part exceeds half is data, not predictable.
    r += static_cast<std::uint64_t>(rem > half) | (static_cast<std::uint64_t>(rem == half) & r & 1u);
  }
  // r * 2^q encodes as ((q + 149) << 23) + r: this also covers subnormals (q = -149) and a
  // rounding carry into the next binade (r == 2^24).
  const std::uint64_t bits = (static_cast<std::uint64_t>(q + 149) << 23) + r;
  if (bits >= kF32PosInf) return sign | kF32PosInf;
  return sign | static_cast<std::uint32_t>(bits);
}

// One block (n <= 8 products) with accumulator bits c; returns the fp32 bits of the result.
template <class Fmt>
std::uint32_t block(const std::uint16_t* a, const std::uint16_t* b, std::size_t n,
                    std::uint32_t c) {
  std::uint32_t sig[kBlock];
  int pexp[kBlock];
  std::int64_t neg[kBlock];  // 0 or -1 (all ones), for a branch-free conditional negation
  int e_max = INT_MIN;
  bool inf_or_nan = ((c >> 23) & 0xFFu) == 0xFFu;
  for (std::size_t j = 0; j < n; ++j) {
    const std::uint16_t x = a[j], y = b[j];
    inf_or_nan |= (exp_field<Fmt>(x) == Fmt::kExpMask) | (exp_field<Fmt>(y) == Fmt::kExpMask);
    std::uint32_t sx, sy;
    int ex, ey;
    decode<Fmt>(x, sx, ex);
    decode<Fmt>(y, sy, ey);
    sig[j] = sx * sy;
    pexp[j] = sig[j] != 0 ? ex + ey : kZeroExp;
    neg[j] = -static_cast<std::int64_t>((x ^ y) >> 15);
    e_max = std::max(e_max, pexp[j]);
  }
  // A product can reach 2^128 only with exponent >= 127; the slow path decides exactly.
  if (inf_or_nan || e_max >= 127) {
    const std::uint32_t r = special_block<Fmt>(a, b, n, c);
    if (r != 0) return r;
  }

  // Step 2: align to 2^E, truncate toward zero to 2^(E-24), add exactly.
  // floor(sig * 2^(kAlign - d)) == (sig << kAlign) >> d: the magnitude is truncated, which is
  // truncation toward zero once the sign is applied. Branch-free: d is data-dependent.
  std::int64_t s = 0;
  for (std::size_t j = 0; j < n; ++j) {
    const int d = std::min(e_max - pexp[j], 63);
    const auto t = static_cast<std::int64_t>((std::uint64_t{sig[j]} << Fmt::kAlign) >> d);
    s += (t ^ neg[j]) - neg[j];  // random signs would defeat a branch predictor
  }

  // Step 3: C = sc * 2^(e_c - 23); a zero or subnormal C has e_c = -126.
  const std::uint32_t cf = (c >> 23) & 0xFFu;
  const std::int64_t c_mag = cf != 0 ? ((c & 0x7FFFFFu) | 0x800000u) : (c & 0x7FFFFFu);
  const std::int64_t c_neg = -static_cast<std::int64_t>(c >> 31);  // 0 or -1
  const std::int64_t sc = (c_mag ^ c_neg) - c_neg;
  const int e_c = cf != 0 ? static_cast<int>(cf) - 127 : -126;
  const int m = std::max(e_max, e_c);

  // Block sum to units of 2^(M-31), floor (>> on a negative int64 is floor in C++20).
  const int sb = m - e_max - 7;
  const std::int64_t bsum = sb <= 0 ? s * (std::int64_t{1} << -sb) : (s >> std::min(sb, 63));
  // C floored to units of 2^(M-24), then expressed in units of 2^(M-31).
  const int scs = m - e_c - 1;
  const std::int64_t c24 = scs < 0 ? sc * 2 : (sc >> std::min(scs, 63));
  return round_to_f32(bsum + c24 * 128, m - 31);
}

template <class Fmt>
float dot(std::span<const std::uint16_t> a, std::span<const std::uint16_t> b, float c) {
  if (a.size() != b.size()) {
    throw std::invalid_argument("mfma_dot: a and b differ in length");
  }
  std::uint32_t acc = std::bit_cast<std::uint32_t>(c);
  const std::size_t k = a.size();
  for (std::size_t i = 0; i < k; i += kBlock) {
    acc = block<Fmt>(a.data() + i, b.data() + i, std::min(kBlock, k - i), acc);
  }
  return std::bit_cast<float>(acc);
}

}  // namespace

float mfma_dot_bf16(std::span<const std::uint16_t> a, std::span<const std::uint16_t> b,
                    float c) {
  return dot<Bf16>(a, b, c);
}

float mfma_dot_f16(std::span<const std::uint16_t> a, std::span<const std::uint16_t> b,
                   float c) {
  return dot<F16>(a, b, c);
}

}  // namespace cdna::numerics
