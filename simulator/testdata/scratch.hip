// Private memory through flat addressing (src_private_base).
#include <hip/hip_runtime.h>

extern "C" __global__ void scratch_array(const int* idx, int* out) {
  volatile int a[64];
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < 64; ++i) a[i] = i * t + 1;
  out[t] = a[idx[t] & 63];
}
