// SOP2/SOP1/SOPC/SOPK/SOPP and SMEM cases. Models follow the CDNA3 ISA guide, chapter 4
// ("Scalar ALU Operations"), chapter 5 (scalar memory) and the per-opcode pseudo-code of
// chapter 12, written for the tests (not taken from simulator/exec/scalar.cpp).
//
// Frame (harness.hpp): inputs s16..s31 (VCC = s[30:31], M0 = s29, SCC = s28 bit 0 at body start,
// EXEC = all lanes), outputs s40..s55, scratch s56..s87. Most cases write the results of up to
// eight instances of the instruction (different operand kinds: SGPRs, VCC/M0, inline integer and
// float constants, literals) and record SCC after each one with `s_cselect_b32 sN, 1, 0`, so an
// instruction that must leave SCC alone is checked too. Cases whose instruction reads SCC
// (addc/subb/cselect/cmov) first set SCC to 1, 0, 1, ... with `s_cmp_eq_u32 0, 0|1`.
#include <bit>
#include <string>

#include "simulator/directed/cases.hpp"

namespace cdna::simulator::directed {
namespace {

// ---------------------------------------------------------------- operands

// An operand as written in the assembly, and its value in the initial state.
struct Src {
  std::string text;
  std::function<u64(const State&)> value;
};

Src sreg(int r) {  // s16..s31
  return {"s" + std::to_string(r), [r](const State& s) { return u64{s.sin[static_cast<std::size_t>(r - 16)]}; }};
}
Src spair(int r) {  // s[r:r+1], r even in 16..30
  return {"s[" + std::to_string(r) + ":" + std::to_string(r + 1) + "]",
          [r](const State& s) { return sgpr_pair(s, r - 16); }};
}
Src imm(const std::string& text, u64 v) {
  return {text, [v](const State&) { return v; }};
}
const Src kM0{"m0", [](const State& s) { return u64{s.m0}; }};
const Src kVccHi{"vcc_hi", [](const State& s) { return s.vcc >> 32; }};
const Src kVcc{"vcc", [](const State& s) { return s.vcc; }};
const Src kExec{"exec", [](const State& s) { return s.exec; }};

// Inline constants (ISA guide §3.? "Scalar operands"): integers -16..64 (64-bit operands: sign-
// extended to 64 bits); f32 constants such as 0.5 are their IEEE bit pattern for 32-bit integer
// operands. The 32-bit literal is only used with bit 31 clear for 64-bit operands (the extension
// rule for a literal with bit 31 set is not stated by the guide).
const u64 kMinus5 = static_cast<u64>(-5);

u32 lo(u64 v) { return static_cast<u32>(v); }
u32 sx8(u32 v) { return static_cast<u32>(static_cast<i32>(static_cast<std::int8_t>(v & 0xffu))); }
u32 sx16(u32 v) { return static_cast<u32>(static_cast<i32>(static_cast<std::int16_t>(v & 0xffffu))); }
i32 as_i(u32 v) { return static_cast<i32>(v); }
i64 as_i64(u64 v) { return static_cast<i64>(v); }

// SCC pattern for instructions that read SCC: before instance i, SCC = i % 2.
std::string set_scc(int i) { return std::string("  s_cmp_eq_u32 0, ") + (i % 2 ? "0" : "1") + "\n"; }
std::string capture_scc(int reg) { return "  s_cselect_b32 s" + std::to_string(reg) + ", 1, 0\n"; }

void put(State& s, int reg, u32 v) { s.sout[static_cast<std::size_t>(reg - 40)] = v; }
void put64(State& s, int reg, u64 v) {
  put(s, reg, lo(v));
  put(s, reg + 1, static_cast<u32>(v >> 32));
}
u32 out(const State& s, int reg) { return s.sout[static_cast<std::size_t>(reg - 40)]; }

// ---------------------------------------------------------------- SOP2

using Op32 = std::function<u32(u32, u32, bool&)>;
using Op64 = std::function<u64(u64, u64, bool&)>;

// Operand pairs of the 32-bit SOP2 cases; sop2_init fixes s20..s23 to overflow edges.
std::vector<std::pair<Src, Src>> pairs32() {
  return {{sreg(16), sreg(17)},           {sreg(18), sreg(18)},
          {sreg(20), sreg(21)},           {sreg(22), sreg(23)},
          {sreg(24), imm("-1", 0xffffffffu)}, {imm("0x12345678", 0x12345678u), sreg(25)},
          {imm("64", 64u), imm("0.5", 0x3f000000u)}, {kVccHi, kM0}};
}
void sop2_init(State& s) {
  s.sin[4] = 0x7fffffffu;  // s20 + s21: signed overflow, s20 - s21 none
  s.sin[5] = 1u;
  s.sin[6] = 0x80000000u;  // s22 - s23: signed overflow; + : none
  s.sin[7] = 1u;
}

// Eight instances `m s(40+i), a, b`; SCC recorded in s(48+i).
void sop2_32(std::vector<Case>& cs, const std::string& m, Op32 f, bool reads_scc = false) {
  const auto ps = pairs32();
  std::string body;
  for (int i = 0; i < 8; ++i) {
    if (reads_scc) body += set_scc(i);
    body += "  " + m + " s" + std::to_string(40 + i) + ", " + ps[static_cast<std::size_t>(i)].first.text + ", " +
            ps[static_cast<std::size_t>(i)].second.text + "\n" + capture_scc(48 + i);
  }
  cs.push_back({m, body,
                [f, ps, reads_scc](State& s) {
                  const State in = s;
                  for (int i = 0; i < 8; ++i) {
                    if (reads_scc) s.scc = i % 2;
                    bool scc = s.scc;
                    const auto& p = ps[static_cast<std::size_t>(i)];
                    put(s, 40 + i, f(lo(p.first.value(in)), lo(p.second.value(in)), scc));
                    s.scc = scc;
                    put(s, 48 + i, s.scc ? 1u : 0u);
                  }
                },
                Values::Int, sop2_init});
}

// Four instances `m s[40+2i:41+2i], a, b` with 64-bit (or 32-bit, for shift amounts and
// bit-field controls) sources; SCC recorded in s(48+i).
void sop2_64(std::vector<Case>& cs, const std::string& m, Op64 f, std::vector<std::pair<Src, Src>> ps,
             bool reads_scc = false, std::function<void(State&)> init = nullptr) {
  std::string body;
  for (int i = 0; i < 4; ++i) {
    if (reads_scc) body += set_scc(i);
    body += "  " + m + " s[" + std::to_string(40 + 2 * i) + ":" + std::to_string(41 + 2 * i) + "], " +
            ps[static_cast<std::size_t>(i)].first.text + ", " + ps[static_cast<std::size_t>(i)].second.text +
            "\n" + capture_scc(48 + i);
  }
  cs.push_back({m, body,
                [f, ps, reads_scc](State& s) {
                  const State in = s;
                  for (int i = 0; i < 4; ++i) {
                    if (reads_scc) s.scc = i % 2;
                    bool scc = s.scc;
                    const auto& p = ps[static_cast<std::size_t>(i)];
                    put64(s, 40 + 2 * i, f(p.first.value(in), p.second.value(in), scc));
                    s.scc = scc;
                    put(s, 48 + i, s.scc ? 1u : 0u);
                  }
                },
                Values::Int, std::move(init)});
}

std::vector<std::pair<Src, Src>> pairs64() {
  return {{spair(16), spair(18)}, {spair(20), imm("-5", kMinus5)},
          {imm("0x12345678", 0x12345678u), spair(22)}, {kVcc, spair(24)}};
}
std::vector<std::pair<Src, Src>> pairs64_32() {  // 64-bit value, 32-bit shift amount / control
  return {{spair(16), sreg(18)}, {spair(20), sreg(22)}, {spair(24), imm("63", 63u)}, {imm("-5", kMinus5), sreg(26)}};
}

// Bit-field extract (guide: S1[4:0] (64-bit: S1[5:0]) offset, S1[22:16] width; the _i forms
// sign-extend the field from bit width-1 after an arithmetic shift). Widths >= the operand
// size are not used: the guide's `(1 << width) - 1` leaves them open.
u64 bfe(u64 v, u32 ctl, int bits, bool sign) {
  const u32 off = ctl & (bits == 32 ? 31u : 63u);
  const u32 w = (ctl >> 16) & 0x7fu;
  u64 shifted;
  if (bits == 32) {
    shifted = sign ? static_cast<u64>(static_cast<u32>(as_i(lo(v)) >> off)) : u64{lo(v) >> off};
  } else {
    shifted = sign ? static_cast<u64>(as_i64(v) >> off) : v >> off;
  }
  if (w == 0) return 0;
  const u64 field = shifted & ((u64{1} << w) - 1);
  u64 r = field;
  if (sign && ((field >> (w - 1)) & 1)) r |= ~((u64{1} << w) - 1);
  return bits == 32 ? u64{lo(r)} : r;
}
// Controls: s17/s19/s21/s23 of the bfe cases (offset | width << 16), bits outside the fields set.
void bfe_init(State& s) {
  s.sin[1] = (8u << 16) | 4u;                // width 8 at 4
  s.sin[3] = 0xff800000u | (31u << 16) | 3u;  // width 31 at 3 (crosses bit 31), junk bits 31:23
  s.sin[5] = (5u << 16) | 30u;               // width 5 at 30 (crosses)
  s.sin[7] = 0xe0u;                          // width 0, offset 0 (junk bits 7:5)
  s.sin[2] = (40u << 16) | 20u;              // 64-bit: width 40 at 20 (crosses bit 63)
  s.sin[6] = (17u << 16) | 33u;              // 64-bit: width 17 at 33
  s.sin[10] = 0xff000000u | (63u << 16) | 1u;  // 64-bit: width 63 at 1
}

void add_sop2(std::vector<Case>& cs) {
  sop2_32(cs, "s_add_u32", [](u32 a, u32 b, bool& c) { c = (u64{a} + b) >> 32; return a + b; });
  sop2_32(cs, "s_sub_u32", [](u32 a, u32 b, bool& c) { c = b > a; return a - b; });
  sop2_32(cs, "s_add_i32", [](u32 a, u32 b, bool& c) {
    const i64 r = i64{as_i(a)} + as_i(b);
    c = r > INT32_MAX || r < INT32_MIN;
    return a + b;
  });
  sop2_32(cs, "s_sub_i32", [](u32 a, u32 b, bool& c) {
    const i64 r = i64{as_i(a)} - as_i(b);
    c = r > INT32_MAX || r < INT32_MIN;
    return a - b;
  });
  sop2_32(cs, "s_addc_u32", [](u32 a, u32 b, bool& c) {
    const u64 r = u64{a} + b + (c ? 1 : 0);
    c = r >> 32;
    return lo(r);
  }, true);
  sop2_32(cs, "s_subb_u32", [](u32 a, u32 b, bool& c) {
    const u64 sub = u64{b} + (c ? 1 : 0);
    c = sub > a;
    return lo(u64{a} - sub);
  }, true);
  // min/max: SCC = 1 when S0 is selected; the guide's pseudo-code selects S0 for min iff
  // S0 < S1 and for max iff S0 >= S1, so a tie (pair 1: s18, s18) gives SCC 0 / 1.
  sop2_32(cs, "s_min_i32", [](u32 a, u32 b, bool& c) { c = as_i(a) < as_i(b); return c ? a : b; });
  sop2_32(cs, "s_min_u32", [](u32 a, u32 b, bool& c) { c = a < b; return c ? a : b; });
  sop2_32(cs, "s_max_i32", [](u32 a, u32 b, bool& c) { c = as_i(a) >= as_i(b); return c ? a : b; });
  sop2_32(cs, "s_max_u32", [](u32 a, u32 b, bool& c) { c = a >= b; return c ? a : b; });
  sop2_32(cs, "s_cselect_b32", [](u32 a, u32 b, bool& c) { return c ? a : b; }, true);
  struct Logic { const char* name; u64 (*f)(u64, u64); };
  static const Logic logic[] = {
      {"and", [](u64 a, u64 b) { return a & b; }},   {"or", [](u64 a, u64 b) { return a | b; }},
      {"xor", [](u64 a, u64 b) { return a ^ b; }},   {"andn2", [](u64 a, u64 b) { return a & ~b; }},
      {"orn2", [](u64 a, u64 b) { return a | ~b; }}, {"nand", [](u64 a, u64 b) { return ~(a & b); }},
      {"nor", [](u64 a, u64 b) { return ~(a | b); }}, {"xnor", [](u64 a, u64 b) { return ~(a ^ b); }}};
  for (const auto& l : logic) {
    auto f = l.f;
    sop2_32(cs, std::string("s_") + l.name + "_b32", [f](u32 a, u32 b, bool& c) {
      const u32 r = lo(f(a, b));
      c = r != 0;
      return r;
    });
    sop2_64(cs, std::string("s_") + l.name + "_b64", [f](u64 a, u64 b, bool& c) {
      const u64 r = f(a, b);
      c = r != 0;
      return r;
    }, pairs64());
  }
  sop2_64(cs, "s_cselect_b64", [](u64 a, u64 b, bool& c) { return c ? a : b; }, pairs64(), true);
  sop2_32(cs, "s_lshl_b32", [](u32 a, u32 b, bool& c) { const u32 r = a << (b & 31); c = r != 0; return r; });
  sop2_32(cs, "s_lshr_b32", [](u32 a, u32 b, bool& c) { const u32 r = a >> (b & 31); c = r != 0; return r; });
  sop2_32(cs, "s_ashr_i32", [](u32 a, u32 b, bool& c) {
    const u32 r = static_cast<u32>(as_i(a) >> (b & 31));
    c = r != 0;
    return r;
  });
  sop2_64(cs, "s_lshl_b64", [](u64 a, u64 b, bool& c) { const u64 r = a << (b & 63); c = r != 0; return r; }, pairs64_32());
  sop2_64(cs, "s_lshr_b64", [](u64 a, u64 b, bool& c) { const u64 r = a >> (b & 63); c = r != 0; return r; }, pairs64_32());
  sop2_64(cs, "s_ashr_i64", [](u64 a, u64 b, bool& c) {
    const u64 r = static_cast<u64>(as_i64(a) >> (b & 63));
    c = r != 0;
    return r;
  }, pairs64_32());
  // s_bfm: ((1 << S0[4:0]) - 1) << S1[4:0] (64-bit: [5:0]); SCC unchanged.
  sop2_32(cs, "s_bfm_b32", [](u32 a, u32 b, bool&) { return ((1u << (a & 31)) - 1) << (b & 31); });
  sop2_64(cs, "s_bfm_b64", [](u64 a, u64 b, bool&) { return ((u64{1} << (a & 63)) - 1) << (b & 63); },
          {{sreg(16), sreg(17)}, {sreg(18), sreg(19)}, {imm("63", 63u), sreg(20)}, {sreg(21), imm("1", 1u)}});
  sop2_32(cs, "s_mul_i32", [](u32 a, u32 b, bool&) { return a * b; });
  sop2_32(cs, "s_mul_hi_u32", [](u32 a, u32 b, bool&) { return static_cast<u32>((u64{a} * b) >> 32); });
  sop2_32(cs, "s_mul_hi_i32", [](u32 a, u32 b, bool&) {
    return static_cast<u32>(static_cast<u64>(i64{as_i(a)} * as_i(b)) >> 32);
  });
  // absdiff: the difference wraps to 32 bits, then its absolute value (|INT_MIN| = INT_MIN).
  sop2_32(cs, "s_absdiff_i32", [](u32 a, u32 b, bool& c) {
    const u32 d = a - b;
    const u32 r = as_i(d) < 0 ? 0u - d : d;
    c = r != 0;
    return r;
  });
  for (int n = 1; n <= 4; ++n) {
    sop2_32(cs, "s_lshl" + std::to_string(n) + "_add_u32", [n](u32 a, u32 b, bool& c) {
      const u64 r = (u64{a} << n) + b;  // SCC: the 64-bit result does not fit in 32 bits
      c = r >= (u64{1} << 32);
      return lo(r);
    });
  }
  sop2_32(cs, "s_pack_ll_b32_b16", [](u32 a, u32 b, bool&) { return (a & 0xffffu) | (b << 16); });
  sop2_32(cs, "s_pack_lh_b32_b16", [](u32 a, u32 b, bool&) { return (a & 0xffffu) | (b & 0xffff0000u); });
  sop2_32(cs, "s_pack_hh_b32_b16", [](u32 a, u32 b, bool&) { return (a >> 16) | (b & 0xffff0000u); });

  // Bit-field extracts with controlled controls (bfe_init) and literal controls.
  const std::vector<std::pair<Src, Src>> bfe32 = {
      {sreg(16), sreg(17)}, {sreg(18), sreg(19)}, {sreg(20), sreg(21)}, {sreg(22), sreg(23)},
      {imm("-7", 0xfffffff9u), imm("0x100010", 0x100010u)},
      {sreg(24), imm("0x1f0001", 0x1f0001u)}, {kM0, imm("0xff8a00e5", 0xff8a00e5u)}, {kVccHi, imm("0x10000", 0x10000u)}};
  for (bool sign : {false, true}) {
    const std::string m = sign ? "s_bfe_i32" : "s_bfe_u32";
    std::string body;
    for (int i = 0; i < 8; ++i)
      body += "  " + m + " s" + std::to_string(40 + i) + ", " + bfe32[static_cast<std::size_t>(i)].first.text + ", " +
              bfe32[static_cast<std::size_t>(i)].second.text + "\n" + capture_scc(48 + i);
    cs.push_back({m, body, [bfe32, sign](State& s) {
                    const State in = s;
                    for (int i = 0; i < 8; ++i) {
                      const auto& p = bfe32[static_cast<std::size_t>(i)];
                      const u32 r = lo(bfe(p.first.value(in), lo(p.second.value(in)), 32, sign));
                      put(s, 40 + i, r);
                      s.scc = r != 0;
                      put(s, 48 + i, s.scc ? 1u : 0u);
                    }
                  }, Values::Int, bfe_init});
    sop2_64(cs, sign ? "s_bfe_i64" : "s_bfe_u64",
            [sign](u64 a, u64 b, bool& c) { const u64 r = bfe(a, lo(b), 64, sign); c = r != 0; return r; },
            {{spair(16), sreg(18)}, {spair(20), sreg(22)}, {spair(24), sreg(26)},
             {imm("-5", kMinus5), imm("0xff8a00e5", 0xff8a00e5u)}},
            false, bfe_init);
  }
}

// ---------------------------------------------------------------- SOP1

using Un32 = std::function<u32(u64 src, u32 old, bool& scc)>;
using Un64 = std::function<u64(u64 src, u64 old, bool& scc)>;

std::vector<Src> srcs32() {
  return {sreg(16), sreg(17), sreg(18), sreg(19), sreg(20), imm("0", 0), imm("0x87654321", 0x87654321u), kM0};
}
std::vector<Src> srcs64() {
  return {spair(16), spair(18), spair(20), spair(22), imm("0", 0), imm("-1", ~0ull), kVcc,
          imm("0x7654321", 0x7654321u)};
}
// s20 = all ones, s[22:23]: only bit 48 set (first one in the high word).
void sop1_init(State& s) {
  s.sin[4] = 0xffffffffu;
  s.sin[6] = 0u;
  s.sin[7] = 0x00010000u;
}

// Eight instances `m s(40+i), src_i` (32-bit result; src 32- or 64-bit); SCC in s(48+i).
void sop1_32(std::vector<Case>& cs, const std::string& m, Un32 f, bool wide_src, bool reads_scc = false) {
  const auto srcs = wide_src ? srcs64() : srcs32();
  std::string body;
  for (int i = 0; i < 8; ++i) {
    if (reads_scc) body += set_scc(i);
    body += "  " + m + " s" + std::to_string(40 + i) + ", " + srcs[static_cast<std::size_t>(i)].text + "\n" +
            capture_scc(48 + i);
  }
  cs.push_back({m, body, [f, srcs, reads_scc](State& s) {
                  const State in = s;
                  for (int i = 0; i < 8; ++i) {
                    if (reads_scc) s.scc = i % 2;
                    bool scc = s.scc;
                    put(s, 40 + i, f(srcs[static_cast<std::size_t>(i)].value(in), out(s, 40 + i), scc));
                    s.scc = scc;
                    put(s, 48 + i, s.scc ? 1u : 0u);
                  }
                }, Values::Int, sop1_init});
}

// Five instances `m s[40+2i:41+2i], src_i` (64-bit result); SCC in s(50+i).
void sop1_64(std::vector<Case>& cs, const std::string& m, Un64 f, bool wide_src = true, bool reads_scc = false) {
  const std::vector<Src> srcs = wide_src ? std::vector<Src>{spair(16), spair(18), imm("0", 0), kVcc, spair(22)}
                                         : std::vector<Src>{sreg(16), sreg(17), imm("63", 63), kM0, sreg(18)};
  std::string body;
  for (int i = 0; i < 5; ++i) {
    if (reads_scc) body += set_scc(i);
    body += "  " + m + " s[" + std::to_string(40 + 2 * i) + ":" + std::to_string(41 + 2 * i) + "], " +
            srcs[static_cast<std::size_t>(i)].text + "\n" + capture_scc(50 + i);
  }
  cs.push_back({m, body, [f, srcs, reads_scc](State& s) {
                  const State in = s;
                  for (int i = 0; i < 5; ++i) {
                    if (reads_scc) s.scc = i % 2;
                    bool scc = s.scc;
                    const u64 old = out(s, 40 + 2 * i) | (u64{out(s, 41 + 2 * i)} << 32);
                    put64(s, 40 + 2 * i, f(srcs[static_cast<std::size_t>(i)].value(in), old, scc));
                    s.scc = scc;
                    put(s, 50 + i, s.scc ? 1u : 0u);
                  }
                }, Values::Int, sop1_init});
}

u64 wqm(u64 v) {
  u64 r = 0;
  for (int q = 0; q < 64; q += 4)
    if ((v >> q) & 0xf) r |= u64{0xf} << q;
  return r;
}
u64 brev(u64 v, int bits) {
  u64 r = 0;
  for (int b = 0; b < bits; ++b)
    if ((v >> b) & 1) r |= u64{1} << (bits - 1 - b);
  return r;
}
u32 first_one(u64 v, int bits) {  // from the LSB; -1 if none
  for (int b = 0; b < bits; ++b)
    if ((v >> b) & 1) return static_cast<u32>(b);
  return 0xffffffffu;
}
u32 leading_zeros(u64 v, int bits) {  // from the MSB; -1 if v == 0
  for (int b = bits - 1; b >= 0; --b)
    if ((v >> b) & 1) return static_cast<u32>(bits - 1 - b);
  return 0xffffffffu;
}
u32 leading_sign_bits(u64 v, int bits) {  // bits equal to the sign bit, from the MSB; -1 for 0 / -1
  const u64 sign = (v >> (bits - 1)) & 1;
  for (int b = bits - 1; b >= 0; --b)
    if (((v >> b) & 1) != sign) return static_cast<u32>(bits - 1 - b);
  return 0xffffffffu;
}
u64 mask(int bits) { return bits == 64 ? ~0ull : (u64{1} << bits) - 1; }

void add_sop1(std::vector<Case>& cs) {
  sop1_32(cs, "s_mov_b32", [](u64 v, u32, bool&) { return lo(v); }, false);
  sop1_64(cs, "s_mov_b64", [](u64 v, u64, bool&) { return v; });
  sop1_32(cs, "s_cmov_b32", [](u64 v, u32 old, bool& c) { return c ? lo(v) : old; }, false, true);
  sop1_64(cs, "s_cmov_b64", [](u64 v, u64 old, bool& c) { return c ? v : old; }, true, true);
  sop1_32(cs, "s_not_b32", [](u64 v, u32, bool& c) { const u32 r = ~lo(v); c = r != 0; return r; }, false);
  sop1_64(cs, "s_not_b64", [](u64 v, u64, bool& c) { const u64 r = ~v; c = r != 0; return r; });
  sop1_32(cs, "s_wqm_b32", [](u64 v, u32, bool& c) { const u32 r = lo(wqm(lo(v))); c = r != 0; return r; }, false);
  sop1_64(cs, "s_wqm_b64", [](u64 v, u64, bool& c) { const u64 r = wqm(v); c = r != 0; return r; });
  sop1_32(cs, "s_brev_b32", [](u64 v, u32, bool&) { return lo(brev(lo(v), 32)); }, false);
  sop1_64(cs, "s_brev_b64", [](u64 v, u64, bool&) { return brev(v, 64); });
  for (int bits : {32, 64}) {
    const bool w = bits == 64;
    const std::string b = w ? "_b64" : "_b32";
    sop1_32(cs, "s_bcnt0_i32" + b, [bits](u64 v, u32, bool& c) {
      const u32 r = static_cast<u32>(bits - std::popcount(v & mask(bits)));
      c = r != 0;
      return r;
    }, w);
    sop1_32(cs, "s_bcnt1_i32" + b, [bits](u64 v, u32, bool& c) {
      const u32 r = static_cast<u32>(std::popcount(v & mask(bits)));
      c = r != 0;
      return r;
    }, w);
    sop1_32(cs, "s_ff0_i32" + b, [bits](u64 v, u32, bool&) { return first_one(~v & mask(bits), bits); }, w);
    sop1_32(cs, "s_ff1_i32" + b, [bits](u64 v, u32, bool&) { return first_one(v & mask(bits), bits); }, w);
    sop1_32(cs, "s_flbit_i32" + b, [bits](u64 v, u32, bool&) { return leading_zeros(v & mask(bits), bits); }, w);
  }
  sop1_32(cs, "s_flbit_i32", [](u64 v, u32, bool&) { return leading_sign_bits(lo(v), 32); }, false);
  sop1_32(cs, "s_flbit_i32_i64", [](u64 v, u32, bool&) { return leading_sign_bits(v, 64); }, true);
  sop1_32(cs, "s_sext_i32_i8", [](u64 v, u32, bool&) { return sx8(lo(v)); }, false);
  sop1_32(cs, "s_sext_i32_i16", [](u64 v, u32, bool&) { return sx16(lo(v)); }, false);
  // bitset: D[S0[4:0]] (64-bit: D[S0[5:0]]) = 0/1, the rest of D (the output's preset) kept.
  sop1_32(cs, "s_bitset0_b32", [](u64 v, u32 old, bool&) { return old & ~(1u << (v & 31)); }, false);
  sop1_32(cs, "s_bitset1_b32", [](u64 v, u32 old, bool&) { return old | (1u << (v & 31)); }, false);
  sop1_64(cs, "s_bitset0_b64", [](u64 v, u64 old, bool&) { return old & ~(u64{1} << (v & 63)); }, false);
  sop1_64(cs, "s_bitset1_b64", [](u64 v, u64 old, bool&) { return old | (u64{1} << (v & 63)); }, false);
  sop1_32(cs, "s_abs_i32", [](u64 v, u32, bool& c) {
    const u32 r = as_i(lo(v)) < 0 ? 0u - lo(v) : lo(v);
    c = r != 0;
    return r;
  }, false);

  // saveexec: D = EXEC (set first to s[18:19]); EXEC = f(S0, EXEC); SCC = EXEC != 0. A VALU
  // move after it writes only the lanes of the new EXEC.
  struct Se { const char* name; u64 (*f)(u64 s0, u64 exec); bool wrexec; };
  static const Se se[] = {
      {"s_and_saveexec_b64", [](u64 a, u64 e) { return a & e; }, false},
      {"s_or_saveexec_b64", [](u64 a, u64 e) { return a | e; }, false},
      {"s_xor_saveexec_b64", [](u64 a, u64 e) { return a ^ e; }, false},
      {"s_andn2_saveexec_b64", [](u64 a, u64 e) { return a & ~e; }, false},
      {"s_orn2_saveexec_b64", [](u64 a, u64 e) { return a | ~e; }, false},
      {"s_nand_saveexec_b64", [](u64 a, u64 e) { return ~(a & e); }, false},
      {"s_nor_saveexec_b64", [](u64 a, u64 e) { return ~(a | e); }, false},
      {"s_xnor_saveexec_b64", [](u64 a, u64 e) { return ~(a ^ e); }, false},
      {"s_andn1_saveexec_b64", [](u64 a, u64 e) { return ~a & e; }, false},
      {"s_orn1_saveexec_b64", [](u64 a, u64 e) { return ~a | e; }, false},
      {"s_andn1_wrexec_b64", [](u64 a, u64 e) { return ~a & e; }, true},
      {"s_andn2_wrexec_b64", [](u64 a, u64 e) { return a & ~e; }, true},
  };
  for (const auto& x : se) {
    auto f = x.f;
    const bool wr = x.wrexec;
    const std::string m = x.name;
    cs.push_back({m,
                  "  s_mov_b64 exec, s[18:19]\n  " + m + " s[40:41], s[16:17]\n" + capture_scc(42) +
                      "  v_mov_b32 v32, v11\n"
                      "  s_mov_b64 exec, s[20:21]\n  " + m + " s[44:45], vcc\n" + capture_scc(46) +
                      "  v_mov_b32 v33, v12\n",
                  [f, wr](State& s) {
                    const State in = s;
                    auto step = [&](u64 exec0, u64 src, int d, int sc, int vo, int vi) {
                      s.exec = f(src, exec0);
                      put64(s, d, wr ? s.exec : exec0);
                      s.scc = s.exec != 0;
                      put(s, sc, s.scc ? 1u : 0u);
                      for_active(s, [&](int l) {
                        s.vout[static_cast<std::size_t>(vo)][static_cast<std::size_t>(l)] =
                            in.vin[static_cast<std::size_t>(vi)][static_cast<std::size_t>(l)];
                      });
                    };
                    step(sgpr_pair(in, 2), sgpr_pair(in, 0), 40, 42, 0, 1);
                    step(sgpr_pair(in, 4), in.vcc, 44, 46, 1, 2);
                  }});
  }
}

// ---------------------------------------------------------------- SOPC

void add_sopc(std::vector<Case>& cs) {
  const std::vector<std::pair<Src, Src>> ps = {
      {sreg(16), sreg(17)}, {sreg(18), sreg(18)}, {sreg(19), sreg(20)}, {sreg(21), imm("-1", 0xffffffffu)},
      {imm("0x80000000", 0x80000000u), sreg(22)}, {sreg(23), imm("64", 64)}, {kM0, sreg(24)}, {sreg(25), sreg(26)}};
  struct Cmp { const char* name; bool (*f)(u32, u32); };
  static const Cmp cmps[] = {
      {"s_cmp_eq_i32", [](u32 a, u32 b) { return a == b; }},
      {"s_cmp_lg_i32", [](u32 a, u32 b) { return a != b; }},
      {"s_cmp_gt_i32", [](u32 a, u32 b) { return as_i(a) > as_i(b); }},
      {"s_cmp_ge_i32", [](u32 a, u32 b) { return as_i(a) >= as_i(b); }},
      {"s_cmp_lt_i32", [](u32 a, u32 b) { return as_i(a) < as_i(b); }},
      {"s_cmp_le_i32", [](u32 a, u32 b) { return as_i(a) <= as_i(b); }},
      {"s_cmp_eq_u32", [](u32 a, u32 b) { return a == b; }},
      {"s_cmp_lg_u32", [](u32 a, u32 b) { return a != b; }},
      {"s_cmp_gt_u32", [](u32 a, u32 b) { return a > b; }},
      {"s_cmp_ge_u32", [](u32 a, u32 b) { return a >= b; }},
      {"s_cmp_lt_u32", [](u32 a, u32 b) { return a < b; }},
      {"s_cmp_le_u32", [](u32 a, u32 b) { return a <= b; }},
      {"s_bitcmp0_b32", [](u32 a, u32 b) { return ((a >> (b & 31)) & 1) == 0; }},
      {"s_bitcmp1_b32", [](u32 a, u32 b) { return ((a >> (b & 31)) & 1) == 1; }},
  };
  for (const auto& c : cmps) {
    auto f = c.f;
    const std::string m = c.name;
    std::string body;
    for (int i = 0; i < 8; ++i)
      body += "  " + m + " " + ps[static_cast<std::size_t>(i)].first.text + ", " +
              ps[static_cast<std::size_t>(i)].second.text + "\n" + capture_scc(40 + i);
    cs.push_back({m, body, [f, ps](State& s) {
                    const State in = s;
                    for (int i = 0; i < 8; ++i) {
                      s.scc = f(lo(ps[static_cast<std::size_t>(i)].first.value(in)),
                                lo(ps[static_cast<std::size_t>(i)].second.value(in)));
                      put(s, 40 + i, s.scc ? 1u : 0u);
                    }
                  }});
  }
  // 64-bit: s[20:21] and s[22:23] differ only in the high word (init).
  const std::vector<std::pair<Src, Src>> ps64 = {
      {spair(16), spair(18)}, {spair(16), spair(16)}, {spair(20), spair(22)}, {kExec, imm("-1", ~0ull)},
      {spair(24), sreg(26)}, {kVcc, imm("63", 63)}, {imm("-5", kMinus5), imm("62", 62)}, {spair(20), imm("32", 32)}};
  struct Cmp64 { const char* name; bool (*f)(u64, u64); int n; };
  static const Cmp64 cmps64[] = {
      {"s_cmp_eq_u64", [](u64 a, u64 b) { return a == b; }, 4},
      {"s_cmp_lg_u64", [](u64 a, u64 b) { return a != b; }, 4},
      {"s_bitcmp0_b64", [](u64 a, u64 b) { return ((a >> (b & 63)) & 1) == 0; }, 8},
      {"s_bitcmp1_b64", [](u64 a, u64 b) { return ((a >> (b & 63)) & 1) == 1; }, 8},
  };
  for (const auto& c : cmps64) {
    auto f = c.f;
    const int first = c.n == 4 ? 0 : 4, n = 4;
    const std::string m = c.name;
    std::string body;
    for (int i = 0; i < n; ++i)
      body += "  " + m + " " + ps64[static_cast<std::size_t>(first + i)].first.text + ", " +
              ps64[static_cast<std::size_t>(first + i)].second.text + "\n" + capture_scc(40 + i);
    cs.push_back({m, body, [f, ps64, first](State& s) {
                    const State in = s;
                    for (int i = 0; i < 4; ++i) {
                      const auto& p = ps64[static_cast<std::size_t>(first + i)];
                      s.scc = f(p.first.value(in), p.second.value(in));
                      put(s, 40 + i, s.scc ? 1u : 0u);
                    }
                  }, Values::Int, [](State& s) { s.sin[6] = s.sin[4]; s.sin[7] = s.sin[5] ^ 0x100u; }});
  }
}

// ---------------------------------------------------------------- SOPK

void add_sopk(std::vector<Case>& cs) {
  // s_movk_i32 / s_cmovk_i32: D = sign-extended SIMM16 (cmovk: if SCC).
  const std::vector<std::pair<std::string, u32>> k = {
      {"0x8000", 0xffff8000u}, {"0x7fff", 0x7fffu}, {"0xffff", 0xffffffffu}, {"0", 0u},
      {"0x1234", 0x1234u}, {"0xfedc", 0xfffffedcu}, {"1", 1u}, {"0x8001", 0xffff8001u}};
  for (bool cmov : {false, true}) {
    const std::string m = cmov ? "s_cmovk_i32" : "s_movk_i32";
    std::string body;
    for (int i = 0; i < 8; ++i)
      body += (cmov ? set_scc(i) : "") + "  " + m + " s" + std::to_string(40 + i) + ", " +
              k[static_cast<std::size_t>(i)].first + "\n" + capture_scc(48 + i);
    cs.push_back({m, body, [k, cmov](State& s) {
                    for (int i = 0; i < 8; ++i) {
                      if (cmov) s.scc = i % 2;
                      if (!cmov || s.scc) put(s, 40 + i, k[static_cast<std::size_t>(i)].second);
                      put(s, 48 + i, s.scc ? 1u : 0u);
                    }
                  }});
  }
  // s_cmpk_*: S0 against SIMM16, sign-extended for _i32, zero-extended for _u32.
  // init: s22 = 0xffff8000 (equals 0x8000 sign-extended), s23 = 0x8000 (equals it zero-extended).
  const std::vector<std::pair<int, std::string>> kc = {
      {16, "0x8000"}, {22, "0x8000"}, {23, "0x8000"}, {17, "0x7fff"},
      {18, "0xffff"}, {19, "0"}, {20, "0x1234"}, {21, "0xffff"}};
  auto kinit = [](State& s) {
    s.sin[6] = 0xffff8000u;
    s.sin[7] = 0x8000u;
    s.sin[4] = 0x1234u;
  };
  struct Cmpk { const char* name; bool sign; bool (*f)(i64, i64); };
  static const Cmpk cmpk[] = {
      {"eq", true, [](i64 a, i64 b) { return a == b; }}, {"lg", true, [](i64 a, i64 b) { return a != b; }},
      {"gt", true, [](i64 a, i64 b) { return a > b; }},  {"ge", true, [](i64 a, i64 b) { return a >= b; }},
      {"lt", true, [](i64 a, i64 b) { return a < b; }},  {"le", true, [](i64 a, i64 b) { return a <= b; }}};
  for (bool sign : {true, false}) {
    for (const auto& c : cmpk) {
      auto f = c.f;
      const std::string m = std::string("s_cmpk_") + c.name + (sign ? "_i32" : "_u32");
      std::string body;
      for (int i = 0; i < 8; ++i)
        body += "  " + m + " s" + std::to_string(kc[static_cast<std::size_t>(i)].first) + ", " +
                kc[static_cast<std::size_t>(i)].second + "\n" + capture_scc(40 + i);
      cs.push_back({m, body, [f, kc, sign](State& s) {
                      for (int i = 0; i < 8; ++i) {
                        const u32 a = s.sin[static_cast<std::size_t>(kc[static_cast<std::size_t>(i)].first - 16)];
                        const u32 imm16 = static_cast<u32>(std::stoul(kc[static_cast<std::size_t>(i)].second, nullptr, 0));
                        const i64 x = sign ? i64{as_i(a)} : i64{a};
                        const i64 y = sign ? i64{as_i(sx16(imm16))} : i64{imm16};
                        s.scc = f(x, y);
                        put(s, 40 + i, s.scc ? 1u : 0u);
                      }
                    }, Values::Int, kinit});
    }
  }
  // s_addk_i32 / s_mulk_i32: D = D op sign-extended SIMM16 (D copied from s16..s23 first);
  // addk: SCC = signed overflow; mulk: SCC unchanged. init: s22 = INT_MAX, s23 = INT_MIN.
  for (bool mul : {false, true}) {
    const std::string m = mul ? "s_mulk_i32" : "s_addk_i32";
    std::string body;
    for (int i = 0; i < 8; ++i)
      body += "  s_mov_b32 s" + std::to_string(40 + i) + ", s" + std::to_string(16 + i) + "\n  " + m + " s" +
              std::to_string(40 + i) + ", " + k[static_cast<std::size_t>(i)].first + "\n" + capture_scc(48 + i);
    cs.push_back({m, body, [k, mul](State& s) {
                    for (int i = 0; i < 8; ++i) {
                      const u32 d = s.sin[static_cast<std::size_t>(i)];
                      const u32 v = k[static_cast<std::size_t>(i)].second;
                      if (mul) {
                        put(s, 40 + i, d * v);
                      } else {
                        const i64 r = i64{as_i(d)} + as_i(v);
                        put(s, 40 + i, d + v);
                        s.scc = r > INT32_MAX || r < INT32_MIN;
                      }
                      put(s, 48 + i, s.scc ? 1u : 0u);
                    }
                  }, Values::Int, [](State& s) { s.sin[6] = 0x7fffffffu; s.sin[7] = 0x80000000u; }});
  }
}

// ---------------------------------------------------------------- SOPP: program flow

// A case with a hand-written body and model.
void flow(std::vector<Case>& cs, const std::string& m, const std::string& body, std::function<void(State&)> model,
          std::function<void(State&)> init = nullptr) {
  cs.push_back({m, body, std::move(model), Values::Int, std::move(init)});
}

void add_branches(std::vector<Case>& cs) {
  // s_branch forward over a write, and a loop closed by a backward s_branch.
  flow(cs, "s_branch",
       "  s_mov_b32 s40, s16\n  s_branch 1f\n  s_mov_b32 s40, s17\n1:\n  s_mov_b32 s41, s18\n"
       "  s_mov_b32 s56, 3\n  s_mov_b32 s42, 0\n2:\n  s_cmp_eq_u32 s56, 0\n  s_cbranch_scc1 3f\n"
       "  s_add_u32 s42, s42, s19\n  s_sub_u32 s56, s56, 1\n  s_branch 2b\n3:\n",
       [](State& s) {
         put(s, 40, s.sin[0]);
         put(s, 41, s.sin[2]);
         put(s, 42, 3 * s.sin[3]);
         s.scc = true;
       });
  // Conditional branches: each sets s(40+i) to 1 if taken, 2 if not. The first one tests the
  // initial SCC (s28 bit 0), VCC (s[30:31]) or EXEC (all lanes).
  struct Br { const char* m; const char* setup[3]; std::function<bool(const State&, int)> taken; };
  const Br brs[] = {
      {"s_cbranch_scc0", {"", "  s_cmp_lt_u32 s16, s17\n", "  s_cmp_eq_u32 s18, s18\n"},
       [](const State& s, int i) { return i == 0 ? !(s.sin[12] & 1) : i == 1 ? !(s.sin[0] < s.sin[1]) : false; }},
      {"s_cbranch_scc1", {"", "  s_cmp_lt_i32 s16, s17\n", "  s_cmp_lg_u32 s18, s18\n"},
       [](const State& s, int i) { return i == 0 ? (s.sin[12] & 1) : i == 1 ? as_i(s.sin[0]) < as_i(s.sin[1]) : false; }},
      {"s_cbranch_vccz", {"", "  s_mov_b64 vcc, 0\n", "  s_mov_b64 vcc, s[18:19]\n"},
       [](const State& s, int i) { return i == 0 ? s.vcc == 0 : i == 1 ? true : sgpr_pair(s, 2) == 0; }},
      {"s_cbranch_vccnz", {"", "  s_mov_b64 vcc, 0\n", "  s_mov_b64 vcc, s[18:19]\n"},
       [](const State& s, int i) { return i == 0 ? s.vcc != 0 : i == 1 ? false : sgpr_pair(s, 2) != 0; }},
      {"s_cbranch_execz", {"", "  s_mov_b64 exec, 0\n", "  s_mov_b64 exec, s[18:19]\n"},
       [](const State& s, int i) { return i == 0 ? false : i == 1 ? true : sgpr_pair(s, 2) == 0; }},
      {"s_cbranch_execnz", {"", "  s_mov_b64 exec, 0\n", "  s_mov_b64 exec, s[18:19]\n"},
       [](const State& s, int i) { return i == 0 ? true : i == 1 ? false : sgpr_pair(s, 2) != 0; }},
  };
  for (const auto& b : brs) {
    const std::string m = b.m;
    std::string body;
    for (int i = 0; i < 3; ++i) {
      const std::string n = std::to_string(40 + i);
      body += std::string(b.setup[i]) + "  " + m + " 1f\n  s_mov_b32 s" + n + ", 2\n  s_branch 2f\n1:\n  s_mov_b32 s" +
              n + ", 1\n2:\n";
    }
    // The third VCC/EXEC source is s[18:19]; with vcc/exec sources one seed makes it zero.
    auto taken = b.taken;
    flow(cs, m, body, [taken, m](State& s) {
      const State in = s;
      for (int i = 0; i < 3; ++i) put(s, 40 + i, taken(in, i) ? 1u : 2u);
      if (m == "s_cbranch_scc0" || m == "s_cbranch_scc1") s.scc = m == "s_cbranch_scc0";
      if (m.find("vcc") != std::string::npos) s.vcc = sgpr_pair(in, 2);
      if (m.find("exec") != std::string::npos) s.exec = sgpr_pair(in, 2);
    }, [](State& s) {
      s.sin[2] = s.sin[12] & 2 ? 0u : s.sin[2];  // s[18:19] zero in about half the seeds
      s.sin[3] = s.sin[12] & 2 ? 0u : s.sin[3] | 1u;
    });
  }

  // s_branch over an s_endpgm (not decoded: unreachable): the rest of the body runs.
  flow(cs, "s_branch", "  s_branch 1f\n  s_endpgm\n1:\n  s_mov_b32 s40, s16\n  s_cmp_eq_u32 s17, s17\n"
                       "  s_cbranch_scc0 2f\n  s_mov_b32 s41, s18\n2:\n",
       [](State& s) { put(s, 40, s.sin[0]); put(s, 41, s.sin[2]); s.scc = true; });
  // s_endpgm executed: the store before it lands in mem, and the epilogue never runs, so the
  // output buffer keeps the 0xdeadbeef fill run_case() (directed_test.cpp) gives it.
  flow(cs, "s_endpgm", "  global_store_dword v94, v10, s[6:7]\n  s_waitcnt vmcnt(0)\n  s_endpgm\n",
       [](State& s) {
         for (int l = 0; l < kLanes; ++l) s.mem[static_cast<std::size_t>(l)] = s.vin[0][static_cast<std::size_t>(l)];
         for (auto& v : s.vout) v.fill(0xdeadbeefu);
         s.sout.fill(0xdeadbeefu);
         s.exec = s.vcc = 0xdeadbeefdeadbeefull;
         s.scc = true;
         s.m0 = 0xdeadbeefu;
       });

  // s_getpc_b64 gives the address of the next instruction; s_setpc_b64 jumps; s_swappc_b64
  // jumps and returns the address of its successor (guide 12.3). Targets come from label
  // differences the assembler computes; instruction sizes from the encodings (SOP1/SOP2 4
  // bytes, +4 with a literal). The simulator decodes only code reachable by direct branches
  // (simulator/README.md), so each jump target is also the target of a never-taken branch.
  flow(cs, "s_getpc_b64",
       "  s_getpc_b64 s[56:57]\n  s_getpc_b64 s[58:59]\n  s_add_u32 s40, s16, s17\n  s_getpc_b64 s[60:61]\n"
       "  s_sub_u32 s41, s58, s56\n  s_subb_u32 s42, s59, s57\n  s_sub_u32 s43, s60, s58\n  s_subb_u32 s44, s61, s59\n",
       [](State& s) {
         put(s, 40, s.sin[0] + s.sin[1]);
         put(s, 41, 4);
         put(s, 42, 0);
         put(s, 43, 8);
         put(s, 44, 0);
         s.scc = false;
       });
  flow(cs, "s_setpc_b64",
       "  s_cbranch_execz 2f\n"  // never taken (EXEC = all lanes): makes 2: statically reachable
       "  s_getpc_b64 s[56:57]\n1:\n  s_add_u32 s56, s56, 2f-1b\n  s_addc_u32 s57, s57, 0\n"
       "  s_mov_b32 s40, s16\n  s_setpc_b64 s[56:57]\n  s_mov_b32 s40, s17\n  s_mov_b32 s41, s17\n2:\n"
       "  s_mov_b32 s42, s18\n",
       // SCC: s_addc_u32 s57, s57, 0 carries out only for a code address >= 2^64 - 2^32.
       [](State& s) { put(s, 40, s.sin[0]); put(s, 42, s.sin[2]); s.scc = false; });
  flow(cs, "s_swappc_b64",
       "  s_cbranch_execz 3f\n"  // never taken: makes the subroutine statically reachable
       "  s_getpc_b64 s[56:57]\n1:\n  s_add_u32 s56, s56, 3f-1b\n  s_addc_u32 s57, s57, 0\n"
       "  s_swappc_b64 s[58:59], s[56:57]\n2:\n  s_add_u32 s41, s40, 1\n  s_getpc_b64 s[60:61]\n"
       "  s_sub_u32 s42, s60, s58\n  s_subb_u32 s43, s61, s59\n  s_branch 4f\n"
       "3:\n  s_mov_b32 s40, s16\n  s_setpc_b64 s[58:59]\n  s_mov_b32 s44, 1\n4:\n",
       [](State& s) {
         put(s, 40, s.sin[0]);
         put(s, 41, s.sin[0] + 1);
         put(s, 42, 8);
         put(s, 43, 0);
         s.scc = false;
       },
       [](State& s) { s.sin[0] = (s.sin[0] & 0x7fffffffu) | 2u; });  // s16 + 1 without carry
}

// Instructions with no architectural effect on this state: SCC, a pending compare, and the
// neighbouring SALU results must survive them.
void add_no_effect(std::vector<Case>& cs) {
  const std::pair<const char*, const char*> ops[] = {
      {"s_nop", "  s_nop 0\n  s_nop 7\n"},
      {"s_sleep", "  s_sleep 1\n  s_sleep 0\n"},
      {"s_setprio", "  s_setprio 3\n  s_setprio 2\n"},  // the body markers use 1 and 0
      {"s_icache_inv", "  s_icache_inv\n"},
      {"s_incperflevel", "  s_incperflevel 1\n"},
      {"s_decperflevel", "  s_decperflevel 1\n"},
      {"s_dcache_inv", "  s_dcache_inv\n"},
      {"s_dcache_wb", "  s_dcache_wb\n"},
      {"s_barrier", "  s_barrier\n"},  // one wave per workgroup: nothing to wait for
      {"s_waitcnt", "  s_waitcnt 0\n  s_waitcnt vmcnt(0) lgkmcnt(0)\n"},
      {"s_sethalt", "  s_sethalt 0\n"},  // guide 12.5: SIMM16[0] = 0 clears HALT; 1 would halt
  };
  for (const auto& [m, ins] : ops)
    flow(cs, m, std::string("  s_cmp_lt_u32 s16, s17\n  s_mov_b32 s40, s18\n") + ins +
                    "  s_cselect_b32 s41, s19, s20\n  s_add_u32 s42, s40, s21\n  v_mov_b32 v32, s22\n",
         [](State& s) {
           const bool lt = s.sin[0] < s.sin[1];
           put(s, 40, s.sin[2]);
           put(s, 41, lt ? s.sin[3] : s.sin[4]);
           put(s, 42, s.sin[2] + s.sin[5]);
           s.scc = (u64{s.sin[2]} + s.sin[5]) >> 32;
           s.vout[0].fill(s.sin[6]);
         });
  // s_waitcnt where it matters on hardware: a scalar load's result is used after it.
  flow(cs, "s_waitcnt", "  s_load_dword s40, s[6:7], 0x10\n  s_waitcnt lgkmcnt(0)\n  s_add_u32 s41, s40, s16\n",
       [](State& s) {
         put(s, 40, s.mem[4]);
         put(s, 41, s.mem[4] + s.sin[0]);
         s.scc = (u64{s.mem[4]} + s.sin[0]) >> 32;
       });
}

// ---------------------------------------------------------------- hardware registers

// MODE at launch comes from the kernel descriptor (LLVM AMDGPUUsage "Kernel Descriptor",
// COMPUTE_PGM_RSRC1): the harness's descriptor keeps the defaults FLOAT_ROUND_MODE_32/16_64 =
// 0 (nearest even), FLOAT_DENORM_MODE_32 = 0 (flush), FLOAT_DENORM_MODE_16_64 = 3 (keep),
// DX10_CLAMP = 1, IEEE_MODE = 1, so MODE[9:0] = 0x3c0 (MODE layout: FP_ROUND 3:0, FP_DENORM 7:4,
// DX10_CLAMP 8, IEEE 9). setreg writes S0[size-1:0] to MODE[offset+size-1:offset]; every case
// restores MODE before the body ends (no VALU runs while it differs).
constexpr u32 kMode = 0x3c0;
void add_hwreg(std::vector<Case>& cs) {
  flow(cs, "s_getreg_b32",
       "  s_getreg_b32 s40, hwreg(HW_REG_MODE, 0, 10)\n  s_getreg_b32 s41, hwreg(HW_REG_MODE, 4, 4)\n"
       "  s_getreg_b32 s42, hwreg(HW_REG_MODE, 8, 2)\n  s_getreg_b32 s43, hwreg(HW_REG_MODE, 0, 4)\n"
       "  s_getreg_b32 s44, hwreg(HW_REG_MODE, 6, 3)\n",
       [](State& s) {
         put(s, 40, kMode);
         put(s, 41, (kMode >> 4) & 0xf);
         put(s, 42, (kMode >> 8) & 3);
         put(s, 43, kMode & 0xf);
         put(s, 44, (kMode >> 6) & 7);
       });
  flow(cs, "s_setreg_b32",
       "  s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s16\n  s_nop 1\n  s_getreg_b32 s40, hwreg(HW_REG_MODE, 0, 10)\n"
       "  s_setreg_b32 hwreg(HW_REG_MODE, 4, 4), s17\n  s_nop 1\n  s_getreg_b32 s41, hwreg(HW_REG_MODE, 0, 10)\n"
       "  s_setreg_b32 hwreg(HW_REG_MODE, 2, 4), s18\n  s_nop 1\n  s_getreg_b32 s42, hwreg(HW_REG_MODE, 0, 10)\n"
       "  s_mov_b32 s56, 0x3c0\n  s_setreg_b32 hwreg(HW_REG_MODE, 0, 8), s56\n"
       "  s_nop 1\n  s_getreg_b32 s43, hwreg(HW_REG_MODE, 0, 10)\n",
       [](State& s) {
         auto field = [](u32 mode, int off, int size, u32 v) {
           const u32 msk = ((1u << size) - 1) << off;
           return (mode & ~msk) | ((v << off) & msk);
         };
         u32 mode = field(kMode, 0, 4, s.sin[0]);
         put(s, 40, mode);
         mode = field(mode, 4, 4, s.sin[1]);
         put(s, 41, mode);
         mode = field(mode, 2, 4, s.sin[2]);
         put(s, 42, mode);
         put(s, 43, kMode);
       });
  flow(cs, "s_setreg_imm32_b32",
       "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 0xfffffff6\n  s_nop 1\n  s_getreg_b32 s40, hwreg(HW_REG_MODE, 0, 10)\n"
       "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 4), 0x5\n  s_nop 1\n  s_getreg_b32 s41, hwreg(HW_REG_MODE, 0, 10)\n"
       "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 8), 0xc0\n  s_nop 1\n  s_getreg_b32 s42, hwreg(HW_REG_MODE, 0, 10)\n",
       [](State& s) {
         put(s, 40, (kMode & ~0xfu) | 0x6u);
         put(s, 41, 0x356u);
         put(s, 42, kMode);
       });
}

// ---------------------------------------------------------------- SMEM

// The words a scalar load reads: `mem` (s[6:7]) or the input buffer (s[2:3], pack_input()).
void add_smem(std::vector<Case>& cs) {
  for (int n : {1, 2, 4, 8, 16}) {
    const std::string suffix = n == 1 ? "" : "x" + std::to_string(n);
    const std::string m = "s_load_dword" + suffix;
    const std::string buf_m = "s_buffer_load_dword" + suffix;
    auto dst = [n](int first) {
      return n == 1 ? "s" + std::to_string(first)
                    : "s[" + std::to_string(first) + ":" + std::to_string(first + n - 1) + "]";
    };
    // (1) immediate offset into mem; (2) SGPR offset + immediate (guide 12.6: the SGPR offset is
    // an unsigned byte offset whose 2 LSBs are ignored: 0x107 acts as 0x104); (3) a negative
    // immediate (signed 21-bit byte offset) from a moved base; (4) the input buffer.
    const u32 off1 = 0x40u * static_cast<u32>(n), soff = 0x107u & ~3u, imm2 = 0x8u, base3 = 0x200u;
    std::string body = "  " + m + " " + dst(40) + ", s[6:7], " + std::to_string(off1) + "\n";
    body += "  s_waitcnt lgkmcnt(0)\n";
    if (n <= 8) {
      body += "  s_mov_b32 s56, 0x107\n  " + m + " " + dst(40 + n) + ", s[6:7], s56 offset:0x8\n";
      body += "  s_waitcnt lgkmcnt(0)\n";
    }
    if (n <= 4) {
      body += "  s_add_u32 s58, s6, 0x200\n  s_addc_u32 s59, s7, 0\n  " + m + " " + dst(40 + 2 * n) + ", s[58:59], -0x10\n";
      body += "  s_waitcnt lgkmcnt(0)\n";
    }
    if (n <= 2) {
      body += "  " + m + " " + dst(40 + 3 * n) + ", s[2:3], 0x2808\n  s_waitcnt lgkmcnt(0)\n";
    }
    cs.push_back({m, body, [n, off1, soff, imm2, base3](State& s) {
                    const std::vector<u32> in = pack_input(s);
                    auto load = [&](int first, const std::vector<u32>& src, u32 byte) {
                      for (int k = 0; k < n; ++k) put(s, first + k, src[byte / 4 + static_cast<u32>(k)]);
                    };
                    load(40, s.mem, off1);
                    if (n <= 8) load(40 + n, s.mem, soff + imm2);
                    if (n <= 4) load(40 + 2 * n, s.mem, base3 - 0x10u);
                    if (n <= 2) load(40 + 3 * n, in, 0x2808u);
                    // s_addc_u32 s59, s7, 0 carries out only for an address >= 2^64 - 2^32: none.
                    if (n <= 4) s.scc = false;
                  }});
    // s_buffer_load with a V# built in s[60:63]: base = mem, stride 0, num_records = 16 KiB,
    // word 3 = DATA_FORMAT 32 (as CK's gfx94x buffer resources). Address = base + offset.
    std::string bbody =
        "  s_mov_b32 s60, s6\n  s_and_b32 s61, s7, 0xffff\n  s_mov_b32 s62, 0x4000\n  s_mov_b32 s63, 0x20000\n"
        "  " + buf_m + " " + dst(40) + ", s[60:63], " + std::to_string(0x80 * n) + "\n";
    if (n <= 8) bbody += "  s_mov_b32 s64, 0x1f3\n  " + buf_m + " " + dst(40 + n) + ", s[60:63], s64\n";
    bbody += "  s_waitcnt lgkmcnt(0)\n  s_cmp_eq_u32 0, 0\n";  // SCC of s_and_b32 depends on the address
    cs.push_back({buf_m, bbody, [n](State& s) {
                    for (int k = 0; k < n; ++k) put(s, 40 + k, s.mem[static_cast<std::size_t>(0x20 * n + k)]);
                    if (n <= 8)
                      for (int k = 0; k < n; ++k) put(s, 40 + n + k, s.mem[static_cast<std::size_t>((0x1f3 & ~3) / 4 + k)]);
                    s.scc = true;
                  }});
  }
  // s_memtime / s_memrealtime: 64-bit counters; honest claim: a later read is not smaller.
  for (const char* m : {"s_memtime", "s_memrealtime"}) {
    flow(cs, m,
         std::string("  ") + m + " s[56:57]\n  s_waitcnt lgkmcnt(0)\n  s_mov_b32 s40, s16\n  " + m +
             " s[58:59]\n  s_waitcnt lgkmcnt(0)\n  s_sub_u32 s60, s58, s56\n  s_subb_u32 s61, s59, s57\n"
             "  s_cselect_b32 s41, 1, 0\n",
         [](State& s) {
           put(s, 40, s.sin[0]);
           put(s, 41, 0);  // no borrow: second reading >= first
           s.scc = false;
         });
  }
}
}  // namespace

void add_scalar_cases(std::vector<Case>& cs) {
  // s_trap enters the trap handler (CDNA3 ISA guide, SOPP S_TRAP); the simulator models no
  // trap handler, so executing it is an error naming kernel and pc, never a silent pass.
  Case trap{"s_trap", "  s_trap 2", nullptr};
  trap.expect_error = "s_trap 2 executed";
  cs.push_back(trap);
  add_sop2(cs);
  add_sop1(cs);
  add_sopc(cs);
  add_sopk(cs);
  add_branches(cs);
  add_no_effect(cs);
  add_hwreg(cs);
  add_smem(cs);
}

}  // namespace cdna::simulator::directed
