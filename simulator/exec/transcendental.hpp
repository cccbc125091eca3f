// The transcendental unit (v_exp/log/rcp/rsq/sqrt/sin/cos_f32 and _f16) and the f64
// v_rcp/rsq/sqrt_f64: correctly rounded results and the seeded envelope within the documented
// error.
//
// Hardware: the algorithms are not published; the ISA guide documents these instructions as
// accurate to 1 ULP with denormals flushed (inputs and results) whatever MODE says
// (cdna3-facts.md §6). MODE's round mode is not documented to act on them either, so here it
// does not: they are approximations, not IEEE operations.
//
// Evaluation: the exact value is approximated in double (glibc exp2/log2, IEEE division and
// square root, or sinl/cosl after an exact reduction of the angle to a quarter turn), with a
// relative error below 2^-50 (glibc manual, "Known Maximum Errors in Math Functions": at most
// a few ulp of double; division and sqrt are correctly rounded). When that approximation lies
// within 2^-44 (relative) of an f32 value or of a midpoint between two, the result is decided
// by MPFR instead (about one input in 2^18), so the results below are exact statements about the
// mathematical value, not about libm.
#pragma once

#include <cstdint>

namespace cdna::simulator {

enum class Trans : std::uint8_t { Exp2, Log2, Rcp, Rsq, Sqrt, Sin, Cos };

// f32 bits of f(x) rounded to nearest even (x: f32 bits, already flushed). Sin/Cos take the
// angle in revolutions (sin(2*pi*x)). Special values: exp2(-inf) = 0, log2(+-0) = -inf, log2 of
// a negative number = NaN, rcp(+-0) = +-inf, rsq(+-0) = +-inf, rsq/sqrt of a negative number
// = NaN, sin/cos(+-inf) = NaN; a zero sin/cos takes the sign of x (sin) or is +0 (cos).
// The result is not flushed (the caller flushes).
std::uint32_t trans_nearest(Trans f, std::uint32_t x);

// Envelope mode: one of the two f32 values that bracket the exact f(x) (round down or round up),
// chosen by a hash of (seed, f, x); both lie within 1 ULP of the exact value. Returns the
// nearest-even result when the exact value is an f32 value, is special (NaN, inf, zero) or
// when that result overflows or underflows to zero; an infinite bracket end is never chosen.
std::uint32_t trans_envelope(Trans f, std::uint32_t x, std::uint64_t seed);

// The f16 forms (v_exp/log/rcp/rsq/sqrt/sin/cos_f16): x and the result are f16 bit patterns
// (bits 15:0). Documented as 1 ULP (CDNA3 ISA guide, VOP1 V_RCP_F16 .. V_EXP_F16; no figure for
// V_SIN_F16/V_COS_F16, 1 ULP assumed) with f16 denormals supported: subnormal results are kept
// (the caller flushes per MODE). Special values as the f32 forms, except that an invalid operation
// (log/sqrt/rsq of a negative number, sin/cos of an infinity) gives 0xfe00 and a zero sine of a
// nonzero x is +0 (sin(-65504) = +0), as in the guide's functional examples. Envelope: as
// trans_envelope, one of the two bracketing f16 values.
std::uint32_t trans_nearest16(Trans f, std::uint32_t x);
std::uint32_t trans_envelope16(Trans f, std::uint32_t x, std::uint64_t seed);

// v_rcp_f64 / v_rsq_f64 / v_sqrt_f64 (f = Rcp, Rsq or Sqrt; x and the result f64 bit patterns).
// Documented as "(2**29)ULP accuracy" with denormals supported (CDNA3 ISA guide, VOP1 V_RCP_F64,
// V_RSQ_F64, V_SQRT_F64); the hardware result is not published. Default: the correctly rounded
// (nearest even) result, subnormals kept. Envelope: that result moved by a hashed number of
// units in the last place in [-(2^28 - 1), 2^28 - 1] (so within 2^29 ULP of the exact value even
// across a binade), never across zero or to infinity; exact and special results stay as in the
// default mode. NaN inputs are returned as they are (the caller quiets them).
std::uint64_t trans_nearest64(Trans f, std::uint64_t x);
std::uint64_t trans_envelope64(Trans f, std::uint64_t x, std::uint64_t seed);

}  // namespace cdna::simulator
