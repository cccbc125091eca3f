// Lane kernels of the f32 VALU that need more than plain host arithmetic to be exact and fast.
#pragma once

#include <cstdint>

namespace cdna::simulator {

// r[l] = fma(a[l], b[l], c[l]) for 64 lanes of f32 bit patterns, rounded once under MODE round
// mode `mode` (fp_round.hpp; the host must be in nearest-even mode on entry). Uses the host's
// FMA instructions when it has them (function multiversioning), otherwise the exact emulation
// below; both give the IEEE fusedMultiplyAdd result.
void fma32_lanes(const std::uint32_t* a, const std::uint32_t* b, const std::uint32_t* c,
                 std::uint32_t* r, std::uint32_t mode = 0);

// One f32 fma without FMA hardware: the product is exact in double, the sum is rounded to odd
// (round to nearest, then the TwoSum error decides the last bit), and the round-to-odd double
// is rounded once to f32 under `mode` — which equals the correctly rounded fma in every mode
// (Boldo & Melquiond, "When double rounding is odd"). Non-finite inputs use the host's std::fma.
// The host must be in nearest-even mode.
std::uint32_t fma32_emulated(std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint32_t mode = 0);

// IEEE-mode v_max_f32 / v_min_f32 on 64 lanes: a signalling NaN gives it quieted, a quiet NaN
// loses to a number, two NaNs give the first quieted, and -0 < +0.
void max32_lanes(const std::uint32_t* a, const std::uint32_t* b, std::uint32_t* r, bool ieee);
void min32_lanes(const std::uint32_t* a, const std::uint32_t* b, std::uint32_t* r, bool ieee);

}  // namespace cdna::simulator
