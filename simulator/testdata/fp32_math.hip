// fp32 VALU coverage: arithmetic, min/max, conversions, rounding, and the transcendental unit
// (v_exp_f32, v_log_f32, v_rcp_f32, v_rsq_f32 through their builtins).
#include <hip/hip_runtime.h>

#define FP32_MATH_OUTPUTS 20

extern "C" __global__ void fp32_math(const float* x, const float* y, const float* z,
                                     float* out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  float a = x[t], b = y[t], c = z[t];
  float* o = out + t * FP32_MATH_OUTPUTS;
  o[0] = __builtin_amdgcn_exp2f(a);
  o[1] = __builtin_amdgcn_logf(a);
  o[2] = __builtin_amdgcn_rcpf(a);
  o[3] = __builtin_amdgcn_rsqf(a);
  o[4] = a + b;
  o[5] = a * b;
  o[6] = a - b;
  o[7] = __builtin_fmaf(a, b, c);
  o[8] = __builtin_fminf(a, b);
  o[9] = __builtin_fmaxf(a, b);
  float cl = __builtin_fminf(__builtin_fmaxf(a, -1.0e9f), 1.0e9f);
  o[10] = (float)(int)cl;
  o[11] = (float)(unsigned)__builtin_fabsf(cl);
  o[12] = __builtin_floorf(a);
  o[13] = __builtin_ceilf(a);
  o[14] = __builtin_truncf(a);
  o[15] = __builtin_rintf(a);
  o[16] = __builtin_fabsf(a) * -b;
  o[17] = __builtin_copysignf(b, a);
  o[18] = (float)(int)(t * 77 - 3000) * 0.25f;
  o[19] = a < b ? c : a == b ? 1.0f : -1.0f;
}
