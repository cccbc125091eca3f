// Vector memory: GLOBAL, FLAT and SCRATCH loads, stores and global atomics.
//
// Accesses complete immediately and in lane order (lane 0 first), so s_waitcnt has nothing
// to wait for. Global addresses must fall inside a buffer the host allocated; flat addresses
// are routed by aperture (shared -> LDS, private -> the lane's scratch, else global); scratch
// addresses are offsets into the lane's private segment.
#include <cstring>

#include "simulator/fp.hpp"

namespace cdna::simulator {
namespace {

using u32 = std::uint32_t;
using u64 = std::uint64_t;

enum class Space { Global, Flat, Scratch };

std::string lane_prefix(int lane) { return "lane " + std::to_string(lane) + ": "; }

// Per-lane address computation.
struct Addr {
  u64 a[kLanes];
};

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

// Host pointer for `n` bytes at `addr` in `space` for lane `lane`, or an error.
std::uint8_t* locate(Wave& w, Space space, u64 addr, u32 n, bool write, int lane) {
  if (space == Space::Flat) {
    if (addr - kSharedAperture < (1ull << 32)) {
      u64 off = addr - kSharedAperture;
      auto& lds = w.wg->lds;
      if (off + n > lds.size())
        sim_fail(lane_prefix(lane) + "flat access to LDS offset " + hex(off) + " (" +
                 std::to_string(n) + " bytes) is outside the workgroup's " +
                 std::to_string(lds.size()) + " bytes of LDS");
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

// Load kinds: how the bytes read land in the destination register(s).
enum class LK { U8, I8, U16, I16, D32, U8D16, U8D16Hi, I8D16, I8D16Hi, S16D16, S16D16Hi };

template <Space S, LK K, u32 Dwords>
void vload(Wave& w, const Inst& I) {
  // ops: vdst, vaddr, [saddr]
  Addr ad;
  if (S == Space::Scratch) scratch_addresses(w, I, I.ops[1], I.ops[2], ad);
  else if (S == Space::Global) global_addresses(w, I, I.ops[1], I.ops[2], ad);
  else {
    Lanes64 v;
    vsrc64(w, I.ops[1], v);
    for (int l = 0; l < kLanes; ++l) ad.a[l] = v.u[l] + static_cast<u64>(static_cast<std::int64_t>(I.offset));
  }
  constexpr u32 bytes = K == LK::D32 ? 4 * Dwords
                        : (K == LK::U8 || K == LK::I8 || K == LK::U8D16 || K == LK::U8D16Hi ||
                           K == LK::I8D16 || K == LK::I8D16Hi) ? 1 : 2;
  u64 e = w.exec();
  const Operand& d = I.ops[0];
  for (int l = 0; l < kLanes; ++l) {
    if (!((e >> l) & 1)) continue;
    const std::uint8_t* p = locate(w, S, ad.a[l], bytes, false, l);
    if constexpr (K == LK::D32) {
      for (u32 i = 0; i < Dwords; ++i) {
        u32 x;
        std::memcpy(&x, p + 4 * i, 4);
        w.row(d.reg + i)[l] = x;
      }
    } else {
      u32 raw = bytes == 1 ? u32{p[0]} : u32{p[0]} | (u32{p[1]} << 8);
      u32* r = &w.row(d.reg)[l];
      switch (K) {
        case LK::U8: *r = raw; break;
        case LK::I8: *r = static_cast<u32>(static_cast<std::int32_t>(static_cast<std::int8_t>(raw))); break;
        case LK::U16: *r = raw; break;
        case LK::I16: *r = static_cast<u32>(static_cast<std::int32_t>(static_cast<std::int16_t>(raw))); break;
        case LK::U8D16: case LK::S16D16: *r = (*r & 0xffff0000u) | raw; break;
        case LK::I8D16: *r = (*r & 0xffff0000u) | (static_cast<u32>(static_cast<std::int16_t>(static_cast<std::int8_t>(raw))) & 0xffff); break;
        case LK::U8D16Hi: case LK::S16D16Hi: *r = (*r & 0xffffu) | (raw << 16); break;
        case LK::I8D16Hi: *r = (*r & 0xffffu) | (static_cast<u32>(static_cast<std::int16_t>(static_cast<std::int8_t>(raw))) << 16); break;
        default: break;
      }
    }
  }
}

// Store kinds: which bits of the data register are stored.
enum class SK { B8, B8Hi, B16, B16Hi, D32 };

template <Space S, SK K, u32 Dwords>
void vstore(Wave& w, const Inst& I) {
  // ops: vaddr, vdata, [saddr]
  Addr ad;
  if (S == Space::Scratch) scratch_addresses(w, I, I.ops[0], I.ops[2], ad);
  else if (S == Space::Global) global_addresses(w, I, I.ops[0], I.ops[2], ad);
  else {
    Lanes64 v;
    vsrc64(w, I.ops[0], v);
    for (int l = 0; l < kLanes; ++l) ad.a[l] = v.u[l] + static_cast<u64>(static_cast<std::int64_t>(I.offset));
  }
  constexpr u32 bytes = K == SK::D32 ? 4 * Dwords : (K == SK::B8 || K == SK::B8Hi) ? 1 : 2;
  u64 e = w.exec();
  const Operand& d = I.ops[1];
  for (int l = 0; l < kLanes; ++l) {
    if (!((e >> l) & 1)) continue;
    std::uint8_t* p = locate(w, S, ad.a[l], bytes, true, l);
    if constexpr (K == SK::D32) {
      for (u32 i = 0; i < Dwords; ++i) {
        u32 x = w.row(d.reg + i)[l];
        std::memcpy(p + 4 * i, &x, 4);
      }
    } else {
      u32 x = w.row(d.reg)[l];
      if (K == SK::B8Hi || K == SK::B16Hi) x >>= 16;
      p[0] = static_cast<std::uint8_t>(x);
      if (bytes == 2) p[1] = static_cast<std::uint8_t>(x >> 8);
    }
  }
}

// ---- global atomics. ops without return: vaddr, vdata, saddr|off;
// with return (4 operands): vdst, vaddr, vdata, saddr|off.
enum class AK { Add, Sub, Swap, CmpSwap, UMin, UMax, SMin, SMax, And, Or, Xor, Inc, Dec, AddF32,
                AddF64, MinF64, MaxF64 };

template <AK K, bool Wide>
void vatomic(Wave& w, const Inst& I) {
  bool ret = I.nops == 4;
  const Operand& vaddr = I.ops[ret ? 1 : 0];
  const Operand& vdata = I.ops[ret ? 2 : 1];
  const Operand& saddr = I.ops[ret ? 3 : 2];
  Addr ad;
  global_addresses(w, I, vaddr, saddr, ad);
  constexpr u32 bytes = Wide ? 8 : 4;
  u64 e = w.exec();
  for (int l = 0; l < kLanes; ++l) {
    if (!((e >> l) & 1)) continue;
    std::uint8_t* p = locate(w, Space::Global, ad.a[l], bytes, true, l);
    u64 old = 0, src = 0, cmp = 0;
    std::memcpy(&old, p, bytes);
    src = w.row(vdata.reg)[l];
    if (Wide) src |= u64{w.row(vdata.reg + 1)[l]} << 32;
    if (K == AK::CmpSwap) {
      unsigned ci = Wide ? 2u : 1u;
      cmp = w.row(vdata.reg + ci)[l];
      if (Wide) cmp |= u64{w.row(vdata.reg + ci + 1)[l]} << 32;
    }
    u64 mask = Wide ? ~0ull : 0xffffffffull;
    u64 nv = old;
    auto sgn = [&](u64 x) { return Wide ? static_cast<std::int64_t>(x) : static_cast<std::int64_t>(static_cast<std::int32_t>(x)); };
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
          sim_fail(lane_prefix(l) + "fp32 atomic add with a denormal operand or result: the "
                   "hardware's denormal handling for atomics is not modelled");
        nv = r;
        break;
      }
      case AK::AddF64: case AK::MinF64: case AK::MaxF64: {
        double a = as_double(old), b = as_double(src);
        double r = K == AK::AddF64 ? a + b : K == AK::MinF64 ? std::fmin(a, b) : std::fmax(a, b);
        if ((std::fpclassify(a) == FP_SUBNORMAL) || (std::fpclassify(b) == FP_SUBNORMAL) ||
            (std::fpclassify(r) == FP_SUBNORMAL))
          sim_fail(lane_prefix(l) + "fp64 atomic with a denormal operand or result: not modelled");
        nv = dbits(r);
        break;
      }
    }
    nv &= mask;
    std::memcpy(p, &nv, bytes);
    if (ret) {
      w.row(I.ops[0].reg)[l] = static_cast<u32>(old);
      if (Wide) w.row(I.ops[0].reg + 1)[l] = static_cast<u32>(old >> 32);
    }
  }
}

// ---- MUBUF buffer loads/stores (untyped), with a buffer resource descriptor V# in 4 SGPRs:
// dword0 base[31:0]; dword1 bits 15:0 base[47:32], 29:16 stride, 30 cache swizzle, 31
// swizzle_enable; dword2 num_records (bytes); dword3 bit 23 add_tid_enable. Addressing
// (swizzle off): index = idxen ? vaddr[0] : 0; offset = (offen ? vaddr[idxen] : 0) + inst
// offset; address = base + soffset + stride * index + offset. Range check: a structured access
// (idxen with stride != 0) is out of range as a whole if index >= num_records (num_records counts
// records of `stride` bytes); otherwise (raw buffers, num_records in bytes) each dword (or the
// whole sub-dword element) at range = stride * index + offset (soffset not included) is out of
// range if range >= num_records. Out-of-range loads give 0, stores are dropped. Refused:
// swizzle_enable, add_tid_enable. Sources for num_records in records on gfx9-family chips with
// a stride: Mesa's radv/radeonsi divide the byte size by the stride on every generation but GFX8
// (radv_buffer.c, si_descriptors.c), and LLVM notes that on GFX9 IDXEN decides how buffer sizes
// are read (review D44401); the CDNA3 ISA guide's range-checking table was not at hand.
// LDS form (`lds`, dword only): the dword goes to LDS at M0 + inst offset + 4 * lane instead of
// a VGPR (0 if out of range).
struct BufDesc {
  u64 base;
  u32 stride, num_records;
};

// Range offsets at or above this are out of range (see buffer_addresses).
constexpr u64 kOutOfRange = 1ull << 62;
// The limit the per-dword range offsets are compared with.
u64 range_limit(const BufDesc& v, const Inst& I) {
  return I.idxen && v.stride != 0 ? kOutOfRange : u64{v.num_records};
}
BufDesc read_vsharp(Wave& w, const Operand& r) {
  if (r.kind != OperandKind::Sreg) sim_fail("buffer resource descriptor must be SGPRs");
  const u32 d0 = w.s[r.reg], d1 = w.s[r.reg + 1], d2 = w.s[r.reg + 2], d3 = w.s[r.reg + 3];
  if (d1 >> 31) sim_fail("buffer descriptor with swizzle_enable: swizzled buffers are not modelled");
  if ((d3 >> 23) & 1) sim_fail("buffer descriptor with add_tid_enable: not modelled");
  return {u64{d0} | (u64{d1 & 0xffffu} << 32), (d1 >> 16) & 0x3fffu, d2};
}

// Per lane: address of the element and its range-check offset.
void buffer_addresses(Wave& w, const Inst& I, const Operand& vaddr, const Operand& rsrc,
                      const Operand& soff, const BufDesc& v, Addr& addr, Addr& range) {
  const u32 so = read_s32(w, soff);
  const u32* idx = nullptr;
  const u32* off = nullptr;
  Lanes t0, t1;
  (void)rsrc;
  if (I.idxen) idx = vsrc(w, vaddr, t0, 0);
  if (I.offen) off = vsrc(w, vaddr, t1, I.idxen ? 1u : 0u);
  const bool structured = idx && v.stride != 0;
  for (int l = 0; l < kLanes; ++l) {
    const u64 r = u64{v.stride} * (idx ? idx[l] : 0u) + (off ? off[l] : 0u) +
                  static_cast<u32>(I.offset);
    // Structured: the whole record is in or out (compared with range_limit() = kOutOfRange).
    range.a[l] = structured ? (idx[l] < v.num_records ? 0 : kOutOfRange) : r;
    addr.a[l] = v.base + so + r;
  }
}

template <LK K, u32 Dwords>
void bload(Wave& w, const Inst& I) {
  const bool lds = I.lds;
  const Operand& vaddr = lds ? I.ops[0] : I.ops[1];
  const Operand& rsrc = lds ? I.ops[1] : I.ops[2];
  const Operand& soff = lds ? I.ops[2] : I.ops[3];
  const BufDesc v = read_vsharp(w, rsrc);
  Addr ad, rg;
  buffer_addresses(w, I, vaddr, rsrc, soff, v, ad, rg);
  constexpr u32 bytes = K == LK::D32 ? 4 : (K == LK::U8 || K == LK::I8) ? 1 : 2;
  const u64 limit = range_limit(v, I);
  if (lds && !(K == LK::D32 && Dwords == 1))
    sim_fail("buffer load to LDS other than buffer_load_dword is not supported");
  const u64 e = w.exec();
  for (int l = 0; l < kLanes; ++l) {
    if (!((e >> l) & 1)) continue;
    for (u32 i = 0; i < Dwords; ++i) {
      u32 x = 0;
      if (rg.a[l] + 4 * i < limit) {
        const std::uint8_t* p = locate(w, Space::Global, ad.a[l] + 4 * i, bytes, false, l);
        if (bytes == 4) std::memcpy(&x, p, 4);
        else x = bytes == 1 ? u32{p[0]} : u32{p[0]} | (u32{p[1]} << 8);
        if (K == LK::I8) x = static_cast<u32>(static_cast<std::int32_t>(static_cast<std::int8_t>(x)));
        if (K == LK::I16) x = static_cast<u32>(static_cast<std::int32_t>(static_cast<std::int16_t>(x)));
      }
      if (lds) {
        const u64 a = u64{w.s[kM0]} + static_cast<u32>(I.offset) + 4u * static_cast<u32>(l);
        auto& mem = w.wg->lds;
        if (a + 4 > mem.size())
          sim_fail(lane_prefix(l) + "buffer load to LDS at " + hex(a) + " is outside the " +
                   std::to_string(mem.size()) + " bytes of LDS");
        std::memcpy(mem.data() + a, &x, 4);
      } else {
        w.row(I.ops[0].reg + i)[l] = x;
      }
    }
  }
}

template <SK K, u32 Dwords>
void bstore(Wave& w, const Inst& I) {
  const BufDesc v = read_vsharp(w, I.ops[2]);
  Addr ad, rg;
  buffer_addresses(w, I, I.ops[1], I.ops[2], I.ops[3], v, ad, rg);
  constexpr u32 bytes = K == SK::D32 ? 4 : K == SK::B8 ? 1 : 2;
  const u64 limit = range_limit(v, I);
  const u64 e = w.exec();
  for (int l = 0; l < kLanes; ++l) {
    if (!((e >> l) & 1)) continue;
    for (u32 i = 0; i < Dwords; ++i) {
      if (rg.a[l] + 4 * i >= limit) continue;  // dropped
      std::uint8_t* p = locate(w, Space::Global, ad.a[l] + 4 * i, bytes, true, l);
      const u32 x = w.row(I.ops[0].reg + i)[l];
      if (bytes == 4) std::memcpy(p, &x, 4);
      else {
        p[0] = static_cast<std::uint8_t>(x);
        if (bytes == 2) p[1] = static_cast<std::uint8_t>(x >> 8);
      }
    }
  }
}

void cache_control(Wave&, const Inst&) {}  // buffer_inv / buffer_wbl2: memory is coherent here

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
  set(O::global_load_ubyte_d16, vload<G, LK::U8D16, 1>);
  set(O::global_load_ubyte_d16_hi, vload<G, LK::U8D16Hi, 1>);
  set(O::global_load_sbyte_d16, vload<G, LK::I8D16, 1>);
  set(O::global_load_sbyte_d16_hi, vload<G, LK::I8D16Hi, 1>);
  set(O::global_load_short_d16, vload<G, LK::S16D16, 1>);
  set(O::global_load_short_d16_hi, vload<G, LK::S16D16Hi, 1>);
  set(O::global_store_byte_d16_hi, vstore<G, SK::B8Hi, 1>);
  set(O::global_store_short_d16_hi, vstore<G, SK::B16Hi, 1>);

  set(O::global_atomic_add, vatomic<AK::Add, false>);
  set(O::global_atomic_sub, vatomic<AK::Sub, false>);
  set(O::global_atomic_swap, vatomic<AK::Swap, false>);
  set(O::global_atomic_cmpswap, vatomic<AK::CmpSwap, false>);
  set(O::global_atomic_umin, vatomic<AK::UMin, false>);
  set(O::global_atomic_umax, vatomic<AK::UMax, false>);
  set(O::global_atomic_smin, vatomic<AK::SMin, false>);
  set(O::global_atomic_smax, vatomic<AK::SMax, false>);
  set(O::global_atomic_and, vatomic<AK::And, false>);
  set(O::global_atomic_or, vatomic<AK::Or, false>);
  set(O::global_atomic_xor, vatomic<AK::Xor, false>);
  set(O::global_atomic_inc, vatomic<AK::Inc, false>);
  set(O::global_atomic_dec, vatomic<AK::Dec, false>);
  set(O::global_atomic_add_f32, vatomic<AK::AddF32, false>);
  set(O::global_atomic_add_x2, vatomic<AK::Add, true>);
  set(O::global_atomic_swap_x2, vatomic<AK::Swap, true>);
  set(O::global_atomic_cmpswap_x2, vatomic<AK::CmpSwap, true>);
  set(O::global_atomic_umin_x2, vatomic<AK::UMin, true>);
  set(O::global_atomic_umax_x2, vatomic<AK::UMax, true>);
  set(O::global_atomic_add_f64, vatomic<AK::AddF64, true>);
  set(O::global_atomic_min_f64, vatomic<AK::MinF64, true>);
  set(O::global_atomic_max_f64, vatomic<AK::MaxF64, true>);

  set(O::buffer_inv, cache_control);
  set(O::buffer_wbl2, cache_control);
  set(O::buffer_wbinvl1_vol, cache_control);
}

}  // namespace cdna::simulator
