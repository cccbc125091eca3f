// Shared vector-memory machinery of exec/vmem.cpp and exec/vmem_forms.cpp: per-lane address
// computation (GLOBAL, FLAT, SCRATCH, MUBUF/MTBUF with a V#), host-buffer/LDS/scratch location
// with range checks, the atomic read-modify-write values and the sub-dword register placement.
// Sources: CDNA3 ISA guide, "Vector Memory Buffer Instructions" and "Flat Memory Instructions";
// the V# layout and range rules are explained in exec/vmem.cpp.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "simulator/exec/fp_round.hpp"
#include "simulator/state/wave.hpp"

namespace cdna::simulator::vmem {

using u32 = std::uint32_t;
using u64 = std::uint64_t;

enum class Space { Global, Flat, Scratch };

std::string lane_prefix(int lane);

// Per-lane addresses (or range offsets).
struct Addr {
  u64 a[kLanes];
};

void global_addresses(Wave& w, const Inst& I, const Operand& vaddr, const Operand& saddr, Addr& out);
void scratch_addresses(Wave& w, const Inst& I, const Operand& vaddr, const Operand& saddr, Addr& out);
void flat_addresses(Wave& w, const Inst& I, const Operand& vaddr, Addr& out);
// Host pointer for `n` bytes at `addr` in `space` for lane `lane`, or an error (sim_fail).
std::uint8_t* locate(Wave& w, Space space, u64 addr, u32 n, bool write, int lane, bool atomic = false);
// Whether an access of `space` at `addr` goes to global memory (flat: outside the LDS and
// private apertures).
inline bool is_global(Space space, u64 addr) {
  return space == Space::Global ||
         (space == Space::Flat && addr - kSharedAperture >= (1ull << 32) && addr - kPrivateAperture >= (1ull << 32));
}
// The slow path of load_lane when DispatchEnv::global_hooks is set (exec/vmem.cpp): the caches
// of the memory-model mode, and the watchdog's load trace.
void hooked_load(Wave& w, Space space, u64 addr, u32 n, int lane, const Inst& I, void* dst);
void hooked_store(Wave& w, Space space, u64 addr, u32 n, int lane, const Inst& I, const void* src);
// Memory-model mode, before a load or atomic of [addr, addr + n) by w: the wave's pending stores
// to those dwords are performed first, and the access takes its place in vmcnt's count
// (checks/pending_stores.hpp).
void order_after_pending(Wave& w, CacheModel& c, u64 addr, u32 n);

// The n bytes lane `lane` loads from `addr` (checked as locate() does), into dst. Every vector
// load of global memory goes through here (and stores through store_lane, atomics through
// atomic_lane), so that the memory-model mode sees them all. The hot loops test
// DispatchEnv::global_hooks once per instruction and pass it as Hooked (no per-lane cost when
// the hooks are off); the others use the forms without it, which test it per lane.
template <bool Hooked>
inline void load_lane(Wave& w, Space space, u64 addr, u32 n, int lane, const Inst& I, void* dst) {
  if constexpr (Hooked) hooked_load(w, space, addr, n, lane, I, dst);
  else std::memcpy(dst, locate(w, space, addr, n, false, lane), n);
}
template <bool Hooked>
inline void store_lane(Wave& w, Space space, u64 addr, u32 n, int lane, const Inst& I, const void* src) {
  if constexpr (Hooked) hooked_store(w, space, addr, n, lane, I, src);
  else std::memcpy(locate(w, space, addr, n, true, lane), src, n);
}
inline void load_lane(Wave& w, Space space, u64 addr, u32 n, int lane, const Inst& I, void* dst) {
  if (w.env->global_hooks) [[unlikely]] return load_lane<true>(w, space, addr, n, lane, I, dst);
  load_lane<false>(w, space, addr, n, lane, I, dst);
}
inline void store_lane(Wave& w, Space space, u64 addr, u32 n, int lane, const Inst& I, const void* src) {
  if (w.env->global_hooks) [[unlikely]] return store_lane<true>(w, space, addr, n, lane, I, src);
  store_lane<false>(w, space, addr, n, lane, I, src);
}
// An atomic read-modify-write of n bytes: f(p) reads and writes them at p (memory: atomics are
// performed past the caches; checks/memory_model.hpp).
template <class F>
void atomic_lane(Wave& w, Space space, u64 addr, u32 n, int lane, F&& f) {
  std::uint8_t* p = locate(w, space, addr, n, true, lane, /*atomic=*/true);
  CacheModel* c = w.env->caches;
  if (!c || !is_global(space, addr)) [[likely]] return f(p);
  order_after_pending(w, *c, addr, n);
  c->before_atomic(w.wg->cu, addr, n);
  f(p);
  c->after_atomic(w.wg->cu, addr, n);
}

// LDS pointer for a load-to-LDS dword of lane `lane` at M0 + inst offset + 4 * lane.
std::uint8_t* lds_dma_target(Wave& w, const Inst& I, int lane);

// A buffer resource descriptor (V#, 4 SGPRs).
struct BufDesc {
  u64 base;
  u32 stride, num_records, word3;
};
// Range offset of a structured access whose record is out of range (see buffer_addresses).
inline constexpr u64 kOutOfRange = 1ull << 62;
// The limit the range offsets are compared with.
u64 range_limit(const BufDesc& v, const Inst& I);
BufDesc read_vsharp(Wave& w, const Operand& r);
// Per lane: address of the element and its range-check offset (raw buffers: the byte offset
// from the V# base including SOFFSET; structured: 0 or kOutOfRange).
void buffer_addresses(Wave& w, const Inst& I, const Operand& vaddr, const Operand& soff,
                      const BufDesc& v, Addr& addr, Addr& range);
// Whether the bytes [range, range + end) of an access lie in range: they must end within the
// limit (exec/vmem.cpp, "range check"). `end` counts from the access's first byte.
inline bool in_range(u64 range, u64 end, u64 limit) { return range + end <= limit; }

// Load kinds: how the bytes read land in the destination register.
enum class LK { U8, I8, U16, I16, D32, U8D16, U8D16Hi, I8D16, I8D16Hi, S16D16, S16D16Hi };
inline constexpr u32 load_bytes(LK k) {
  return k == LK::D32 ? 4
         : (k == LK::U8 || k == LK::I8 || k == LK::U8D16 || k == LK::U8D16Hi || k == LK::I8D16 ||
            k == LK::I8D16Hi) ? 1 : 2;
}
// The register value after loading `raw` (the bytes read, zero-extended) over `old`.
inline u32 place(LK k, u32 old, u32 raw) {
  const auto s8 = [](u32 x) { return static_cast<u32>(static_cast<std::int32_t>(static_cast<std::int8_t>(x))); };
  const auto s16 = [](u32 x) { return static_cast<u32>(static_cast<std::int32_t>(static_cast<std::int16_t>(x))); };
  switch (k) {
    case LK::I8: return s8(raw);
    case LK::I16: return s16(raw);
    case LK::U8D16: case LK::S16D16: return (old & 0xffff0000u) | raw;
    case LK::I8D16: return (old & 0xffff0000u) | (s8(raw) & 0xffffu);
    case LK::U8D16Hi: case LK::S16D16Hi: return (old & 0xffffu) | (raw << 16);
    case LK::I8D16Hi: return (old & 0xffffu) | (s8(raw) << 16);
    default: return raw;
  }
}
// A load-to-LDS dword: sub-dword values zero- or sign-extended to 32 bits.
inline u32 widen(LK k, u32 raw) { return k == LK::I8 || k == LK::I16 ? place(k, 0, raw) : raw; }

// Store kinds: which bits of the data register are stored.
enum class SK { B8, B8Hi, B16, B16Hi, D32 };
inline constexpr u32 store_bytes(SK k) { return k == SK::D32 ? 4 : (k == SK::B8 || k == SK::B8Hi) ? 1 : 2; }

// ---- atomics
enum class AK { Add, Sub, Swap, CmpSwap, UMin, UMax, SMin, SMax, And, Or, Xor, Inc, Dec, AddF32,
                AddF64, MinF64, MaxF64, PkAddF16, PkAddBF16 };

// Packed 16-bit float add of one half (f16: man 10, exp 5; bf16: man 7, exp 8), rounded to
// nearest even (the atomic unit's fixed mode: LLVM SIISelLowering, "global FP atomic
// instructions have a hardcoded FP mode"). f16 keeps denormals (same source: "only support
// v2f16 denormals"); for bf16 the denormal handling is not published and denormals are refused.
// NaN: the first NaN operand (memory, then data) quieted, else the default quiet NaN.
u32 pk_add_half(u32 a, u32 b, bool bf16, int lane);

// The new memory value of atomic K on `old` with data `src` (and `cmp` for cmpswap).
template <AK K, bool Wide>
u64 atomic_value(u64 old, u64 src, u64 cmp, int lane) {
  auto sgn = [](u64 x) { return Wide ? static_cast<std::int64_t>(x) : static_cast<std::int64_t>(static_cast<std::int32_t>(x)); };
  u64 nv = old;
  switch (K) {
    case AK::Add: nv = old + src; break;
    case AK::Sub: nv = old - src; break;
    case AK::Swap: nv = src; break;
    case AK::CmpSwap: nv = old == cmp ? src : old; break;
    case AK::UMin: nv = std::min(old, src); break;
    case AK::UMax: nv = std::max(old, src); break;
    case AK::SMin: nv = sgn(old) < sgn(src) ? old : src; break;
    case AK::SMax: nv = sgn(old) > sgn(src) ? old : src; break;
    case AK::And: nv = old & src; break;
    case AK::Or: nv = old | src; break;
    case AK::Xor: nv = old ^ src; break;
    case AK::Inc: nv = old >= src ? 0 : old + 1; break;
    case AK::Dec: nv = (old == 0 || old > src) ? src : old - 1; break;
    case AK::AddF32: {
      u32 a = static_cast<u32>(old), b = static_cast<u32>(src);
      u32 r = fbits(as_float(a) + as_float(b));
      // Whether the atomic unit flushes denormals or rounds like the VALU is not
      // published: refuse denormal operands/results rather than guess.
      if (((a & 0x7f800000u) == 0 && (a & 0x7fffffu)) || ((b & 0x7f800000u) == 0 && (b & 0x7fffffu)) ||
          ((r & 0x7f800000u) == 0 && (r & 0x7fffffu)))
        sim_fail(lane_prefix(lane) + "fp32 atomic add with a denormal operand or result: the "
                 "hardware's denormal handling for atomics is not modelled");
      nv = r;
      break;
    }
    case AK::AddF64: case AK::MinF64: case AK::MaxF64: {
      double a = as_double(old), b = as_double(src);
      double r = K == AK::AddF64 ? a + b : K == AK::MinF64 ? std::fmin(a, b) : std::fmax(a, b);
      if ((std::fpclassify(a) == FP_SUBNORMAL) || (std::fpclassify(b) == FP_SUBNORMAL) ||
          (std::fpclassify(r) == FP_SUBNORMAL))
        sim_fail(lane_prefix(lane) + "fp64 atomic with a denormal operand or result: not modelled");
      nv = dbits(r);
      break;
    }
    case AK::PkAddF16: case AK::PkAddBF16: {
      const bool bf = K == AK::PkAddBF16;
      const u32 a = static_cast<u32>(old), b = static_cast<u32>(src);
      nv = pk_add_half(a & 0xffffu, b & 0xffffu, bf, lane) |
           (u64{pk_add_half(a >> 16, b >> 16, bf, lane)} << 16);
      break;
    }
  }
  return Wide ? nv : nv & 0xffffffffull;
}

// Reads the atomic's data (and compare) operand of lane l: `vdata` holds data then compare.
template <AK K, bool Wide>
void atomic_operands(Wave& w, const Operand& vdata, int l, u64& src, u64& cmp) {
  src = w.row(vdata.reg)[l];
  if (Wide) src |= u64{w.row(vdata.reg + 1)[l]} << 32;
  cmp = 0;
  if (K == AK::CmpSwap) {
    const unsigned ci = Wide ? 2u : 1u;
    cmp = w.row(vdata.reg + ci)[l];
    if (Wide) cmp |= u64{w.row(vdata.reg + ci + 1)[l]} << 32;
  }
}

}  // namespace cdna::simulator::vmem
