// Message passing between two workgroups for the memory-model mode (memory_model_test.cpp).
//
// Workgroup 0 produces, workgroup `consumer` consumes (1: another XCD; 8: the same XCD, another
// CU; memory_model.hpp). Round r = 1..rounds: the producer waits for ack == r - 1, writes
// data[i] = 1000 r + i (plain stores), then publishes flag = r; the consumer waits for
// flag == r, copies data to out[16 (r - 1) + i] and acknowledges with ack = r. The ack path is
// always a correct agent-scope release/acquire; the variants differ in the flag path only:
//   mp_correct       release store / acquire load, agent scope (buffer_wbl2 sc1 + store sc1;
//                    load sc1 + buffer_inv sc1)
//   mp_relaxed_store relaxed agent-scope store: no buffer_wbl2, the data stay in the L2
//   mp_workgroup     release/acquire at workgroup scope: sc0 bits, no writeback, no invalidate
//   mp_plain_poll    the poll is a plain load (no sc bits), followed by an agent acquire fence
//   mp_no_invalidate the poll is a relaxed agent-scope load (sc1): no buffer_inv after it
// Only thread 0 of each workgroup takes part.
#include <hip/hip_runtime.h>

constexpr int kN = 16;

__device__ void produce(int* data, int r) {
  for (int i = 0; i < kN; ++i) data[i] = 1000 * r + i;
}
__device__ void consume(const int* data, int* out, int r) {
  for (int i = 0; i < kN; ++i) out[kN * (r - 1) + i] = data[i];
}
__device__ void wait_agent(int* p, int v) {
  while (__hip_atomic_load(p, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT) != v) __builtin_amdgcn_s_sleep(1);
}

#define MESSAGE_PASSING(NAME, SIGNAL, WAIT)                                                   \
  extern "C" __global__ void NAME(int* data, int* flag, int* ack, int* out, int rounds,       \
                                  int consumer) {                                             \
    if (threadIdx.x != 0) return;                                                             \
    if (blockIdx.x == 0) {                                                                    \
      for (int r = 1; r <= rounds; ++r) {                                                     \
        if (r > 1) wait_agent(ack, r - 1);                                                    \
        produce(data, r);                                                                     \
        SIGNAL;                                                                               \
      }                                                                                       \
    } else if (static_cast<int>(blockIdx.x) == consumer) {                                    \
      for (int r = 1; r <= rounds; ++r) {                                                     \
        WAIT;                                                                                 \
        consume(data, out, r);                                                                \
        __hip_atomic_store(ack, r, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);               \
      }                                                                                       \
    }                                                                                         \
  }

MESSAGE_PASSING(mp_correct, __hip_atomic_store(flag, r, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT),
                wait_agent(flag, r))
MESSAGE_PASSING(mp_relaxed_store, __hip_atomic_store(flag, r, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT),
                wait_agent(flag, r))
MESSAGE_PASSING(mp_workgroup, __hip_atomic_store(flag, r, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_WORKGROUP),
                while (__hip_atomic_load(flag, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_WORKGROUP) != r)
                    __builtin_amdgcn_s_sleep(1))
MESSAGE_PASSING(mp_plain_poll, __hip_atomic_store(flag, r, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT),
                while (__hip_atomic_load(flag, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WAVEFRONT) != r)
                    __builtin_amdgcn_s_sleep(1);
                __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "agent"))
MESSAGE_PASSING(mp_no_invalidate, __hip_atomic_store(flag, r, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT),
                while (__hip_atomic_load(flag, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT) != r)
                    __builtin_amdgcn_s_sleep(1))

// The flag polled through the scalar cache (s_load_dword, one round). mp_scalar_poll only
// reloads; mp_scalar_poll_inv drops the scalar cache (s_dcache_inv) and the L1/L2
// (buffer_inv sc1) before each reload, then acquires.
__device__ int scalar_load(const int* p) {
  int v;
  asm volatile("s_load_dword %0, %1, 0x0\n\ts_waitcnt lgkmcnt(0)" : "=s"(v) : "s"(p) : "memory");
  return v;
}
__device__ int scalar_load_fresh(const int* p) {
  asm volatile("buffer_inv sc1\n\ts_dcache_inv" ::: "memory");
  return scalar_load(p);
}
MESSAGE_PASSING(mp_scalar_poll, __hip_atomic_store(flag, r, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT),
                while (scalar_load(flag) != r) __builtin_amdgcn_s_sleep(1);
                __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "agent"))
MESSAGE_PASSING(mp_scalar_poll_inv, __hip_atomic_store(flag, r, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT),
                while (scalar_load_fresh(flag) != r) __builtin_amdgcn_s_sleep(1);
                __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "agent"))

// A consumer of a NaN-sentinel buffer that nobody fills: every workgroup spins on
// exchange[index] while it is a NaN (the watchdog's hang report).
extern "C" __global__ void spin_on_sentinel(float* exchange, int index, float* out) {
  float v;
  while (__builtin_isnan(v = __hip_atomic_load(&exchange[index], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT)))
    __builtin_amdgcn_s_sleep(1);
  out[blockIdx.x] = v;
}
