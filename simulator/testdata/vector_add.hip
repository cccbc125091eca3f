// c[i] = a[i] + b[i] for i < n: the grid covers more work-items than n (tail masking).
#include <hip/hip_runtime.h>

extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

// 2-D grid and 2-D blocks: out[y][x] = x + 1000 * y, written for x < w, y < h.
extern "C" __global__ void index_2d(int* out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[y * w + x] = x + 1000 * y + 1000000 * (int)(blockDim.x * blockDim.y);
}

// An out-of-bounds store: p[idx] = 7.
extern "C" __global__ void store_at(int* p, int idx) {
  if (threadIdx.x == 5) p[idx] = 7;
}
