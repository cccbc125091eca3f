// Naive MPFR rendering of the MFMA block model; see mfma_naive_model.hpp.
#include "numerics/mfma_naive_model.hpp"

#include <mpfr.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "numerics/mpfr_format_rounding.hpp"

namespace cdna::numerics::testing {
namespace {

// Enough bits for any value the model forms exactly: terms reach from 2^-300 to 2^131.
constexpr mpfr_prec_t kPrec = 1024;

struct Mp {
  Mp() { mpfr_init2(v, kPrec); mpfr_set_zero(v, 1); }
  ~Mp() { mpfr_clear(v); }
  Mp(const Mp&) = delete;
  Mp& operator=(const Mp&) = delete;
  mpfr_t v;
};

void require_exact(int ternary) {
  if (ternary != 0) throw std::logic_error("naive MFMA model: an MPFR step was inexact");
}

// The value of an input pattern, from the format's definition (IEEE 754 binary16, or bf16 as
// the high half of a binary32).
double decode(InputFormat format, std::uint16_t bits) {
  if (format == InputFormat::Bf16) {
    return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16));
  }
  const int e = (bits >> 10) & 0x1F;
  const int m = bits & 0x3FF;
  const double sign = (bits & 0x8000) ? -1.0 : 1.0;
  if (e == 0x1F) return m == 0 ? sign * HUGE_VAL : std::numeric_limits<double>::quiet_NaN();
  if (e == 0) return sign * std::ldexp(m, -24);
  return sign * std::ldexp(1024 + m, e - 25);
}

int min_exponent(InputFormat format) { return format == InputFormat::Bf16 ? -126 : -14; }

// Exponent e of a nonzero input written s * 2^e, 1 <= |s| < 2, subnormals at the minimum
// exponent (cdna3-facts.md §4 step 2).
int model_exponent(double x, int emin) { return std::max(std::ilogb(x), emin); }

// Rounds to fp32 as IEEE 754 does (nearest even, subnormals, overflow to inf), by MPFR.
float to_f32_rtne(const mpfr_t x) {
  return static_cast<float>(round_to_format(x, 24, -126, 127, MpfrRounding::NearestEven));
}

// One block of the bf16/f16/xf32 model on input values x[j], y[j] (decoded exactly, inf and
// NaN as doubles) whose format has minimum exponent emin.
float naive_fused_block(const std::vector<double>& x, const std::vector<double>& y, int emin,
                        float c) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::size_t n = x.size();

  // Special values first (step 4 and the documented choices).
  bool any_nan = std::isnan(c), pos_inf = c == inf, neg_inf = c == -inf;
  Mp two128;
  require_exact(mpfr_set_ui_2exp(two128.v, 1, 128, MPFR_RNDN));
  for (std::size_t j = 0; j < n; ++j) {
    if (std::isnan(x[j]) || std::isnan(y[j])) {
      any_nan = true;
    } else if (std::isinf(x[j]) || std::isinf(y[j])) {
      if (x[j] == 0 || y[j] == 0) {
        any_nan = true;
      } else {
        ((x[j] < 0) != (y[j] < 0) ? neg_inf : pos_inf) = true;
      }
    } else {
      Mp p;
      require_exact(mpfr_set_d(p.v, x[j], MPFR_RNDN));
      require_exact(mpfr_mul_d(p.v, p.v, y[j], MPFR_RNDN));
      if (mpfr_cmpabs(p.v, two128.v) >= 0) (mpfr_sgn(p.v) < 0 ? neg_inf : pos_inf) = true;
    }
  }
  if (any_nan || (pos_inf && neg_inf)) return nan;
  if (pos_inf) return inf;
  if (neg_inf) return -inf;

  // Step 2: E, then each exact product truncated toward zero to a multiple of 2^(E-24).
  int e_max = std::numeric_limits<int>::min();
  for (std::size_t j = 0; j < n; ++j) {
    const bool zero = x[j] == 0 || y[j] == 0;
    const int e = zero ? -126 : model_exponent(x[j], emin) + model_exponent(y[j], emin);
    e_max = std::max(e_max, e);
  }
  Mp sum;
  for (std::size_t j = 0; j < n; ++j) {
    Mp p;
    require_exact(mpfr_set_d(p.v, x[j], MPFR_RNDN));
    require_exact(mpfr_mul_d(p.v, p.v, y[j], MPFR_RNDN));
    require_exact(mpfr_mul_2si(p.v, p.v, 24 - e_max, MPFR_RNDN));
    mpfr_trunc(p.v, p.v);
    require_exact(mpfr_mul_2si(p.v, p.v, e_max - 24, MPFR_RNDN));
    require_exact(mpfr_add(sum.v, sum.v, p.v, MPFR_RNDN));
  }

  // Step 3.
  const int e_c = (c == 0 || std::fabs(c) < std::ldexp(1.0f, -126)) ? -126 : std::ilogb(c);
  const int m = std::max(e_max, e_c);
  Mp block, cr;
  require_exact(mpfr_mul_2si(block.v, sum.v, 31 - m, MPFR_RNDN));
  mpfr_floor(block.v, block.v);
  require_exact(mpfr_mul_2si(block.v, block.v, m - 31, MPFR_RNDN));
  require_exact(mpfr_set_flt(cr.v, c, MPFR_RNDN));
  require_exact(mpfr_mul_2si(cr.v, cr.v, 24 - m, MPFR_RNDN));
  mpfr_floor(cr.v, cr.v);
  require_exact(mpfr_mul_2si(cr.v, cr.v, m - 24, MPFR_RNDN));
  Mp total;
  require_exact(mpfr_add(total.v, block.v, cr.v, MPFR_RNDN));
  if (mpfr_zero_p(total.v)) return 0.0f;  // documented: a zero total is +0
  return to_f32_rtne(total.v);
}

float naive_block(InputFormat format, const std::uint16_t* a, const std::uint16_t* b,
                  std::size_t n, float c) {
  std::vector<double> x(n), y(n);
  for (std::size_t j = 0; j < n; ++j) {
    x[j] = decode(format, a[j]);
    y[j] = decode(format, b[j]);
  }
  return naive_fused_block(x, y, min_exponent(format), c);
}

}  // namespace

float naive_mfma_dot(InputFormat format, const std::vector<std::uint16_t>& a,
                     const std::vector<std::uint16_t>& b, float c) {
  if (a.size() != b.size()) throw std::invalid_argument("naive_mfma_dot: length mismatch");
  float acc = c;
  for (std::size_t i = 0; i < a.size(); i += 8) {
    acc = naive_block(format, a.data() + i, b.data() + i, std::min<std::size_t>(8, a.size() - i), acc);
  }
  return acc;
}

// ---- The other input types ----

namespace {

// Written from the format tables in fp8.hpp's header comment, not from its code.
struct NaiveFp8Params {
  int f;     // mantissa bits
  int bias;  // exponent bias
};
NaiveFp8Params fp8_params(Fp8Kind kind) {
  return kind == Fp8Kind::Fp8 ? NaiveFp8Params{3, 8} : NaiveFp8Params{2, 16};
}

// Multiple of 2^unit nearest x toward -inf (floor) or toward zero (trunc), in place.
void floor_to(mpfr_t x, int unit) {
  require_exact(mpfr_mul_2si(x, x, -unit, MPFR_RNDN));
  mpfr_floor(x, x);
  require_exact(mpfr_mul_2si(x, x, unit, MPFR_RNDN));
}
void trunc_to(mpfr_t x, int unit) {
  require_exact(mpfr_mul_2si(x, x, -unit, MPFR_RNDN));
  mpfr_trunc(x, x);
  require_exact(mpfr_mul_2si(x, x, unit, MPFR_RNDN));
}

float naive_fp8_block(const std::uint8_t* a, Fp8Kind ak, const std::uint8_t* b, Fp8Kind bk,
                      std::size_t n, float c) {
  std::vector<double> x(n), y(n);
  bool any_nan = std::isnan(c);
  for (std::size_t j = 0; j < n; ++j) {
    x[j] = naive_fp8_value(a[j], ak);
    y[j] = naive_fp8_value(b[j], bk);
    any_nan = any_nan || std::isnan(x[j]) || std::isnan(y[j]);
  }
  if (any_nan) return std::numeric_limits<float>::quiet_NaN();
  if (std::isinf(c)) return c;
  const int emin_a = 1 - fp8_params(ak).bias, emin_b = 1 - fp8_params(bk).bias;

  // The product exponents and each half's maximum (an empty or all-zero half: -126).
  std::vector<int> pe(n);
  int e_half[2] = {-126, -126};
  bool seen[2] = {false, false};
  for (std::size_t j = 0; j < n; ++j) {
    const bool zero = x[j] == 0 || y[j] == 0;
    pe[j] = zero ? -126 : model_exponent(x[j], emin_a) + model_exponent(y[j], emin_b);
    const std::size_t h = j % 2;
    e_half[h] = seen[h] ? std::max(e_half[h], pe[j]) : pe[j];
    seen[h] = true;
  }
  // Half sums: each exact product truncated toward zero to 2^(E_h - 24).
  Mp half_sum[2];
  for (std::size_t j = 0; j < n; ++j) {
    Mp p;
    require_exact(mpfr_set_d(p.v, x[j], MPFR_RNDN));
    require_exact(mpfr_mul_d(p.v, p.v, y[j], MPFR_RNDN));
    trunc_to(p.v, e_half[j % 2] - 24);
    require_exact(mpfr_add(half_sum[j % 2].v, half_sum[j % 2].v, p.v, MPFR_RNDN));
  }
  // The two halves floored to 2^(E - 24) and added.
  const int e_max = std::max(e_half[0], e_half[1]);
  floor_to(half_sum[0].v, e_max - 24);
  floor_to(half_sum[1].v, e_max - 24);
  Mp sum;
  require_exact(mpfr_add(sum.v, half_sum[0].v, half_sum[1].v, MPFR_RNDN));

  // Combination with c.
  const int e_c = (c == 0 || std::fabs(c) < std::ldexp(1.0f, -126)) ? -126 : std::ilogb(c);
  const int m = std::max(e_max, e_c);
  floor_to(sum.v, m - 31);
  Mp cr;
  if (e_c >= m - 25) {
    require_exact(mpfr_set_flt(cr.v, c, MPFR_RNDN));
    floor_to(cr.v, m - 24);
  }
  Mp total;
  require_exact(mpfr_add(total.v, sum.v, cr.v, MPFR_RNDN));
  if (mpfr_zero_p(total.v)) return 0.0f;
  return to_f32_rtne(total.v);
}

// The tf32 value of an fp32 input: truncated toward zero to 11 significant bits (quantum
// 2^(max(e, -126) - 10)). A NaN whose payload is only in the 13 cleared bits becomes an
// infinity, as the literal bit truncation does (documented in mfma.hpp).
double naive_tf32(float v) {
  if (std::isnan(v)) {
    const std::uint32_t u = std::bit_cast<std::uint32_t>(v);
    if ((u & 0x007FE000u) == 0) return std::signbit(v) ? -HUGE_VAL : HUGE_VAL;
    return std::numeric_limits<double>::quiet_NaN();
  }
  if (std::isinf(v) || v == 0) return static_cast<double>(v);
  Mp x;
  require_exact(mpfr_set_flt(x.v, v, MPFR_RNDN));
  return round_to_format(x.v, 11, -126, 127, MpfrRounding::TowardZero);
}

bool is_special(double v) { return std::isnan(v) || std::isinf(v); }

}  // namespace

double naive_fp8_value(std::uint8_t bits, Fp8Kind kind) {
  if (bits == 0x80) return std::numeric_limits<double>::quiet_NaN();
  const NaiveFp8Params p = fp8_params(kind);
  const double sign = (bits & 0x80) ? -1.0 : 1.0;
  const int e = (bits & 0x7F) >> p.f;
  const int m = bits & ((1 << p.f) - 1);
  if (e == 0) return sign * std::ldexp(static_cast<double>(m) / (1 << p.f), 1 - p.bias);
  return sign * std::ldexp(1.0 + static_cast<double>(m) / (1 << p.f), e - p.bias);
}

float naive_mfma_dot_fp8(const std::vector<std::uint8_t>& a, Fp8Kind a_kind,
                         const std::vector<std::uint8_t>& b, Fp8Kind b_kind, float c) {
  if (a.size() != b.size()) throw std::invalid_argument("naive_mfma_dot_fp8: length mismatch");
  float acc = c;
  for (std::size_t i = 0; i < a.size(); i += 16) {
    acc = naive_fp8_block(a.data() + i, a_kind, b.data() + i, b_kind,
                          std::min<std::size_t>(16, a.size() - i), acc);
  }
  return acc;
}

float naive_mfma_dot_xf32(const std::vector<float>& a, const std::vector<float>& b, float c) {
  if (a.size() != b.size()) throw std::invalid_argument("naive_mfma_dot_xf32: length mismatch");
  float acc = c;
  for (std::size_t i = 0; i < a.size(); i += 4) {
    const std::size_t n = std::min<std::size_t>(4, a.size() - i);
    std::vector<double> x(n), y(n);
    for (std::size_t j = 0; j < n; ++j) {
      x[j] = naive_tf32(a[i + j]);
      y[j] = naive_tf32(b[i + j]);
    }
    acc = naive_fused_block(x, y, -126, acc);
  }
  return acc;
}

std::int32_t naive_mfma_dot_i8(const std::vector<std::int8_t>& a,
                               const std::vector<std::int8_t>& b, std::int32_t c,
                               bool saturate) {
  if (a.size() != b.size()) throw std::invalid_argument("naive_mfma_dot_i8: length mismatch");
  long long s = c;
  for (std::size_t j = 0; j < a.size(); ++j) s += static_cast<long long>(a[j]) * b[j];
  const long long lo = -2147483648LL, hi = 2147483647LL;
  if (saturate) return static_cast<std::int32_t>(s < lo ? lo : s > hi ? hi : s);
  // The representative of s modulo 2^32 in [-2^31, 2^31).
  long long r = s % 4294967296LL;
  if (r < lo) r += 4294967296LL;
  if (r > hi) r -= 4294967296LL;
  return static_cast<std::int32_t>(r);
}

float naive_mfma_dot_f32(const std::vector<float>& a, const std::vector<float>& b, float c,
                         bool flush_denormals) {
  if (a.size() != b.size()) throw std::invalid_argument("naive_mfma_dot_f32: length mismatch");
  const float tiny = std::ldexp(1.0f, -126);
  auto flush = [&](float v) {
    return flush_denormals && std::fabs(v) < tiny ? std::copysign(0.0f, v) : v;
  };
  float acc = flush(c);
  for (std::size_t j = 0; j < a.size(); ++j) {
    const float x = flush(a[j]), y = flush(b[j]);
    if (is_special(x) || is_special(y) || is_special(acc)) {
      // IEEE 754 rules for infinities and NaN (the product of two finite floats is exact in
      // double, so this is exact for every finite-times-finite plus infinity case as well).
      acc = static_cast<float>(std::fma(static_cast<double>(x), static_cast<double>(y),
                                        static_cast<double>(acc)));
    } else {
      Mp p, t;
      require_exact(mpfr_set_flt(p.v, x, MPFR_RNDN));
      require_exact(mpfr_mul_d(p.v, p.v, static_cast<double>(y), MPFR_RNDN));
      require_exact(mpfr_set_flt(t.v, acc, MPFR_RNDN));
      require_exact(mpfr_add(t.v, p.v, t.v, MPFR_RNDN));  // IEEE signs of an exact zero
      acc = static_cast<float>(round_to_format(t.v, 24, -126, 127, MpfrRounding::NearestEven));
    }
    acc = flush(acc);
  }
  return std::isnan(acc) ? std::numeric_limits<float>::quiet_NaN() : acc;
}

double naive_mfma_dot_f64(const std::vector<double>& a, const std::vector<double>& b,
                          double c) {
  if (a.size() != b.size()) throw std::invalid_argument("naive_mfma_dot_f64: length mismatch");
  double acc = c;
  for (std::size_t j = 0; j < a.size(); ++j) {
    if (is_special(a[j]) || is_special(b[j]) || is_special(acc)) {
      acc = std::fma(a[j], b[j], acc);  // IEEE special-value rules only
      continue;
    }
    // Exact: products reach 2^-2148 .. 2^2048, sums need < 4300 bits.
    mpfr_t p, t;
    mpfr_init2(p, 4400);
    mpfr_init2(t, 4400);
    require_exact(mpfr_set_d(p, a[j], MPFR_RNDN));
    require_exact(mpfr_mul_d(p, p, b[j], MPFR_RNDN));
    require_exact(mpfr_set_d(t, acc, MPFR_RNDN));
    require_exact(mpfr_add(t, p, t, MPFR_RNDN));
    acc = round_to_format(t, 53, -1022, 1023, MpfrRounding::NearestEven);
    mpfr_clear(p);
    mpfr_clear(t);
  }
  return std::isnan(acc) ? std::numeric_limits<double>::quiet_NaN() : acc;
}

namespace {

// The code (sign applied, no -0) of a value that the format holds exactly; searches all
// positive codes.
std::uint8_t code_of(double v, Fp8Kind kind) {
  if (v == 0) return 0;
  for (int code = 1; code < 0x80; ++code) {
    if (naive_fp8_value(static_cast<std::uint8_t>(code), kind) == std::fabs(v)) {
      return static_cast<std::uint8_t>(v < 0 ? code | 0x80 : code);
    }
  }
  throw std::logic_error("naive fp8: value not representable");
}

double fp8_max(Fp8Kind kind) { return kind == Fp8Kind::Fp8 ? 240.0 : 57344.0; }

}  // namespace

std::uint8_t naive_fp8_from_f32_rne(float x, Fp8Kind kind, bool saturate) {
  if (std::isnan(x) || std::isinf(x)) return 0x80;
  const NaiveFp8Params p = fp8_params(kind);
  Mp v;
  require_exact(mpfr_set_flt(v.v, x, MPFR_RNDN));
  // binary8 with p.f + 1 significant bits, normal binades 2^(1-bias) .. 2^(maxfield-bias).
  const int emax = (kind == Fp8Kind::Fp8 ? 15 : 31) - p.bias;
  const double r = round_to_format(v.v, p.f + 1, 1 - p.bias, emax, MpfrRounding::NearestEven);
  if (std::isinf(r) || std::fabs(r) > fp8_max(kind)) {
    return saturate ? code_of(std::copysign(fp8_max(kind), r), kind) : 0x80;
  }
  return code_of(r, kind);
}

std::uint8_t naive_fp8_from_f32_sr(float x, std::uint32_t random, Fp8Kind kind, bool saturate) {
  if (std::isnan(x) || std::isinf(x)) return 0x80;
  if (x == 0) return 0;
  const NaiveFp8Params p = fp8_params(kind);
  const int w = 23 - p.f;
  // q = 2^(max(e, emin) - F), e = floor(log2 |x|).
  const int e = std::ilogb(x);
  const int qexp = std::max(e, 1 - p.bias) - p.f;
  Mp t;
  require_exact(mpfr_set_flt(t.v, std::fabs(x), MPFR_RNDN));
  require_exact(mpfr_mul_2si(t.v, t.v, w - qexp, MPFR_RNDN));  // |x| * 2^W / q
  mpfr_floor(t.v, t.v);
  require_exact(mpfr_add_ui(t.v, t.v, random % (1u << w), MPFR_RNDN));
  require_exact(mpfr_mul_2si(t.v, t.v, -w, MPFR_RNDN));
  mpfr_floor(t.v, t.v);
  require_exact(mpfr_mul_2si(t.v, t.v, qexp, MPFR_RNDN));
  const double r = std::copysign(mpfr_get_d(t.v, MPFR_RNDN), x);  // exact: few bits
  if (std::fabs(r) > fp8_max(kind)) {
    return saturate ? code_of(std::copysign(fp8_max(kind), r), kind) : 0x80;
  }
  return code_of(r, kind);
}

// ---- sparse: pair each stored entry with its B entry, group by group, then the dense model

namespace {
template <class T>
std::vector<T> selected_b(std::size_t stored, const std::vector<std::uint8_t>& sel,
                          const std::vector<T>& b) {
  if (sel.size() != stored || b.size() != 2 * stored || stored % 2 != 0)
    throw std::invalid_argument("naive smfmac: expected |sel| = |a| (even) and |b| = 2|a|");
  std::vector<T> out;
  for (std::size_t g = 0; g < stored / 2; ++g)
    for (std::size_t slot = 0; slot < 2; ++slot) {
      const std::uint8_t pos = sel[2 * g + slot];
      if (pos > 3) throw std::invalid_argument("naive smfmac: a 4:2 index is 0..3");
      out.push_back(b[4 * g + pos]);
    }
  return out;
}
}  // namespace

float naive_smfmac_dot(InputFormat format, const std::vector<std::uint16_t>& a,
                       const std::vector<std::uint8_t>& sel, const std::vector<std::uint16_t>& b,
                       float c) {
  return naive_mfma_dot(format, a, selected_b(a.size(), sel, b), c);
}

float naive_smfmac_dot_fp8(const std::vector<std::uint8_t>& a, Fp8Kind a_kind,
                           const std::vector<std::uint8_t>& sel,
                           const std::vector<std::uint8_t>& b, Fp8Kind b_kind, float c) {
  return naive_mfma_dot_fp8(a, a_kind, selected_b(a.size(), sel, b), b_kind, c);
}

std::int32_t naive_smfmac_dot_i8(const std::vector<std::int8_t>& a,
                                 const std::vector<std::uint8_t>& sel,
                                 const std::vector<std::int8_t>& b, std::int32_t c) {
  return naive_mfma_dot_i8(a, selected_b(a.size(), sel, b), c, false);
}

}  // namespace cdna::numerics::testing
