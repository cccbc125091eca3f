// Three-operand VALU of the division sequence and the media/dot family:
//   v_div_scale/fmas/fixup (f32, f64; fixup also f16), the v_fma_mix* f16/f32 mixes,
//   f16 mads (v_mad/mac/fma legacy and op_sel forms) and min3/max3/med3, 16-bit integer mads,
//   min3/max3/med3 and packed mads, integer dot products, SAD/media ops, v_cube*.
//
// Semantics: the CDNA3 ISA guide's opcode descriptions (its pseudocode is the same as the RDNA3
// guide's for these opcodes). Where the guide leaves a detail open the choice is written at the
// use and in simulator/README.md "Modelling choices".
//
// Division (LLVM SIISelLowering::LowerFDIV32/LowerFDIV64 emit div_scale x2, rcp, fma chain,
// div_fmas, div_fixup): v_div_fmas applies its 2^±64 (f64: 2^±128) scale to the exact fused
// result and rounds once, which is what makes the sequence correctly rounded when the quotient is
// subnormal. Rounding follows MODE (f32 field for f32, f64/f16 field for f64 and f16).
#include <mpfr.h>

#include <algorithm>
#include <cmath>

#include "simulator/exec/fp.hpp"
#include "simulator/exec/handlers.hpp"
#include "simulator/exec/fp_lanes.hpp"

namespace cdna::simulator {
namespace {

using u16 = std::uint16_t;
using u32 = std::uint32_t;
using u64 = std::uint64_t;
using i32 = std::int32_t;
using i64 = std::int64_t;

inline u32 bexp32(u32 x) { return (x >> 23) & 0xffu; }
inline u32 bexp64(u64 x) { return static_cast<u32>((x >> 52) & 0x7ffu); }
inline u32 bexp16(u32 h) { return (h >> 10) & 0x1fu; }
inline bool subnormal32(u32 x) { return bexp32(x) == 0 && (x & 0x7fffffu) != 0; }
inline bool subnormal64(u64 x) { return bexp64(x) == 0 && (x & 0xfffffffffffffull) != 0; }
inline bool nan16(u32 h) { return (h & 0x7fffu) > 0x7c00u; }
inline double h2d(u32 h) { return static_cast<double>(as_float(f32_bits_from_f16(static_cast<u16>(h), false))); }

// a*b + c rounded to odd in double, for a, b, c of at most 24 significant bits each (f32/f16):
// the product is exact in double, TwoSum gives the error of the rounded sum, and an inexact sum
// gets an odd last bit. One more rounding of the result to f32 or f16 (<= 24 + 2 bits) is then
// the correctly rounded fma (Boldo & Melquiond, "When double rounding is odd"). An exact zero
// takes IEEE 754 §6.3's sign for `mode`. The host must be in nearest-even mode.
double fma_to_odd(double a, double b, double c, u32 mode) {
  const double p = a * b;
  const double s = p + c;
  if (!std::isfinite(p) || !std::isfinite(c)) return s;
  const double bv = s - p;
  const double err = (p - (s - bv)) + (c - bv);
  u64 bits = dbits(zero_sign(s, std::signbit(p) || std::signbit(c), mode));
  if (err != 0 && (bits & 1) == 0) bits = ((err > 0) == (s > 0)) ? bits + 1 : bits - 1;
  return as_double(bits);
}

mpfr_rnd_t mpfr_mode(u32 mode) {
  return mode == kRoundUp ? MPFR_RNDU : mode == kRoundDown ? MPFR_RNDD : mode == kRoundZero ? MPFR_RNDZ : MPFR_RNDN;
}

// fma(a, b, c) * 2^k for finite f64 a, b, c, rounded once to f64 (subnormals included) under
// `mode`: MPFR's fma rounds to 53 bits, the scale is exact, and mpfr_subnormalize redoes the
// rounding in the subnormal range with the first rounding's ternary value (no double rounding).
u64 fma64_scaled(u64 a, u64 b, u64 c, long k, u32 mode) {
  const mpfr_rnd_t rnd = mpfr_mode(mode);
  const mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
  mpfr_t x, y, z, r;
  mpfr_inits2(53, x, y, z, r, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_d(x, as_double(a), MPFR_RNDN);
  mpfr_set_d(y, as_double(b), MPFR_RNDN);
  mpfr_set_d(z, as_double(c), MPFR_RNDN);
  int t = mpfr_fma(r, x, y, z, rnd);
  mpfr_mul_2si(r, r, k, MPFR_RNDN);  // exact in MPFR's exponent range
  mpfr_set_emin(-1073);              // binary64: subnormals down to 2^-1074
  mpfr_set_emax(1024);
  t = mpfr_check_range(r, t, rnd);
  mpfr_subnormalize(r, t, rnd);
  const double d = mpfr_get_d(r, rnd);  // MPFR gives an exact zero sum IEEE 754's sign
  mpfr_set_emin(emin);
  mpfr_set_emax(emax);
  mpfr_clears(x, y, z, r, static_cast<mpfr_ptr>(nullptr));
  return dbits(d);
}

// ---- v_div_scale: ops = vdst, sdst (lane mask), S0, S1 (denominator), S2 (numerator).
// ISA guide V_DIV_SCALE_F32/F64. D = S0 unless a branch below scales it; VCC (sdst) = 1 where the
// final v_div_fmas must rescale. "1/S1 is denormal" and "S2/S1 is denormal" are read in the
// instruction's own format (|S1| > 2^126, resp. the rounded quotient is subnormal): the reading
// under which each branch does what its comment in the guide says.
struct ScaleF32 {
  static constexpr int kBig = 96, kTiny = 23, kShift = 64;
};
void v_div_scale_f32(Wave& w, const Inst& I) {
  Lanes ta, tb, tc, r;
  const bool fi = w.flush_in32();
  const u32* s0 = fsrc32(w, I.ops[2], ta, fi);
  const u32* s1 = fsrc32(w, I.ops[3], tb, fi);
  const u32* s2 = fsrc32(w, I.ops[4], tc, fi);
  u64 vcc = 0;
  for (int l = 0; l < kLanes; ++l) {
    const float a = as_float(s0[l]), d = as_float(s1[l]), n = as_float(s2[l]);
    const int ed = static_cast<int>(bexp32(s1[l])), en = static_cast<int>(bexp32(s2[l]));
    const u32 q = fbits(n / d);
    const bool rcp_sub = std::fabs(d) > 0x1p126f && std::isfinite(d);
    int shift = 0;
    bool flag = false;
    u32 out = s0[l];
    if (n == 0.0f || d == 0.0f) {
      out = 0x7fc00000u;
    } else if (en - ed >= ScaleF32::kBig) {
      flag = true;
      if (a == d) shift = ScaleF32::kShift;
    } else if (subnormal32(s1[l])) {
      shift = ScaleF32::kShift;
    } else if (rcp_sub && subnormal32(q)) {
      flag = true;
      if (a == d) shift = -ScaleF32::kShift;
    } else if (rcp_sub) {
      shift = -ScaleF32::kShift;
    } else if (subnormal32(q)) {
      flag = true;
      if (a == n) shift = ScaleF32::kShift;
    } else if (en <= ScaleF32::kTiny) {
      shift = ScaleF32::kShift;
    }
    if (shift) out = f32_from_f64(std::ldexp(static_cast<double>(a), shift), w.round32());
    r.u[l] = out;
    vcc |= u64{flag} << l;
  }
  fix_nans32(r.u, s0, s1, s2);
  fdst32(w, I, r.u, w.flush_out32());
  write_mask(w, I.ops[1], vcc);
}

void v_div_scale_f64(Wave& w, const Inst& I) {
  Lanes64 s0, s1, s2, r;
  const bool fi = w.flush_in16_64();
  fsrc64(w, I.ops[2], s0, fi);
  fsrc64(w, I.ops[3], s1, fi);
  fsrc64(w, I.ops[4], s2, fi);
  u64 vcc = 0;
  for (int l = 0; l < kLanes; ++l) {
    const double a = as_double(s0.u[l]), d = as_double(s1.u[l]), n = as_double(s2.u[l]);
    const int ed = static_cast<int>(bexp64(s1.u[l])), en = static_cast<int>(bexp64(s2.u[l]));
    const u64 q = dbits(n / d);
    const bool rcp_sub = std::fabs(d) > 0x1p1022 && std::isfinite(d);
    int shift = 0;
    bool flag = false;
    u64 out = s0.u[l];
    if (n == 0.0 || d == 0.0) {
      out = 0x7ff8000000000000ull;
    } else if (en - ed >= 768) {
      flag = true;
      if (a == d) shift = 128;
    } else if (subnormal64(s1.u[l])) {
      shift = 128;
    } else if (rcp_sub && subnormal64(q)) {
      flag = true;
      if (a == d) shift = -128;
    } else if (rcp_sub) {
      shift = -128;
    } else if (subnormal64(q)) {
      flag = true;
      if (a == n) shift = 128;
    } else if (en <= 53) {
      shift = 128;
    }
    if (shift) out = dbits(std::ldexp(a, shift));  // exact: no result leaves the normal range
    r.u[l] = out;
    vcc |= u64{flag} << l;
  }
  fix_nans64(r.u, s0.u, s1.u, s2.u);
  fdst64(w, I, r, w.flush_out16_64());
  write_mask(w, I.ops[1], vcc);
}

// ---- v_div_fmas: D = fma(S0, S1, S2), times 2^+-64 (f64: 2^+-128) in lanes where VCC is set:
// up if exponent(S2) >= 128 (f64: 1024), i.e. |S2| >= 2, else down. ISA guide V_DIV_FMAS_F32/F64.
void v_div_fmas_f32(Wave& w, const Inst& I) {
  Lanes ta, tb, tc, r;
  const bool fi = w.flush_in32();
  const u32* a = fsrc32(w, I.ops[1], ta, fi);
  const u32* b = fsrc32(w, I.ops[2], tb, fi);
  const u32* c = fsrc32(w, I.ops[3], tc, fi);
  const u32 mode = w.round32();
  fma32_lanes(a, b, c, r.u, mode);
  const u64 vcc = w.vcc();
  for (int l = 0; l < kLanes; ++l) {
    if (!((vcc >> l) & 1)) continue;
    const int k = bexp32(c[l]) >= 128 ? 64 : -64;
    const double x = static_cast<double>(as_float(a[l])), y = static_cast<double>(as_float(b[l]));
    const double z = static_cast<double>(as_float(c[l]));
    r.u[l] = f32_from_f64(std::ldexp(fma_to_odd(x, y, z, mode), k), mode);
  }
  HostRound host_mode(mode);  // omod
  fix_nans32(r.u, a, b, c);
  fdst32(w, I, r.u, w.flush_out32());
}

void v_div_fmas_f64(Wave& w, const Inst& I) {
  Lanes64 a, b, c, r;
  const bool fi = w.flush_in16_64();
  fsrc64(w, I.ops[1], a, fi);
  fsrc64(w, I.ops[2], b, fi);
  fsrc64(w, I.ops[3], c, fi);
  const u32 mode = w.round16_64();
  const u64 vcc = w.vcc();
  {
    HostRound host_mode(mode);
    for (int l = 0; l < kLanes; ++l)
      r.u[l] = dbits(std::fma(as_double(a.u[l]), as_double(b.u[l]), as_double(c.u[l])));
  }
  for (int l = 0; l < kLanes; ++l) {
    if (!((vcc >> l) & 1) || !std::isfinite(as_double(r.u[l])) || !std::isfinite(as_double(a.u[l])) ||
        !std::isfinite(as_double(b.u[l])) || !std::isfinite(as_double(c.u[l])))
      continue;
    r.u[l] = fma64_scaled(a.u[l], b.u[l], c.u[l], bexp64(c.u[l]) >= 1024 ? 128 : -128, mode);
  }
  HostRound host_mode(mode);  // omod
  fix_nans64(r.u, a.u, b.u, c.u);
  fdst64(w, I, r, w.flush_out16_64());
}

// ---- v_div_fixup: S0 = quotient, S1 = denominator, S2 = numerator. ISA guide V_DIV_FIXUP_*:
// NaN operands (numerator first) give that NaN quieted; 0/0 and inf/inf the negative quiet NaN;
// x/0 and inf/y infinity, x/inf and 0/y zero, of the sign of the quotient; a quotient below half
// the smallest subnormal (exponent difference below -(bias + mantissa bits)) zero; a NaN S0
// with such ordinary operands infinity (OVERFLOW); else |S0| with the quotient's sign.
// The overflow reading is ours: the guide's "exponent(S1) == max -> OVERFLOW" branch cannot be
// reached after the inf/NaN branches, while LLVM's division sequence turns every quotient above
// 2^192 (f64 2^1152) into a NaN S0 (inf - inf in the fma refinement) and needs OVERFLOW there
// to be the IEEE quotient (SimDivision checks it end to end).
template <int ExpBits, int ManBits>
u64 fixup(u64 q, u64 d, u64 n) {
  constexpr int kW = 1 + ExpBits + ManBits;
  constexpr u64 kSign = u64{1} << (kW - 1);
  constexpr u64 kInf = ((u64{1} << ExpBits) - 1) << ManBits;
  constexpr u64 kQuiet = u64{1} << (ManBits - 1);
  constexpr int kUnder = (1 << (ExpBits - 1)) - 1 + ManBits;  // bias + mantissa bits: 150, 1075, 25
  auto is_nan = [](u64 x) { return (x & ~kSign) > kInf; };
  auto is_inf = [](u64 x) { return (x & ~kSign) == kInf; };
  auto is_zero = [](u64 x) { return (x & ~kSign) == 0; };
  const u64 sign = (d ^ n) & kSign;
  if (is_nan(n)) return n | kQuiet;
  if (is_nan(d)) return d | kQuiet;
  if ((is_zero(d) && is_zero(n)) || (is_inf(d) && is_inf(n))) return kSign | kInf | kQuiet;
  if (is_zero(d) || is_inf(n)) return sign | kInf;
  if (is_inf(d) || is_zero(n)) return sign;
  const int ed = static_cast<int>((d & ~kSign) >> ManBits), en = static_cast<int>((n & ~kSign) >> ManBits);
  if (en - ed < -kUnder) return sign;
  if (is_nan(q)) return sign | kInf;
  return sign | (q & ~kSign);
}

void v_div_fixup_f32(Wave& w, const Inst& I) {
  Lanes ta, tb, tc, r;
  const bool fi = w.flush_in32();
  const u32* q = fsrc32(w, I.ops[1], ta, fi);
  const u32* d = fsrc32(w, I.ops[2], tb, fi);
  const u32* n = fsrc32(w, I.ops[3], tc, fi);
  for (int l = 0; l < kLanes; ++l) r.u[l] = static_cast<u32>(fixup<8, 23>(q[l], d[l], n[l]));
  HostRound host_mode(w.round32());  // omod
  fdst32(w, I, r.u, w.flush_out32());
}

void v_div_fixup_f64(Wave& w, const Inst& I) {
  Lanes64 q, d, n, r;
  const bool fi = w.flush_in16_64();
  fsrc64(w, I.ops[1], q, fi);
  fsrc64(w, I.ops[2], d, fi);
  fsrc64(w, I.ops[3], n, fi);
  for (int l = 0; l < kLanes; ++l) r.u[l] = fixup<11, 52>(q.u[l], d.u[l], n.u[l]);
  HostRound host_mode(w.round16_64());  // omod
  fdst64(w, I, r, w.flush_out16_64());
}

// ---- 16-bit sources and results.
// Non-packed 16-bit results occupy bits 15:0 and zero 31:16 (the rule of exec/valu16.cpp; LLVM
// GCNSubtarget::zeroesHigh16BitsOfDest lists the gfx8-encoded v_mad_f16/u16/i16, v_fma_f16 and
// v_div_fixup_f16, spelled *_legacy_* on gfx9). A destination op_sel and omod are refused.
void refuse16(const Inst& I) {
  if (I.omod) sim_fail("omod on a 16-bit instruction is not supported");
  if (I.op_sel & 0x8) sim_fail("destination op_sel (high half) on a 16-bit instruction is not supported");
}

// Lane values of source `i` of a VOP3 16-bit op: the half op_sel bit i selects, f16 abs/neg
// applied and denormals flushed when `fp` (flush per `flush`).
void half_src(Wave& w, const Inst& I, int i, bool fp, bool flush, u32* out) {
  Lanes t;
  const Operand& o = I.ops[1 + i];
  const u32* p = vsrc(w, o, t);
  const unsigned sh = ((I.op_sel >> i) & 1) ? 16u : 0u;
  for (int l = 0; l < kLanes; ++l) {
    u32 h = (p[l] >> sh) & 0xffffu;
    if (fp) {
      h = o.abs ? h & 0x7fffu : h;
      h = o.neg ? h ^ 0x8000u : h;
      h = flush ? ftz16(h) : h;
    }
    out[l] = h;
  }
}

u32 nan_result16(u32 a, u32 b, u32 c) {
  for (u32 x : {a, b, c})
    if (nan16(x)) return x | 0x0200u;
  return 0x7e00u;
}

u32 clamp_h(u32 h, bool dx10) {
  if (nan16(h)) return dx10 ? 0u : h;
  if (h & 0x8000u) return 0u;
  return h > 0x3c00u ? 0x3c00u : h;
}

// f16 a*b+c: Fused rounds once; otherwise (mad/mac, LLVM's FMAD: separately rounded multiply and
// add) the product is rounded to f16 first. Both under MODE's f16 round mode.
template <bool Fused>
u32 madfma16(u32 a, u32 b, u32 c, u32 mode) {
  if (nan16(a) || nan16(b) || nan16(c)) return nan_result16(a, b, c);
  const double x = h2d(a), y = h2d(b), z = h2d(c);
  u32 h;
  if (Fused) {
    h = f16_from_f64(fma_to_odd(x, y, z, mode), mode);
  } else {
    const u32 p = f16_from_f64(x * y, mode);  // exact product (22 bits) rounded once
    if (nan16(p)) return 0x7e00u;
    const double pd = h2d(p);
    h = f16_from_f64(zero_sign(pd + z, std::signbit(pd) || std::signbit(z), mode), mode);  // exact sum
  }
  return nan16(h) ? 0x7e00u : h;
}

template <bool Fused>
void v_madfma_f16(Wave& w, const Inst& I) {
  refuse16(I);
  Lanes a, b, c, r;
  const bool fi = w.flush_in16_64(), fo = w.flush_out16_64();
  half_src(w, I, 0, true, fi, a.u);
  half_src(w, I, 1, true, fi, b.u);
  half_src(w, I, 2, true, fi, c.u);
  const u32 mode = w.round16_64();
  for (int l = 0; l < kLanes; ++l) {
    u32 h = madfma16<Fused>(a.u[l], b.u[l], c.u[l], mode);
    h = fo && !nan16(h) ? ftz16(h) : h;
    r.u[l] = I.clamp ? clamp_h(h, w.dx10_clamp()) : h;
  }
  vwrite(w, I.ops[0], r.u);
}

// v_mac_f16 (VOP2 and e64): D.f16 = S0 * S1 + D.f16, mad rounding; on gfx9 the high half of the
// destination is kept (LLVM zeroesHigh16BitsOfDest: V_MAC_F16 zeroes only on gfx8).
void v_mac_f16(Wave& w, const Inst& I) {
  refuse16(I);
  if (I.ops[0].neg || I.ops[0].abs) sim_fail("modifiers on v_mac_f16's accumulator are not supported");
  Lanes a, b, r;
  const bool fi = w.flush_in16_64(), fo = w.flush_out16_64();
  half_src(w, I, 0, true, fi, a.u);
  half_src(w, I, 1, true, fi, b.u);
  const u32* d = w.row(I.ops[0].reg);
  const u32 mode = w.round16_64();
  for (int l = 0; l < kLanes; ++l) {
    const u32 c = fi ? ftz16(d[l] & 0xffffu) : d[l] & 0xffffu;
    u32 h = madfma16<false>(a.u[l], b.u[l], c, mode);
    h = fo && !nan16(h) ? ftz16(h) : h;
    h = I.clamp ? clamp_h(h, w.dx10_clamp()) : h;
    r.u[l] = (d[l] & 0xffff0000u) | h;
  }
  vwrite(w, I.ops[0], r.u);
}

// v_pk_fmac_f16 (VOP2): each half of D = fma(S0.half, S1.half, D.half).
void v_pk_fmac_f16(Wave& w, const Inst& I) {
  if (I.ops[1].kind == OperandKind::Const)
    sim_fail("a constant as a packed source of v_pk_fmac_f16 is not supported");
  Lanes ta, tb, r;
  const u32* a = vsrc(w, I.ops[1], ta);
  const u32* b = vsrc(w, I.ops[2], tb);
  const u32* d = w.row(I.ops[0].reg);
  const bool fi = w.flush_in16_64(), fo = w.flush_out16_64();
  const u32 mode = w.round16_64();
  for (int l = 0; l < kLanes; ++l) {
    u32 out = 0;
    for (unsigned sh : {0u, 16u}) {
      auto in = [&](u32 x) { const u32 h = (x >> sh) & 0xffffu; return fi ? ftz16(h) : h; };
      u32 h = madfma16<true>(in(a[l]), in(b[l]), in(d[l]), mode);
      out |= (fo && !nan16(h) ? ftz16(h) : h) << sh;
    }
    r.u[l] = out;
  }
  vwrite(w, I.ops[0], r.u);
}

// v_div_fixup_f16 / v_div_fixup_legacy_f16 (no op_sel: the gfx8 encoding).
void v_div_fixup_f16(Wave& w, const Inst& I) {
  refuse16(I);
  Lanes q, d, n, r;
  const bool fi = w.flush_in16_64();
  half_src(w, I, 0, true, fi, q.u);
  half_src(w, I, 1, true, fi, d.u);
  half_src(w, I, 2, true, fi, n.u);
  const bool fo = w.flush_out16_64();
  for (int l = 0; l < kLanes; ++l) {
    u32 h = static_cast<u32>(fixup<5, 10>(q.u[l], d.u[l], n.u[l]));
    h = fo && !nan16(h) ? ftz16(h) : h;
    r.u[l] = I.clamp ? clamp_h(h, w.dx10_clamp()) : h;
  }
  vwrite(w, I.ops[0], r.u);
}

// f16 min3/max3/med3 with the f16 v_min/v_max rules (exec/valu16.cpp: -0 < +0, a quiet NaN loses
// to a number, IEEE mode quiets and returns a signalling NaN); med3 with a NaN source is min3
// (ISA guide V_MED3_F32 rule, applied to f16).
inline int order16(u32 h) { return (h & 0x8000u) ? -static_cast<int>(h & 0x7fffu) - 1 : static_cast<int>(h); }
u32 pick16(u32 a, u32 b, bool max, bool ieee) {
  const bool na = nan16(a), nb = nan16(b);
  if (ieee && na && !(a & 0x0200u)) return a | 0x0200u;
  if (ieee && nb && !(b & 0x0200u)) return b | 0x0200u;
  if (na && nb) return a | 0x0200u;
  if (na || nb) return na ? b : a;
  return (order16(a) >= order16(b)) == max ? a : b;
}
template <int Kind>  // 0 min3, 1 max3, 2 med3
void v_mmm3_f16(Wave& w, const Inst& I) {
  refuse16(I);
  Lanes a, b, c, r;
  const bool fi = w.flush_in16_64(), ieee = w.ieee();
  half_src(w, I, 0, true, fi, a.u);
  half_src(w, I, 1, true, fi, b.u);
  half_src(w, I, 2, true, fi, c.u);
  for (int l = 0; l < kLanes; ++l) {
    const u32 x = a.u[l], y = b.u[l], z = c.u[l];
    u32 h;
    if (Kind == 1) {
      h = pick16(pick16(x, y, true, ieee), z, true, ieee);
    } else if (Kind == 0 || nan16(x) || nan16(y) || nan16(z)) {
      h = pick16(pick16(x, y, false, ieee), z, false, ieee);
    } else {  // the median: max(min(x, y), min(max(x, y), z))
      h = pick16(pick16(x, y, false, ieee), pick16(pick16(x, y, true, ieee), z, false, ieee), true, ieee);
    }
    r.u[l] = I.clamp ? clamp_h(h, w.dx10_clamp()) : h;
  }
  vwrite(w, I.ops[0], r.u);
}

// ---- 16-bit integer three-operand ops (op_sel picks source halves). F returns the exact result
// as i64; with the clamp bit it saturates to the result type (Sat: 1 u16, 2 i16, 3 u32, 4 i32),
// else it wraps.
i64 sx16(u32 h) { return static_cast<std::int16_t>(static_cast<u16>(h)); }
template <int Sat>
u32 saturate(i64 x, bool clamp) {
  if (!clamp) return static_cast<u32>(static_cast<u64>(x));
  const i64 lo = Sat == 2 ? -0x8000 : Sat == 4 ? INT32_MIN : 0;
  const i64 hi = Sat == 1 ? 0xffff : Sat == 2 ? 0x7fff : Sat == 3 ? 0xffffffffll : INT32_MAX;
  return static_cast<u32>(static_cast<u64>(std::clamp(x, lo, hi)));
}
template <auto F, int Sat, bool Wide2 = false>  // Wide2: S2 is a full 32-bit source
void v_int16x3(Wave& w, const Inst& I) {
  refuse16(I);
  if (Wide2 && (I.op_sel & 4)) sim_fail("op_sel on the 32-bit source 2 is not supported");
  Lanes a, b, c, r;
  half_src(w, I, 0, false, false, a.u);
  half_src(w, I, 1, false, false, b.u);
  if (Wide2) {
    Lanes t;
    const u32* p = vsrc(w, I.ops[3], t);
    for (int l = 0; l < kLanes; ++l) c.u[l] = p[l];
  } else {
    half_src(w, I, 2, false, false, c.u);
  }
  const u32 mask = Sat <= 2 ? 0xffffu : 0xffffffffu;
  for (int l = 0; l < kLanes; ++l) r.u[l] = saturate<Sat>(F(a.u[l], b.u[l], c.u[l]), I.clamp) & mask;
  vwrite(w, I.ops[0], r.u);
}

// v_subrev_u16: D.u16 = S1 - S0 (clamp: unsigned saturation), high half zeroed.
void v_subrev_u16(Wave& w, const Inst& I) {
  refuse16(I);
  Lanes a, b, r;
  half_src(w, I, 0, false, false, a.u);
  half_src(w, I, 1, false, false, b.u);
  for (int l = 0; l < kLanes; ++l)
    r.u[l] = saturate<1>(i64{b.u[l]} - i64{a.u[l]}, I.clamp) & 0xffffu;
  vwrite(w, I.ops[0], r.u);
}

// v_pk_mad_i16/u16: each half = S0.h * S1.h + S2.h, halves chosen by op_sel (low result) and
// op_sel_hi (high result, default all high); clamp saturates each half.
template <bool Signed>
void v_pk_mad16(Wave& w, const Inst& I) {
  if (I.neg_lo || I.neg_hi) sim_fail("neg_lo/neg_hi on an integer packed instruction is not supported");
  for (int i = 1; i <= 3; ++i)
    if (I.ops[i].kind == OperandKind::Const)
      sim_fail("packed 16-bit instruction with a constant operand is not supported");
  const u32 hi_sel = I.op_sel_hi_given ? I.op_sel_hi : 0x7u;
  Lanes t[3], r;
  const u32* s[3];
  for (int i = 0; i < 3; ++i) s[i] = vsrc(w, I.ops[1 + i], t[i]);
  for (int l = 0; l < kLanes; ++l) {
    u32 out = 0;
    for (int half = 0; half < 2; ++half) {
      const u32 sel = half ? hi_sel : I.op_sel;
      i64 x[3];
      for (int i = 0; i < 3; ++i) {
        const u32 h = (s[i][l] >> (((sel >> i) & 1) ? 16 : 0)) & 0xffffu;
        x[i] = Signed ? sx16(h) : i64{h};
      }
      out |= (saturate<Signed ? 2 : 1>(x[0] * x[1] + x[2], I.clamp) & 0xffffu) << (16 * half);
    }
    r.u[l] = out;
  }
  vwrite(w, I.ops[0], r.u);
}

// ---- integer dot products: D = sum_i S0.elem[i] * S1.elem[i] + S2 (VOP3P) or + D (the VOP2
// "c" forms). N elements of Bits bits each; clamp saturates to the 32-bit result type.
template <int N, int Bits, bool Signed, bool Acc>
void v_dot_int(Wave& w, const Inst& I) {
  if (I.op_sel || (I.op_sel_hi_given && I.op_sel_hi != 0x7) || I.neg_lo || I.neg_hi)
    sim_fail("op_sel/op_sel_hi/neg on an integer dot product is not supported");
  // A constant as a packed (VOP3P) source: how its halves/bytes are formed is not modelled.
  if (!Acc && (I.ops[1].kind == OperandKind::Const || I.ops[2].kind == OperandKind::Const))
    sim_fail("a constant as a packed source of an integer dot product is not supported");
  Lanes ta, tb, tc, r;
  const u32* a = vsrc(w, I.ops[1], ta);
  const u32* b = vsrc(w, I.ops[2], tb);
  const u32* c = Acc ? w.row(I.ops[0].reg) : vsrc(w, I.ops[3], tc);
  constexpr u32 kMask = (1u << Bits) - 1;
  for (int l = 0; l < kLanes; ++l) {
    i64 sum = Signed ? i64{static_cast<i32>(c[l])} : i64{c[l]};
    for (int e = 0; e < N; ++e) {
      const u32 x = (a[l] >> (e * Bits)) & kMask, y = (b[l] >> (e * Bits)) & kMask;
      constexpr u32 kTop = 1u << (Bits - 1);
      const i64 xs = Signed ? static_cast<i64>(x ^ kTop) - kTop : i64{x};
      const i64 ys = Signed ? static_cast<i64>(y ^ kTop) - kTop : i64{y};
      sum += xs * ys;
    }
    r.u[l] = saturate<Signed ? 4 : 3>(sum, I.clamp);
  }
  vwrite(w, I.ops[0], r.u);
}

// ---- SAD and media. The clamp bit of the SAD ops (saturating accumulate) is not modelled.
void no_clamp(const Inst& I) {
  if (I.clamp) sim_fail("clamp on a SAD instruction is not supported");
}
inline u32 absdiff(u32 a, u32 b) { return a > b ? a - b : b - a; }
// sum over the bytes of |a.byte - b.byte|; Masked skips bytes where b's byte is 0 (v_msad_u8).
template <bool Masked>
u32 sad_bytes(u32 a, u32 b) {
  u32 s = 0;
  for (unsigned sh = 0; sh < 32; sh += 8) {
    const u32 x = (a >> sh) & 0xffu, y = (b >> sh) & 0xffu;
    s += (Masked && y == 0) ? 0u : absdiff(x, y);
  }
  return s;
}
template <auto F>
void v_sad3(Wave& w, const Inst& I) {
  no_clamp(I);
  Lanes ta, tb, tc, r;
  const u32* a = vsrc(w, I.ops[1], ta);
  const u32* b = vsrc(w, I.ops[2], tb);
  const u32* c = vsrc(w, I.ops[3], tc);
  for (int l = 0; l < kLanes; ++l) r.u[l] = F(a[l], b[l], c[l]);
  vwrite(w, I.ops[0], r.u);
}

// v_qsad_pk_u16_u8 / v_mqsad_pk_u16_u8: S0 64-bit, S1 32-bit reference, S2 64-bit accumulators;
// result half j (16 bits, truncated) = S2.half[j] + SAD(S0 bytes j..j+3, S1).
// v_mqsad_u32_u8: the same with 32-bit accumulators in S2[127:0] and D[127:0] (masked SAD).
template <bool Masked, bool Wide>
void v_qsad(Wave& w, const Inst& I) {
  no_clamp(I);
  constexpr int kOut = Wide ? 4 : 2;
  Lanes64 s0;
  vsrc64(w, I.ops[1], s0);
  Lanes tb, tc[4], out[4];
  const u32* b = vsrc(w, I.ops[2], tb);
  const u32* c[4];
  for (unsigned p = 0; p < kOut; ++p) c[p] = vsrc(w, I.ops[3], tc[p], p, !Wide && I.ops[3].kind != OperandKind::Vreg);
  for (int l = 0; l < kLanes; ++l) {
    for (unsigned j = 0; j < 4; ++j) {
      const u32 window = static_cast<u32>(s0.u[l] >> (8 * j));
      if (Wide) {
        out[j].u[l] = c[j][l] + sad_bytes<Masked>(window, b[l]);
      } else {
        const u32 acc = (c[j / 2][l] >> (16 * (j % 2))) & 0xffffu;
        const u32 v = (acc + sad_bytes<Masked>(window, b[l])) & 0xffffu;
        out[j / 2].u[l] = (j % 2) ? out[j / 2].u[l] | (v << 16) : v;
      }
    }
  }
  for (unsigned p = 0; p < kOut; ++p) vwrite(w, I.ops[0], out[p].u, p);
}

// v_cvt_pk_u8_f32: D = S2 with byte S1[1:0] replaced by S0 converted to u8. The guide names the
// conversion (flt32_to_uint8) but not its rounding: modelled as round to nearest even, then
// saturated to [0, 255], NaN -> 0 (a modelling choice, README).
void v_cvt_pk_u8_f32(Wave& w, const Inst& I) {
  if (I.clamp || I.omod) sim_fail("clamp/omod on v_cvt_pk_u8_f32 is not supported");
  Lanes ta, tb, tc, r;
  const u32* a = fsrc32(w, I.ops[1], ta, w.flush_in32());
  const u32* b = vsrc(w, I.ops[2], tb);
  const u32* c = vsrc(w, I.ops[3], tc);
  for (int l = 0; l < kLanes; ++l) {
    const float x = as_float(a[l]);
    const u32 v = std::isnan(x) ? 0u : static_cast<u32>(std::nearbyint(std::clamp(x, 0.0f, 255.0f)));
    const u32 sh = 8 * (b[l] & 3);
    r.u[l] = (c[l] & ~(0xffu << sh)) | (v << sh);
  }
  vwrite(w, I.ops[0], r.u);
}

// v_cvt_norm_i16_f16 / v_cvt_norm_u16_f16: f16 -> snorm16 / unorm16: clamp to [-1, 1] / [0, 1],
// scale by 32767 / 65535, round to nearest even (the rounding is our choice, README), NaN -> 0.
template <bool Signed>
void v_cvt_norm16(Wave& w, const Inst& I) {
  refuse16(I);
  if (I.clamp) sim_fail("clamp on v_cvt_norm_*16_f16 is not supported");
  Lanes a, r;
  half_src(w, I, 0, true, w.flush_in16_64(), a.u);
  for (int l = 0; l < kLanes; ++l) {
    const double x = h2d(a.u[l]);
    const double c = std::isnan(x) ? 0.0 : std::clamp(x, Signed ? -1.0 : 0.0, 1.0);
    const double v = std::nearbyint(c * (Signed ? 32767.0 : 65535.0));
    r.u[l] = static_cast<u32>(static_cast<i32>(v)) & 0xffffu;
  }
  vwrite(w, I.ops[0], r.u);
}

// v_cvt_off_f32_i4: D.f32 = S0[3:0] as a signed 4-bit integer, divided by 16 (exact).
void v_cvt_off_f32_i4(Wave& w, const Inst& I) {
  if (I.clamp || I.omod) sim_fail("clamp/omod on v_cvt_off_f32_i4 is not supported");
  Lanes ta, r;
  const u32* a = vsrc(w, I.ops[1], ta);
  for (int l = 0; l < kLanes; ++l) {
    const int v = static_cast<int>(a[l] & 7u) - static_cast<int>(a[l] & 8u);
    r.u[l] = fbits(static_cast<float>(v) / 16.0f);
  }
  vwrite(w, I.ops[0], r.u);
}

// v_sat_pk_u8_i16: D[15:0] = {sat_u8(S0.i16[1]), sat_u8(S0.i16[0])}; bits 31:16 zero.
void v_sat_pk_u8_i16(Wave& w, const Inst& I) {
  refuse16(I);
  Lanes ta, r;
  const u32* a = vsrc(w, I.ops[1], ta);
  auto sat = [](u32 h) { return static_cast<u32>(std::clamp<i64>(sx16(h), 0, 255)); };
  for (int l = 0; l < kLanes; ++l) r.u[l] = sat(a[l] & 0xffffu) | (sat(a[l] >> 16) << 8);
  vwrite(w, I.ops[0], r.u);
}

// ---- v_fma_mix_f32 / v_fma_mixlo_f16 / v_fma_mixhi_f16: source i is an f32 register when
// op_sel_hi bit i is 0, else the f16 half that op_sel bit i selects (converted exactly). One
// fused multiply-add, rounded once: to f32 (mix_f32, f32 round/denormal mode) or to f16
// (mixlo/mixhi, f16/f64 mode; mixlo writes bits 15:0 and mixhi bits 31:16, the other half is kept
// (LLVM zeroesHigh16BitsOfDest: V_MAD_MIXLO/HI_F16 preserve)). neg/abs act on the selected value.
// f16 sources follow the f16 denormal mode, f32 ones the f32 mode.
template <int Out>  // 0 f32, 1 lo f16, 2 hi f16
void v_fma_mix(Wave& w, const Inst& I) {
  if (I.omod) sim_fail("omod on v_fma_mix* is not supported");
  if (I.neg_lo || I.neg_hi) sim_fail("neg_lo/neg_hi on v_fma_mix* are not supported (use -x and |x|)");
  const u32 hi_sel = I.op_sel_hi_given ? I.op_sel_hi : 0u;
  double x[3][kLanes];
  for (int i = 0; i < 3; ++i) {
    const Operand& o = I.ops[1 + i];
    const bool f16 = (hi_sel >> i) & 1;
    if (f16 && o.kind == OperandKind::Const)
      sim_fail("a constant as an f16 source of v_fma_mix* is not supported");
    Lanes t;
    const u32* p = vsrc(w, o, t);
    for (int l = 0; l < kLanes; ++l) {
      u32 v = p[l];
      double d;
      if (f16) {
        u32 h = ((I.op_sel >> i) & 1) ? v >> 16 : v & 0xffffu;
        h = o.abs ? h & 0x7fffu : h;
        h = o.neg ? h ^ 0x8000u : h;
        d = h2d(w.flush_in16_64() ? ftz16(h) : h);
      } else {
        v = o.abs ? v & 0x7fffffffu : v;
        v = o.neg ? v ^ 0x80000000u : v;
        d = static_cast<double>(as_float(w.flush_in32() ? ftz32(v) : v));
      }
      x[i][l] = d;
    }
  }
  Lanes r;
  const u32* old = w.row(I.ops[0].reg);
  const u32 mode = Out == 0 ? w.round32() : w.round16_64();
  for (int l = 0; l < kLanes; ++l) {
    const double a = x[0][l], b = x[1][l], c = x[2][l];
    const double s = fma_to_odd(a, b, c, mode);
    if (Out == 0) {
      u32 f = f32_from_f64(s, mode);
      if (is_nan32(f)) {  // first NaN source quieted, else the default NaN
        f = 0x7fc00000u;
        for (double v : {c, b, a})
          if (std::isnan(v)) f = fbits(static_cast<float>(v)) | 0x00400000u;
      }
      r.u[l] = f;
    } else {
      u32 h = f16_from_f64(s, mode);
      if (nan16(h)) {
        h = 0x7e00u;
        for (double v : {c, b, a})
          if (std::isnan(v)) h = f16_from_f64(v, kRoundNearest) | 0x0200u;
      }
      h = w.flush_out16_64() && !nan16(h) ? ftz16(h) : h;
      h = I.clamp ? clamp_h(h, w.dx10_clamp()) : h;
      r.u[l] = Out == 1 ? (old[l] & 0xffff0000u) | h : (old[l] & 0xffffu) | (h << 16);
    }
  }
  if (Out == 0) {
    fdst32(w, I, r.u, w.flush_out32());
  } else {
    vwrite(w, I.ops[0], r.u);
  }
}

// ---- v_cube*: cube-map face selection for a direction (x, y, z) = (S0, S1, S2). ISA guide
// V_CUBEID_F32 (face 0..5), V_CUBESC_F32 / V_CUBETC_F32 (face coordinates), V_CUBEMA_F32
// (2 * major axis). The major axis is z if |z| >= |x| and |z| >= |y|, else y if |y| >= |x|, else x.
template <int Kind>  // 0 id, 1 sc, 2 tc, 3 ma
void v_cube(Wave& w, const Inst& I) {
  Lanes ta, tb, tc, r;
  const bool fi = w.flush_in32();
  const u32* a = fsrc32(w, I.ops[1], ta, fi);
  const u32* b = fsrc32(w, I.ops[2], tb, fi);
  const u32* c = fsrc32(w, I.ops[3], tc, fi);
  HostRound host_mode(w.round32());
  for (int l = 0; l < kLanes; ++l) {
    const float x = as_float(a[l]), y = as_float(b[l]), z = as_float(c[l]);
    const int axis = (std::fabs(z) >= std::fabs(x) && std::fabs(z) >= std::fabs(y)) ? 2
                     : std::fabs(y) >= std::fabs(x)                                ? 1
                                                                                    : 0;
    float v;
    if (Kind == 0) {
      const float neg = (axis == 2 ? z : axis == 1 ? y : x) < 0.0f ? 1.0f : 0.0f;
      v = 2.0f * static_cast<float>(axis) + neg;
    } else if (Kind == 1) {
      v = axis == 2 ? (z < 0.0f ? -x : x) : axis == 1 ? x : (x < 0.0f ? z : -z);
    } else if (Kind == 2) {
      v = axis == 1 ? (y < 0.0f ? -z : z) : -y;
    } else {
      v = 2.0f * (axis == 2 ? z : axis == 1 ? y : x);
    }
    r.u[l] = fbits(v);
  }
  fix_nans32(r.u, a, b, c);
  fdst32(w, I, r.u, w.flush_out32());
}

}  // namespace

void register_valu_three(HandlerTable& t) {
  auto set = [&](Opcode op, Handler h) { t[static_cast<std::size_t>(op)] = h; };
  using O = Opcode;
  set(O::v_div_scale_f32, v_div_scale_f32);
  set(O::v_div_scale_f64, v_div_scale_f64);
  set(O::v_div_fmas_f32, v_div_fmas_f32);
  set(O::v_div_fmas_f64, v_div_fmas_f64);
  set(O::v_div_fixup_f32, v_div_fixup_f32);
  set(O::v_div_fixup_f64, v_div_fixup_f64);
  set(O::v_div_fixup_f16, v_div_fixup_f16);
  set(O::v_div_fixup_legacy_f16, v_div_fixup_f16);

  set(O::v_mad_f16, v_madfma_f16<false>);
  set(O::v_mad_legacy_f16, v_madfma_f16<false>);
  // VOP2 with a 16-bit literal K: v_madak_f16 D = S0·S1 + K, v_madmk_f16 D = S0·K + S1; the
  // decoder keeps the assembly order (vdst, src0, K or src1, src1 or K), which is the mad's.
  set(O::v_madak_f16, v_madfma_f16<false>);
  set(O::v_madmk_f16, v_madfma_f16<false>);
  set(O::v_fma_legacy_f16, v_madfma_f16<true>);
  set(O::v_mac_f16, v_mac_f16);
  set(O::v_pk_fmac_f16, v_pk_fmac_f16);
  set(O::v_min3_f16, v_mmm3_f16<0>);
  set(O::v_max3_f16, v_mmm3_f16<1>);
  set(O::v_med3_f16, v_mmm3_f16<2>);

  constexpr auto mad_u = [](u32 a, u32 b, u32 c) -> i64 { return i64{a} * i64{b} + i64{c}; };
  constexpr auto mad_i = [](u32 a, u32 b, u32 c) -> i64 { return sx16(a) * sx16(b) + sx16(c); };
  set(O::v_mad_u16, v_int16x3<mad_u, 1>);
  set(O::v_mad_legacy_u16, v_int16x3<mad_u, 1>);
  set(O::v_mad_i16, v_int16x3<mad_i, 2>);
  set(O::v_mad_legacy_i16, v_int16x3<mad_i, 2>);
  set(O::v_mad_u32_u16, v_int16x3<mad_u, 3, true>);
  set(O::v_mad_i32_i16, v_int16x3<([](u32 a, u32 b, u32 c) -> i64 {
        return sx16(a) * sx16(b) + i64{static_cast<i32>(c)}; }), 4, true>);
  set(O::v_min3_u16, v_int16x3<([](u32 a, u32 b, u32 c) -> i64 { return std::min({a, b, c}); }), 1>);
  set(O::v_max3_u16, v_int16x3<([](u32 a, u32 b, u32 c) -> i64 { return std::max({a, b, c}); }), 1>);
  set(O::v_med3_u16, v_int16x3<([](u32 a, u32 b, u32 c) -> i64 {
        return std::max(std::min(a, b), std::min(std::max(a, b), c)); }), 1>);
  set(O::v_min3_i16, v_int16x3<([](u32 a, u32 b, u32 c) -> i64 { return std::min({sx16(a), sx16(b), sx16(c)}); }), 2>);
  set(O::v_max3_i16, v_int16x3<([](u32 a, u32 b, u32 c) -> i64 { return std::max({sx16(a), sx16(b), sx16(c)}); }), 2>);
  set(O::v_med3_i16, v_int16x3<([](u32 a, u32 b, u32 c) -> i64 {
        return std::max(std::min(sx16(a), sx16(b)), std::min(std::max(sx16(a), sx16(b)), sx16(c))); }), 2>);
  set(O::v_subrev_u16, v_subrev_u16);
  set(O::v_pk_mad_u16, v_pk_mad16<false>);
  set(O::v_pk_mad_i16, v_pk_mad16<true>);

  set(O::v_dot2_i32_i16, v_dot_int<2, 16, true, false>);
  set(O::v_dot2_u32_u16, v_dot_int<2, 16, false, false>);
  set(O::v_dot4_i32_i8, v_dot_int<4, 8, true, false>);
  set(O::v_dot4_u32_u8, v_dot_int<4, 8, false, false>);
  set(O::v_dot8_i32_i4, v_dot_int<8, 4, true, false>);
  set(O::v_dot8_u32_u4, v_dot_int<8, 4, false, false>);
  set(O::v_dot2c_i32_i16, v_dot_int<2, 16, true, true>);
  set(O::v_dot4c_i32_i8, v_dot_int<4, 8, true, true>);
  set(O::v_dot8c_i32_i4, v_dot_int<8, 4, true, true>);

  set(O::v_sad_u8, v_sad3<([](u32 a, u32 b, u32 c) { return sad_bytes<false>(a, b) + c; })>);
  set(O::v_sad_hi_u8, v_sad3<([](u32 a, u32 b, u32 c) { return (sad_bytes<false>(a, b) << 16) + c; })>);
  set(O::v_msad_u8, v_sad3<([](u32 a, u32 b, u32 c) { return sad_bytes<true>(a, b) + c; })>);
  set(O::v_sad_u16, v_sad3<([](u32 a, u32 b, u32 c) {
        return absdiff(a & 0xffffu, b & 0xffffu) + absdiff(a >> 16, b >> 16) + c; })>);
  set(O::v_lerp_u8, v_sad3<([](u32 a, u32 b, u32 c) {
        u32 d = 0;
        for (unsigned sh = 0; sh < 32; sh += 8)
          d |= ((((a >> sh) & 0xffu) + ((b >> sh) & 0xffu) + ((c >> sh) & 1u)) >> 1) << sh;
        return d; })>);
  set(O::v_qsad_pk_u16_u8, v_qsad<false, false>);
  set(O::v_mqsad_pk_u16_u8, v_qsad<true, false>);
  set(O::v_mqsad_u32_u8, v_qsad<true, true>);
  set(O::v_cvt_pk_u8_f32, v_cvt_pk_u8_f32);
  set(O::v_cvt_norm_i16_f16, v_cvt_norm16<true>);
  set(O::v_cvt_norm_u16_f16, v_cvt_norm16<false>);
  set(O::v_cvt_off_f32_i4, v_cvt_off_f32_i4);
  set(O::v_sat_pk_u8_i16, v_sat_pk_u8_i16);

  set(O::v_fma_mix_f32, v_fma_mix<0>);
  set(O::v_fma_mixlo_f16, v_fma_mix<1>);
  set(O::v_fma_mixhi_f16, v_fma_mix<2>);

  set(O::v_cubeid_f32, v_cube<0>);
  set(O::v_cubesc_f32, v_cube<1>);
  set(O::v_cubetc_f32, v_cube<2>);
  set(O::v_cubema_f32, v_cube<3>);
}

}  // namespace cdna::simulator
