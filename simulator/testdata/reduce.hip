// Cross-lane reductions: __shfl_xor butterflies (ds_bpermute_b32) and __shfl_down.
#include <hip/hip_runtime.h>

extern "C" __global__ void wave_sum(const float* in, float* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[t];
  for (int m = 32; m > 0; m >>= 1) v += __shfl_xor(v, m);
  out[t] = v;  // every lane holds the wave's sum
}

extern "C" __global__ void wave_max_down(const int* in, int* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[t];
  for (int d = 32; d > 0; d >>= 1) v = max(v, __shfl_down(v, d));
  if ((threadIdx.x & 63) == 0) out[t >> 6] = v;
}

// Lane l reads lane (l * 7) % 64 of the wave.
extern "C" __global__ void shuffle(const int* in, int* out) {
  int t = threadIdx.x;
  out[blockIdx.x * blockDim.x + t] = __shfl(in[blockIdx.x * blockDim.x + t], (t * 7) & 63);
}

// Ballot / popcount of a predicate.
extern "C" __global__ void ballot(const int* in, unsigned long long* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long b = __ballot(in[t] > 0);
  if ((threadIdx.x & 63) == 0) out[t >> 6] = b;
}
