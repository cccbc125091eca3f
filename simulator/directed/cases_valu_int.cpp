// Integer and bit VALU cases: VOP1/VOP2/VOP3/VOP3P, the lane instructions (v_readlane,
// v_writelane, v_readfirstlane, v_mbcnt), carries, 16-bit and packed integer ops, and the DPP and
// SDWA forms with integer ops. Models follow the CDNA3 ISA guide ("AMD Instinct MI300 ISA":
// the VALU chapter's DPP and SDWA sections and the opcode descriptions, whose pseudocode the
// CDNA4 guide repeats for these opcodes), written for the tests; where the guide is terse the
// LLVM AMDGPU back end is cited (file named at the use).
//
// Each case runs one mnemonic in several encodings, one output VGPR per line: e32 with VGPR,
// SGPR, inline-constant and literal src0, VOP3 (e64) with SGPR and inline constants elsewhere,
// a line under a partial EXEC (s[18:19], restored to all lanes after the line), and, for VOP1 and
// VOP2 ops, SDWA and DPP lines. Shared initial-state shaping (shape()): lanes 60..63 hold equal
// values in every input VGPR (ties, x - x, ...), s[18:19] is a mixed lane mask.
#include <algorithm>
#include <array>
#include <bit>
#include <cstdio>
#include <optional>
#include <string>

#include "simulator/directed/cases.hpp"

namespace cdna::simulator::directed {
namespace {

using Args = std::array<u32, 3>;
// Per-lane function of the (up to 3) source values; bit 32 of the result is a carry-out (for
// carry ops x[2] is the carry-in bit). `lane` is the lane id (v_mbcnt).
using Fn = std::function<u64(const Args& x, int lane)>;

Fn f1(std::function<u32(u32)> g) { return [g](const Args& x, int) -> u64 { return g(x[0]); }; }
Fn f2(std::function<u32(u32, u32)> g) { return [g](const Args& x, int) -> u64 { return g(x[0], x[1]); }; }
Fn f3(std::function<u32(u32, u32, u32)> g) {
  return [g](const Args& x, int) -> u64 { return g(x[0], x[1], x[2]); };
}

// A source operand: its assembly text and its value in a lane of a state.
struct Op {
  std::string text;
  std::function<u32(const State&, int)> get;
};
Op V(int k) {  // v(10+k)
  return {"v" + std::to_string(10 + k), [k](const State& s, int l) { return s.vin[static_cast<std::size_t>(k)][static_cast<std::size_t>(l)]; }};
}
Op S(int k) {  // s(16+k)
  return {"s" + std::to_string(16 + k), [k](const State& s, int) { return s.sin[static_cast<std::size_t>(k)]; }};
}
Op K(i64 v) {  // inline constant (-16..64, decimal) or 32-bit literal (hex)
  const u32 w = static_cast<u32>(v);
  char b[16];
  std::snprintf(b, sizeof b, "0x%x", w);
  return {(v >= -16 && v <= 64) ? std::to_string(v) : std::string(b), [w](const State&, int) { return w; }};
}

u32& vout(State& s, int k, int l) { return s.vout[static_cast<std::size_t>(k)][static_cast<std::size_t>(l)]; }
u32 vin(const State& s, int k, int l) { return s.vin[static_cast<std::size_t>(k)][static_cast<std::size_t>(l)]; }

// ---- DPP (ISA guide, VALU chapter, "DPP"; LLVM AMDGPUModifierSyntax.rst for the spelling).
// row_shl:n reads lane+n of the same row, row_shr:n lane-n; wave_shl/shr cross rows.
struct Dpp {
  std::string ctrl;                 // e.g. "row_shr:1"
  std::function<int(int)> src;      // source lane of `lane`, -1 if out of range
  u32 row_mask = 0xf, bank_mask = 0xf;
  bool bound_zero = false;          // BOUND_CTRL: out-of-range source reads 0 (else lane not written)
  std::string text() const {
    char b[64];
    std::snprintf(b, sizeof b, " row_mask:0x%x bank_mask:0x%x", row_mask, bank_mask);
    return ctrl + b + (bound_zero ? " bound_ctrl:1" : "");
  }
};
Dpp row_shl(int n) { return {"row_shl:" + std::to_string(n), [n](int l) { return (l & 15) + n <= 15 ? l + n : -1; }}; }
Dpp row_shr(int n) { return {"row_shr:" + std::to_string(n), [n](int l) { return (l & 15) >= n ? l - n : -1; }}; }
Dpp row_ror(int n) {
  return {"row_ror:" + std::to_string(n), [n](int l) { return (l & ~15) | (((l & 15) + 16 - n) & 15); }};
}
Dpp quad_perm(int a, int b, int c, int d) {
  const std::array<int, 4> p{a, b, c, d};
  return {"quad_perm:[" + std::to_string(a) + "," + std::to_string(b) + "," + std::to_string(c) + "," +
              std::to_string(d) + "]",
          [p](int l) { return (l & ~3) | p[static_cast<std::size_t>(l & 3)]; }};
}
Dpp with(Dpp d, u32 row, u32 bank, bool bound) {
  d.row_mask = row;
  d.bank_mask = bank;
  d.bound_zero = bound;
  return d;
}

i32 sx(u32 v, int bits) { return static_cast<i32>(v << (32 - bits)) >> (32 - bits); }

// ---- SDWA (ISA guide, VALU chapter, "SDWA"): selects 0..3 byte, 4..5 word, 6 dword; unused 0 pad, 1 sext, 2 preserve
struct Sdwa {
  int dst_sel = 6, dst_unused = 0, sel0 = 6, sel1 = 6;
  bool sext0 = false, sext1 = false;
};
const char* kSel[] = {"BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD"};
const char* kUnused[] = {"UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE"};

u32 sdwa_src(u32 v, int sel, bool sext) {
  if (sel == 6) return v;
  const int bits = sel < 4 ? 8 : 16;
  const int shift = sel < 4 ? 8 * sel : 16 * (sel - 4);
  const u32 f = (v >> shift) & ((1u << bits) - 1);
  if (sext && (f >> (bits - 1))) return f | ~((1u << bits) - 1);
  return f;
}
u32 sdwa_dst(u32 r, u32 old, int sel, int unused) {
  if (sel == 6) return r;
  const int bits = sel < 4 ? 8 : 16;
  const int shift = sel < 4 ? 8 * sel : 16 * (sel - 4);
  const u32 field = ((1u << bits) - 1) << shift;
  const u32 v = (r << shift) & field;
  if (unused == 2) return (old & ~field) | v;
  if (unused == 1) return static_cast<u32>(sx(r & ((1u << bits) - 1), bits)) << shift;  // sign up, zeros below
  return v;
}

constexpr int kVcc = 100;

// One instruction of a case: `mnemonic+enc vdst[, sdst], srcs[, carry-in] mods`.
struct Line {
  std::string enc;  // "", "_e64", "_dpp", "_sdwa"
  int dst = 0;      // v(32+dst)
  std::vector<Op> src;
  std::string mods;  // modifier text whose meaning `f` already contains (clamp, op_sel)
  bool masked = false;  // run under EXEC = s[18:19]
  Fn f;
  std::optional<Dpp> dpp;
  std::optional<Sdwa> sdwa;
  int carry_out = -1;  // -1: none; kVcc; k: s[40+k : 41+k]
  int carry_in = -1;   // -1: none; kVcc; k: s[16+k : 17+k]
};

std::string sgpr_pair_text(int first) { return "s[" + std::to_string(first) + ":" + std::to_string(first + 1) + "]"; }

std::string line_text(const std::string& m, const Line& L) {
  std::string t = "  " + m + L.enc + " v" + std::to_string(32 + L.dst);
  if (L.carry_out == kVcc) t += ", vcc";
  else if (L.carry_out >= 0) t += ", " + sgpr_pair_text(40 + L.carry_out);
  for (std::size_t i = 0; i < L.src.size(); ++i) {
    const bool sx = L.sdwa && ((i == 0 && L.sdwa->sext0) || (i == 1 && L.sdwa->sext1));
    t += ", " + (sx ? "sext(" + L.src[i].text + ")" : L.src[i].text);
  }
  if (L.carry_in == kVcc) t += ", vcc";
  else if (L.carry_in >= 0) t += ", " + sgpr_pair_text(16 + L.carry_in);
  if (L.dpp) t += " " + L.dpp->text();
  if (L.sdwa) {
    t += std::string(" dst_sel:") + kSel[L.sdwa->dst_sel] + " dst_unused:" + kUnused[L.sdwa->dst_unused] +
         " src0_sel:" + kSel[L.sdwa->sel0];
    if (L.src.size() > 1) t += std::string(" src1_sel:") + kSel[L.sdwa->sel1];
  }
  if (!L.mods.empty()) t += " " + L.mods;
  return t + "\n";
}

// The model of one line, applied to `s` in program order.
void run_line(State& s, const Line& L) {
  const u64 exec = L.masked ? sgpr_pair(s, 2) : ~0ull;
  const u64 cin_mask = L.carry_in == kVcc ? s.vcc : L.carry_in >= 0 ? sgpr_pair(s, L.carry_in) : 0;
  u64 cout = 0;
  std::array<u32, kLanes> result{};
  u64 written = 0;
  for (int l = 0; l < kLanes; ++l) {
    if (!((exec >> l) & 1)) continue;
    Args x{};
    bool valid = true;
    for (std::size_t i = 0; i < L.src.size(); ++i) {
      int from = l;
      if (L.dpp && i == 0) {
        from = L.dpp->src(l);
        const bool on = ((L.dpp->row_mask >> (l >> 4)) & 1) && ((L.dpp->bank_mask >> ((l >> 2) & 3)) & 1);
        if (!on || (from < 0 && !L.dpp->bound_zero)) valid = false;
      }
      x[i] = from < 0 ? 0u : L.src[i].get(s, from);
      if (L.sdwa) x[i] = sdwa_src(x[i], i == 0 ? L.sdwa->sel0 : L.sdwa->sel1, i == 0 ? L.sdwa->sext0 : L.sdwa->sext1);
    }
    if (!valid) continue;
    if (L.carry_in != -1) x[2] = static_cast<u32>((cin_mask >> l) & 1);
    const u64 r = L.f(x, l);
    u32 w = static_cast<u32>(r);
    if (L.sdwa) w = sdwa_dst(w, vout(s, L.dst, l), L.sdwa->dst_sel, L.sdwa->dst_unused);
    result[static_cast<std::size_t>(l)] = w;
    written |= 1ull << l;
    cout |= ((r >> 32) & 1) << l;
  }
  for (int l = 0; l < kLanes; ++l)
    if ((written >> l) & 1) vout(s, L.dst, l) = result[static_cast<std::size_t>(l)];
  // Carry-outs of inactive lanes are written as 0, as for compares (VALU SGPR-mask results).
  if (L.carry_out == kVcc) s.vcc = cout;
  else if (L.carry_out >= 0) {
    s.sout[static_cast<std::size_t>(L.carry_out)] = static_cast<u32>(cout);
    s.sout[static_cast<std::size_t>(L.carry_out + 1)] = static_cast<u32>(cout >> 32);
  }
}

// Shared shaping of the initial state (see the file comment), then `extra`.
std::function<void(State&)> shaped(std::function<void(State&)> extra = nullptr) {
  return [extra](State& s) {
    for (int l = 60; l < 64; ++l)
      for (int k = 1; k < kVIn; ++k) s.vin[static_cast<std::size_t>(k)][static_cast<std::size_t>(l)] = vin(s, 0, l);
    s.sin[2] = 0xf0c3a51eu ^ (s.sin[8] & 0x0ff00ff0u);
    s.sin[3] = 0x3c5a0ff1u ^ (s.sin[9] & 0x00ffff00u);
    if (extra) extra(s);
  };
}

void add(std::vector<Case>& cs, const std::string& m, std::vector<Line> lines,
         std::function<void(State&)> init = nullptr) {
  std::string body;
  for (const Line& L : lines) {
    if (L.masked) body += "  s_mov_b64 exec, s[18:19]\n";
    body += line_text(m, L);
    if (L.masked) body += "  s_mov_b64 exec, -1\n";
    body += "  s_nop 1\n";  // a carry-out SGPR or VCC read by the next line needs 2 (rule valu-sgpr-valu)
  }
  cs.push_back({m, body, [lines](State& s) { for (const Line& L : lines) run_line(s, L); }, Values::Int, shaped(init)});
}

Line ln(std::string enc, int dst, std::vector<Op> src, Fn f, bool masked = false, std::string mods = "") {
  Line L;
  L.enc = std::move(enc);
  L.dst = dst;
  L.src = std::move(src);
  L.f = std::move(f);
  L.masked = masked;
  L.mods = std::move(mods);
  return L;
}
Line dpp_ln(int dst, std::vector<Op> src, Fn f, Dpp d) {
  Line L = ln("_dpp", dst, std::move(src), std::move(f));
  L.dpp = std::move(d);
  return L;
}
Line sdwa_ln(int dst, std::vector<Op> src, Fn f, Sdwa w) {
  Line L = ln("_sdwa", dst, std::move(src), std::move(f));
  L.sdwa = w;
  return L;
}

// ---- families of lines

// VOP1: e32 VGPR/SGPR/literal, e64 VGPR/inline constant, partial EXEC, SDWA, DPP.
std::vector<Line> vop1_lines(const Fn& f, bool narrow) {
  const int w = narrow ? 4 : 6;
  return {ln("", 0, {V(0)}, f), ln("", 1, {S(0)}, f), ln("", 2, {K(0x8421f00d)}, f), ln("_e64", 3, {V(1)}, f),
          ln("_e64", 4, {K(-16)}, f), ln("_e64", 5, {K(64)}, f), ln("", 6, {V(2)}, f, true),
          sdwa_ln(7, {V(3)}, f, {w, 0, 1, 6, true, false}), sdwa_ln(8, {V(4)}, f, {5, 2, 2, 6, false, false}),
          sdwa_ln(9, {V(5)}, f, {1, 1, 5, 6, false, false}),
          dpp_ln(10, {V(6)}, f, row_shr(1)), dpp_ln(11, {V(7)}, f, with(quad_perm(3, 0, 0, 2), 0xb, 0xd, false))};
}

// VOP2: e32 with VGPR/SGPR/literal/inline src0, e64 with SGPR/inline src1, partial EXEC, SDWA
// (byte/word selects, sext, the three dst_unused), DPP (row shift with and without bound_ctrl,
// quad_perm with row/bank masks). `lit`: a literal that fits the operand width.
std::vector<Line> vop2_lines(const Fn& f, bool narrow, u32 lit) {
  std::vector<Line> v{ln("", 0, {V(0), V(1)}, f), ln("", 1, {S(0), V(2)}, f), ln("", 2, {K(lit), V(3)}, f),
                      ln("", 3, {K(-7), V(4)}, f), ln("_e64", 4, {V(5), S(1)}, f), ln("_e64", 5, {V(6), K(-16)}, f),
                      ln("_e64", 6, {K(64), V(7)}, f), ln("", 7, {V(1), V(0)}, f, true)};
  const int wd = narrow ? 5 : 6;
  v.push_back(sdwa_ln(8, {V(2), V(3)}, f, {wd, 0, 1, 4, false, false}));
  v.push_back(sdwa_ln(9, {V(4), V(5)}, f, {narrow ? 4 : 5, 2, 0, 5, true, true}));
  v.push_back(sdwa_ln(10, {V(6), V(7)}, f, {1, 1, 3, 0, true, false}));
  v.push_back(sdwa_ln(11, {S(2), V(0)}, f, {2, 2, 2, wd, false, false}));
  v.push_back(dpp_ln(12, {V(1), V(2)}, f, row_shr(1)));
  v.push_back(dpp_ln(13, {V(3), V(4)}, f, with(row_shl(3), 0xf, 0xf, true)));
  v.push_back(dpp_ln(14, {V(5), V(6)}, f, with(quad_perm(1, 0, 3, 3), 0x6, 0x9, false)));
  return v;
}

// VOP3-only with two or three sources.
std::vector<Line> vop3_2_lines(const Fn& f) {
  return {ln("", 0, {V(0), V(1)}, f), ln("", 1, {S(0), V(2)}, f), ln("", 2, {V(3), S(1)}, f),
          ln("", 3, {V(4), K(-5)}, f), ln("", 4, {K(33), V(5)}, f), ln("", 5, {V(6), V(7)}, f, true)};
}
std::vector<Line> vop3_3_lines(const Fn& f) {
  return {ln("", 0, {V(0), V(1), V(2)}, f), ln("", 1, {S(0), V(3), V(4)}, f),
          ln("", 2, {V(5), S(1), K(-3)}, f), ln("", 3, {K(7), V(6), S(1)}, f),
          ln("", 4, {V(7), K(12), V(0)}, f), ln("", 5, {V(1), V(2), V(3)}, f, true)};
}

// ---- arithmetic helpers for the models
u32 lo16(u32 v) { return v & 0xffffu; }
i32 s16(u32 v) { return sx(v & 0xffffu, 16); }
u32 u16r(i64 v) { return static_cast<u32>(v) & 0xffffu; }  // 16-bit result, bits 31:16 zero
u32 umin(u32 a, u32 b) { return a < b ? a : b; }
u32 umax(u32 a, u32 b) { return a < b ? b : a; }
u32 imin(u32 a, u32 b) { return static_cast<i32>(a) < static_cast<i32>(b) ? a : b; }
u32 imax(u32 a, u32 b) { return static_cast<i32>(a) < static_cast<i32>(b) ? b : a; }

void add_vop1(std::vector<Case>& cs) {
  struct Def { const char* m; std::function<u32(u32)> g; };
  const Def defs[] = {
      {"v_mov_b32", [](u32 a) { return a; }},
      {"v_not_b32", [](u32 a) { return ~a; }},
      {"v_bfrev_b32", [](u32 a) { u32 r = 0; for (int i = 0; i < 32; ++i) r |= ((a >> i) & 1u) << (31 - i); return r; }},
      // First one from the MSB: the count of leading zeros; 0xffffffff when no bit is set.
      {"v_ffbh_u32", [](u32 a) { for (int i = 31; i >= 0; --i) if ((a >> i) & 1) return static_cast<u32>(31 - i); return ~0u; }},
      {"v_ffbl_b32", [](u32 a) { for (int i = 0; i < 32; ++i) if ((a >> i) & 1) return static_cast<u32>(i); return ~0u; }},
      // First bit from the MSB that differs from the sign bit; 0xffffffff for 0 and -1.
      {"v_ffbh_i32", [](u32 a) { const u32 sgn = a >> 31; for (int i = 30; i >= 0; --i) if (((a >> i) & 1) != sgn) return static_cast<u32>(31 - i); return ~0u; }},
  };
  for (const Def& d : defs) add(cs, d.m, vop1_lines(f1(d.g), false));
}

void add_vop2(std::vector<Case>& cs) {
  struct Def { const char* m; std::function<u32(u32, u32)> g; bool narrow; };
  auto mul24 = [](u32 a, u32 b) { return static_cast<i64>(sx(a & 0xffffffu, 24)) * sx(b & 0xffffffu, 24); };
  auto mulu24 = [](u32 a, u32 b) { return static_cast<u64>(a & 0xffffffu) * (b & 0xffffffu); };
  const Def defs[] = {
      {"v_mul_i32_i24", [=](u32 a, u32 b) { return static_cast<u32>(mul24(a, b)); }, false},
      {"v_mul_hi_i32_i24", [=](u32 a, u32 b) { return static_cast<u32>(static_cast<u64>(mul24(a, b)) >> 32); }, false},
      {"v_mul_u32_u24", [=](u32 a, u32 b) { return static_cast<u32>(mulu24(a, b)); }, false},
      {"v_mul_hi_u32_u24", [=](u32 a, u32 b) { return static_cast<u32>(mulu24(a, b) >> 32); }, false},
      {"v_min_i32", imin, false},
      {"v_max_i32", imax, false},
      {"v_min_u32", umin, false},
      {"v_max_u32", umax, false},
      {"v_lshrrev_b32", [](u32 a, u32 b) { return b >> (a & 31); }, false},
      {"v_ashrrev_i32", [](u32 a, u32 b) { return static_cast<u32>(static_cast<i32>(b) >> (a & 31)); }, false},
      {"v_lshlrev_b32", [](u32 a, u32 b) { return b << (a & 31); }, false},
      {"v_and_b32", [](u32 a, u32 b) { return a & b; }, false},
      {"v_or_b32", [](u32 a, u32 b) { return a | b; }, false},
      {"v_xor_b32", [](u32 a, u32 b) { return a ^ b; }, false},
      {"v_xnor_b32", [](u32 a, u32 b) { return ~(a ^ b); }, false},
      {"v_add_u32", [](u32 a, u32 b) { return a + b; }, false},
      {"v_sub_u32", [](u32 a, u32 b) { return a - b; }, false},
      {"v_subrev_u32", [](u32 a, u32 b) { return b - a; }, false},
      // 16-bit: the low halves of the sources; bits 31:16 of the result are zero on gfx9
      // (LLVM GCNSubtarget::zeroesHigh16BitsOfDest).
      {"v_add_u16", [](u32 a, u32 b) { return u16r(lo16(a) + lo16(b)); }, true},
      {"v_sub_u16", [](u32 a, u32 b) { return u16r(static_cast<i64>(lo16(a)) - lo16(b)); }, true},
      {"v_mul_lo_u16", [](u32 a, u32 b) { return u16r(static_cast<i64>(lo16(a)) * lo16(b)); }, true},
      {"v_lshlrev_b16", [](u32 a, u32 b) { return u16r(lo16(b) << (a & 15)); }, true},
      {"v_lshrrev_b16", [](u32 a, u32 b) { return u16r(lo16(b) >> (a & 15)); }, true},
      {"v_ashrrev_i16", [](u32 a, u32 b) { return u16r(s16(b) >> (a & 15)); }, true},
      {"v_max_u16", [](u32 a, u32 b) { return umax(lo16(a), lo16(b)); }, true},
      {"v_max_i16", [](u32 a, u32 b) { return u16r(std::max(s16(a), s16(b))); }, true},
      {"v_min_u16", [](u32 a, u32 b) { return umin(lo16(a), lo16(b)); }, true},
      {"v_min_i16", [](u32 a, u32 b) { return u16r(std::min(s16(a), s16(b))); }, true},
  };
  for (const Def& d : defs) {
    auto lines = vop2_lines(f2(d.g), d.narrow, d.narrow ? 0x9abcu : 0x9abcdef1u);
    add(cs, d.m, lines);
  }
  // VOP3 clamp on unsigned add/sub saturates (ISA guide, V_ADD_U32/V_SUB_U32/V_SUBREV_U32/
  // V_ADD_U16/V_SUB_U16: "Supports saturation (unsigned ... integer domain)").
  auto sat = [](std::function<i64(u32, u32)> g, u32 max) {
    return f2([=](u32 a, u32 b) { const i64 r = g(a, b); return static_cast<u32>(r < 0 ? 0 : r > max ? max : r); });
  };
  const struct { const char* m; std::function<i64(u32, u32)> g; u32 max; } clamped[] = {
      {"v_add_u32", [](u32 a, u32 b) { return static_cast<i64>(a) + b; }, 0xffffffffu},
      {"v_sub_u32", [](u32 a, u32 b) { return static_cast<i64>(a) - b; }, 0xffffffffu},
      {"v_subrev_u32", [](u32 a, u32 b) { return static_cast<i64>(b) - a; }, 0xffffffffu},
      {"v_add_u16", [](u32 a, u32 b) { return static_cast<i64>(lo16(a)) + lo16(b); }, 0xffffu},
      {"v_sub_u16", [](u32 a, u32 b) { return static_cast<i64>(lo16(a)) - lo16(b); }, 0xffffu},
  };
  for (const auto& c : clamped) {
    const Fn f = sat(c.g, c.max);
    add(cs, c.m, {ln("_e64", 0, {V(0), V(1)}, f, false, "clamp"), ln("_e64", 1, {S(0), V(2)}, f, false, "clamp"),
                  ln("_e64", 2, {V(3), K(-1)}, f, true, "clamp")});
  }
}

// Carry ops: carry-out to VCC (e32, SDWA, DPP) or an SGPR pair (e64); carry-in from VCC or an
// SGPR pair. Sums/differences are formed exactly in 64 bits; bit 32 of the model is the carry.
void add_carries(std::vector<Case>& cs) {
  struct Def { const char* m; std::function<u64(u64, u64, u64)> g; bool cin; };
  const u64 m32 = 0xffffffffull;
  auto borrow = [m32](i64 d) { return (static_cast<u64>(d) & m32) | (d < 0 ? 1ull << 32 : 0); };
  const Def defs[] = {
      {"v_add_co_u32", [](u64 a, u64 b, u64) { return a + b; }, false},
      {"v_sub_co_u32", [=](u64 a, u64 b, u64) { return borrow(static_cast<i64>(a) - static_cast<i64>(b)); }, false},
      {"v_subrev_co_u32", [=](u64 a, u64 b, u64) { return borrow(static_cast<i64>(b) - static_cast<i64>(a)); }, false},
      {"v_addc_co_u32", [](u64 a, u64 b, u64 c) { return a + b + c; }, true},
      {"v_subb_co_u32", [=](u64 a, u64 b, u64 c) { return borrow(static_cast<i64>(a) - static_cast<i64>(b) - static_cast<i64>(c)); }, true},
      {"v_subbrev_co_u32", [=](u64 a, u64 b, u64 c) { return borrow(static_cast<i64>(b) - static_cast<i64>(a) - static_cast<i64>(c)); }, true},
  };
  for (const Def& d : defs) {
    const auto g = d.g;
    const Fn f = [g](const Args& x, int) { return g(x[0], x[1], x[2]); };
    const int ci = d.cin ? kVcc : -1;
    auto L = [&](std::string enc, int dst, std::vector<Op> src, int co, int cin, bool masked = false) {
      Line l = ln(std::move(enc), dst, std::move(src), f, masked);
      l.carry_out = co;
      l.carry_in = d.cin ? cin : -1;
      return l;
    };
    // At most one SGPR/literal per instruction (constant bus), the carry-in included.
    std::vector<Line> lines{L("", 0, {V(0), V(1)}, kVcc, ci),
                            L("_e64", 1, {V(2), V(3)}, 2, 4),  // carry-in s[20:21]
                            L("_e64", 2, {d.cin ? K(64) : S(0), V(4)}, 4, ci),
                            L("_e64", 3, {V(5), K(-2)}, 6, ci),
                            L("", 4, {d.cin ? K(-9) : K(0x7ffffff0), V(6)}, kVcc, ci),
                            L("", 5, {V(7), V(0)}, kVcc, ci, true)};
    Line sd = L("_sdwa", 6, {V(1), V(2)}, kVcc, ci);
    sd.sdwa = Sdwa{6, 0, 5, 4, true, false};
    lines.push_back(sd);
    Line dp = L("_dpp", 7, {V(3), V(4)}, kVcc, ci);
    dp.dpp = quad_perm(2, 3, 1, 0);
    lines.push_back(dp);
    add(cs, d.m, lines);
    // Save VCC after the first line into s[40:41] so every carry-out is observed, not only the last.
    Case& last = cs.back();
    const std::string first = line_text(d.m, lines[0]);
    last.body.replace(0, first.size(), first + "  s_mov_b64 s[40:41], vcc\n");
    last.model = [lines](State& s) {
      for (std::size_t i = 0; i < lines.size(); ++i) {
        run_line(s, lines[i]);
        if (i == 0) {
          s.sout[0] = static_cast<u32>(s.vcc);
          s.sout[1] = static_cast<u32>(s.vcc >> 32);
        }
      }
    };
  }
}

void add_vop3(std::vector<Case>& cs) {
  struct Def { const char* m; std::function<u32(u32, u32, u32)> g; };
  auto med = [](i64 a, i64 b, i64 c) { return std::max(std::min(a, b), std::min(std::max(a, b), c)); };
  auto si = [](u32 v) { return static_cast<i64>(static_cast<i32>(v)); };
  auto perm_byte = [](u64 in, u32 sel) -> u32 {
    if (sel >= 13) return 0xff;
    if (sel == 12) return 0;
    if (sel >= 8) return ((in >> (16 * (sel - 8) + 15)) & 1) ? 0xffu : 0u;  // sign of byte 1, 3, 5, 7
    return static_cast<u32>(in >> (8 * sel)) & 0xff;
  };
  const Def defs[] = {
      {"v_mad_u32_u24", [](u32 a, u32 b, u32 c) { return (a & 0xffffffu) * (b & 0xffffffu) + c; }},
      {"v_mad_i32_i24", [](u32 a, u32 b, u32 c) { return static_cast<u32>(sx(a & 0xffffffu, 24) * static_cast<i64>(sx(b & 0xffffffu, 24))) + c; }},
      {"v_alignbit_b32", [](u32 a, u32 b, u32 c) { return static_cast<u32>(((static_cast<u64>(a) << 32) | b) >> (c & 31)); }},
      {"v_alignbyte_b32", [](u32 a, u32 b, u32 c) { return static_cast<u32>(((static_cast<u64>(a) << 32) | b) >> (8 * (c & 3))); }},
      {"v_min3_i32", [](u32 a, u32 b, u32 c) { return imin(imin(a, b), c); }},
      {"v_min3_u32", [](u32 a, u32 b, u32 c) { return umin(umin(a, b), c); }},
      {"v_max3_i32", [](u32 a, u32 b, u32 c) { return imax(imax(a, b), c); }},
      {"v_max3_u32", [](u32 a, u32 b, u32 c) { return umax(umax(a, b), c); }},
      {"v_med3_i32", [=](u32 a, u32 b, u32 c) { return static_cast<u32>(med(si(a), si(b), si(c))); }},
      {"v_med3_u32", [=](u32 a, u32 b, u32 c) { return static_cast<u32>(med(a, b, c)); }},
      {"v_xad_u32", [](u32 a, u32 b, u32 c) { return (a ^ b) + c; }},
      {"v_lshl_add_u32", [](u32 a, u32 b, u32 c) { return (a << (b & 31)) + c; }},
      {"v_add_lshl_u32", [](u32 a, u32 b, u32 c) { return (a + b) << (c & 31); }},
      {"v_add3_u32", [](u32 a, u32 b, u32 c) { return a + b + c; }},
      {"v_lshl_or_b32", [](u32 a, u32 b, u32 c) { return (a << (b & 31)) | c; }},
      {"v_and_or_b32", [](u32 a, u32 b, u32 c) { return (a & b) | c; }},
      {"v_or3_b32", [](u32 a, u32 b, u32 c) { return a | b | c; }},
      // Byte permute of {S0, S1} (S1 = bytes 0..3) by the four selector bytes of S2.
      {"v_perm_b32", [=](u32 a, u32 b, u32 c) {
         const u64 in = (static_cast<u64>(a) << 32) | b;
         u32 r = 0;
         for (int i = 0; i < 4; ++i) r |= perm_byte(in, (c >> (8 * i)) & 0xff) << (8 * i);
         return r; }},
      {"v_bfe_u32", [](u32 a, u32 b, u32 c) { const u32 w = c & 31; return (a >> (b & 31)) & ((1u << w) - 1); }},
      {"v_bfe_i32", [](u32 a, u32 b, u32 c) {
         const u32 w = c & 31;
         if (w == 0) return 0u;
         return static_cast<u32>(sx(static_cast<u32>(static_cast<i32>(a) >> (b & 31)) & ((1u << w) - 1), static_cast<int>(w))); }},
      {"v_bfi_b32", [](u32 a, u32 b, u32 c) { return (a & b) | (~a & c); }},
      {"v_sad_u32", [](u32 a, u32 b, u32 c) { return (a > b ? a - b : b - a) + c; }},
  };
  for (const Def& d : defs) {
    std::function<void(State&)> init = nullptr;
    if (std::string(d.m) == "v_perm_b32") {
      // Selector registers (S2 of each line: v12, v14, v0, v3): even lanes get selectors 0..15 in
      // every byte, odd lanes keep random bytes (mostly >= 13).
      init = [](State& s) {
        for (int k : {0, 2, 3, 4})
          for (int l = 0; l < kLanes; l += 2) s.vin[static_cast<std::size_t>(k)][static_cast<std::size_t>(l)] &= 0x0f0f0f0fu;
      };
    }
    add(cs, d.m, vop3_3_lines(f3(d.g)), init);
  }

  struct Def2 { const char* m; Fn f; };
  const Def2 defs2[] = {
      {"v_mul_lo_u32", f2([](u32 a, u32 b) { return a * b; })},
      {"v_mul_hi_u32", f2([](u32 a, u32 b) { return static_cast<u32>((static_cast<u64>(a) * b) >> 32); })},
      {"v_mul_hi_i32", f2([](u32 a, u32 b) { return static_cast<u32>(static_cast<u64>(static_cast<i64>(static_cast<i32>(a)) * static_cast<i32>(b)) >> 32); })},
      {"v_bcnt_u32_b32", f2([](u32 a, u32 b) { return static_cast<u32>(std::popcount(a)) + b; })},
      {"v_bfm_b32", f2([](u32 a, u32 b) { return ((1u << (a & 31)) - 1) << (b & 31); })},
      // Count of set bits of S0 in the lanes below this one (lo: lanes 0..31, hi: 32..63) + S1.
      {"v_mbcnt_lo_u32_b32", [](const Args& x, int l) -> u64 {
         const u32 below = l >= 32 ? ~0u : (1u << l) - 1; return static_cast<u32>(std::popcount(x[0] & below)) + x[1]; }},
      {"v_mbcnt_hi_u32_b32", [](const Args& x, int l) -> u64 {
         const u32 below = l < 32 ? 0u : static_cast<u32>((1ull << (l - 32)) - 1); return static_cast<u32>(std::popcount(x[0] & below)) + x[1]; }},
  };
  for (const Def2& d : defs2) add(cs, d.m, vop3_2_lines(d.f));
}

// Packed 16-bit (VOP3P): each half is f(selected half of S0, selected half of S1); op_sel picks
// the halves for the low result, op_sel_hi for the high one (ISA guide, "VOP3P"). `clamp`
// saturates add/sub (LLVM VOP3PInstructions.td: uaddsat/saddsat/... select the clamp bit).
void add_packed(std::vector<Case>& cs) {
  using G = std::function<i64(u32, u32)>;  // exact result from two 16-bit halves (zero-extended)
  struct Def { const char* m; G g; int clamp; };  // clamp: 0 none, 1 unsigned, 2 signed
  const Def defs[] = {
      {"v_pk_add_u16", [](u32 a, u32 b) { return static_cast<i64>(a) + b; }, 1},
      {"v_pk_sub_u16", [](u32 a, u32 b) { return static_cast<i64>(a) - b; }, 1},
      {"v_pk_add_i16", [](u32 a, u32 b) { return static_cast<i64>(s16(a)) + s16(b); }, 2},
      {"v_pk_sub_i16", [](u32 a, u32 b) { return static_cast<i64>(s16(a)) - s16(b); }, 2},
      {"v_pk_mul_lo_u16", [](u32 a, u32 b) { return static_cast<i64>(a) * b; }, 0},
      {"v_pk_lshlrev_b16", [](u32 a, u32 b) { return static_cast<i64>(b << (a & 15)); }, 0},
      {"v_pk_lshrrev_b16", [](u32 a, u32 b) { return static_cast<i64>(b >> (a & 15)); }, 0},
      {"v_pk_ashrrev_i16", [](u32 a, u32 b) { return static_cast<i64>(s16(b) >> (a & 15)); }, 0},
      {"v_pk_max_i16", [](u32 a, u32 b) { return static_cast<i64>(std::max(s16(a), s16(b))); }, 0},
      {"v_pk_min_i16", [](u32 a, u32 b) { return static_cast<i64>(std::min(s16(a), s16(b))); }, 0},
      {"v_pk_max_u16", [](u32 a, u32 b) { return static_cast<i64>(std::max(a, b)); }, 0},
      {"v_pk_min_u16", [](u32 a, u32 b) { return static_cast<i64>(std::min(a, b)); }, 0},
  };
  auto pk = [](G g, int os0, int os1, int oh0, int oh1, int clamp) {
    return f2([=](u32 a, u32 b) {
      auto half = [&](int s0, int s1) {
        i64 r = g(s0 ? a >> 16 : a & 0xffff, s1 ? b >> 16 : b & 0xffff);
        if (clamp == 1) r = std::clamp<i64>(r, 0, 0xffff);
        if (clamp == 2) r = std::clamp<i64>(r, -0x8000, 0x7fff);
        return static_cast<u32>(r) & 0xffffu;
      };
      return half(os0, os1) | (half(oh0, oh1) << 16);
    });
  };
  for (const Def& d : defs) {
    std::vector<Line> lines{
        ln("", 0, {V(0), V(1)}, pk(d.g, 0, 0, 1, 1, 0)),
        ln("", 1, {V(2), V(3)}, pk(d.g, 1, 0, 0, 1, 0), false, "op_sel:[1,0] op_sel_hi:[0,1]"),
        ln("", 2, {S(0), V(4)}, pk(d.g, 0, 1, 1, 0, 0), false, "op_sel:[0,1] op_sel_hi:[1,0]"),
        ln("", 3, {V(5), S(1)}, pk(d.g, 1, 1, 0, 0, 0), false, "op_sel:[1,1] op_sel_hi:[0,0]"),
        ln("", 4, {V(6), V(7)}, pk(d.g, 0, 0, 1, 1, 0), true)};
    if (d.clamp) {
      lines.push_back(ln("", 5, {V(0), V(2)}, pk(d.g, 0, 0, 1, 1, d.clamp), false, "clamp"));
      lines.push_back(ln("", 6, {V(4), V(1)}, pk(d.g, 1, 0, 1, 0, d.clamp), false, "op_sel:[1,0] op_sel_hi:[1,0] clamp"));
    }
    add(cs, d.m, lines);
  }
}

// A case whose body and model are written out by hand.
void add_raw(std::vector<Case>& cs, const std::string& m, std::string body, std::function<void(State&)> model,
             std::function<void(State&)> init = nullptr) {
  cs.push_back({m, std::move(body), std::move(model), Values::Int, shaped(std::move(init))});
}

u64 vpair(const State& s, int k, int l) { return lane_pair(s.vin[static_cast<std::size_t>(k)], s.vin[static_cast<std::size_t>(k + 1)], l); }
void set_out_pair(State& s, int k, int l, u64 v) {
  set_lane_pair(s.vout[static_cast<std::size_t>(k)], s.vout[static_cast<std::size_t>(k + 1)], l, v);
}
u64 exec_mask(const State& s) { return sgpr_pair(s, 2); }
bool on(u64 mask, int l) { return (mask >> l) & 1; }

void add_moves_and_lanes(std::vector<Case>& cs) {
  add_raw(cs, "v_nop", "  v_nop\n  v_nop", [](State&) {});

  // v_mov_b64: VGPR pair, SGPR pair (e64), inline constants (64-bit: sign-extended), partial EXEC.
  add_raw(cs, "v_mov_b64",
          "  v_mov_b64 v[32:33], v[10:11]\n  v_mov_b64_e64 v[34:35], s[16:17]\n  v_mov_b64 v[36:37], -1\n"
          "  v_mov_b64 v[38:39], 17\n  v_mov_b64 v[40:41], -16\n"
          "  s_mov_b64 exec, s[18:19]\n  v_mov_b64 v[42:43], v[12:13]\n  s_mov_b64 exec, -1",
          [](State& s) {
            const u64 ex = exec_mask(s);
            for (int l = 0; l < kLanes; ++l) {
              set_out_pair(s, 0, l, vpair(s, 0, l));
              set_out_pair(s, 2, l, sgpr_pair(s, 0));
              set_out_pair(s, 4, l, ~0ull);
              set_out_pair(s, 6, l, 17);
              set_out_pair(s, 8, l, static_cast<u64>(-16ll));
              if (on(ex, l)) set_out_pair(s, 10, l, vpair(s, 2, l));
            }
          });

  // v_swap_b32 exchanges both registers (active lanes only).
  add_raw(cs, "v_swap_b32",
          "  v_mov_b32 v32, v10\n  v_mov_b32 v33, v11\n  v_swap_b32 v32, v33\n"
          "  s_mov_b64 exec, s[18:19]\n  v_swap_b32 v34, v35\n  s_mov_b64 exec, -1",
          [](State& s) {
            const u64 ex = exec_mask(s);
            for (int l = 0; l < kLanes; ++l) {
              vout(s, 0, l) = vin(s, 1, l);
              vout(s, 1, l) = vin(s, 0, l);
              if (on(ex, l)) std::swap(vout(s, 2, l), vout(s, 3, l));
            }
          });

  // v_readfirstlane_b32: the lowest active lane; lane 0 when EXEC is zero (ISA guide opcode table).
  add_raw(cs, "v_readfirstlane_b32",
          "  v_readfirstlane_b32 s40, v10\n  s_mov_b64 exec, s[18:19]\n  v_readfirstlane_b32 s41, v11\n"
          "  s_mov_b64 exec, s[20:21]\n  v_readfirstlane_b32 s42, v12\n"
          "  s_mov_b64 exec, 0\n  v_readfirstlane_b32 s43, v13\n  s_mov_b64 exec, -1",
          [](State& s) {
            s.sout[0] = vin(s, 0, 0);
            s.sout[1] = vin(s, 1, std::countr_zero(exec_mask(s)));
            s.sout[2] = vin(s, 2, 45);
            s.sout[3] = vin(s, 3, 0);
          },
          [](State& s) { s.sin[4] = 0; s.sin[5] = 0xffffe000u; });  // s[20:21]: first lane 45

  // v_readlane_b32: lane = S1[5:0], regardless of EXEC.
  add_raw(cs, "v_readlane_b32",
          "  v_readlane_b32 s40, v10, 5\n  v_readlane_b32 s41, v11, s16\n  v_readlane_b32 s42, v12, 63\n"
          "  v_readlane_b32 s43, v13, m0\n  s_mov_b64 exec, s[18:19]\n  v_readlane_b32 s44, v14, s17\n"
          "  s_mov_b64 exec, -1",
          [](State& s) {
            s.sout[0] = vin(s, 0, 5);
            s.sout[1] = vin(s, 1, static_cast<int>(s.sin[0] & 63));
            s.sout[2] = vin(s, 2, 63);
            s.sout[3] = vin(s, 3, static_cast<int>(s.m0 & 63));
            s.sout[4] = vin(s, 4, static_cast<int>(s.sin[1] & 63));
          });

  // v_writelane_b32: writes lane S1[5:0] of VDST, regardless of EXEC (also with EXEC = 0).
  add_raw(cs, "v_writelane_b32",
          "  v_writelane_b32 v32, s16, 5\n  v_writelane_b32 v32, s17, 9\n  v_writelane_b32 v33, 17, 63\n"
          "  v_writelane_b32 v34, s21, m0\n  v_writelane_b32 v36, -3, s20\n"
          "  s_mov_b64 exec, 0\n  v_writelane_b32 v35, s22, 40\n  s_mov_b64 exec, -1",
          [](State& s) {
            vout(s, 0, 5) = s.sin[0];
            vout(s, 0, 9) = s.sin[1];
            vout(s, 1, 63) = 17;
            vout(s, 2, static_cast<int>(s.m0 & 63)) = s.sin[5];
            vout(s, 4, static_cast<int>(s.sin[4] & 63)) = static_cast<u32>(-3);
            vout(s, 3, 40) = s.sin[6];
          });
}

void add_wide(std::vector<Case>& cs) {
  // 64-bit shifts: D = S1.u64 shifted by S0[5:0].
  struct Sh { const char* m; std::function<u64(u64, u32)> g; };
  const Sh shifts[] = {
      {"v_lshlrev_b64", [](u64 v, u32 n) { return v << (n & 63); }},
      {"v_lshrrev_b64", [](u64 v, u32 n) { return v >> (n & 63); }},
      {"v_ashrrev_i64", [](u64 v, u32 n) { return static_cast<u64>(static_cast<i64>(v) >> (n & 63)); }},
  };
  for (const Sh& d : shifts) {
    const std::string m = d.m;
    const auto g = d.g;
    add_raw(cs, m,
            "  " + m + " v[32:33], v10, v[12:13]\n  " + m + " v[34:35], s16, v[14:15]\n  " + m +
                " v[36:37], 40, v[16:17]\n  " + m + " v[38:39], v11, s[20:21]\n  s_mov_b64 exec, s[18:19]\n  " + m +
                " v[40:41], v13, v[10:11]\n  s_mov_b64 exec, -1",
            [g](State& s) {
              const u64 ex = exec_mask(s);
              for (int l = 0; l < kLanes; ++l) {
                set_out_pair(s, 0, l, g(vpair(s, 2, l), vin(s, 0, l)));
                set_out_pair(s, 2, l, g(vpair(s, 4, l), s.sin[0]));
                set_out_pair(s, 4, l, g(vpair(s, 6, l), 40));
                set_out_pair(s, 6, l, g(sgpr_pair(s, 4), vin(s, 1, l)));
                if (on(ex, l)) set_out_pair(s, 8, l, g(vpair(s, 0, l), vin(s, 3, l)));
              }
            });
  }

  // v_lshl_add_u64: (S0.u64 << S1[2:0]) + S2.u64; the guide supports shifts 0..4 only, so v11
  // holds lane % 5.
  add_raw(cs, "v_lshl_add_u64",
          "  v_lshl_add_u64 v[32:33], v[12:13], v11, v[14:15]\n  v_lshl_add_u64 v[34:35], s[16:17], 4, v[16:17]\n"
          "  v_lshl_add_u64 v[36:37], v[12:13], 0, -1\n  s_mov_b64 exec, s[18:19]\n"
          "  v_lshl_add_u64 v[38:39], v[16:17], 2, v[12:13]\n  s_mov_b64 exec, -1",
          [](State& s) {
            const u64 ex = exec_mask(s);
            for (int l = 0; l < kLanes; ++l) {
              set_out_pair(s, 0, l, (vpair(s, 2, l) << vin(s, 1, l)) + vpair(s, 4, l));
              set_out_pair(s, 2, l, (sgpr_pair(s, 0) << 4) + vpair(s, 6, l));
              set_out_pair(s, 4, l, vpair(s, 2, l) + ~0ull);
              if (on(ex, l)) set_out_pair(s, 6, l, (vpair(s, 6, l) << 2) + vpair(s, 2, l));
            }
          },
          [](State& s) { for (int l = 0; l < kLanes; ++l) s.vin[1][static_cast<std::size_t>(l)] = static_cast<u32>(l % 5); });

  // v_mad_u64_u32: {carry, D.u64} = S0.u32 * S1.u32 + S2.u64 (exact, 65 bits).
  // v_mad_i64_i32: signed; the carry-out is bit 64 of the 65-bit two's-complement result.
  for (bool sgn : {false, true}) {
    const std::string m = sgn ? "v_mad_i64_i32" : "v_mad_u64_u32";
    auto mad = [sgn](u32 a, u32 b, u64 c, bool& carry) {
      const u64 p = sgn ? static_cast<u64>(static_cast<i64>(static_cast<i32>(a)) * static_cast<i32>(b))
                        : static_cast<u64>(a) * b;  // exact in 64 bits either way
      const u64 r = p + c;
      const bool wrap = r < p;  // carry out of bit 63
      // Unsigned: bit 64 is that carry. Signed: bit 64 of the sign-extended 65-bit sum.
      carry = sgn ? ((p >> 63) ^ (c >> 63) ^ static_cast<u64>(wrap)) != 0 : wrap;
      return r;
    };
    add_raw(cs, m,
            "  " + m + " v[32:33], s[40:41], v10, v11, v[12:13]\n  " + m + " v[34:35], s[42:43], s16, v14, v[16:17]\n  " +
                m + " v[36:37], vcc, v15, -3, -1\n  s_mov_b64 exec, s[18:19]\n  " + m +
                " v[38:39], s[44:45], v16, v17, v[10:11]\n  s_mov_b64 exec, -1",
            [mad](State& s) {
              const u64 ex = exec_mask(s);
              u64 c0 = 0, c1 = 0, c2 = 0, c3 = 0;
              for (int l = 0; l < kLanes; ++l) {
                bool c = false;
                set_out_pair(s, 0, l, mad(vin(s, 0, l), vin(s, 1, l), vpair(s, 2, l), c));
                c0 |= static_cast<u64>(c) << l;
                set_out_pair(s, 2, l, mad(s.sin[0], vin(s, 4, l), vpair(s, 6, l), c));
                c1 |= static_cast<u64>(c) << l;
                set_out_pair(s, 4, l, mad(vin(s, 5, l), static_cast<u32>(-3), ~0ull, c));
                c2 |= static_cast<u64>(c) << l;
                if (on(ex, l)) {
                  set_out_pair(s, 6, l, mad(vin(s, 6, l), vin(s, 7, l), vpair(s, 0, l), c));
                  c3 |= static_cast<u64>(c) << l;
                }
              }
              s.sout[0] = static_cast<u32>(c0); s.sout[1] = static_cast<u32>(c0 >> 32);
              s.sout[2] = static_cast<u32>(c1); s.sout[3] = static_cast<u32>(c1 >> 32);
              s.vcc = c2;
              s.sout[4] = static_cast<u32>(c3); s.sout[5] = static_cast<u32>(c3 >> 32);
            });
  }

  // v_pk_mov_b32: D[31:0] = op_sel[0] ? S0[63:32] : S0[31:0]; D[63:32] = op_sel[1] ? S1[63:32] : S1[31:0].
  add_raw(cs, "v_pk_mov_b32",
          "  v_pk_mov_b32 v[32:33], v[10:11], v[12:13]\n  v_pk_mov_b32 v[34:35], v[10:11], v[12:13] op_sel:[1,0]\n"
          "  v_pk_mov_b32 v[36:37], v[14:15], v[16:17] op_sel:[0,1]\n"
          "  v_pk_mov_b32 v[38:39], s[16:17], v[16:17] op_sel:[1,1]\n"
          "  s_mov_b64 exec, s[18:19]\n  v_pk_mov_b32 v[40:41], v[12:13], v[10:11] op_sel:[1,0]\n  s_mov_b64 exec, -1",
          [](State& s) {
            const u64 ex = exec_mask(s);
            auto pm = [](u64 a, u64 b, int o0, int o1) {
              return (o0 ? a >> 32 : a & 0xffffffffull) | ((o1 ? b >> 32 : b & 0xffffffffull) << 32);
            };
            for (int l = 0; l < kLanes; ++l) {
              set_out_pair(s, 0, l, pm(vpair(s, 0, l), vpair(s, 2, l), 0, 0));
              set_out_pair(s, 2, l, pm(vpair(s, 0, l), vpair(s, 2, l), 1, 0));
              set_out_pair(s, 4, l, pm(vpair(s, 4, l), vpair(s, 6, l), 0, 1));
              set_out_pair(s, 6, l, pm(sgpr_pair(s, 0), vpair(s, 6, l), 1, 1));
              if (on(ex, l)) set_out_pair(s, 8, l, pm(vpair(s, 2, l), vpair(s, 0, l), 1, 0));
            }
          });
}

// v_cndmask_b32: D = mask[lane] ? S1 : S0, mask VCC (e32) or an SGPR pair (e64).
void add_cndmask(std::vector<Case>& cs) {
  const Fn f = [](const Args& x, int) -> u64 { return x[2] ? x[1] : x[0]; };
  auto L = [&](std::string enc, int dst, std::vector<Op> src, int cin, bool masked = false) {
    Line l = ln(std::move(enc), dst, std::move(src), f, masked);
    l.carry_in = cin;
    return l;
  };
  // VCC is a constant-bus read: no SGPR or literal source besides it.
  std::vector<Line> lines{L("", 0, {V(0), V(1)}, kVcc), L("", 1, {K(-5), V(2)}, kVcc),
                          L("_e64", 2, {V(3), K(3)}, kVcc), L("_e64", 3, {V(4), V(5)}, 4),
                          L("_e64", 4, {K(-1), V(6)}, 6), L("_e64", 5, {V(7), K(64)}, kVcc),
                          L("", 6, {V(1), V(0)}, kVcc, true)};
  Line sd = L("_sdwa", 7, {V(2), V(3)}, kVcc);
  sd.sdwa = Sdwa{4, 2, 1, 5, false, false};  // no sext: not accepted for v_cndmask
  lines.push_back(sd);
  Line dp = L("_dpp", 8, {V(4), V(5)}, kVcc);
  dp.dpp = with(row_ror(5), 0xf, 0x7, false);
  lines.push_back(dp);
  add(cs, "v_cndmask_b32", lines);
}

// DPP controls with v_mov_b32 (every dpp_ctrl kind, masks, bound_ctrl) and with a partial EXEC
// whose active lanes only read active lanes (reads of inactive lanes are not modelled).
void add_dpp(std::vector<Case>& cs) {
  const Fn id = f1([](u32 a) { return a; });
  auto D = [](std::string ctrl, std::function<int(int)> src) { return Dpp{std::move(ctrl), std::move(src)}; };
  const Dpp wave_shl = D("wave_shl:1", [](int l) { return l < 63 ? l + 1 : -1; });
  const Dpp wave_shr = D("wave_shr:1", [](int l) { return l > 0 ? l - 1 : -1; });
  const Dpp wave_rol = D("wave_rol:1", [](int l) { return (l + 1) & 63; });
  const Dpp wave_ror = D("wave_ror:1", [](int l) { return (l + 63) & 63; });
  const Dpp mirror = D("row_mirror", [](int l) { return (l & ~15) | (15 - (l & 15)); });
  const Dpp half_mirror = D("row_half_mirror", [](int l) { return (l & ~7) | (7 - (l & 7)); });
  // row_bcast:15: lane 15 of each row feeds the next row; row_bcast:31: lane 31 feeds rows 2, 3.
  // Used with the row masks LLVM's reductions use (0xa, 0xc); other rows are not written.
  const Dpp bcast15 = with(D("row_bcast:15", [](int l) { return (l & ~15) - 1; }), 0xa, 0xf, false);
  const Dpp bcast31 = with(D("row_bcast:31", [](int) { return 31; }), 0xc, 0xf, false);
  // row_newbcast:n (gfx90a+; AITER's decode kernels): lane n of each row to the whole row.
  auto newbcast = [&](int n) { return D("row_newbcast:" + std::to_string(n), [n](int l) { return (l & ~15) | n; }); };
  const std::vector<Dpp> ctrls{row_shl(1), row_shl(15), with(row_shr(1), 0xf, 0xf, true), row_shr(3), row_ror(4),
                               row_ror(15), wave_shl, with(wave_shr, 0xf, 0xf, true), wave_rol, wave_ror,
                               mirror, half_mirror, bcast15, bcast31, quad_perm(3, 2, 1, 0), quad_perm(0, 0, 2, 1),
                               with(row_shl(2), 0x5, 0xf, false), with(row_shr(2), 0xf, 0x6, true),
                               with(quad_perm(1, 1, 0, 3), 0xe, 0x3, false), with(wave_shl, 0xf, 0xf, true),
                               newbcast(0), newbcast(7), newbcast(15), with(newbcast(3), 0x6, 0xf, false),
                               with(newbcast(12), 0xf, 0x9, false)};
  std::vector<Line> lines;
  for (std::size_t i = 0; i < ctrls.size(); ++i)
    lines.push_back(dpp_ln(static_cast<int>(i), {V(static_cast<int>(i % kVIn))}, id, ctrls[i]));
  add(cs, "v_mov_b32", lines);

  // Integer VOP2 with DPP as used in scans and reductions, with quad- and row-aligned EXEC.
  const Fn add_fn = f2([](u32 a, u32 b) { return a + b; });
  const Fn max_fn = f2(imax);
  Line q = dpp_ln(0, {V(0), V(1)}, add_fn, quad_perm(2, 3, 0, 1));
  q.masked = true;
  Line r = dpp_ln(0, {V(2), V(3)}, max_fn, mirror);
  r.masked = true;
  add(cs, "v_add_u32", {q, dpp_ln(1, {V(4), V(5)}, add_fn, with(row_shr(2), 0xf, 0xf, true)),
                        dpp_ln(2, {V(6), V(7)}, add_fn, bcast15)}, [](State& s) {
    s.sin[2] = 0xf0ff000fu;  // whole quads
    s.sin[3] = 0x0ff0f00fu;
  });
  // row_newbcast with the 24-bit multiply AITER's paged attention uses (bits 24-31 of each
  // source ignored) and with row-aligned EXEC.
  const Fn mul24 = f2([](u32 a, u32 b) { return (a & 0xffffffu) * (b & 0xffffffu); });
  Line nb = dpp_ln(0, {V(2), V(3)}, mul24, newbcast(5));
  nb.masked = true;
  add(cs, "v_mul_u32_u24", {nb, dpp_ln(1, {V(4), V(5)}, mul24, newbcast(15)), dpp_ln(2, {V(6), V(7)}, mul24, with(newbcast(0), 0x5, 0xf, false))},
      [](State& s) {
        s.sin[2] = 0xffff0000u;  // whole rows: rows 1 and 2
        s.sin[3] = 0x0000ffffu;
      });
  add(cs, "v_max_i32", {r, dpp_ln(1, {V(0), V(1)}, max_fn, bcast31)}, [](State& s) {
    s.sin[2] = 0xffff0000u;  // whole rows: rows 1 and 2
    s.sin[3] = 0x0000ffffu;
  });
}

// SDWA with v_mov_b32 and v_and_b32: every select, sext, and the three dst_unused modes.
void add_sdwa(std::vector<Case>& cs) {
  const Fn id = f1([](u32 a) { return a; });
  std::vector<Line> lines;
  int k = 0;
  for (int sel = 0; sel < 7; ++sel)
    for (int un = 0; un < 3; ++un) {
      if (sel == 6 && un > 0) continue;
      lines.push_back(sdwa_ln(k, {V(k % kVIn)}, id, {sel, un, (sel + un + 1) % 7, 6, (k & 1) == 1, false}));
      ++k;
    }
  Line m = sdwa_ln(k, {V(3)}, id, {5, 2, 1, 6, true, false});
  m.masked = true;
  lines.push_back(m);
  add(cs, "v_mov_b32", lines);
  const Fn andf = f2([](u32 a, u32 b) { return a & b; });
  std::vector<Line> l2;
  for (int i = 0; i < 7; ++i) l2.push_back(sdwa_ln(i, {V(i), V(i + 1)}, andf, {i, i % 3, (i + 2) % 7, (i + 5) % 7, i % 2 == 0, i % 3 == 0}));
  l2.push_back(sdwa_ln(7, {V(0), S(3)}, andf, {4, 1, 6, 0, false, true}));
  add(cs, "v_and_b32", l2);
}

}  // namespace

void add_valu_int_cases(std::vector<Case>& cs) {
  add_moves_and_lanes(cs);
  add_vop1(cs);
  add_vop2(cs);
  add_carries(cs);
  add_cndmask(cs);
  add_vop3(cs);
  add_packed(cs);
  add_wide(cs);
  add_dpp(cs);
  add_sdwa(cs);
}

}  // namespace cdna::simulator::directed
