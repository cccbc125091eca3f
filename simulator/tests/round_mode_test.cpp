// MODE round and denormal modes against MPFR, instruction by instruction (testdata/round_mode.hip).
//
// Each rounding VALU instruction runs after s_setreg_b32 of MODE[7:0] under every round mode and
// every denormal mode, with the f32 and the f64/f16 fields set to different values (so an
// instruction reading the wrong field fails), on random operands over all exponents (subnormals
// included) and on boundary operands (ties, halfway cases, overflow, cancellation to zero, signed
// zeros, infinities, NaN). The expected value is computed here with MPFR: the operation at the
// format's precision, then mpfr_check_range + mpfr_subnormalize in the format's exponent range
// (IEEE 754 rounding with subnormals), then the ISA's flush of a subnormal result to a zero of
// its sign (cdna3-facts.md §6). Flushing inputs and NaN payloads follow the simulator's
// documented model (simulator/exec/fp.hpp): the first NaN source quieted, else the canonical NaN.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <random>
#include <set>

#include "simulator/exec/fp_lanes.hpp"
#include "simulator/tests/test_util.hpp"

namespace cdna::simulator {
namespace {

using namespace testing;
using u16 = std::uint16_t;
using u32 = std::uint32_t;
using u64 = std::uint64_t;

SimulatorExecutor& executor() {
  static SimulatorExecutor e;
  return e;
}
const std::vector<std::byte>& co() {
  static auto c = testdata("round_mode");
  return c;
}

// ---- formats

struct Fmt {
  int bits, man, prec, emin, emax;  // MPFR convention: x = m * 2^e with 1/2 <= |m| < 1
};
constexpr Fmt kF16{16, 10, 11, -23, 16};
constexpr Fmt kF32{32, 23, 24, -148, 128};
constexpr Fmt kF64{64, 52, 53, -1073, 1024};

u64 exp_mask(const Fmt& f) { return ((u64{1} << (f.bits - 1 - f.man)) - 1) << f.man; }
u64 sign_bit(const Fmt& f) { return u64{1} << (f.bits - 1); }
bool is_nan(const Fmt& f, u64 x) { return (x & exp_mask(f)) == exp_mask(f) && (x & ((u64{1} << f.man) - 1)); }
bool is_sub(const Fmt& f, u64 x) { return (x & exp_mask(f)) == 0; }
u64 quiet(const Fmt& f, u64 x) { return x | (u64{1} << (f.man - 1)); }
u64 canonical_nan(const Fmt& f) { return exp_mask(f) | (u64{1} << (f.man - 1)); }
u64 flush(const Fmt& f, u64 x) { return is_sub(f, x) ? x & sign_bit(f) : x; }

// The value of bit pattern x of format f, exactly (finite or infinite; not NaN).
void set_bits(mpfr_t r, const Fmt& f, u64 x) {
  bool neg = x & sign_bit(f);
  u64 e = (x & exp_mask(f)) >> f.man, m = x & ((u64{1} << f.man) - 1);
  if (e == (exp_mask(f) >> f.man)) {
    mpfr_set_inf(r, neg ? -1 : 1);
    return;
  }
  int bias = static_cast<int>((exp_mask(f) >> f.man) >> 1);
  u64 sig = e ? m | (u64{1} << f.man) : m;
  long ex = (e ? static_cast<long>(e) : 1L) - bias - f.man;
  mpfr_set_ui_2exp(r, sig, ex, MPFR_RNDN);  // sig < 2^53 fits in an unsigned long
  if (neg) mpfr_neg(r, r, MPFR_RNDN);
}

// Bit pattern of r, which is representable in f (finite, infinite or zero).
u64 get_bits(const mpfr_t r, const Fmt& f) {
  u64 sign = mpfr_signbit(r) ? sign_bit(f) : 0;
  if (mpfr_inf_p(r)) return sign | exp_mask(f);
  if (mpfr_zero_p(r)) return sign;
  mpfr_t a;
  mpfr_init2(a, f.prec);
  mpfr_abs(a, r, MPFR_RNDN);
  long e = mpfr_get_exp(a);  // |r| = m * 2^e, 1/2 <= m < 1
  int bias = static_cast<int>((exp_mask(f) >> f.man) >> 1);
  long biased = e - 1 + bias;
  u64 out;
  if (biased >= 1) {  // normal: significand * 2^(e-1-man) with 2^man <= significand < 2^(man+1)
    mpfr_mul_2si(a, a, f.man - (e - 1), MPFR_RNDN);
    u64 sig = mpfr_get_uj(a, MPFR_RNDN);
    out = (static_cast<u64>(biased) << f.man) | (sig & ((u64{1} << f.man) - 1));
  } else {  // subnormal: multiple of 2^(1-bias-man)
    mpfr_mul_2si(a, a, f.man + bias - 1, MPFR_RNDN);
    out = mpfr_get_uj(a, MPFR_RNDN);
  }
  mpfr_clear(a);
  return sign | out;
}

// r (computed at f.prec in MPFR's wide exponent range with rounding rnd, ternary t) brought to
// f's exponent range: overflow and gradual underflow as IEEE 754 specifies.
void to_format(mpfr_t r, int t, const Fmt& f, mpfr_rnd_t rnd) {
  mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
  mpfr_set_emin(f.emin);
  mpfr_set_emax(f.emax);
  t = mpfr_check_range(r, t, rnd);
  mpfr_subnormalize(r, t, rnd);
  mpfr_set_emin(emin);
  mpfr_set_emax(emax);
}

mpfr_rnd_t rnd_of(u32 round) {
  switch (round) {
    case 0: return MPFR_RNDN;
    case 1: return MPFR_RNDU;
    case 2: return MPFR_RNDD;
    default: return MPFR_RNDZ;
  }
}

// MODE: f32 fields and f64/f16 fields (ISA guide MODE register; LLVM SIDefines.h).
struct Mode {
  u32 round32, round64, denorm32, denorm64;
  u32 bits() const { return round32 | round64 << 2 | denorm32 << 4 | denorm64 << 6; }
};
bool flush_in(u32 d) { return d == 0 || d == 2; }
bool flush_out(u32 d) { return d == 0 || d == 1; }

// ---- operands

// Random bit patterns of format f: every exponent equally likely (subnormals, inf and NaN
// included), and `near` values whose exponent is within a few of another's (rounding-heavy).
struct Gen {
  std::mt19937_64 rng;
  u64 any(const Fmt& f) {
    u64 r = rng();
    u64 e = (r >> 1) % ((exp_mask(f) >> f.man) + 1);
    return (r & sign_bit(f)) | (e << f.man) | (rng() & ((u64{1} << f.man) - 1));
  }
  u64 near(const Fmt& f, u64 x) {
    long e = static_cast<long>((x & exp_mask(f)) >> f.man) + static_cast<long>(rng() % 61) - 30;
    long emax = static_cast<long>(exp_mask(f) >> f.man) - 1;
    e = std::clamp(e, 0L, emax);
    return (rng() & sign_bit(f)) | (static_cast<u64>(e) << f.man) | (rng() & ((u64{1} << f.man) - 1));
  }
};

// Boundary values of f: zeros, smallest/largest subnormal and normal, one, ties around one,
// the largest finite value and its neighbours, infinities, quiet and signalling NaN.
std::vector<u64> boundary(const Fmt& f) {
  const u64 one = (exp_mask(f) >> 1) & exp_mask(f), s = sign_bit(f), mm = (u64{1} << f.man) - 1;
  const u64 minn = u64{1} << f.man, maxf = exp_mask(f) - 1;
  std::vector<u64> v = {0, s, 1, s | 1, mm, minn, minn | 1, s | minn, one, s | one, one + 1,
                        one - 1, s | (one + 1), one + (u64{1} << f.man) /* 2 */, one - (u64{1} << f.man) /* 1/2 */,
                        one | (u64{1} << (f.man - 1)) /* 1.5 */, maxf, maxf - 1, s | maxf,
                        maxf - (u64{1} << f.man), exp_mask(f), s | exp_mask(f),
                        canonical_nan(f), exp_mask(f) | 1 /* signalling */};
  return v;
}

// Pairs that make ties: 1 + half an ulp, 1 + 3/2 ulp, 1 - a quarter ulp, the largest finite
// value plus half its ulp, the smallest subnormal times 1/2, x - x.
std::vector<std::array<u64, 2>> tie_pairs(const Fmt& f) {
  const u64 one = (exp_mask(f) >> 1) & exp_mask(f), s = sign_bit(f), maxf = exp_mask(f) - 1;
  auto pow2 = [&](long k) { return static_cast<u64>(static_cast<long>(one >> f.man) + k) << f.man; };
  const long p = f.man;
  return {{one, pow2(-p - 1)},          {one | 1, pow2(-p - 1)},     {one, s | pow2(-p - 2)},
          {one, pow2(-p - 1) | 1},       {s | one, s | pow2(-p - 1)}, {maxf, pow2(((exp_mask(f) >> f.man) >> 1) - p - 1)},
          {one + 1, s | (one + 1)},      {maxf, s | maxf},            {1, pow2(-1)},
          {3, pow2(-1)},                 {u64{1} << f.man, s | 1},    {one + 3, pow2(-p - 2)}};
}

// ---- the instructions

enum class Src : std::uint8_t { Float, I32, U32, I16, U16, Exp };  // Exp: an ldexp exponent

using Ref = std::function<int(mpfr_t r, mpfr_t* x, mpfr_rnd_t rnd)>;

struct Spec {
  const char* kernel;
  Fmt in, out;
  int nsrc;
  int slots;          // independent results per lane (2 for packed instructions)
  bool wide;          // 64-bit buffers
  bool acc;           // third operand is the accumulator (c[t])
  bool in64_field;    // sources follow the f64/f16 denormal field (else f32)
  bool out64_field;   // rounding and result flush follow the f64/f16 fields
  Src src1 = Src::Float;
  Src src0 = Src::Float;
  Ref ref;
  bool legacy_zero = false;  // v_mul_legacy_f32: 0 * anything = +0
};

int add(mpfr_t r, mpfr_t* x, mpfr_rnd_t m) { return mpfr_add(r, x[0], x[1], m); }
int sub(mpfr_t r, mpfr_t* x, mpfr_rnd_t m) { return mpfr_sub(r, x[0], x[1], m); }
int subrev(mpfr_t r, mpfr_t* x, mpfr_rnd_t m) { return mpfr_sub(r, x[1], x[0], m); }
int mul(mpfr_t r, mpfr_t* x, mpfr_rnd_t m) { return mpfr_mul(r, x[0], x[1], m); }
int fma(mpfr_t r, mpfr_t* x, mpfr_rnd_t m) { return mpfr_fma(r, x[0], x[1], x[2], m); }
int setv(mpfr_t r, mpfr_t* x, mpfr_rnd_t m) { return mpfr_set(r, x[0], m); }
int ldexp(mpfr_t r, mpfr_t* x, mpfr_rnd_t m) {
  return mpfr_mul_2si(r, x[0], mpfr_get_si(x[1], MPFR_RNDN), m);
}

std::vector<Spec> specs() {
  std::vector<Spec> s;
  auto f32 = [&](const char* k, int n, Ref r) { s.push_back({k, kF32, kF32, n, 1, false, false, false, false, Src::Float, Src::Float, r}); };
  auto f16 = [&](const char* k, int n, int slots, Ref r) { s.push_back({k, kF16, kF16, n, slots, false, false, true, true, Src::Float, Src::Float, r}); };
  auto f64 = [&](const char* k, int n, Ref r) { s.push_back({k, kF64, kF64, n, 1, true, false, true, true, Src::Float, Src::Float, r}); };
  f32("add_f32", 2, add);
  f32("sub_f32", 2, sub);
  f32("subrev_f32", 2, subrev);
  f32("mul_f32", 2, mul);
  f32("mul_legacy_f32", 2, mul);
  s.back().legacy_zero = true;
  f32("fma_f32", 3, fma);
  f32("fmac_f32", 3, fma);
  s.back().acc = true;
  f32("ldexp_f32", 2, ldexp);
  s.back().src1 = Src::Exp;
  f32("cvt_f32_i32", 1, setv);
  s.back().src0 = Src::I32;
  f32("cvt_f32_u32", 1, setv);
  s.back().src0 = Src::U32;
  s.push_back({"cvt_f16_f32", kF32, kF16, 1, 1, false, false, false, true, Src::Float, Src::Float, setv});
  s.push_back({"cvt_f32_f64", kF64, kF32, 1, 1, true, false, true, false, Src::Float, Src::Float, setv});
  f16("add_f16", 2, 1, add);
  f16("sub_f16", 2, 1, sub);
  f16("subrev_f16", 2, 1, subrev);
  f16("mul_f16", 2, 1, mul);
  f16("fma_f16", 3, 1, fma);
  f16("pk_add_f16", 2, 2, add);
  f16("pk_mul_f16", 2, 2, mul);
  f16("pk_fma_f16", 3, 2, fma);
  f16("cvt_f16_u16", 1, 1, setv);
  s.back().src0 = Src::U16;
  f16("cvt_f16_i16", 1, 1, setv);
  s.back().src0 = Src::I16;
  f64("add_f64", 2, add);
  f64("mul_f64", 2, mul);
  f64("fma_f64", 3, fma);
  f64("fmac_f64", 3, fma);
  s.back().acc = true;
  f64("ldexp_f64", 2, ldexp);
  s.back().src1 = Src::Exp;
  s.push_back({"pk_add_f32", kF32, kF32, 2, 2, true, false, false, false, Src::Float, Src::Float, add});
  s.push_back({"pk_mul_f32", kF32, kF32, 2, 2, true, false, false, false, Src::Float, Src::Float, mul});
  s.push_back({"pk_fma_f32", kF32, kF32, 3, 2, true, false, false, false, Src::Float, Src::Float, fma});
  return s;
}

// Expected result bits of one slot.
u64 expect(const Spec& sp, const Mode& md, const std::array<u64, 3>& src) {
  const Fmt& fi = sp.in;
  const Fmt& fo = sp.out;
  const u32 din = sp.in64_field ? md.denorm64 : md.denorm32;
  const u32 dout = sp.out64_field ? md.denorm64 : md.denorm32;
  const u32 round = sp.out64_field ? md.round64 : md.round32;
  std::array<u64, 3> x = src;
  for (int i = 0; i < sp.nsrc; ++i) {
    bool is_float = (i == 0 && sp.src0 == Src::Float) || (i == 1 && sp.src1 == Src::Float) || i == 2;
    if (is_float && flush_in(din)) x[static_cast<std::size_t>(i)] = flush(fi, x[static_cast<std::size_t>(i)]);
  }
  // NaN sources: the first, quieted (a conversion keeps the sign and the top payload bits).
  for (int i = 0; i < sp.nsrc; ++i) {
    bool is_float = (i == 0 && sp.src0 == Src::Float) || (i == 1 && sp.src1 == Src::Float) || i == 2;
    u64 v = x[static_cast<std::size_t>(i)];
    if (!is_float || !is_nan(fi, v) || (sp.legacy_zero)) continue;
    if (fi.bits == fo.bits) return quiet(fo, v);
    u64 sign = (v & sign_bit(fi)) ? sign_bit(fo) : 0;
    u64 payload = (v & ((u64{1} << fi.man) - 1)) >> (fi.man - fo.man);
    return sign | exp_mask(fo) | (u64{1} << (fo.man - 1)) | payload;
  }
  mpfr_t in[3], r;
  for (auto& v : in) mpfr_init2(v, 64);
  mpfr_init2(r, fo.prec);
  for (int i = 0; i < sp.nsrc; ++i) {
    const std::size_t k = static_cast<std::size_t>(i);
    Src kind = i == 0 ? sp.src0 : i == 1 ? sp.src1 : Src::Float;
    switch (kind) {
      case Src::Float: set_bits(in[k], fi, x[k]); break;
      case Src::I32: mpfr_set_si(in[k], static_cast<std::int32_t>(x[k]), MPFR_RNDN); break;
      case Src::U32: mpfr_set_ui(in[k], static_cast<u32>(x[k]), MPFR_RNDN); break;
      case Src::I16: mpfr_set_si(in[k], static_cast<std::int16_t>(x[k]), MPFR_RNDN); break;
      case Src::U16: mpfr_set_ui(in[k], static_cast<u16>(x[k]), MPFR_RNDN); break;
      case Src::Exp: mpfr_set_si(in[k], static_cast<std::int32_t>(x[k]), MPFR_RNDN); break;
    }
  }
  u64 out;
  if (sp.legacy_zero && (mpfr_zero_p(in[0]) || mpfr_zero_p(in[1]) || is_nan(fi, x[0]) || is_nan(fi, x[1]))) {
    if (mpfr_zero_p(in[0]) || mpfr_zero_p(in[1])) {
      out = 0;  // legacy multiply: 0 * anything (inf, NaN) = +0
    } else {
      out = quiet(fo, is_nan(fi, x[0]) ? x[0] : x[1]);
    }
  } else {
    const mpfr_rnd_t rnd = rnd_of(round);
    int t = sp.ref(r, in, rnd);
    if (mpfr_nan_p(r)) {
      out = canonical_nan(fo);
    } else {
      to_format(r, t, fo, rnd);
      out = get_bits(r, fo);
      if (flush_out(dout)) out = flush(fo, out);
    }
  }
  for (auto& v : in) mpfr_clear(v);
  mpfr_clear(r);
  return out;
}

// Operand sets for one spec: boundary combinations, tie pairs, then random values.
std::vector<std::array<u64, 3>> operands(const Spec& sp, u64 seed) {
  Gen g{std::mt19937_64(seed)};
  const Fmt& f = sp.in;
  std::vector<std::array<u64, 3>> v;
  auto gen_src = [&](Src kind, u64 other) -> u64 {
    switch (kind) {
      case Src::Float: return (g.rng() & 1) ? g.any(f) : g.near(f, other);
      case Src::I32:
      case Src::U32: {
        u32 r = static_cast<u32>(g.rng());
        return r >> (g.rng() % 32);  // all magnitudes
      }
      case Src::I16:
      case Src::U16: return g.rng() & 0xffff;
      case Src::Exp: {
        static const std::int32_t e[] = {0, 1, -1, 24, -24, 126, -126, 127, -127, -149, -150, 128, 200, -300,
                                         1023, -1022, -1074, -1075, 1024, 5000, -5000, INT32_MAX, INT32_MIN};
        u64 r = g.rng();
        if (r % 4 == 0) return static_cast<u32>(e[(r >> 8) % std::size(e)]);
        return static_cast<u32>(static_cast<std::int32_t>((r >> 8) % 601) - 300);
      }
    }
    return 0;
  };
  if (sp.src0 == Src::Float && sp.src1 == Src::Float) {
    auto b = boundary(f);
    if (sp.nsrc == 1)
      for (u64 x : b) v.push_back({x, 0, 0});
    if (sp.nsrc == 2)
      for (u64 x : b)
        for (u64 y : b) v.push_back({x, y, 0});
    if (sp.nsrc == 3) {
      const u64 one = (exp_mask(f) >> 1) & exp_mask(f);
      for (u64 x : b)
        for (u64 y : b) v.push_back({x, y, g.any(f)});
      for (auto p : tie_pairs(f)) {  // a * 1 + c: the tie is in the addition
        v.push_back({p[0], one, p[1]});
        v.push_back({one, p[0], p[1]});
      }
    } else if (sp.nsrc == 2) {
      for (auto p : tie_pairs(f)) {
        v.push_back({p[0], p[1], 0});
        v.push_back({p[1], p[0], 0});
      }
    }
  }
  for (int i = 0; i < 2048; ++i) {
    u64 a = sp.src0 == Src::Float ? g.any(f) : gen_src(sp.src0, 0);
    u64 b = gen_src(sp.src1, a);
    u64 c = sp.nsrc == 3 ? (g.rng() % 3 == 0 ? g.any(f) : g.near(f, a)) : 0;
    if (sp.nsrc == 3 && g.rng() % 2 == 0) {  // c near a*b: cancellation in the sum
      std::uint64_t ea = (a & exp_mask(f)) >> f.man, eb = (b & exp_mask(f)) >> f.man;
      long bias = static_cast<long>((exp_mask(f) >> f.man) >> 1);
      long e = static_cast<long>(ea + eb) - bias;
      if (e > 0 && e < static_cast<long>(exp_mask(f) >> f.man))
        c = g.near(f, (static_cast<u64>(e) << f.man));
    }
    v.push_back({a, b, c});
  }
  return v;
}

// Counts mismatches; the first few are listed.
struct Failures {
  int count = 0;
  void report(const std::string& what) {
    if (++count <= 3) ADD_FAILURE() << what;
  }
};

std::string hexs(u64 x) {
  char b[24];
  std::snprintf(b, sizeof b, "%llx", static_cast<unsigned long long>(x));
  return b;
}

// Runs the kernel of `sp` over `ops` under `md` and checks every slot.
void run_spec(const Spec& sp, const Mode& md, const std::vector<std::array<u64, 3>>& ops, Failures& fail) {
  const std::size_t lanes = (ops.size() + static_cast<std::size_t>(sp.slots) - 1) / static_cast<std::size_t>(sp.slots);
  const std::size_t n = (lanes + 63) / 64 * 64;
  auto slot_of = [&](std::size_t lane, int s) -> const std::array<u64, 3>& {
    return ops[(lane * static_cast<std::size_t>(sp.slots) + static_cast<std::size_t>(s)) % ops.size()];
  };
  // Pack sources: slot s of a lane occupies bits [s*w, (s+1)*w) with w = element width.
  const int w = sp.slots == 2 ? (sp.wide ? 32 : 16) : (sp.wide ? 64 : 32);
  auto pack = [&](std::size_t lane, int i) {
    u64 word = 0;
    for (int s = 0; s < sp.slots; ++s) {
      u64 x = slot_of(lane, s)[static_cast<std::size_t>(i)];
      if (w < 64) x &= (u64{1} << w) - 1;
      word |= x << (s * w);
    }
    return word;
  };
  std::vector<u64> got(n);
  const u32 mode = md.bits();
  if (sp.wide) {
    std::vector<u64> a(n), b(n), c(n), o(n, 0);
    for (std::size_t l = 0; l < n; ++l) a[l] = pack(l, 0), b[l] = pack(l, 1), c[l] = pack(l, 2);
    executor().run(co(), dispatch(sp.kernel, {static_cast<u32>(n / 64), 1, 1}, {64, 1, 1},
                                  {in(a), in(b), in(c), out(o), val(mode)}));
    got = o;
  } else {
    std::vector<u32> a(n), b(n), c(n), o(n, 0);
    for (std::size_t l = 0; l < n; ++l)
      a[l] = static_cast<u32>(pack(l, 0)), b[l] = static_cast<u32>(pack(l, 1)), c[l] = static_cast<u32>(pack(l, 2));
    executor().run(co(), dispatch(sp.kernel, {static_cast<u32>(n / 64), 1, 1}, {64, 1, 1},
                                  {in(a), in(b), in(c), out(o), val(mode)}));
    for (std::size_t l = 0; l < n; ++l) got[l] = o[l];
  }
  const int ow = sp.slots == 2 ? w : sp.out.bits;
  for (std::size_t l = 0; l < n; ++l) {
    u64 want = 0;
    for (int s = 0; s < sp.slots; ++s) {
      want |= expect(sp, md, slot_of(l, s)) << (s * ow);
    }
    if (got[l] != want) {
      const auto& x = slot_of(l, 0);
      fail.report(std::string(sp.kernel) + " MODE=0x" + hexs(mode) + " lane " + std::to_string(l) + " a=" + hexs(x[0]) +
                  " b=" + hexs(x[1]) + " c=" + hexs(x[2]) + (sp.slots == 2 ? " (+hi slot)" : "") +
                  ": got " + hexs(got[l]) + " want " + hexs(want));
    }
  }
}

std::vector<Mode> modes() {
  std::vector<Mode> m;
  for (u32 r = 0; r < 4; ++r)
    for (u32 d = 0; d < 4; ++d) m.push_back({r, (r + 1) % 4, d, (d + 2) % 4});
  return m;
}

TEST(RoundMode, EveryRoundingInstructionMatchesMpfr) {
  int checked = 0;
  for (const Spec& sp : specs()) {
    Failures fail;
    auto ops = operands(sp, 1234 + static_cast<u64>(checked));
    for (const Mode& md : modes()) run_spec(sp, md, ops, fail);
    EXPECT_EQ(fail.count, 0) << sp.kernel << ": mismatches (first 3 listed above)";
    ++checked;
  }
  EXPECT_EQ(checked, 30);
}

// v_cvt_pkrtz_f16_f32 rounds toward zero whatever MODE says (its f16 result flush follows the
// fp16 denormal field).
TEST(RoundMode, PkrtzIgnoresRoundMode) {
  Spec sp{"cvt_f16_f32", kF32, kF16, 1, 1, false, false, false, true, Src::Float, Src::Float, setv};
  auto ops = operands(sp, 77);
  const std::size_t n = (ops.size() + 63) / 64 * 64;
  std::vector<u32> a(n), b(n), c(n, 0), o(n);
  for (std::size_t l = 0; l < n; ++l) {
    a[l] = static_cast<u32>(ops[l % ops.size()][0]);
    b[l] = static_cast<u32>(ops[(l * 7 + 3) % ops.size()][0]);
  }
  Failures fail;
  for (const Mode& md : modes()) {
    executor().run(co(), dispatch("cvt_pkrtz_f16_f32", {static_cast<u32>(n / 64), 1, 1}, {64, 1, 1},
                                  {in(a), in(b), in(c), out(o), val(md.bits())}));
    Mode rtz = md;
    rtz.round64 = 3;
    for (std::size_t l = 0; l < n; ++l) {
      u64 want = expect(sp, rtz, {a[l], 0, 0}) | expect(sp, rtz, {b[l], 0, 0}) << 16;
      if (o[l] != want)
        fail.report("cvt_pkrtz_f16_f32 MODE=0x" + hexs(md.bits()) + " a=" + hexs(a[l]) + " b=" + hexs(b[l]) +
                    ": got " + hexs(o[l]) + " want " + hexs(want));
    }
  }
  EXPECT_EQ(fail.count, 0);
}

// v_dot2_f32_f16 / v_dot2c_f32_f16 (Dot2Rounding::Once, the default): c + a.lo*b.lo + a.hi*b.hi
// rounded once to f32 in MODE's fp32 round mode; the f16 inputs follow the fp16 denormal field.
TEST(RoundMode, Dot2MatchesMpfr) {
  Gen g{std::mt19937_64(99)};
  const std::size_t n = 2048;
  std::vector<u32> a(n), b(n), c(n), o(n);
  for (std::size_t l = 0; l < n; ++l) {
    a[l] = static_cast<u32>(g.any(kF16) | g.any(kF16) << 16);
    b[l] = static_cast<u32>(g.near(kF16, a[l] & 0xffff) | g.near(kF16, a[l] >> 16) << 16);
    c[l] = static_cast<u32>(g.rng() % 2 ? g.any(kF32) : g.near(kF32, 0x3f800000u));
    if (l % 16 == 0) {  // exact cancellation: c = -(a.lo * b.lo), a.hi * b.hi = 0
      a[l] = 0x3c00u | (0x4000u << 16);                   // 1, 2
      b[l] = 0x3e00u | (((l / 16) & 1) ? 0x8000u << 16 : 0u);  // 1.5, +-0
      c[l] = 0xbfc00000u;                                  // -1.5
    }
  }
  Failures fail;
  for (const char* k : {"dot2_f32_f16", "dot2c_f32_f16"}) {
    for (const Mode& md : modes()) {
      executor().run(co(), dispatch(k, {static_cast<u32>(n / 64), 1, 1}, {64, 1, 1},
                                    {in(a), in(b), in(c), out(o), val(md.bits())}));
      for (std::size_t l = 0; l < n; ++l) {
        u64 h[4] = {a[l] & 0xffffu, a[l] >> 16, b[l] & 0xffffu, b[l] >> 16};
        u64 cc = c[l];
        bool any_nan = is_nan(kF32, cc);
        for (auto& x : h) {
          if (flush_in(md.denorm64)) x = flush(kF16, x);
          any_nan = any_nan || is_nan(kF16, x);
        }
        if (flush_in(md.denorm32)) cc = flush(kF32, cc);
        mpfr_t t[5], r;
        for (auto& v : t) mpfr_init2(v, 64);
        mpfr_init2(r, 24);
        for (int i = 0; i < 4; ++i) set_bits(t[i], kF16, h[i]);
        set_bits(t[4], kF32, cc);
        u64 want;
        if (any_nan) {
          want = 0;  // any NaN accepted below
        } else {
          mpfr_mul(t[0], t[0], t[2], MPFR_RNDN);  // exact: 22-bit products in 64 bits
          mpfr_mul(t[1], t[1], t[3], MPFR_RNDN);
          mpfr_ptr terms[3] = {t[4], t[0], t[1]};
          const mpfr_rnd_t rnd = rnd_of(md.round32);
          int tern = mpfr_sum(r, terms, 3, rnd);
          if (mpfr_nan_p(r)) {
            want = canonical_nan(kF32);
          } else {
            to_format(r, tern, kF32, rnd);
            want = get_bits(r, kF32);
            if (flush_out(md.denorm32)) want = flush(kF32, want);
          }
        }
        for (auto& v : t) mpfr_clear(v);
        mpfr_clear(r);
        bool ok = any_nan ? is_nan(kF32, o[l]) : o[l] == want;
        if (!ok)
          fail.report(std::string(k) + " MODE=0x" + hexs(md.bits()) + " a=" + hexs(a[l]) + " b=" + hexs(b[l]) +
                      " c=" + hexs(c[l]) + ": got " + hexs(o[l]) + " want " + hexs(want));
      }
    }
  }
  EXPECT_EQ(fail.count, 0);
}

// The FMA-less fallback of fma32_lanes (round to odd in double, then narrow_f64) in every round
// mode; this host's FMA instructions hide it from the kernel tests above.
TEST(RoundMode, FmaEmulationMatchesMpfrInEveryMode) {
  const auto all = specs();
  const Spec& sp = *std::find_if(all.begin(), all.end(), [](const Spec& x) { return std::string(x.kernel) == "fma_f32"; });
  auto ops = operands(sp, 4321);
  Failures fail;
  for (u32 m = 0; m < 4; ++m) {
    const Mode md{m, 0, 3, 3};  // denormals kept: the emulation does not flush
    for (const auto& x : ops) {
      const u32 got = fma32_emulated(static_cast<u32>(x[0]), static_cast<u32>(x[1]), static_cast<u32>(x[2]), m);
      const u64 want = expect(sp, md, x);
      const bool ok = (is_nan(kF32, got) && is_nan(kF32, want)) || got == want;  // NaN payload: host's
      if (!ok)
        fail.report("fma32_emulated round " + std::to_string(m) + " a=" + hexs(x[0]) + " b=" + hexs(x[1]) +
                    " c=" + hexs(x[2]) + ": got " + hexs(got) + " want " + hexs(want));
    }
  }
  EXPECT_EQ(fail.count, 0);
}

TEST(RoundMode, SetregGetregRoundTrip) {
  std::vector<u32> a(64), b(64), c(64), o(64, 0xdeadbeefu);
  for (u32 m : {0x00u, 0xffu, 0x3cu, 0xa5u, 0x5au, 0xf0u}) {
    executor().run(co(), dispatch("mode_roundtrip", {1, 1, 1}, {64, 1, 1}, {in(a), in(b), in(c), out(o), val(m)}));
    EXPECT_EQ(o[0], m) << std::hex << m;
    EXPECT_EQ(o[1], (m & ~0xcu) | 0x4u) << std::hex << m;
    EXPECT_EQ(o[2], 1u) << std::hex << m;
  }
}

}  // namespace
}  // namespace cdna::simulator
