// Scheduling, watchdog and poison-mode kernels (simulator/tests/scheduler_test.cpp).
#include <hip/hip_runtime.h>

// Workgroup 0 waits for the LAST workgroup of the grid: the last one stores a payload and
// publishes a flag (release, agent scope); workgroup 0 spins on the flag (acquire, agent scope)
// and copies the payload. Every workgroup also stores its id. Needs all workgroups resident
// and interleaved.
extern "C" __global__ void wait_for_last(int* flag, int* payload, int* out) {
  const unsigned last = gridDim.x - 1;
  if (blockIdx.x == last && threadIdx.x == 0) {
    payload[0] = 1000 + static_cast<int>(last);
    __hip_atomic_store(flag, 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
  }
  if (blockIdx.x == 0) {
    if (threadIdx.x == 0) {
      while (__hip_atomic_load(flag, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT) == 0)
        __builtin_amdgcn_s_sleep(1);
      out[gridDim.x] = payload[0];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = static_cast<int>(blockIdx.x);
}

// The same with volatile + __threadfence (the pre-atomic idiom).
extern "C" __global__ void wait_for_last_volatile(volatile int* flag, volatile int* payload,
                                                  int* out) {
  const unsigned last = gridDim.x - 1;
  if (blockIdx.x == last && threadIdx.x == 0) {
    payload[0] = 2000 + static_cast<int>(last);
    __threadfence();
    *flag = 1;
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    while (*flag == 0) {
    }
    __threadfence();
    out[0] = payload[0];
  }
}

// Spins on a flag nobody sets: hung.
extern "C" __global__ void spin_forever(int* flag, int* out) {
  while (__hip_atomic_load(flag, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT) == 0)
    __builtin_amdgcn_s_sleep(1);
  out[threadIdx.x] = 1;
}

// Order-dependent: each workgroup takes a ticket; out[workgroup] = its ticket.
extern "C" __global__ void tickets(int* counter, int* out) {
  if (threadIdx.x == 0) out[blockIdx.x] = atomicAdd(counter, 1);
}

// Poison mode: stores out[i] for i < n only.
extern "C" __global__ void store_prefix(float* out, int n) {
  int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) out[i] = static_cast<float>(i);
}

// Poison mode: reads an output element before writing it (accumulates into the output).
extern "C" __global__ void accumulate(const float* in, float* out) {
  int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  out[i] = out[i] + in[i];
}

// Poison mode: writes, then reads back its own (written) output: fine.
extern "C" __global__ void write_then_read(const float* in, float* out) {
  int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  out[i] = in[i];
  __threadfence();
  out[i] = out[i] * 2.0f;
}

// Out-of-range private (scratch) access: a[idx] with idx beyond the array.
extern "C" __global__ void scratch_oob(const int* idx, int* out) {
  volatile int a[16];
  int t = static_cast<int>(threadIdx.x);
  for (int i = 0; i < 16; ++i) a[i] = i + t;
  out[t] = a[idx[t]];
}

// Out-of-range LDS access through ds_read: s[idx] with idx beyond the allocation.
extern "C" __global__ void lds_oob(const int* idx, int* out) {
  __shared__ int s[64];
  int t = static_cast<int>(threadIdx.x);
  s[t] = t;
  __syncthreads();
  out[t] = s[idx[t]];
}

// Parallel dispatch: workgroup b stores buf[b], then reads buf[b - 1] (another workgroup's
// store) without waiting: communicating, and order-dependent.
extern "C" __global__ void read_neighbour(int* buf, int* out) {
  const int b = static_cast<int>(blockIdx.x);
  if (threadIdx.x == 0) {
    buf[b] = b + 1;
    __threadfence();
    out[b] = b > 0 ? buf[b - 1] : -1;
  }
}
