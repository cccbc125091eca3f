// A valid gfx942 code object that holds no attention kernel: for the "kernel not found" test.
#include <hip/hip_runtime.h>

extern "C" __global__ void scale_by_two(float* x) { x[threadIdx.x] *= 2.0f; }
