// GLOBAL, FLAT, SCRATCH and MUBUF cases: loads/stores of every width (zero/sign extension, d16
// and d16_hi halves), global atomics with and without return (sc0), flat on global addresses,
// per-lane scratch, buffer V#s built in SGPRs (offen/idxen/stride, num_records range checks, the
// `lds` form) and the cache-control instructions. Models follow the CDNA3 ISA guide, chapters
// "Vector Memory Buffer Instructions" and "Flat Memory Instructions", written for the tests.
//
// `mem` offsets are bytes from the buffer's start (16 KiB). Regions used: loads read 512..12288;
// atomics without return use 256..767, with return 2048..2559; buffer idxen accesses 8192...
#include <bit>
#include <cmath>
#include <string>

#include "simulator/directed/cases.hpp"

namespace cdna::simulator::directed {
namespace {

u64 mrd(const State& s, u32 a, int n) {
  u64 v = 0;
  for (int i = 0; i < n; ++i) {
    const u32 b = a + static_cast<u32>(i);
    v |= static_cast<u64>((s.mem.at(b / 4) >> (8 * (b % 4))) & 0xffu) << (8 * i);
  }
  return v;
}

void mwr(State& s, u32 a, u64 v, int n) {
  for (int i = 0; i < n; ++i) {
    const u32 b = a + static_cast<u32>(i);
    u32& w = s.mem.at(b / 4);
    const u32 sh = 8 * (b % 4);
    w = (w & ~(0xffu << sh)) | (static_cast<u32>((v >> (8 * i)) & 0xffu) << sh);
  }
}

u32& vo(State& s, int k, int l) { return s.vout[static_cast<std::size_t>(k)][static_cast<std::size_t>(l)]; }
u32 vi(const State& s, int k, int l) { return s.vin[static_cast<std::size_t>(k)][static_cast<std::size_t>(l)]; }
u32 sext(u32 v, int bits) { return static_cast<u32>(static_cast<i32>(v << (32 - bits)) >> (32 - bits)); }
std::string reg(int first, int n) {
  return n == 1 ? "v" + std::to_string(first) : "v[" + std::to_string(first) + ":" + std::to_string(first + n - 1) + "]";
}

// Masked instructions run on the lanes of s[16:17] (a mixed, seed-dependent mask from init).
const char* kMaskOn = "  s_mov_b64 exec, s[16:17]\n";
const char* kMaskOff = "  s_mov_b64 exec, -1\n";
bool on(u64 mask, int l) { return (mask >> l) & 1; }
void mixed_mask(State& s) {
  s.sin[0] = s.vin[7][5] | 0x00010001u;
  s.sin[1] = s.vin[7][9] & 0x7fffffffu;
}

// One access kind: bytes moved per lane, dwords (wide) or the placement of a narrow value.
enum class Ext { Dwords, Zext, Sext, D16LoZ, D16LoS, D16HiZ, D16HiS, StoreHi };
struct Acc {
  std::string suffix;  // "dwordx2", "ubyte_d16_hi", ...
  int bytes;           // bytes per lane
  Ext ext;
  int dwords() const { return ext == Ext::Dwords ? bytes / 4 : 1; }
};

u32 place(u32 old, u32 raw, int bytes, Ext e) {
  const int bits = 8 * bytes;
  switch (e) {
    case Ext::Sext: return sext(raw, bits);
    case Ext::D16LoZ: return (old & 0xffff0000u) | (raw & 0xffffu);
    case Ext::D16LoS: return (old & 0xffff0000u) | (sext(raw, bits) & 0xffffu);
    case Ext::D16HiZ: return (old & 0xffffu) | (raw << 16);
    case Ext::D16HiS: return (old & 0xffffu) | (sext(raw, bits) << 16);
    default: return raw;
  }
}

using InRange = std::function<bool(u32 rel)>;
bool always(u32) { return true; }

// Load of `a` for lane l from mem byte `at` into v(32+out)...; out-of-range parts read 0.
void load(State& s, const Acc& a, int out, int l, u32 at, const InRange& in = always) {
  if (a.ext == Ext::Dwords) {
    for (int d = 0; d < a.dwords(); ++d)
      vo(s, out + d, l) = in(at + 4u * static_cast<u32>(d)) ? static_cast<u32>(mrd(s, at + 4u * static_cast<u32>(d), 4)) : 0u;
  } else {
    vo(s, out, l) = place(vo(s, out, l), in(at) ? static_cast<u32>(mrd(s, at, a.bytes)) : 0u, a.bytes, a.ext);
  }
}

// Store of `a` for lane l from v(10+in_k)... to mem byte `at`; out-of-range parts are dropped.
void store(State& s, const Acc& a, int in_k, int l, u32 at, const InRange& in = always) {
  if (a.ext == Ext::Dwords) {
    for (int d = 0; d < a.dwords(); ++d)
      if (in(at + 4u * static_cast<u32>(d))) mwr(s, at + 4u * static_cast<u32>(d), vi(s, in_k + d, l), 4);
  } else if (in(at)) {
    mwr(s, at, a.ext == Ext::StoreHi ? vi(s, in_k, l) >> 16 : vi(s, in_k, l), a.bytes);
  }
}

int stride_of(const Acc& a) { return a.bytes; }  // lanes access consecutive elements

// ---- GLOBAL: saddr form (v64 = 32-bit offset, negative inst offset) and 64-bit vaddr form ----
// rel1 = S*l + 512 (+1 for bytes: odd addresses), rel2 = S*l + 11264.
const char* kGlobalAddr =
    "  v_add_u32 v64, 0x400, v64\n"
    "  v_add_u32 v65, 0x2000, v64\n"
    "  v_add_co_u32 v66, s[56:57], v96, v65\n"
    "  s_nop 1\n"  // the carry SGPR: 2 wait states (hazard rule valu-sgpr-valu)
    "  v_addc_co_u32 v67, s[56:57], v97, 0, s[56:57]\n";

std::string lane_times(int stride) { return "  v_mul_u32_u24 v64, " + std::to_string(stride) + ", v0\n"; }

void global_load(std::vector<Case>& cs, const Acc& a, bool masked) {
  const std::string m = "global_load_" + a.suffix;
  const int o1 = a.bytes == 1 ? -511 : -512;
  const std::string body = lane_times(stride_of(a)) + kGlobalAddr + (masked ? kMaskOn : "") + "  " + m + " " +
                           reg(32, a.dwords()) + ", v64, s[6:7] offset:" + std::to_string(o1) + "\n  " + m + " " +
                           reg(36, a.dwords()) + ", v[66:67], off offset:2048\n" + (masked ? kMaskOff : "") +
                           "  s_waitcnt vmcnt(0)\n";
  cs.push_back({m, body, [=](State& s) {
                  const u64 mask = masked ? sgpr_pair(s, 0) : ~0ull;
                  for (int l = 0; l < kLanes; ++l) {
                    if (!on(mask, l)) continue;
                    const u32 base = static_cast<u32>(stride_of(a) * l) + 1024;
                    load(s, a, 0, l, static_cast<u32>(static_cast<i32>(base) + o1));
                    load(s, a, 4, l, base + 0x2000 + 2048);
                  }
                },
                Values::Int, masked ? std::function<void(State&)>(mixed_mask) : nullptr});
}

// Stores: first v16 / v[14:..] at rel1, then v17 / v[10:..] at rel2.
int data1(const Acc& a) { return a.ext == Ext::Dwords ? 4 : 6; }
int data2(const Acc& a) { return a.ext == Ext::Dwords ? 0 : 7; }

void global_store(std::vector<Case>& cs, const Acc& a, bool masked) {
  const std::string m = "global_store_" + a.suffix;
  const int o1 = a.bytes == 1 ? -511 : -512;
  const std::string body = lane_times(stride_of(a)) + kGlobalAddr + (masked ? kMaskOn : "") + "  " + m +
                           " v64, " + reg(10 + data1(a), a.dwords()) + ", s[6:7] offset:" + std::to_string(o1) +
                           "\n  " + m + " v[66:67], " + reg(10 + data2(a), a.dwords()) + ", off offset:2048\n" +
                           (masked ? kMaskOff : "") + "  s_waitcnt vmcnt(0)\n";
  cs.push_back({m, body, [=](State& s) {
                  const u64 mask = masked ? sgpr_pair(s, 0) : ~0ull;
                  for (int l = 0; l < kLanes; ++l) {
                    if (!on(mask, l)) continue;
                    const u32 base = static_cast<u32>(stride_of(a) * l) + 1024;
                    store(s, a, data1(a), l, static_cast<u32>(static_cast<i32>(base) + o1));
                    store(s, a, data2(a), l, base + 0x2000 + 2048);
                  }
                },
                Values::Int, masked ? std::function<void(State&)>(mixed_mask) : nullptr});
}

// ---- FLAT on global addresses: v[66:67] = mem + S*l; offsets 1536 (+1 for bytes) and 0 ----
void flat_access(std::vector<Case>& cs, const Acc& a, bool is_load, bool masked) {
  const std::string m = std::string(is_load ? "flat_load_" : "flat_store_") + a.suffix;
  const int o1 = a.bytes == 1 ? 1537 : 1536;
  std::string body = lane_times(stride_of(a)) +
                     "  v_add_co_u32 v66, s[56:57], v96, v64\n  s_nop 1\n  v_addc_co_u32 v67, s[56:57], v97, 0, s[56:57]\n" +
                     (masked ? kMaskOn : "");
  if (is_load) {
    body += "  " + m + " " + reg(32, a.dwords()) + ", v[66:67] offset:" + std::to_string(o1) + "\n";
    body += "  " + m + " " + reg(36, a.dwords()) + ", v[66:67]\n";
  } else {
    body += "  " + m + " v[66:67], " + reg(10 + data1(a), a.dwords()) + " offset:" + std::to_string(o1) + "\n";
    body += "  " + m + " v[66:67], " + reg(10 + data2(a), a.dwords()) + " offset:3072\n";
  }
  body += std::string(masked ? kMaskOff : "") + "  s_waitcnt vmcnt(0) lgkmcnt(0)\n";
  cs.push_back({m, body, [=](State& s) {
                  const u64 mask = masked ? sgpr_pair(s, 0) : ~0ull;
                  for (int l = 0; l < kLanes; ++l) {
                    if (!on(mask, l)) continue;
                    const u32 base = static_cast<u32>(stride_of(a) * l);
                    if (is_load) {
                      load(s, a, 0, l, base + static_cast<u32>(o1));
                      load(s, a, 4, l, base);
                    } else {
                      store(s, a, data1(a), l, base + static_cast<u32>(o1));
                      store(s, a, data2(a), l, base + 3072);
                    }
                  }
                },
                Values::Int, masked ? std::function<void(State&)>(mixed_mask) : nullptr});
}

// ---- SCRATCH: each lane's private 1024 bytes. Block 0 at P(l) = 64 + 16*(l & 3) (vaddr form)
// holds v10..v13, block 1 at 528 (saddr form, s56 = 512, offset 16) holds v14..v17; the body
// writes both before any read (scratch is not initialised on hardware).
const char* kScratchInit =
    "  v_and_b32 v64, 3, v0\n  v_lshlrev_b32 v64, 4, v64\n  v_add_u32 v64, 64, v64\n"
    "  s_movk_i32 s56, 0x200\n"
    "  scratch_store_dwordx4 v64, v[10:13], off\n"
    "  scratch_store_dwordx4 off, v[14:17], s56 offset:16\n"
    "  s_waitcnt vmcnt(0)\n";

// Per-lane model of the two blocks (32 bytes: block 0 then block 1).
struct Priv {
  u32 w[8];
  u32 rd(int at, int n) const {
    u64 v = 0;
    for (int i = 0; i < n; ++i) v |= static_cast<u64>((w[(at + i) / 4] >> (8 * ((at + i) % 4))) & 0xffu) << (8 * i);
    return static_cast<u32>(v);
  }
  void wr(int at, u32 v, int n) {
    for (int i = 0; i < n; ++i) {
      u32& x = w[(at + i) / 4];
      const int sh = 8 * ((at + i) % 4);
      x = (x & ~(0xffu << sh)) | (((v >> (8 * i)) & 0xffu) << sh);
    }
  }
};
Priv priv_of(const State& s, int l) {
  Priv p{};
  for (int k = 0; k < 8; ++k) p.w[k] = vi(s, k, l);
  return p;
}

// In-block offsets of the two accesses (aligned to the access, inside the 16 bytes).
int soff1(const Acc& a) { return a.bytes == 1 ? 5 : a.bytes == 2 ? 6 : a.bytes == 4 ? 4 : a.bytes == 12 ? 4 : a.bytes == 8 ? 8 : 0; }
int soff2(const Acc& a) { return a.bytes == 1 ? 14 : a.bytes == 2 ? 12 : a.bytes == 4 ? 8 : 0; }

void scratch_load(std::vector<Case>& cs, const Acc& a, bool masked) {
  const std::string m = "scratch_load_" + a.suffix;
  std::string body = std::string(kScratchInit) + (masked ? kMaskOn : "") + "  " + m + " " + reg(32, a.dwords()) +
                     ", v64, off offset:" + std::to_string(soff1(a)) + "\n  " + m + " " + reg(36, a.dwords()) +
                     ", off, s56 offset:" + std::to_string(16 + soff2(a)) + "\n";
  const bool st_form = a.suffix == "dword";  // no address operand at all: offset only
  if (st_form) body += "  " + m + " v40, off, off offset:540\n";
  body += std::string(masked ? kMaskOff : "") + "  s_waitcnt vmcnt(0)\n";
  cs.push_back({m, body, [=](State& s) {
                  const u64 mask = masked ? sgpr_pair(s, 0) : ~0ull;
                  for (int l = 0; l < kLanes; ++l) {
                    if (!on(mask, l)) continue;
                    const Priv p = priv_of(s, l);
                    for (int r = 0; r < 2; ++r) {
                      const int at = r == 0 ? soff1(a) : 16 + soff2(a);
                      if (a.ext == Ext::Dwords) {
                        for (int d = 0; d < a.dwords(); ++d) vo(s, 4 * r + d, l) = p.rd(at + 4 * d, 4);
                      } else {
                        vo(s, 4 * r, l) = place(vo(s, 4 * r, l), p.rd(at, a.bytes), a.bytes, a.ext);
                      }
                    }
                    if (st_form) vo(s, 8, l) = p.rd(540 - 512, 4);
                  }
                },
                Values::Int, masked ? std::function<void(State&)>(mixed_mask) : nullptr});
}

void scratch_store(std::vector<Case>& cs, const Acc& a, bool masked) {
  const std::string m = "scratch_store_" + a.suffix;
  const std::string body = std::string(kScratchInit) + (masked ? kMaskOn : "") + "  " + m + " v64, " +
                           reg(10 + data1(a), a.dwords()) + ", off offset:" + std::to_string(soff1(a)) + "\n  " + m +
                           " off, " + reg(10 + data2(a), a.dwords()) + ", s56 offset:" + std::to_string(16 + soff2(a)) +
                           "\n" + (masked ? kMaskOff : "") +
                           "  s_waitcnt vmcnt(0)\n  scratch_load_dwordx4 v[32:35], v64, off\n"
                           "  scratch_load_dwordx4 v[36:39], off, s56 offset:16\n  s_waitcnt vmcnt(0)\n";
  cs.push_back({m, body, [=](State& s) {
                  const u64 mask = masked ? sgpr_pair(s, 0) : ~0ull;
                  for (int l = 0; l < kLanes; ++l) {
                    Priv p = priv_of(s, l);
                    if (on(mask, l)) {
                      for (int r = 0; r < 2; ++r) {
                        const int at = r == 0 ? soff1(a) : 16 + soff2(a);
                        const int k = r == 0 ? data1(a) : data2(a);
                        if (a.ext == Ext::Dwords) {
                          for (int d = 0; d < a.dwords(); ++d) p.wr(at + 4 * d, vi(s, k + d, l), 4);
                        } else {
                          p.wr(at, a.ext == Ext::StoreHi ? vi(s, k, l) >> 16 : vi(s, k, l), a.bytes);
                        }
                      }
                    }
                    for (int k = 0; k < 8; ++k) vo(s, k, l) = p.w[k];
                  }
                },
                Values::Int, masked ? std::function<void(State&)>(mixed_mask) : nullptr});
}

// ---- MUBUF. V# 1 in s[56:59]: raw (stride 0), base = mem, num_records = NR bytes, word3
// 0x27000 (untyped accesses ignore the format; no swizzle, no add_tid). V# 2 in s[60:63]:
// stride ST = S + 4, num_records 0x10000 (in range whether counted in bytes or in strides).
// Access 1 (raw, offen): rel = S*l + 16, soffset 0; in range per dword: rel + 4d < NR.
// Access 2 (idxen, index = v0 = l): 8192 (soffset s64) + ST*l + 4.
// Access 3 (idxen offen, index = 63 - l, offset = 4*(l & 3)): 8192 + ST*(63-l) + 4*(l&3) + 8.
std::string vsharp(int nr, int st) {
  return "  s_mov_b32 s56, s6\n  s_and_b32 s57, s7, 0xffff\n  s_mov_b32 s58, " + std::to_string(nr) +
         "\n  s_mov_b32 s59, 0x27000\n  s_mov_b32 s60, s6\n  s_or_b32 s61, s57, " + std::to_string(st << 16) +
         "\n  s_mov_b32 s62, 0x10000\n  s_mov_b32 s63, 0x27000\n  s_movk_i32 s64, 0x2000\n"
         "  v_sub_u32 v66, 63, v0\n  v_and_b32 v67, 3, v0\n  v_lshlrev_b32 v67, 2, v67\n";
}
int nr_of(const Acc& a) { return 16 + a.bytes * 40 + (a.bytes >= 8 ? 4 : 0); }  // cuts lane 40 (mid-element if wide)

void buffer_access(std::vector<Case>& cs, const Acc& a, bool is_load) {
  const std::string m = std::string(is_load ? "buffer_load_" : "buffer_store_") + a.suffix;
  const int S = a.bytes, ST = S + 4, NR = nr_of(a);
  std::string body = vsharp(NR, ST) + lane_times(S);
  const std::string r1 = is_load ? reg(32, a.dwords()) : reg(10 + data1(a), a.dwords());
  const std::string r2 = is_load ? reg(36, a.dwords()) : reg(10 + data2(a), a.dwords());
  const std::string r3 = is_load ? reg(40, a.dwords()) : reg(10 + data1(a), a.dwords());
  body += "  " + m + " " + r1 + ", v64, s[56:59], 0 offen offset:16\n";
  body += "  " + m + " " + r2 + ", v0, s[60:63], s64 idxen offset:4\n";
  if (is_load) body += "  " + m + " " + r3 + ", v[66:67], s[60:63], s64 idxen offen offset:8\n";
  body += "  s_waitcnt vmcnt(0)\n";
  cs.push_back({m, body, [=](State& s) {
                  const InRange raw = [NR](u32 rel) { return rel < static_cast<u32>(NR); };
                  for (int l = 0; l < kLanes; ++l) {
                    const u32 rel = static_cast<u32>(S * l + 16);
                    const u32 at2 = 8192u + static_cast<u32>(ST * l + 4);
                    const u32 at3 = 8192u + static_cast<u32>(ST * (63 - l) + 4 * (l & 3) + 8);
                    if (is_load) {
                      load(s, a, 0, l, rel, raw);
                      load(s, a, 4, l, at2);
                      load(s, a, 8, l, at3);
                    } else {
                      store(s, a, data1(a), l, rel, raw);
                      store(s, a, data2(a), l, at2);
                    }
                  }
                }});
}

// ---- global atomics ----
using Op32 = std::function<u32(u32 mem, u32 data)>;
using Op64 = std::function<u64(u64 mem, u64 data)>;

float f32(u32 v) { return std::bit_cast<float>(v); }
u32 bits32(float f) { return std::bit_cast<u32>(f); }
double f64(u64 v) { return std::bit_cast<double>(v); }
u64 bits64(double d) { return std::bit_cast<u64>(d); }

// fp inputs (registers and the memory words the atomics touch) made finite and normal, with
// magnitudes far from the denormal range so that no sum is denormal (not what these cases test);
// `no_neg_zero`: -0 becomes 1 (min/max of +0 and -0 is unspecified by IEEE minNum/maxNum).
u32 sane32(u32 w, bool no_neg_zero) {
  const float f = f32(w);
  if (!std::isfinite(f) || (f != 0.0f && std::fabs(f) < 0x1p-60f))
    w = bits32(std::ldexp(1.0f + static_cast<float>(w & 0xff) / 256.0f, static_cast<int>(w % 40) - 20));
  return no_neg_zero && w == 0x80000000u ? bits32(1.0f) : w;
}
u64 sane64(u64 w, bool no_neg_zero) {
  const double d = f64(w);
  if (!std::isfinite(d) || (d != 0.0 && std::fabs(d) < 0x1p-500))
    w = bits64(std::ldexp(1.0 + static_cast<double>(w & 0xff) / 256.0, static_cast<int>(w % 80) - 40));
  return no_neg_zero && w == 0x8000000000000000ull ? bits64(1.0) : w;
}

// Targets: without return word (l & 15) (shared, commutative ops) or l (own) at byte 256;
// with return (under the mask) element l at byte 2048. `wide`: 8-byte elements.
u32 noret_at(int l, bool shared, bool wide) { return 256u + static_cast<u32>((shared ? (l & 15) : l) * (wide ? 8 : 4)); }
u32 rtn_at(int l, bool wide) { return 2048u + static_cast<u32>(l * (wide ? 8 : 4)); }

struct Atomic {
  const char* m;
  bool wide;    // 64-bit data
  bool shared;  // order-independent: lanes share words in the no-return form
  int cmp;      // cmpswap: 1
  int fp;       // 0 int, 32 f32, 64 f64 (sanitised inputs)
  Op32 op32;
  Op64 op64;
  bool no_neg_zero = false;
};

// Operand registers: without return data v16 (v[16:17]; cmpswap v[16:17] / v[10:13]),
// with return data v14 (v[14:15]; cmpswap v[14:15] / v[14:17]); return into v32 (v[32:33]).
void global_atomic(std::vector<Case>& cs, const Atomic& at) {
  const int dw = at.wide ? 2 : 1;
  const int nd = dw * (at.cmp ? 2 : 1);
  const int k_noret = at.cmp && at.wide ? 0 : 6;
  const int k_rtn = 4;
  std::string body = std::string(at.wide ? "  v_lshlrev_b32 v65, 3, v0\n" : "  v_lshlrev_b32 v65, 2, v0\n") +
                     "  v_and_b32 v64, 15, v0\n  v_lshlrev_b32 v64, " + (at.wide ? "3" : "2") + ", v64\n";
  body += std::string("  ") + at.m + " " + (at.shared ? "v64" : "v65") + ", " + reg(10 + k_noret, nd) + ", s[6:7] offset:256\n";
  body += std::string(kMaskOn) + "  " + at.m + " " + reg(32, dw) + ", v65, " + reg(10 + k_rtn, nd) + ", s[6:7] offset:2048 sc0\n" +
          kMaskOff + "  s_waitcnt vmcnt(0)\n";
  auto data = [dw](const State& s, int k, int l) -> u64 {
    return dw == 1 ? vi(s, k, l) : lane_pair(s.vin[static_cast<std::size_t>(k)], s.vin[static_cast<std::size_t>(k + 1)], l);
  };
  auto apply = [at, dw, data](State& s, int k, int l, u32 addr) -> u64 {
    const u64 old = mrd(s, addr, 4 * dw);
    const u64 d = data(s, k, l);
    u64 nv;
    if (at.cmp) nv = old == data(s, k + dw, l) ? d : old;  // data = {new, compare}
    else nv = dw == 1 ? at.op32(static_cast<u32>(old), static_cast<u32>(d)) : at.op64(old, d);
    mwr(s, addr, nv, 4 * dw);
    return old;
  };
  auto init = [at, dw, k_noret, k_rtn, nd](State& s) {
    mixed_mask(s);
    if (at.fp) {
      for (int l = 0; l < kLanes; ++l) {
        for (u32 a : {noret_at(l, false, at.wide), rtn_at(l, at.wide)}) {
          if (at.fp == 32) mwr(s, a, sane32(static_cast<u32>(mrd(s, a, 4)), at.no_neg_zero), 4);
          else mwr(s, a, sane64(mrd(s, a, 8), at.no_neg_zero), 8);
        }
        for (int k = 0; k < 8; k += dw) {
          if (at.fp == 32) s.vin[static_cast<std::size_t>(k)][static_cast<std::size_t>(l)] = sane32(vi(s, k, l), at.no_neg_zero);
          else set_lane_pair(s.vin[static_cast<std::size_t>(k)], s.vin[static_cast<std::size_t>(k + 1)], l,
                             sane64(lane_pair(s.vin[static_cast<std::size_t>(k)], s.vin[static_cast<std::size_t>(k + 1)], l), at.no_neg_zero));
        }
      }
    }
    if (at.cmp) {  // every third lane's compare value equals the memory it will meet
      for (int l = 0; l < kLanes; l += 3) {
        for (const auto& [k, a] : {std::pair{k_noret, noret_at(l, false, at.wide)}, std::pair{k_rtn, rtn_at(l, at.wide)}}) {
          const u64 v = mrd(s, a, 4 * dw);
          s.vin[static_cast<std::size_t>(k + dw)][static_cast<std::size_t>(l)] = static_cast<u32>(v);
          if (dw == 2) s.vin[static_cast<std::size_t>(k + 3)][static_cast<std::size_t>(l)] = static_cast<u32>(v >> 32);
        }
      }
    }
    const std::string name = at.m;
    if (name.ends_with("_inc") || name.ends_with("_dec")) {  // the boundaries of the wrap rules
      for (int l = 0; l < kLanes; ++l) {
        for (const auto& [k, a] : {std::pair{k_noret, noret_at(l, false, false)}, std::pair{k_rtn, rtn_at(l, false)}}) {
          u32& d = s.vin[static_cast<std::size_t>(k)][static_cast<std::size_t>(l)];
          const u32 old = static_cast<u32>(mrd(s, a, 4));
          if (l % 4 == 1) d = old;                   // old == data
          if (l % 4 == 2) mwr(s, a, 0, 4);           // old == 0
          if (l % 4 == 3) d = old - 1;               // old == data + 1
        }
      }
    }
    (void)nd;
  };
  const Values values = at.fp == 32 ? Values::F32 : at.fp == 64 ? Values::F64 : Values::Int;
  cs.push_back({at.m, body, [=](State& s) {
                  for (int l = 0; l < kLanes; ++l) apply(s, k_noret, l, noret_at(l, at.shared, at.wide));
                  const u64 mask = sgpr_pair(s, 0);
                  for (int l = 0; l < kLanes; ++l) {
                    if (!on(mask, l)) continue;
                    const u64 old = apply(s, k_rtn, l, rtn_at(l, at.wide));
                    vo(s, 0, l) = static_cast<u32>(old);
                    if (dw == 2) vo(s, 1, l) = static_cast<u32>(old >> 32);
                  }
                },
                values, init});
}

}  // namespace

void add_vmem_cases(std::vector<Case>& cs) {
  const Acc loads[] = {
      {"ubyte", 1, Ext::Zext},          {"sbyte", 1, Ext::Sext},          {"ushort", 2, Ext::Zext},
      {"sshort", 2, Ext::Sext},         {"dword", 4, Ext::Dwords},        {"dwordx2", 8, Ext::Dwords},
      {"dwordx3", 12, Ext::Dwords},     {"dwordx4", 16, Ext::Dwords},
  };
  const Acc d16_loads[] = {
      {"ubyte_d16", 1, Ext::D16LoZ}, {"ubyte_d16_hi", 1, Ext::D16HiZ}, {"sbyte_d16", 1, Ext::D16LoS},
      {"sbyte_d16_hi", 1, Ext::D16HiS}, {"short_d16", 2, Ext::D16LoZ}, {"short_d16_hi", 2, Ext::D16HiZ},
  };
  const Acc stores[] = {
      {"byte", 1, Ext::Zext},     {"short", 2, Ext::Zext},      {"dword", 4, Ext::Dwords},
      {"dwordx2", 8, Ext::Dwords}, {"dwordx3", 12, Ext::Dwords}, {"dwordx4", 16, Ext::Dwords},
  };
  const Acc hi_stores[] = {{"byte_d16_hi", 1, Ext::StoreHi}, {"short_d16_hi", 2, Ext::StoreHi}};

  int n = 0;
  for (const auto& a : loads) {
    const bool masked = (n++ % 2) == 1;
    global_load(cs, a, masked);
    flat_access(cs, a, true, !masked);
    scratch_load(cs, a, masked);
    buffer_access(cs, a, true);
  }
  for (const auto& a : d16_loads) global_load(cs, a, (n++ % 2) == 1);
  for (const auto& a : stores) {
    const bool masked = (n++ % 2) == 1;
    global_store(cs, a, masked);
    flat_access(cs, a, false, !masked);
    scratch_store(cs, a, masked);
    buffer_access(cs, a, false);
  }
  for (const auto& a : hi_stores) global_store(cs, a, (n++ % 2) == 1);

  // Global atomics (ISA guide GLOBAL_ATOMIC_*: the old value is returned with sc0).
  auto s32 = [](u32 v) { return static_cast<i32>(v); };
  const Atomic atomics[] = {
      {"global_atomic_add", false, true, 0, 0, [](u32 a, u32 d) { return a + d; }, nullptr},
      {"global_atomic_sub", false, true, 0, 0, [](u32 a, u32 d) { return a - d; }, nullptr},
      {"global_atomic_swap", false, false, 0, 0, [](u32, u32 d) { return d; }, nullptr},
      {"global_atomic_cmpswap", false, false, 1, 0, nullptr, nullptr},
      {"global_atomic_umin", false, true, 0, 0, [](u32 a, u32 d) { return d < a ? d : a; }, nullptr},
      {"global_atomic_umax", false, true, 0, 0, [](u32 a, u32 d) { return d > a ? d : a; }, nullptr},
      {"global_atomic_smin", false, true, 0, 0, [s32](u32 a, u32 d) { return s32(d) < s32(a) ? d : a; }, nullptr},
      {"global_atomic_smax", false, true, 0, 0, [s32](u32 a, u32 d) { return s32(d) > s32(a) ? d : a; }, nullptr},
      {"global_atomic_and", false, true, 0, 0, [](u32 a, u32 d) { return a & d; }, nullptr},
      {"global_atomic_or", false, true, 0, 0, [](u32 a, u32 d) { return a | d; }, nullptr},
      {"global_atomic_xor", false, true, 0, 0, [](u32 a, u32 d) { return a ^ d; }, nullptr},
      // inc: old >= data ? 0 : old + 1; dec: (old == 0 || old > data) ? data : old - 1.
      {"global_atomic_inc", false, false, 0, 0, [](u32 a, u32 d) { return a >= d ? 0u : a + 1; }, nullptr},
      {"global_atomic_dec", false, false, 0, 0, [](u32 a, u32 d) { return (a == 0 || a > d) ? d : a - 1; }, nullptr},
      {"global_atomic_add_f32", false, false, 0, 32, [](u32 a, u32 d) { return bits32(f32(a) + f32(d)); }, nullptr},
      {"global_atomic_add_x2", true, true, 0, 0, nullptr, [](u64 a, u64 d) { return a + d; }},
      {"global_atomic_swap_x2", true, false, 0, 0, nullptr, [](u64, u64 d) { return d; }},
      {"global_atomic_cmpswap_x2", true, false, 1, 0, nullptr, nullptr},
      {"global_atomic_umax_x2", true, true, 0, 0, nullptr, [](u64 a, u64 d) { return d > a ? d : a; }},
      {"global_atomic_umin_x2", true, true, 0, 0, nullptr, [](u64 a, u64 d) { return d < a ? d : a; }},
      {"global_atomic_add_f64", true, false, 0, 64, nullptr, [](u64 a, u64 d) { return bits64(f64(a) + f64(d)); }},
      {"global_atomic_max_f64", true, false, 0, 64, nullptr, [](u64 a, u64 d) { return f64(d) > f64(a) ? d : a; }, true},
      {"global_atomic_min_f64", true, false, 0, 64, nullptr, [](u64 a, u64 d) { return f64(d) < f64(a) ? d : a; }, true},
  };
  for (const auto& at : atomics) global_atomic(cs, at);

  // buffer_load_dword ... lds: lane l's dword goes to LDS at M0 + 4*l (inst offset 0); out of
  // range lanes (l >= 40) write 0. The LDS words are first set to v10 so that "0 written" and
  // "nothing written" differ; read back with ds_read_b32 into v32.
  cs.push_back({"buffer_load_dword",
                vsharp(160, 4) + "  s_movk_i32 m0, 0x200\n  s_nop 0\n  v_lshlrev_b32 v64, 2, v0\n"
                "  v_add_u32 v65, 0x200, v64\n  ds_write_b32 v65, v10\n  s_waitcnt lgkmcnt(0)\n"
                "  buffer_load_dword v64, s[56:59], 0 offen lds\n  s_waitcnt vmcnt(0)\n"
                "  ds_read_b32 v32, v65\n  s_waitcnt lgkmcnt(0)\n",
                [](State& s) {
                  s.m0 = 0x200;
                  for (int l = 0; l < kLanes; ++l) vo(s, 0, l) = l < 40 ? s.mem[static_cast<std::size_t>(l)] : 0u;
                }});

  // Structured buffer (idxen, stride 12): num_records = 40 counts records, so lanes with index
  // l >= 40 are out of range (loads give 0, stores dropped) although their byte offsets
  // 12*l + 4 lie far below 40 * 12; lane l < 40 reads/writes the dword at byte 8192 + 12*l + 4.
  const std::string structured_vsharp =
      "  s_mov_b32 s60, s6\n  s_and_b32 s61, s7, 0xffff\n  s_or_b32 s61, s61, 0xc0000\n"
      "  s_movk_i32 s62, 40\n  s_mov_b32 s63, 0x27000\n  s_movk_i32 s64, 0x2000\n";
  cs.push_back({"buffer_load_dword",
                structured_vsharp + "  buffer_load_dword v32, v0, s[60:63], s64 idxen offset:4\n  s_waitcnt vmcnt(0)\n",
                [](State& s) {
                  for (int l = 0; l < kLanes; ++l)
                    vo(s, 0, l) = l < 40 ? s.mem[static_cast<std::size_t>((8192 + 12 * l + 4) / 4)] : 0u;
                }});
  cs.push_back({"buffer_store_dword",
                structured_vsharp + "  buffer_store_dword v10, v0, s[60:63], s64 idxen offset:4\n  s_waitcnt vmcnt(0)\n",
                [](State& s) {
                  for (int l = 0; l < 40; ++l)
                    s.mem[static_cast<std::size_t>((8192 + 12 * l + 4) / 4)] = s.vin[0][static_cast<std::size_t>(l)];
                }});

  // Cache control: no architectural effect; a store before and a load after see plain memory.
  for (const char* op : {"buffer_inv sc0 sc1", "buffer_wbl2 sc0 sc1", "buffer_wbinvl1_vol"}) {
    const std::string m = std::string(op).substr(0, std::string(op).find(' '));
    cs.push_back({m,
                  std::string("  global_store_dword v94, v10, s[6:7]\n  ") + op +
                      "\n  global_load_dword v32, v94, s[6:7] offset:256\n  global_load_dword v33, v94, s[6:7]\n  s_waitcnt vmcnt(0)\n",
                  [](State& s) {
                    for (int l = 0; l < kLanes; ++l) {
                      s.mem[static_cast<std::size_t>(l)] = vi(s, 0, l);
                      vo(s, 0, l) = s.mem[static_cast<std::size_t>(64 + l)];
                      vo(s, 1, l) = vi(s, 0, l);
                    }
                  }});
  }
}

}  // namespace cdna::simulator::directed
