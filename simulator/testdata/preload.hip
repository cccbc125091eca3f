// Built with -mllvm -amdgpu-kernarg-preload-count=3: the pointers arrive in SGPRs and the wave
// starts 256 bytes into the code.
#include <hip/hip_runtime.h>

extern "C" __global__ void vector_add_preloaded(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
