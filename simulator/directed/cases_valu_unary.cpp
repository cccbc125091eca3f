// Directed cases: f16/f32/f64 unary ops (rounding, fract, frexp, transcendentals), v_ldexp_f16,
// v_clrexcp, and the remaining v_cmp/v_cmpx forms (f16/f64/i16/u16 v_cmpx_*, the f/t/tru forms).
//
// Models are written for the tests from the CDNA3 ISA guide's VOP1/VOP2 descriptions:
//   trunc/ceil/floor/rndne: the integral value (exact), NaN quieted, a zero keeps the sign.
//   fract: S0 + -floor(S0) rounded to the format under MODE's round mode, at most the largest
//     value below 1.0 (0x3f7fffff / 0x3fefffffffffffff: "result clamped to ..."; f16 0x3bff: the
//     guide is silent, LLVM's AMDGPUCodeGenPrepare matchFractPat assumes it for every type);
//     fract(±inf) is invalid (the default NaN).
//   frexp_mant/frexp_exp: the C frexp() pair, S0 itself / 0 for ±inf and NaN, ±0 / 0 for zeros.
//   v_ldexp_f16: S0.f16 * 2^S1.i16 rounded once.
//   f16 transcendentals: the correctly rounded value (MPFR, binary16 range and subnormals) as the
//     simulator's default mode gives it (the hardware is documented as 1 ULP); invalid results
//     0xfe00, rsq(-0) = -inf and sin(nonzero x) = +0 when zero: the guide's functional examples.
//   v_rcp/rsq/sqrt_f64 and v_exp/log_legacy_f32: correctly rounded (MPFR), default NaN for an
//     invalid operation (simulator convention, fp.hpp).
// MODE at kernel start (cases_valu_fp.cpp header): nearest even, f32 denormals flushed, f16/f64
// denormals kept, DX10_CLAMP and IEEE set.
#include <mpfr.h>

#include <bit>
#include <cmath>
#include <string>

#include "simulator/directed/cases.hpp"

namespace cdna::simulator::directed {
namespace {

std::size_t z(int i) { return static_cast<std::size_t>(i); }
float f32(u32 u) { return std::bit_cast<float>(u); }
u32 b32(float f) { return std::bit_cast<u32>(f); }
double f64(u64 u) { return std::bit_cast<double>(u); }
u64 b64(double d) { return std::bit_cast<u64>(d); }

constexpr u32 kQNaN32 = 0x7fc00000u;
constexpr u64 kQNaN64 = 0x7ff8000000000000ull;
constexpr u32 kQNaN16 = 0x7e00u;
constexpr u32 kInvalid16 = 0xfe00u;  // ISA guide functional examples: sqrt(-inf), log(-1), sin(inf)

bool nan16(u32 h) { return (h & 0x7fffu) > 0x7c00u; }
bool inf16(u32 h) { return (h & 0x7fffu) == 0x7c00u; }
bool nan32(u32 u) { return (u & 0x7fffffffu) > 0x7f800000u; }
bool nan64(u64 u) { return (u & 0x7fffffffffffffffull) > 0x7ff0000000000000ull; }
u32 ftz32(u32 u) { return (u & 0x7f800000u) == 0 ? (u & 0x80000000u) : u; }

// binary16 value (bias 15, 10 fraction bits, subnormals 2^-24 * fraction).
double h2d(u32 h) {
  const int e = static_cast<int>((h >> 10) & 0x1f);
  const double f = static_cast<double>(h & 0x3ff);
  double v = e == 31 ? (f != 0 ? NAN : INFINITY) : e == 0 ? std::ldexp(f, -24) : std::ldexp(1024.0 + f, e - 25);
  return (h & 0x8000u) ? -v : v;
}
// binary16 pattern of a value that is representable (or ±inf / ±0).
u32 d2h(double v) {
  const u32 sign = std::signbit(v) ? 0x8000u : 0u;
  v = std::fabs(v);
  if (std::isinf(v)) return sign | 0x7c00u;
  if (v == 0.0) return sign;
  const int e = std::ilogb(v);
  if (e < -14) return sign | static_cast<u32>(std::ldexp(v, 24));  // subnormal: v = m * 2^-24
  return sign | (static_cast<u32>(e + 15) << 10) | (static_cast<u32>(std::ldexp(v, 10 - e)) - 1024u);
}

// ---- MPFR: values rounded into a format (precision, MPFR exponent range), subnormals included.
struct Fmt {
  int prec;
  mpfr_exp_t emin, emax;
};
constexpr Fmt kH{11, -23, 16}, kS{24, -148, 128}, kD{53, -1073, 1024};

enum class Fn { Exp2, Log2, Rcp, Rsq, Sqrt, Sin, Cos, Ldexp };

// f(x) (x exact in double; Ldexp: x * 2^k) rounded to nearest even in `fmt`; NaN for an invalid
// operation.
double round_by_mpfr(Fn f, double x, const Fmt& fmt, long k = 0) {
  const mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
  mpfr_set_emin(fmt.emin);
  mpfr_set_emax(fmt.emax);
  mpfr_t a, r;
  mpfr_init2(a, 53);
  mpfr_init2(r, fmt.prec);
  mpfr_set_d(a, x, MPFR_RNDN);
  int t = 0;
  switch (f) {
    case Fn::Exp2: t = mpfr_exp2(r, a, MPFR_RNDN); break;
    case Fn::Log2: t = mpfr_log2(r, a, MPFR_RNDN); break;
    case Fn::Rcp: t = mpfr_ui_div(r, 1, a, MPFR_RNDN); break;
    case Fn::Rsq: t = mpfr_rec_sqrt(r, a, MPFR_RNDN); break;
    case Fn::Sqrt: t = mpfr_sqrt(r, a, MPFR_RNDN); break;
    case Fn::Sin: t = mpfr_sinu(r, a, 1, MPFR_RNDN); break;
    case Fn::Cos: t = mpfr_cosu(r, a, 1, MPFR_RNDN); break;
    case Fn::Ldexp: t = mpfr_mul_2si(r, a, k, MPFR_RNDN); break;
  }
  t = mpfr_subnormalize(r, t, MPFR_RNDN);
  const double out = mpfr_get_d(r, MPFR_RNDN);
  mpfr_clear(a);
  mpfr_clear(r);
  mpfr_set_emin(emin);
  mpfr_set_emax(emax);
  return out;
}

// ISA examples: rsq(-0) = -inf (MPFR's rec_sqrt(-0) is +inf).
double special_rsq(Fn f, double x, double r) { return f == Fn::Rsq && x == 0.0 ? std::copysign(INFINITY, x) : r; }

u64 trans16(Fn f, u64 a) {
  const u32 h = static_cast<u32>(a) & 0xffffu;
  if (nan16(h)) return h | 0x0200u;
  const double x = h2d(h);
  const double r = special_rsq(f, x, round_by_mpfr(f, x, kH));
  if (f == Fn::Sin && r == 0.0 && x != 0.0) return 0;  // ISA example: V_SIN_F16(0xfbff) = 0x0000
  return std::isnan(r) ? kInvalid16 : d2h(r);
}
u64 trans32(Fn f, u64 a) {  // f32 transcendental unit: denormals flushed in and out
  const u32 x = ftz32(static_cast<u32>(a));
  if (nan32(x)) return x | 0x00400000u;
  const double r = round_by_mpfr(f, f32(x), kS);
  return std::isnan(r) ? kQNaN32 : ftz32(b32(static_cast<float>(r)));
}
u64 trans64(Fn f, u64 a) {
  if (nan64(a)) return a | 0x0008000000000000ull;
  const double r = special_rsq(f, f64(a), round_by_mpfr(f, f64(a), kD));
  return std::isnan(r) ? kQNaN64 : b64(r);
}

// ---- rounding to integral, fract, frexp

template <class G>
u64 round16(u64 a, G g) {
  const u32 h = static_cast<u32>(a) & 0xffffu;
  return nan16(h) ? (h | 0x0200u) : d2h(g(h2d(h)));
}
template <class G>
u64 round64(u64 a, G g) {
  return nan64(a) ? a | 0x0008000000000000ull : b64(g(f64(a)));
}
double rint_ne(double x) { return std::nearbyint(x); }  // host default mode: nearest even

u64 fract16(u64 a) {
  const u32 h = static_cast<u32>(a) & 0xffffu;
  if (nan16(h)) return h | 0x0200u;
  if (inf16(h)) return kQNaN16;
  const double x = h2d(h);
  const double r = round_by_mpfr(Fn::Ldexp, x - std::floor(x), kH);  // the difference is exact in double
  return d2h(std::fmin(r, 1.0 - 0x1p-11));
}
// f32 fract under MODE round mode `up` (true: toward +inf; false: nearest even); input and
// output denormals flushed.
u64 fract32(u64 a, bool up) {
  const u32 u = ftz32(static_cast<u32>(a));
  if (nan32(u)) return u | 0x00400000u;
  if ((u & 0x7fffffffu) == 0x7f800000u) return kQNaN32;
  const double x = f32(u), d = x - std::floor(x);  // exact in double
  float r = static_cast<float>(d);
  if (up && static_cast<double>(r) < d) r = std::nextafter(r, INFINITY);
  return ftz32(b32(std::fmin(r, 0x1.fffffep-1f)));
}
u64 fract64(u64 a) {
  if (nan64(a)) return a | 0x0008000000000000ull;
  const double x = f64(a);
  if (std::isinf(x)) return kQNaN64;
  return b64(std::fmin(x - std::floor(x), 0x1.fffffffffffffp-1));  // IEEE subtraction: one rounding
}

u64 mant16(u64 a) {
  const u32 h = static_cast<u32>(a) & 0xffffu;
  if (nan16(h) || inf16(h) || (h & 0x7fffu) == 0) return h;
  int e = 0;
  return d2h(std::frexp(h2d(h), &e));
}
u64 exp16(u64 a) {
  const u32 h = static_cast<u32>(a) & 0xffffu;
  if (nan16(h) || inf16(h)) return 0;
  int e = 0;
  std::frexp(h2d(h), &e);
  return static_cast<u32>(e) & 0xffffu;
}
u64 mant32(u64 a) {
  const u32 u = ftz32(static_cast<u32>(a));
  int e = 0;
  return std::isfinite(f32(u)) && f32(u) != 0.0f ? b32(std::frexp(f32(u), &e)) : u;
}
u64 exp32(u64 a) {
  const u32 u = ftz32(static_cast<u32>(a));
  int e = 0;
  if (std::isfinite(f32(u))) std::frexp(f32(u), &e);
  return static_cast<u32>(e);
}
u64 mant64(u64 a) {
  int e = 0;
  return std::isfinite(f64(a)) && f64(a) != 0.0 ? b64(std::frexp(f64(a), &e)) : a;
}
u64 exp64(u64 a) {
  int e = 0;
  if (std::isfinite(f64(a))) std::frexp(f64(a), &e);
  return static_cast<u32>(e);
}

u64 ldexp16(u64 a, u64 b) {
  const u32 h = static_cast<u32>(a) & 0xffffu;
  if (nan16(h)) return h | 0x0200u;
  const long k = static_cast<std::int16_t>(static_cast<u16>(b));
  return d2h(round_by_mpfr(Fn::Ldexp, h2d(h), kH, k));
}

// ---- inputs

// f16 lanes over the whole format (both halves of v10..v17): random patterns, signalling NaNs,
// subnormals, the ISA examples' arguments.
void wide16(State& s) {
  u32 x = 0x12345u;
  for (auto& r : s.vin)
    for (int l = 16; l < kLanes; l += 2) {
      x = x * 1103515245u + 12345u;
      r[z(l)] = x;
    }
  const u32 ex[] = {0x7c01fd01u, 0x3400b400u, 0x44003c01u, 0x7bfffbffu, 0x03ff8001u, 0x4c004900u, 0x5a00da00u, 0x3a00ba00u};
  for (int k = 0; k < kVIn; ++k) s.vin[z(k)][z(1 + 2 * k)] = ex[k];
}
// f16 low halves of v11, v13, v15, v17 (src1 of v_ldexp_f16) as small signed exponents.
void ldexp_args(State& s) {
  for (int k = 1; k < kVIn; k += 2)
    for (int l = 0; l < kLanes; ++l) {
      u32& w = s.vin[z(k)][z(l)];
      const int e = l < 4 ? (l == 0 ? 40 : l == 1 ? -40 : l == 2 ? 0x7fff : -0x8000) : static_cast<int>(w % 61u) - 30;
      w = (w & 0xffff0000u) | (static_cast<u32>(e) & 0xffffu);
    }
}
// f32 inputs: small negative values (fract rounds 1 - |x|) and signalling NaNs.
void fract_inputs32(State& s) {
  for (int k = 0; k < kVIn; ++k) {
    s.vin[z(k)][z(30 + k)] = b32(-1e-7f * static_cast<float>(k + 1));
    s.vin[z(k)][z(40 + k)] = b32(-3e-8f);
    s.vin[z(k)][z(48 + k)] = 0x7f800001u;
  }
}
// f64 inputs: the same for f64 pairs (v10:11, v12:13, ...), plus tiny and huge magnitudes.
void inputs64(State& s) {
  const u64 ex[] = {b64(-1e-17), b64(-3e-300), 0x7ff0000000000001ull, b64(1e-310), b64(4.0), b64(0x1p-1074),
                    b64(-0.25), b64(1.7976931348623157e308)};
  for (int k = 0; k < kVIn; k += 2)
    for (int i = 0; i < 8; ++i) set_lane_pair(s.vin[z(k)], s.vin[z(k + 1)], 40 + i, ex[(i + static_cast<std::size_t>(k)) % 8]);
}

std::string set_round_up32() { return "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 2), 1\n  s_nop 3\n"; }

}  // namespace

void add_valu_unary_cases(std::vector<Case>& cs) {
  ValuForms h;  // f16 sources and results (results zero bits 31:16)
  h.sbits = h.dbits = 16;
  h.inline_bits = 0x3800u;  // 0.5
  h.literal_text = "0x4248";  // 3.140625
  h.literal_bits = 0x4248u;
  ValuForms s;  // f32
  ValuForms d;  // f64 sources and results
  d.sbits = d.dbits = 64;
  d.inline_text = "-0.5";
  d.inline_bits = b64(-0.5);

  // ---- f16 ----
  add_unary_case(cs, "v_trunc_f16", h, [](u64 a) { return round16(a, [](double x) { return std::trunc(x); }); }, Values::F16);
  add_unary_case(cs, "v_ceil_f16", h, [](u64 a) { return round16(a, [](double x) { return std::ceil(x); }); }, Values::F16);
  add_unary_case(cs, "v_floor_f16", h, [](u64 a) { return round16(a, [](double x) { return std::floor(x); }); }, Values::F16);
  add_unary_case(cs, "v_rndne_f16", h, [](u64 a) { return round16(a, rint_ne); }, Values::F16);
  add_unary_case(cs, "v_fract_f16", h, fract16, Values::F16, wide16);
  ValuForms hnoclamp = h;
  hnoclamp.clamp_line = false;  // refused (below): no documented output modifiers
  add_unary_case(cs, "v_frexp_mant_f16", hnoclamp, mant16, Values::F16, wide16);
  ValuForms h2i = hnoclamp;
  h2i.float_dst = false;
  add_unary_case(cs, "v_frexp_exp_i16_f16", h2i, exp16, Values::F16, wide16);
  const std::pair<const char*, Fn> t16[] = {{"v_exp_f16", Fn::Exp2}, {"v_log_f16", Fn::Log2}, {"v_rcp_f16", Fn::Rcp},
                                             {"v_rsq_f16", Fn::Rsq},  {"v_sqrt_f16", Fn::Sqrt}, {"v_sin_f16", Fn::Sin},
                                             {"v_cos_f16", Fn::Cos}};
  for (const auto& [mn, f] : t16) add_unary_case(cs, mn, h, [f](u64 a) { return trans16(f, a); }, Values::F16, wide16);
  add_binary_case(cs, "v_ldexp_f16", h, ldexp16, Values::F16, [](State& st) { wide16(st); ldexp_args(st); }, false);

  // ---- f32 ----
  add_unary_case(cs, "v_fract_f32", s, [](u64 a) { return fract32(a, false); }, Values::F32, fract_inputs32);
  ValuForms s_up = s;
  s_up.prologue = set_round_up32();  // "Obey round mode"
  add_unary_case(cs, "v_fract_f32", s_up, [](u64 a) { return fract32(a, true); }, Values::F32, fract_inputs32);
  ValuForms snoclamp = s;
  snoclamp.clamp_line = false;
  add_unary_case(cs, "v_frexp_mant_f32", snoclamp, mant32, Values::F32);
  ValuForms s2i = snoclamp;
  s2i.float_dst = false;
  add_unary_case(cs, "v_frexp_exp_i32_f32", s2i, exp32, Values::F32);
  add_unary_case(cs, "v_exp_legacy_f32", s, [](u64 a) { return trans32(Fn::Exp2, a); }, Values::F32);
  add_unary_case(cs, "v_log_legacy_f32", s, [](u64 a) { return trans32(Fn::Log2, a); }, Values::F32);

  // ---- f64 ----
  add_unary_case(cs, "v_trunc_f64", d, [](u64 a) { return round64(a, [](double x) { return std::trunc(x); }); }, Values::F64, inputs64);
  add_unary_case(cs, "v_ceil_f64", d, [](u64 a) { return round64(a, [](double x) { return std::ceil(x); }); }, Values::F64, inputs64);
  add_unary_case(cs, "v_floor_f64", d, [](u64 a) { return round64(a, [](double x) { return std::floor(x); }); }, Values::F64, inputs64);
  add_unary_case(cs, "v_rndne_f64", d, [](u64 a) { return round64(a, rint_ne); }, Values::F64, inputs64);
  add_unary_case(cs, "v_fract_f64", d, fract64, Values::F64, inputs64);
  ValuForms dnoclamp = d;
  dnoclamp.clamp_line = false;
  add_unary_case(cs, "v_frexp_mant_f64", dnoclamp, mant64, Values::F64, inputs64);
  ValuForms d2i = dnoclamp;
  d2i.dbits = 32;
  d2i.float_dst = false;
  add_unary_case(cs, "v_frexp_exp_i32_f64", d2i, exp64, Values::F64, inputs64);
  add_unary_case(cs, "v_rcp_f64", d, [](u64 a) { return trans64(Fn::Rcp, a); }, Values::F64, inputs64);
  add_unary_case(cs, "v_rsq_f64", d, [](u64 a) { return trans64(Fn::Rsq, a); }, Values::F64, inputs64);
  add_unary_case(cs, "v_sqrt_f64", d, [](u64 a) { return trans64(Fn::Sqrt, a); }, Values::F64, inputs64);

  // ---- v_clrexcp: no architectural state the simulator keeps changes; the next instruction runs.
  cs.push_back(Case{"v_clrexcp", "  v_clrexcp\n  v_mov_b32 v32, v10\n",
                    [](State& st) { for_active(st, [&](int l) { st.vout[0][z(l)] = st.vin[0][z(l)]; }); }});

  // ---- refused forms: output modifiers the guide gives no meaning for
  const std::pair<const char*, const char*> refused[] = {
      {"  v_frexp_mant_f32_e64 v32, v10 clamp\n", "clamp/omod on v_frexp_mant_f32 is not supported"},
      {"  v_frexp_exp_i16_f16_e64 v32, v10 clamp\n", "clamp/omod on v_frexp_exp_i16_f16 is not supported"},
      {"  v_frexp_mant_f64_e64 v[32:33], v[10:11] mul:2\n", "clamp/omod on v_frexp_mant_f64 is not supported"},
      {"  v_rcp_f16_e64 v32, v10 mul:2\n", "omod on a 16-bit instruction is not supported"},
  };
  for (const auto& [body, err] : refused) {
    std::string mn = body + 2;
    mn = mn.substr(0, mn.find("_e64"));
    Case c{mn, body, [](State&) {}, Values::F32};
    c.expect_error = err;
    cs.push_back(c);
  }

  // ---- VOPC: the remaining compare forms, built like the other VOPC cases (cases_vopc.cpp).
  std::vector<std::string> cmps = {"v_cmp_f_f16", "v_cmp_tru_f16", "v_cmpx_class_f16", "v_cmpx_class_f64"};
  for (const char* ty : {"i16", "u16"})
    for (const char* op : {"f", "t"}) cmps.push_back(std::string("v_cmp_") + op + "_" + ty);
  for (const char* ty : {"f16", "f64"})
    for (const char* op : {"f", "lt", "eq", "le", "gt", "lg", "ge", "o", "u", "nge", "nlg", "ngt", "nle", "neq", "nlt", "tru"})
      cmps.push_back(std::string("v_cmpx_") + op + "_" + ty);
  for (const char* ty : {"i16", "u16"})
    for (const char* op : {"f", "lt", "eq", "le", "gt", "ne", "ge", "t"}) cmps.push_back(std::string("v_cmpx_") + op + "_" + ty);
  for (const char* ty : {"i32", "u32", "i64", "u64"})
    for (const char* op : {"f", "t"}) cmps.push_back(std::string("v_cmpx_") + op + "_" + ty);
  for (const auto& m : cmps) cs.push_back(vopc_case(m));
}

}  // namespace cdna::simulator::directed
