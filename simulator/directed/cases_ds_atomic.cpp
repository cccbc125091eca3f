// Directed cases: DS atomics (32/64-bit integer, f64 add/min/max, f32/f64 compare-and-store,
// packed f16/bf16 add, with and without return), ds_wrxchg2*_rtn, ds_condxchg32_rtn_b64,
// ds_append/ds_consume, ds_read/write_addtid_b32, and the refused forms.
//
// Models: the DS opcode pseudo-code of the AMD Instinct ISA guide, chapter "LDS Instructions"
// (CDNA3; read in the CDNA4 edition, same DS opcodes), written for the tests; the
// floating-point adds are rounded by MPFR (nearest even at the format's precision) and follow
// the simulator's documented NaN rule (simulator/README.md "Modelling choices": first NaN
// source quieted, else the canonical quiet NaN). Every body first writes the 4 KiB LDS image
// of lds_model.hpp and reads it back at the end, so every byte an instruction writes is seen.
// Order-dependent operations give each lane its own slot; only order-independent ones
// (add/sub/min/max/and/or/xor) share slots between lanes.
#include <bit>
#include <cmath>
#include <limits>
#include <utility>
#include <string>

#include <mpfr.h>

#include "simulator/directed/cases.hpp"
#include "simulator/directed/lds_model.hpp"

namespace cdna::simulator::directed {
namespace {

u64 pair(const State& s, int k, int l) { return lane_pair(s.vin[static_cast<std::size_t>(k)], s.vin[static_cast<std::size_t>(k + 1)], l); }
void set_in_pair(State& s, int k, int l, u64 v) { set_lane_pair(s.vin[static_cast<std::size_t>(k)], s.vin[static_cast<std::size_t>(k + 1)], l, v); }
void set_out_pair(State& s, int k, int l, u64 v) { set_lane_pair(s.vout[static_cast<std::size_t>(k)], s.vout[static_cast<std::size_t>(k + 1)], l, v); }
u32& in(State& s, int k, int l) { return s.vin[static_cast<std::size_t>(k)][static_cast<std::size_t>(l)]; }

// ---- integer operations (tmp = memory, d = data0, d2 = data1), from the guide's pseudo-code
using Op64 = u64 (*)(u64 tmp, u64 d, u64 d2, int bits);
u64 trunc(u64 v, int bits) { return bits == 64 ? v : v & 0xffffffffull; }
i64 sx(u64 v, int bits) { return bits == 64 ? static_cast<i64>(v) : static_cast<i64>(static_cast<i32>(static_cast<u32>(v))); }

struct IntOp {
  const char* noret;  // nullptr: only a returning form
  const char* rtn;
  Op64 op;
  bool two_data;
  bool order_free;  // lanes may share a slot
};

const IntOp kOps32[] = {
    {"ds_rsub_u32", "ds_rsub_rtn_u32", [](u64 t, u64 d, u64, int b) { return trunc(d - t, b); }, false, false},
    {"ds_inc_u32", "ds_inc_rtn_u32", [](u64 t, u64 d, u64, int b) { return t >= d ? 0 : trunc(t + 1, b); }, false, false},
    {"ds_dec_u32", "ds_dec_rtn_u32", [](u64 t, u64 d, u64, int b) { return (t == 0 || t > d) ? d : trunc(t - 1, b); }, false, false},
    {"ds_mskor_b32", "ds_mskor_rtn_b32", [](u64 t, u64 d, u64 d2, int b) { return trunc((t & ~d) | d2, b); }, true, false},
    {"ds_cmpst_b32", nullptr, [](u64 t, u64 d, u64 d2, int) { return t == d ? d2 : t; }, true, false},
    {nullptr, "ds_wrap_rtn_b32", [](u64 t, u64 d, u64 d2, int b) { return t >= d ? t - d : trunc(t + d2, b); }, true, false},
};

const IntOp kOps64[] = {
    {"ds_add_u64", "ds_add_rtn_u64", [](u64 t, u64 d, u64, int) { return t + d; }, false, true},
    {"ds_sub_u64", "ds_sub_rtn_u64", [](u64 t, u64 d, u64, int) { return t - d; }, false, true},
    {"ds_rsub_u64", "ds_rsub_rtn_u64", [](u64 t, u64 d, u64, int) { return d - t; }, false, false},
    {"ds_inc_u64", "ds_inc_rtn_u64", [](u64 t, u64 d, u64, int) { return t >= d ? 0 : t + 1; }, false, false},
    {"ds_dec_u64", "ds_dec_rtn_u64", [](u64 t, u64 d, u64, int) { return (t == 0 || t > d) ? d : t - 1; }, false, false},
    {"ds_min_i64", "ds_min_rtn_i64", [](u64 t, u64 d, u64, int b) { return sx(d, b) < sx(t, b) ? d : t; }, false, true},
    {"ds_max_i64", "ds_max_rtn_i64", [](u64 t, u64 d, u64, int b) { return sx(d, b) >= sx(t, b) ? d : t; }, false, true},
    {"ds_min_u64", "ds_min_rtn_u64", [](u64 t, u64 d, u64, int) { return d < t ? d : t; }, false, true},
    {"ds_max_u64", "ds_max_rtn_u64", [](u64 t, u64 d, u64, int) { return d >= t ? d : t; }, false, true},
    {"ds_and_b64", "ds_and_rtn_b64", [](u64 t, u64 d, u64, int) { return t & d; }, false, true},
    {"ds_or_b64", "ds_or_rtn_b64", [](u64 t, u64 d, u64, int) { return t | d; }, false, true},
    {"ds_xor_b64", "ds_xor_rtn_b64", [](u64 t, u64 d, u64, int) { return t ^ d; }, false, true},
    {"ds_mskor_b64", "ds_mskor_rtn_b64", [](u64 t, u64 d, u64 d2, int) { return (t & ~d) | d2; }, true, false},
    {"ds_cmpst_b64", "ds_cmpst_rtn_b64", [](u64 t, u64 d, u64 d2, int) { return t == d ? d2 : t; }, true, false},
    {nullptr, "ds_wrxchg_rtn_b64", [](u64, u64 d, u64, int) { return d; }, false, false},
};

// Edge relations between the memory slot and data0, planted in lanes by l % 16 (the others
// keep the seed's random words). 32-bit: slot = region-0 word 1 (vin[1]), data0 = v16,
// data1 = v15. 64-bit: slot = region-0 words 2-3 (vin[2:3]), data0 = v[16:17], data1 = v[14:15].
void plant32(State& s) {
  for (int l = 0; l < kLanes; ++l) {
    u32& t = in(s, 1, l);
    u32& d = in(s, 6, l);
    switch (l % 8) {
      case 0: t = d; break;                            // equal: inc wraps to 0, cmpst stores
      case 1: t = 0; break;                            // dec wraps to data
      case 2: d = t / 2; break;                        // tmp > data
      case 3: d = 0xffffffffu; t = 0xfffffffeu; break; // tmp = data - 1
      case 4: t = 0; d = 0; break;
      default: break;
    }
  }
}

void plant64(State& s) {
  for (int l = 0; l < kLanes; ++l) {
    u64 t = pair(s, 2, l), d = pair(s, 6, l);
    switch (l % 16) {
      case 0: t = 0x00000000ffffffffull; d = 1; break;  // carry into the high word
      case 1: t = 0x0000000100000000ull; d = 1; break;  // borrow from the high word
      case 2: t = 0x8000000000000000ull; d = 0x7fffffffffffffffull; break;
      case 3: t = 0xffffffff00000000ull; d = 0x00000000ffffffffull; break;  // signed != unsigned order
      case 4: d = t; break;
      case 5: t = 0; d = 0; break;
      case 6: t = 0; break;
      case 7: d = t - 1; break;  // tmp > data
      case 8: d = t + 1; break;  // tmp < data
      case 9: d = ~0ull; break;
      case 10: t = 0x0000000100000000ull; d = 0x00000000ffffffffull; break;  // only the high words decide
      case 11: d = t ^ (1ull << 32); break;  // low words equal, high words differ
      case 12: d = t ^ 1; break;              // high words equal, low words differ
      default: break;
    }
    set_in_pair(s, 2, l, t);
    set_in_pair(s, 6, l, d);
  }
}

void int_cases(std::vector<Case>& cs, const IntOp& o, int bits) {
  const bool w = bits == 64;
  const std::string d0 = w ? "v[16:17]" : "v16", d1 = w ? "v[14:15]" : "v15", dst = w ? "v[32:33]" : "v32";
  const std::string data = d0 + (o.two_data ? ", " + d1 : "");
  const u32 off = w ? 8 : 4;
  const int n = w ? 8 : 4;
  Init init = w ? Init(plant64) : Init(plant32);
  auto mem_data = [w](const State& s, int l, u64& d, u64& d2) {
    d = w ? pair(s, 6, l) : vi(s, 6, l);
    d2 = w ? pair(s, 4, l) : vi(s, 5, l);
  };
  if (o.noret) {
    if (o.order_free) {
      // Lanes l and l + 16k share slot l & 15 of region 1; full EXEC.
      const std::string ops = "  v_lshlrev_b32 v66, 1, v65\n  " + std::string(o.noret) + " v66, " + data + " offset:1024\n";
      ds_case(cs, o.noret, ops, false, [o, mem_data](State& s, Lds& lds, int l) {
        const u32 a = 1024u + 8u * static_cast<u32>(l & 15);
        u64 d, d2;
        mem_data(s, l, d, d2);
        lds.wr(a, o.op(lds.rd(a, 8), d, d2, 64), 8);
      }, Values::Int, init);
    } else {
      const std::string ops = "  " + std::string(o.noret) + " v64, " + data + " offset:" + std::to_string(off) + "\n";
      ds_case(cs, o.noret, ops, true, [o, mem_data, off, n, bits](State& s, Lds& lds, int l) {
        u64 d, d2;
        mem_data(s, l, d, d2);
        lds.wr(addr(l) + off, o.op(lds.rd(addr(l) + off, n), d, d2, bits), n);
      }, Values::Int, init);
    }
  }
  if (o.rtn) {
    const std::string ops = "  " + std::string(o.rtn) + " " + dst + ", v64, " + data + " offset:" + std::to_string(off) + "\n";
    ds_case(cs, o.rtn, ops, true, [o, mem_data, off, n, bits, w](State& s, Lds& lds, int l) {
      u64 d, d2;
      mem_data(s, l, d, d2);
      const u64 t = lds.rd(addr(l) + off, n);
      if (w) set_out_pair(s, 0, l, t);
      else vo(s, 0, l) = static_cast<u32>(t);
      lds.wr(addr(l) + off, o.op(t, d, d2, bits), n);
    }, Values::Int, init);
  }
}

// DS data and destination in AGPRs (the DS encoding's acc bit): ds_max_rtn_u64 a[2:3], v64,
// a[0:1]; the model is the plain 64-bit unsigned max with return.
void agpr_case(std::vector<Case>& cs) {
  const std::string ops = "  v_accvgpr_write_b32 a0, v16\n  v_accvgpr_write_b32 a1, v17\n  s_nop 4\n"
                          "  ds_max_rtn_u64 a[2:3], v64, a[0:1] offset:8\n  s_waitcnt lgkmcnt(0)\n"
                          "  v_accvgpr_read_b32 v32, a2\n  v_accvgpr_read_b32 v33, a3\n  s_nop 4\n";
  ds_case(cs, "ds_max_rtn_u64", ops, true, [](State& s, Lds& lds, int l) {
    const u64 t = lds.rd(addr(l) + 8, 8), d = pair(s, 6, l);
    set_out_pair(s, 0, l, t);
    lds.wr(addr(l) + 8, d >= t ? d : t, 8);
  }, Values::Int, plant64);
}

// ---- floating point
struct Fmt {
  int man, exp;
};
constexpr Fmt kH{10, 5}, kB{7, 8}, kS{23, 8}, kD{52, 11};
u64 expm(Fmt f) { return ((u64{1} << f.exp) - 1) << f.man; }
u64 manm(Fmt f) { return (u64{1} << f.man) - 1; }
bool nan(u64 x, Fmt f) { return (x & expm(f)) == expm(f) && (x & manm(f)); }
u64 quieted(u64 x, Fmt f) { return x | (u64{1} << (f.man - 1)); }
int bias(Fmt f) { return (1 << (f.exp - 1)) - 1; }

// The value of a non-NaN, non-denormal pattern / the pattern of a representable normal value.
double val(u64 x, Fmt f) {
  const bool neg = (x >> (f.man + f.exp)) & 1;
  const u64 e = (x & expm(f)) >> f.man, m = x & manm(f);
  double v = e == 0 ? 0.0 : e == (u64{1} << f.exp) - 1 ? std::numeric_limits<double>::infinity()
                                                       : std::ldexp(1.0 + std::ldexp(static_cast<double>(m), -f.man), static_cast<int>(e) - bias(f));
  return neg ? -v : v;
}
u64 pattern(double v, Fmt f) {
  const u64 sign = std::signbit(v) ? u64{1} << (f.man + f.exp) : 0;
  if (v == 0) return sign;
  if (std::isinf(v)) return sign | expm(f);
  int e;
  const double m = std::frexp(std::fabs(v), &e);  // |v| = m 2^e, m in [0.5, 1)
  return sign | (static_cast<u64>(e - 1 + bias(f)) << f.man) | static_cast<u64>(std::ldexp(2 * m - 1, f.man));
}

// tmp + data: NaN rule, else the exact sum rounded by MPFR to the format (nearest even),
// infinite at or beyond 2^(emax+1).
u64 fadd(u64 t, u64 d, Fmt f) {
  if (nan(t, f)) return quieted(t, f);
  if (nan(d, f)) return quieted(d, f);
  const double x = val(t, f), y = val(d, f);
  if (std::isinf(x) && std::isinf(y) && x != y) return expm(f) | (u64{1} << (f.man - 1));
  mpfr_t a, b, r;
  mpfr_inits2(64, a, b, static_cast<mpfr_ptr>(nullptr));
  mpfr_init2(r, f.man + 1);
  mpfr_set_d(a, x, MPFR_RNDN);
  mpfr_set_d(b, y, MPFR_RNDN);
  mpfr_add(r, a, b, MPFR_RNDN);
  double s = mpfr_get_d(r, MPFR_RNDN);
  mpfr_clears(a, b, r, static_cast<mpfr_ptr>(nullptr));
  if (std::fabs(s) >= std::ldexp(1.0, bias(f) + 1)) s = std::copysign(std::numeric_limits<double>::infinity(), s);
  return pattern(s, f);
}

// Replaces denormal patterns and normals below 2^lo by normals of the seed's bits, so that
// no operand and no sum is a denormal (sums of values >= 2^lo with ulp >= the least normal).
u64 normalise(u64 x, Fmt f, int lo) {
  const u64 e = (x & expm(f)) >> f.man;
  if ((x & ~(u64{1} << (f.man + f.exp))) == 0 || e == (u64{1} << f.exp) - 1) return x;  // zero, inf, NaN
  const u64 min_e = static_cast<u64>(lo + bias(f));
  if (e >= min_e) return x;
  return (x & ~expm(f)) | ((min_e + (x % 7)) << f.man);
}

void sane_f64(State& s) {
  for (int k = 0; k < kVIn; k += 2)
    for (int l = 0; l < kLanes; ++l) set_in_pair(s, k, l, normalise(pair(s, k, l), kD, -900));
}
void sane_f32(State& s) {
  for (auto& r : s.vin)
    for (auto& w : r) w = static_cast<u32>(normalise(w, kS, -100));
}
// Both halves of every input word as f16 (>= 2^-4) or bf16 (>= 2^-118) normals or specials.
void sane_pk(State& s, Fmt f) {
  const int lo = f.man == kH.man ? -4 : -118;
  for (auto& r : s.vin)
    for (auto& w : r) w = static_cast<u32>(normalise(w & 0xffffu, f, lo) | (normalise(w >> 16, f, lo) << 16));
}

constexpr u64 kInfD = 0x7ff0000000000000ull, kNegInfD = 0xfff0000000000000ull;

// f64 add/min/max/cmpst: slot = region-0 words 2-3 (v[12:13]), data0 = v[16:17], data1 = v[14:15].
void plant_f64(State& s) {
  sane_f64(s);
  auto put = [&](int l, u64 t, u64 d) { set_in_pair(s, 2, l, t); set_in_pair(s, 6, l, d); };
  const u64 one = std::bit_cast<u64>(1.0);
  put(20, kInfD, kNegInfD);                           // invalid: canonical NaN
  put(21, 0x7ff0000000000001ull, one);                // signalling NaN in memory, quieted
  put(22, one, 0x7ff4000000000000ull);                // NaN data
  put(23, std::bit_cast<u64>(1e308), std::bit_cast<u64>(1e308));  // overflow
  put(24, std::bit_cast<u64>(3.5), std::bit_cast<u64>(-3.5));     // +0
  put(25, 0x8000000000000000ull, 0x8000000000000000ull);          // -0
  put(26, one, std::bit_cast<u64>(0x1p-53));                      // tie, to even (down)
  put(27, one + 1, std::bit_cast<u64>(0x1p-53));                  // tie, to even (up)
  put(28, 0, 0x8000000000000000ull);                              // +0 vs -0
  put(29, 0x8000000000000000ull, 0);
  put(30, 0x7ff8000000000123ull, one);                            // NaN in memory
  put(31, std::bit_cast<u64>(-2.0), 0x7ff8000000000456ull);       // NaN data
  put(32, std::bit_cast<u64>(0.1), std::bit_cast<u64>(0.1));      // equal
  put(33, 0x7ff8000000000123ull, 0x7ff8000000000123ull);          // NaN == NaN is false
  put(34, 0x7ff8000000000aaaull, 0x7ff0000000000bbbull);          // two NaNs: memory's wins
}

double dv(u64 x) { return std::bit_cast<double>(x); }

void f64_cases(std::vector<Case>& cs) {
  using F = std::function<u64(u64, u64, u64)>;
  struct FOp { const char* noret; const char* rtn; F op; bool two; };
  const FOp ops[] = {
      {"ds_add_f64", "ds_add_rtn_f64", [](u64 t, u64 d, u64) { return fadd(t, d, kD); }, false},
      {"ds_min_f64", "ds_min_rtn_f64", [](u64 t, u64 d, u64) { return dv(d) < dv(t) ? d : t; }, false},
      {"ds_max_f64", "ds_max_rtn_f64", [](u64 t, u64 d, u64) { return dv(d) > dv(t) ? d : t; }, false},
      {"ds_cmpst_f64", "ds_cmpst_rtn_f64", [](u64 t, u64 d, u64 d2) { return dv(t) == dv(d) ? d2 : t; }, true},
  };
  for (const auto& o : ops) {
    const std::string data = std::string("v[16:17]") + (o.two ? ", v[14:15]" : "");
    auto step = [o](State& s, Lds& lds, int l, bool rtn) {
      const u64 t = lds.rd(addr(l) + 8, 8);
      if (rtn) set_out_pair(s, 0, l, t);
      lds.wr(addr(l) + 8, o.op(t, pair(s, 6, l), pair(s, 4, l)), 8);
    };
    ds_case(cs, o.noret, "  " + std::string(o.noret) + " v64, " + data + " offset:8\n", false,
            [step](State& s, Lds& lds, int l) { step(s, lds, l, false); }, Values::F64, plant_f64);
    ds_case(cs, o.rtn, "  " + std::string(o.rtn) + " v[32:33], v64, " + data + " offset:8\n", true,
            [step](State& s, Lds& lds, int l) { step(s, lds, l, true); }, Values::F64, plant_f64);
  }
}

// f32 compare-and-store: slot = region-0 word 1 (v11), cmp = v15, new = v16.
void cmpst_f32_cases(std::vector<Case>& cs) {
  auto init = [](State& s) {
    sane_f32(s);
    for (int l = 0; l < kLanes; ++l) {
      if (l % 4 == 0) in(s, 5, l) = vi(s, 1, l);                               // equal
      if (l % 8 == 1) { in(s, 1, l) = 0x80000000u; in(s, 5, l) = 0; }           // -0 == +0
      if (l % 8 == 3) { in(s, 1, l) = 0x7fc00001u; in(s, 5, l) = 0x7fc00001u; } // NaN != NaN
    }
  };
  auto step = [](State& s, Lds& lds, int l, bool rtn) {
    const u32 t = static_cast<u32>(lds.rd(addr(l) + 4, 4));
    if (rtn) vo(s, 0, l) = t;
    if (std::bit_cast<float>(t) == std::bit_cast<float>(vi(s, 5, l))) lds.wr(addr(l) + 4, vi(s, 6, l), 4);
  };
  ds_case(cs, "ds_cmpst_f32", "  ds_cmpst_f32 v64, v15, v16 offset:4\n", false,
          [step](State& s, Lds& lds, int l) { step(s, lds, l, false); }, Values::F32, init);
  ds_case(cs, "ds_cmpst_rtn_f32", "  ds_cmpst_rtn_f32 v32, v64, v15, v16 offset:4\n", true,
          [step](State& s, Lds& lds, int l) { step(s, lds, l, true); }, Values::F32, init);
}

// f32 add/min/max with returns on NaN, infinity, overflow and signed-zero operands (the
// cases_lds.cpp cases use finite values only): slot = region-0 word 1 (v11), data = v16.
void f32_special_cases(std::vector<Case>& cs) {
  auto init = [](State& s) {
    sane_f32(s);
    auto put = [&](int l, u32 t, u32 d) { in(s, 1, l) = t; in(s, 6, l) = d; };
    put(20, 0x7f800000u, 0xff800000u);  // inf + -inf: canonical NaN
    put(21, 0x7f800001u, 0x3f800000u);  // signalling NaN in memory, quieted
    put(22, 0x3f800000u, 0x7fa00000u);  // NaN data
    put(23, 0x7fc00aaau, 0xffa00bbbu);  // two NaNs: memory's wins
    put(24, 0x7f000000u, 0x7f000000u);  // 2^127 + 2^127 overflows
    put(25, 0x00000000u, 0x80000000u);  // +0 and -0
    put(26, 0x80000000u, 0x00000000u);
    put(27, 0x7fc00001u, 0xc0000000u);  // NaN in memory stays for min/max
  };
  using F = u64 (*)(u64, u64);
  const std::pair<const char*, F> ops[] = {
      {"ds_add_rtn_f32", [](u64 t, u64 d) { return fadd(t, d, kS); }},
      {"ds_min_rtn_f32", [](u64 t, u64 d) { return std::bit_cast<float>(static_cast<u32>(d)) < std::bit_cast<float>(static_cast<u32>(t)) ? d : t; }},
      {"ds_max_rtn_f32", [](u64 t, u64 d) { return std::bit_cast<float>(static_cast<u32>(d)) > std::bit_cast<float>(static_cast<u32>(t)) ? d : t; }},
  };
  for (const auto& [m, op] : ops)
    ds_case(cs, m, "  " + std::string(m) + " v32, v64, v16 offset:4\n", false, [op](State& s, Lds& lds, int l) {
      const u32 t = static_cast<u32>(lds.rd(addr(l) + 4, 4));
      vo(s, 0, l) = t;
      lds.wr(addr(l) + 4, op(t, vi(s, 6, l)), 4);
    }, Values::F32, init);
}

// Packed f16/bf16 add: slot = region-0 word 1 (v11), data = v16.
void pk_add_cases(std::vector<Case>& cs, const char* noret, const char* rtn, Fmt f) {
  const bool h = f.man == kH.man;
  auto init = [f, h](State& s) {
    sane_pk(s, f);
    auto put = [&](int l, u32 t, u32 d) { in(s, 1, l) = t; in(s, 6, l) = d; };
    if (h) {
      put(40, 0x7bff7c00u, 0x7bfffc00u);  // max + max = inf | inf + -inf = NaN
      put(41, 0x7d003c00u, 0x3c007e01u);  // signalling NaN in memory | NaN data
      put(42, 0x3c003c01u, 0x10001000u);  // 1 + 2^-11: tie to even (down) | (up)
      put(43, 0xc2003c00u, 0x4200bc00u);  // -3 + 3 = +0 | 1 + -1 = +0
      put(44, 0x80008000u, 0x80008000u);  // -0 + -0
    } else {
      put(40, 0x7f7f7f80u, 0x7f7fff80u);  // max + max = inf | inf + -inf = NaN
      put(41, 0x7f813f80u, 0x3f807fc1u);  // signalling NaN in memory | NaN data
      put(42, 0x3f803f81u, 0x3b803b80u);  // 1 + 2^-8: tie to even (down) | (up)
      put(43, 0xc0403f80u, 0x4040bf80u);  // -3 + 3 = +0 | 1 + -1 = +0
      put(44, 0x80008000u, 0x80008000u);  // -0 + -0
    }
  };
  auto step = [f](State& s, Lds& lds, int l, bool ret) {
    const u32 t = static_cast<u32>(lds.rd(addr(l) + 4, 4)), d = vi(s, 6, l);
    if (ret) vo(s, 0, l) = t;
    const u64 lo = fadd(t & 0xffffu, d & 0xffffu, f), hi = fadd(t >> 16, d >> 16, f);
    lds.wr(addr(l) + 4, lo | (hi << 16), 4);
  };
  const Values v = h ? Values::F16 : Values::Int;
  ds_case(cs, noret, "  " + std::string(noret) + " v64, v16 offset:4\n", false,
          [step](State& s, Lds& lds, int l) { step(s, lds, l, false); }, v, init);
  ds_case(cs, rtn, "  " + std::string(rtn) + " v32, v64, v16 offset:4\n", true,
          [step](State& s, Lds& lds, int l) { step(s, lds, l, true); }, v, init);
}

// ds_wrxchg2[st64]_rtn: both old values to vdst, then data0 / data1 written (data1 last).
void wrxchg2_cases(std::vector<Case>& cs) {
  struct W { const char* m; int dw; u32 unit; int o0, o1; };
  const W ws[] = {{"ds_wrxchg2_rtn_b32", 1, 4, 1, 250},   {"ds_wrxchg2_rtn_b32", 1, 4, 2, 2},
                  {"ds_wrxchg2st64_rtn_b32", 1, 256, 0, 4}, {"ds_wrxchg2_rtn_b64", 2, 8, 1, 129},
                  {"ds_wrxchg2st64_rtn_b64", 2, 512, 0, 2}};
  for (const W& x : ws) {
    const std::string dst = "v[32:" + std::to_string(31 + 2 * x.dw) + "]";
    const std::string data = x.dw == 1 ? "v16, v17" : "v[16:17], v[14:15]";
    const std::string ops = "  " + std::string(x.m) + " " + dst + ", v64, " + data + " offset0:" +
                            std::to_string(x.o0) + " offset1:" + std::to_string(x.o1) + "\n";
    ds_case(cs, x.m, ops, true, [x](State& s, Lds& lds, int l) {
      const int n = 4 * x.dw;
      const u32 a0 = addr(l) + static_cast<u32>(x.o0) * x.unit, a1 = addr(l) + static_cast<u32>(x.o1) * x.unit;
      const u64 t0 = lds.rd(a0, n), t1 = lds.rd(a1, n);
      const u64 d0 = x.dw == 1 ? vi(s, 6, l) : pair(s, 6, l), d1 = x.dw == 1 ? vi(s, 7, l) : pair(s, 4, l);
      lds.wr(a0, d0, n);
      lds.wr(a1, d1, n);
      for (int i = 0; i < x.dw; ++i) {
        vo(s, i, l) = static_cast<u32>(t0 >> (32 * i));
        vo(s, x.dw + i, l) = static_cast<u32>(t1 >> (32 * i));
      }
    });
  }
}

// ds_condxchg32_rtn_b64: ADDR0 = (vaddr + offset) & 0xfff8; each dword k of the data is stored
// (bit 31 cleared) iff its bit 31 is set; vdst = the two old dwords. The second instruction's
// offset is 4 more than a multiple of 8: the mask aligns it down.
void condxchg_case(std::vector<Case>& cs) {
  const std::string ops = "  ds_condxchg32_rtn_b64 v[32:33], v64, v[16:17] offset:8\n"
                          "  ds_condxchg32_rtn_b64 v[34:35], v64, v[14:15] offset:1036\n";
  ds_case(cs, "ds_condxchg32_rtn_b64", ops, true, [](State& s, Lds& lds, int l) {
    const u32 base[2] = {(addr(l) + 8u) & 0xfff8u, (addr(l) + 1036u) & 0xfff8u};
    for (int j = 0; j < 2; ++j) {
      const u64 d = pair(s, j == 0 ? 6 : 4, l);
      for (int k = 0; k < 2; ++k) {
        const u32 a = base[j] + 4u * static_cast<u32>(k);
        vo(s, 2 * j + k, l) = static_cast<u32>(lds.rd(a, 4));
        const u32 dk = static_cast<u32>(d >> (32 * k));
        if (dk >> 31) lds.wr(a, dk & 0x7fffffffu, 4);
      }
    }
  });
}

// ds_append / ds_consume (LDS form): the dword at M0 + offset gains / loses popcount(EXEC);
// every active lane gets the old value.
void append_consume_case(std::vector<Case>& cs) {
  const std::string body = prefill() + "  s_waitcnt lgkmcnt(0)\n"
                           "  s_mov_b32 m0, 0x100\n  s_nop 0\n" + kMaskOn +
                           "  ds_append v32 offset:12\n" + kMaskOff +
                           "  s_mov_b32 m0, 0\n  s_nop 0\n" + kMaskOn +
                           "  ds_consume v33 offset:268\n" + kMaskOff +
                           "  s_mov_b32 m0, 0x200\n  s_nop 0\n"
                           "  ds_append v34 offset:8\n  ds_consume v35 offset:0x404\n" + kReadBack;
  auto model = [](State& s) {
    Lds lds;
    prefill_model(s, lds);
    const u64 mask = mask_of(s);
    auto op = [&](int k, u32 a, u64 exec, bool append) {
      const u32 old = static_cast<u32>(lds.rd(a, 4));
      const u32 n = static_cast<u32>(std::popcount(exec));
      lds.wr(a, append ? old + n : old - n, 4);
      for (int l = 0; l < kLanes; ++l)
        if (on(exec, l)) vo(s, k, l) = old;
    };
    op(0, 0x100 + 12, mask, true);
    op(1, 268, mask, false);
    op(2, 0x208, ~0ull, true);
    op(3, 0x604, ~0ull, false);
    s.m0 = 0x200;
    read_back_model(s, lds);
  };
  cs.push_back({"ds_append", body, model, Values::Int, mixed_mask});
  cs.push_back({"ds_consume", body, model, Values::Int, mixed_mask});
}

// ds_read/write_addtid_b32: lane l accesses the dword at offset + M0[15:0] + 4l (M0's high
// half is set to show that it is ignored).
void addtid_cases(std::vector<Case>& cs) {
  ds_case(cs, "ds_read_addtid_b32", "  s_mov_b32 m0, 0x12340100\n  s_nop 0\n  ds_read_addtid_b32 v32 offset:4\n", true,
          [](State& s, Lds& lds, int l) {
            vo(s, 0, l) = static_cast<u32>(lds.rd(0x104u + 4u * static_cast<u32>(l), 4));
            s.m0 = 0x12340100u;
          });
  ds_case(cs, "ds_write_addtid_b32", "  s_mov_b32 m0, 0xffff0010\n  s_nop 0\n  ds_write_addtid_b32 v16 offset:2048\n", true,
          [](State& s, Lds& lds, int l) {
            lds.wr(2048u + 0x10u + 4u * static_cast<u32>(l), vi(s, 6, l), 4);
            s.m0 = 0xffff0010u;
          });
}

// Refused forms: each case's body contains the instruction; the run must fail with the text.
void error_cases(std::vector<Case>& cs) {
  auto err = [&](const char* m, const std::string& ops, const char* text, Values v = Values::Int, Init init = nullptr) {
    Case c{m, prefill() + "  s_waitcnt lgkmcnt(0)\n" + ops + kReadBack, [](State&) {}, v, init};
    c.expect_error = text;
    cs.push_back(c);
  };
  err("ds_add_u64", "  ds_add_u64 v64, v[16:17] offset:4\n", "is not 8-byte aligned");
  err("ds_max_rtn_u64", "  ds_max_rtn_u64 v[32:33], v64, v[16:17] offset:65528\n", "outside the workgroup's 65536 bytes of LDS");
  err("ds_pk_add_f16", "  ds_pk_add_f16 v64, v16 offset:4\n", "denormal operand", Values::F16,
      [](State& s) { in(s, 6, 3) = 0x3c000001u; });
  err("ds_add_rtn_f64", "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 2, 2), 1\n  ds_add_rtn_f64 v[32:33], v64, v[16:17] offset:8\n",
      "only nearest even", Values::F64, sane_f64);
  // ds_append with the GDS bit (bit 16 of the first word; llvm-mc-19 refuses "gds" for
  // gfx942, so the word is spelled out): 0xd97d0010 0x21000000 = ds_append v33 offset:16 gds.
  err("ds_append", "  s_mov_b32 m0, 0\n  s_nop 0\n  ds_append v32 offset:16\n  .long 0xd97d0010, 0x21000000\n", "GDS access");
}

}  // namespace

void add_ds_atomic_cases(std::vector<Case>& cs) {
  for (const auto& o : kOps32) int_cases(cs, o, 32);
  for (const auto& o : kOps64) int_cases(cs, o, 64);
  agpr_case(cs);
  f64_cases(cs);
  cmpst_f32_cases(cs);
  f32_special_cases(cs);
  pk_add_cases(cs, "ds_pk_add_f16", "ds_pk_add_rtn_f16", kH);
  pk_add_cases(cs, "ds_pk_add_bf16", "ds_pk_add_rtn_bf16", kB);
  wrxchg2_cases(cs);
  condxchg_case(cs);
  append_consume_case(cs);
  addtid_cases(cs);
  error_cases(cs);
}

}  // namespace cdna::simulator::directed
