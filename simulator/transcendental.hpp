// The f32 transcendental unit (v_exp/log/rcp/rsq/sqrt/sin/cos_f32): correctly rounded results
// and the seeded 1-ULP envelope.
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

}  // namespace cdna::simulator
