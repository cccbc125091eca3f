// A private float array indexed at run time: clang keeps it in VGPRs and reads/writes the
// element with VGPR index mode (s_set_gpr_idx_on ... v_mov_b32 ... s_set_gpr_idx_off); a
// lane-varying index runs in a v_readfirstlane waterfall loop, a uniform one does not.
#include <hip/hip_runtime.h>

extern "C" __global__ void gpr_index(const float* x, const int* idx, int uniform, float* out,
                                     int n) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  float a[16];
  for (int i = 0; i < 16; ++i) a[i] = x[t] * static_cast<float>(i + 1) + static_cast<float>(i);
  const int k = idx[t] & 15;
  a[(k * 5 + 3) & 15] += 100.0f;        // lane-varying insert
  a[uniform & 15] -= 0.5f;              // uniform insert
  out[3 * t] = a[k];                    // lane-varying extract
  out[3 * t + 1] = a[(uniform + 7) & 15];  // uniform extract
  out[3 * t + 2] = a[(k + uniform) & 15];
}
