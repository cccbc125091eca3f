// Directed cases: VOP3 saturating integer add/sub (v_add/sub_i32, v_add/sub_i16), integer
// packing conversions (v_cvt_pk_i16_i32, v_cvt_pk_u16_u32, v_cvt_pknorm_*, v_cvt_pkaccum_u8_f32),
// v_madak_f16/v_madmk_f16 and v_trig_preop_f64. Models from the
// CDNA3 ISA guide's opcode descriptions; v_trig_preop_f64 as LLVM constant-folds it
// (AMDGPUInstCombineIntrinsic.cpp), formulated here as the fraction of 2^shift·2/π (MPFR), not
// as bit extraction from a table.
#include <gmp.h>
#include <stdint.h>
#include <mpfr.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>

#include "simulator/directed/cases.hpp"

namespace cdna::simulator::directed {
namespace {

u32& out(State& s, int k, int l) { return s.vout[static_cast<std::size_t>(k)][static_cast<std::size_t>(l)]; }
u32 in(const State& s, int k, int l) { return s.vin[static_cast<std::size_t>(k)][static_cast<std::size_t>(l)]; }
u64 partial_exec(const State& s) { return u64{s.sin[2]} | u64{s.sin[3]} << 32; }  // s[18:19]

// Four lines: plain, clamp, SGPR + clamp (s16), and plain under the partial EXEC s[18:19].
// `f(a, b, clamp)` is the per-lane result.
Case int2(const std::string& m, std::function<u32(u32, u32, bool)> f, const std::string& opsel = "") {
  Case c;
  c.mnemonic = m;
  c.values = Values::Int;
  c.body = m + " v32, v10, v11" + opsel + "\n" + m + " v33, v10, v11" + opsel + " clamp\n" + m +
           " v34, s16, v12" + opsel + " clamp\n" + "s_mov_b64 exec, s[18:19]\n" + m + " v35, v12, v13" +
           opsel + "\n" + "s_mov_b64 exec, -1";
  c.init = [](State& s) {  // lanes 0..7: operands at the signed/unsigned 16- and 32-bit edges
    const u32 edge[8] = {0x7fffffffu, 0x80000000u, 0x7fffu, 0xffff8000u, 0xffffu, 0x8000u, 1u, 0xffffffffu};
    for (int l = 0; l < 8; ++l) {
      s.vin[0][static_cast<std::size_t>(l)] = edge[l];
      s.vin[1][static_cast<std::size_t>(l)] = edge[(l + 3) % 8];
    }
  };
  c.model = [f](State& s) {
    const u64 pe = partial_exec(s);
    for (int l = 0; l < kLanes; ++l) {
      out(s, 0, l) = f(in(s, 0, l), in(s, 1, l), false);
      out(s, 1, l) = f(in(s, 0, l), in(s, 1, l), true);
      out(s, 2, l) = f(s.sin[0], in(s, 2, l), true);
      if ((pe >> l) & 1) out(s, 3, l) = f(in(s, 2, l), in(s, 3, l), false);
    }
  };
  return c;
}

i64 sx32(u32 x) { return static_cast<std::int32_t>(x); }
i64 sx16(u32 x) { return static_cast<std::int16_t>(x & 0xffffu); }
u32 sat_or_wrap32(i64 x, bool clamp) {
  return static_cast<u32>(clamp ? std::min<i64>(std::max<i64>(x, -2147483648ll), 2147483647ll) : x);
}
u32 sat_or_wrap16(i64 x, bool clamp) {
  return static_cast<u32>(clamp ? std::min<i64>(std::max<i64>(x, -32768), 32767) : x) & 0xffffu;
}

// ---- f16 helpers for the norm/mad models.
bool nan16(u32 h) { return (h & 0x7fffu) > 0x7c00u; }
double h2d(u32 h) {
  const int e = static_cast<int>((h >> 10) & 0x1f), m = static_cast<int>(h & 0x3ff);
  const double mag = e == 31 ? (m ? NAN : INFINITY) : e ? std::ldexp(1024.0 + m, e - 25) : std::ldexp(m, -24);
  return (h & 0x8000u) ? -mag : mag;
}
// An exact value rounded to f16, nearest even, subnormals kept, overflow to infinity (MPFR).
u32 round16(double x) {
  if (x == 0.0) return std::signbit(x) ? 0x8000u : 0u;
  const mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
  mpfr_set_emin(-23);  // MPFR exponents: f16's smallest subnormal 2^-24 = 0.5·2^-23
  mpfr_set_emax(16);
  mpfr_t r;
  mpfr_init2(r, 11);
  int t = mpfr_set_d(r, x, MPFR_RNDN);
  t = mpfr_check_range(r, t, MPFR_RNDN);
  mpfr_subnormalize(r, t, MPFR_RNDN);
  const double y = mpfr_get_d(r, MPFR_RNDN);
  mpfr_clear(r);
  mpfr_set_emin(emin);
  mpfr_set_emax(emax);
  const u32 sign = std::signbit(y) ? 0x8000u : 0u;
  const double a = std::fabs(y);
  if (std::isinf(a)) return sign | 0x7c00u;
  if (a == 0.0) return sign;
  int e;
  const double f = std::frexp(a, &e);  // a = f·2^e, f in [0.5, 1)
  if (e <= -14) return sign | static_cast<u32>(std::ldexp(a, 24));  // subnormal: a / 2^-24
  return sign | static_cast<u32>(e + 14) << 10 | (static_cast<u32>(std::ldexp(f, 11)) & 0x3ffu);
}
// f16 a·b + c with the product rounded to f16 first (mad, not fma); NaN: first NaN source quieted,
// invalid (inf·0, inf − inf) the default NaN 0x7e00.
u32 mad16(u32 a, u32 b, u32 c) {
  for (u32 x : {a, b, c})
    if (nan16(x)) return x | 0x0200u;
  const double p = h2d(a) * h2d(b);  // exact in double
  if (std::isnan(p)) return 0x7e00u;
  const u32 pr = round16(p);
  const double s = h2d(pr) + h2d(c);  // exact in double
  return std::isnan(s) ? 0x7e00u : round16(s);
}
// Normalised 16-bit integer of x: NaN -> 0, clamp to [-1, 1] (signed) or [0, 1], scale by 32767
// or 65535, round to nearest even.
u32 norm16(double x, bool sign) {
  if (std::isnan(x)) return 0;
  const double c = std::min(std::max(x, sign ? -1.0 : 0.0), 1.0) * (sign ? 32767.0 : 65535.0);
  double r = std::floor(c);
  const double d = c - r;
  if (d > 0.5 || (d == 0.5 && std::fmod(r, 2.0) != 0.0)) r += 1.0;
  return static_cast<u32>(static_cast<i64>(r)) & 0xffffu;
}

// The exact trig_preop value: frac(2^shift · 2/π) truncated to 53 bits, times 2^-53 (and 2^128
// when the exponent is >= 1968); 0 past the hardware's 1184-bit table.
u64 trig_preop_model(u64 x, u32 seg) {
  if ((x & 0x7fffffffffffffffull) > 0x7ff0000000000000ull) return x | 0x0008000000000000ull;
  const int e = static_cast<int>((x >> 52) & 0x7ff);
  const int shift = 53 * static_cast<int>(seg & 31u) + std::max(e - 1077, 0);
  if (shift / 32 + 2 >= 37) return 0;
  mpfr_t t;
  mpfr_init2(t, 1400);
  mpfr_const_pi(t, MPFR_RNDN);
  mpfr_ui_div(t, 2, t, MPFR_RNDN);
  mpfr_mul_2si(t, t, shift, MPFR_RNDN);
  mpfr_frac(t, t, MPFR_RNDN);
  mpfr_mul_2si(t, t, 53, MPFR_RNDN);
  mpfr_floor(t, t);  // the 53 bits as an integer
  const u64 m = mpfr_get_uj(t, MPFR_RNDN);
  mpfr_clear(t);
  // ldexp rounds to nearest even when the result is subnormal (C 7.12.6.6, IEEE scaleB).
  const double r = std::ldexp(static_cast<double>(m), -53 - shift + (e >= 1968 ? 128 : 0));
  return std::bit_cast<u64>(r);
}

Case trig_preop() {
  Case c;
  c.mnemonic = "v_trig_preop_f64";
  c.values = Values::F64;
  // v[10:11] = x, v12 = segment; a second line with |x| and an inline-constant segment, a third
  // under the partial EXEC.
  c.body =
      "v_trig_preop_f64 v[32:33], v[10:11], v12\n"
      "v_trig_preop_f64 v[34:35], -v[10:11], 7\n"
      "s_mov_b64 exec, s[18:19]\n"
      "v_trig_preop_f64 v[36:37], v[14:15], v12\n"
      "s_mov_b64 exec, -1";
  c.init = [](State& s) {
    // Exponents around 1077 and 1968, the largest finite, inf, NaN, zero, denormal, 1.0.
    const u64 special[] = {0x4350000000000000ull, 0x4360000000000000ull, 0x7af0000000000000ull,
                           0x7b00000000000000ull, 0x7fefffffffffffffull, 0x7ff0000000000000ull,
                           0x7ff4000000000000ull, 0x0000000000000000ull, 0x0000000000000001ull,
                           0x3ff0000000000000ull, 0xc3d0000000000000ull, 0x7c50000000000000ull};
    for (int l = 0; l < kLanes; ++l) {
      const std::size_t L = static_cast<std::size_t>(l);
      if (l < 12) {
        s.vin[0][L] = static_cast<u32>(special[l]);
        s.vin[1][L] = static_cast<u32>(special[l] >> 32);
      }
      s.vin[2][L] = static_cast<u32>(l % 32) | (l >= 32 ? 0xffffffe0u : 0u);  // only bits 4:0 count
    }
  };
  c.model = [](State& s) {
    const u64 pe = partial_exec(s);
    auto f64in = [&](int k, int l) { return u64{in(s, k, l)} | u64{in(s, k + 1, l)} << 32; };
    auto put = [&](int k, int l, u64 v) {
      out(s, k, l) = static_cast<u32>(v);
      out(s, k + 1, l) = static_cast<u32>(v >> 32);
    };
    for (int l = 0; l < kLanes; ++l) {
      put(0, l, trig_preop_model(f64in(0, l), in(s, 2, l)));
      put(2, l, trig_preop_model(f64in(0, l) ^ 0x8000000000000000ull, 7));
      if ((pe >> l) & 1) put(4, l, trig_preop_model(f64in(4, l), in(s, 2, l)));
    }
  };
  return c;
}

// v_cvt_pknorm_{i16,u16}_{f32,f16}: D = {norm(S1), norm(S0)} (CDNA3 ISA guide; the rounding to
// nearest even is the simulator's documented choice, as for v_cvt_norm_*_f16).
Case pknorm(const std::string& m, bool sign, bool f16) {
  Case c;
  c.mnemonic = m;
  c.values = f16 ? Values::F16 : Values::F32;
  c.body = m + " v32, v10, v11\n" + m + " v33, -v12, v13" + (f16 ? " op_sel:[1,1,0]" : "") +
           "\ns_mov_b64 exec, s[18:19]\n" + m + " v34, v14, v15\ns_mov_b64 exec, -1";
  c.model = [sign, f16](State& s) {
    const u64 pe = partial_exec(s);
    auto val = [&](u32 x, bool hi, bool neg) {
      if (f16) {
        u32 h = (hi ? x >> 16 : x) & 0xffffu;
        if (neg) h ^= 0x8000u;
        return h2d(h);
      }
      return static_cast<double>(std::bit_cast<float>(neg ? x ^ 0x80000000u : x));
    };
    for (int l = 0; l < kLanes; ++l) {
      out(s, 0, l) = norm16(val(in(s, 0, l), false, false), sign) | norm16(val(in(s, 1, l), false, false), sign) << 16;
      out(s, 1, l) = norm16(val(in(s, 2, l), f16, true), sign) | norm16(val(in(s, 3, l), f16, false), sign) << 16;
      if ((pe >> l) & 1)
        out(s, 2, l) = norm16(val(in(s, 4, l), false, false), sign) | norm16(val(in(s, 5, l), false, false), sign) << 16;
    }
  };
  return c;
}

// v_cvt_pkaccum_u8_f32 D, S0, S1: byte S1[1:0] of D becomes u8(S0), the other bytes of D stay
// (ISA guide: "SQ translates to V_CVT_PK_U8_F32" with D as its third source). u8: round to nearest
// even, saturate to [0, 255], NaN -> 0 (the simulator's documented choice for v_cvt_pk_u8_f32).
Case pkaccum() {
  Case c;
  c.mnemonic = "v_cvt_pkaccum_u8_f32";
  c.values = Values::F32;
  c.body = "v_cvt_pkaccum_u8_f32 v32, v10, v11\nv_cvt_pkaccum_u8_f32 v32, v12, 1\n"
           "s_mov_b64 exec, s[18:19]\nv_cvt_pkaccum_u8_f32 v33, v13, v14\ns_mov_b64 exec, -1";
  c.init = [](State& s) {
    for (int l = 0; l < kLanes; ++l) {
      const std::size_t L = static_cast<std::size_t>(l);
      s.vin[0][L] = std::bit_cast<u32>(static_cast<float>(l) * 4.5f - 20.25f);  // -20.25 .. 263.25, ties
      s.vin[1][L] = static_cast<u32>(l) * 0x9e3779b9u;
    }
  };
  c.model = [](State& s) {
    const u64 pe = partial_exec(s);
    auto u8 = [](u32 bits) -> u32 {
      const double x = std::bit_cast<float>(bits);
      if (std::isnan(x)) return 0;
      const double y = std::min(std::max(x, 0.0), 255.0);
      double r = std::floor(y);
      if (y - r > 0.5 || (y - r == 0.5 && std::fmod(r, 2.0) != 0.0)) r += 1.0;
      return static_cast<u32>(r);
    };
    auto put = [&](u32 d, u32 x, u32 sel) {
      const u32 sh = 8 * (sel & 3u);
      return (d & ~(0xffu << sh)) | (u8(x) << sh);
    };
    for (int l = 0; l < kLanes; ++l) {
      out(s, 0, l) = put(put(out(s, 0, l), in(s, 0, l), in(s, 1, l)), in(s, 2, l), 1);
      if ((pe >> l) & 1) out(s, 1, l) = put(out(s, 1, l), in(s, 3, l), in(s, 4, l));
    }
  };
  return c;
}

// v_madak_f16 D = S0·S1 + K, v_madmk_f16 D = S0·K + S1 (VOP2, 16-bit literal K): the f16 mad
// (product rounded to f16, then the sum), result in bits 15:0, bits 31:16 zero.
Case madk(bool ak) {
  Case c;
  c.mnemonic = ak ? "v_madak_f16" : "v_madmk_f16";
  c.values = Values::F16;
  const std::string k = "0x3e00";  // 1.5
  c.body = ak ? "v_madak_f16 v32, v10, v11, " + k + "\nv_madak_f16 v33, v15, v12, " + k +
                    "\ns_mov_b64 exec, s[18:19]\nv_madak_f16 v34, v13, v14, " + k + "\ns_mov_b64 exec, -1"
              : "v_madmk_f16 v32, v10, " + k + ", v11\nv_madmk_f16 v33, v15, " + k +
                    ", v12\ns_mov_b64 exec, s[18:19]\nv_madmk_f16 v34, v13, " + k + ", v14\ns_mov_b64 exec, -1";
  c.model = [ak](State& s) {
    const u64 pe = partial_exec(s);
    const u32 K = 0x3e00u;
    auto f = [&](u32 a, u32 b) { return ak ? mad16(a & 0xffffu, b & 0xffffu, K) : mad16(a & 0xffffu, K, b & 0xffffu); };
    for (int l = 0; l < kLanes; ++l) {
      out(s, 0, l) = f(in(s, 0, l), in(s, 1, l));
      out(s, 1, l) = f(in(s, 5, l), in(s, 2, l));
      if ((pe >> l) & 1) out(s, 2, l) = f(in(s, 3, l), in(s, 4, l));
    }
  };
  return c;
}

}  // namespace

void add_valu_sat_cases(std::vector<Case>& cases) {
  cases.push_back(int2("v_add_i32", [](u32 a, u32 b, bool c) { return sat_or_wrap32(sx32(a) + sx32(b), c); }));
  cases.push_back(int2("v_sub_i32", [](u32 a, u32 b, bool c) { return sat_or_wrap32(sx32(a) - sx32(b), c); }));
  cases.push_back(int2("v_add_i16", [](u32 a, u32 b, bool c) { return sat_or_wrap16(sx16(a) + sx16(b), c); }));
  cases.push_back(int2("v_sub_i16", [](u32 a, u32 b, bool c) { return sat_or_wrap16(sx16(a) - sx16(b), c); }));
  // op_sel:[1,0,0]: the high half of src0.
  cases.push_back(int2(
      "v_add_i16", [](u32 a, u32 b, bool c) { return sat_or_wrap16(sx16(a >> 16) + sx16(b), c); }, " op_sel:[1,0,0]"));
  // Clamp is not defined for the packing conversions: two plain lines and the partial-EXEC one.
  auto pk = [](const std::string& m, std::function<u32(u32)> sat) {
    Case c;
    c.mnemonic = m;
    c.values = Values::Int;
    c.body = m + " v32, v10, v11\n" + m + " v33, s16, v11\n" + "s_mov_b64 exec, s[18:19]\n" + m +
             " v34, v12, v13\n" + "s_mov_b64 exec, -1";
    c.model = [sat](State& s) {
      const u64 pe = partial_exec(s);
      for (int l = 0; l < kLanes; ++l) {
        out(s, 0, l) = sat(in(s, 0, l)) | sat(in(s, 1, l)) << 16;
        out(s, 1, l) = sat(s.sin[0]) | sat(in(s, 1, l)) << 16;
        if ((pe >> l) & 1) out(s, 2, l) = sat(in(s, 2, l)) | sat(in(s, 3, l)) << 16;
      }
    };
    return c;
  };
  cases.push_back(pk("v_cvt_pk_i16_i32", [](u32 x) {
    return static_cast<u32>(std::min<i64>(std::max<i64>(sx32(x), -32768), 32767)) & 0xffffu;
  }));
  cases.push_back(pk("v_cvt_pk_u16_u32", [](u32 x) { return std::min(x, 0xffffu); }));
  cases.push_back(trig_preop());
  cases.push_back(pknorm("v_cvt_pknorm_i16_f32", true, false));
  cases.push_back(pknorm("v_cvt_pknorm_u16_f32", false, false));
  cases.push_back(pknorm("v_cvt_pknorm_i16_f16", true, true));
  cases.push_back(pknorm("v_cvt_pknorm_u16_f16", false, true));
  cases.push_back(pkaccum());
  cases.push_back(madk(true));
  cases.push_back(madk(false));
}

}  // namespace cdna::simulator::directed
