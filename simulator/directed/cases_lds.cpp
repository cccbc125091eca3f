// DS (LDS) cases: reads/writes of every width (d16 and d16_hi forms, read2/write2 and their st64
// forms), LDS atomics with and without return, lane permutes, ds_nop. Models follow the CDNA3
// ISA guide, chapter "Local Data Share" (DS opcode pseudo-code), written for the tests.
//
// Every body first writes the 4 KiB LDS image of lds_model.hpp and reads only bytes it wrote.
// M0 is left as the harness sets it: gfx9 DS instructions do not use M0 as an LDS limit
// (LLVM AMDGPUSubtarget::ldsRequiresM0Init() is true only before gfx9).
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>

#include "simulator/directed/cases.hpp"
#include "simulator/directed/lds_model.hpp"

namespace cdna::simulator::directed {
namespace {

u32 sext(u32 v, int bits) { return static_cast<u32>(static_cast<i32>(v << (32 - bits)) >> (32 - bits)); }

// ---- reads ----
enum class Ext { Zext, Sext, D16LoZ, D16LoS, D16HiZ, D16HiS };

u32 place(u32 old, u32 raw, int bytes, Ext e) {
  const int bits = 8 * bytes;
  switch (e) {
    case Ext::Zext: return raw;
    case Ext::Sext: return sext(raw, bits);
    case Ext::D16LoZ: return (old & 0xffff0000u) | (raw & 0xffffu);
    case Ext::D16LoS: return (old & 0xffff0000u) | (sext(raw, bits) & 0xffffu);
    case Ext::D16HiZ: return (old & 0xffffu) | (raw << 16);
    case Ext::D16HiS: return (old & 0xffffu) | (sext(raw, bits) << 16);
  }
  return raw;
}

// Narrow read: four reads into v32..v35 at the given offsets (crossing the image's regions).
void narrow_read(std::vector<Case>& cs, const char* m, int bytes, Ext e, bool masked) {
  const int offs[4] = {bytes == 1 ? 1 : 0, 6, bytes == 1 ? 1031 : 1034, bytes == 1 ? 3071 : 3070};
  std::string body = prefill() + "  s_waitcnt lgkmcnt(0)\n" + (masked ? kMaskOn : "");
  for (int j = 0; j < 4; ++j)
    body += std::string("  ") + m + " v" + std::to_string(32 + j) + ", v64 offset:" + std::to_string(offs[j]) + "\n";
  body += std::string(masked ? kMaskOff : "") + "  s_waitcnt lgkmcnt(0)\n";
  cs.push_back({m, body, [=](State& s) {
                  Lds lds;
                  prefill_model(s, lds);
                  const u64 mask = masked ? mask_of(s) : ~0ull;
                  for (int l = 0; l < kLanes; ++l)
                    for (int j = 0; j < 4; ++j)
                      if (on(mask, l))
                        vo(s, j, l) = place(vo(s, j, l), static_cast<u32>(lds.rd(addr(l) + static_cast<u32>(offs[j]), bytes)), bytes, e);
                },
                Values::Int, masked ? std::function<void(State&)>(mixed_mask) : nullptr});
}

// Wide read of `dwords` words into v32.. (and a second one into v36..) at two offsets.
void wide_read(std::vector<Case>& cs, const char* m, int dwords, int off0, int off1) {
  auto reg = [&](int first) {
    return dwords == 1 ? "v" + std::to_string(first)
                       : "v[" + std::to_string(first) + ":" + std::to_string(first + dwords - 1) + "]";
  };
  std::string body = prefill() + "  s_waitcnt lgkmcnt(0)\n";
  body += std::string("  ") + m + " " + reg(32) + ", v64 offset:" + std::to_string(off0) + "\n";
  body += std::string("  ") + m + " " + reg(36) + ", v64 offset:" + std::to_string(off1) + "\n  s_waitcnt lgkmcnt(0)\n";
  cs.push_back({m, body, [=](State& s) {
                  Lds lds;
                  prefill_model(s, lds);
                  for (int l = 0; l < kLanes; ++l)
                    for (int d = 0; d < dwords; ++d) {
                      vo(s, d, l) = static_cast<u32>(lds.rd(addr(l) + static_cast<u32>(off0 + 4 * d), 4));
                      vo(s, 4 + d, l) = static_cast<u32>(lds.rd(addr(l) + static_cast<u32>(off1 + 4 * d), 4));
                    }
                }});
}

// read2: two elements of `dwords` words at addr + off0*unit and addr + off1*unit.
void read2(std::vector<Case>& cs, const char* m, int dwords, int unit, int off0, int off1) {
  const std::string dst = "v[32:" + std::to_string(31 + 2 * dwords) + "]";
  std::string body = prefill() + "  s_waitcnt lgkmcnt(0)\n  " + m + " " + dst + ", v64 offset0:" +
                     std::to_string(off0) + " offset1:" + std::to_string(off1) + "\n  s_waitcnt lgkmcnt(0)\n";
  cs.push_back({m, body, [=](State& s) {
                  Lds lds;
                  prefill_model(s, lds);
                  for (int l = 0; l < kLanes; ++l)
                    for (int d = 0; d < dwords; ++d) {
                      vo(s, d, l) = static_cast<u32>(lds.rd(addr(l) + static_cast<u32>(off0 * unit + 4 * d), 4));
                      vo(s, dwords + d, l) = static_cast<u32>(lds.rd(addr(l) + static_cast<u32>(off1 * unit + 4 * d), 4));
                    }
                }});
}

// ---- writes: `ops` are the body lines, `model` performs them on the model LDS for lane l ----
void write_case(std::vector<Case>& cs, const char* m, const std::string& ops, bool masked,
                std::function<void(const State&, Lds&, int)> model) {
  ds_case(cs, m, ops, masked, [model](State& s, Lds& lds, int l) { model(s, lds, l); });
}

// ---- atomics ----
using Op = std::function<u32(u32 mem, u32 data)>;

// No return: every lane updates word (lane & 15) of region 1, four lanes per word, in lane order
// (the integer ops are order-independent, so any hardware order gives the same words).
void atomic_noret(std::vector<Case>& cs, const char* m, Op op) {
  write_case(cs, m, std::string("  ") + m + " v65, v16 offset:1024\n", false,
             [op](const State& s, Lds& lds, int l) {
               const u32 a = 1024u + 4u * static_cast<u32>(l & 15);
               lds.wr(a, op(static_cast<u32>(lds.rd(a, 4)), vi(s, 6, l)), 4);
             });
}

// Return: each lane its own word (offset 4 of its region-0 bytes), under the mask s[16:17];
// v32 gets the old word. `cmpst`: ds_cmpst_rtn_b32 (DATA0 = compare value v15, DATA1 = new v16).
void atomic_rtn(std::vector<Case>& cs, const char* m, Op op, Values values = Values::Int,
                std::function<void(State&)> init = nullptr) {
  const std::string ops = std::string("  ") + m + " v32, v64, v16 offset:4\n";
  const std::string body = prefill() + "  s_waitcnt lgkmcnt(0)\n" + kMaskOn + ops + kMaskOff + kReadBack;
  cs.push_back({m, body, [op](State& s) {
                  Lds lds;
                  prefill_model(s, lds);
                  const u64 mask = mask_of(s);
                  for (int l = 0; l < kLanes; ++l) {
                    if (!on(mask, l)) continue;
                    const u32 old = static_cast<u32>(lds.rd(addr(l) + 4, 4));
                    vo(s, 0, l) = old;
                    lds.wr(addr(l) + 4, op(old, vi(s, 6, l)), 4);
                  }
                  read_back_model(s, lds);
                },
                values, [init](State& s) {
                  mixed_mask(s);
                  if (init) init(s);
                }});
}

float f32(u32 v) { return std::bit_cast<float>(v); }
u32 bits(float f) { return std::bit_cast<u32>(f); }

// f32 LDS atomics: inputs made finite and normal (or +-0) with magnitudes >= 2^-60, so that no
// sum is a denormal: the LDS denormal handling of ds_add_f32 is not what these cases test.
// `no_neg_zero`: -0 becomes 1.0 (min/max of +0 and -0 is unspecified in IEEE minNum/maxNum).
void sane_f32(State& s, bool no_neg_zero) {
  for (auto& reg : s.vin)
    for (auto& w : reg) {
      const float f = f32(w);
      if (!std::isfinite(f) || (f != 0.0f && std::fabs(f) < 0x1p-60f)) w = bits(std::ldexp(1.0f + static_cast<float>(w & 0xff) / 256.0f, static_cast<int>(w % 40) - 20));
      if (no_neg_zero && w == 0x80000000u) w = bits(1.0f);
    }
}

// f32 without return: each lane its own word (offset 4), full EXEC.
void atomic_noret_f32(std::vector<Case>& cs, const char* m, Op op, bool no_neg_zero) {
  cs.push_back({m, prefill() + "  s_waitcnt lgkmcnt(0)\n  " + m + " v64, v16 offset:4\n" + kReadBack,
                [op](State& s) {
                  Lds lds;
                  prefill_model(s, lds);
                  for (int l = 0; l < kLanes; ++l)
                    lds.wr(addr(l) + 4, op(static_cast<u32>(lds.rd(addr(l) + 4, 4)), vi(s, 6, l)), 4);
                  read_back_model(s, lds);
                },
                Values::F32, [no_neg_zero](State& s) { sane_f32(s, no_neg_zero); }});
}

u32 fadd(u32 a, u32 b) { return bits(f32(a) + f32(b)); }
u32 fmin(u32 a, u32 b) { return f32(b) < f32(a) ? b : a; }
u32 fmax(u32 a, u32 b) { return f32(b) > f32(a) ? b : a; }

// ds_bpermute_b32 / ds_permute_b32: the lane index is bits [7:2] of (address + offset).
// Source lanes that are inactive read as 0; ds_permute: lanes no active lane writes get 0, and
// of several writers the highest lane wins (ISA guide DS_PERMUTE_B32/DS_BPERMUTE_B32 pseudo-code).
int lane_of(u32 a, u32 off) { return static_cast<int>(((a + off) >> 2) & 63u); }

void permutes(std::vector<Case>& cs) {
  for (const bool masked : {false, true}) {
    const std::string pre = prefill() + "  s_waitcnt lgkmcnt(0)\n" + (masked ? kMaskOn : "");
    const std::string post = std::string(masked ? kMaskOff : "") + "  s_waitcnt lgkmcnt(0)\n";
    std::function<void(State&)> init = masked ? std::function<void(State&)>(mixed_mask) : nullptr;
    cs.push_back({"ds_bpermute_b32", pre + "  ds_bpermute_b32 v32, v10, v11 offset:8\n  ds_bpermute_b32 v33, v12, v13\n" + post,
                  [masked](State& s) {
                    const u64 mask = masked ? mask_of(s) : ~0ull;
                    auto src = [&](int k, int j) { return on(mask, j) ? vi(s, k, j) : 0u; };
                    for (int l = 0; l < kLanes; ++l) {
                      if (!on(mask, l)) continue;
                      vo(s, 0, l) = src(1, lane_of(vi(s, 0, l), 8));
                      vo(s, 1, l) = src(3, lane_of(vi(s, 2, l), 0));
                    }
                  },
                  Values::Int, init});
    cs.push_back({"ds_permute_b32", pre + "  ds_permute_b32 v32, v10, v11 offset:4\n  ds_permute_b32 v33, v12, v13\n" + post,
                  [masked](State& s) {
                    const u64 mask = masked ? mask_of(s) : ~0ull;
                    for (int r = 0; r < 2; ++r) {
                      Lanes tmp{};
                      for (int l = 0; l < kLanes; ++l)  // increasing lane order: the highest writer wins
                        if (on(mask, l)) tmp[static_cast<std::size_t>(lane_of(vi(s, 2 * r, l), r == 0 ? 4 : 0))] = vi(s, 2 * r + 1, l);
                      for (int l = 0; l < kLanes; ++l)
                        if (on(mask, l)) vo(s, r, l) = tmp[static_cast<std::size_t>(l)];
                    }
                  },
                  Values::Int, init});
  }
}

}  // namespace

void add_lds_cases(std::vector<Case>& cs) {
  // ds_swizzle_b32 (ISA guide DS_SWIZZLE_B32; LLVM's swizzle() syntax): each line's source lane
  // written out for its pattern; the last one under a partial EXEC (an inactive source gives 0).
  cs.push_back({"ds_swizzle_b32",
                "  ds_swizzle_b32 v32, v10 offset:swizzle(QUAD_PERM,1,2,3,0)\n"
                "  ds_swizzle_b32 v33, v10 offset:swizzle(SWAP,1)\n"
                "  ds_swizzle_b32 v34, v10 offset:swizzle(REVERSE,8)\n"
                "  ds_swizzle_b32 v35, v10 offset:swizzle(BROADCAST,16,5)\n"
                "  ds_swizzle_b32 v36, v10 offset:swizzle(BITMASK_PERM,\"01pip\")\n"
                "  ds_swizzle_b32 v37, v10 offset:0xe001\n"
                "  s_mov_b64 exec, s[16:17]\n"
                "  ds_swizzle_b32 v38, v10 offset:swizzle(SWAP,16)\n"
                "  s_waitcnt lgkmcnt(0)\n",
                [](State& s) {
                  const auto& d = s.vin[0];
                  const auto at = [&](int src) { return d[static_cast<std::size_t>(src)]; };
                  static const int quad[4] = {1, 2, 3, 0};
                  for (int l = 0; l < kLanes; ++l) {
                    vo(s, 0, l) = at((l & ~3) | quad[l & 3]);
                    vo(s, 1, l) = at(l ^ 1);
                    vo(s, 2, l) = at(l ^ 7);
                    vo(s, 3, l) = at((l & ~15) | 5);
                    vo(s, 4, l) = at((l & 32) | 8 | (l & 4) | (~l & 2) | (l & 1));
                    vo(s, 5, l) = at((l & ~3) | ((l & 3) == 0 ? 1 : 0));
                  }
                  s.exec = sgpr_pair(s, 0);
                  for (int l = 0; l < kLanes; ++l)
                    if (s.active(l)) vo(s, 6, l) = s.active(l ^ 16) ? at(l ^ 16) : 0u;
                }});
  // Narrow reads (8/16 bits, zero/sign extension, d16 low/high halves).
  narrow_read(cs, "ds_read_u8", 1, Ext::Zext, false);
  narrow_read(cs, "ds_read_i8", 1, Ext::Sext, true);
  narrow_read(cs, "ds_read_u16", 2, Ext::Zext, false);
  narrow_read(cs, "ds_read_i16", 2, Ext::Sext, false);
  narrow_read(cs, "ds_read_u8_d16", 1, Ext::D16LoZ, false);
  narrow_read(cs, "ds_read_u8_d16_hi", 1, Ext::D16HiZ, true);
  narrow_read(cs, "ds_read_i8_d16", 1, Ext::D16LoS, false);
  narrow_read(cs, "ds_read_i8_d16_hi", 1, Ext::D16HiS, false);
  narrow_read(cs, "ds_read_u16_d16", 2, Ext::D16LoZ, true);
  narrow_read(cs, "ds_read_u16_d16_hi", 2, Ext::D16HiZ, false);
  // Wide reads.
  wide_read(cs, "ds_read_b32", 1, 4, 3076);
  wide_read(cs, "ds_read_b64", 2, 8, 2056);
  wide_read(cs, "ds_read_b96", 3, 0, 1024);
  wide_read(cs, "ds_read_b128", 4, 0, 3072);
  // read2: offsets in elements (4/8 bytes) or, st64, in 64 elements (256/512 bytes).
  read2(cs, "ds_read2_b32", 1, 4, 1, 255);
  read2(cs, "ds_read2_b64", 2, 8, 1, 255);
  read2(cs, "ds_read2st64_b32", 1, 256, 1, 11);
  read2(cs, "ds_read2st64_b64", 2, 512, 0, 5);

  // Writes; the read-back covers the whole 4 KiB image, so a stray byte is seen.
  auto w = [](int k, int l, const State& s) { return vi(s, k, l); };
  write_case(cs, "ds_write_b8", "  ds_write_b8 v64, v16 offset:5\n  ds_write_b8 v64, v17 offset:3074\n", false,
             [w](const State& s, Lds& m, int l) { m.wr(addr(l) + 5, w(6, l, s), 1); m.wr(addr(l) + 3074, w(7, l, s), 1); });
  write_case(cs, "ds_write_b16", "  ds_write_b16 v64, v16 offset:2\n  ds_write_b16 v64, v17 offset:3078\n", true,
             [w](const State& s, Lds& m, int l) { m.wr(addr(l) + 2, w(6, l, s), 2); m.wr(addr(l) + 3078, w(7, l, s), 2); });
  write_case(cs, "ds_write_b32", "  ds_write_b32 v64, v16 offset:4\n  ds_write_b32 v64, v17 offset:2060\n", true,
             [w](const State& s, Lds& m, int l) { m.wr(addr(l) + 4, w(6, l, s), 4); m.wr(addr(l) + 2060, w(7, l, s), 4); });
  write_case(cs, "ds_write_b64", "  ds_write_b64 v64, v[16:17] offset:8\n  ds_write_b64 v64, v[14:15] offset:1024\n", false,
             [w](const State& s, Lds& m, int l) {
               for (int d = 0; d < 2; ++d) { m.wr(addr(l) + 8 + 4u * d, w(6 + d, l, s), 4); m.wr(addr(l) + 1024 + 4u * d, w(4 + d, l, s), 4); }
             });
  write_case(cs, "ds_write_b96", "  ds_write_b96 v64, v[14:16]\n  ds_write_b96 v64, v[10:12] offset:2048\n", false,
             [w](const State& s, Lds& m, int l) {
               for (int d = 0; d < 3; ++d) { m.wr(addr(l) + 4u * d, w(4 + d, l, s), 4); m.wr(addr(l) + 2048 + 4u * d, w(d, l, s), 4); }
             });
  write_case(cs, "ds_write_b128", "  ds_write_b128 v64, v[14:17]\n  ds_write_b128 v64, v[10:13] offset:3072\n", true,
             [w](const State& s, Lds& m, int l) {
               for (int d = 0; d < 4; ++d) { m.wr(addr(l) + 4u * d, w(4 + d, l, s), 4); m.wr(addr(l) + 3072 + 4u * d, w(d, l, s), 4); }
             });
  write_case(cs, "ds_write_b8_d16_hi", "  ds_write_b8_d16_hi v64, v16 offset:7\n  ds_write_b8_d16_hi v64, v17 offset:2049\n", false,
             [w](const State& s, Lds& m, int l) { m.wr(addr(l) + 7, w(6, l, s) >> 16, 1); m.wr(addr(l) + 2049, w(7, l, s) >> 16, 1); });
  write_case(cs, "ds_write_b16_d16_hi", "  ds_write_b16_d16_hi v64, v16 offset:6\n  ds_write_b16_d16_hi v64, v17 offset:1034\n", false,
             [w](const State& s, Lds& m, int l) { m.wr(addr(l) + 6, w(6, l, s) >> 16, 2); m.wr(addr(l) + 1034, w(7, l, s) >> 16, 2); });
  write_case(cs, "ds_write2_b32", "  ds_write2_b32 v64, v16, v17 offset0:1 offset1:255\n", false,
             [w](const State& s, Lds& m, int l) { m.wr(addr(l) + 4, w(6, l, s), 4); m.wr(addr(l) + 1020, w(7, l, s), 4); });
  write_case(cs, "ds_write2_b64", "  ds_write2_b64 v64, v[14:15], v[16:17] offset0:1 offset1:255\n", true,
             [w](const State& s, Lds& m, int l) {
               for (int d = 0; d < 2; ++d) { m.wr(addr(l) + 8 + 4u * d, w(4 + d, l, s), 4); m.wr(addr(l) + 2040 + 4u * d, w(6 + d, l, s), 4); }
             });
  write_case(cs, "ds_write2st64_b32", "  ds_write2st64_b32 v64, v16, v17 offset0:1 offset1:11\n", false,
             [w](const State& s, Lds& m, int l) { m.wr(addr(l) + 256, w(6, l, s), 4); m.wr(addr(l) + 2816, w(7, l, s), 4); });
  write_case(cs, "ds_write2st64_b64", "  ds_write2st64_b64 v64, v[14:15], v[16:17] offset0:0 offset1:5\n", false,
             [w](const State& s, Lds& m, int l) {
               for (int d = 0; d < 2; ++d) { m.wr(addr(l) + 4u * d, w(4 + d, l, s), 4); m.wr(addr(l) + 2560 + 4u * d, w(6 + d, l, s), 4); }
             });

  // Integer atomics (ISA guide DS_ADD_U32 ... DS_XOR_B32; DS_*_RTN_* return the old word).
  struct IntOp { const char* noret; const char* rtn; Op op; };
  const IntOp ops[] = {
      {"ds_add_u32", "ds_add_rtn_u32", [](u32 a, u32 d) { return a + d; }},
      {"ds_sub_u32", "ds_sub_rtn_u32", [](u32 a, u32 d) { return a - d; }},
      {"ds_min_i32", "ds_min_rtn_i32", [](u32 a, u32 d) { return static_cast<i32>(d) < static_cast<i32>(a) ? d : a; }},
      {"ds_max_i32", "ds_max_rtn_i32", [](u32 a, u32 d) { return static_cast<i32>(d) > static_cast<i32>(a) ? d : a; }},
      {"ds_min_u32", "ds_min_rtn_u32", [](u32 a, u32 d) { return d < a ? d : a; }},
      {"ds_max_u32", "ds_max_rtn_u32", [](u32 a, u32 d) { return d > a ? d : a; }},
      {"ds_and_b32", "ds_and_rtn_b32", [](u32 a, u32 d) { return a & d; }},
      {"ds_or_b32", "ds_or_rtn_b32", [](u32 a, u32 d) { return a | d; }},
      {"ds_xor_b32", "ds_xor_rtn_b32", [](u32 a, u32 d) { return a ^ d; }},
  };
  for (const auto& o : ops) {
    atomic_noret(cs, o.noret, o.op);
    atomic_rtn(cs, o.rtn, o.op);
  }
  atomic_rtn(cs, "ds_wrxchg_rtn_b32", [](u32, u32 d) { return d; });
  {
    // ds_cmpst_rtn_b32 vdst, addr, cmp(v15), new(v16): MEM = (MEM == cmp) ? new : MEM. Even
    // lanes compare equal (init copies the image word into v15).
    const std::string body = prefill() + "  s_waitcnt lgkmcnt(0)\n" + kMaskOn +
                             "  ds_cmpst_rtn_b32 v32, v64, v15, v16 offset:4\n" + kMaskOff + kReadBack;
    cs.push_back({"ds_cmpst_rtn_b32", body, [](State& s) {
                    Lds lds;
                    prefill_model(s, lds);
                    const u64 mask = mask_of(s);
                    for (int l = 0; l < kLanes; ++l) {
                      if (!on(mask, l)) continue;
                      const u32 old = static_cast<u32>(lds.rd(addr(l) + 4, 4));
                      vo(s, 0, l) = old;
                      if (old == vi(s, 5, l)) lds.wr(addr(l) + 4, vi(s, 6, l), 4);
                    }
                    read_back_model(s, lds);
                  },
                  Values::Int, [](State& s) {
                    mixed_mask(s);
                    for (int l = 0; l < kLanes; l += 2) s.vin[5][static_cast<std::size_t>(l)] = s.vin[1][static_cast<std::size_t>(l)];
                  }});
  }

  // f32 atomics: round to nearest even (IEEE add), min/max by value.
  atomic_noret_f32(cs, "ds_add_f32", fadd, false);
  atomic_noret_f32(cs, "ds_min_f32", fmin, true);
  atomic_noret_f32(cs, "ds_max_f32", fmax, true);
  atomic_rtn(cs, "ds_add_rtn_f32", fadd, Values::F32, [](State& s) { sane_f32(s, false); });
  atomic_rtn(cs, "ds_min_rtn_f32", fmin, Values::F32, [](State& s) { sane_f32(s, true); });
  atomic_rtn(cs, "ds_max_rtn_f32", fmax, Values::F32, [](State& s) { sane_f32(s, true); });

  permutes(cs);

  // ds_nop: no architectural effect (the image written before it reads back unchanged).
  cs.push_back({"ds_nop", prefill() + "  ds_nop\n" + kReadBack, [](State& s) {
                  Lds lds;
                  prefill_model(s, lds);
                  read_back_model(s, lds);
                }});
}

}  // namespace cdna::simulator::directed
