// Directed cases: MUBUF/FLAT/GLOBAL atomics, d16 forms of MUBUF/FLAT/SCRATCH, loads to LDS,
// MUBUF format and MTBUF accesses, buffer_wbinvl1. Models follow the CDNA3 ISA guide ("Vector
// Memory Buffer Instructions", "Flat Memory Instructions": MEM = op(MEM, DATA), the old value
// returned with sc0; out-of-range buffer atomics and stores do nothing, loads give 0) and the
// modelling choices of simulator/README.md where the guide is silent. Written for the tests:
// f16 arithmetic here goes through the compiler's _Float16, not through simulator code.
//
// `mem` byte regions: atomics without return 256..767, with return 2048..2559; loads read
// 16..; flat 1536..; LDS targets 0x400...
#include <bit>
#include <cmath>
#include <cstring>
#include <string>

#include "simulator/directed/cases.hpp"

namespace cdna::simulator::directed {
namespace {


u32& out(State& s, int k, int l) { return s.vout[static_cast<std::size_t>(k)][static_cast<std::size_t>(l)]; }
u32& in(State& s, int k, int l) { return s.vin[static_cast<std::size_t>(k)][static_cast<std::size_t>(l)]; }
u64 in64(State& s, int k, int l) { return u64{in(s, k, l)} | (u64{in(s, k + 1, l)} << 32); }
std::string vr(int first, int n) {
  return n == 1 ? "v" + std::to_string(first) : "v[" + std::to_string(first) + ":" + std::to_string(first + n - 1) + "]";
}
u32 sx(u32 v, u32 bits) { return bits >= 32 ? v : static_cast<u32>(static_cast<i32>(v << (32 - bits)) >> (32 - bits)); }

// Instructions between these run on the lanes of s[16:17] (seed-dependent, from `masked`).
const std::string kOn = "  s_mov_b64 exec, s[16:17]\n";
const std::string kOff = "  s_mov_b64 exec, -1\n";
void masked(State& s) {
  s.sin[0] = s.vin[7][3] | 0x00020001u;
  s.sin[1] = (s.vin[7][8] & 0x7ffffffeu) | 0x100u;
}
bool lane_on(const State& s, int l) { return (sgpr_pair(s, 0) >> l) & 1; }

// A raw V# (stride 0) in s[q:q+3] over `mem` with num_records `nr` and word3 `w3`.
std::string vsharp(int q, u32 nr, u32 w3) {
  const std::string a = std::to_string(q), b = std::to_string(q + 1);
  // s7 < 2^16 (a user address is below 2^48): the V#'s stride and swizzle bits stay 0, SCC untouched.
  return "  s_mov_b32 s" + a + ", s6\n  s_mov_b32 s" + b + ", s7\n  s_mov_b32 s" + std::to_string(q + 2) +
         ", " + std::to_string(nr) + "\n  s_mov_b32 s" + std::to_string(q + 3) + ", " + std::to_string(w3) + "\n";
}
std::string times(int reg, int k, int plus = 0) {
  return "  v_mul_u32_u24 v" + std::to_string(reg) + ", " + std::to_string(k) + ", v0\n" +
         (plus ? "  v_add_u32 v" + std::to_string(reg) + ", " + std::to_string(plus) + ", v" + std::to_string(reg) + "\n" : "");
}
const std::string kFlatAddr =  // v[66:67] = mem + v65
    "  v_add_co_u32 v66, s[56:57], v96, v65\n  s_nop 1\n  v_addc_co_u32 v67, s[56:57], v97, 0, s[56:57]\n";

// ---------------------------------------------------------------- atomics
using AtomicFn = u64 (*)(u64 mem, u64 data, bool wide);
struct AtomicOp {
  const char* name;  // after "<space>_atomic_"
  bool wide, cmp;
  int fp;  // 0 int, 32 f32, 64 f64, 16 pk f16, 17 pk bf16
  AtomicFn fn;
};

i64 sgn(u64 v, bool wide) { return wide ? static_cast<i64>(v) : static_cast<i64>(static_cast<i32>(static_cast<u32>(v))); }
double d64(u64 v) { return std::bit_cast<double>(v); }
float f32(u64 v) { return std::bit_cast<float>(static_cast<u32>(v)); }

// One f16 sum, rounded once to nearest even by the compiler's double -> _Float16 conversion.
u32 f16_add(u32 a, u32 b) {
  auto nan = [](u32 h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu); };
  if (nan(a)) return a | 0x200u;
  if (nan(b)) return b | 0x200u;
  const double x = static_cast<double>(std::bit_cast<_Float16>(static_cast<u16>(a))) +
                   static_cast<double>(std::bit_cast<_Float16>(static_cast<u16>(b)));
  if (std::isnan(x)) return 0x7e00u;
  return std::bit_cast<u16>(static_cast<_Float16>(x));
}
// One bf16 sum of normal operands whose float sum is exact: round the float to nearest even.
u32 bf16_add(u32 a, u32 b) {
  const u32 f = std::bit_cast<u32>(std::bit_cast<float>(a << 16) + std::bit_cast<float>(b << 16));
  return (f + 0x7fffu + ((f >> 16) & 1u)) >> 16;
}
u64 pk(u64 m, u64 d, u32 (*h)(u32, u32)) {
  return h(static_cast<u32>(m) & 0xffffu, static_cast<u32>(d) & 0xffffu) |
         (h(static_cast<u32>(m >> 16) & 0xffffu, static_cast<u32>(d >> 16) & 0xffffu) << 16);
}

const AtomicOp kAtomics[] = {
    {"add", false, false, 0, [](u64 m, u64 d, bool) { return m + d; }},
    {"sub", false, false, 0, [](u64 m, u64 d, bool) { return m - d; }},
    {"swap", false, false, 0, [](u64, u64 d, bool) { return d; }},
    {"cmpswap", false, true, 0, nullptr},
    {"umin", false, false, 0, [](u64 m, u64 d, bool) { return d < m ? d : m; }},
    {"umax", false, false, 0, [](u64 m, u64 d, bool) { return d > m ? d : m; }},
    {"smin", false, false, 0, [](u64 m, u64 d, bool w) { return sgn(d, w) < sgn(m, w) ? d : m; }},
    {"smax", false, false, 0, [](u64 m, u64 d, bool w) { return sgn(d, w) > sgn(m, w) ? d : m; }},
    {"and", false, false, 0, [](u64 m, u64 d, bool) { return m & d; }},
    {"or", false, false, 0, [](u64 m, u64 d, bool) { return m | d; }},
    {"xor", false, false, 0, [](u64 m, u64 d, bool) { return m ^ d; }},
    // ISA guide: inc: tmp >= data ? 0 : tmp + 1; dec: (tmp == 0 || tmp > data) ? data : tmp - 1.
    {"inc", false, false, 0, [](u64 m, u64 d, bool) { return m >= d ? 0 : m + 1; }},
    {"dec", false, false, 0, [](u64 m, u64 d, bool) { return (m == 0 || m > d) ? d : m - 1; }},
    {"add_f32", false, false, 32, [](u64 m, u64 d, bool) { return u64{std::bit_cast<u32>(f32(m) + f32(d))}; }},
    {"pk_add_f16", false, false, 16, [](u64 m, u64 d, bool) { return pk(m, d, f16_add); }},
    {"pk_add_bf16", false, false, 17, [](u64 m, u64 d, bool) { return pk(m, d, bf16_add); }},
    {"add_f64", true, false, 64, [](u64 m, u64 d, bool) { return std::bit_cast<u64>(d64(m) + d64(d)); }},
    {"min_f64", true, false, 64, [](u64 m, u64 d, bool) { return d64(d) < d64(m) ? d : m; }},
    {"max_f64", true, false, 64, [](u64 m, u64 d, bool) { return d64(d) > d64(m) ? d : m; }},
};

// Normal f32/f64 of moderate magnitude (no denormal sums, which the simulator refuses), no -0
// (min/max of ±0 is not what these cases test); bf16 halves normal in 2^-7..2^8.
u32 tame32(u32 w) {
  const float f = std::bit_cast<float>(w);
  if (!std::isfinite(f) || f == 0.0f || std::fabs(f) < 0x1p-40f || std::fabs(f) > 0x1p40f)
    return std::bit_cast<u32>(std::ldexp(1.0f + static_cast<float>(w & 0x3f) / 64.0f, static_cast<int>(w % 31) - 15)) ^ (w & 0x80000000u);
  return w;
}
u64 tame64(u64 w) {
  const double d = d64(w);
  if (!std::isfinite(d) || d == 0.0 || std::fabs(d) < 0x1p-400 || std::fabs(d) > 0x1p400)
    return std::bit_cast<u64>(std::ldexp(1.0 + static_cast<double>(w & 0xff) / 256.0, static_cast<int>(w % 61) - 30)) ^ (w & (1ull << 63));
  return w;
}
u32 tame_bf16(u32 h) { return (h & 0x807fu) | ((120u + (h >> 7) % 15u) << 7); }

enum class Sp { Global, Flat, Buffer };

// Without return: every lane at element l of 256.. (data v16 / v[16:17]; cmpswap {data, cmp}
// in v[16:17] / v[10:13]). With return (sc0), masked: element l of 2048.. (data v14 / v[14:15];
// cmpswap v[14:15] / v[14:17]) into v32 / v[32:33]. Buffer: raw V#s, num_records cuts lanes
// >= 24 (no return; wide: mid-element) and >= 40 (return): those do nothing and return 0.
void atomic_case(std::vector<Case>& cs, Sp sp, const AtomicOp& op) {
  const std::string pre = sp == Sp::Global ? "global" : sp == Sp::Flat ? "flat" : "buffer";
  const std::string m = pre + "_atomic_" + op.name + (op.wide && !op.fp ? "_x2" : "");
  const u32 sz = op.wide ? 8 : 4, dw = op.wide ? 2 : 1, nd = dw * (op.cmp ? 2 : 1);
  const int k_nr = op.cmp && op.wide ? 0 : 6, k_r = 4;
  const u32 nr_noret = 256 + 24 * sz + (op.wide ? 4 : 0), nr_ret = 2048 + 40 * sz + (op.wide ? 4 : 0);
  std::string b = times(65, static_cast<int>(sz));
  if (sp == Sp::Global) {
    b += "  " + m + " v65, " + vr(10 + k_nr, static_cast<int>(nd)) + ", s[6:7] offset:256\n" + kOn + "  " + m + " " +
         vr(32, static_cast<int>(dw)) + ", v65, " + vr(10 + k_r, static_cast<int>(nd)) + ", s[6:7] offset:2048 sc0\n" + kOff;
  } else if (sp == Sp::Flat) {
    b += kFlatAddr + "  " + m + " v[66:67], " + vr(10 + k_nr, static_cast<int>(nd)) + " offset:256\n" + kOn + "  " + m +
         " " + vr(32, static_cast<int>(dw)) + ", v[66:67], " + vr(10 + k_r, static_cast<int>(nd)) + " offset:2048 sc0\n" + kOff;
  } else {
    b += vsharp(56, nr_ret, 0x27000) + vsharp(60, nr_noret, 0x27000);
    for (u32 i = 0; i < nd; ++i) b += "  v_mov_b32 v" + std::to_string(32 + i) + ", v" + std::to_string(10 + k_r + static_cast<int>(i)) + "\n";
    b += "  " + m + " " + vr(10 + k_nr, static_cast<int>(nd)) + ", v65, s[60:63], 0 offen offset:256\n" + kOn + "  " + m + " " +
         vr(32, static_cast<int>(nd)) + ", v65, s[56:59], 0 offen offset:2048 sc0\n" + kOff;
  }
  b += "  s_waitcnt vmcnt(0) lgkmcnt(0)\n";
  const bool is_buf = sp == Sp::Buffer;
  auto data = [dw](State& s, int k, int l) { return dw == 2 ? in64(s, k, l) : u64{in(s, k, l)}; };
  // Applies the atomic of lane l to element `at`; returns the old value (0 if out of range).
  auto apply = [=](State& s, int k, int l, u32 at, u32 nr) -> u64 {
    if (is_buf && at + sz > nr) return 0;
    const u64 old = peek(s, at, sz), d = data(s, k, l);
    const u64 nv = op.cmp ? (old == data(s, k + static_cast<int>(dw), l) ? d : old) : op.fn(old, d, op.wide);
    poke(s, at, nv, sz);
    return old;
  };
  auto init = [=](State& s) {
    masked(s);
    for (int l = 0; l < kLanes; ++l) {
      for (const auto& [k, at] : {std::pair{k_nr, 256 + l * sz}, std::pair{k_r, 2048 + l * sz}}) {
        for (u32 i = 0; i < nd; i += dw) {  // operands and memory tamed for fp ops
          const int r = k + static_cast<int>(i);
          if (op.fp == 32) in(s, r, l) = tame32(in(s, r, l));
          if (op.fp == 17) in(s, r, l) = tame_bf16(in(s, r, l) & 0xffffu) | (tame_bf16(in(s, r, l) >> 16) << 16);
          if (op.fp == 64) { const u64 v = tame64(in64(s, r, l)); in(s, r, l) = static_cast<u32>(v); in(s, r + 1, l) = static_cast<u32>(v >> 32); }
        }
        if (op.fp == 32) poke(s, at, tame32(static_cast<u32>(peek(s, at, 4))), 4);
        if (op.fp == 17) { const u32 v = static_cast<u32>(peek(s, at, 4)); poke(s, at, tame_bf16(v & 0xffffu) | (tame_bf16(v >> 16) << 16), 4); }
        if (op.fp == 64) poke(s, at, tame64(peek(s, at, 8)), 8);
        if (op.cmp && l % 3 == 0) {  // compare equal to memory
          const u64 v = peek(s, at, sz);
          in(s, k + static_cast<int>(dw), l) = static_cast<u32>(v);
          if (dw == 2) in(s, k + 3, l) = static_cast<u32>(v >> 32);
        }
        const std::string n = op.name;
        if (n == "inc" || n == "dec") {  // the wrap boundaries: data == old, old == 0, old == data + 1
          const u64 old = peek(s, at, sz);
          if (l % 4 == 1) { in(s, k, l) = static_cast<u32>(old); if (dw == 2) in(s, k + 1, l) = static_cast<u32>(old >> 32); }
          if (l % 4 == 2) poke(s, at, 0, sz);
          if (l % 4 == 3) { in(s, k, l) = static_cast<u32>(old - 1); if (dw == 2) in(s, k + 1, l) = static_cast<u32>((old - 1) >> 32); }
        }
      }
    }
  };
  const Values vals = op.fp == 16 ? Values::F16 : op.fp == 32 ? Values::F32 : op.fp == 64 ? Values::F64 : Values::Int;
  cs.push_back({m, b, [=](State& s) {
                  for (int l = 0; l < kLanes; ++l) {
                    if (is_buf)
                      for (u32 i = 0; i < nd; ++i) out(s, static_cast<int>(i), l) = in(s, k_r + static_cast<int>(i), l);
                    apply(s, k_nr, l, 256 + static_cast<u32>(l) * sz, nr_noret);
                  }
                  for (int l = 0; l < kLanes; ++l) {
                    if (!lane_on(s, l)) continue;
                    const u64 old = apply(s, k_r, l, 2048 + static_cast<u32>(l) * sz, nr_ret);
                    out(s, 0, l) = static_cast<u32>(old);
                    if (dw == 2) out(s, 1, l) = static_cast<u32>(old >> 32);
                  }
                },
                vals, init});
}

// ---------------------------------------------------------------- d16 forms
struct D16 {
  const char* suffix;
  u32 bytes;
  bool sign, hi;
};
const D16 kD16Loads[] = {{"ubyte_d16", 1, false, false}, {"ubyte_d16_hi", 1, false, true},
                         {"sbyte_d16", 1, true, false},  {"sbyte_d16_hi", 1, true, true},
                         {"short_d16", 2, false, false}, {"short_d16_hi", 2, false, true}};
const D16 kD16Stores[] = {{"byte_d16_hi", 1, false, true}, {"short_d16_hi", 2, false, true}};

// The 16-bit value of the loaded bytes put into one half of `reg`, the other half kept.
u32 put16(u32 reg, u32 raw, const D16& d) {
  const u32 v = (d.sign ? sx(raw, 8 * d.bytes) : raw) & 0xffffu;
  return d.hi ? (reg & 0xffffu) | (v << 16) : (reg & 0xffff0000u) | v;
}

void d16_load(std::vector<Case>& cs, Sp sp, const D16& d) {
  const std::string m = std::string(sp == Sp::Buffer ? "buffer" : "flat") + "_load_" + d.suffix;
  const u32 odd = d.bytes == 1 ? 1 : 0;
  std::string b;
  if (sp == Sp::Buffer) {  // raw offen (num_records cuts lane 40), then structured idxen (stride 6), masked
    b = vsharp(56, 16 + 40 * d.bytes, 0x27000) + "  s_mov_b32 s60, s6\n  s_and_b32 s61, s7, 0xffff\n  s_or_b32 s61, s61, 0x60000\n"
        "  s_mov_b32 s62, 0x1000\n  s_mov_b32 s63, 0x27000\n  s_movk_i32 s64, 0x2000\n" + times(64, static_cast<int>(d.bytes)) +
        "  " + m + " v32, v64, s[56:59], 0 offen offset:16\n" + kOn + "  " + m + " v33, v0, s[60:63], s64 idxen offset:" +
        std::to_string(2 + odd) + "\n" + kOff;
  } else {
    b = times(65, static_cast<int>(d.bytes)) + kFlatAddr + kOn + "  " + m + " v32, v[66:67] offset:" + std::to_string(1536 + odd) + "\n" +
        kOff + "  " + m + " v33, v[66:67]\n";
  }
  b += "  s_waitcnt vmcnt(0) lgkmcnt(0)\n";
  cs.push_back({m, b, [=](State& s) {
                  if (sp == Sp::Buffer) s.scc = true;  // s_or_b32 with a nonzero result
                  for (int l = 0; l < kLanes; ++l) {
                    const u32 L = static_cast<u32>(l);
                    if (sp == Sp::Buffer) {
                      const u32 rel = 16 + L * d.bytes;
                      out(s, 0, l) = put16(out(s, 0, l), rel < 16 + 40 * d.bytes ? static_cast<u32>(peek(s, rel, d.bytes)) : 0u, d);
                      if (lane_on(s, l)) out(s, 1, l) = put16(out(s, 1, l), static_cast<u32>(peek(s, 0x2000 + 6 * L + 2 + odd, d.bytes)), d);
                    } else {
                      if (lane_on(s, l)) out(s, 0, l) = put16(out(s, 0, l), static_cast<u32>(peek(s, L * d.bytes + 1536 + odd, d.bytes)), d);
                      out(s, 1, l) = put16(out(s, 1, l), static_cast<u32>(peek(s, L * d.bytes, d.bytes)), d);
                    }
                  }
                },
                Values::Int, masked});
}

void d16_store(std::vector<Case>& cs, Sp sp, const D16& d) {
  const std::string m = std::string(sp == Sp::Buffer ? "buffer" : "flat") + "_store_" + d.suffix;
  std::string b;
  if (sp == Sp::Buffer) {
    b = vsharp(56, 16 + 40 * d.bytes, 0x27000) + times(64, static_cast<int>(d.bytes)) + kOn + "  " + m +
        " v16, v64, s[56:59], 0 offen offset:16\n" + kOff;
  } else {
    b = times(65, static_cast<int>(d.bytes)) + kFlatAddr + kOn + "  " + m + " v[66:67], v16 offset:1537\n" + kOff;
  }
  b += "  s_waitcnt vmcnt(0) lgkmcnt(0)\n";
  cs.push_back({m, b, [=](State& s) {
                  for (int l = 0; l < kLanes; ++l) {
                    if (!lane_on(s, l)) continue;
                    const u32 at = (sp == Sp::Buffer ? 16u : 1537u) + static_cast<u32>(l) * d.bytes;
                    if (sp == Sp::Buffer && l >= 40) continue;  // out of range: dropped
                    poke(s, at, in(s, 6, l) >> 16, d.bytes);
                  }
                },
                Values::Int, masked});
}

// Scratch: each lane's bytes 64..79 hold v10..v13 (stored first, s56 = 64); loads at s56 +
// 5 (bytes) / 6 (shorts) and vaddr 8 + 64 + 2; stores of v16's high half at 64 + 9, read back.
void d16_scratch(std::vector<Case>& cs, const D16& d, bool load) {
  const std::string m = std::string("scratch_") + (load ? "load_" : "store_") + d.suffix;
  const u32 o1 = d.bytes == 1 ? 5 : 6;
  std::string b = "  s_movk_i32 s56, 0x40\n  v_mov_b32 v64, 8\n  scratch_store_dwordx4 off, v[10:13], s56\n  s_waitcnt vmcnt(0)\n" + kOn;
  if (load) b += "  " + m + " v32, off, s56 offset:" + std::to_string(o1) + "\n  " + m + " v33, v64, off offset:66\n";
  else b += "  " + m + " off, v16, s56 offset:9\n  " + m + " v64, v17, off offset:64\n";
  b += kOff + "  s_waitcnt vmcnt(0)\n" + (load ? "" : "  scratch_load_dwordx4 v[32:35], off, s56\n  s_waitcnt vmcnt(0)\n");
  cs.push_back({m, b, [=](State& s) {
                  for (int l = 0; l < kLanes; ++l) {
                    unsigned char p[16];
                    for (int k = 0; k < 4; ++k) std::memcpy(p + 4 * k, &in(s, k, l), 4);
                    auto rd = [&](u32 at) { u32 v = 0; std::memcpy(&v, p + at, d.bytes); return v; };
                    if (load) {
                      if (!lane_on(s, l)) continue;
                      out(s, 0, l) = put16(out(s, 0, l), rd(o1), d);
                      out(s, 1, l) = put16(out(s, 1, l), rd(10), d);
                    } else {
                      if (lane_on(s, l)) {
                        const u32 a = in(s, 6, l) >> 16, c = in(s, 7, l) >> 16;
                        std::memcpy(p + 9, &a, d.bytes);
                        std::memcpy(p + 8, &c, d.bytes);
                      }
                      for (int k = 0; k < 4; ++k) std::memcpy(&out(s, k, l), p + 4 * k, 4);
                    }
                  }
                },
                Values::Int, masked});
}

// ---------------------------------------------------------------- loads to LDS
// M0 = 0x400; the LDS dword of lane l (M0 + inst offset + 4l) first holds v10, then the loaded
// value zero/sign-extended to 32 bits (active lanes); read back into v32.
struct LdsLoad {
  const char* suffix;
  u32 bytes;
  bool sign;
};
const LdsLoad kLdsLoads[] = {{"ubyte", 1, false}, {"sbyte", 1, true}, {"ushort", 2, false}, {"sshort", 2, true}, {"dword", 4, false}};

void lds_load(std::vector<Case>& cs, bool scratch, const LdsLoad& k) {
  const std::string m = std::string(scratch ? "scratch" : "global") + "_load_lds_" + k.suffix;
  const u32 off = scratch ? 0 : 8, sub = 4 - k.bytes;  // byte loads read the top byte(s) of a dword
  std::string b = "  s_movk_i32 m0, 0x400\n  s_nop 0\n  v_lshlrev_b32 v65, 2, v0\n  v_add_u32 v65, " + std::to_string(0x400 + off) +
                  ", v65\n  ds_write_b32 v65, v10\n  s_waitcnt lgkmcnt(0)\n";
  if (scratch) {
    b += "  s_movk_i32 s56, " + std::to_string(32 + sub) + "\n  scratch_store_dword off, v11, off offset:32\n  s_waitcnt vmcnt(0)\n" + kOn +
         "  " + m + " off, s56\n";
  } else {
    b += times(64, 4, static_cast<int>(sub)) + kOn + "  " + m + " v64, s[6:7] offset:" + std::to_string(off) + "\n";
  }
  b += kOff + "  s_waitcnt vmcnt(0)\n  ds_read_b32 v32, v65\n  s_waitcnt lgkmcnt(0)\n";
  cs.push_back({m, b, [=](State& s) {
                  s.m0 = 0x400;
                  for (int l = 0; l < kLanes; ++l) {
                    u32 raw = 0;
                    if (scratch) raw = (in(s, 1, l) >> (8 * sub)) & static_cast<u32>((u64{1} << (8 * k.bytes)) - 1);
                    else raw = static_cast<u32>(peek(s, 4 * static_cast<u32>(l) + sub + off, k.bytes));
                    out(s, 0, l) = lane_on(s, l) ? (k.sign ? sx(raw, 8 * k.bytes) : raw) : in(s, 0, l);
                  }
                },
                Values::Int, masked});
}

// ---------------------------------------------------------------- formats
enum Nf : u32 { UNORM = 0, SNORM = 1, UINT = 4, SINT = 5, FLOAT = 7 };
struct Fmt {
  u32 dfmt, nfmt, bits, comps;
  std::string asm_name;  // MTBUF spelling
};
Fmt fmt(u32 bits, u32 comps, Nf n) {
  const u32 d = bits == 8 ? (comps == 1 ? 1 : comps == 2 ? 3 : 10) : bits == 16 ? (comps == 1 ? 2 : comps == 2 ? 5 : 12)
                                                                                  : (comps == 1 ? 4 : comps == 2 ? 11 : comps == 3 ? 13 : 14);
  static const char* nn[] = {"UNORM", "SNORM", "", "", "UINT", "SINT", "", "FLOAT"};
  std::string dn;
  for (u32 c = 0; c < comps; ++c) dn += (c ? "_" : "") + std::to_string(bits);
  return {d, n, bits, comps, "format:[BUF_DATA_FORMAT_" + dn + ",BUF_NUM_FORMAT_" + nn[n] + "]"};
}

float unorm(u32 v, u32 bits) { return static_cast<float>(v) / static_cast<float>((1u << bits) - 1); }
float snorm(u32 v, u32 bits) { return std::fmax(static_cast<float>(static_cast<i32>(sx(v, bits))) / static_cast<float>((1u << (bits - 1)) - 1), -1.0f); }
u32 h_of(double x) { return std::bit_cast<u16>(static_cast<_Float16>(x)); }

// Component bits -> register value (32-bit, or 16-bit for d16).
u32 fetch(const Fmt& f, u32 v, bool d16) {
  if (f.nfmt == UINT) return v;
  if (f.nfmt == SINT) return d16 ? sx(v, f.bits) & 0xffffu : sx(v, f.bits);
  if (f.nfmt == FLOAT) {
    if (d16 || f.bits == 32) return v;
    if ((v & 0x7c00u) == 0x7c00u && (v & 0x3ffu)) return ((v & 0x8000u) << 16) | 0x7f800000u | ((v & 0x3ffu) << 13);  // NaN: payload kept
    return std::bit_cast<u32>(static_cast<float>(std::bit_cast<_Float16>(static_cast<u16>(v))));
  }
  const float x = f.nfmt == UNORM ? unorm(v, f.bits) : snorm(v, f.bits);
  return d16 ? h_of(static_cast<double>(f.nfmt == UNORM ? static_cast<double>(v) / ((1u << f.bits) - 1)
                                                        : std::fmax(static_cast<double>(static_cast<i32>(sx(v, f.bits))) / ((1u << (f.bits - 1)) - 1), -1.0)))
             : std::bit_cast<u32>(x);
}
// Register value -> component bits.
u32 pack(const Fmt& f, u32 x, bool d16) {
  const u32 mask = f.bits == 32 ? ~0u : (1u << f.bits) - 1;
  if (f.nfmt == UINT || f.nfmt == SINT || (f.nfmt == FLOAT && (d16 || f.bits == 32))) return x & mask;
  if (f.nfmt == FLOAT) {  // f32 -> f16 nearest even; NaN quieted keeping sign and top payload
    if (std::isnan(std::bit_cast<float>(x))) return ((x >> 16) & 0x8000u) | 0x7e00u | ((x >> 13) & 0x3ffu);
    return h_of(static_cast<double>(std::bit_cast<float>(x)));
  }
  double v = d16 ? static_cast<double>(std::bit_cast<_Float16>(static_cast<u16>(x))) : static_cast<double>(std::bit_cast<float>(x));
  if (std::isnan(v)) v = 0;
  v = std::fmin(std::fmax(v, f.nfmt == UNORM ? 0.0 : -1.0), 1.0);
  const double scale = f.nfmt == UNORM ? (1u << f.bits) - 1 : (1u << (f.bits - 1)) - 1;
  return static_cast<u32>(static_cast<i32>(std::rint(v * scale))) & mask;
}

// n components; MUBUF (V# format) or MTBUF (instruction format, V# word3 format set to a
// different one). Element of lane l at rel = 16 + E*l (raw V#, num_records = 16 + 40E + bpc:
// lane 40's element crosses the limit and, format accesses being range-checked all or nothing,
// reads 0 / is not written like the later lanes); DST_SEL `sel` (loads); masked.
void format_case(std::vector<Case>& cs, bool typed, bool load, bool d16, bool hi, u32 n, const Fmt& f, u32 sel, Values vals) {
  const std::string m = std::string(typed ? "tbuffer_" : "buffer_") + (load ? "load" : "store") + "_format_" +
                        (d16 ? (hi ? "d16_hi_" : "d16_") : "") + std::string("xyzw").substr(0, n);
  const u32 bpc = f.bits / 8, E = bpc * f.comps, nr = 16 + 40 * E + bpc;
  const u32 w3 = sel | (typed ? (4u << 15) | (7u << 12) : (f.dfmt << 15) | (f.nfmt << 12));
  const u32 regs = d16 ? (n + 1) / 2 : n;
  std::string b = vsharp(56, nr, w3) + times(64, static_cast<int>(E)) + kOn + "  " + m + " " +
                  vr(load ? 32 : 10, static_cast<int>(regs)) + ", v64, s[56:59], 0" + (typed && !f.asm_name.empty() ? " " + f.asm_name : "") + " offen offset:16\n" +
                  kOff + "  s_waitcnt vmcnt(0)\n";
  cs.push_back({m, b, [=](State& s) {
                  for (int l = 0; l < kLanes; ++l) {
                    if (!lane_on(s, l)) continue;
                    const u32 at = 16 + E * static_cast<u32>(l);
                    if (load) {
                      const u32 one = f.nfmt == UINT || f.nfmt == SINT ? 1u : d16 ? 0x3c00u : 0x3f800000u;
                      u32 ch[4] = {0, 0, 0, one};
                      for (u32 c = 0; c < f.comps; ++c) ch[c] = fetch(f, at + E <= nr ? static_cast<u32>(peek(s, at + c * bpc, bpc)) : 0u, d16);
                      for (u32 i = 0; i < n; ++i) {
                        const u32 q = (sel >> (3 * i)) & 7u;
                        const u32 x = q == 0 ? 0u : q == 1 ? one : ch[q - 4];
                        if (!d16) { out(s, static_cast<int>(i), l) = x; continue; }
                        u32& r = out(s, static_cast<int>(i / 2), l);
                        r = (hi || (i & 1)) ? (r & 0xffffu) | (x << 16) : (r & 0xffff0000u) | (x & 0xffffu);
                      }
                    } else {
                      for (u32 c = 0; c < f.comps; ++c) {
                        if (at + E > nr) continue;
                        u32 x = in(s, static_cast<int>(d16 ? c / 2 : c), l);
                        if (d16) x = (hi || (c & 1)) ? x >> 16 : x & 0xffffu;
                        poke(s, at + c * bpc, pack(f, x, d16), bpc);
                      }
                    }
                  }
                },
                vals, masked});
}

constexpr u32 sel4(u32 x, u32 y, u32 z, u32 w) { return x | y << 3 | z << 6 | w << 9; }

}  // namespace

void add_vmem_forms_cases(std::vector<Case>& cs) {
  for (const auto& op : kAtomics) {
    const bool pk = op.fp == 16 || op.fp == 17;
    atomic_case(cs, Sp::Flat, op);
    if (!pk || op.fp == 16) atomic_case(cs, Sp::Buffer, op);
    if (pk) atomic_case(cs, Sp::Global, op);
    if (!op.wide && !op.fp && !op.cmp) {  // the _x2 forms
      AtomicOp w = op;
      w.wide = true;
      atomic_case(cs, Sp::Flat, w);
      atomic_case(cs, Sp::Buffer, w);
      const std::string n = op.name;
      if (n != "add" && n != "swap" && n != "umin" && n != "umax") atomic_case(cs, Sp::Global, w);
    }
  }
  const AtomicOp cmpswap_x2 = {"cmpswap", true, true, 0, nullptr};
  atomic_case(cs, Sp::Flat, cmpswap_x2);
  atomic_case(cs, Sp::Buffer, cmpswap_x2);

  for (const auto& d : kD16Loads) {
    d16_load(cs, Sp::Buffer, d);
    d16_load(cs, Sp::Flat, d);
    d16_scratch(cs, d, true);
  }
  for (const auto& d : kD16Stores) {
    d16_store(cs, Sp::Buffer, d);
    d16_store(cs, Sp::Flat, d);
    d16_scratch(cs, d, false);
  }
  for (const auto& k : kLdsLoads) {
    lds_load(cs, false, k);
    lds_load(cs, true, k);
  }

  // Formats: each mnemonic with a different format and DST_SEL (missing components: 0, w 1).
  const u32 xyzw = sel4(4, 5, 6, 7);
  for (bool typed : {false, true}) {
    // loads
    format_case(cs, typed, true, false, false, 1, typed ? fmt(16, 1, SNORM) : fmt(8, 1, UNORM), xyzw, Values::Int);
    format_case(cs, typed, true, false, false, 2, typed ? fmt(8, 2, SINT) : fmt(16, 2, SNORM), sel4(5, 4, 6, 7), Values::Int);
    format_case(cs, typed, true, false, false, 3, typed ? fmt(16, 4, FLOAT) : fmt(32, 3, UINT), sel4(4, 1, 6, 7), Values::Int);
    format_case(cs, typed, true, false, false, 4, typed ? fmt(32, 2, FLOAT) : fmt(8, 2, SINT), sel4(4, 5, 6, 7), Values::Int);
    format_case(cs, typed, true, true, false, 1, typed ? fmt(8, 1, SINT) : fmt(16, 1, FLOAT), xyzw, Values::Int);
    format_case(cs, typed, true, true, false, 2, typed ? fmt(16, 2, UNORM) : fmt(8, 2, UNORM), sel4(5, 0, 6, 7), Values::Int);
    format_case(cs, typed, true, true, false, 3, typed ? fmt(8, 4, UINT) : fmt(16, 4, SINT), xyzw, Values::Int);
    format_case(cs, typed, true, true, false, 4, typed ? fmt(16, 4, SNORM) : fmt(8, 4, SNORM), sel4(7, 6, 5, 4), Values::Int);
    // stores
    format_case(cs, typed, false, false, false, 1, typed ? fmt(8, 1, SNORM) : fmt(16, 1, FLOAT), 0, Values::F32);
    format_case(cs, typed, false, false, false, 2, typed ? fmt(16, 2, UNORM) : fmt(8, 2, UNORM), 0, Values::F32);
    format_case(cs, typed, false, false, false, 3, typed ? fmt(32, 3, FLOAT) : fmt(32, 3, UINT), 0, Values::Int);
    format_case(cs, typed, false, false, false, 4, typed ? fmt(16, 4, SINT) : fmt(8, 4, SNORM), 0, Values::F32);
    format_case(cs, typed, false, true, false, 1, typed ? fmt(16, 1, UNORM) : fmt(16, 1, FLOAT), 0, Values::F16);
    format_case(cs, typed, false, true, false, 2, typed ? fmt(8, 2, SNORM) : fmt(16, 2, UINT), 0, Values::F16);
    format_case(cs, typed, false, true, false, 3, typed ? fmt(16, 2, FLOAT) : fmt(8, 2, UNORM), 0, Values::F16);
    format_case(cs, typed, false, true, false, 4, typed ? fmt(8, 4, UINT) : fmt(16, 4, SNORM), 0, Values::F16);
  }
  format_case(cs, false, true, true, true, 1, fmt(16, 1, UINT), xyzw, Values::Int);
  format_case(cs, false, false, true, true, 1, fmt(8, 1, SINT), 0, Values::Int);

  // MTBUF without a format modifier: LLVM's default, 8-bit UNORM (the V# says 32 FLOAT).
  Fmt dflt = fmt(8, 1, UNORM);
  dflt.asm_name.clear();
  format_case(cs, true, true, false, false, 1, dflt, xyzw, Values::Int);

  // Refused: a packed format, a store with fewer components than the format, reserved DST_SEL.
  cs.push_back({"tbuffer_load_format_x",
                vsharp(56, 4096, sel4(4, 5, 6, 7)) + "  tbuffer_load_format_x v32, v94, s[56:59], 0 format:[BUF_DATA_FORMAT_10_11_11,BUF_NUM_FORMAT_FLOAT] offen\n  s_waitcnt vmcnt(0)\n",
                nullptr, Values::Int, nullptr, "BUF_DATA_FORMAT_10_11_11, BUF_NUM_FORMAT_FLOAT] is not modelled"});
  cs.push_back({"buffer_store_format_xy",
                vsharp(56, 4096, (10u << 15) | (4u << 12)) + "  buffer_store_format_xy v[10:11], v94, s[56:59], 0 offen\n  s_waitcnt vmcnt(0)\n",
                nullptr, Values::Int, nullptr, "the bytes of the missing components are not modelled"});
  cs.push_back({"buffer_load_format_x",
                vsharp(56, 4096, (4u << 15) | (4u << 12) | 2u) + "  buffer_load_format_x v32, v94, s[56:59], 0 offen\n  s_waitcnt vmcnt(0)\n",
                nullptr, Values::Int, nullptr, "DST_SEL 2 is reserved"});

  // MUBUF sub-dword loads to LDS: M0 = 0x400, element l at byte 4l + 3 (bytes) / 4l + 2 (shorts),
  // raw V# with num_records cutting lane 40 (0 written); the LDS dwords first hold v10.
  for (const auto& k : kLdsLoads) {
    if (k.bytes == 4) continue;  // buffer_load_dword ... lds: cases_vmem.cpp
    const std::string m = std::string("buffer_load_") + k.suffix;
    const u32 sub = 4 - k.bytes;
    cs.push_back({m,
                  vsharp(56, 160, 0x27000) + "  s_movk_i32 m0, 0x400\n  s_nop 0\n  v_lshlrev_b32 v65, 2, v0\n"
                  "  v_add_u32 v65, 0x400, v65\n  ds_write_b32 v65, v10\n  s_waitcnt lgkmcnt(0)\n" + times(64, 4, static_cast<int>(sub)) +
                      kOn + "  " + m + " v64, s[56:59], 0 offen lds\n" + kOff + "  s_waitcnt vmcnt(0)\n  ds_read_b32 v32, v65\n  s_waitcnt lgkmcnt(0)\n",
                  [=](State& s) {
                    s.m0 = 0x400;
                    for (int l = 0; l < kLanes; ++l) {
                      const u32 at = 4 * static_cast<u32>(l) + sub;
                      const u32 raw = at < 160 ? static_cast<u32>(peek(s, at, k.bytes)) : 0u;
                      out(s, 0, l) = lane_on(s, l) ? (k.sign ? sx(raw, 8 * k.bytes) : raw) : in(s, 0, l);
                    }
                  },
                  Values::Int, masked});
  }

  // Structured format access (idxen, stride 12, num_records = 40 records): records l >= 40
  // read 0 as a whole; record l at 0x2000 + 12l + 4, format 16_16_16_16 UNORM (bytes 4..11).
  cs.push_back({"buffer_load_format_xyzw",
                vsharp(60, 40, sel4(4, 5, 6, 7) | (12u << 15)) + "  s_or_b32 s61, s61, 0xc0000\n  s_movk_i32 s64, 0x2000\n"
                "  buffer_load_format_xyzw v[32:35], v0, s[60:63], s64 idxen offset:4\n  s_waitcnt vmcnt(0)\n",
                [](State& s) {
                  s.scc = true;  // s_or_b32 with a nonzero result
                  for (int l = 0; l < kLanes; ++l)
                    for (int c = 0; c < 4; ++c) {
                      const u32 raw = l < 40 ? static_cast<u32>(peek(s, 0x2000 + 12 * static_cast<u32>(l) + 4 + 2 * static_cast<u32>(c), 2)) : 0u;
                      out(s, c, l) = std::bit_cast<u32>(static_cast<float>(raw) / 65535.0f);
                    }
                }});

  // A bf16 atomic meeting a denormal is refused (the hardware's handling is unpublished).
  cs.push_back({"global_atomic_pk_add_bf16",
                "  v_mov_b32 v64, 0x00010001\n  global_atomic_pk_add_bf16 v94, v64, s[6:7]\n  s_waitcnt vmcnt(0)\n", nullptr,
                Values::Int, nullptr, "bf16 atomic add with a denormal operand or result"});

  // buffer_wbinvl1: no architectural effect; a store before and a load after see plain memory.
  cs.push_back({"buffer_wbinvl1",
                "  global_store_dword v94, v10, s[6:7]\n  buffer_wbinvl1\n  global_load_dword v32, v94, s[6:7]\n  s_waitcnt vmcnt(0)\n",
                [](State& s) {
                  for (int l = 0; l < kLanes; ++l) {
                    s.mem[static_cast<std::size_t>(l)] = in(s, 0, l);
                    out(s, 0, l) = in(s, 0, l);
                  }
                }});
}

}  // namespace cdna::simulator::directed
