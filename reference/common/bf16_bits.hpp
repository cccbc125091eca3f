// bf16 bit-pattern classes and the sign of zero, shared by the exact oracle
// (reference/attention/attention.cpp) and the fast reference (reference/attention/fast_reference.cpp).
// A bf16 pattern is the upper half of an fp32 pattern: exponent field bits 14..7 all ones is inf or
// NaN; every other bit but the sign clear is ±0.
#pragma once

#include <cstdint>

namespace cdna::reference {

inline bool bf16_finite(std::uint16_t b) { return (b & 0x7F80u) != 0x7F80u; }
inline bool bf16_zero(std::uint16_t b) { return (b & 0x7FFFu) == 0; }
// −0 and +0 become +0: a zero result is +0.0 (docs/semantics.md §5, item 8).
inline double plus_zero(double x) { return x == 0 ? 0.0 : x; }

}  // namespace cdna::reference
