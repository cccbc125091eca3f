// fp32 -> bf16 conversion in the rounding mode a code object is built for (CDNA_BF16_ROUNDING:
// 0 RTNE, 1 RTNA, 2 RTZ; AITER's how_v3_bf16_cvt numbering). Shared by the attention kernel and
// the decode monokernel, so that both round exactly as cdna3-facts.md §6 states.
#pragma once

#include <hip/hip_runtime.h>

#ifndef CDNA_BF16_ROUNDING
#error "CDNA_BF16_ROUNDING must be 0 (RTNE), 1 (RTNA) or 2 (RTZ)"
#endif

namespace cdna::device::bf16 {

// fp32 -> bf16 bits in the kernel's mode, integer formulation of cdna3-facts.md §6. A NaN gives
// a quiet bf16 NaN in every mode (RTNE/RTNA: 0x7FFF; RTZ keeps the high half, whose quiet bit is
// the fp32 quiet bit).
__device__ __forceinline__ unsigned short to_bf16(float x) {
  const unsigned u = __builtin_bit_cast(unsigned, x);
#if CDNA_BF16_ROUNDING == 0
  if (x != x) return 0x7FFF;
  return static_cast<unsigned short>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
#elif CDNA_BF16_ROUNDING == 1
  if (x != x) return 0x7FFF;
  return static_cast<unsigned short>((u + 0x8000u) >> 16);
#elif CDNA_BF16_ROUNDING == 2
  return static_cast<unsigned short>(u >> 16);
#else
#error "CDNA_BF16_ROUNDING must be 0, 1 or 2"
#endif
}

// bf16 bits widened to fp32 (exact).
__device__ __forceinline__ float widen(unsigned short b) {
  return __builtin_bit_cast(float, static_cast<unsigned>(b) << 16);
}

}  // namespace cdna::device::bf16
