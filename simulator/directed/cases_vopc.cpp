// VOPC cases: every v_cmp_* / v_cmpx_* (incl. class) for f16/f32/f64/i16/u16/i32/u32/i64/u64.
// Models written for the tests from the CDNA3 ISA guide's VOPC descriptions (chapter 6, "Vector
// ALU Operations", VOPC table): a compare is a predicate on the ordering of its operands (less,
// equal, greater, unordered when either float operand is a NaN; +0 == -0), written per lane into
// a 64-bit mask (VCC for the e32 form, an SGPR pair for the e64 form) whose bits for lanes
// inactive in EXEC are 0; v_cmpx_* also writes the mask to EXEC. v_cmp_class_* tests src0
// against the class mask in src1 (bit 0 signalling NaN, 1 quiet NaN, 2 -inf, 3 -normal,
// 4 -denormal, 5 -0, 6 +0, 7 +denormal, 8 +normal, 9 +inf; the ISA guide's V_CMP_CLASS_F32 and
// LLVM SIDefines.h SIInstrFlags::S_NAN..P_INFINITY).
//
// Each case runs the instruction several times on operand pairs that cross a table of edge
// values (every pair of: ±0, ±1, 0.5, ±inf, quiet NaN, signalling NaN, ±denormal; integer
// extremes), with an SGPR operand, an inline constant, a literal, abs/neg modifiers (floats),
// SDWA word selects (16-bit types) and a partial EXEC. f32 cases first set MODE's fp32 denormal
// field to 3 (keep): the kernel descriptor default is 0 (flush), and whether VOPC honours
// flushing is not stated in the sources found (see the report / docs); f16/f64 keep denormals
// by default (MODE bits 7:6 = 3 from the descriptor).
#include <bit>
#include <cmath>
#include <stdexcept>

#include "simulator/directed/cases.hpp"

namespace cdna::simulator::directed {
namespace {

enum class Ty { F16, F32, F64, I16, U16, I32, U32, I64, U64 };

struct TyInfo {
  const char* suffix;
  Ty ty;
  int bits;
  bool is_float;
};
constexpr TyInfo kTypes[] = {
    {"f16", Ty::F16, 16, true},  {"f32", Ty::F32, 32, true},  {"f64", Ty::F64, 64, true},
    {"i16", Ty::I16, 16, false}, {"u16", Ty::U16, 16, false}, {"i32", Ty::I32, 32, false},
    {"u32", Ty::U32, 32, false}, {"i64", Ty::I64, 64, false}, {"u64", Ty::U64, 64, false},
};

const TyInfo& type_of(const std::string& suffix) {
  for (const auto& t : kTypes)
    if (suffix == t.suffix) return t;
  throw std::invalid_argument("cases_vopc: unknown type " + suffix);
}

u64 width_mask(int bits) { return bits == 64 ? ~0ull : (1ull << bits) - 1; }

// Value of an f16 bit pattern, decoded from the binary16 definition (bias 15, 10 fraction bits).
double half_value(u64 h) {
  const int sign = (h >> 15) & 1, e = (h >> 10) & 0x1f;
  const double f = static_cast<double>(h & 0x3ff);
  double v;
  if (e == 31) v = f != 0 ? std::nan("") : INFINITY;
  else if (e == 0) v = std::ldexp(f, -24);
  else v = std::ldexp(1024.0 + f, e - 25);
  return sign ? -v : v;
}

double float_value(const TyInfo& t, u64 bits) {
  if (t.ty == Ty::F16) return half_value(bits);
  if (t.ty == Ty::F32) return std::bit_cast<float>(static_cast<u32>(bits));
  return std::bit_cast<double>(bits);
}

// Ordering of a and b: bit 0 less, bit 1 equal, bit 2 greater, bit 3 unordered.
constexpr int kL = 1, kE = 2, kG = 4, kU = 8;
int ordering(const TyInfo& t, u64 a, u64 b) {
  a &= width_mask(t.bits);
  b &= width_mask(t.bits);
  if (t.is_float) {
    const double x = float_value(t, a), y = float_value(t, b);
    if (std::isnan(x) || std::isnan(y)) return kU;
    return x < y ? kL : x == y ? kE : kG;
  }
  const bool is_signed = t.ty == Ty::I16 || t.ty == Ty::I32 || t.ty == Ty::I64;
  if (is_signed) {
    const int sh = 64 - t.bits;  // sign-extend through the top bit
    const i64 x = static_cast<i64>(a << sh) >> sh, y = static_cast<i64>(b << sh) >> sh;
    return x < y ? kL : x == y ? kE : kG;
  }
  return a < b ? kL : a == b ? kE : kG;
}

// The set of orderings a predicate accepts (ISA guide VOPC opcode descriptions).
int accepted(const std::string& op) {
  struct P { const char* name; int set; };
  static const P table[] = {
      {"f", 0},           {"lt", kL},           {"eq", kE},      {"le", kL | kE},
      {"gt", kG},         {"lg", kL | kG},      {"ge", kG | kE}, {"o", kL | kE | kG},
      {"u", kU},          {"nge", kL | kU},     {"nlg", kE | kU}, {"ngt", kL | kE | kU},
      {"nle", kG | kU},   {"neq", kL | kG | kU}, {"nlt", kE | kG | kU}, {"tru", kL | kE | kG | kU},
      {"ne", kL | kG},    {"t", kL | kE | kG},
  };
  for (const auto& p : table)
    if (op == p.name) return p.set;
  throw std::invalid_argument("cases_vopc: unknown predicate " + op);
}

// Class bit of a float pattern (mask bit numbering in the file comment).
int class_bit(const TyInfo& t, u64 v) {
  const int frac_bits = t.bits == 16 ? 10 : t.bits == 32 ? 23 : 52;
  const int exp_bits = t.bits - 1 - frac_bits;
  const bool neg = (v >> (t.bits - 1)) & 1;
  const u64 e = (v >> frac_bits) & ((1ull << exp_bits) - 1);
  const u64 f = v & ((1ull << frac_bits) - 1);
  if (e == (1ull << exp_bits) - 1) {
    if (f != 0) return (f >> (frac_bits - 1)) & 1 ? 1 : 0;
    return neg ? 2 : 9;
  }
  if (e == 0) {
    if (f == 0) return neg ? 5 : 6;
    return neg ? 4 : 7;
  }
  return neg ? 3 : 8;
}

// Edge values crossed pairwise (bit patterns of the type).
std::vector<u64> edges(const TyInfo& t) {
  switch (t.ty) {
    case Ty::F16: return {0x0000, 0x8000, 0x3c00, 0xbc00, 0x3800, 0x7c00, 0xfc00, 0x7e00, 0xfc01, 0x0001, 0x83ff};
    case Ty::F32:
      return {0x0, 0x80000000, 0x3f800000, 0xbf800000, 0x3f000000, 0x7f800000, 0xff800000,
              0x7fc00000, 0xff800001, 0x00000001, 0x807fffff};
    case Ty::F64:
      return {0x0, 0x8000000000000000, 0x3ff0000000000000, 0xbff0000000000000, 0x3fe0000000000000,
              0x7ff0000000000000, 0xfff0000000000000, 0x7ff8000000000000, 0xfff0000000000001, 0x1,
              0x800fffffffffffff};
    case Ty::I16: case Ty::U16: return {0, 1, 0xffff, 0x8000, 0x7fff, 2, 0x7ffe, 0x8001};
    case Ty::I32: case Ty::U32: return {0, 1, 0xffffffff, 0x80000000, 0x7fffffff, 2, 0x7ffffffe, 0x80000001};
    case Ty::I64: case Ty::U64:
      return {0, 1, ~0ull, 1ull << 63, 0x7fffffffffffffff, 0xffffffff, 0x100000000, 0xffffffff00000000};
  }
  return {};
}

// ---- operands: registers by role (32/16-bit types: one VGPR; 64-bit: a pair) ----
struct Regs {
  int a0, b0, a1, b1, a2, a3;  // input VGPR numbers (10..17), first of a pair
  int s;                       // input SGPR number (16..31)
};
Regs regs_for(const TyInfo& t, bool cls) {
  if (t.bits == 64) return cls ? Regs{10, 12, 14, 16, 13, 10, 16} : Regs{10, 12, 14, 16, 14, 10, 16};
  return Regs{10, 11, 12, 13, 14, 15, 16};
}

std::string vreg(int r, int width) {
  return width == 64 ? "v[" + std::to_string(r) + ":" + std::to_string(r + 1) + "]" : "v" + std::to_string(r);
}
std::string sreg(int r, int width) {
  return width == 64 ? "s[" + std::to_string(r) + ":" + std::to_string(r + 1) + "]" : "s" + std::to_string(r);
}

u64 get_v(const State& s, int r, int width, int lane) {
  const auto k = static_cast<std::size_t>(r - 10);
  if (width == 64) return lane_pair(s.vin[k], s.vin[k + 1], lane);
  return s.vin[k][static_cast<std::size_t>(lane)] & width_mask(width);
}
void set_v(State& s, int r, int width, int lane, u64 v) {
  const auto k = static_cast<std::size_t>(r - 10);
  const auto l = static_cast<std::size_t>(lane);
  if (width == 64) set_lane_pair(s.vin[k], s.vin[k + 1], lane, v);
  else if (width == 32) s.vin[k][l] = static_cast<u32>(v);
  else s.vin[k][l] = (s.vin[k][l] & 0xffff0000u) | static_cast<u32>(v & 0xffff);  // high half kept: ignored
}
u64 get_s(const State& s, int r, int width) {
  const auto k = static_cast<std::size_t>(r - 16);
  if (width == 64) return s.sin[k] | (static_cast<u64>(s.sin[k + 1]) << 32);
  return s.sin[k] & width_mask(width);
}

void set_sout_pair(State& s, int sgpr, u64 v) {
  s.sout[static_cast<std::size_t>(sgpr - 40)] = static_cast<u32>(v);
  s.sout[static_cast<std::size_t>(sgpr - 39)] = static_cast<u32>(v >> 32);
}

u64 flip_sign(const TyInfo& t, u64 v) { return v ^ (1ull << (t.bits - 1)); }
u64 clear_sign(const TyInfo& t, u64 v) { return v & ~(1ull << (t.bits - 1)); }

// Mask of lanes of `exec` for which f(lane) holds.
u64 lanes_where(u64 exec, const std::function<bool(int)>& f) {
  u64 m = 0;
  for (int l = 0; l < kLanes; ++l)
    if ((exec >> l) & 1 && f(l)) m |= 1ull << l;
  return m;
}

// Partial EXEC used by the cases (s[26:27]); fixed patterns with both halves mixed.
constexpr u32 kExecLo = 0x9abcdef1u, kExecHi = 0x0f1e2d3cu;

struct Spec {
  std::string mnemonic;  // e.g. v_cmpx_lt_f32
  bool x;                // v_cmpx
  bool cls;              // v_cmp_class
  std::string op;
  TyInfo t;
};

Spec parse(const std::string& m) {
  Spec sp;
  sp.mnemonic = m;
  sp.x = m.rfind("v_cmpx_", 0) == 0;
  const std::string rest = m.substr(sp.x ? 7 : 6);
  const auto us = rest.rfind('_');
  sp.op = rest.substr(0, us);
  sp.t = type_of(rest.substr(us + 1));
  sp.cls = sp.op == "class";
  return sp;
}

// Lane predicate of the instruction on raw operand patterns a (src0) and b (src1).
bool eval(const Spec& sp, u64 a, u64 b) {
  if (sp.cls) return (b >> class_bit(sp.t, a & width_mask(sp.t.bits))) & 1;
  return (ordering(sp.t, a, b) & accepted(sp.op)) != 0;
}

// Initial operands: pairs (a0,b0) and (a1,b1) cross the edge table (value pairs 0..63 in
// the first, 64..127 in the second; beyond the table, the kind's values with ties in even
// lanes); a2 ties with the SGPR operand in every fourth lane. Class cases: b0/b1 are one-bit
// class masks (with random bits above bit 9, which must be ignored) crossed with the edges.
void init_operands(const Spec& sp, State& s) {
  const TyInfo& t = sp.t;
  const Regs r = regs_for(t, sp.cls);
  const int w = t.bits;
  const auto e = edges(t);
  const std::size_t n = e.size();
  const std::size_t combos = sp.cls ? n * 10 : n * n;
  for (int c = 0; c < 2 * kLanes; ++c) {
    const int lane = c % kLanes;
    const int ra = c < kLanes ? r.a0 : r.a1, rb = c < kLanes ? r.b0 : r.b1;
    const auto uc = static_cast<std::size_t>(c);
    if (sp.cls) {
      const u64 hi = (s.vin[static_cast<std::size_t>(rb - 10)][static_cast<std::size_t>(lane)] & 0xfffffc00u);
      if (uc < combos) {
        set_v(s, ra, w, lane, e[uc / 10]);
        s.vin[static_cast<std::size_t>(rb - 10)][static_cast<std::size_t>(lane)] = static_cast<u32>(hi | (1u << (uc % 10)));
      }
    } else if (uc < combos) {
      set_v(s, ra, w, lane, e[uc / n]);
      set_v(s, rb, w, lane, e[uc % n]);
    } else if (lane % 2 == 0) {
      set_v(s, rb, w, lane, get_v(s, ra, w, lane));
    }
  }
  if (!sp.cls)
    for (int l = 0; l < kLanes; l += 4) set_v(s, r.a2, w, l, get_s(s, r.s, w));
  s.sin[10] = kExecLo;
  s.sin[11] = kExecHi;
}

// Inline constant used in the e64 form and its pattern in the type.
std::string inline_const(const Spec& sp) {
  if (sp.cls) return "3";  // class mask: either NaN
  return sp.t.is_float ? "0.5" : "-1";
}
u64 inline_value(const Spec& sp) {
  if (sp.cls) return 3;
  switch (sp.t.ty) {
    case Ty::F16: return 0x3800;
    case Ty::F32: return 0x3f000000;
    case Ty::F64: return 0x3fe0000000000000;
    default: return width_mask(sp.t.bits);
  }
}
// A literal src0 (32- and 16-bit types only: gfx9 has no 64-bit literal of its own).
std::string literal(const Spec& sp) {
  switch (sp.t.ty) {
    case Ty::F16: return "0x3e00";                       // 1.5
    case Ty::F32: return sp.cls ? "0xff800000" : "0x3fc00000";  // -inf / 1.5
    case Ty::I16: case Ty::U16: return "0x8001";
    case Ty::I32: case Ty::U32: return "0x80000001";
    default: return "";
  }
}
u64 literal_value(const Spec& sp) { return std::stoull(literal(sp), nullptr, 16); }

// v_cmp_*: forms written to VCC / s40..s55 (see the body).
Case cmp_case(const Spec& sp) {
  const TyInfo& t = sp.t;
  const Regs r = regs_for(t, sp.cls);
  const int w = t.bits, wb = sp.cls ? 32 : w;  // width of src1
  const std::string m = sp.mnemonic, e64 = m + "_e64";
  std::string b;
  if (t.ty == Ty::F32) b += "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 3\n  s_nop 3\n";
  b += "  " + m + " vcc, " + vreg(r.a0, w) + ", " + vreg(r.b0, wb) + "\n";
  b += "  s_mov_b64 s[40:41], vcc\n";
  b += "  " + e64 + " s[42:43], " + vreg(r.a1, w) + ", " + vreg(r.b1, wb) + "\n";
  if (sp.cls) b += "  " + m + " vcc, " + sreg(r.s, w) + ", " + vreg(r.a2, 32) + "\n";
  else b += "  " + m + " vcc, " + sreg(r.s, w) + ", " + vreg(r.a2, w) + "\n";
  b += "  s_mov_b64 s[44:45], vcc\n";
  b += "  " + e64 + " s[46:47], " + vreg(r.a3, w) + ", " + inline_const(sp) + "\n";
  const bool lit = !literal(sp).empty();
  if (lit) {
    b += "  " + m + " vcc, " + literal(sp) + ", " + vreg(sp.cls ? r.a2 : r.a3, wb) + "\n";
    b += "  s_mov_b64 s[48:49], vcc\n";
  }
  if (t.is_float)
    b += "  " + e64 + " s[50:51], -" + vreg(r.a0, w) + ", " +
         (sp.cls ? vreg(r.b0, wb) : "|" + vreg(r.b0, wb) + "|") + "\n";
  if (w == 16 && !sp.cls)
    b += "  " + m + "_sdwa s[54:55], " + vreg(r.a0, w) + ", " + vreg(r.b0, w) +
         " src0_sel:WORD_1 src1_sel:WORD_1\n";
  b += "  s_mov_b64 exec, s[26:27]\n";
  b += "  " + m + " vcc, " + vreg(r.a0, w) + ", " + vreg(r.b0, wb) + "\n";
  b += "  " + e64 + " s[52:53], " + vreg(r.a1, w) + ", " + vreg(r.b1, wb) + "\n";

  auto model = [sp, r, w, wb, lit](State& s) {
    const TyInfo& ty = sp.t;
    const u64 all = ~0ull, part = sgpr_pair(s, 10);
    auto on = [&](u64 exec, const std::function<u64(int)>& a, const std::function<u64(int)>& bb) {
      return lanes_where(exec, [&](int l) { return eval(sp, a(l), bb(l)); });
    };
    auto v = [&](int reg, int width) { return [&s, reg, width](int l) { return get_v(s, reg, width, l); }; };
    set_sout_pair(s, 40, on(all, v(r.a0, w), v(r.b0, wb)));
    set_sout_pair(s, 42, on(all, v(r.a1, w), v(r.b1, wb)));
    const u64 sv = get_s(s, r.s, w);
    set_sout_pair(s, 44, on(all, [&](int) { return sv; }, v(r.a2, sp.cls ? 32 : w)));
    const u64 iv = inline_value(sp);
    set_sout_pair(s, 46, on(all, v(r.a3, w), [&](int) { return iv; }));
    if (lit) {
      const u64 lv = literal_value(sp);
      set_sout_pair(s, 48, on(all, [&](int) { return lv; }, v(sp.cls ? r.a2 : r.a3, wb)));
    }
    if (ty.is_float) {
      set_sout_pair(s, 50, on(all, [&](int l) { return flip_sign(ty, get_v(s, r.a0, w, l)); },
                              [&](int l) { return sp.cls ? get_v(s, r.b0, wb, l) : clear_sign(ty, get_v(s, r.b0, wb, l)); }));
    }
    if (w == 16 && !sp.cls) {
      auto hi = [&](int reg) { return [&s, reg](int l) { return u64{s.vin[static_cast<std::size_t>(reg - 10)][static_cast<std::size_t>(l)] >> 16}; }; };
      set_sout_pair(s, 54, on(all, hi(r.a0), hi(r.b0)));
    }
    s.exec = part;
    s.vcc = on(part, v(r.a0, w), v(r.b0, wb));
    set_sout_pair(s, 52, on(part, v(r.a1, w), v(r.b1, wb)));
  };
  const Values kind = t.ty == Ty::F16 ? Values::F16 : t.ty == Ty::F32 ? Values::F32 : t.ty == Ty::F64 ? Values::F64 : Values::Int;
  return Case{m, b, model, kind, [sp](State& s) { init_operands(sp, s); }};
}

// v_cmpx_*: e32 (VCC and EXEC) on all lanes, then e64 (s[40:41] and EXEC) under that EXEC,
// then a v_mov_b32 that only the lanes left in EXEC execute.
Case cmpx_case(const Spec& sp) {
  const TyInfo& t = sp.t;
  const Regs r = regs_for(t, sp.cls);
  const int w = t.bits, wb = sp.cls ? 32 : w;
  const std::string m = sp.mnemonic, e64 = m + "_e64";
  const bool mods = t.is_float;
  std::string b;
  if (t.ty == Ty::F32) b += "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 3\n  s_nop 3\n";
  b += "  " + m + " vcc, " + vreg(r.a0, w) + ", " + vreg(r.b0, wb) + "\n";
  b += "  s_mov_b64 s[42:43], exec\n";
  b += "  " + e64 + " s[40:41], " + (mods ? "-" : "") + vreg(r.a1, w) + ", " +
       (mods && !sp.cls ? "|" + vreg(r.b1, wb) + "|" : vreg(r.b1, wb)) + "\n";
  b += "  v_mov_b32 v32, v17\n";
  auto model = [sp, r, w, wb, mods](State& s) {
    const TyInfo& ty = sp.t;
    const u64 r0 = lanes_where(~0ull, [&](int l) { return eval(sp, get_v(s, r.a0, w, l), get_v(s, r.b0, wb, l)); });
    const u64 r1 = lanes_where(r0, [&](int l) {
      u64 a = get_v(s, r.a1, w, l), bb = get_v(s, r.b1, wb, l);
      if (mods) a = flip_sign(ty, a);
      if (mods && !sp.cls) bb = clear_sign(ty, bb);
      return eval(sp, a, bb);
    });
    s.vcc = r0;
    set_sout_pair(s, 42, r0);
    set_sout_pair(s, 40, r1);
    s.exec = r1;
    for (int l = 0; l < kLanes; ++l)
      if ((r1 >> l) & 1) s.vout[0][static_cast<std::size_t>(l)] = s.vin[7][static_cast<std::size_t>(l)];
  };
  const Values kind = t.ty == Ty::F32 ? Values::F32 : t.ty == Ty::F64 ? Values::F64 : Values::Int;
  return Case{m, b, model, kind, [sp](State& s) { init_operands(sp, s); }};
}

// The mnemonics (the family list: /work/prompts/fam_vopc.txt).
std::vector<std::string> mnemonics() {
  std::vector<std::string> out;
  const char* fops[] = {"f", "lt", "eq", "le", "gt", "lg", "ge", "o", "u", "nge", "nlg", "ngt", "nle", "neq", "nlt", "tru"};
  const char* iops[] = {"f", "lt", "eq", "le", "gt", "ne", "ge", "t"};
  for (const char* ty : {"f32", "f64", "f16"})
    for (const char* op : fops) {
      const std::string o = op;
      if (std::string(ty) == "f16" && (o == "f" || o == "tru")) continue;  // not implemented for f16
      out.push_back(std::string("v_cmp_") + op + "_" + ty);
    }
  for (const char* op : fops) out.push_back(std::string("v_cmpx_") + op + "_f32");
  for (const char* ty : {"i32", "u32", "i64", "u64"})
    for (const char* op : iops) {
      out.push_back(std::string("v_cmp_") + op + "_" + ty);
      const std::string o = op;
      if (o != "f" && o != "t") out.push_back(std::string("v_cmpx_") + op + "_" + ty);
    }
  for (const char* ty : {"i16", "u16"})
    for (const char* op : iops) {
      const std::string o = op;
      if (o != "f" && o != "t") out.push_back(std::string("v_cmp_") + op + "_" + ty);
    }
  for (const char* m : {"v_cmp_class_f32", "v_cmpx_class_f32", "v_cmp_class_f64", "v_cmp_class_f16"})
    out.emplace_back(m);
  return out;
}

}  // namespace

Case vopc_case(const std::string& mnemonic) {
  const Spec sp = parse(mnemonic);
  return sp.x ? cmpx_case(sp) : cmp_case(sp);
}

void add_vopc_cases(std::vector<Case>& cs) {
  for (const auto& m : mnemonics()) {
    const Spec sp = parse(m);
    cs.push_back(sp.x ? cmpx_case(sp) : cmp_case(sp));
  }
}

}  // namespace cdna::simulator::directed
