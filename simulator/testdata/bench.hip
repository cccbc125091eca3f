// VALU-bound loop for simulator throughput measurements (simulator_bench).
#include <hip/hip_runtime.h>

extern "C" __global__ void valu_loop(float* out, int iters) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float a = (float)t, b = 1.0001f, c = 0.5f;
  unsigned u = (unsigned)t;
  for (int i = 0; i < iters; ++i) {
    a = __builtin_fmaf(a, 0.999f, c * b);
    c = __builtin_fmaf(c, -0.5f, 0.25f);
    u = u * 1664525u + 1013904223u;
    u ^= u >> 7;
    b = __builtin_fmaxf(b, (float)(u & 1023) * 1e-7f + 1.0f);
  }
  out[t] = a + c + (float)u + b;
}
