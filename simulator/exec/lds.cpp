// LDS (DS instructions): reads, writes, read2/write2, and the cross-lane ds_bpermute_b32 /
// ds_permute_b32 / ds_swizzle_b32 (which do not touch LDS memory). Atomics: exec/ds_atomic.cpp.
//
// Addresses are 32-bit: vaddr + offset wraps modulo 2^32.
// LDS is per workgroup; an access outside it is an error (lds.hpp). Accesses complete
// immediately, in lane order.
#include <cstring>

#include "simulator/exec/lds.hpp"
#include "simulator/exec/handlers.hpp"

namespace cdna::simulator {
namespace {

using u32 = std::uint32_t;
using u64 = std::uint64_t;

enum class RK { U8, I8, U16, I16, D32, U8D16, U8D16Hi, I8D16, I8D16Hi, U16D16, U16D16Hi };

template <RK K, u32 Dwords>
void ds_read(Wave& w, const Inst& I) {  // vdst, vaddr offset:N
  Lanes t;
  const u32* a = vsrc(w, I.ops[1], t);
  Lanes addr;
  std::memcpy(addr.u, a, sizeof addr.u);
  constexpr u32 bytes = K == RK::D32 ? 4 * Dwords
                        : (K == RK::U8 || K == RK::I8 || K == RK::U8D16 || K == RK::U8D16Hi ||
                           K == RK::I8D16 || K == RK::I8D16Hi) ? 1 : 2;
  u64 e = w.exec();
  const Operand& d = I.ops[0];
  for (int l = 0; l < kLanes; ++l) {
    if (!((e >> l) & 1)) continue;
    const std::uint8_t* p = lds_at(w, u64{addr.u[l] + static_cast<u32>(I.offset)}, bytes, l, LdsAccess::Read);
    if constexpr (K == RK::D32) {
      for (u32 i = 0; i < Dwords; ++i) std::memcpy(&w.row(d.reg + i)[l], p + 4 * i, 4);
    } else {
      u32 raw = bytes == 1 ? u32{p[0]} : u32{p[0]} | (u32{p[1]} << 8);
      u32* r = &w.row(d.reg)[l];
      auto s8 = [](u32 x) { return static_cast<u32>(static_cast<std::int32_t>(static_cast<std::int8_t>(x))); };
      switch (K) {
        case RK::U8: case RK::U16: *r = raw; break;
        case RK::I8: *r = s8(raw); break;
        case RK::I16: *r = static_cast<u32>(static_cast<std::int32_t>(static_cast<std::int16_t>(raw))); break;
        case RK::U8D16: case RK::U16D16: *r = (*r & 0xffff0000u) | raw; break;
        case RK::I8D16: *r = (*r & 0xffff0000u) | (s8(raw) & 0xffffu); break;
        case RK::U8D16Hi: case RK::U16D16Hi: *r = (*r & 0xffffu) | (raw << 16); break;
        case RK::I8D16Hi: *r = (*r & 0xffffu) | (s8(raw) << 16); break;
        default: break;
      }
    }
  }
}

enum class WK { B8, B8Hi, B16, B16Hi, D32 };

template <WK K, u32 Dwords>
void ds_write(Wave& w, const Inst& I) {  // vaddr, vdata offset:N
  Lanes t;
  const u32* a = vsrc(w, I.ops[0], t);
  constexpr u32 bytes = K == WK::D32 ? 4 * Dwords : (K == WK::B8 || K == WK::B8Hi) ? 1 : 2;
  u64 e = w.exec();
  const Operand& d = I.ops[1];
  for (int l = 0; l < kLanes; ++l) {
    if (!((e >> l) & 1)) continue;
    std::uint8_t* p = lds_at(w, u64{a[l] + static_cast<u32>(I.offset)}, bytes, l, LdsAccess::Write);
    if constexpr (K == WK::D32) {
      for (u32 i = 0; i < Dwords; ++i) std::memcpy(p + 4 * i, &w.row(d.reg + i)[l], 4);
    } else {
      u32 x = w.row(d.reg)[l];
      if (K == WK::B8Hi || K == WK::B16Hi) x >>= 16;
      p[0] = static_cast<std::uint8_t>(x);
      if (bytes == 2) p[1] = static_cast<std::uint8_t>(x >> 8);
    }
  }
}

// read2/write2: two accesses at vaddr + offset0*stride and vaddr + offset1*stride.
template <u32 Dwords, u32 Stride>
void ds_read2(Wave& w, const Inst& I) {  // vdst (2*Dwords regs), vaddr
  Lanes t;
  const u32* a = vsrc(w, I.ops[1], t);
  Lanes addr;
  std::memcpy(addr.u, a, sizeof addr.u);
  u64 e = w.exec();
  const Operand& d = I.ops[0];
  for (int l = 0; l < kLanes; ++l) {
    if (!((e >> l) & 1)) continue;
    const std::uint8_t* p0 = lds_at(w, u64{addr.u[l] + u32{I.offset0} * Stride}, 4 * Dwords, l, LdsAccess::Read);
    const std::uint8_t* p1 = lds_at(w, u64{addr.u[l] + u32{I.offset1} * Stride}, 4 * Dwords, l, LdsAccess::Read);
    for (u32 i = 0; i < Dwords; ++i) {
      std::memcpy(&w.row(d.reg + i)[l], p0 + 4 * i, 4);
      std::memcpy(&w.row(d.reg + Dwords + i)[l], p1 + 4 * i, 4);
    }
  }
}
template <u32 Dwords, u32 Stride>
void ds_write2(Wave& w, const Inst& I) {  // vaddr, data0, data1
  Lanes t;
  const u32* a = vsrc(w, I.ops[0], t);
  u64 e = w.exec();
  for (int l = 0; l < kLanes; ++l) {
    if (!((e >> l) & 1)) continue;
    std::uint8_t* p0 = lds_at(w, u64{a[l] + u32{I.offset0} * Stride}, 4 * Dwords, l, LdsAccess::Write);
    std::uint8_t* p1 = lds_at(w, u64{a[l] + u32{I.offset1} * Stride}, 4 * Dwords, l, LdsAccess::Write);
    for (u32 i = 0; i < Dwords; ++i) {
      std::memcpy(p0 + 4 * i, &w.row(I.ops[1].reg + i)[l], 4);
      std::memcpy(p1 + 4 * i, &w.row(I.ops[2].reg + i)[l], 4);
    }
  }
}

// ds_bpermute_b32 vdst, vaddr, vdata: lane l reads vdata of lane (vaddr[l] + offset)/4 mod 64;
// reading an inactive lane gives 0.
void ds_bpermute_b32(Wave& w, const Inst& I) {
  Lanes ta, td, r;
  const u32* a = vsrc(w, I.ops[1], ta);
  const u32* d = vsrc(w, I.ops[2], td);
  u64 e = w.exec();
  for (int l = 0; l < kLanes; ++l) {
    u32 src = ((a[l] + static_cast<u32>(I.offset)) >> 2) & 63;
    r.u[l] = ((e >> src) & 1) ? d[src] : 0u;
  }
  vwrite(w, I.ops[0], r.u);
}
// ds_permute_b32 vdst, vaddr, vdata: active lane l writes vdata[l] to lane (vaddr[l]+offset)/4;
// the highest writing lane wins; lanes nobody writes get 0.
void ds_permute_b32(Wave& w, const Inst& I) {
  Lanes ta, td, r;
  const u32* a = vsrc(w, I.ops[1], ta);
  const u32* d = vsrc(w, I.ops[2], td);
  std::memset(r.u, 0, sizeof r.u);
  u64 e = w.exec();
  for (int l = 0; l < kLanes; ++l)
    if ((e >> l) & 1) r.u[((a[l] + static_cast<u32>(I.offset)) >> 2) & 63] = d[l];
  vwrite(w, I.ops[0], r.u);
}

// ds_swizzle_b32 vdst, vdata offset:o (GFX9/CDNA3 ISA DS_SWIZZLE_B32; no LDS access). Lane l
// reads vdata of lane src: o[15] set (quad mode): src = (l & ~3) | o[2(l&3)+1 : 2(l&3)];
// else (bit mode, within each half of 32 lanes) src = (l & 32) | (((l & and) | or) ^ xor) with
// and = o[4:0], or = o[9:5], xor = o[14:10]. Reading an inactive lane gives 0, as for
// ds_bpermute_b32 (not stated for swizzle in the guide; unverified).
void ds_swizzle_b32(Wave& w, const Inst& I) {
  Lanes td, r;
  const u32* d = vsrc(w, I.ops[1], td);
  const u32 o = static_cast<u32>(I.offset) & 0xffffu;
  const u64 e = w.exec();
  for (u32 l = 0; l < 64; ++l) {
    u32 src;
    if (o & 0x8000u) {
      src = (l & ~3u) | ((o >> (2 * (l & 3u))) & 3u);
    } else {
      const u32 and_mask = o & 0x1fu, or_mask = (o >> 5) & 0x1fu, xor_mask = (o >> 10) & 0x1fu;
      src = (l & 32u) | ((((l & 31u) & and_mask) | or_mask) ^ xor_mask);
    }
    r.u[l] = ((e >> src) & 1) ? d[src] : 0u;
  }
  vwrite(w, I.ops[0], r.u);
}

void ds_nop(Wave&, const Inst&) {}

}  // namespace

void register_lds(HandlerTable& t) {
  auto set = [&](Opcode op, Handler h) { t[static_cast<std::size_t>(op)] = h; };
  using O = Opcode;
  set(O::ds_read_b32, ds_read<RK::D32, 1>);
  set(O::ds_read_b64, ds_read<RK::D32, 2>);
  set(O::ds_read_b96, ds_read<RK::D32, 3>);
  set(O::ds_read_b128, ds_read<RK::D32, 4>);
  set(O::ds_read_u8, ds_read<RK::U8, 1>);
  set(O::ds_read_i8, ds_read<RK::I8, 1>);
  set(O::ds_read_u16, ds_read<RK::U16, 1>);
  set(O::ds_read_i16, ds_read<RK::I16, 1>);
  set(O::ds_read_u8_d16, ds_read<RK::U8D16, 1>);
  set(O::ds_read_u8_d16_hi, ds_read<RK::U8D16Hi, 1>);
  set(O::ds_read_i8_d16, ds_read<RK::I8D16, 1>);
  set(O::ds_read_i8_d16_hi, ds_read<RK::I8D16Hi, 1>);
  set(O::ds_read_u16_d16, ds_read<RK::U16D16, 1>);
  set(O::ds_read_u16_d16_hi, ds_read<RK::U16D16Hi, 1>);
  set(O::ds_write_b8, ds_write<WK::B8, 1>);
  set(O::ds_write_b16, ds_write<WK::B16, 1>);
  set(O::ds_write_b32, ds_write<WK::D32, 1>);
  set(O::ds_write_b64, ds_write<WK::D32, 2>);
  set(O::ds_write_b96, ds_write<WK::D32, 3>);
  set(O::ds_write_b128, ds_write<WK::D32, 4>);
  set(O::ds_write_b8_d16_hi, ds_write<WK::B8Hi, 1>);
  set(O::ds_write_b16_d16_hi, ds_write<WK::B16Hi, 1>);
  set(O::ds_read2_b32, ds_read2<1, 4>);
  set(O::ds_read2_b64, ds_read2<2, 8>);
  set(O::ds_read2st64_b32, ds_read2<1, 256>);
  set(O::ds_read2st64_b64, ds_read2<2, 512>);
  set(O::ds_write2_b32, ds_write2<1, 4>);
  set(O::ds_write2_b64, ds_write2<2, 8>);
  set(O::ds_write2st64_b32, ds_write2<1, 256>);
  set(O::ds_write2st64_b64, ds_write2<2, 512>);
  set(O::ds_bpermute_b32, ds_bpermute_b32);
  set(O::ds_permute_b32, ds_permute_b32);
  set(O::ds_swizzle_b32, ds_swizzle_b32);
  set(O::ds_nop, ds_nop);
}

}  // namespace cdna::simulator
