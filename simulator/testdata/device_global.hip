// A kernel reading a __device__ variable that host code names (as MoonMath's `tail_sched`,
// written by hipMemcpyToSymbolAsync): clang-19 then gives the variable default visibility and
// the kernel loads its address from a GOT entry that the loader fills through a dynamic
// relocation (R_AMDGPU_ABS64). out[i] = cdna_table[i]; the host writes the table before the
// launch (device::Dispatch::symbols), under the mangled name _ZN12_GLOBAL__N_110cdna_tableE.
#include <hip/hip_runtime.h>

namespace {
__device__ int cdna_table[64];
}

extern "C" __global__ void read_table(int* out) { out[threadIdx.x] = cdna_table[threadIdx.x]; }

// Host code naming the variable (what makes it a GOT access); never called.
const void* cdna_table_symbol() { return HIP_SYMBOL(cdna_table); }
