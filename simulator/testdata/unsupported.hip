// An instruction the simulator does not implement (fp8 conversion) in an otherwise fine kernel.
#include <hip/hip_runtime.h>

extern "C" __global__ void uses_fp8(const float* in, int* out) {
  int t = threadIdx.x;
  int r;
  asm volatile("v_cvt_pk_fp8_f32 %0, %1, %2" : "=v"(r) : "v"(in[t]), "v"(in[t]));
  out[t] = r;
}
