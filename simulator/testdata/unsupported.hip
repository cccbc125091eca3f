// An instruction the simulator does not implement (v_fma_mix_f32) in an otherwise fine kernel.
#include <hip/hip_runtime.h>

extern "C" __global__ void uses_fma_mix(const float* in, int* out) {
  int t = threadIdx.x;
  int r;
  asm volatile("v_fma_mix_f32 %0, %1, %2, %2" : "=v"(r) : "v"(in[t]), "v"(in[t]));
  out[t] = r;
}
