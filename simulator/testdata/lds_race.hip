// Planted LDS races for the simulator's race check (simulator/README.md "LDS races"). Every
// kernel runs as one workgroup of 128 work-items = 2 waves; `out` gets 128 ints.
//   write_read_race   wave 1 reads the words wave 0 writes, no barrier between   -> race
//   read_write_race   after a barrier wave 0 reads the words of wave 1 and wave 1
//                     overwrites them, no barrier between                        -> race
//   write_write_race  both waves write s[0..63], no barrier between              -> race
//   barrier_ok        write_read_race with __syncthreads() between               -> none
//   same_wave_ok      each lane reads its neighbour's word, same wave, no barrier -> none
//   atomics_ok        both waves atomicAdd the same word, barrier, then read     -> none
//   atomic_read_race  atomicAdd by both waves, read back with no barrier between -> race
//   dma_read_race     wave 0 loads to LDS (global_load_lds_dword), wave 1 reads
//                     those words with no barrier between                        -> race
//   dma_barrier_ok    dma_read_race with __syncthreads() between                 -> none
//   halves_ok         wave 0 writes the low and wave 1 the high 16 bits of each
//                     dword (ds_write_b16), no barrier between: bytes differ      -> none
// Loads and stores the compiler might move are pinned with __builtin_amdgcn_wave_barrier()
// (a compiler-only fence, no instruction), so each kernel's order is the one written.
#include <hip/hip_runtime.h>

namespace {
__device__ __forceinline__ int lane_id() { return static_cast<int>(threadIdx.x); }
}  // namespace

extern "C" __global__ void write_read_race(const int* in, int* out) {
  __shared__ int s[64];
  const int t = lane_id();
  if (t < 64) s[t] = in[t];
  __builtin_amdgcn_wave_barrier();
  if (t >= 64) out[t] = s[t - 64];
}

extern "C" __global__ void read_write_race(const int* in, int* out) {
  __shared__ int s[128];
  const int t = lane_id();
  s[t] = in[t];
  __syncthreads();
  if (t < 64) out[t] = s[t + 64];
  else s[t] = 0;
}

extern "C" __global__ void write_write_race(const int* in, int* out) {
  __shared__ int s[64];
  const int t = lane_id();
  s[t & 63] = in[t];
  __syncthreads();
  out[t] = s[t & 63];
}

extern "C" __global__ void barrier_ok(const int* in, int* out) {
  __shared__ int s[64];
  const int t = lane_id();
  if (t < 64) s[t] = in[t];
  __syncthreads();
  if (t >= 64) out[t] = s[t - 64];
}

extern "C" __global__ void same_wave_ok(const int* in, int* out) {
  __shared__ int s[128];
  const int t = lane_id();
  s[t] = in[t];
  __builtin_amdgcn_wave_barrier();
  out[t] = s[t ^ 1];
}

extern "C" __global__ void atomics_ok(const int* in, int* out) {
  __shared__ int s[1];
  const int t = lane_id();
  if (t == 0) s[0] = 0;
  __syncthreads();
  atomicAdd(&s[0], in[t]);
  __syncthreads();
  out[t] = s[0];
}

extern "C" __global__ void atomic_read_race(const int* in, int* out) {
  __shared__ int s[1];
  const int t = lane_id();
  if (t == 0) s[0] = 0;
  __syncthreads();
  atomicAdd(&s[0], in[t]);
  __builtin_amdgcn_wave_barrier();
  out[t] = s[0];
}

// Load to LDS of in[0..63] by wave 0 (inline asm: clang 19 does not treat
// __builtin_amdgcn_global_load_lds as a store to the array, and drops the reads after it).
__device__ __forceinline__ void wave0_loads_to_lds(const int* in, int* s) {
  using LdsPtr = __attribute__((address_space(3))) int*;
  const auto lds = static_cast<unsigned>(reinterpret_cast<unsigned long>((LdsPtr)s));
  if (lane_id() < 64)
    asm volatile("s_mov_b32 m0, %0\n\ts_nop 0\n\tglobal_load_lds_dword %1, off\n\ts_waitcnt vmcnt(0)"
                 :
                 : "s"(lds), "v"(in + lane_id())
                 : "memory");
}

extern "C" __global__ void dma_read_race(const int* in, int* out) {
  __shared__ int s[64];
  const int t = lane_id();
  wave0_loads_to_lds(in, s);
  __builtin_amdgcn_wave_barrier();
  if (t >= 64) out[t] = s[t - 64];
}

extern "C" __global__ void dma_barrier_ok(const int* in, int* out) {
  __shared__ int s[64];
  const int t = lane_id();
  wave0_loads_to_lds(in, s);
  __syncthreads();
  if (t >= 64) out[t] = s[t - 64];
}

extern "C" __global__ void halves_ok(const int* in, int* out) {
  __shared__ unsigned short h[128];
  const int t = lane_id();
  h[2 * (t & 63) + (t >> 6)] = static_cast<unsigned short>(in[t]);
  __syncthreads();
  out[t] = h[2 * (t & 63) + (t >> 6)];
}
