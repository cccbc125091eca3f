#include <hip/hip_runtime.h>
extern "C" __global__ void placeholder(int* p) { p[0] = 1; }
