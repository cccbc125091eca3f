// An instruction the simulator does not implement (v_screen_partition_4se_b32, refused: simulator/decode/unsupported.def) in an otherwise fine kernel.
#include <hip/hip_runtime.h>

extern "C" __global__ void uses_screen_partition(const float* in, int* out) {
  int t = threadIdx.x;
  int r;
  asm volatile("v_screen_partition_4se_b32 %0, %1" : "=v"(r) : "v"(in[t]));
  out[t] = r;
}
