// Vector memory, the remaining forms: MUBUF atomics, loads to LDS (global_load_lds_*,
// scratch_load_lds_*), MUBUF format loads/stores (buffer_*_format_*, format from the V#) and
// MTBUF (tbuffer_*, format from the instruction), buffer_wbinvl1.
//
// Sources: CDNA3 ISA guide, "Vector Memory Buffer Instructions" (V# word3: DST_SEL_X/Y/Z/W bits
// 2:0/5:3/8:6/11:9 with 0 = zero, 1 = one, 4..7 = X..W; NUM_FORMAT bits 14:12; DATA_FORMAT bits
// 18:15), the gfx9 data/number format numbering of LLVM's SIDefines.h (MTBUFFormat: DFMT 1 = 8,
// 2 = 16, 3 = 8_8, 4 = 32, 5 = 16_16, 10 = 8_8_8_8, 11 = 32_32, 12 = 16_16_16_16, 13 = 32_32_32,
// 14 = 32_32_32_32; NFMT 0 UNORM, 1 SNORM, 4 UINT, 5 SINT, 7 FLOAT). Modelling choices where
// the guide is silent are listed in simulator/README.md.
#include <cmath>
#include <cstring>

#include "simulator/exec/fp.hpp"
#include "simulator/exec/handlers.hpp"
#include "simulator/exec/vmem_common.hpp"

namespace cdna::simulator {

namespace vmem {

u32 pk_add_half(u32 a, u32 b, bool bf16, int lane) {
  const int man = bf16 ? 7 : 10, exp = bf16 ? 8 : 5;
  const u32 expmask = ((1u << exp) - 1) << man, fracmask = (1u << man) - 1, quiet = 1u << (man - 1);
  auto is_nan = [&](u32 h) { return (h & expmask) == expmask && (h & fracmask); };
  auto is_denorm = [&](u32 h) { return (h & expmask) == 0 && (h & fracmask); };
  // The value of a 16-bit float (exact in a double).
  auto value = [&](u32 h) {
    const double s = (h >> 15) ? -1.0 : 1.0;
    const int e = static_cast<int>((h & expmask) >> man);
    const double f = static_cast<double>(h & fracmask);
    if (e == (1 << exp) - 1) return s * INFINITY;
    const int bias = (1 << (exp - 1)) - 1;
    return e == 0 ? s * std::ldexp(f, 1 - bias - man) : s * std::ldexp(f + std::ldexp(1.0, man), e - bias - man);
  };
  if (is_nan(a)) return a | quiet;
  if (is_nan(b)) return b | quiet;
  const double r = value(a) + value(b);  // exact: 11-bit significands, exponent span < 53 bits
  if (std::isnan(r)) return expmask | quiet;  // inf + (-inf)
  const u32 out = narrow_f64(r, man, exp, kRoundNearest);
  if (bf16 && (is_denorm(a) || is_denorm(b) || is_denorm(out)))
    sim_fail(lane_prefix(lane) + "bf16 atomic add with a denormal operand or result: the "
             "hardware's denormal handling for atomics is not modelled");
  return out;
}

}  // namespace vmem

namespace {

using namespace vmem;

// ---- MUBUF atomics. ops: vdata, vaddr, rsrc, soffset; with sc0 (glc) the old value returns
// into vdata. Out of range (all or nothing, exec/vmem.cpp): nothing is read or written and 0 returns.
template <AK K, bool Wide>
void batomic(Wave& w, const Inst& I) {
  const BufDesc v = read_vsharp(w, I.ops[2]);
  Addr ad, rg;
  buffer_addresses(w, I, I.ops[1], I.ops[3], v, ad, rg);
  constexpr u32 bytes = Wide ? 8 : 4;
  const u64 limit = range_limit(v, I);
  const u64 e = w.exec();
  for (int l = 0; l < kLanes; ++l) {
    if (!((e >> l) & 1)) continue;
    u64 src, cmp, old = 0;
    atomic_operands<K, Wide>(w, I.ops[0], l, src, cmp);
    if (in_range(rg.a[l], bytes, limit)) {
      atomic_lane(w, Space::Global, ad.a[l], bytes, l, [&](std::uint8_t* p) {
        std::memcpy(&old, p, bytes);
        const u64 nv = atomic_value<K, Wide>(old, src, cmp, l);
        std::memcpy(p, &nv, bytes);
      });
    }
    if (I.sc0) {
      w.row(I.ops[0].reg)[l] = static_cast<u32>(old);
      if (Wide) w.row(I.ops[0].reg + 1)[l] = static_cast<u32>(old >> 32);
    }
  }
}

// ---- global_load_lds_* (ops: vaddr, saddr|off) and scratch_load_lds_* (vaddr|off, saddr|off):
// the value, zero- or sign-extended to a dword, goes to LDS at M0 + inst offset + 4 * lane.
template <Space S, LK K>
void load_lds(Wave& w, const Inst& I) {
  Addr ad;
  if (S == Space::Scratch) scratch_addresses(w, I, I.ops[0], I.ops[1], ad);
  else global_addresses(w, I, I.ops[0], I.ops[1], ad);
  constexpr u32 bytes = load_bytes(K);
  const u64 e = w.exec();
  for (int l = 0; l < kLanes; ++l) {
    if (!((e >> l) & 1)) continue;
    u32 x = 0;
    load_lane(w, S, ad.a[l], bytes, l, I, &x);
    x = widen(K, x);
    std::memcpy(lds_dma_target(w, I, l), &x, 4);
  }
}

// ---- formats
struct Format {
  u32 dfmt, nfmt;
  u32 bits, comps;  // per component; components per element
};

std::string format_name(u32 dfmt, u32 nfmt) {
  static const char* const d[] = {"INVALID", "8", "16", "8_8", "32", "16_16", "10_11_11",
                                  "11_11_10", "10_10_10_2", "2_10_10_10", "8_8_8_8", "32_32",
                                  "16_16_16_16", "32_32_32", "32_32_32_32", "RESERVED_15"};
  static const char* const n[] = {"UNORM", "SNORM", "USCALED", "SSCALED", "UINT", "SINT", "RESERVED_6", "FLOAT"};
  return std::string("[BUF_DATA_FORMAT_") + d[dfmt & 15] + ", BUF_NUM_FORMAT_" + n[nfmt & 7] + "]";
}

enum : u32 { kUnorm = 0, kSnorm = 1, kUint = 4, kSint = 5, kFloat = 7 };

// The format of the access, or an error naming it if it is not modelled.
Format format_of(u32 dfmt, u32 nfmt, bool d16) {
  static const u32 bits[16] = {0, 8, 16, 8, 32, 16, 0, 0, 0, 0, 8, 32, 16, 32, 32, 0};
  static const u32 comps[16] = {0, 1, 1, 2, 1, 2, 0, 0, 0, 0, 4, 2, 4, 3, 4, 0};
  const Format f{dfmt, nfmt, bits[dfmt & 15], comps[dfmt & 15]};
  const bool ok = f.bits != 0 &&
                  (nfmt == kUint || nfmt == kSint ||
                   ((nfmt == kUnorm || nfmt == kSnorm) && f.bits <= 16) ||
                   (nfmt == kFloat && f.bits >= 16)) &&
                  !(d16 && f.bits == 32);
  if (!ok)
    sim_fail("buffer format " + format_name(dfmt, nfmt) + (d16 ? " in a d16 access" : "") +
             " is not modelled (8/16/32-bit UINT/SINT, 8/16-bit UNORM/SNORM, 16/32-bit FLOAT, 1-4 components; 32-bit components not in d16 forms)");
  return f;
}

u32 sext(u32 v, u32 bits) { return bits >= 32 ? v : static_cast<u32>(static_cast<std::int32_t>(v << (32 - bits)) >> (32 - bits)); }
double norm_value(const Format& f, u32 raw) {
  if (f.nfmt == kUnorm) return static_cast<double>(raw) / static_cast<double>((1u << f.bits) - 1);
  const double x = static_cast<double>(static_cast<std::int32_t>(sext(raw, f.bits))) / static_cast<double>((1u << (f.bits - 1)) - 1);
  return x < -1.0 ? -1.0 : x;
}

// A component read from memory as the 32-bit (d16: 16-bit) register value.
u32 convert_in(const Format& f, u32 raw, bool d16) {
  switch (f.nfmt) {
    case kUint: return raw;
    case kSint: return d16 ? sext(raw, f.bits) & 0xffffu : sext(raw, f.bits);
    case kFloat:
      if (d16 || f.bits == 32) return raw;
      return f32_bits_from_f16(static_cast<std::uint16_t>(raw), false);
    default:  // UNORM / SNORM: x / (2^n - 1) or max(x / (2^(n-1) - 1), -1), rounded to nearest even
      return d16 ? narrow_f64(norm_value(f, raw), 10, 5, kRoundNearest) : fbits(static_cast<float>(norm_value(f, raw)));
  }
}
// The register value of a missing component (w: one, x/y/z: zero) and of DST_SEL one.
u32 one_of(const Format& f, bool d16) {
  return f.nfmt == kUint || f.nfmt == kSint ? 1u : d16 ? 0x3c00u : 0x3f800000u;
}

// A register value (32-bit, or 16-bit for d16) as the component's bits in memory.
u32 convert_out(const Format& f, u32 x, bool d16) {
  const u32 mask = f.bits == 32 ? ~0u : (1u << f.bits) - 1;
  switch (f.nfmt) {
    case kUint: case kSint: return x & mask;
    case kFloat:
      if (d16 || f.bits == 32) return x & mask;
      return narrow_f64(static_cast<double>(as_float(x)), 10, 5, kRoundNearest);
    default: {  // clamp to [0, 1] / [-1, 1] (NaN -> 0), scale, round to nearest even
      double v = d16 ? static_cast<double>(as_float(f32_bits_from_f16(static_cast<std::uint16_t>(x), false)))
                     : static_cast<double>(as_float(x));
      const double lo = f.nfmt == kUnorm ? 0.0 : -1.0;
      v = std::isnan(v) ? 0.0 : v < lo ? lo : v > 1.0 ? 1.0 : v;
      const u32 scale = f.nfmt == kUnorm ? (1u << f.bits) - 1 : (1u << (f.bits - 1)) - 1;
      return static_cast<u32>(static_cast<std::int32_t>(std::nearbyint(v * scale))) & mask;
    }
  }
}

// One format access: the V#, the format (MTBUF: from the instruction, MUBUF: from V# word3),
// per-lane addresses and range offsets. ops: vdata, vaddr, rsrc, soffset.
struct FormatAccess {
  BufDesc v;
  Format f;
  Addr ad, rg;
  u64 limit;
  u32 bpc;  // bytes per component
};
template <bool Typed, bool D16>
void prepare(Wave& w, const Inst& I, FormatAccess& x) {
  x.v = read_vsharp(w, I.ops[2]);
  const u32 dfmt = Typed ? I.format & 15u : (x.v.word3 >> 15) & 15u;
  const u32 nfmt = Typed ? (I.format >> 4) & 7u : (x.v.word3 >> 12) & 7u;
  x.f = format_of(dfmt, nfmt, D16);
  buffer_addresses(w, I, I.ops[1], I.ops[3], x.v, x.ad, x.rg);
  x.limit = range_limit(x.v, I);
  x.bpc = x.f.bits / 8;
}

// Format load of N components. Typed: MTBUF, else MUBUF. d16: 16-bit components packed two per
// VGPR (Hi: the one component in bits 31:16); halves not written keep their value.
template <bool Typed, bool D16, bool Hi, u32 N>
void format_load(Wave& w, const Inst& I) {
  FormatAccess x;
  prepare<Typed, D16>(w, I, x);
  const Format& f = x.f;
  u32 sel[4];
  for (u32 c = 0; c < 4; ++c) {
    sel[c] = (x.v.word3 >> (3 * c)) & 7u;
    if (sel[c] == 2 || sel[c] == 3)
      sim_fail("buffer descriptor DST_SEL " + std::to_string(sel[c]) + " is reserved");
  }
  const u64 e = w.exec();
  for (int l = 0; l < kLanes; ++l) {
    if (!((e >> l) & 1)) continue;
    u32 ch[4] = {0, 0, 0, one_of(f, D16)};
    const bool inside = in_range(x.rg.a[l], f.comps * x.bpc, x.limit);  // all or nothing
    for (u32 c = 0; c < f.comps; ++c) {
      u32 raw = 0;
      if (inside) load_lane(w, Space::Global, x.ad.a[l] + c * x.bpc, x.bpc, l, I, &raw);
      ch[c] = convert_in(f, raw, D16);
    }
    for (u32 i = 0; i < N; ++i) {
      const u32 y = sel[i] == 0 ? 0u : sel[i] == 1 ? one_of(f, D16) : ch[sel[i] - 4];
      if (!D16) {
        w.row(I.ops[0].reg + i)[l] = y;
      } else {
        u32* r = &w.row(I.ops[0].reg + i / 2)[l];
        const bool high = Hi || (i & 1);
        *r = high ? (*r & 0xffffu) | (y << 16) : (*r & 0xffff0000u) | (y & 0xffffu);
      }
    }
  }
}

// Format store: the format's components (N must be at least their number; further ones unused).
template <bool Typed, bool D16, bool Hi, u32 N>
void format_store(Wave& w, const Inst& I) {
  FormatAccess x;
  prepare<Typed, D16>(w, I, x);
  const Format& f = x.f;
  if (f.comps > N)
    sim_fail("format store of " + std::to_string(N) + " components to the " + std::to_string(f.comps) +
             "-component format " + format_name(f.dfmt, f.nfmt) + ": the bytes of the missing components are not modelled");
  const u64 e = w.exec();
  for (int l = 0; l < kLanes; ++l) {
    if (!((e >> l) & 1) || !in_range(x.rg.a[l], f.comps * x.bpc, x.limit)) continue;  // dropped
    for (u32 c = 0; c < f.comps; ++c) {
      u32 d = w.row(I.ops[0].reg + (D16 ? c / 2 : c))[l];
      if (D16) d = (Hi || (c & 1)) ? d >> 16 : d & 0xffffu;
      const u32 y = convert_out(f, d, D16);
      store_lane(w, Space::Global, x.ad.a[l] + c * x.bpc, x.bpc, l, I, &y);
    }
  }
}

// buffer_wbinvl1: invalidates the L1 (write-through: nothing to write back) in the memory-model
// mode; memory is coherent otherwise (checks/memory_model.hpp).
void wbinvl1(Wave& w, const Inst&) {
  if (w.env->caches) w.env->caches->invalidate(w.wg->cu, Scope::Workgroup);
}

}  // namespace

void register_vmem_forms(HandlerTable& t) {
  auto set = [&](Opcode op, Handler h) { t[static_cast<std::size_t>(op)] = h; };
  using O = Opcode;
  set(O::buffer_atomic_add, batomic<AK::Add, false>);
  set(O::buffer_atomic_sub, batomic<AK::Sub, false>);
  set(O::buffer_atomic_swap, batomic<AK::Swap, false>);
  set(O::buffer_atomic_cmpswap, batomic<AK::CmpSwap, false>);
  set(O::buffer_atomic_umin, batomic<AK::UMin, false>);
  set(O::buffer_atomic_umax, batomic<AK::UMax, false>);
  set(O::buffer_atomic_smin, batomic<AK::SMin, false>);
  set(O::buffer_atomic_smax, batomic<AK::SMax, false>);
  set(O::buffer_atomic_and, batomic<AK::And, false>);
  set(O::buffer_atomic_or, batomic<AK::Or, false>);
  set(O::buffer_atomic_xor, batomic<AK::Xor, false>);
  set(O::buffer_atomic_inc, batomic<AK::Inc, false>);
  set(O::buffer_atomic_dec, batomic<AK::Dec, false>);
  set(O::buffer_atomic_add_f32, batomic<AK::AddF32, false>);
  set(O::buffer_atomic_pk_add_f16, batomic<AK::PkAddF16, false>);
  set(O::buffer_atomic_add_x2, batomic<AK::Add, true>);
  set(O::buffer_atomic_sub_x2, batomic<AK::Sub, true>);
  set(O::buffer_atomic_swap_x2, batomic<AK::Swap, true>);
  set(O::buffer_atomic_cmpswap_x2, batomic<AK::CmpSwap, true>);
  set(O::buffer_atomic_umin_x2, batomic<AK::UMin, true>);
  set(O::buffer_atomic_umax_x2, batomic<AK::UMax, true>);
  set(O::buffer_atomic_smin_x2, batomic<AK::SMin, true>);
  set(O::buffer_atomic_smax_x2, batomic<AK::SMax, true>);
  set(O::buffer_atomic_and_x2, batomic<AK::And, true>);
  set(O::buffer_atomic_or_x2, batomic<AK::Or, true>);
  set(O::buffer_atomic_xor_x2, batomic<AK::Xor, true>);
  set(O::buffer_atomic_inc_x2, batomic<AK::Inc, true>);
  set(O::buffer_atomic_dec_x2, batomic<AK::Dec, true>);
  set(O::buffer_atomic_add_f64, batomic<AK::AddF64, true>);
  set(O::buffer_atomic_min_f64, batomic<AK::MinF64, true>);
  set(O::buffer_atomic_max_f64, batomic<AK::MaxF64, true>);

  constexpr Space G = Space::Global, S = Space::Scratch;
  set(O::global_load_lds_ubyte, load_lds<G, LK::U8>);
  set(O::global_load_lds_sbyte, load_lds<G, LK::I8>);
  set(O::global_load_lds_ushort, load_lds<G, LK::U16>);
  set(O::global_load_lds_sshort, load_lds<G, LK::I16>);
  set(O::global_load_lds_dword, load_lds<G, LK::D32>);
  set(O::scratch_load_lds_ubyte, load_lds<S, LK::U8>);
  set(O::scratch_load_lds_sbyte, load_lds<S, LK::I8>);
  set(O::scratch_load_lds_ushort, load_lds<S, LK::U16>);
  set(O::scratch_load_lds_sshort, load_lds<S, LK::I16>);
  set(O::scratch_load_lds_dword, load_lds<S, LK::D32>);

#define FORMATS(P, T)                                                            \
  set(O::P##_load_format_x, format_load<T, false, false, 1>);                    \
  set(O::P##_load_format_xy, format_load<T, false, false, 2>);                   \
  set(O::P##_load_format_xyz, format_load<T, false, false, 3>);                  \
  set(O::P##_load_format_xyzw, format_load<T, false, false, 4>);                 \
  set(O::P##_load_format_d16_x, format_load<T, true, false, 1>);                 \
  set(O::P##_load_format_d16_xy, format_load<T, true, false, 2>);                \
  set(O::P##_load_format_d16_xyz, format_load<T, true, false, 3>);               \
  set(O::P##_load_format_d16_xyzw, format_load<T, true, false, 4>);              \
  set(O::P##_store_format_x, format_store<T, false, false, 1>);                  \
  set(O::P##_store_format_xy, format_store<T, false, false, 2>);                 \
  set(O::P##_store_format_xyz, format_store<T, false, false, 3>);                \
  set(O::P##_store_format_xyzw, format_store<T, false, false, 4>);               \
  set(O::P##_store_format_d16_x, format_store<T, true, false, 1>);               \
  set(O::P##_store_format_d16_xy, format_store<T, true, false, 2>);              \
  set(O::P##_store_format_d16_xyz, format_store<T, true, false, 3>);             \
  set(O::P##_store_format_d16_xyzw, format_store<T, true, false, 4>);
  FORMATS(buffer, false)
  FORMATS(tbuffer, true)
#undef FORMATS
  set(O::buffer_load_format_d16_hi_x, format_load<false, true, true, 1>);
  set(O::buffer_store_format_d16_hi_x, format_store<false, true, true, 1>);
  set(O::buffer_wbinvl1, wbinvl1);
}

}  // namespace cdna::simulator
