// DS atomics on LDS (32- and 64-bit, with and without return), ds_wrxchg2*_rtn,
// ds_condxchg32_rtn_b64, ds_append/ds_consume and ds_read/write_addtid_b32.
//
// Semantics: the DS opcode pseudo-code of the AMD Instinct ISA guide, chapter "LDS
// Instructions" (CDNA3; read in the CDNA4 edition, which has the same DS opcodes and text).
// Operand order (LLVM AMDGPU DSInstructions.td): [vdst,] vaddr, data0[, data1] offset:N; a
// compare-and-store takes the compare value in data0 and the new value in data1 (DS_CMPST_*:
// "cmp = DATA, src = DATA2", the opposite of BUFFER_ATOMIC_CMPSWAP).
//
// Modelling choices (simulator/README.md "Modelling choices"):
// - Lanes complete in lane order; an atomic address must be aligned to its size (the guide
//   does not say what a misaligned DS atomic does) and inside the LDS allocation (lds.hpp).
// - Floating point (add/min/max/cmpst f32/f64, pk_add f16/bf16): an operand, compare value or
//   result that is a denormal is an error, as is an add under a MODE round mode other than
//   nearest even: the guide's "handles NAN/INF/denorm" does not say how, nor whether MODE
//   applies. Adds round to nearest even; NaN results are the first NaN source (memory before
//   data), quieted, else the format's canonical quiet NaN (the VALU convention of fp.hpp).
//   min/max and cmpst compare as the pseudo-code says (src < tmp, src > tmp, tmp == cmp), so
//   a NaN in memory stays and a NaN data value never replaces it; +0 and -0 compare equal.
#include <bit>
#include <cstring>

#include "simulator/exec/fp.hpp"
#include "simulator/exec/handlers.hpp"
#include "simulator/exec/lds.hpp"

namespace cdna::simulator {
namespace {

using u16 = std::uint16_t;
using u32 = std::uint32_t;
using u64 = std::uint64_t;

std::string lane_str(int lane) { return "lane " + std::to_string(lane) + ": "; }

// The `n` bytes at `addr` for an atomic access: aligned to `n` and inside the LDS.
std::uint8_t* atomic_at(Wave& w, u64 addr, u32 n, int lane) {
  if (addr % n != 0)
    sim_fail(lane_str(lane) + "LDS atomic at " + hex(addr) + " is not " + std::to_string(n) +
             "-byte aligned; misaligned DS atomics are not modelled");
  return lds_at(w, addr, n, lane, LdsAccess::Atomic);
}

// ---- floating-point formats (IEEE binary formats; bf16 = the top half of an f32)

struct Fmt {
  int man, exp;  // fraction and exponent bits
  const char* name;
};
constexpr Fmt kF16{10, 5, "f16"}, kBF16{7, 8, "bf16"}, kF32{23, 8, "f32"}, kF64{52, 11, "f64"};

constexpr u64 exp_mask(Fmt f) { return ((u64{1} << f.exp) - 1) << f.man; }
constexpr u64 man_mask(Fmt f) { return (u64{1} << f.man) - 1; }
bool is_nan(u64 x, Fmt f) { return (x & exp_mask(f)) == exp_mask(f) && (x & man_mask(f)) != 0; }
bool is_denormal(u64 x, Fmt f) { return (x & exp_mask(f)) == 0 && (x & man_mask(f)) != 0; }
u64 quiet(u64 x, Fmt f) { return x | (u64{1} << (f.man - 1)); }
u64 canonical_nan(Fmt f) { return exp_mask(f) | (u64{1} << (f.man - 1)); }

// The exact value of an f16/bf16/f32/f64 bit pattern.
double to_double(u64 x, Fmt f) {
  if (f.man == kF64.man) return as_double(x);
  if (f.man == kF32.man) return static_cast<double>(as_float(static_cast<u32>(x)));
  if (f.man == kBF16.man) return static_cast<double>(as_float(static_cast<u32>(x) << 16));
  return static_cast<double>(as_float(f32_bits_from_f16(static_cast<u16>(x), false)));
}

void check_denormal(u64 x, Fmt f, const char* what, int lane) {
  if (is_denormal(x, f))
    sim_fail(lane_str(lane) + "LDS " + f.name + " atomic with a denormal " + what +
             ": the hardware's denormal handling for DS atomics is not modelled");
}

// tmp + data rounded to nearest even (error on denormals, see the file comment). f16, bf16
// and f32 sums are computed in double and rounded once more: double rounding through
// 53 >= 2p + 2 bits is innocuous for addition (S. Figueroa, "When is double rounding
// innocuous?", SIGNUM 1995), so the result is the correctly rounded sum.
u64 fp_add(u64 tmp, u64 data, Fmt f, int lane) {
  check_denormal(tmp, f, "operand", lane);
  check_denormal(data, f, "operand", lane);
  if (is_nan(tmp, f)) return quiet(tmp, f);
  if (is_nan(data, f)) return quiet(data, f);
  const double s = to_double(tmp, f) + to_double(data, f);
  u64 r;
  if (f.man == kF64.man) r = dbits(s);
  else r = narrow_f64(s, f.man, f.exp, kRoundNearest);
  if (is_nan(r, f)) return canonical_nan(f);  // inf + -inf
  check_denormal(r, f, "result", lane);
  return r;
}

// ---- the atomic operations

enum class A {
  Add, Sub, Rsub, Inc, Dec, MinI, MaxI, MinU, MaxU, And, Or, Xor, Mskor, Swap, CmpSt, Wrap,
  AddF, MinF, MaxF, CmpStF, PkAddF16, PkAddBF16
};

// Operations with a second data operand (data1).
constexpr bool two_data(A k) { return k == A::Mskor || k == A::CmpSt || k == A::CmpStF || k == A::Wrap; }

// The new memory value from the old one (tmp), data0 (d) and data1 (d2). T is u32 or u64.
template <A K, class T>
T apply(T tmp, T d, T d2, int lane) {
  using S = std::make_signed_t<T>;
  constexpr Fmt f = sizeof(T) == 8 ? kF64 : kF32;
  switch (K) {
    case A::Add: return static_cast<T>(tmp + d);
    case A::Sub: return static_cast<T>(tmp - d);
    case A::Rsub: return static_cast<T>(d - tmp);
    case A::Inc: return tmp >= d ? T{0} : static_cast<T>(tmp + 1);
    case A::Dec: return (tmp == 0 || tmp > d) ? d : static_cast<T>(tmp - 1);
    case A::MinI: return static_cast<S>(d) < static_cast<S>(tmp) ? d : tmp;
    case A::MaxI: return static_cast<S>(d) >= static_cast<S>(tmp) ? d : tmp;
    case A::MinU: return d < tmp ? d : tmp;
    case A::MaxU: return d >= tmp ? d : tmp;
    case A::And: return tmp & d;
    case A::Or: return tmp | d;
    case A::Xor: return tmp ^ d;
    case A::Mskor: return static_cast<T>((tmp & ~d) | d2);
    case A::Swap: return d;
    case A::CmpSt: return tmp == d ? d2 : tmp;
    case A::Wrap: return tmp >= d ? static_cast<T>(tmp - d) : static_cast<T>(tmp + d2);
    case A::CmpStF:
      check_denormal(tmp, f, "memory value", lane);
      check_denormal(d, f, "compare value", lane);
      return to_double(tmp, f) == to_double(d, f) ? d2 : tmp;
    case A::MinF: case A::MaxF: {
      check_denormal(tmp, f, "operand", lane);
      check_denormal(d, f, "operand", lane);
      const double x = to_double(tmp, f), y = to_double(d, f);
      return (K == A::MinF ? y < x : y > x) ? d : tmp;
    }
    case A::AddF:
      return static_cast<T>(fp_add(tmp, d, f, lane));
    case A::PkAddF16: case A::PkAddBF16: {
      const Fmt h = K == A::PkAddF16 ? kF16 : kBF16;
      const u64 lo = fp_add(tmp & 0xffffu, d & 0xffffu, h, lane);
      const u64 hi = fp_add((tmp >> 16) & 0xffffu, (d >> 16) & 0xffffu, h, lane);
      return static_cast<T>(lo | (hi << 16));
    }
  }
  return tmp;
}

template <class T>
T read_data(Wave& w, const Operand& o, int lane) {
  if constexpr (sizeof(T) == 4) return w.row(o.reg)[lane];
  else return w.row(o.reg)[lane] | (u64{w.row(o.reg + 1u)[lane]} << 32);
}

// no return: vaddr, data0[, data1]; return: vdst, vaddr, data0[, data1].
template <A K, class T, bool Ret>
void ds_atomic(Wave& w, const Inst& I) {
  constexpr int base = Ret ? 1 : 0;
  if constexpr (K == A::AddF || K == A::PkAddF16 || K == A::PkAddBF16) {
    if ((w.mode & 0xfu) != 0)
      sim_fail("LDS floating-point atomic add under MODE round mode " + hex(w.mode & 0xfu) +
               ": only nearest even (MODE bits 3:0 = 0) is modelled");
  }
  const Operand& va = I.ops[base];
  const u64 e = w.exec();
  for (int l = 0; l < kLanes; ++l) {
    if (!((e >> l) & 1)) continue;
    const u32 addr = w.row(va.reg)[l] + static_cast<u32>(I.offset);
    std::uint8_t* p = atomic_at(w, addr, sizeof(T), l);
    T tmp;
    std::memcpy(&tmp, p, sizeof(T));
    const T d = read_data<T>(w, I.ops[base + 1], l);
    const T d2 = two_data(K) ? read_data<T>(w, I.ops[base + 2], l) : T{0};
    const T nv = apply<K, T>(tmp, d, d2, l);
    std::memcpy(p, &nv, sizeof(T));
    if constexpr (Ret) {
      w.row(I.ops[0].reg)[l] = static_cast<u32>(tmp);
      if constexpr (sizeof(T) == 8) w.row(I.ops[0].reg + 1u)[l] = static_cast<u32>(tmp >> 32);
    }
  }
}

// ds_wrxchg2[st64]_rtn_b{32,64} vdst, vaddr, data0, data1 offset0:a offset1:b: both old values
// are read, then data0 is written at vaddr + a*Stride and data1 at vaddr + b*Stride (in that
// order, so data1 wins when both addresses are equal); vdst = {old0, old1}.
template <u32 Dwords, u32 Stride>
void ds_wrxchg2_rtn(Wave& w, const Inst& I) {
  constexpr u32 n = 4 * Dwords;
  const u64 e = w.exec();
  for (int l = 0; l < kLanes; ++l) {
    if (!((e >> l) & 1)) continue;
    const u32 a = w.row(I.ops[1].reg)[l];
    std::uint8_t* p0 = atomic_at(w, u32{a + u32{I.offset0} * Stride}, n, l);
    std::uint8_t* p1 = atomic_at(w, u32{a + u32{I.offset1} * Stride}, n, l);
    u32 old[2 * Dwords];
    std::memcpy(old, p0, n);
    std::memcpy(old + Dwords, p1, n);
    for (u32 i = 0; i < Dwords; ++i) std::memcpy(p0 + 4 * i, &w.row(I.ops[2].reg + i)[l], 4);
    for (u32 i = 0; i < Dwords; ++i) std::memcpy(p1 + 4 * i, &w.row(I.ops[3].reg + i)[l], 4);
    for (u32 i = 0; i < 2 * Dwords; ++i) w.row(I.ops[0].reg + i)[l] = old[i];
  }
}

// ds_condxchg32_rtn_b64 vdst, vaddr, data offset:N: ADDR0 = (vaddr + N) & 0xfff8, ADDR1 =
// ADDR0 + 4; for k = 0, 1: vdst[k] = LDS[ADDRk]; if data bit 32k+31 is set, LDS[ADDRk] =
// data[32k+30 : 32k] (bit 31 cleared).
void ds_condxchg32_rtn_b64(Wave& w, const Inst& I) {
  const u64 e = w.exec();
  for (int l = 0; l < kLanes; ++l) {
    if (!((e >> l) & 1)) continue;
    const u32 a0 = (w.row(I.ops[1].reg)[l] + static_cast<u32>(I.offset)) & 0xfff8u;
    std::uint8_t* p = lds_at(w, a0, 8, l, LdsAccess::Atomic);
    for (u32 k = 0; k < 2; ++k) {
      u32 old;
      std::memcpy(&old, p + 4 * k, 4);
      const u32 d = w.row(I.ops[2].reg + k)[l];
      if (d >> 31) {
        const u32 nv = d & 0x7fffffffu;
        std::memcpy(p + 4 * k, &nv, 4);
      }
      w.row(I.ops[0].reg + k)[l] = old;
    }
  }
}

// ds_append / ds_consume vdst offset:N (LDS form): the dword at M0 + N gets popcount(EXEC)
// added / subtracted; every active lane receives the value before the operation. The address
// M0 + N is LLVM's (AMDGPUISelDAGToDAG SelectDSAppendConsume puts the LDS pointer in M0); the
// guide's text for the LDS form names only the instruction offset.
template <bool Append>
void ds_append_consume(Wave& w, const Inst& I) {
  const u64 e = w.exec();
  if (e == 0) return;
  const u32 addr = w.s[kM0] + static_cast<u32>(I.offset);
  std::uint8_t* p = atomic_at(w, addr, 4, std::countr_zero(e));
  u32 old;
  std::memcpy(&old, p, 4);
  const u32 n = static_cast<u32>(std::popcount(e));
  const u32 nv = Append ? old + n : old - n;
  std::memcpy(p, &nv, 4);
  u32* d = w.row(I.ops[0].reg);
  for (int l = 0; l < kLanes; ++l)
    if ((e >> l) & 1) d[l] = old;
}

// ds_read_addtid_b32 vdst offset:N / ds_write_addtid_b32 vdata offset:N: lane l accesses the
// dword at N + M0[15:0] + 4*l.
template <bool Write>
void ds_addtid_b32(Wave& w, const Inst& I) {
  const u32 base = static_cast<u32>(I.offset) + (w.s[kM0] & 0xffffu);
  const u64 e = w.exec();
  u32* r = w.row(I.ops[0].reg);
  for (int l = 0; l < kLanes; ++l) {
    if (!((e >> l) & 1)) continue;
    std::uint8_t* p = lds_at(w, u32{base + 4u * static_cast<u32>(l)}, 4, l, Write ? LdsAccess::Write : LdsAccess::Read);
    if constexpr (Write) std::memcpy(p, &r[l], 4);
    else std::memcpy(&r[l], p, 4);
  }
}

}  // namespace

void register_ds_atomic(HandlerTable& t) {
  auto set = [&](Opcode op, Handler h) { t[static_cast<std::size_t>(op)] = h; };
  using O = Opcode;
#define DS_ATOMIC(noret, rtn, kind, T) \
  set(O::noret, ds_atomic<A::kind, T, false>); \
  set(O::rtn, ds_atomic<A::kind, T, true>);
  // 32-bit
  DS_ATOMIC(ds_add_u32, ds_add_rtn_u32, Add, u32)
  DS_ATOMIC(ds_sub_u32, ds_sub_rtn_u32, Sub, u32)
  DS_ATOMIC(ds_rsub_u32, ds_rsub_rtn_u32, Rsub, u32)
  DS_ATOMIC(ds_inc_u32, ds_inc_rtn_u32, Inc, u32)
  DS_ATOMIC(ds_dec_u32, ds_dec_rtn_u32, Dec, u32)
  DS_ATOMIC(ds_min_i32, ds_min_rtn_i32, MinI, u32)
  DS_ATOMIC(ds_max_i32, ds_max_rtn_i32, MaxI, u32)
  DS_ATOMIC(ds_min_u32, ds_min_rtn_u32, MinU, u32)
  DS_ATOMIC(ds_max_u32, ds_max_rtn_u32, MaxU, u32)
  DS_ATOMIC(ds_and_b32, ds_and_rtn_b32, And, u32)
  DS_ATOMIC(ds_or_b32, ds_or_rtn_b32, Or, u32)
  DS_ATOMIC(ds_xor_b32, ds_xor_rtn_b32, Xor, u32)
  DS_ATOMIC(ds_mskor_b32, ds_mskor_rtn_b32, Mskor, u32)
  DS_ATOMIC(ds_cmpst_b32, ds_cmpst_rtn_b32, CmpSt, u32)
  DS_ATOMIC(ds_cmpst_f32, ds_cmpst_rtn_f32, CmpStF, u32)
  DS_ATOMIC(ds_add_f32, ds_add_rtn_f32, AddF, u32)
  DS_ATOMIC(ds_min_f32, ds_min_rtn_f32, MinF, u32)
  DS_ATOMIC(ds_max_f32, ds_max_rtn_f32, MaxF, u32)
  DS_ATOMIC(ds_pk_add_f16, ds_pk_add_rtn_f16, PkAddF16, u32)
  DS_ATOMIC(ds_pk_add_bf16, ds_pk_add_rtn_bf16, PkAddBF16, u32)
  set(O::ds_wrxchg_rtn_b32, ds_atomic<A::Swap, u32, true>);
  set(O::ds_wrap_rtn_b32, ds_atomic<A::Wrap, u32, true>);
  // 64-bit
  DS_ATOMIC(ds_add_u64, ds_add_rtn_u64, Add, u64)
  DS_ATOMIC(ds_sub_u64, ds_sub_rtn_u64, Sub, u64)
  DS_ATOMIC(ds_rsub_u64, ds_rsub_rtn_u64, Rsub, u64)
  DS_ATOMIC(ds_inc_u64, ds_inc_rtn_u64, Inc, u64)
  DS_ATOMIC(ds_dec_u64, ds_dec_rtn_u64, Dec, u64)
  DS_ATOMIC(ds_min_i64, ds_min_rtn_i64, MinI, u64)
  DS_ATOMIC(ds_max_i64, ds_max_rtn_i64, MaxI, u64)
  DS_ATOMIC(ds_min_u64, ds_min_rtn_u64, MinU, u64)
  DS_ATOMIC(ds_max_u64, ds_max_rtn_u64, MaxU, u64)
  DS_ATOMIC(ds_and_b64, ds_and_rtn_b64, And, u64)
  DS_ATOMIC(ds_or_b64, ds_or_rtn_b64, Or, u64)
  DS_ATOMIC(ds_xor_b64, ds_xor_rtn_b64, Xor, u64)
  DS_ATOMIC(ds_mskor_b64, ds_mskor_rtn_b64, Mskor, u64)
  DS_ATOMIC(ds_cmpst_b64, ds_cmpst_rtn_b64, CmpSt, u64)
  DS_ATOMIC(ds_cmpst_f64, ds_cmpst_rtn_f64, CmpStF, u64)
  DS_ATOMIC(ds_add_f64, ds_add_rtn_f64, AddF, u64)
  DS_ATOMIC(ds_min_f64, ds_min_rtn_f64, MinF, u64)
  DS_ATOMIC(ds_max_f64, ds_max_rtn_f64, MaxF, u64)
  set(O::ds_wrxchg_rtn_b64, ds_atomic<A::Swap, u64, true>);
#undef DS_ATOMIC
  set(O::ds_wrxchg2_rtn_b32, ds_wrxchg2_rtn<1, 4>);
  set(O::ds_wrxchg2st64_rtn_b32, ds_wrxchg2_rtn<1, 256>);
  set(O::ds_wrxchg2_rtn_b64, ds_wrxchg2_rtn<2, 8>);
  set(O::ds_wrxchg2st64_rtn_b64, ds_wrxchg2_rtn<2, 512>);
  set(O::ds_condxchg32_rtn_b64, ds_condxchg32_rtn_b64);
  set(O::ds_append, ds_append_consume<true>);
  set(O::ds_consume, ds_append_consume<false>);
  set(O::ds_read_addtid_b32, ds_addtid_b32<false>);
  set(O::ds_write_addtid_b32, ds_addtid_b32<true>);
}

}  // namespace cdna::simulator
