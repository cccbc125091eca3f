// MODE rounding modes for the VALU: the round-mode encoding, a scope that puts the host's FPU
// in the same mode, and an explicit rounding of a double to f32/f16 under any mode.
//
// Encoding (MODE bits 1:0 for f32, 3:2 for f64 and f16; LLVM
// llvm/lib/Target/AMDGPU/SIDefines.h FP_ROUND_ROUND_TO_{NEAREST,INF,NEGINF,ZERO};
// cdna3-facts.md §6): 0 nearest even, 1 toward +inf, 2 toward -inf, 3 toward zero.
#pragma once

#include <bit>
#include <cfenv>
#include <cstdint>

namespace cdna::simulator {

enum : std::uint32_t { kRoundNearest = 0, kRoundUp = 1, kRoundDown = 2, kRoundZero = 3 };

// While alive, the host rounds like MODE round mode `mode` (nothing happens for nearest even,
// the host's default, which keeps it the fast path). Files doing host arithmetic under it are
// compiled with -frounding-math (simulator/CMakeLists.txt) so the compiler neither folds nor
// moves rounding operations across the mode switch; operands must be loaded inside the scope.
class HostRound {
 public:
  explicit HostRound(std::uint32_t mode) : on_(mode != kRoundNearest) {
    if (on_) std::fesetround(mode == kRoundUp ? FE_UPWARD : mode == kRoundDown ? FE_DOWNWARD : FE_TOWARDZERO);
  }
  ~HostRound() {
    if (on_) std::fesetround(FE_TONEAREST);
  }
  HostRound(const HostRound&) = delete;
  HostRound& operator=(const HostRound&) = delete;

 private:
  bool on_;
};

// `x` rounded once, under MODE round mode `mode`, to the binary format with `man` fraction
// bits and `exp` exponent bits (f32: 23, 8; f16: 10, 5); returns its bit pattern. Subnormal
// results are kept (the caller flushes); overflow gives infinity or the largest finite value as
// IEEE 754 §7.4 prescribes for the mode; a NaN gives a quiet NaN keeping the sign and the top
// payload bits. Exact when x carries the sticky information of the exact value (for example x
// is exact, or rounded to odd with at least man + 3 bits).
inline std::uint32_t narrow_f64(double x, int man, int exp, std::uint32_t mode) {
  const std::uint64_t b = std::bit_cast<std::uint64_t>(x);
  const bool neg = b >> 63;
  const std::uint32_t sign = neg ? 1u << (man + exp) : 0u;
  const std::uint32_t inf = ((1u << exp) - 1) << man;
  const int e = static_cast<int>((b >> 52) & 0x7ff);
  const std::uint64_t f = b & ((1ull << 52) - 1);
  if (e == 0x7ff)
    return sign | inf | (f ? (1u << (man - 1)) | static_cast<std::uint32_t>(f >> (52 - man)) : 0u);
  if (e == 0 && f == 0) return sign;
  const int bias = (1 << (exp - 1)) - 1;
  const int lg = e - 1023;                              // x = (f | 2^52) * 2^(lg - 52)
  const int qexp = (lg > 1 - bias ? lg : 1 - bias) - man;  // the target's ulp at x is 2^qexp
  const int sh = qexp - (lg - 52);                      // > 0: bits of x below the ulp
  std::uint64_t q = 0;
  bool above_half = false, is_half = false, inexact = true;
  if (e != 0 && sh <= 63) {  // else |x| is below half the smallest subnormal
    const std::uint64_t sig = f | (1ull << 52);
    q = sig >> sh;
    const std::uint64_t rem = sig & ((1ull << sh) - 1), half = 1ull << (sh - 1);
    above_half = rem > half;
    is_half = rem == half;
    inexact = rem != 0;
  }
  bool up = false;
  switch (mode) {
    case kRoundNearest: up = above_half || (is_half && (q & 1)); break;
    case kRoundUp: up = inexact && !neg; break;
    case kRoundDown: up = inexact && neg; break;
    default: break;
  }
  q += up ? 1 : 0;
  // Subnormal range: q counts subnormal ulps (q == 2^man is the smallest normal, encoded alike).
  const std::uint64_t bits = lg < 1 - bias ? q : (static_cast<std::uint64_t>(lg + bias) << man) + (q - (1ull << man));
  if (bits >= inf) {
    const bool to_inf = mode == kRoundNearest || (mode == kRoundUp && !neg) || (mode == kRoundDown && neg);
    return sign | (to_inf ? inf : inf - 1);
  }
  return sign | static_cast<std::uint32_t>(bits);
}

inline std::uint32_t f32_from_f64(double x, std::uint32_t mode) { return narrow_f64(x, 23, 8, mode); }
inline std::uint16_t f16_from_f64(double x, std::uint32_t mode) {
  return static_cast<std::uint16_t>(narrow_f64(x, 10, 5, mode));
}

// An exact zero sum computed under the host's nearest-even mode carries IEEE 754 §6.3's sign for
// that mode (+0 unless every addend is -0); under round-toward -inf it is -0 unless every addend
// is +0. Returns `sum` with that sign fixed for `mode` (addends' sign bits or-ed in `any_neg`).
inline double zero_sign(double sum, bool any_neg, std::uint32_t mode) {
  return (sum == 0.0 && mode == kRoundDown && any_neg) ? -0.0 : sum;
}

}  // namespace cdna::simulator
