// Directed cases: three-operand VALU: v_div_scale/fmas/fixup, v_fma_mix*, 16-bit mad/min3/max3/med3,
// integer dot, SAD and media ops, v_cube*.
//
// Models are written for the tests from the CDNA3 ISA guide's opcode descriptions (pseudocode as
// in the RDNA3 guide for these opcodes), not from simulator/exec/valu_three.cpp: float results
// come from host IEEE arithmetic in a wider format (fmaf; fmal with a 64-bit significand, whose
// one extra rounding before the f16 rounding is exact for f16 operands and off only for values
// within 2^-64 of an f16 midpoint), integer results from exact 64-bit sums.
//
// Harness MODE (cases_valu_fp.cpp header): round to nearest even; f32 denormals flushed (inputs
// and results), f16/f64 denormals kept; DX10_CLAMP = 1; IEEE = 1. Cases that need f32 denormals
// set MODE.FP_DENORM f32 = 3 with s_setreg_imm32_b32 first. NaN rule of the whole suite: a NaN
// result is the first NaN source quieted, else the default NaN (f32 0x7fc00000, f16 0x7e00,
// f64 0x7ff8000000000000); v_div_fixup's 0/0 and inf/inf give the negative quiet NaN (guide).
#include <bit>
#include <cfenv>
#include <cmath>
#include <string>

#include "simulator/directed/cases.hpp"

namespace cdna::simulator::directed {
namespace {

std::size_t z(int i) { return static_cast<std::size_t>(i); }
float fl(u32 u) { return std::bit_cast<float>(u); }
u32 bf(float f) { return std::bit_cast<u32>(f); }
double db(u64 u) { return std::bit_cast<double>(u); }
u64 bd(double d) { return std::bit_cast<u64>(d); }

u32 vi(const State& s, int k, int l) { return s.vin[z(k)][z(l)]; }
u64 vi2(const State& s, int k, int l) { return lane_pair(s.vin[z(k)], s.vin[z(k + 1)], l); }
u32 si(const State& s, int k) { return s.sin[z(k)]; }

bool isnan32(u32 u) { return std::isnan(fl(u)); }
bool isnan64(u64 u) { return std::isnan(db(u)); }
bool isnan16(u32 h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0; }
u32 ftz(u32 u) { return std::fpclassify(fl(u)) == FP_SUBNORMAL ? (u & 0x80000000u) : u; }

// f16 <-> double (binary16: 1 sign, 5 exponent bits biased by 15, 10 fraction bits).
double hd(u32 h) {
  const int e = static_cast<int>((h >> 10) & 0x1fu);
  const double m = static_cast<double>(h & 0x3ffu);
  double v = e == 0 ? std::ldexp(m, -24) : e == 31 ? (m != 0 ? NAN : INFINITY) : std::ldexp(1024.0 + m, e - 25);
  return (h & 0x8000u) ? -v : v;
}
// Round to nearest even to binary16 (x has at most 64 significant bits, see the header).
u32 to_h(long double x) {
  const u32 sign = std::signbit(x) ? 0x8000u : 0u;
  if (std::isnan(x)) return 0x7e00u;
  const long double ax = std::fabs(x);
  if (std::isinf(ax)) return sign | 0x7c00u;
  if (ax == 0) return sign;
  const int e = std::max(std::ilogb(ax), -14);
  const long double q = std::ldexp(1.0L, e - 10);  // the f16 quantum at x
  const long double m = std::nearbyint(ax / q);  // host default: nearest even
  const long double v = m * q;
  const bool rtz = std::fegetround() == FE_TOWARDZERO;  // the RTZ cases' models (rtz() below)
  if (rtz ? v > 65504.0L : v >= 65520.0L) return sign | (rtz ? 0x7bffu : 0x7c00u);
  if (v < 0x1p-14L) return sign | static_cast<u32>(m);
  const int ev = std::ilogb(v);
  return sign | (static_cast<u32>(ev + 15) << 10) | (static_cast<u32>(std::ldexp(v, 10 - ev)) - 1024u);
}
u32 lo16(u32 w) { return w & 0xffffu; }
u32 hi16(u32 w) { return w >> 16; }
u32 half_of(u32 w, bool hi) { return hi ? hi16(w) : lo16(w); }
u32 q16(u32 h) { return h | 0x0200u; }

// ---- a case of independent lines: each writes one output VGPR (or pair) from the initial inputs.
struct Line {
  std::string text;
  int out;  // v(32 + out); -1: none
  std::function<u64(const State&, int)> f;
  int width = 1;
  bool partial = false;  // run under EXEC = s[18:19]
  int sflag = -1;        // lane-mask destination: sout index, or -2 for VCC
  std::function<bool(const State&, int)> flag = nullptr;
};

Case lines_case(const std::string& m, std::vector<Line> lines, Values v,
                std::function<void(State&)> init = nullptr, const std::string& prefix = "",
                std::function<void(State&)> pre = nullptr) {
  std::string body = prefix;
  for (const Line& L : lines) {
    if (L.partial) body += "  s_mov_b64 exec, s[18:19]\n";
    body += "  " + L.text + "\n";
    if (L.partial) body += "  s_mov_b64 exec, -1\n";
  }
  auto model = [lines, pre](State& s) {
    if (pre) pre(s);
    for (const Line& L : lines) {
      const u64 ex = L.partial ? sgpr_pair(s, 2) : ~0ull;
      std::array<u64, kLanes> r{};
      u64 bits = 0;
      for (int l = 0; l < kLanes; ++l) {
        if (!((ex >> l) & 1)) continue;
        if (L.out >= 0) r[z(l)] = L.f(s, l);
        if (L.flag && L.flag(s, l)) bits |= 1ull << l;
      }
      for (int l = 0; l < kLanes; ++l) {
        if (!((ex >> l) & 1) || L.out < 0) continue;
        s.vout[z(L.out)][z(l)] = static_cast<u32>(r[z(l)]);
        if (L.width == 2) s.vout[z(L.out + 1)][z(l)] = static_cast<u32>(r[z(l)] >> 32);
      }
      if (L.sflag == -2) s.vcc = bits;
      if (L.sflag >= 0) {
        s.sout[z(L.sflag)] = static_cast<u32>(bits);
        s.sout[z(L.sflag + 1)] = static_cast<u32>(bits >> 32);
      }
    }
  };
  return {m, body, model, v, std::move(init)};
}

// Round toward zero: MODE bits 1:0 (f32) and 3:2 (f16/f64) = 3. The models then run under the
// host's FE_TOWARDZERO (fmaf/fmal/fma, nearbyint and the long double -> float/f16 steps honour
// it, and truncation composes, so two truncations are one).
const std::string kRtzPrefix = "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 15\n";
std::vector<Line> rtz(std::vector<Line> ls) {
  for (Line& L : ls) {
    if (!L.f) continue;
    L.f = [f = L.f](const State& s, int l) -> u64 {
      std::fesetround(FE_TOWARDZERO);
      const u64 r = f(s, l);
      std::fesetround(FE_TONEAREST);
      return r;
    };
  }
  return ls;
}

Case error_case(const std::string& m, const std::string& body, const std::string& error, Values v = Values::Int) {
  Case c{m, body, [](State&) {}, v};
  c.expect_error = error;
  return c;
}

// Sets lanes 0.. of v(10+k) (32-bit words) to `vals`.
void put(State& s, int k, std::initializer_list<u32> vals) {
  int l = 0;
  for (u32 x : vals) s.vin[z(k)][z(l++)] = x;
}
void put64(State& s, int k, std::initializer_list<double> vals) {
  int l = 0;
  for (double x : vals) set_lane_pair(s.vin[z(k)], s.vin[z(k + 1)], l++, bd(x));
}

// ---------------------------------------------------------------------------------------------
// v_div_scale (ISA guide V_DIV_SCALE_F32/F64). S1 = denominator, S2 = numerator; D = S0 scaled by
// 2^+-64 (f64: 2^+-128) in the cases below, VCC = 1 where v_div_fmas must undo a scale.
struct Scaled {
  double value;
  bool vcc;
};
// Format parameters: bias+? thresholds from the guide (f32: 96, 23, 64; f64: 768, 53, 128).
template <class F>
Scaled div_scale(F s0, F s1, F s2, bool keep_denormals) {
  constexpr bool k32 = sizeof(F) == 4;
  constexpr int kBig = k32 ? 96 : 768, kTiny = k32 ? 23 : 53, kSh = k32 ? 64 : 128;
  auto field = [](F x) {  // biased exponent field
    return k32 ? static_cast<int>((bf(static_cast<float>(x)) >> 23) & 0xff)
               : static_cast<int>((bd(static_cast<double>(x)) >> 52) & 0x7ff);
  };
  auto denorm = [](F x) { return std::fpclassify(x) == FP_SUBNORMAL; };
  const F rcp = F(1) / s1;
  const F quo = static_cast<F>(static_cast<long double>(s2) / static_cast<long double>(s1));
  const double a = static_cast<double>(s0);
  if (s2 == 0 || s1 == 0) return {NAN, false};
  if (field(s2) - field(s1) >= kBig) return {s0 == s1 ? std::ldexp(a, kSh) : a, true};
  if (keep_denormals && denorm(s1)) return {std::ldexp(a, kSh), false};
  if (denorm(rcp) && denorm(quo)) return {s0 == s1 ? std::ldexp(a, -kSh) : a, true};
  if (denorm(rcp)) return {std::ldexp(a, -kSh), false};
  if (denorm(quo)) return {s0 == s2 ? std::ldexp(a, kSh) : a, true};
  if (field(s2) <= kTiny) return {std::ldexp(a, kSh), false};
  return {a, false};
}

u32 nan_or32(u32 r, std::initializer_list<u32> srcs) {
  if (!isnan32(r)) return r;
  for (u32 x : srcs)
    if (isnan32(x)) return x | 0x00400000u;
  return 0x7fc00000u;
}
u64 nan_or64(u64 r, std::initializer_list<u64> srcs) {
  if (!isnan64(r)) return r;
  for (u64 x : srcs)
    if (isnan64(x)) return x | 0x0008000000000000ull;
  return 0x7ff8000000000000ull;
}

// Operand spellings: a source's text and its (modified) value in a lane.
using Get32 = std::function<u32(const State&, int)>;
struct Src {
  std::string t;
  Get32 g;
};
Src V(int k) { return {"v" + std::to_string(10 + k), [k](const State& s, int l) { return vi(s, k, l); }}; }
Src S(int k) { return {"s" + std::to_string(16 + k), [k](const State& s, int) { return si(s, k); }}; }
Src Neg(Src x, u32 sign = 0x80000000u) { return {"-" + x.t, [g = x.g, sign](const State& s, int l) { return g(s, l) ^ sign; }}; }
Src Abs(Src x, u32 mag = 0x7fffffffu) { return {"|" + x.t + "|", [g = x.g, mag](const State& s, int l) { return g(s, l) & mag; }}; }

void add_div_scale_cases(std::vector<Case>& cs) {
  // Lanes 0..9 of (v10 = numerator, v11 = denominator) reach every branch (flushing mode).
  auto crafted = [](State& s) {
    put(s, 0, {bf(3e38f), bf(1e-30f), bf(1.0f), bf(1e5f), bf(1e-35f), bf(0.0f), bf(2.0f), bf(6.0f), bf(-3e38f), bf(1e-36f)});
    put(s, 1, {bf(1e-9f), bf(1e10f), bf(3e38f), bf(3e38f), bf(1e-5f), bf(3.0f), bf(0.0f), bf(3.0f), bf(-1e-10f), bf(1e5f)});
  };
  auto line = [](const std::string& dst, const std::string& sdst, Src a, Src b, Src c, int out, int sflag, bool partial,
                 bool denorm) {
    auto eval = [a, b, c, denorm](const State& s, int l) {
      auto in = [denorm](u32 x) { return fl(denorm ? x : ftz(x)); };
      return div_scale<float>(in(a.g(s, l)), in(b.g(s, l)), in(c.g(s, l)), denorm);
    };
    Line L{"v_div_scale_f32 " + dst + ", " + sdst + ", " + a.t + ", " + b.t + ", " + c.t, out,
           [eval, a, b, c, denorm](const State& s, int l) -> u64 {
             const Scaled r = eval(s, l);
             const u32 v = bf(static_cast<float>(r.value));
             const u32 in0 = denorm ? a.g(s, l) : ftz(a.g(s, l)), in1 = denorm ? b.g(s, l) : ftz(b.g(s, l));
             const u32 in2 = denorm ? c.g(s, l) : ftz(c.g(s, l));
             return nan_or32(denorm ? v : ftz(v), {in0, in1, in2});
           }};
    L.partial = partial;
    L.sflag = sflag;
    L.flag = [eval](const State& s, int l) { return eval(s, l).vcc; };
    return L;
  };
  cs.push_back(lines_case("v_div_scale_f32",
                          {line("v32", "vcc", V(1), V(1), V(0), 0, -2, false, false),
                           line("v33", "s[40:41]", V(0), V(1), V(0), 1, 0, false, false),
                           line("v34", "s[42:43]", S(0), V(2), V(3), 2, 2, false, false),
                           line("v35", "s[44:45]", Neg(V(3)), Neg(V(1)), V(0), 3, 4, false, false),
                           line("v36", "s[46:47]", V(0), V(1), V(0), 4, 6, true, false)},
                          Values::F32, crafted));
  // f32 denormals kept (MODE.FP_DENORM f32 = 3): subnormal denominators scale up by 2^64.
  auto crafted_dn = [crafted](State& s) {
    crafted(s);
    put(s, 0, {bf(1.0f), bf(1e-40f), bf(-2e-39f), bf(3.0f)});
    put(s, 1, {bf(1e-40f), bf(3e-39f), bf(5e-40f), bf(1e38f)});
  };
  cs.push_back(lines_case("v_div_scale_f32",
                          {line("v32", "vcc", V(1), V(1), V(0), 0, -2, false, true),
                           line("v33", "s[40:41]", V(0), V(1), V(0), 1, 0, false, true)},
                          Values::F32, crafted_dn, "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 3\n"));

  auto line64 = [](const std::string& text, int a, int b, int c, int out, int sflag, bool partial) {
    auto eval = [a, b, c](const State& s, int l) {
      return div_scale<double>(db(vi2(s, a, l)), db(vi2(s, b, l)), db(vi2(s, c, l)), true);
    };
    Line L{text, out, [eval, a, b, c](const State& s, int l) -> u64 {
             return nan_or64(bd(eval(s, l).value), {vi2(s, a, l), vi2(s, b, l), vi2(s, c, l)});
           }, 2, partial, sflag, [eval](const State& s, int l) { return eval(s, l).vcc; }};
    return L;
  };
  auto crafted64 = [](State& s) {
    put64(s, 0, {1e300, 1e-300, 1.0, 1e5, 1e-300, 0.0, 2.0, 1e-310, 6.0});
    put64(s, 2, {1e-300, 1e100, 1.7e308, 1.7e308, 1e-10, 3.0, 0.0, 3.0, 3e-310});
  };
  cs.push_back(lines_case("v_div_scale_f64",
                          {line64("v_div_scale_f64 v[32:33], vcc, v[12:13], v[12:13], v[10:11]", 2, 2, 0, 0, -2, false),
                           line64("v_div_scale_f64 v[34:35], s[40:41], v[10:11], v[12:13], v[10:11]", 0, 2, 0, 2, 0, false),
                           line64("v_div_scale_f64 v[36:37], s[42:43], v[14:15], v[16:17], v[10:11]", 4, 6, 0, 4, 2, false),
                           line64("v_div_scale_f64 v[38:39], s[44:45], v[10:11], v[12:13], v[10:11]", 0, 2, 0, 6, 4, true)},
                          Values::F64, crafted64));
}

// ---------------------------------------------------------------------------------------------
// v_div_fmas (ISA guide V_DIV_FMAS_F32/F64; VCC is an implicit SGPR read, so no SGPR source): fma(S0, S1, S2), times 2^64 (f64 2^128) if VCC and
// exponent(S2) >= 128 (f64 1024), times 2^-64 (2^-128) if VCC and below; one rounding.
u32 fmas32(u32 a, u32 b, u32 c, bool vcc, bool denorm) {
  if (!denorm) a = ftz(a), b = ftz(b), c = ftz(c);
  float r;
  if (!vcc) {
    r = std::fmaf(fl(a), fl(b), fl(c));
  } else {  // exact product in long double, sum rounded there (64 bits), scaled, rounded to f32
    const int k = ((c >> 23) & 0xffu) >= 128 ? 64 : -64;
    r = static_cast<float>(std::ldexp(std::fmal(fl(a), fl(b), fl(c)), k));
  }
  const u32 u = nan_or32(bf(r), {a, b, c});
  return denorm ? u : ftz(u);
}

void add_div_fmas_cases(std::vector<Case>& cs) {
  // VCC from s[20:21] (an SALU write: no wait states needed, GCNHazardRecognizer counts VALU
  // writes only); lanes 0..5: S2 above and below 2 with VCC set.
  auto init = [](State& s) {
    s.sin[4] = 0x0000003fu | 0xf0f00000u;
    s.sin[5] = 0x33cc55aau;
    put(s, 0, {bf(1.5f), bf(3.0f), bf(-1.25f), bf(1e-20f), bf(7.0f), bf(0.0f)});
    put(s, 1, {bf(2.0f), bf(0.5f), bf(3.0f), bf(1e-20f), bf(1e20f), bf(1.0f)});
    put(s, 2, {bf(4.0f), bf(1e-30f), bf(0.75f), bf(-1e-39f), bf(1e30f), bf(-0.0f)});
  };
  auto L = [](const std::string& text, Src a, Src b, Src c, int out, bool partial, bool denorm) {
    Line x{text + " " + std::string("v") + std::to_string(32 + out) + ", " + a.t + ", " + b.t + ", " + c.t, out,
           [a, b, c, denorm](const State& s, int l) -> u64 {
             return fmas32(a.g(s, l), b.g(s, l), c.g(s, l), (s.vcc >> l) & 1, denorm);
           }};
    x.partial = partial;
    return x;
  };
  auto pre = [](State& s) { s.vcc = sgpr_pair(s, 4); };
  cs.push_back(lines_case("v_div_fmas_f32",
                          {L("v_div_fmas_f32", V(0), V(1), V(2), 0, false, false),
                           L("v_div_fmas_f32", Neg(V(3)), Abs(V(4)), V(5), 1, false, false),
                           L("v_div_fmas_f32", Src{"2.0", [](const State&, int) { return 0x40000000u; }}, V(6), V(7), 2, false, false),
                           L("v_div_fmas_f32", V(1), V(0), V(2), 3, true, false)},
                          Values::F32, init, "  s_mov_b64 vcc, s[20:21]\n", pre));
  // Denormals kept: the 2^-64 scale lands in the subnormal range and is rounded once.
  cs.push_back(lines_case("v_div_fmas_f32",
                          {L("v_div_fmas_f32", V(0), V(1), V(2), 0, false, true),
                           L("v_div_fmas_f32", V(3), V(4), V(5), 1, false, true)},
                          Values::F32, init,
                          "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 3\n  s_mov_b64 vcc, s[20:21]\n", pre));
  cs.push_back(lines_case("v_div_fmas_f32",
                          rtz({L("v_div_fmas_f32", V(0), V(1), V(2), 0, false, false),
                               L("v_div_fmas_f32", V(3), V(4), V(5), 1, false, false)}),
                          Values::F32, init, kRtzPrefix + "  s_mov_b64 vcc, s[20:21]\n", pre));
  // A VALU write of VCC needs 4 wait states before v_div_fmas (s_nop 3 gives 4).
  Line cmp{"v_cmp_lt_f32 vcc, v10, v11", -1, nullptr};
  cmp.sflag = -2;
  cmp.flag = [](const State& s, int l) { return fl(ftz(vi(s, 0, l))) < fl(ftz(vi(s, 1, l))); };
  Line nop{"s_nop 3", -1, nullptr};
  cs.push_back(lines_case("v_div_fmas_f32", {cmp, nop, L("v_div_fmas_f32", V(2), V(3), V(4), 0, false, false)},
                          Values::F32));
  cs.push_back(error_case("v_div_fmas_f32", "  v_cmp_lt_f32 vcc, v10, v11\n  s_nop 1\n  v_div_fmas_f32 v32, v12, v13, v14",
                          "v_div_fmas read of VCC 2 wait states", Values::F32));

  auto init64 = [](State& s) {
    s.sin[4] = 0x000001ffu;
    s.sin[5] = 0x80000001u;
    put64(s, 0, {1.5, 3.0, -1.25, 0x1p-500, 7.0, 0.0, 0x1.8p-480, 3.0});
    put64(s, 2, {2.0, 0.5, 3.0, 0x1p-500, 1e200, 1.0, 0x1.4p-470, 0x1p-1000});
    put64(s, 4, {4.0, 0x1p-1000, 0.75, -0x1.8p-1000, 1e300, -0.0, 0x1p-945, 0x1p-1060});
  };
  auto fmas64 = [](u64 a, u64 b, u64 c, bool vcc) -> u64 {
    double r = std::fma(db(a), db(b), db(c));
    // The scale is exact unless the result is subnormal; the crafted subnormal lanes have exact
    // products and sums, so ldexp's rounding is then the only one.
    if (vcc) r = std::ldexp(r, ((c >> 52) & 0x7ffu) >= 1024 ? 128 : -128);
    return nan_or64(bd(r), {a, b, c});
  };
  auto L64 = [fmas64](int out, int a, int b, int c, bool partial) {
    Line x{"v_div_fmas_f64 v[" + std::to_string(32 + out) + ":" + std::to_string(33 + out) + "], v[" + std::to_string(10 + a) +
               ":" + std::to_string(11 + a) + "], v[" + std::to_string(10 + b) + ":" + std::to_string(11 + b) + "], v[" +
               std::to_string(10 + c) + ":" + std::to_string(11 + c) + "]",
           out, [fmas64, a, b, c](const State& s, int l) -> u64 {
             return fmas64(vi2(s, a, l), vi2(s, b, l), vi2(s, c, l), (s.vcc >> l) & 1);
           }, 2, partial};
    return x;
  };
  cs.push_back(lines_case("v_div_fmas_f64", {L64(0, 0, 2, 4, false), L64(2, 6, 4, 2, false), L64(4, 0, 2, 4, true)},
                          Values::F64, init64, "  s_mov_b64 vcc, s[20:21]\n", pre));
  cs.push_back(lines_case("v_div_fmas_f64", rtz({L64(0, 0, 2, 4, false), L64(2, 6, 4, 2, false)}), Values::F64, init64,
                          kRtzPrefix + "  s_mov_b64 vcc, s[20:21]\n", pre));
}

// ---------------------------------------------------------------------------------------------
// v_div_fixup (ISA guide V_DIV_FIXUP_F32/F64/F16): S0 quotient, S1 denominator, S2 numerator.
template <class F>
F fixup_value(F q, F d, F n, int en, int ed, bool& canonical_nan) {
  canonical_nan = false;
  const bool neg = std::signbit(d) != std::signbit(n);
  const F inf = std::numeric_limits<F>::infinity();
  if (std::isnan(n) || std::isnan(d)) return NAN;  // the NaN source, quieted (caller)
  if ((d == 0 && n == 0) || (std::isinf(d) && std::isinf(n))) {
    canonical_nan = true;
    return NAN;
  }
  if (d == 0 || std::isinf(n)) return neg ? -inf : inf;
  if (std::isinf(d) || n == 0) return neg ? F(-0.0) : F(0.0);
  // |n/d| below half the smallest subnormal: zero (en, ed: the biased exponent fields).
  constexpr int kUnder = std::numeric_limits<F>::digits - std::numeric_limits<F>::min_exponent + 1;  // 150 / 1075
  if (en - ed < -kUnder) return neg ? F(-0.0) : F(0.0);
  if (std::isnan(q)) return neg ? -inf : inf;  // the refinement overflowed (OVERFLOW)
  return neg ? -std::fabs(q) : std::fabs(q);
}

u32 fixup32(u32 q, u32 d, u32 n) {
  q = ftz(q), d = ftz(d), n = ftz(n);
  bool canon;
  const float r = fixup_value<float>(fl(q), fl(d), fl(n), static_cast<int>((n >> 23) & 0xff), static_cast<int>((d >> 23) & 0xff), canon);
  if (canon) return 0xffc00000u;
  if (isnan32(n)) return n | 0x00400000u;
  if (isnan32(d)) return d | 0x00400000u;
  return ftz(bf(r));
}
u64 fixup64(u64 q, u64 d, u64 n) {
  bool canon;
  const double r = fixup_value<double>(db(q), db(d), db(n), static_cast<int>((n >> 52) & 0x7ff), static_cast<int>((d >> 52) & 0x7ff), canon);
  if (canon) return 0xfff8000000000000ull;
  if (isnan64(n)) return n | 0x0008000000000000ull;
  if (isnan64(d)) return d | 0x0008000000000000ull;
  return bd(r);
}
// f16: the same rules with binary16's limits (underflow below 2^-25, exponent difference < -25).
u32 fixup16(u32 q, u32 d, u32 n) {
  if (isnan16(n)) return q16(n);
  if (isnan16(d)) return q16(d);
  const double dd = hd(d), nd = hd(n);
  const bool neg = ((d ^ n) & 0x8000u) != 0;
  const u32 sign = neg ? 0x8000u : 0u;
  if ((dd == 0 && nd == 0) || (std::isinf(dd) && std::isinf(nd))) return 0xfe00u;
  if (dd == 0 || std::isinf(nd)) return sign | 0x7c00u;
  if (std::isinf(dd) || nd == 0) return sign;
  const int en = static_cast<int>((n >> 10) & 0x1f), ed = static_cast<int>((d >> 10) & 0x1f);
  if (en - ed < -25) return sign;
  if (isnan16(q)) return sign | 0x7c00u;
  return sign | (q & 0x7fffu);
}

u32 clamp01_32(u32 u) {
  if (isnan32(u)) return 0;
  return fl(u) < 0.0f || u == 0x80000000u ? 0u : fl(u) > 1.0f ? 0x3f800000u : u;
}

void add_div_fixup_cases(std::vector<Case>& cs) {
  // Lanes 0..11: (q, d, n) through every branch.
  auto crafted = [](State& s) {
    put(s, 1, {bf(0.0f), 0x7f800000u, bf(0.0f), bf(2.0f), 0xff800000u, bf(3.0f), bf(1e30f), bf(-3.0f), 0x7fa00001u, bf(1e-30f), bf(1e38f), bf(2.0f)});
    put(s, 2, {bf(0.0f), 0xff800000u, bf(-5.0f), 0x7f800000u, bf(1.0f), bf(0.0f), bf(1e-30f), bf(6.0f), bf(1.0f), 0x7fc00003u, bf(1e-38f), bf(-1e-38f)});
  };
  auto L32 = [](const std::string& suffix, Src q, Src d, Src n, int out, bool partial, bool clamp) {
    Line x{"v_div_fixup_f32 v" + std::to_string(32 + out) + ", " + q.t + ", " + d.t + ", " + n.t + suffix, out,
           [q, d, n, clamp](const State& s, int l) -> u64 {
             const u32 r = fixup32(q.g(s, l), d.g(s, l), n.g(s, l));
             return clamp ? clamp01_32(r) : r;
           }};
    x.partial = partial;
    return x;
  };
  cs.push_back(lines_case("v_div_fixup_f32",
                          {L32("", V(0), V(1), V(2), 0, false, false), L32("", S(0), Neg(V(3)), Abs(V(4)), 1, false, false),
                           L32(" clamp", V(5), V(6), V(7), 2, false, true), L32("", V(0), V(1), V(2), 3, true, false),
                           L32("", V(3), V(1), V(2), 4, false, false)},
                          Values::F32, crafted));
  auto crafted64 = [](State& s) {
    put64(s, 2, {0.0, INFINITY, 0.0, 2.0, -INFINITY, 3.0, 1e300, -3.0, 1e-300, 1e308, 1e-320});
    put64(s, 4, {0.0, -INFINITY, -5.0, INFINITY, 1.0, 0.0, 1e-300, 6.0, 1e300, 1e-308, 1e-10});
  };
  auto L64 = [](int out, int q, int d, int n, bool partial) {
    Line x{"v_div_fixup_f64 v[" + std::to_string(32 + out) + ":" + std::to_string(33 + out) + "], v[" + std::to_string(10 + q) + ":" +
               std::to_string(11 + q) + "], v[" + std::to_string(10 + d) + ":" + std::to_string(11 + d) + "], v[" +
               std::to_string(10 + n) + ":" + std::to_string(11 + n) + "]",
           out, [q, d, n](const State& s, int l) -> u64 { return fixup64(vi2(s, q, l), vi2(s, d, l), vi2(s, n, l)); }, 2,
           partial};
    return x;
  };
  cs.push_back(lines_case("v_div_fixup_f64", {L64(0, 0, 2, 4, false), L64(2, 6, 2, 4, false), L64(4, 4, 6, 0, true)},
                          Values::F64, crafted64));
  // f16, low halves unless op_sel picks the high ones; results zero bits 31:16.
  auto crafted16 = [](State& s) {
    put(s, 1, {0x0000u, 0x7c00u, 0x0000u, 0x4000u, 0xfc00u, 0x4200u, 0x7800u, 0x0001u, 0x7d00u, 0x3c00u});
    put(s, 2, {0x0000u, 0xfc00u, 0xc500u, 0x7c00u, 0x3c00u, 0x0000u, 0x0001u, 0x7800u, 0x3c00u, 0x7e01u});
  };
  for (const char* m : {"v_div_fixup_f16", "v_div_fixup_legacy_f16"}) {
    const bool legacy = std::string(m).find("legacy") != std::string::npos;
    std::vector<Line> ls = {
        {std::string(m) + " v32, v10, v11, v12", 0,
         [](const State& s, int l) -> u64 { return fixup16(lo16(vi(s, 0, l)), lo16(vi(s, 1, l)), lo16(vi(s, 2, l))); }},
        {std::string(m) + " v33, -v13, |v14|, s16", 1,
         [](const State& s, int l) -> u64 { return fixup16(lo16(vi(s, 3, l)) ^ 0x8000u, lo16(vi(s, 4, l)) & 0x7fffu, lo16(si(s, 0))); }},
        {std::string(m) + " v34, v10, v11, v12", 2,
         [](const State& s, int l) -> u64 { return fixup16(lo16(vi(s, 0, l)), lo16(vi(s, 1, l)), lo16(vi(s, 2, l))); }, 1, true}};
    if (!legacy)
      ls.push_back({std::string(m) + " v35, v15, v16, v17 op_sel:[1,0,1,0]", 3, [](const State& s, int l) -> u64 {
                      return fixup16(hi16(vi(s, 5, l)), lo16(vi(s, 6, l)), hi16(vi(s, 7, l)));
                    }});
    cs.push_back(lines_case(m, ls, Values::F16, crafted16));
  }
}

// ---------------------------------------------------------------------------------------------
// f16 arithmetic: v_mad (separately rounded product and sum, LLVM's FMAD), v_fma_legacy, v_mac,
// v_pk_fmac, min3/max3/med3.
u32 nan3_16(u32 a, u32 b, u32 c) {
  for (u32 x : {a, b, c})
    if (isnan16(x)) return q16(x);
  return 0x7e00u;
}
u32 fma16(u32 a, u32 b, u32 c) {
  if (isnan16(a) || isnan16(b) || isnan16(c)) return nan3_16(a, b, c);
  const u32 r = to_h(std::fmal(hd(a), hd(b), hd(c)));
  return isnan16(r) ? 0x7e00u : r;
}
u32 mad16(u32 a, u32 b, u32 c) {
  if (isnan16(a) || isnan16(b) || isnan16(c)) return nan3_16(a, b, c);
  const u32 p = to_h(static_cast<long double>(hd(a)) * hd(b));
  const u32 r = isnan16(p) ? 0x7e00u : to_h(static_cast<long double>(hd(p)) + hd(c));
  return isnan16(r) ? 0x7e00u : r;
}
u32 clamp16(u32 h) {
  if (isnan16(h)) return 0;
  const double x = hd(h);
  return x <= 0.0 ? 0u : x > 1.0 ? 0x3c00u : h;
}
// IEEE-mode f16 min/max pair (ISA guide V_MIN_F16/V_MAX_F16 with MODE.IEEE): a signalling NaN
// operand gives it quieted (the first one), a quiet NaN loses to a number, -0 < +0.
u32 mm16(u32 a, u32 b, bool max) {
  const bool sa = isnan16(a) && !(a & 0x0200u), sb = isnan16(b) && !(b & 0x0200u);
  if (sa) return q16(a);
  if (sb) return q16(b);
  if (isnan16(a) && isnan16(b)) return q16(a);
  if (isnan16(a)) return b;
  if (isnan16(b)) return a;
  const double x = hd(a), y = hd(b);
  if (x == y) {  // equal values or ±0: signs decide
    const bool na = (a & 0x8000u) != 0;
    return max ? (na ? b : a) : (na ? a : b);
  }
  return (x > y) == max ? a : b;
}
u32 med3_16(u32 a, u32 b, u32 c) {
  if (isnan16(a) || isnan16(b) || isnan16(c)) return mm16(mm16(a, b, false), c, false);
  const u32 mx = mm16(mm16(a, b, true), c, true);
  if (mx == a) return mm16(b, c, true);
  if (mx == b) return mm16(a, c, true);
  return mm16(a, b, true);
}

using F3 = std::function<u32(u32, u32, u32)>;
// Lines of a 3-source f16 op: VGPRs, SGPR + modifiers, op_sel (unless legacy), partial EXEC, clamp.
std::vector<Line> f16_lines(const std::string& m, const F3& f, bool op_sel, bool clamp_line) {
  auto h = [](const State& s, int k, int l, bool hi) { return half_of(vi(s, k, l), hi); };
  std::vector<Line> ls = {
      {m + " v32, v10, v11, v12", 0, [f, h](const State& s, int l) -> u64 { return f(h(s, 0, l, false), h(s, 1, l, false), h(s, 2, l, false)); }},
      {m + " v33, -v13, s16, |v14|", 1, [f, h](const State& s, int l) -> u64 {
         return f(h(s, 3, l, false) ^ 0x8000u, lo16(si(s, 0)), h(s, 4, l, false) & 0x7fffu); }},
      {m + " v34, v15, v16, v17", 2, [f, h](const State& s, int l) -> u64 { return f(h(s, 5, l, false), h(s, 6, l, false), h(s, 7, l, false)); }, 1, true}};
  if (op_sel)
    ls.push_back({m + " v35, v10, v11, v12 op_sel:[1,1,0,0]", 3,
                  [f, h](const State& s, int l) -> u64 { return f(h(s, 0, l, true), h(s, 1, l, true), h(s, 2, l, false)); }});
  if (clamp_line)
    ls.push_back({m + " v36, v13, v14, v15 clamp", 4,
                  [f, h](const State& s, int l) -> u64 { return clamp16(f(h(s, 3, l, false), h(s, 4, l, false), h(s, 5, l, false))); }});
  return ls;
}

void add_f16_cases(std::vector<Case>& cs) {
  cs.push_back(lines_case("v_mad_f16", f16_lines("v_mad_f16", mad16, true, true), Values::F16));
  cs.push_back(lines_case("v_mad_legacy_f16", f16_lines("v_mad_legacy_f16", mad16, false, true), Values::F16));
  cs.push_back(lines_case("v_fma_legacy_f16", f16_lines("v_fma_legacy_f16", fma16, false, true), Values::F16));
  cs.push_back(lines_case("v_mad_f16", rtz(f16_lines("v_mad_f16", mad16, true, false)), Values::F16, nullptr, kRtzPrefix));
  cs.push_back(lines_case("v_fma_legacy_f16", rtz(f16_lines("v_fma_legacy_f16", fma16, false, false)), Values::F16, nullptr, kRtzPrefix));
  cs.push_back(lines_case("v_min3_f16", f16_lines("v_min3_f16", [](u32 a, u32 b, u32 c) { return mm16(mm16(a, b, false), c, false); }, true, false), Values::F16));
  cs.push_back(lines_case("v_max3_f16", f16_lines("v_max3_f16", [](u32 a, u32 b, u32 c) { return mm16(mm16(a, b, true), c, true); }, true, false), Values::F16));
  cs.push_back(lines_case("v_med3_f16", f16_lines("v_med3_f16", med3_16, true, false), Values::F16));
  // v_mac_f16: D.lo = S0 * S1 + D.lo (mad rounding); gfx9 keeps D's high half.
  auto mac = [](int out, Src a, Src b) {
    return [out, a, b](const State& s, int l) -> u64 {
      const u32 d = s.vout[z(out)][z(l)];
      return (d & 0xffff0000u) | mad16(lo16(a.g(s, l)), lo16(b.g(s, l)), lo16(d));
    };
  };
  cs.push_back(lines_case("v_mac_f16",
                          {{"v_mac_f16_e32 v32, v10, v11", 0, mac(0, V(0), V(1))},
                           {"v_mac_f16_e32 v33, s16, v12", 1, mac(1, S(0), V(2))},
                           {"v_mac_f16_e64 v34, -v13, |v14|", 2, mac(2, Neg(V(3), 0x8000u), Abs(V(4), 0xffff7fffu))},
                           {"v_mac_f16_e32 v35, v15, v16", 3, mac(3, V(5), V(6)), 1, true}},
                          Values::F16,
                          [](State& s) {  // f16 accumulators in the preset outputs
                            for (int k = 0; k < 4; ++k)
                              for (int l = 0; l < kLanes; ++l) s.vout[z(k)][z(l)] = (s.vout[z(k)][z(l)] & 0xffff0000u) | lo16(vi(s, 7 - k, l));
                          }));
  // v_pk_fmac_f16: each half D.h = fma(S0.h, S1.h, D.h).
  auto pkfmac = [](int out, Src a, Src b) {
    return [out, a, b](const State& s, int l) -> u64 {
      const u32 d = s.vout[z(out)][z(l)], x = a.g(s, l), y = b.g(s, l);
      return fma16(lo16(x), lo16(y), lo16(d)) | (fma16(hi16(x), hi16(y), hi16(d)) << 16);
    };
  };
  cs.push_back(lines_case("v_pk_fmac_f16",
                          {{"v_pk_fmac_f16 v32, v10, v11", 0, pkfmac(0, V(0), V(1))},
                           {"v_pk_fmac_f16 v33, s16, v12", 1, pkfmac(1, S(0), V(2))},
                           {"v_pk_fmac_f16 v34, v13, v14", 2, pkfmac(2, V(3), V(4)), 1, true}},
                          Values::F16, [](State& s) {
                            for (int k = 0; k < 3; ++k)
                              for (int l = 0; l < kLanes; ++l) s.vout[z(k)][z(l)] = vi(s, 7 - k, l);
                          }));
}

// ---------------------------------------------------------------------------------------------
// v_fma_mix*: source i is f32 (op_sel_hi bit 0) or the f16 half op_sel selects (bit 1); one
// fused multiply-add rounded once to f32 (mix_f32) or f16 (mixlo: bits 15:0, mixhi: bits 31:16,
// the other half of D kept).
struct Mix {
  std::string sel;  // op_sel/op_sel_hi text
  unsigned op_sel, op_sel_hi;
  bool neg0, abs1;
};
// Source i's bits after neg/abs: the f32 word, or the selected f16 half.
u32 mix_bits(u32 w, int i, const Mix& x) {
  const bool f16 = (x.op_sel_hi >> i) & 1;
  u32 b = f16 ? half_of(w, (x.op_sel >> i) & 1) : w;
  const u32 sign = f16 ? 0x8000u : 0x80000000u;
  if (i == 0 && x.neg0) b ^= sign;
  if (i == 1 && x.abs1) b &= ~sign;
  return b;
}
long double mix_src(u32 w, int i, const Mix& x) {
  long double v;
  if ((x.op_sel_hi >> i) & 1) {
    v = hd(half_of(w, (x.op_sel >> i) & 1));
  } else {
    v = fl(ftz(w));  // an f32 source: MODE flushes f32 denormals
  }
  if (i == 0 && x.neg0) v = -v;
  if (i == 1 && x.abs1) v = std::fabs(v);
  return v;
}
void add_mix_cases(std::vector<Case>& cs) {
  const std::vector<Mix> forms = {{" op_sel_hi:[1,1,1]", 0, 7, false, false},
                                  {" op_sel:[1,0,1] op_sel_hi:[1,1,1]", 5, 7, true, false},
                                  {" op_sel:[0,1,0] op_sel_hi:[0,1,1]", 2, 6, false, true},
                                  {"", 0, 0, false, false}};
  for (int kind = 0; kind < 3; ++kind) {
    const std::string m = kind == 0 ? "v_fma_mix_f32" : kind == 1 ? "v_fma_mixlo_f16" : "v_fma_mixhi_f16";
    std::vector<Line> ls;
    for (std::size_t i = 0; i < forms.size(); ++i) {
      const Mix x = forms[i];
      const int out = static_cast<int>(i);
      const int a = out % 3, b = 3 + out % 2, c = 5 + out % 3;
      const std::string t = m + " v" + std::to_string(32 + out) + ", " + (x.neg0 ? "-" : "") + "v" + std::to_string(10 + a) + ", " +
                            (x.abs1 ? "|v" + std::to_string(10 + b) + "|" : "v" + std::to_string(10 + b)) + ", v" +
                            std::to_string(10 + c) + x.sel;
      ls.push_back({t, out, [kind, x, a, b, c, out](const State& s, int l) -> u64 {
                      const u32 wa = vi(s, a, l), wb = vi(s, b, l), wc = vi(s, c, l);
                      const long double p = mix_src(wa, 0, x), q = mix_src(wb, 1, x), r = mix_src(wc, 2, x);
                      // NaN: first NaN source quieted (as f32 or f16 of the result), else default.
                      const long double srcs[3] = {p, q, r};
                      int first = -1;
                      for (int i2 = 2; i2 >= 0; --i2)
                        if (std::isnan(srcs[i2])) first = i2;
                      if (kind == 0) {
                        if (first >= 0) {
                          const u32 h = mix_bits(first == 0 ? wa : first == 1 ? wb : wc, first, x);
                          const bool f16 = (x.op_sel_hi >> first) & 1;
                          const u32 bits = f16 ? ((h & 0x8000u) << 16) | 0x7f800000u | ((h & 0x3ffu) << 13) : h;
                          return bits | 0x00400000u;
                        }
                        const u32 rr = bf(std::fmaf(static_cast<float>(p), static_cast<float>(q), static_cast<float>(r)));
                        return isnan32(rr) ? 0x7fc00000u : ftz(rr);
                      }
                      u32 h;
                      if (first >= 0) {
                        const u32 w = mix_bits(first == 0 ? wa : first == 1 ? wb : wc, first, x);
                        const bool f16 = (x.op_sel_hi >> first) & 1;
                        h = f16 ? q16(w) : (((w >> 16) & 0x8000u) | 0x7c00u | ((w >> 13) & 0x3ffu) | 0x0200u);
                      } else {
                        h = to_h(std::fmal(p, q, r));
                        h = isnan16(h) ? 0x7e00u : h;
                      }
                      const u32 d = s.vout[z(out)][z(l)];
                      return kind == 1 ? (d & 0xffff0000u) | h : (d & 0xffffu) | (h << 16);
                    }});
    }
    ls.push_back({m + " v36, v10, v11, v12 op_sel_hi:[1,1,1] clamp", 4, [kind](const State& s, int l) -> u64 {
                    const Mix x{"", 0, 7, false, false};
                    const long double p = mix_src(vi(s, 0, l), 0, x), q = mix_src(vi(s, 1, l), 1, x), r = mix_src(vi(s, 2, l), 2, x);
                    const bool nan = std::isnan(p) || std::isnan(q) || std::isnan(r);
                    if (kind == 0) {
                      const u32 rr = bf(std::fmaf(static_cast<float>(p), static_cast<float>(q), static_cast<float>(r)));
                      return nan ? 0u : clamp01_32(ftz(rr));  // DX10 clamp: NaN -> 0
                    }
                    const u32 h = nan ? 0u : clamp16(to_h(std::fmal(p, q, r)));
                    const u32 d = s.vout[4][z(l)];
                    return kind == 1 ? (d & 0xffff0000u) | h : (d & 0xffffu) | (h << 16);
                  }});
    ls.back().partial = false;
    ls[2].partial = true;
    cs.push_back(lines_case(m, ls, Values::F16));
    cs.push_back(lines_case(m, rtz(ls), Values::F16, nullptr, kRtzPrefix));
  }
  cs.push_back(error_case("v_fma_mix_f32", "  v_fma_mix_f32 v32, v10, v11, 1.0 op_sel_hi:[1,1,1]",
                          "a constant as an f16 source of v_fma_mix* is not supported", Values::F16));
}

// ---------------------------------------------------------------------------------------------
// 16-bit integer ops (op_sel picks source halves; results zero bits 31:16; clamp saturates).
i64 sx(u32 h) { return static_cast<std::int16_t>(static_cast<u16>(h)); }
i64 sat(i64 x, i64 lo, i64 hi) { return x < lo ? lo : x > hi ? hi : x; }
using I3 = std::function<u64(u32, u32, u32, bool clamp)>;
std::vector<Line> int16_lines(const std::string& m, const I3& f, bool op_sel, bool wide2) {
  auto h = [](const State& s, int k, int l, bool hi) { return half_of(vi(s, k, l), hi); };
  auto c = [wide2, h](const State& s, int k, int l) { return wide2 ? vi(s, k, l) : h(s, k, l, false); };
  std::vector<Line> ls = {
      {m + " v32, v10, v11, v12", 0, [f, h, c](const State& s, int l) -> u64 { return f(h(s, 0, l, false), h(s, 1, l, false), c(s, 2, l), false); }},
      {m + " v33, s16, 7, v13", 1, [f, h, c](const State& s, int l) -> u64 { return f(lo16(si(s, 0)), 7, c(s, 3, l), false); }},
      {m + " v34, v14, v15, v16 clamp", 2, [f, h, c](const State& s, int l) -> u64 { return f(h(s, 4, l, false), h(s, 5, l, false), c(s, 6, l), true); }},
      {m + " v35, v17, v10, v11", 3, [f, h, c](const State& s, int l) -> u64 { return f(h(s, 7, l, false), h(s, 0, l, false), c(s, 1, l), false); }, 1, true}};
  if (op_sel)
    ls.push_back({m + " v36, v10, v11, v12 op_sel:[1,0,0,0]", 4,
                  [f, h, c](const State& s, int l) -> u64 { return f(h(s, 0, l, true), h(s, 1, l, false), c(s, 2, l), false); }});
  if (op_sel && !wide2)
    ls.push_back({m + " v37, v13, v14, v15 op_sel:[0,1,1,0]", 5,
                  [f, h](const State& s, int l) -> u64 { return f(h(s, 3, l, false), h(s, 4, l, true), h(s, 5, l, true), false); }});
  return ls;
}

void add_int16_cases(std::vector<Case>& cs) {
  const I3 mad_u = [](u32 a, u32 b, u32 c, bool cl) -> u64 {
    const i64 r = static_cast<i64>(a) * static_cast<i64>(b) + static_cast<i64>(c);
    return static_cast<u64>(cl ? sat(r, 0, 0xffff) : r) & 0xffffu;
  };
  const I3 mad_i = [](u32 a, u32 b, u32 c, bool cl) -> u64 {
    const i64 r = sx(a) * sx(b) + sx(c);
    return static_cast<u64>(cl ? sat(r, -32768, 32767) : r) & 0xffffu;
  };
  cs.push_back(lines_case("v_mad_u16", int16_lines("v_mad_u16", mad_u, true, false), Values::Int));
  cs.push_back(lines_case("v_mad_legacy_u16", int16_lines("v_mad_legacy_u16", mad_u, false, false), Values::Int));
  cs.push_back(lines_case("v_mad_i16", int16_lines("v_mad_i16", mad_i, true, false), Values::Int));
  cs.push_back(lines_case("v_mad_legacy_i16", int16_lines("v_mad_legacy_i16", mad_i, false, false), Values::Int));
  cs.push_back(lines_case("v_mad_u32_u16", int16_lines("v_mad_u32_u16", [](u32 a, u32 b, u32 c, bool cl) -> u64 {
                                                         const i64 r = static_cast<i64>(a) * static_cast<i64>(b) + static_cast<i64>(c);
                                                         return static_cast<u64>(cl ? sat(r, 0, 0xffffffffll) : r) & 0xffffffffu;
                                                       }, true, true), Values::Int));
  cs.push_back(lines_case("v_mad_i32_i16", int16_lines("v_mad_i32_i16", [](u32 a, u32 b, u32 c, bool cl) -> u64 {
                                                         const i64 r = sx(a) * sx(b) + static_cast<i64>(static_cast<i32>(c));
                                                         return static_cast<u64>(cl ? sat(r, INT32_MIN, INT32_MAX) : r) & 0xffffffffu;
                                                       }, true, true), Values::Int));
  auto u3 = [](int kind) -> I3 {
    return [kind](u32 a, u32 b, u32 c, bool) -> u64 {
      const u32 lo = std::min({a, b, c}), hi = std::max({a, b, c});
      return kind == 0 ? lo : kind == 1 ? hi : a + b + c - lo - hi;
    };
  };
  auto s3 = [](int kind) -> I3 {
    return [kind](u32 a, u32 b, u32 c, bool) -> u64 {
      const i64 x = sx(a), y = sx(b), w = sx(c);
      const i64 lo = std::min({x, y, w}), hi = std::max({x, y, w});
      return static_cast<u64>(kind == 0 ? lo : kind == 1 ? hi : x + y + w - lo - hi) & 0xffffu;
    };
  };
  const char* names[] = {"min3", "max3", "med3"};
  for (int k = 0; k < 3; ++k) {
    cs.push_back(lines_case(std::string("v_") + names[k] + "_u16", int16_lines(std::string("v_") + names[k] + "_u16", u3(k), true, false), Values::Int));
    cs.push_back(lines_case(std::string("v_") + names[k] + "_i16", int16_lines(std::string("v_") + names[k] + "_i16", s3(k), true, false), Values::Int));
  }
  // v_subrev_u16: D = S1 - S0 (16 bits; e64 clamp saturates at 0).
  auto subrev = [](Src a, Src b, bool cl) {
    return [a, b, cl](const State& s, int l) -> u64 {
      const i64 r = static_cast<i64>(lo16(b.g(s, l))) - static_cast<i64>(lo16(a.g(s, l)));
      return static_cast<u64>(cl ? sat(r, 0, 0xffff) : r) & 0xffffu;
    };
  };
  cs.push_back(lines_case("v_subrev_u16", {{"v_subrev_u16_e32 v32, v10, v11", 0, subrev(V(0), V(1), false)},
                                           {"v_subrev_u16_e32 v33, s16, v12", 1, subrev(S(0), V(2), false)},
                                           {"v_subrev_u16_e64 v34, v13, v14 clamp", 2, subrev(V(3), V(4), true)},
                                           {"v_subrev_u16_e32 v35, v15, v16", 3, subrev(V(5), V(6), false), 1, true}},
                          Values::Int));
  // v_pk_mad_u16/i16: low result from the halves op_sel picks, high from op_sel_hi (default all high).
  for (bool sg : {false, true}) {
    const std::string m = sg ? "v_pk_mad_i16" : "v_pk_mad_u16";
    auto pk = [sg](int a, int b, int c, unsigned sel, unsigned sel_hi, bool cl) {
      return [=](const State& s, int l) -> u64 {
        u32 out = 0;
        for (int half = 0; half < 2; ++half) {
          const unsigned sl = half ? sel_hi : sel;
          const u32 x = half_of(vi(s, a, l), sl & 1), y = half_of(vi(s, b, l), (sl >> 1) & 1), w = half_of(vi(s, c, l), (sl >> 2) & 1);
          const i64 r = sg ? sx(x) * sx(y) + sx(w) : static_cast<i64>(x) * y + w;
          const i64 v = cl ? (sg ? sat(r, -32768, 32767) : sat(r, 0, 0xffff)) : r;
          out |= (static_cast<u32>(static_cast<u64>(v)) & 0xffffu) << (16 * half);
        }
        return out;
      };
    };
    cs.push_back(lines_case(m, {{m + " v32, v10, v11, v12", 0, pk(0, 1, 2, 0, 7, false)},
                                {m + " v33, v13, v14, v15 op_sel:[1,0,1] op_sel_hi:[0,1,0]", 1, pk(3, 4, 5, 5, 2, false)},
                                {m + " v34, v16, v17, v10 clamp", 2, pk(6, 7, 0, 0, 7, true)},
                                {m + " v35, v11, v12, v13", 3, pk(1, 2, 3, 0, 7, false), 1, true}},
                            Values::Int));
  }
  cs.push_back(error_case("v_mad_u16", "  v_mad_u16 v32, v10, v11, v12 op_sel:[0,0,0,1]", "destination op_sel"));
  // A refused instruction decodes to Unsupported: the plain form first keeps the mnemonic in the body.
  cs.push_back(error_case("v_subrev_u16", "  v_subrev_u16_e32 v33, v10, v11\n  v_subrev_u16_sdwa v32, v10, v11 dst_sel:WORD_0 dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:WORD_0",
                          "SDWA/DPP form of v_subrev_u16 is not supported"));
  cs.push_back(error_case("v_subrev_u16", "  v_subrev_u16_e32 v33, v10, v11\n  v_subrev_u16_dpp v32, v10, v11 row_shr:1 row_mask:0xf bank_mask:0xf",
                          "SDWA/DPP form of v_subrev_u16 is not supported"));
}

// ---------------------------------------------------------------------------------------------
// Integer dot products (ISA guide V_DOT*): sum of N products of Bits-bit elements plus the
// accumulator (S2, or D for the VOP2 "c" forms); clamp saturates to the 32-bit result type.
u32 dot(u32 a, u32 b, u32 acc, int n, int bits, bool sg, bool cl) {
  i64 sum = sg ? static_cast<i64>(static_cast<i32>(acc)) : static_cast<i64>(acc);
  for (int e = 0; e < n; ++e) {
    const i64 x = static_cast<i64>((a >> (e * bits)) & ((1u << bits) - 1)), y = static_cast<i64>((b >> (e * bits)) & ((1u << bits) - 1));
    const i64 span = i64{1} << bits, top = span / 2;
    sum += (sg && x >= top ? x - span : x) * (sg && y >= top ? y - span : y);
  }
  if (cl) sum = sg ? sat(sum, INT32_MIN, INT32_MAX) : sat(sum, 0, 0xffffffffll);
  return static_cast<u32>(static_cast<u64>(sum));
}
void add_dot_cases(std::vector<Case>& cs) {
  struct D {
    const char* m;
    int n, bits;
    bool sg;
  };
  for (const D d : {D{"v_dot2_i32_i16", 2, 16, true}, D{"v_dot2_u32_u16", 2, 16, false}, D{"v_dot4_i32_i8", 4, 8, true},
                    D{"v_dot4_u32_u8", 4, 8, false}, D{"v_dot8_i32_i4", 8, 4, true}, D{"v_dot8_u32_u4", 8, 4, false}}) {
    const std::string m = d.m;
    auto L = [d](Src a, Src b, Src c, bool cl) {
      return [=](const State& s, int l) -> u64 { return dot(a.g(s, l), b.g(s, l), c.g(s, l), d.n, d.bits, d.sg, cl); };
    };
    cs.push_back(lines_case(m, {{m + " v32, v10, v11, v12", 0, L(V(0), V(1), V(2), false)},
                                {m + " v33, s16, v13, v12", 1, L(S(0), V(3), V(2), false)},
                                {m + " v34, v14, v15, v16 clamp", 2, L(V(4), V(5), V(6), true)},
                                {m + " v35, v17, v10, v11", 3, L(V(7), V(0), V(1), false), 1, true}},
                            Values::Int, [](State& s) {  // accumulators near the 32-bit limits
                              put(s, 6, {0x7ffffff0u, 0x80000005u, 0xfffffff0u, 5u});
                              put(s, 4, {0x7fff7fffu, 0x80008000u, 0xffffffffu, 0x80808080u});
                              put(s, 5, {0x7fff7fffu, 0x7fff7fffu, 0xffffffffu, 0x80808080u});
                            }));
  }
  cs.push_back(error_case("v_dot4_i32_i8", "  v_dot4_i32_i8 v32, 1, v11, v12", "a constant as a packed source"));
  cs.push_back(error_case("v_pk_fmac_f16", "  v_pk_fmac_f16 v32, 1.0, v11", "a constant as a packed source of v_pk_fmac_f16"));
  for (const D d : {D{"v_dot2c_i32_i16", 2, 16, true}, D{"v_dot4c_i32_i8", 4, 8, true}, D{"v_dot8c_i32_i4", 8, 4, true}}) {
    const std::string m = d.m;
    auto L = [d](int out, Src a, Src b) {
      return [=](const State& s, int l) -> u64 { return dot(a.g(s, l), b.g(s, l), s.vout[z(out)][z(l)], d.n, d.bits, d.sg, false); };
    };
    cs.push_back(lines_case(m, {{m + "_e32 v32, v10, v11", 0, L(0, V(0), V(1))},
                                {m + "_e32 v33, s16, v12", 1, L(1, S(0), V(2))},
                                {m + "_e32 v34, v13, v14", 2, L(2, V(3), V(4)), 1, true}},
                            Values::Int));
  }
}

// ---------------------------------------------------------------------------------------------
// SAD and media (ISA guide V_SAD_U8, V_SAD_HI_U8, V_SAD_U16, V_MSAD_U8, V_QSAD_PK_U16_U8,
// V_MQSAD_PK_U16_U8, V_MQSAD_U32_U8, V_LERP_U8).
u32 byte_of(u64 x, int i) { return static_cast<u32>((x >> (8 * i)) & 0xffu); }
u32 sad4(u32 a, u32 b, bool masked) {
  u32 s = 0;
  for (int i = 0; i < 4; ++i) {
    const i32 d = static_cast<i32>(byte_of(a, i)) - static_cast<i32>(byte_of(b, i));
    if (!(masked && byte_of(b, i) == 0)) s += static_cast<u32>(d < 0 ? -d : d);
  }
  return s;
}
void add_sad_cases(std::vector<Case>& cs) {
  using G = std::function<u32(u32, u32, u32)>;
  auto three = [&cs](const std::string& m, G g) {
    auto L = [g](Src a, Src b, Src c) { return [=](const State& s, int l) -> u64 { return g(a.g(s, l), b.g(s, l), c.g(s, l)); }; };
    cs.push_back(lines_case(m, {{m + " v32, v10, v11, v12", 0, L(V(0), V(1), V(2))},
                                {m + " v33, s16, v13, 5", 1, L(S(0), V(3), {"5", [](const State&, int) { return 5u; }})},
                                {m + " v34, v14, s17, v15", 2, L(V(4), S(1), V(5)), 1, true}},
                            Values::Int));
  };
  three("v_sad_u8", [](u32 a, u32 b, u32 c) { return sad4(a, b, false) + c; });
  three("v_sad_hi_u8", [](u32 a, u32 b, u32 c) { return (sad4(a, b, false) << 16) + c; });
  three("v_msad_u8", [](u32 a, u32 b, u32 c) { return sad4(a, b, true) + c; });
  three("v_sad_u16", [](u32 a, u32 b, u32 c) {
    const i32 d0 = static_cast<i32>(lo16(a)) - static_cast<i32>(lo16(b)), d1 = static_cast<i32>(hi16(a)) - static_cast<i32>(hi16(b));
    return static_cast<u32>(std::abs(d0) + std::abs(d1)) + c;
  });
  three("v_lerp_u8", [](u32 a, u32 b, u32 c) {
    u32 r = 0;
    for (int i = 0; i < 4; ++i) r |= ((byte_of(a, i) + byte_of(b, i) + ((c >> (8 * i)) & 1u)) >> 1) << (8 * i);
    return r;
  });
  // Quad SADs: S0 = v[10:11] (8 bytes), S1 = v12, S2 = v[14:15] (or v[14:17]).
  for (int kind = 0; kind < 3; ++kind) {
    const std::string m = kind == 0 ? "v_qsad_pk_u16_u8" : kind == 1 ? "v_mqsad_pk_u16_u8" : "v_mqsad_u32_u8";
    const bool wide = kind == 2, masked = kind != 0;
    auto f = [wide, masked](int part) {
      return [=](const State& s, int l) -> u64 {
        const u64 src = vi2(s, 0, l);
        const u32 ref = vi(s, 2, l);
        if (wide) return vi(s, 4 + part, l) + sad4(static_cast<u32>(src >> (8 * part)), ref, masked);
        u32 w = 0;
        for (int j = 2 * part; j < 2 * part + 2; ++j) {
          const u32 acc = half_of(vi(s, 4 + j / 2, l), j % 2);
          w |= ((acc + sad4(static_cast<u32>(src >> (8 * j)), ref, masked)) & 0xffffu) << (16 * (j % 2));
        }
        return w;
      };
    };
    std::vector<Line> ls;
    const std::string d = wide ? "v[32:35]" : "v[32:33]", acc = wide ? "v[14:17]" : "v[14:15]";
    const int parts = wide ? 4 : 2;
    // One instruction writes `parts` registers: one Line per register, the first carries the
    // text (the others add blank lines to the body).
    for (int p = 0; p < parts; ++p) ls.push_back({p == 0 ? m + " " + d + ", v[10:11], v12, " + acc : "", p, f(p)});
    cs.push_back(lines_case(m, ls, Values::Int, [](State& s) {  // 16-bit accumulators near the wrap
      put(s, 4, {0xfff0fffeu, 0x0000ffffu});
    }));
  }
  cs.push_back(error_case("v_sad_u8", "  v_sad_u8 v32, v10, v11, v12 clamp", "clamp on a SAD instruction is not supported"));
}

// ---------------------------------------------------------------------------------------------
// Conversions: v_cvt_pk_u8_f32, v_cvt_norm_{i16,u16}_f16, v_cvt_off_f32_i4, v_sat_pk_u8_i16.
void add_cvt_cases(std::vector<Case>& cs) {
  // v_cvt_pk_u8_f32: byte S1[1:0] of S2 replaced by S0 -> u8 (nearest even, saturated, NaN -> 0:
  // the simulator's documented choice; the guide does not give the rounding).
  auto pk = [](Src a, Src b, Src c) {
    return [=](const State& s, int l) -> u64 {
      const float x = fl(ftz(a.g(s, l)));
      const u32 v = std::isnan(x) ? 0u : x <= 0.0f ? 0u : x >= 255.0f ? 255u : static_cast<u32>(std::lrint(x));
      const u32 sh = 8 * (b.g(s, l) & 3u);
      return (c.g(s, l) & ~(0xffu << sh)) | (v << sh);
    };
  };
  cs.push_back(lines_case("v_cvt_pk_u8_f32", {{"v_cvt_pk_u8_f32 v32, v10, v16, v17", 0, pk(V(0), V(6), V(7))},
                                              {"v_cvt_pk_u8_f32 v33, s16, v16, v13", 1, pk(S(0), V(6), V(3))},
                                              {"v_cvt_pk_u8_f32 v34, -v11, 3, v12", 2, pk(Neg(V(1)), {"3", [](const State&, int) { return 3u; }}, V(2)), 1, true}},
                          Values::F32, [](State& s) {
                            put(s, 0, {bf(0.5f), bf(1.5f), bf(2.5f), bf(254.5f), bf(255.5f), bf(-3.0f), bf(100.49f), 0x7fc00000u});
                            for (int l = 0; l < kLanes; ++l) s.vin[6][z(l)] = static_cast<u32>(l * 7);
                          }));
  for (bool sg : {true, false}) {
    const std::string m = sg ? "v_cvt_norm_i16_f16" : "v_cvt_norm_u16_f16";
    auto f = [sg](u32 h) -> u64 {
      const double x = hd(h);
      if (std::isnan(x)) return 0;
      const double c = x > 1.0 ? 1.0 : x < (sg ? -1.0 : 0.0) ? (sg ? -1.0 : 0.0) : x;
      return static_cast<u64>(static_cast<u32>(static_cast<i32>(std::nearbyint(c * (sg ? 32767.0 : 65535.0)))) & 0xffffu);
    };
    cs.push_back(lines_case(m, {{m + "_e32 v32, v10", 0, [f](const State& s, int l) -> u64 { return f(lo16(vi(s, 0, l))); }},
                                {m + "_e32 v33, s16", 1, [f](const State& s, int) -> u64 { return f(lo16(si(s, 0))); }},
                                {m + "_e64 v34, -v11", 2, [f](const State& s, int l) -> u64 { return f(lo16(vi(s, 1, l)) ^ 0x8000u); }},
                                {m + "_e32 v35, v12", 3, [f](const State& s, int l) -> u64 { return f(lo16(vi(s, 2, l))); }, 1, true}},
                            Values::F16));
  }
  auto off = [](u32 x) -> u64 {
    static const float table[16] = {0.0f, 0.0625f, 0.125f, 0.1875f, 0.25f, 0.3125f, 0.375f, 0.4375f,
                                    -0.5f, -0.4375f, -0.375f, -0.3125f, -0.25f, -0.1875f, -0.125f, -0.0625f};
    return bf(table[x & 15u]);
  };
  cs.push_back(lines_case("v_cvt_off_f32_i4", {{"v_cvt_off_f32_i4_e32 v32, v10", 0, [off](const State& s, int l) -> u64 { return off(vi(s, 0, l)); }},
                                               {"v_cvt_off_f32_i4_e32 v33, s16", 1, [off](const State& s, int) -> u64 { return off(si(s, 0)); }},
                                               {"v_cvt_off_f32_i4_e32 v34, 9", 2, [off](const State&, int) -> u64 { return off(9); }},
                                               {"v_cvt_off_f32_i4_e32 v35, v11", 3, [off](const State& s, int l) -> u64 { return off(vi(s, 1, l)); }, 1, true}},
                          Values::Int, [](State& s) {
                            for (int l = 0; l < kLanes; ++l) s.vin[0][z(l)] = static_cast<u32>(l) * 0x11111111u;
                          }));
  auto satpk = [](u32 x) -> u64 {
    auto s8 = [](u32 h) { const i64 v = sx(h); return static_cast<u32>(v < 0 ? 0 : v > 255 ? 255 : v); };
    return s8(lo16(x)) | (s8(hi16(x)) << 8);
  };
  cs.push_back(lines_case("v_sat_pk_u8_i16", {{"v_sat_pk_u8_i16_e32 v32, v10", 0, [satpk](const State& s, int l) -> u64 { return satpk(vi(s, 0, l)); }},
                                              {"v_sat_pk_u8_i16_e32 v33, s16", 1, [satpk](const State& s, int) -> u64 { return satpk(si(s, 0)); }},
                                              {"v_sat_pk_u8_i16_e32 v34, v11", 2, [satpk](const State& s, int l) -> u64 { return satpk(vi(s, 1, l)); }, 1, true}},
                          Values::Int));
}

// ---------------------------------------------------------------------------------------------
// v_cube* (ISA guide V_CUBEID/SC/TC/MA_F32): major axis z if |z| >= |x| and |z| >= |y|, else y if
// |y| >= |x|, else x; id = 2 * axis + (major < 0) with axis x=0, y=1, z=2; sc/tc the face
// coordinates; ma = 2 * major.
void add_cube_cases(std::vector<Case>& cs) {
  for (int kind = 0; kind < 4; ++kind) {
    const std::string m = kind == 0 ? "v_cubeid_f32" : kind == 1 ? "v_cubesc_f32" : kind == 2 ? "v_cubetc_f32" : "v_cubema_f32";
    auto f = [kind](u32 xa, u32 ya, u32 za) -> u64 {
      const float x = fl(ftz(xa)), y = fl(ftz(ya)), zz = fl(ftz(za));
      float r;
      const bool zmaj = std::fabs(zz) >= std::fabs(x) && std::fabs(zz) >= std::fabs(y);
      const bool ymaj = !zmaj && std::fabs(y) >= std::fabs(x);
      if (kind == 0) r = zmaj ? (zz < 0 ? 5.0f : 4.0f) : ymaj ? (y < 0 ? 3.0f : 2.0f) : (x < 0 ? 1.0f : 0.0f);
      else if (kind == 1) r = zmaj ? (zz < 0 ? -x : x) : ymaj ? x : (x < 0 ? zz : -zz);
      else if (kind == 2) r = zmaj ? -y : ymaj ? (y < 0 ? -zz : zz) : -y;
      else r = 2.0f * (zmaj ? zz : ymaj ? y : x);
      return nan_or32(ftz(bf(r)), {ftz(xa), ftz(ya), ftz(za)});
    };
    cs.push_back(lines_case(m, {{m + " v32, v10, v11, v12", 0, [f](const State& s, int l) -> u64 { return f(vi(s, 0, l), vi(s, 1, l), vi(s, 2, l)); }},
                                {m + " v33, s16, -v13, |v14|", 1, [f](const State& s, int l) -> u64 {
                                   return f(si(s, 0), vi(s, 3, l) ^ 0x80000000u, vi(s, 4, l) & 0x7fffffffu); }},
                                {m + " v34, v15, v16, v17", 2, [f](const State& s, int l) -> u64 { return f(vi(s, 5, l), vi(s, 6, l), vi(s, 7, l)); }, 1, true}},
                            Values::F32));
  }
}

}  // namespace

void add_valu_three_cases(std::vector<Case>& cases) {
  add_div_scale_cases(cases);
  add_div_fmas_cases(cases);
  add_div_fixup_cases(cases);
  add_f16_cases(cases);
  add_mix_cases(cases);
  add_int16_cases(cases);
  add_dot_cases(cases);
  add_sad_cases(cases);
  add_cvt_cases(cases);
  add_cube_cases(cases);
}

}  // namespace cdna::simulator::directed
