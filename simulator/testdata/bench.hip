// Simulator throughput kernels (simulator_bench): a VALU-bound loop, and an LDS-bound staging loop
// of 4 waves (the cost of the LDS race check).
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

// 256 work-items (4 waves): per iteration each lane stages one float4 in LDS, s_barrier, reads
// 8 float4 staged by all four waves, s_barrier: one global load, 9 DS instructions of 16 bytes
// per lane and about 20 VALU instructions per iteration.
extern "C" __global__ void lds_staging(const float4* in, float* out, int iters) {
  __shared__ float4 tile[256];
  const int t = threadIdx.x;
  float acc = 0.0f;
  for (int i = 0; i < iters; ++i) {
    tile[t] = in[(t + i) & 255];
    __syncthreads();
    for (int j = 0; j < 8; ++j) {
      const float4 x = tile[(t + 32 * j + i) & 255];
      acc = __builtin_fmaf(x.x, x.y, acc) + x.z * x.w;
    }
    __syncthreads();
  }
  out[blockIdx.x * 256 + t] = acc;
}
