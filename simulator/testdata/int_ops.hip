// Integer ALU coverage: the expressions of int_ops_common.h, one work-item per input triple.
#include <hip/hip_runtime.h>

#include "simulator/testdata/int_ops_common.h"

extern "C" __global__ void int_ops(const uint32_t* a, const uint32_t* b, const uint32_t* c,
                                   uint32_t* out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  uint32_t o[CDNA_INT_OPS_OUTPUTS];
  cdna_int_ops(a[t], b[t], c[t], o);
  for (int i = 0; i < CDNA_INT_OPS_OUTPUTS; ++i) out[t * CDNA_INT_OPS_OUTPUTS + i] = o[i];
}
