// The bf16/f16 MFMA block model over a whole output tile (contract: numerics/mfma_tile.hpp;
// proof of equality with the per-element model, step by step: docs/mfma-tile.md).
//
// Units, as in numerics/mfma.cpp: an input is sig * 2^(e - F); a product's exponent is
// e_a + e_b; the block sum S counts units of 2^(E - 24), E the block's largest product exponent.
#include "numerics/mfma_tile.hpp"

#include <algorithm>
#include <bit>
#include <cfenv>
#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#endif
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "numerics/mfma.hpp"

namespace cdna::numerics {
namespace {

bool host_arithmetic_is_ieee_nearest() {
  if (std::fegetround() != FE_TONEAREST) return false;
#if defined(__SSE__) || defined(__x86_64__)
  constexpr unsigned kFtz = 1u << 15, kDaz = 1u << 6;
  if ((_mm_getcsr() & (kFtz | kDaz)) != 0) return false;
#endif
  return true;
}

constexpr int kMax = kMfmaTileMaxDim;
constexpr int kBlock = 8;      // products per block (cdna3-facts.md §4 step 1)
constexpr int kZeroExp = -126;  // a zero product's exponent when E is taken (numerics/mfma.hpp)
// Exponent stored for a zero input: a product exponent with it (<= -2^20 + 127) never exceeds
// a real one (>= -252), so a zero product never sets E by itself (the -126 rule is applied
// apart). Exponent stored for inf/NaN: every product exponent with it is >= 2^20, so such an
// output has E >= 127 and goes to the definition with the products that may overflow.
constexpr std::int32_t kZeroInput = -(1 << 20);
constexpr std::int32_t kSpecialInput = 1 << 21;

// An IEEE-style 16-bit input format: Frac mantissa bits, ExpBits exponent bits, sign at bit 15.
template <int Frac, int ExpBits, float (*Definition)(std::span<const std::uint16_t>,
                                                     std::span<const std::uint16_t>, float)>
struct Format {
  static constexpr int kFrac = Frac;
  static constexpr std::uint32_t kExpMask = (1u << ExpBits) - 1u;
  static constexpr std::uint32_t kManMask = (1u << Frac) - 1u;
  static constexpr int kBias = (1 << (ExpBits - 1)) - 1;
  static constexpr int kEmin = 1 - kBias;  // exponent of subnormals (never flushed)
  // Puts a product's 2*Frac fraction bits on the 2^(E-24) grid when its exponent is E.
  static constexpr int kAlign = 24 - 2 * Frac;
  static float definition(std::span<const std::uint16_t> a, std::span<const std::uint16_t> b,
                          float c) {
    return Definition(a, b, c);
  }
};
using Bf16 = Format<7, 8, mfma_dot_bf16>;
using F16 = Format<10, 5, mfma_dot_f16>;

// Decodes count inputs: signed significand as a float times 2^scale (exact: at most 11 bits),
// exponent (kZeroInput for a zero, kSpecialInput for inf or NaN). Branch-free element-wise
// form so that the loop vectorises.
template <class Fmt>
void decode(const std::uint16_t* __restrict x, int count, int scale, float* __restrict sig,
            std::int32_t* __restrict exp) {
  for (int i = 0; i < count; ++i) {
    const std::uint32_t v = x[i];
    const std::uint32_t ef = (v >> Fmt::kFrac) & Fmt::kExpMask;
    const std::uint32_t s = (v & Fmt::kManMask) | (ef != 0 ? Fmt::kManMask + 1u : 0u);
    const float mag = static_cast<float>(static_cast<std::int32_t>(s << scale));  // < 2^22: exact
    sig[i] = std::bit_cast<float>(std::bit_cast<std::uint32_t>(mag) | (v >> 15) << 31);
    // A subnormal's exponent e_min = 1 - bias, as max(ef, 1) gives.
    const std::int32_t e = s == 0 ? kZeroInput : static_cast<std::int32_t>(std::max(ef, 1u)) - Fmt::kBias;
    exp[i] = ef == Fmt::kExpMask ? kSpecialInput : e;
  }
}

// 2^x as a double, for -1022 <= x <= 1023 (callers stay within [-300, 300]).
inline double pow2(std::int32_t x) {
  return std::bit_cast<double>(static_cast<std::uint64_t>(x + 1023) << 52);
}
// 2^-d as a float, for 0 <= d <= 31.
inline float pow2_neg(std::int32_t d) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(127 - d) << 23);
}

// The decoded tile: A row-major [m][k], B transposed to [k][n] so that the output index j is
// innermost and contiguous in the step-2 loops.
struct Decoded {
  float a_sig[kMax * kMax];
  std::int32_t a_exp[kMax * kMax];
  float b_sig[kMax * kMax];
  std::int32_t b_exp[kMax * kMax];
};

// Step 2 for output row i and the block [k0, k0 + nb): e[j] = E, s[j] = S of output (i, j).
// row_zero: row i of A has a zero in the block; col_zero[j]: column j of B has one. Output
// (i, j) has a zero product exactly when row_zero | col_zero[j].
inline void align_and_sum(const Decoded& t, int n, int k, int i, int k0, int nb,
                          std::int32_t row_zero, const std::int32_t* __restrict col_zero,
                          std::int32_t* __restrict e, std::int32_t* __restrict s) {
  // E: the largest product exponent, a zero product counting -126.
  for (int j = 0; j < n; ++j) e[j] = INT32_MIN;
  for (int kk = k0; kk < k0 + nb; ++kk) {
    const std::int32_t ea = t.a_exp[i * k + kk];
    const std::int32_t* __restrict eb = t.b_exp + kk * n;
    for (int j = 0; j < n; ++j) e[j] = std::max(e[j], ea + eb[j]);
  }
  for (int j = 0; j < n; ++j) e[j] = (row_zero | col_zero[j]) != 0 ? std::max(e[j], kZeroExp) : e[j];
  // Each product scaled to 2^(E-24) units and truncated toward zero: sa*sb is the exact
  // product in those units when its exponent is E (|.| < 2^26, at most 22 significant bits:
  // exact in float); times 2^-d exact (no underflow); the conversion truncates toward zero.
  // A zero product is 0 whatever d; d <= 31 keeps 2^-d a normal float and every term of a
  // product 2^26 or more below E a zero, as the model's shift gives.
  for (int j = 0; j < n; ++j) s[j] = 0;
  for (int kk = k0; kk < k0 + nb; ++kk) {
    const float sa = t.a_sig[i * k + kk];
    const std::int32_t ea = t.a_exp[i * k + kk];
    const float* __restrict sb = t.b_sig + kk * n;
    const std::int32_t* __restrict eb = t.b_exp + kk * n;
    for (int j = 0; j < n; ++j) {
      const std::int32_t d = std::min(e[j] - (ea + eb[j]), 31);
      s[j] += static_cast<std::int32_t>(sa * sb[j] * pow2_neg(d));
    }
  }
}

// Step 3 for one output row: c[j] = RNE_fp32(floor(S to 2^(M-31)) + floor(c to 2^(M-24))),
// M = max(E, e_c), through doubles in which both terms and their sum are exact.
inline void combine(int n, const std::int32_t* __restrict e, const std::int32_t* __restrict s,
                    float* __restrict c) {
  for (int j = 0; j < n; ++j) {
    const std::uint32_t cb = std::bit_cast<std::uint32_t>(c[j]);
    const std::int32_t cf = static_cast<std::int32_t>((cb >> 23) & 0xFFu);
    const std::int32_t cm = static_cast<std::int32_t>(cb & 0x7FFFFFu) | (cf != 0 ? 0x800000 : 0);
    const std::int32_t sc = (cb >> 31) != 0 ? -cm : cm;  // c = sc * 2^(e_c - 23)
    const std::int32_t e_c = cf != 0 ? cf - 127 : -126;
    const std::int32_t mm = std::max(e[j], e_c);
    const std::int32_t q = std::max(mm - e[j] - 7, 0);  // bits S loses on the 2^(M-31) grid
    const std::int32_t qc = std::max(mm - e_c - 1, 0);  // bits c loses on the 2^(M-24) grid
    const double vb = static_cast<double>(s[j] >> std::min(q, 31)) * pow2(e[j] - 24 + q);
    const double vc = static_cast<double>(sc >> std::min(qc, 31)) * pow2(e_c - 23 + qc);
    c[j] = static_cast<float>(vb + vc);
  }
}

template <class Fmt>
void tile(std::span<const std::uint16_t> a, std::span<const std::uint16_t> b, std::span<float> c,
          int m, int n, int k) {
  auto bad = [](const std::string& what) {
    throw std::invalid_argument("mfma_tile: " + what);
  };
  if (m < 1 || m > kMax || n < 1 || n > kMax || k < 0 || k > kMax)
    bad("m, n must be in 1..64 and k in 0..64 (got m " + std::to_string(m) + ", n " +
        std::to_string(n) + ", k " + std::to_string(k) + ")");
  const auto mk = static_cast<std::size_t>(m * k), nk = static_cast<std::size_t>(n * k);
  if (a.size() != mk || b.size() != nk || c.size() != static_cast<std::size_t>(m * n))
    bad("spans must hold m*k, n*k and m*n elements (got " + std::to_string(a.size()) + ", " +
        std::to_string(b.size()) + ", " + std::to_string(c.size()) + ")");
  if (k == 0) return;
  // The float products and the final double -> float conversion must be IEEE 754 with gradual
  // underflow, rounding to nearest: the host's rounding mode, and on x86 MXCSR's FTZ (bit 15,
  // flush subnormal results) and DAZ (bit 6, read subnormal inputs as zero) bits, which e.g. a
  // host process built with -ffast-math sets (Intel SDM vol. 1 §10.2.3). Otherwise the definition.
  if (!host_arithmetic_is_ieee_nearest()) {
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j)
        c[static_cast<std::size_t>(i * n + j)] =
            Fmt::definition(a.subspan(static_cast<std::size_t>(i * k), static_cast<std::size_t>(k)),
                            b.subspan(static_cast<std::size_t>(j * k), static_cast<std::size_t>(k)),
                            c[static_cast<std::size_t>(i * n + j)]);
    return;
  }

  Decoded t;  // about 64 KiB on the stack (plus 32 KiB while B is transposed): no allocation
  decode<Fmt>(a.data(), m * k, Fmt::kAlign, t.a_sig, t.a_exp);
  {
    // B decoded in its own order, then transposed to [k][n].
    float sig[kMax * kMax];
    std::int32_t exp[kMax * kMax];
    decode<Fmt>(b.data(), n * k, 0, sig, exp);
    for (int j = 0; j < n; ++j)
      for (int kk = 0; kk < k; ++kk) {
        t.b_sig[kk * n + j] = sig[j * k + kk];
        t.b_exp[kk * n + j] = exp[j * k + kk];
      }
  }

  std::int32_t e[kMax], s[kMax], col_zero[kMax];
  float c_in[kMax];
  for (int k0 = 0; k0 < k; k0 += kBlock) {
    const int nb = std::min(kBlock, k - k0);
    for (int j = 0; j < n; ++j) col_zero[j] = 0;
    for (int kk = k0; kk < k0 + nb; ++kk)
      for (int j = 0; j < n; ++j) col_zero[j] |= t.b_exp[kk * n + j] == kZeroInput ? 1 : 0;
    for (int i = 0; i < m; ++i) {
      std::int32_t row_zero = 0;
      for (int kk = k0; kk < k0 + nb; ++kk) row_zero |= t.a_exp[i * k + kk] == kZeroInput ? 1 : 0;
      float* crow = c.data() + i * n;
      std::copy(crow, crow + n, c_in);
      align_and_sum(t, n, k, i, k0, nb, row_zero, col_zero, e, s);
      combine(n, e, s, crow);
      // NaN or infinity among the inputs or in c, or a product that may reach 2^128 (exponent
      // >= 127): the definition decides (numerics/mfma.cpp special_block). Rare: one vector
      // test per row, the per-output calls only when it finds one.
      std::int32_t any = 0;
      for (int j = 0; j < n; ++j)
        any |= (e[j] >= 127) | ((std::bit_cast<std::uint32_t>(c_in[j]) & 0x7F800000u) == 0x7F800000u);
      if (any == 0) continue;
      for (int j = 0; j < n; ++j)
        if (e[j] >= 127 || (std::bit_cast<std::uint32_t>(c_in[j]) & 0x7F800000u) == 0x7F800000u)
          crow[j] = Fmt::definition(
              a.subspan(static_cast<std::size_t>(i * k + k0), static_cast<std::size_t>(nb)),
              b.subspan(static_cast<std::size_t>(j * k + k0), static_cast<std::size_t>(nb)), c_in[j]);
    }
  }
}

}  // namespace

void mfma_tile_bf16(std::span<const std::uint16_t> a, std::span<const std::uint16_t> b,
                    std::span<float> c, int m, int n, int k) {
  tile<Bf16>(a, b, c, m, n, k);
}

void mfma_tile_f16(std::span<const std::uint16_t> a, std::span<const std::uint16_t> b,
                   std::span<float> c, int m, int n, int k) {
  tile<F16>(a, b, c, m, n, k);
}

}  // namespace cdna::numerics
