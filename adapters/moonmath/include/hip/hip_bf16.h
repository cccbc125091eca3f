// Stand-in for ROCm's <hip/hip_bf16.h>, which Debian's HIP 5.2 lacks, for building MoonMath
// (../shared/peers/moonmath-attention, adapters/moonmath/CMakeLists.txt) with Debian's clang-19.
// MoonMath uses only the type `__hip_bfloat16`, as 16 bits it moves and reinterprets, never as
// arithmetic (found by compiling: this one type is all it needs). Its name is part of the kernels'
// mangled symbols (adapters/moonmath.cpp), so it must be a struct named exactly so, as in ROCm.
#pragma once

struct __hip_bfloat16 {
  unsigned short data;  // bf16 bits
};
