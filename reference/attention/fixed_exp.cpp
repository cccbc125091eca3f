#include "reference/attention/fixed_exp.hpp"

#include <gmp.h>

#include <array>
#include <cmath>
#include <cstddef>
#include <numbers>

namespace cdna::reference::detail {
namespace {

// Fixed-point numbers of 192 bits, least significant limb first. "Q190" means the value
// Y * 2^-190 (two integer bits: every value below is < 4); "F192" means Y * 2^-192 (a fraction).
using L3 = std::array<std::uint64_t, 3>;
using L4 = std::array<std::uint64_t, 4>;

// How exp(x) is computed (x <= 0, |x| < 2^20), and why the error is <= (2^-128 + 2^-168)·exp(x):
//
//   exp(x) = 2^-k · exp(r),  r = k·ln2 - |x| in [0, 1),  k = ceil(|x| / ln2) (then corrected)
//   r = c1·2^-8 + c2·2^-16 + c3·2^-24 + rho,  0 <= rho < 2^-24
//   exp(r) = T1[c1] · T2[c2] · T3[c3] · exp(rho),  exp(rho) by Taylor to degree 6 (Horner).
//
// Error budget (absolute errors of quantities of size >= 1 are also their relative errors):
//  (a) |x| as F192 truncated: < 2^-192, plus < 2^(20-192) if x had more than 192 bits.
//  (b) LN2 = floor(ln2·2^192): k·LN2 is short of k·ln2 by < k·2^-192 <= 2^-171 (k < 2^21).
//      So |r_used - r| < 2^-170 and exp(r_used) = exp(r)·(1 + < 2^-169.9).
//  (c) rho truncated from F192 to Q190: < 2^-190.
//  (d) each table entry rounded to nearest Q190: <= 2^-191; entries lie in [1, e).
//  (e) Taylor remainder rho^7/7!·e^rho < 2^-168/5040·1.01 < 2^-180; Horner's six truncating
//      multiplies lose < 2^-190 each, every later multiply by rho < 2^-24 shrinks the earlier
//      losses, so < 2^-189.9 in all; coefficients 1/k! rounded to nearest (<= 2^-191 each,
//      then multiplied by rho^k <= 2^-48): negligible (< 2^-238).
//  (f) three truncating multiplies T1·T2, ·T3, ·P: < 2^-190 each.
// Sum: 2^-169.9 + 2^-179.9 + 3·2^-191 + 3·2^-190 + 2^-190 < 2^-169 relative. Rounding the
// 192-bit result to a 128-bit significand (round half up) adds <= 2^-128 relative, so the total
// is < (1 + 2^-169)(1 + 2^-128) - 1 < 2^-128 + 2^-168.
// Values stay < 4 throughout: partial products of the tables are exp of a part of r < 1 (< e,
// plus < 2^-168), Horner's intermediates are < 2, so no Q190 value overflows its 192 bits.

struct Tables {
  std::array<L3, 256> t1, t2, t3;  // Q190: exp(c·2^-8), exp(c·2^-16), exp(c·2^-24)
  std::array<L3, 7> inv_fact;      // Q190: 1/k!, k = 0..6
  L3 ln2;                          // F192: floor(ln2 · 2^192)
};

L3 limbs_of(const mpz_t z) {
  L3 out{};
  for (std::size_t i = 0; i < 3; ++i) out[i] = mpz_getlimbn(z, static_cast<mp_size_t>(i));
  return out;
}

// value · 2^shift rounded by `rnd` to an integer, as 3 limbs; value · 2^shift < 2^192.
L3 fixed_of(mpfr_srcptr value, long shift, mpfr_rnd_t rnd) {
  mpfr_t t;
  mpfr_init2(t, mpfr_get_prec(value));
  mpfr_mul_2si(t, value, shift, MPFR_RNDN);  // exact: a power of two
  mpz_t z;
  mpz_init(z);
  mpfr_get_z(z, t, rnd);
  L3 out = limbs_of(z);
  mpz_clear(z);
  mpfr_clear(t);
  return out;
}

Tables make_tables() {
  Tables tb{};
  mpfr_t v;
  mpfr_init2(v, 320);  // 320 bits: the roundings to 190 bits below are then correct
  auto table = [&](std::array<L3, 256>& t, long step_log2) {
    for (unsigned c = 0; c < 256; ++c) {
      mpfr_set_ui_2exp(v, c, -step_log2, MPFR_RNDN);  // exact
      mpfr_exp(v, v, MPFR_RNDN);
      t[c] = fixed_of(v, 190, MPFR_RNDN);
    }
  };
  table(tb.t1, 8);
  table(tb.t2, 16);
  table(tb.t3, 24);
  unsigned long fact = 1;
  for (unsigned k = 0; k < 7; ++k) {
    if (k > 0) fact *= k;
    mpfr_set_ui(v, 1, MPFR_RNDN);
    mpfr_div_ui(v, v, fact, MPFR_RNDN);
    tb.inv_fact[k] = fixed_of(v, 190, MPFR_RNDN);
  }
  mpfr_const_log2(v, MPFR_RNDN);
  tb.ln2 = fixed_of(v, 192, MPFR_RNDD);  // floor: k·LN2 <= k·ln2, see (b)
  mpfr_clear(v);
  mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE);
  return tb;
}

const Tables& tables() {
  static const Tables tb = make_tables();  // thread-safe initialisation (C++11 magic static)
  return tb;
}

// (a · b) >> 190 for Q190 a, b: truncated Q190 product.
L3 mul_q190(const L3& a, const L3& b) {
  std::array<std::uint64_t, 6> r{};
  for (std::size_t i = 0; i < 3; ++i) {
    u128 carry = 0;
    for (std::size_t j = 0; j < 3; ++j) {
      const u128 t = static_cast<u128>(a[i]) * b[j] + r[i + j] + carry;
      r[i + j] = static_cast<std::uint64_t>(t);
      carry = t >> 64;
    }
    r[i + 3] = static_cast<std::uint64_t>(carry);
  }
  // 190 = 2 limbs + 62 bits.
  return {(r[2] >> 62) | (r[3] << 2), (r[3] >> 62) | (r[4] << 2), (r[4] >> 62) | (r[5] << 2)};
}

L3 add3(const L3& a, const L3& b) {
  L3 out{};
  u128 carry = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    const u128 t = static_cast<u128>(a[i]) + b[i] + carry;
    out[i] = static_cast<std::uint64_t>(t);
    carry = t >> 64;
  }
  return out;
}

L4 mul_small(const L3& a, std::uint64_t k) {
  L4 out{};
  u128 carry = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    const u128 t = static_cast<u128>(a[i]) * k + carry;
    out[i] = static_cast<std::uint64_t>(t);
    carry = t >> 64;
  }
  out[3] = static_cast<std::uint64_t>(carry);
  return out;
}

int cmp4(const L4& a, const L4& b) {
  for (std::size_t i = 4; i-- > 0;) {
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return 0;
}

L4 sub4(const L4& a, const L4& b) {  // a - b, a >= b
  L4 out{};
  std::uint64_t borrow = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    const std::uint64_t d = a[i] - b[i] - borrow;
    borrow = (a[i] < b[i] || (a[i] == b[i] && borrow)) ? 1 : 0;
    out[i] = d;
  }
  return out;
}

// 192-bit m (3 limbs) times 2^e into 4 limbs, truncating bits below 2^0; e <= 20.
L4 shift_into4(const L3& m, long e) {
  L4 src{m[0], m[1], m[2], 0};
  L4 out{};
  if (e >= 0) {
    const auto s = static_cast<unsigned>(e);  // <= 20
    for (std::size_t i = 4; i-- > 0;) {
      out[i] = src[i] << s;
      if (s != 0 && i > 0) out[i] |= src[i - 1] >> (64 - s);
    }
  } else {
    const auto t = static_cast<unsigned long>(-e);
    if (t >= 192) return out;
    const std::size_t q = t / 64;
    const auto s = static_cast<unsigned>(t % 64);
    for (std::size_t i = 0; i + q < 4; ++i) {
      out[i] = src[i + q] >> s;
      if (s != 0 && i + q + 1 < 4) out[i] |= src[i + q + 1] << (64 - s);
    }
  }
  return out;
}

}  // namespace

bool exp_nonpositive(mpfr_srcptr x, Weight128& w) {
  if (mpfr_zero_p(x)) {  // exp(0) = 1 exactly: the one-visible-key and all-equal cases need it
    w.significand = static_cast<u128>(1) << 127;
    w.exponent = 1;
    return true;
  }
  if (!mpfr_number_p(x) || mpfr_sgn(x) > 0) return false;
  const long ex = mpfr_get_exp(x);  // |x| = 0.M · 2^ex
  if (ex > 20) return false;        // |x| >= 2^20
  const Tables& tb = tables();

  // |x| · 2^192 truncated (a); the top 192 bits of the significand.
  const auto nl = static_cast<std::size_t>((mpfr_get_prec(x) + 63) / 64);
  const auto* xl = static_cast<const mp_limb_t*>(mpfr_custom_get_significand(x));
  const L3 msig{nl >= 3 ? xl[nl - 3] : 0, nl >= 2 ? xl[nl - 2] : 0, xl[nl - 1]};
  const L4 a = shift_into4(msig, ex);

  // k = ceil(|x| / ln2), from a double estimate, corrected until r = k·LN2 - A is in [0, 1).
  long k = 0;
  if (a != L4{}) {
    k = static_cast<long>(std::ceil(-mpfr_get_d(x, MPFR_RNDN) / std::numbers::ln2));
  }
  L4 r{};
  for (;;) {
    const L4 kl = mul_small(tb.ln2, static_cast<std::uint64_t>(k));
    if (cmp4(kl, a) < 0) {
      ++k;
      continue;
    }
    r = sub4(kl, a);
    if (r[3] != 0) {  // r >= 1
      --k;
      continue;
    }
    break;
  }

  const std::uint64_t top = r[2];
  const auto c1 = static_cast<std::size_t>(top >> 56);
  const auto c2 = static_cast<std::size_t>((top >> 48) & 0xFF);
  const auto c3 = static_cast<std::size_t>((top >> 40) & 0xFF);
  // rho: the F192 bits below 2^-24, as Q190 (truncating 2 bits, (c)).
  const L3 rho_f{r[0], r[1], top & ((std::uint64_t{1} << 40) - 1)};
  const L3 rho{(rho_f[0] >> 2) | (rho_f[1] << 62), (rho_f[1] >> 2) | (rho_f[2] << 62),
               rho_f[2] >> 2};

  L3 p = tb.inv_fact[6];
  for (std::size_t kk = 6; kk-- > 0;) p = add3(mul_q190(p, rho), tb.inv_fact[kk]);
  const L3 y = mul_q190(mul_q190(mul_q190(tb.t1[c1], tb.t2[c2]), tb.t3[c3]), p);

  // y in [1, 4): its top bit is 190 or 191. Round to a 128-bit significand, half up.
  const bool two = (y[2] >> 63) != 0;
  u128 sig;
  std::uint64_t round_bit;
  if (two) {
    sig = (static_cast<u128>(y[2]) << 64) | y[1];
    round_bit = y[0] >> 63;
  } else {
    sig = (static_cast<u128>((y[2] << 1) | (y[1] >> 63)) << 64) | ((y[1] << 1) | (y[0] >> 63));
    round_bit = (y[0] >> 62) & 1;
  }
  long t = two ? 191 : 190;
  sig += round_bit;
  if (sig == 0) {  // carried out of 2^128
    sig = static_cast<u128>(1) << 127;
    ++t;
  }
  // y = sig · 2^(t - 317); exp(x) = y · 2^-k = sig · 2^(exponent - 128).
  w.significand = sig;
  w.exponent = t - 189 - k;
  return true;
}

void acc_to_mpfr(mpfr_ptr rop, const Acc256& acc, long lsb_exp) {
  const bool negative = (acc.hi >> 127) != 0;
  u128 lo = acc.lo, hi = acc.hi;
  if (negative) {
    lo = ~lo + 1;
    hi = ~hi + static_cast<u128>(lo == 0);
  }
  mp_limb_t limbs[4] = {static_cast<mp_limb_t>(lo), static_cast<mp_limb_t>(lo >> 64),
                        static_cast<mp_limb_t>(hi), static_cast<mp_limb_t>(hi >> 64)};
  mp_size_t n = 4;
  while (n > 0 && limbs[n - 1] == 0) --n;
  if (n == 0) {
    mpfr_set_zero(rop, +1);
    return;
  }
  mpz_t z;
  mpz_srcptr zp = mpz_roinit_n(z, limbs, negative ? -n : n);
  mpfr_set_z_2exp(rop, zp, lsb_exp, MPFR_RNDN);
}

}  // namespace cdna::reference::detail
