// Vector memory: GLOBAL, FLAT and SCRATCH loads, stores and global atomics.
//
// Accesses complete immediately and in lane order (lane 0 first), so s_waitcnt has nothing
// to wait for, except in the memory-model mode, which holds global stores back
// (checks/pending_stores.hpp). Global addresses must fall inside a buffer the host allocated; flat addresses
// are routed by aperture (shared -> LDS, private -> the lane's scratch, else global); scratch
// addresses are offsets into the lane's private segment.
#include <bit>
#include <cstring>

#include "simulator/exec/fp.hpp"
#include "simulator/exec/handlers.hpp"
#include "simulator/exec/vmem_common.hpp"
#include "simulator/checks/watchdog.hpp"

namespace cdna::simulator {
namespace vmem {

std::string lane_prefix(int lane) { return "lane " + std::to_string(lane) + ": "; }

void global_addresses(Wave& w, const Inst& I, const Operand& vaddr, const Operand& saddr,
                      Addr& out) {
  if (saddr.kind == OperandKind::Off) {
    Lanes64 v;
    vsrc64(w, vaddr, v);
    for (int l = 0; l < kLanes; ++l) out.a[l] = v.u[l] + static_cast<u64>(static_cast<std::int64_t>(I.offset));
  } else {
    u64 base = read_s64(w, saddr);
    Lanes t;
    const u32* v = vsrc(w, vaddr, t);
    for (int l = 0; l < kLanes; ++l)
      out.a[l] = base + v[l] + static_cast<u64>(static_cast<std::int64_t>(I.offset));
  }
}

void scratch_addresses(Wave& w, const Inst& I, const Operand& vaddr, const Operand& saddr,
                       Addr& out) {
  u32 s = saddr.kind == OperandKind::Off ? 0 : read_s32(w, saddr);
  Lanes t;
  const u32* v = vaddr.kind == OperandKind::Off ? nullptr : vsrc(w, vaddr, t);
  for (int l = 0; l < kLanes; ++l)
    out.a[l] = static_cast<u32>((v ? v[l] : 0u) + s + static_cast<u32>(I.offset));
}

void flat_addresses(Wave& w, const Inst& I, const Operand& vaddr, Addr& out) {
  Lanes64 v;
  vsrc64(w, vaddr, v);
  for (int l = 0; l < kLanes; ++l) out.a[l] = v.u[l] + static_cast<u64>(static_cast<std::int64_t>(I.offset));
}

std::uint8_t* locate(Wave& w, Space space, u64 addr, u32 n, bool write, int lane, bool atomic) {
  if (space == Space::Flat) {
    if (addr - kSharedAperture < (1ull << 32)) {
      u64 off = addr - kSharedAperture;
      auto& lds = w.wg->lds;
      if (off + n > lds.size())
        sim_fail(lane_prefix(lane) + "flat access to LDS offset " + hex(off) + " (" +
                 std::to_string(n) + " bytes) is outside the workgroup's " +
                 std::to_string(lds.size()) + " bytes of LDS");
      if (w.wg->lds_shadow)
        note_lds_access(w, off, n, atomic ? LdsAccess::Atomic : write ? LdsAccess::Write : LdsAccess::Read);
      return lds.data() + off;
    }
    if (addr - kPrivateAperture < (1ull << 32)) {
      space = Space::Scratch;
      addr -= kPrivateAperture;
    }
  }
  if (space == Space::Scratch) {
    u32 size = w.env->private_lane_bytes;
    if (addr + n > size)
      sim_fail(lane_prefix(lane) + "scratch access at offset " + hex(addr) + " (" +
               std::to_string(n) + " bytes) is outside the lane's " + std::to_string(size) +
               " bytes of private segment");
    return w.priv + static_cast<std::size_t>(lane) * size + addr;
  }
  std::uint8_t* p = w.env->memory->translate(addr, n, write);
  if (!p) sim_fail(lane_prefix(lane) + w.env->memory->describe_fault(addr, n, write));
  return p;
}

// ---- MUBUF buffer loads/stores (untyped), with a buffer resource descriptor V# in 4 SGPRs:
// dword0 base[31:0]; dword1 bits 15:0 base[47:32], 29:16 stride, 30 cache swizzle, 31
// swizzle_enable; dword2 num_records; dword3 bit 23 add_tid_enable.
// Addressing (swizzle off): index = idxen ? vaddr[0] : 0; offset = (offen ? vaddr[idxen] : 0)
// + inst offset, a 32-bit sum (wraps); address = base + stride * index + offset + soffset.
// Range check (simulator/README.md "Buffer range checking", with its sources):
//  - structured (idxen with stride != 0): num_records counts records; the whole access is out
//    of range iff index >= num_records (offsets and soffset do not enter);
//  - otherwise (raw; also offen-only on a strided V#): num_records counts bytes and a piece of
//    the access at byte b of it is in range iff offset + soffset + b + size <= num_records, the
//    sum taken without wrapping. Pieces: each dword of loads/stores of 1-4 dwords (a sub-dword
//    element is one piece); atomics, format and MTBUF accesses are one piece (all or nothing).
// Out-of-range loads give 0 (the `lds` form writes that 0 to LDS), stores and atomics are
// dropped (a returning atomic returns 0). Refused: swizzle_enable, add_tid_enable.
// Sources for num_records in records on gfx9-family chips with a stride: Mesa's radv/radeonsi
// divide the byte size by the stride on every generation but GFX8 (radv_buffer.c,
// si_descriptors.c), and LLVM notes that on GFX9 IDXEN decides how buffer sizes are read
// (review D44401).
// LDS form (`lds`, one dword or less): the value goes to LDS at M0 + inst offset + 4 * lane
// instead of a VGPR.
u64 range_limit(const BufDesc& v, const Inst& I) {
  return I.idxen && v.stride != 0 ? kOutOfRange : u64{v.num_records};
}
BufDesc read_vsharp(Wave& w, const Operand& r) {
  if (r.kind != OperandKind::Sreg) sim_fail("buffer resource descriptor must be SGPRs");
  const u32 d0 = w.s[r.reg], d1 = w.s[r.reg + 1], d2 = w.s[r.reg + 2], d3 = w.s[r.reg + 3];
  if (d1 >> 31) sim_fail("buffer descriptor with swizzle_enable: swizzled buffers are not modelled");
  if ((d3 >> 23) & 1) sim_fail("buffer descriptor with add_tid_enable: not modelled");
  return {u64{d0} | (u64{d1 & 0xffffu} << 32), (d1 >> 16) & 0x3fffu, d2, d3};
}

void buffer_addresses(Wave& w, const Inst& I, const Operand& vaddr, const Operand& soff,
                      const BufDesc& v, Addr& addr, Addr& range) {
  const u32 so = read_s32(w, soff);
  const u32* idx = nullptr;
  const u32* off = nullptr;
  Lanes t0, t1;
  if (I.idxen) idx = vsrc(w, vaddr, t0, 0);
  if (I.offen) off = vsrc(w, vaddr, t1, I.idxen ? 1u : 0u);
  const bool structured = idx && v.stride != 0;
  for (int l = 0; l < kLanes; ++l) {
    const u32 offset = (off ? off[l] : 0u) + static_cast<u32>(I.offset);  // 32-bit: wraps
    const u64 rel = u64{v.stride} * (idx ? idx[l] : 0u) + offset + so;
    // Structured: the whole record is in or out (compared with range_limit() = kOutOfRange).
    // Raw: stride * index is 0 here (no idxen, or stride 0), so rel is offset + soffset.
    range.a[l] = structured ? (idx[l] < v.num_records ? 0 : kOutOfRange) : rel;
    addr.a[l] = v.base + rel;
  }
}


void hooked_load(Wave& w, Space space, u64 addr, u32 n, int lane, const Inst& I, void* dst) {
  const std::uint8_t* p = locate(w, space, addr, n, false, lane);  // the checks of every access
  if (!is_global(space, addr)) return static_cast<void>(std::memcpy(dst, p, n));
  if (CacheModel* c = w.env->caches) {
    order_after_pending(w, *c, addr, n);
    c->load(w.wg->cu, addr, n, scope_of(I.sc0, I.sc1), dst);
  } else {
    std::memcpy(dst, p, n);
  }
  if (w.env->trace_loads && lane == std::countr_zero(w.exec())) note_polled_load(w, addr, n, dst);
}

void hooked_store(Wave& w, Space space, u64 addr, u32 n, int lane, const Inst& I, const void* src) {
  std::uint8_t* p = locate(w, space, addr, n, true, lane);
  CacheModel* c = w.env->caches;
  if (!c || !is_global(space, addr)) return static_cast<void>(std::memcpy(p, src, n));
  // Performed later (checks/pending_stores.hpp), after the wave's earlier stores to the same dwords.
  if (w.pending.overlaps(addr, n)) w.pending.complete_all(*c, w.wg->cu);
  w.pending.add(w.stamp(), addr, n, scope_of(I.sc0, I.sc1), src);
}

void order_after_pending(Wave& w, CacheModel& c, u64 addr, u32 n) {
  if (w.pending.empty()) return;
  if (w.pending.overlaps(addr, n)) w.pending.complete_all(c, w.wg->cu);
  w.pending.note_access(w.stamp());
}

std::uint8_t* lds_dma_target(Wave& w, const Inst& I, int lane) {
  const u64 a = u64{w.s[kM0]} + static_cast<u32>(I.offset) + 4u * static_cast<u32>(lane);
  auto& mem = w.wg->lds;
  if (a + 4 > mem.size())
    sim_fail(lane_prefix(lane) + "load to LDS at " + hex(a) + " is outside the " +
             std::to_string(mem.size()) + " bytes of LDS");
  if (w.wg->lds_shadow) note_lds_access(w, a, 4, LdsAccess::Write);  // a write by the issuing wave
  return mem.data() + a;
}

}  // namespace vmem

namespace {

using namespace vmem;

template <Space S>
void addresses(Wave& w, const Inst& I, const Operand& vaddr, const Operand& saddr, Addr& ad) {
  if (S == Space::Scratch) scratch_addresses(w, I, vaddr, saddr, ad);
  else if (S == Space::Global) global_addresses(w, I, vaddr, saddr, ad);
  else flat_addresses(w, I, vaddr, ad);
}

template <Space S, LK K, u32 Dwords, bool Hooked>
void vload_lanes(Wave& w, const Inst& I) {
  // ops: vdst, vaddr, [saddr]
  Addr ad;
  addresses<S>(w, I, I.ops[1], I.ops[2], ad);
  constexpr u32 bytes = K == LK::D32 ? 4 * Dwords : load_bytes(K);
  u64 e = w.exec();
  const Operand& d = I.ops[0];
  for (int l = 0; l < kLanes; ++l) {
    if (!((e >> l) & 1)) continue;
    if constexpr (K == LK::D32) {
      u32 x[Dwords];
      load_lane<Hooked>(w, S, ad.a[l], bytes, l, I, x);
      for (u32 i = 0; i < Dwords; ++i) w.row(d.reg + i)[l] = x[i];
    } else {
      u32 raw = 0;  // the bytes read, zero-extended (little-endian host)
      load_lane<Hooked>(w, S, ad.a[l], bytes, l, I, &raw);
      u32* r = &w.row(d.reg)[l];
      *r = place(K, *r, raw);
    }
  }
}
// The hooks (DispatchEnv::global_hooks) tested once per instruction: vmem_common.hpp, load_lane.
template <Space S, LK K, u32 Dwords>
void vload(Wave& w, const Inst& I) {
  if (w.env->global_hooks) [[unlikely]] return vload_lanes<S, K, Dwords, true>(w, I);
  vload_lanes<S, K, Dwords, false>(w, I);
}

template <Space S, SK K, u32 Dwords, bool Hooked>
void vstore_lanes(Wave& w, const Inst& I) {
  // ops: vaddr, vdata, [saddr]
  Addr ad;
  addresses<S>(w, I, I.ops[0], I.ops[2], ad);
  constexpr u32 bytes = K == SK::D32 ? 4 * Dwords : store_bytes(K);
  u64 e = w.exec();
  const Operand& d = I.ops[1];
  for (int l = 0; l < kLanes; ++l) {
    if (!((e >> l) & 1)) continue;
    u32 x[Dwords];
    for (u32 i = 0; i < Dwords; ++i) x[i] = w.row(d.reg + i)[l];
    if (K == SK::B8Hi || K == SK::B16Hi) x[0] >>= 16;
    store_lane<Hooked>(w, S, ad.a[l], bytes, l, I, x);  // the low `bytes` bytes (little-endian host)
  }
}
template <Space S, SK K, u32 Dwords>
void vstore(Wave& w, const Inst& I) {
  if (w.env->global_hooks) [[unlikely]] return vstore_lanes<S, K, Dwords, true>(w, I);
  vstore_lanes<S, K, Dwords, false>(w, I);
}

// ---- GLOBAL and FLAT atomics. Global without return: vaddr, vdata, saddr|off; with return
// (sc0): vdst, vaddr, vdata, saddr|off. Flat: the same without saddr.
template <Space S, AK K, bool Wide>
void vatomic(Wave& w, const Inst& I) {
  const bool ret = I.nops == (S == Space::Flat ? 3 : 4);
  const Operand& vaddr = I.ops[ret ? 1 : 0];
  const Operand& vdata = I.ops[ret ? 2 : 1];
  const Operand& saddr = I.ops[ret ? 3 : 2];
  Addr ad;
  addresses<S>(w, I, vaddr, saddr, ad);
  constexpr u32 bytes = Wide ? 8 : 4;
  u64 e = w.exec();
  for (int l = 0; l < kLanes; ++l) {
    if (!((e >> l) & 1)) continue;
    u64 old = 0, src, cmp;
    atomic_operands<K, Wide>(w, vdata, l, src, cmp);
    atomic_lane(w, S, ad.a[l], bytes, l, [&](std::uint8_t* p) {
      std::memcpy(&old, p, bytes);
      const u64 nv = atomic_value<K, Wide>(old, src, cmp, l);
      std::memcpy(p, &nv, bytes);
    });
    if (ret) {
      w.row(I.ops[0].reg)[l] = static_cast<u32>(old);
      if (Wide) w.row(I.ops[0].reg + 1)[l] = static_cast<u32>(old >> 32);
    }
  }
}

// Loads; the `lds` form writes the (zero- or sign-extended) dword to LDS at M0 + inst offset
// + 4 * lane instead of a VGPR (vmem::lds_dma_target).
template <LK K, u32 Dwords, bool Hooked>
void bload_lanes(Wave& w, const Inst& I) {
  const bool lds = I.lds;
  const Operand& vaddr = lds ? I.ops[0] : I.ops[1];
  const Operand& rsrc = lds ? I.ops[1] : I.ops[2];
  const Operand& soff = lds ? I.ops[2] : I.ops[3];
  const BufDesc v = read_vsharp(w, rsrc);
  Addr ad, rg;
  buffer_addresses(w, I, vaddr, soff, v, ad, rg);
  constexpr u32 bytes = load_bytes(K);
  const u64 limit = range_limit(v, I);
  if (lds && !(Dwords == 1 && (K == LK::D32 || K == LK::U8 || K == LK::I8 || K == LK::U16 || K == LK::I16)))
    sim_fail("this buffer load has no load-to-LDS form");
  const u64 e = w.exec();
  for (int l = 0; l < kLanes; ++l) {
    if (!((e >> l) & 1)) continue;
    for (u32 i = 0; i < Dwords; ++i) {
      u32 x = 0;
      if (in_range(rg.a[l], 4 * i + bytes, limit))
        load_lane<Hooked>(w, Space::Global, ad.a[l] + 4 * i, bytes, l, I, &x);  // zero-extended
      if (lds) {
        const u32 y = widen(K, x);
        std::memcpy(lds_dma_target(w, I, l), &y, 4);
      } else {
        u32* r = &w.row(I.ops[0].reg + i)[l];
        *r = place(K, *r, x);
      }
    }
  }
}

template <LK K, u32 Dwords>
void bload(Wave& w, const Inst& I) {
  if (w.env->global_hooks) [[unlikely]] return bload_lanes<K, Dwords, true>(w, I);
  bload_lanes<K, Dwords, false>(w, I);
}

template <SK K, u32 Dwords, bool Hooked>
void bstore_lanes(Wave& w, const Inst& I) {
  const BufDesc v = read_vsharp(w, I.ops[2]);
  Addr ad, rg;
  buffer_addresses(w, I, I.ops[1], I.ops[3], v, ad, rg);
  constexpr u32 bytes = store_bytes(K);
  const u64 limit = range_limit(v, I);
  const u64 e = w.exec();
  for (int l = 0; l < kLanes; ++l) {
    if (!((e >> l) & 1)) continue;
    for (u32 i = 0; i < Dwords; ++i) {
      if (!in_range(rg.a[l], 4 * i + bytes, limit)) continue;  // dropped
      u32 x = w.row(I.ops[0].reg + i)[l];
      if (K == SK::B8Hi || K == SK::B16Hi) x >>= 16;
      store_lane<Hooked>(w, Space::Global, ad.a[l] + 4 * i, bytes, l, I, &x);
    }
  }
}
template <SK K, u32 Dwords>
void bstore(Wave& w, const Inst& I) {
  if (w.env->global_hooks) [[unlikely]] return bstore_lanes<K, Dwords, true>(w, I);
  bstore_lanes<K, Dwords, false>(w, I);
}

// buffer_inv, buffer_wbl2 at the scope of their sc bits; buffer_wbinvl1_vol invalidates the L1.
// Without the memory-model mode memory is coherent and they do nothing (checks/memory_model.hpp).
void cache_control(Wave& w, const Inst& I) {
  CacheModel* c = w.env->caches;
  if (!c) return;
  if (I.op == Opcode::buffer_wbl2) {
    w.pending.complete_all(*c, w.wg->cu);  // the release's writeback covers the stores before it
    c->writeback(w.wg->cu, scope_of(I.sc0, I.sc1));
  }
  else if (I.op == Opcode::buffer_inv) c->invalidate(w.wg->cu, scope_of(I.sc0, I.sc1));
  else c->invalidate(w.wg->cu, Scope::Workgroup);
}

}  // namespace

void register_vmem(HandlerTable& t) {
  t[static_cast<std::size_t>(Opcode::buffer_load_dword)] = bload<LK::D32, 1>;
  t[static_cast<std::size_t>(Opcode::buffer_load_dwordx2)] = bload<LK::D32, 2>;
  t[static_cast<std::size_t>(Opcode::buffer_load_dwordx3)] = bload<LK::D32, 3>;
  t[static_cast<std::size_t>(Opcode::buffer_load_dwordx4)] = bload<LK::D32, 4>;
  t[static_cast<std::size_t>(Opcode::buffer_load_ubyte)] = bload<LK::U8, 1>;
  t[static_cast<std::size_t>(Opcode::buffer_load_sbyte)] = bload<LK::I8, 1>;
  t[static_cast<std::size_t>(Opcode::buffer_load_ushort)] = bload<LK::U16, 1>;
  t[static_cast<std::size_t>(Opcode::buffer_load_sshort)] = bload<LK::I16, 1>;
  t[static_cast<std::size_t>(Opcode::buffer_store_dword)] = bstore<SK::D32, 1>;
  t[static_cast<std::size_t>(Opcode::buffer_store_dwordx2)] = bstore<SK::D32, 2>;
  t[static_cast<std::size_t>(Opcode::buffer_store_dwordx3)] = bstore<SK::D32, 3>;
  t[static_cast<std::size_t>(Opcode::buffer_store_dwordx4)] = bstore<SK::D32, 4>;
  t[static_cast<std::size_t>(Opcode::buffer_store_byte)] = bstore<SK::B8, 1>;
  t[static_cast<std::size_t>(Opcode::buffer_store_short)] = bstore<SK::B16, 1>;
  auto set = [&](Opcode op, Handler h) { t[static_cast<std::size_t>(op)] = h; };
  using O = Opcode;
  constexpr Space G = Space::Global, F = Space::Flat, S = Space::Scratch;
#define LOADS(P, SP)                                                   \
  set(O::P##_load_ubyte, vload<SP, LK::U8, 1>);                        \
  set(O::P##_load_sbyte, vload<SP, LK::I8, 1>);                        \
  set(O::P##_load_ushort, vload<SP, LK::U16, 1>);                      \
  set(O::P##_load_sshort, vload<SP, LK::I16, 1>);                      \
  set(O::P##_load_dword, vload<SP, LK::D32, 1>);                       \
  set(O::P##_load_dwordx2, vload<SP, LK::D32, 2>);                     \
  set(O::P##_load_dwordx3, vload<SP, LK::D32, 3>);                     \
  set(O::P##_load_dwordx4, vload<SP, LK::D32, 4>);                     \
  set(O::P##_store_byte, vstore<SP, SK::B8, 1>);                       \
  set(O::P##_store_short, vstore<SP, SK::B16, 1>);                     \
  set(O::P##_store_dword, vstore<SP, SK::D32, 1>);                     \
  set(O::P##_store_dwordx2, vstore<SP, SK::D32, 2>);                   \
  set(O::P##_store_dwordx3, vstore<SP, SK::D32, 3>);                   \
  set(O::P##_store_dwordx4, vstore<SP, SK::D32, 4>);
  LOADS(global, G)
  LOADS(flat, F)
  LOADS(scratch, S)
#undef LOADS
#define D16(P, SP)                                                     \
  set(O::P##_load_ubyte_d16, vload<SP, LK::U8D16, 1>);                 \
  set(O::P##_load_ubyte_d16_hi, vload<SP, LK::U8D16Hi, 1>);            \
  set(O::P##_load_sbyte_d16, vload<SP, LK::I8D16, 1>);                 \
  set(O::P##_load_sbyte_d16_hi, vload<SP, LK::I8D16Hi, 1>);            \
  set(O::P##_load_short_d16, vload<SP, LK::S16D16, 1>);                \
  set(O::P##_load_short_d16_hi, vload<SP, LK::S16D16Hi, 1>);           \
  set(O::P##_store_byte_d16_hi, vstore<SP, SK::B8Hi, 1>);              \
  set(O::P##_store_short_d16_hi, vstore<SP, SK::B16Hi, 1>);
  D16(global, G)
  D16(flat, F)
  D16(scratch, S)
#undef D16
  set(O::buffer_load_ubyte_d16, bload<LK::U8D16, 1>);
  set(O::buffer_load_ubyte_d16_hi, bload<LK::U8D16Hi, 1>);
  set(O::buffer_load_sbyte_d16, bload<LK::I8D16, 1>);
  set(O::buffer_load_sbyte_d16_hi, bload<LK::I8D16Hi, 1>);
  set(O::buffer_load_short_d16, bload<LK::S16D16, 1>);
  set(O::buffer_load_short_d16_hi, bload<LK::S16D16Hi, 1>);
  set(O::buffer_store_byte_d16_hi, bstore<SK::B8Hi, 1>);
  set(O::buffer_store_short_d16_hi, bstore<SK::B16Hi, 1>);

  // Atomics of GLOBAL (P = global) and FLAT (P = flat).
#define ATOMICS(P, SP)                                                  \
  set(O::P##_atomic_add, vatomic<SP, AK::Add, false>);                  \
  set(O::P##_atomic_sub, vatomic<SP, AK::Sub, false>);                  \
  set(O::P##_atomic_swap, vatomic<SP, AK::Swap, false>);                \
  set(O::P##_atomic_cmpswap, vatomic<SP, AK::CmpSwap, false>);          \
  set(O::P##_atomic_umin, vatomic<SP, AK::UMin, false>);                \
  set(O::P##_atomic_umax, vatomic<SP, AK::UMax, false>);                \
  set(O::P##_atomic_smin, vatomic<SP, AK::SMin, false>);                \
  set(O::P##_atomic_smax, vatomic<SP, AK::SMax, false>);                \
  set(O::P##_atomic_and, vatomic<SP, AK::And, false>);                  \
  set(O::P##_atomic_or, vatomic<SP, AK::Or, false>);                    \
  set(O::P##_atomic_xor, vatomic<SP, AK::Xor, false>);                  \
  set(O::P##_atomic_inc, vatomic<SP, AK::Inc, false>);                  \
  set(O::P##_atomic_dec, vatomic<SP, AK::Dec, false>);                  \
  set(O::P##_atomic_add_f32, vatomic<SP, AK::AddF32, false>);           \
  set(O::P##_atomic_pk_add_f16, vatomic<SP, AK::PkAddF16, false>);      \
  set(O::P##_atomic_pk_add_bf16, vatomic<SP, AK::PkAddBF16, false>);    \
  set(O::P##_atomic_add_x2, vatomic<SP, AK::Add, true>);                \
  set(O::P##_atomic_sub_x2, vatomic<SP, AK::Sub, true>);                \
  set(O::P##_atomic_swap_x2, vatomic<SP, AK::Swap, true>);              \
  set(O::P##_atomic_cmpswap_x2, vatomic<SP, AK::CmpSwap, true>);        \
  set(O::P##_atomic_umin_x2, vatomic<SP, AK::UMin, true>);              \
  set(O::P##_atomic_umax_x2, vatomic<SP, AK::UMax, true>);              \
  set(O::P##_atomic_smin_x2, vatomic<SP, AK::SMin, true>);              \
  set(O::P##_atomic_smax_x2, vatomic<SP, AK::SMax, true>);              \
  set(O::P##_atomic_and_x2, vatomic<SP, AK::And, true>);                \
  set(O::P##_atomic_or_x2, vatomic<SP, AK::Or, true>);                  \
  set(O::P##_atomic_xor_x2, vatomic<SP, AK::Xor, true>);                \
  set(O::P##_atomic_inc_x2, vatomic<SP, AK::Inc, true>);                \
  set(O::P##_atomic_dec_x2, vatomic<SP, AK::Dec, true>);                \
  set(O::P##_atomic_add_f64, vatomic<SP, AK::AddF64, true>);            \
  set(O::P##_atomic_min_f64, vatomic<SP, AK::MinF64, true>);            \
  set(O::P##_atomic_max_f64, vatomic<SP, AK::MaxF64, true>);
  ATOMICS(global, G)
  ATOMICS(flat, F)
#undef ATOMICS

  set(O::buffer_inv, cache_control);
  set(O::buffer_wbl2, cache_control);
  set(O::buffer_wbinvl1_vol, cache_control);
}

}  // namespace cdna::simulator
