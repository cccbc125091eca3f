// IEEE division and square root as clang-19 compiles them for gfx942 (the v_div_scale /
// v_rcp / fma / v_div_fmas / v_div_fixup sequence of LLVM SIISelLowering LowerFDIV32/64), built
// at -O3 (division.hsaco) and -O1 (division_o1.hsaco); kernels_test.cpp compares the results
// bit for bit with the host's IEEE division and sqrt.
#include <hip/hip_runtime.h>

extern "C" __global__ void div_f32(const float* a, const float* b, float* q, int n) {
  int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) q[i] = a[i] / b[i];
}

extern "C" __global__ void div_f64(const double* a, const double* b, double* q, int n) {
  int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) q[i] = a[i] / b[i];
}

extern "C" __global__ void sqrt_f32(const float* a, float* r, int n) {
  int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) r[i] = sqrtf(a[i]);
}

extern "C" __global__ void sqrt_f64(const double* a, double* r, int n) {
  int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) r[i] = sqrt(a[i]);
}

// f16: v_cvt_f32_f16, v_rcp_f32, v_fma_mixlo_f16 (a * rcp rounded once to f16), v_div_fixup_f16.
extern "C" __global__ void div_f16(const _Float16* a, const _Float16* b, _Float16* q, int n) {
  int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) q[i] = a[i] / b[i];
}
