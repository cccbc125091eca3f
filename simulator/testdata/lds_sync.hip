// LDS with __syncthreads across several waves.
#include <hip/hip_runtime.h>

// 256 work-items (4 waves): out[i] = s[255 - i] + s[(i + 1) % 256].
extern "C" __global__ void reverse_neighbour(const int* in, int* out) {
  __shared__ int s[256];
  int t = threadIdx.x;
  s[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  out[blockIdx.x * 256 + t] = s[255 - t] + s[(t + 1) % 256];
}

// Tree reduction over a 512-thread block (8 waves), several barriers.
extern "C" __global__ void block_sum(const int* in, int* out) {
  __shared__ int s[512];
  int t = threadIdx.x;
  s[t] = in[blockIdx.x * 512 + t];
  __syncthreads();
  for (int stride = 256; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

// Dynamic LDS (extern shared): 64-bit and 128-bit LDS accesses, a transpose.
extern "C" __global__ void transpose16(const int4* in, int4* out) {
  extern __shared__ int4 tile[];
  int t = threadIdx.x;  // 256 threads = 16 x 16
  int r = t / 16, c = t % 16;
  tile[r * 17 + c] = in[blockIdx.x * 256 + t];
  __syncthreads();
  out[blockIdx.x * 256 + t] = tile[c * 17 + r];
}
