// The 8-bit floating-point formats of gfx942 (MI300X) and its conversions to and from fp32.
//
// Formats (cdna3-facts.md §6; AMD's amd_hip_fp8.h / composable_kernel float8.hpp format tables;
// the FNUZ layouts of LLVM APFloat's Float8E4M3FNUZ / Float8E5M2FNUZ):
//
//   kind  name        bits           bias  min subnormal  min normal  max     code of max
//   Fp8   E4M3FNUZ    s eeee mmm      8     2^-10          2^-7        240     0x7F / 0xFF
//   Bf8   E5M2FNUZ    s eeeee mm     16     2^-17          2^-15       57344   0x7F / 0xFF
//
// value = (-1)^s * 2^(e - bias) * (1 + m / 2^F) for e != 0 (F = 3 or 2 mantissa bits), and
// (-1)^s * 2^(1 - bias) * m / 2^F for e == 0. Every exponent code is finite: there is no
// infinity. 0x80 (the pattern of -0) is the only NaN; zero is only 0x00 (no -0).
//
// Conversions model the gfx942 instructions v_cvt_f32_fp8 / v_cvt_f32_bf8 (and the _pk_ forms),
// v_cvt_pk_fp8_f32 / v_cvt_pk_bf8_f32 (round to nearest even) and v_cvt_sr_fp8_f32 /
// v_cvt_sr_bf8_f32 (stochastic rounding). What is published and what is chosen here:
//
// * Rounding to nearest even for the _pk_ forms: cdna3-facts.md §6. Subnormal results are kept
//   (gradual underflow); a result that rounds to zero is +0 (0x00), whatever the input sign,
//   since the format has no -0. fp32 subnormal inputs (< 2^-126) are far below half the least
//   fp8/bf8 subnormal, so they give 0x00 under every denormal mode: MODE's fp32 denormal
//   setting cannot change a result.
//
// * Stochastic rounding: cdna3-facts.md §6 says "add a given 32-bit random value and
//   truncate". The bit-level rule is NOT in any source found here (the CDNA3 ISA guide text was
//   not reachable; LLVM's IntrinsicsAMDGPU.td only gives the operands). This file uses the rule
//   of AMD's own host-side emulation, `cast_to_f8(..., stoch = true, rng)` in HIP's
//   amd_hip_fp8.h (taken from rocBLAS rocblas_hip_f8_impl.h): the 24-bit significand of |x|
//   (implicit bit included) is first shifted right so that its low W = 23 - F bits are exactly
//   the bits below the fp8 quantum at |x| (for results in the fp8 subnormal range the bits
//   shifted out beyond those W are discarded, i.e. truncated), then the LOW W bits of the random
//   value are added and the low W bits dropped. In value terms, with q the fp8 quantum at |x|
//   (2^(max(e, emin) - F), e = floor(log2 |x|)):
//       |result| = floor((floor(|x| * 2^W / q) + (random mod 2^W)) / 2^W) * q.
//   The upper 32 - W bits of the random value are ignored. A different bit selection (for
//   example the HIGH W bits, as a gfx1250 comgr patch in ROCm/llvm-project PR 3275 uses) would
//   give other results for the same random value: the rule is an assumption until checked on
//   an MI300X.
//
// * Overflow (a finite input whose rounded magnitude exceeds the maximum) is controlled by
//   Fp8Overflow. cdna3-facts.md says it "depends on a MODE bit; unverified here", and no source
//   found here names the bit or its reset value: LLVM 19's gfx942 assembler rejects a `clamp`
//   modifier on these four instructions (checked with llvm-mc-19), and AMD's HIP header
//   amd_hip_fp8.h, when asked to saturate, clamps in software with v_med3_f32 to ±240 / ±57344
//   before calling the hardware conversion, which suggests the hardware's default does not
//   saturate. Default chosen here: Fp8Overflow::ToNaN (overflow gives 0x80, as the format has
//   no infinity). Fp8Overflow::Saturate gives ±max (0x7F / 0xFF).
//
// * NaN and ±inf inputs give 0x80 in both overflow modes (amd_hip_fp8.h's host emulation maps
//   both to 0x80 and its saturating device path does not clamp them; an infinity is not a
//   finite overflow). Unverified on hardware.
//
// * Decoding 0x80 gives the fp32 quiet NaN 0x7FC00000. The exact NaN pattern v_cvt_f32_fp8
//   writes is not published; this one is chosen.
//
// Everything here is integer code, allocation-free and thread-safe; a conversion costs about
// 6 ns (numerics_mfma_bench).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace cdna::numerics {

// Which 8-bit format a byte holds (the fp8 / bf8 of the instruction names).
enum class Fp8Kind : std::uint8_t {
  Fp8 = 0,  // E4M3FNUZ: 4 exponent bits, bias 8, 3 mantissa bits, max 240
  Bf8 = 1,  // E5M2FNUZ: 5 exponent bits, bias 16, 2 mantissa bits, max 57344
};

inline constexpr Fp8Kind kAllFp8Kinds[] = {Fp8Kind::Fp8, Fp8Kind::Bf8};

// The only NaN pattern of both formats.
inline constexpr std::uint8_t kFp8NaN = 0x80;

// Result of a finite fp32 input whose rounded magnitude is above the format's maximum.
// See the header comment: which one the hardware does (and under which MODE bit) is not
// published; ToNaN is the documented default.
enum class Fp8Overflow : std::uint8_t {
  ToNaN = 0,     // 0x80
  Saturate = 1,  // ±max: 0x7F / 0xFF
};

// Format constants.
struct Fp8Format {
  int mantissa_bits;  // F: 3 (Fp8) or 2 (Bf8)
  int bias;           // 8 or 16
  int emin;           // exponent of the least normal and of subnormals: 1 - bias
  int emax;           // exponent of the largest binade: 15 - 8 = 7 or 31 - 16 = 15
  float max_value;    // 240 or 57344
};
constexpr Fp8Format fp8_format(Fp8Kind kind) {
  return kind == Fp8Kind::Fp8 ? Fp8Format{3, 8, -7, 7, 240.0f}
                              : Fp8Format{2, 16, -15, 15, 57344.0f};
}

// "Fp8" / "Bf8".
std::string_view to_string(Fp8Kind kind);

// fp8/bf8 pattern -> fp32, exact (v_cvt_f32_fp8 / v_cvt_f32_bf8 on one byte).
// 0x80 gives the quiet NaN 0x7FC00000 (pattern chosen, see above); 0x00 gives +0.
float f32_from_fp8(std::uint8_t bits, Fp8Kind kind);

// fp32 -> fp8/bf8, round to nearest even (one element of v_cvt_pk_fp8_f32 / _bf8_f32).
std::uint8_t fp8_from_f32_rne(float x, Fp8Kind kind, Fp8Overflow overflow = Fp8Overflow::ToNaN);

// fp32 -> fp8/bf8, stochastic rounding with the 32-bit random value `random` (v_cvt_sr_fp8_f32 /
// _bf8_f32 with src1 = random): magnitude truncated after adding the low 23 - F bits of
// `random` to the bits below the kept ones (rule and its source: header comment).
std::uint8_t fp8_from_f32_sr(float x, std::uint32_t random, Fp8Kind kind,
                             Fp8Overflow overflow = Fp8Overflow::ToNaN);

// ---- Register-level forms of the instructions (operand layouts: LLVM IntrinsicsAMDGPU.td,
// llvm.amdgcn.cvt.* and amd_hip_fp8.h's uses of them) ----

// v_cvt_pk_{fp8,bf8}_f32 vdst, src0, src1 with op_sel word select: returns `old` with its low
// (high_word = false) or high 16-bit word replaced by {byte1 = cvt(src1), byte0 = cvt(src0)}.
std::uint32_t cvt_pk_fp8_f32(float src0, float src1, std::uint32_t old, bool high_word,
                             Fp8Kind kind, Fp8Overflow overflow = Fp8Overflow::ToNaN);

// v_cvt_sr_{fp8,bf8}_f32 vdst, src0, src1 with byte select: returns `old` with byte
// `byte_sel` (0..3) replaced by the stochastically rounded src0, random value src1.
// Throws std::invalid_argument if byte_sel > 3.
std::uint32_t cvt_sr_fp8_f32(float src0, std::uint32_t random, std::uint32_t old,
                             unsigned byte_sel, Fp8Kind kind,
                             Fp8Overflow overflow = Fp8Overflow::ToNaN);

// v_cvt_f32_{fp8,bf8} vdst, src0 with byte select 0..3: decodes byte `byte_sel` of src.
// Throws std::invalid_argument if byte_sel > 3.
float cvt_f32_fp8(std::uint32_t src, unsigned byte_sel, Fp8Kind kind);

// v_cvt_pk_f32_{fp8,bf8} vdst[2], src0 with word select: decodes the two bytes of the low
// (high_word = false) or high word of src; element 0 is the lower byte.
std::array<float, 2> cvt_pk_f32_fp8(std::uint32_t src, bool high_word, Fp8Kind kind);

}  // namespace cdna::numerics
