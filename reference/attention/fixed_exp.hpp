// Internal to reference/attention/: the 192-bit fixed-point exp and the 256-bit fixed-point accumulator
// that make the exact oracle fast at 128-bit precision (attention.cpp). Exposed as a header so
// that attention_test.cpp can check them against MPFR directly.
#pragma once

#include <mpfr.h>

#include <cstdint>

namespace cdna::reference::detail {

__extension__ typedef unsigned __int128 u128;  // GCC/Clang extension; __extension__ keeps
                                               // -Wpedantic quiet about it.

// A non-negative number w = significand * 2^(exponent - 128), with significand in
// [2^127, 2^128) (MPFR's convention w = 0.significand * 2^exponent), or 0 if significand == 0.
struct Weight128 {
  u128 significand = 0;
  long exponent = 0;
};

// exp(x) for -2^20 < x <= 0, x of any MPFR precision <= 192 (a longer x is truncated to 192
// bits, which the bound below includes). Returns false and leaves `w` alone if x is NaN,
// positive, or <= -2^20.
//
// Error: |w - exp(x)| <= (2^-128 + 2^-168) * exp(x). 2^-128 is the final rounding of the
// significand to 128 bits (round half up); 2^-168 covers range reduction, tables, Taylor
// polynomial and truncations (derivation in fixed_exp.cpp). exp(0) is exactly 1.
bool exp_nonpositive(mpfr_srcptr x, Weight128& w);

// A 256-bit two's-complement fixed-point accumulator: value = (hi * 2^128 + lo) * 2^lsb_exp,
// with lsb_exp chosen by the caller (see add_scaled).
struct Acc256 {
  u128 lo = 0;
  u128 hi = 0;
};

// acc += (-1)^negative * significand * m * 2^shift (in units of the accumulator's LSB), for
// m < 2^8 and shift <= 84: the product is < 2^136 and the shifted term < 2^220, so 2^32 terms
// cannot overflow. Bits below the LSB are truncated toward zero (an error < 1 LSB per term).
inline void add_scaled(Acc256& acc, u128 significand, std::uint32_t m, bool negative,
                       long shift) {
  if (m == 0 || shift <= -136) return;
  const auto w0 = static_cast<std::uint64_t>(significand);
  const auto w1 = static_cast<std::uint64_t>(significand >> 64);
  const u128 p_lo = static_cast<u128>(w0) * m;
  const u128 p_hi = static_cast<u128>(w1) * m + (p_lo >> 64);
  u128 x_lo = (p_hi << 64) | static_cast<std::uint64_t>(p_lo);
  u128 x_hi = p_hi >> 64;
  if (shift > 0) {
    const auto s = static_cast<unsigned>(shift);
    x_hi = (x_hi << s) | (x_lo >> (128 - s));
    x_lo <<= s;
  } else if (shift < 0) {
    const auto t = static_cast<unsigned>(-shift);
    if (t < 128) {
      x_lo = (x_lo >> t) | (x_hi << (128 - t));
      x_hi >>= t;
    } else {
      x_lo = x_hi >> (t - 128);
      x_hi = 0;
    }
  }
  // Branch-free two's-complement negation: the sign of V is data, a branch would mispredict.
  const u128 mask = -static_cast<u128>(negative);
  const u128 neg = static_cast<u128>(negative);
  x_lo ^= mask;
  x_hi ^= mask;
  x_lo += neg;
  x_hi += static_cast<u128>(x_lo < neg);
  acc.lo += x_lo;
  acc.hi += x_hi + static_cast<u128>(acc.lo < x_lo);
}

// rop = acc * 2^lsb_exp, exactly if rop has >= 256 bits of precision.
void acc_to_mpfr(mpfr_ptr rop, const Acc256& acc, long lsb_exp);

}  // namespace cdna::reference::detail
