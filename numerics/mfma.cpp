// CDNA3 MFMA arithmetic models (contracts and sources: numerics/mfma.hpp).
//
// The block models are exact integer arithmetic. Units used below:
//   input   x = sig * 2^(e - F)        (F = 7 bf16, 10 f16 and tf32, 3 fp8, 2 bf8)
//   product p = sig_a*sig_b * 2^(e_a + e_b - F_a - F_b)
//   block   S counts units of 2^(E - 24), |S| < 16 * 2^26
//   total   T counts units of 2^(M - 31), |T| < 2^39
#include "numerics/mfma.hpp"

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>

namespace cdna::numerics {
namespace {

constexpr std::uint32_t kF32QuietNaN = 0x7FC00000u;
constexpr std::uint32_t kF32PosInf = 0x7F800000u;
constexpr std::uint32_t kF32NegInf = 0xFF800000u;
// Exponent a zero C counts with (cdna3-facts.md §4 step 3); zero products use it too (see
// mfma.hpp).
constexpr int kZeroExp = -126;

// An IEEE-style input format with FracBits mantissa bits, ExpBits exponent bits and the sign at
// bit SignShift of the 32-bit pattern that load() returns.
template <int FracBits, int ExpBits, int SignShift>
struct Format {
  static constexpr int kFrac = FracBits;
  static constexpr int kSignShift = SignShift;
  static constexpr std::uint32_t kExpMask = (1u << ExpBits) - 1u;
  static constexpr std::uint32_t kManMask = (1u << FracBits) - 1u;
  static constexpr std::uint32_t kMagMask = (1u << SignShift) - 1u;
  static constexpr int kBias = (1 << (ExpBits - 1)) - 1;
  static constexpr int kEmin = 1 - kBias;  // exponent of subnormals (no flushing)
  // Left shift that puts a product significand (2F fraction bits) on the 2^(E-24) grid when
  // its exponent equals E.
  static constexpr int kAlign = 24 - 2 * FracBits;
  static_assert(kAlign >= 0);
};
struct Bf16 : Format<7, 8, 15> {
  using In = std::uint16_t;
  static constexpr std::size_t kBlock = 8;
  static std::uint32_t load(In x) { return x; }
};
struct F16 : Format<10, 5, 15> {
  using In = std::uint16_t;
  static constexpr std::size_t kBlock = 8;
  static std::uint32_t load(In x) { return x; }
};
// tf32 as the high 19 bits of an fp32 pattern: clearing the low 13 mantissa bits and dropping
// them is the truncation of cdna3-facts.md §4 "xf32".
struct Tf32 : Format<10, 8, 18> {
  using In = float;
  static constexpr std::size_t kBlock = 4;
  static std::uint32_t load(In x) { return std::bit_cast<std::uint32_t>(x) >> 13; }
};

template <class Fmt>
inline std::uint32_t exp_field(std::uint32_t x) {
  return (x >> Fmt::kFrac) & Fmt::kExpMask;
}

// Significand (hidden bit included) and exponent of a finite input; a subnormal has no hidden
// bit and the minimum exponent. (Branches measured faster than a branch-free form here:
// subnormal inputs are rare and predict well.)
template <class Fmt>
inline void decode(std::uint32_t x, std::uint32_t& sig, int& e) {
  const std::uint32_t ef = exp_field<Fmt>(x);
  const std::uint32_t man = x & Fmt::kManMask;
  sig = ef != 0 ? (man | (1u << Fmt::kFrac)) : man;
  e = ef != 0 ? static_cast<int>(ef) - Fmt::kBias : Fmt::kEmin;
}

// The outcome of a block that holds a NaN, an infinity or a product >= 2^128
// (cdna3-facts.md §4 step 4, plus the documented choices for inf inputs), or 0 when the
// block turns out to be finite after all (the fast path only flags candidates).
template <class Fmt>
std::uint32_t special_block(const typename Fmt::In* a, const typename Fmt::In* b, std::size_t n,
                            std::uint32_t c) {
  bool nan = (c & 0x7FFFFFFFu) > kF32PosInf;
  bool pos_inf = c == kF32PosInf;
  bool neg_inf = c == kF32NegInf;
  for (std::size_t j = 0; j < n; ++j) {
    const std::uint32_t x = Fmt::load(a[j]), y = Fmt::load(b[j]);
    const bool x_special = exp_field<Fmt>(x) == Fmt::kExpMask;
    const bool y_special = exp_field<Fmt>(y) == Fmt::kExpMask;
    if ((x_special && (x & Fmt::kManMask)) || (y_special && (y & Fmt::kManMask))) {
      nan = true;
      continue;
    }
    const bool neg = ((x ^ y) >> Fmt::kSignShift) != 0;
    const bool x_zero = (x & Fmt::kMagMask) == 0, y_zero = (y & Fmt::kMagMask) == 0;
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
      const int top = static_cast<int>(std::bit_width(std::uint64_t{sx} * sy)) - 1 + ex + ey -
                      2 * Fmt::kFrac;
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

// The fp32 accumulator as an integer significand and exponent: c = sc * 2^(e_c - 23), a zero
// or subnormal c with e_c = -126 (cdna3-facts.md §4 step 3). c must be finite.
struct Acc {
  std::int64_t sc;
  int e_c;
};
inline Acc decode_acc(std::uint32_t c) {
  const std::uint32_t cf = (c >> 23) & 0xFFu;
  const std::int64_t c_mag = cf != 0 ? ((c & 0x7FFFFFu) | 0x800000u) : (c & 0x7FFFFFu);
  const std::int64_t c_neg = -static_cast<std::int64_t>(c >> 31);  // 0 or -1
  return {(c_mag ^ c_neg) - c_neg, cf != 0 ? static_cast<int>(cf) - 127 : -126};
}

// Step 3 of the bf16 model, shared by the fp8 form: s counts units of 2^(e_max - 24); returns
// the fp32 bits of floor(s to 2^(M-31)) + floor(c to 2^(M-24)) rounded to nearest even.
// drop_small_c: the fp8 rule "c is dropped entirely when e_c < M - 25".
inline std::uint32_t combine(std::int64_t s, int e_max, std::uint32_t c, bool drop_small_c) {
  const Acc acc = decode_acc(c);
  const int m = std::max(e_max, acc.e_c);
  // Block sum to units of 2^(M-31), floor (>> on a negative int64 is floor in C++20).
  const int sb = m - e_max - 7;
  const std::int64_t bsum = sb <= 0 ? s * (std::int64_t{1} << -sb) : (s >> std::min(sb, 63));
  // C floored to units of 2^(M-24), then expressed in units of 2^(M-31).
  const int scs = m - acc.e_c - 1;
  std::int64_t c24 = scs < 0 ? acc.sc * 2 : (acc.sc >> std::min(scs, 63));
  if (drop_small_c && acc.e_c < m - 25) c24 = 0;
  return round_to_f32(bsum + c24 * 128, m - 31);
}

// One block (n <= Fmt::kBlock products) with accumulator bits c; returns the fp32 bits of the
// result.
template <class Fmt>
std::uint32_t block(const typename Fmt::In* a, const typename Fmt::In* b, std::size_t n,
                    std::uint32_t c) {
  std::uint32_t sig[Fmt::kBlock];
  int pexp[Fmt::kBlock];
  std::int64_t neg[Fmt::kBlock];  // 0 or -1 (all ones), for a branch-free conditional negation
  int e_max = INT_MIN;
  bool inf_or_nan = ((c >> 23) & 0xFFu) == 0xFFu;
  for (std::size_t j = 0; j < n; ++j) {
    const std::uint32_t x = Fmt::load(a[j]), y = Fmt::load(b[j]);
    inf_or_nan |= (exp_field<Fmt>(x) == Fmt::kExpMask) | (exp_field<Fmt>(y) == Fmt::kExpMask);
    std::uint32_t sx, sy;
    int ex, ey;
    decode<Fmt>(x, sx, ex);
    decode<Fmt>(y, sy, ey);
    sig[j] = sx * sy;
    pexp[j] = sig[j] != 0 ? ex + ey : kZeroExp;
    neg[j] = -static_cast<std::int64_t>((x ^ y) >> Fmt::kSignShift);
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
  return combine(s, e_max, c, false);
}

template <class Fmt>
float dot(std::span<const typename Fmt::In> a, std::span<const typename Fmt::In> b, float c) {
  if (a.size() != b.size()) {
    throw std::invalid_argument("mfma_dot: a and b differ in length");
  }
  std::uint32_t acc = std::bit_cast<std::uint32_t>(c);
  const std::size_t k = a.size();
  for (std::size_t i = 0; i < k; i += Fmt::kBlock) {
    acc = block<Fmt>(a.data() + i, b.data() + i, std::min(Fmt::kBlock, k - i), acc);
  }
  return std::bit_cast<float>(acc);
}

// ---- fp8 / bf8 ----

template <int FracBits, int Bias>
struct Fp8Fmt {
  static constexpr int kFrac = FracBits;
  static constexpr int kBias = Bias;
  static constexpr int kEmin = 1 - Bias;
  // sig * 2^(e - F) for a finite pattern (0x80 is handled before).
  static void decode(std::uint32_t x, std::uint32_t& sig, int& e) {
    const std::uint32_t ef = (x & 0x7Fu) >> FracBits;
    const std::uint32_t man = x & ((1u << FracBits) - 1u);
    sig = ef != 0 ? (man | (1u << FracBits)) : man;
    e = ef != 0 ? static_cast<int>(ef) - Bias : kEmin;
  }
};
using Fp8E4M3 = Fp8Fmt<3, 8>;
using Bf8E5M2 = Fp8Fmt<2, 16>;
constexpr std::size_t kFp8Block = 16;

// One fp8 block (n <= 16 products) with accumulator bits c.
template <class FA, class FB>
std::uint32_t fp8_block(const std::uint8_t* a, const std::uint8_t* b, std::size_t n,
                        std::uint32_t c) {
  constexpr int kAlign = 24 - FA::kFrac - FB::kFrac;  // product fraction bits onto 2^(E-24)
  std::uint32_t sig[kFp8Block];
  int pexp[kFp8Block];
  std::int64_t neg[kFp8Block];
  int e_half[2] = {INT_MIN, INT_MIN};
  bool nan = false;
  for (std::size_t j = 0; j < n; ++j) {
    const std::uint32_t x = a[j], y = b[j];
    nan |= (x == kFp8NaN) | (y == kFp8NaN);
    std::uint32_t sx, sy;
    int ex, ey;
    FA::decode(x, sx, ex);
    FB::decode(y, sy, ey);
    sig[j] = sx * sy;
    pexp[j] = sig[j] != 0 ? ex + ey : kZeroExp;
    neg[j] = -static_cast<std::int64_t>((x ^ y) >> 7);
    e_half[j & 1] = std::max(e_half[j & 1], pexp[j]);
  }
  if (nan || (c & 0x7FFFFFFFu) > kF32PosInf) return kF32QuietNaN;
  if ((c & 0x7FFFFFFFu) == kF32PosInf) return c;  // products are finite: ±inf stays
  if (n < 2) e_half[1] = kZeroExp;                // an empty odd half (k == 1)

  // Each half as in step 2, relative to its own maximum exponent.
  std::int64_t s_half[2] = {0, 0};
  for (std::size_t j = 0; j < n; ++j) {
    const int d = std::min(e_half[j & 1] - pexp[j], 63);
    const auto t = static_cast<std::int64_t>((std::uint64_t{sig[j]} << kAlign) >> d);
    s_half[j & 1] += (t ^ neg[j]) - neg[j];
  }
  // Both halves floored onto 2^(E-24), E the larger maximum.
  const int e_max = std::max(e_half[0], e_half[1]);
  const std::int64_t s = (s_half[0] >> std::min(e_max - e_half[0], 63)) +
                         (s_half[1] >> std::min(e_max - e_half[1], 63));
  return combine(s, e_max, c, true);
}

template <class FA, class FB>
std::uint32_t fp8_dot(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b,
                      std::uint32_t acc) {
  const std::size_t k = a.size();
  for (std::size_t i = 0; i < k; i += kFp8Block) {
    acc = fp8_block<FA, FB>(a.data() + i, b.data() + i, std::min(kFp8Block, k - i), acc);
  }
  return acc;
}

void require_same_length(std::size_t na, std::size_t nb, const char* what) {
  if (na != nb) throw std::invalid_argument(std::string(what) + ": a and b differ in length");
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

float mfma_dot_fp8(std::span<const std::uint8_t> a, Fp8Kind a_kind,
                   std::span<const std::uint8_t> b, Fp8Kind b_kind, float c) {
  require_same_length(a.size(), b.size(), "mfma_dot_fp8");
  const std::uint32_t acc = std::bit_cast<std::uint32_t>(c);
  std::uint32_t r;
  if (a_kind == Fp8Kind::Fp8) {
    r = b_kind == Fp8Kind::Fp8 ? fp8_dot<Fp8E4M3, Fp8E4M3>(a, b, acc)
                               : fp8_dot<Fp8E4M3, Bf8E5M2>(a, b, acc);
  } else {
    r = b_kind == Fp8Kind::Fp8 ? fp8_dot<Bf8E5M2, Fp8E4M3>(a, b, acc)
                               : fp8_dot<Bf8E5M2, Bf8E5M2>(a, b, acc);
  }
  return std::bit_cast<float>(r);
}

float mfma_dot_xf32(std::span<const float> a, std::span<const float> b, float c) {
  require_same_length(a.size(), b.size(), "mfma_dot_xf32");
  return dot<Tf32>(a, b, c);
}

std::int32_t mfma_dot_i8(std::span<const std::int8_t> a, std::span<const std::int8_t> b,
                         std::int32_t c, I8Overflow overflow) {
  require_same_length(a.size(), b.size(), "mfma_dot_i8");
  // |a*b| <= 2^14: the exact sum fits int64 for any k below 2^48.
  std::int64_t s = c;
  for (std::size_t j = 0; j < a.size(); ++j) s += std::int32_t{a[j]} * std::int32_t{b[j]};
  if (overflow == I8Overflow::Saturate) {
    return static_cast<std::int32_t>(
        std::clamp<std::int64_t>(s, std::numeric_limits<std::int32_t>::min(),
                                 std::numeric_limits<std::int32_t>::max()));
  }
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(s));  // modulo 2^32 (C++20)
}

namespace {

inline float flush_f32(float x) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(x);
  // Exponent field 0: zero or subnormal; keep only the sign.
  return (u & 0x7F800000u) == 0 ? std::bit_cast<float>(u & 0x80000000u) : x;
}

}  // namespace

float mfma_dot_f32(std::span<const float> a, std::span<const float> b, float c,
                   bool flush_denormals) {
  require_same_length(a.size(), b.size(), "mfma_dot_f32");
  float acc = c;
  if (flush_denormals) {
    acc = flush_f32(acc);
    for (std::size_t j = 0; j < a.size(); ++j) {
      acc = flush_f32(std::fma(flush_f32(a[j]), flush_f32(b[j]), acc));
    }
  } else {
    for (std::size_t j = 0; j < a.size(); ++j) acc = std::fma(a[j], b[j], acc);
  }
  return std::isnan(acc) ? std::bit_cast<float>(kF32QuietNaN) : acc;
}

double mfma_dot_f64(std::span<const double> a, std::span<const double> b, double c) {
  require_same_length(a.size(), b.size(), "mfma_dot_f64");
  double acc = c;
  for (std::size_t j = 0; j < a.size(); ++j) acc = std::fma(a[j], b[j], acc);
  return std::isnan(acc) ? std::bit_cast<double>(std::uint64_t{0x7FF8000000000000u}) : acc;
}

}  // namespace cdna::numerics
