// The transcendental unit (v_exp/log/rcp/rsq/sqrt/sin/cos_f32) against MPFR: by default the
// correctly rounded value (nearest even) with denormals flushed, under every MODE round mode
// (which must not change it); in envelope mode one of the two f32 values bracketing the exact
// value, chosen per input and seed. The f16 forms (every input) and v_rcp/rsq/sqrt_f64 (sampled)
// are checked on the transcendental.hpp functions directly; their instructions are covered by the
// directed cases (directed/cases_valu_unary.cpp).
#include <gtest/gtest.h>
#include <mpfr.h>

#include <bit>
#include <cmath>
#include <random>

#include "simulator/tests/test_util.hpp"
#include "simulator/exec/transcendental.hpp"

namespace cdna::simulator {
namespace {

using namespace testing;
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

enum class Fn { Exp2, Log2, Rcp, Rsq, Sqrt, Sin, Cos };
struct FnInfo {
  Fn f;
  const char* kernel;
};
constexpr FnInfo kFns[] = {{Fn::Exp2, "exp_f32"}, {Fn::Log2, "log_f32"}, {Fn::Rcp, "rcp_f32"},
                           {Fn::Rsq, "rsq_f32"},  {Fn::Sqrt, "sqrt_f32"}, {Fn::Sin, "sin_f32"},
                           {Fn::Cos, "cos_f32"}};

bool nan32(u32 x) { return (x & 0x7fffffffu) > 0x7f800000u; }
u32 ftz(u32 x) { return (x & 0x7f800000u) == 0 ? x & 0x80000000u : x; }

struct Ref {
  u32 value;   // f32 bits (subnormals kept)
  bool exact;  // f(x) is this f32 value
};

// f(x) rounded to binary32 (IEEE exponent range, subnormals) by MPFR under `rnd`.
Ref mpfr_ref(Fn f, u32 xb, mpfr_rnd_t rnd) {
  const float x = as_f(xb);
  if (std::isnan(x)) return {xb | 0x00400000u, true};
  if (f == Fn::Rsq && xb == 0x80000000u) return {0xff800000u, true};  // model: rsq(-0) = -inf
  mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
  mpfr_set_emin(-148);
  mpfr_set_emax(128);
  mpfr_t a, r;
  mpfr_init2(a, 24);
  mpfr_init2(r, 24);
  mpfr_set_flt(a, x, MPFR_RNDN);
  int t = 0;
  switch (f) {
    case Fn::Exp2: t = mpfr_exp2(r, a, rnd); break;
    case Fn::Log2: t = mpfr_log2(r, a, rnd); break;
    case Fn::Rcp: t = mpfr_ui_div(r, 1, a, rnd); break;
    case Fn::Rsq: t = mpfr_rec_sqrt(r, a, rnd); break;
    case Fn::Sqrt: t = mpfr_sqrt(r, a, rnd); break;
    case Fn::Sin: t = mpfr_sinu(r, a, 1, rnd); break;
    case Fn::Cos: t = mpfr_cosu(r, a, 1, rnd); break;
  }
  t = mpfr_subnormalize(r, t, rnd);
  Ref out{mpfr_nan_p(r) ? 0x7fc00000u : as_u(mpfr_get_flt(r, MPFR_RNDN)), t == 0};
  mpfr_clear(a);
  mpfr_clear(r);
  mpfr_set_emin(emin);
  mpfr_set_emax(emax);
  return out;
}

// Inputs: boundary values, then random bit patterns with uniform exponents, then values in the
// function's interesting range.
std::vector<u32> inputs(Fn f, u64 seed) {
  std::vector<u32> v = {0u, 0x80000000u, 1u, 0x807fffffu, 0x00800000u, 0x3f800000u, 0xbf800000u,
                        0x7f800000u, 0xff800000u, 0x7fc00000u, 0x7f800001u, 0x7f7fffffu, 0x3f800001u,
                        0x3f7fffffu, 0x40800000u, 0x41100000u, 0x3e800000u, 0x3f000000u, 0x3f400000u,
                        0xbe800000u, 0xbf000000u, 0x42fe0000u, 0xc3150000u, 0xc2fc0000u, 0x43000000u,
                        0x4b000001u, 0x4b800000u, 0x3d800000u};
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 1500; ++i) {
    u64 r = rng();
    u32 e = static_cast<u32>((r >> 32) % 256);
    v.push_back((static_cast<u32>(r) & 0x807fffffu) | (e << 23));
  }
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int i = 0; i < 2500; ++i) {
    double d = u(rng);
    float x = 0;
    switch (f) {
      case Fn::Exp2: x = static_cast<float>(d * 140.0); break;
      case Fn::Log2:
      case Fn::Rcp:
      case Fn::Rsq:
      case Fn::Sqrt: x = static_cast<float>(std::ldexp(1.0 + std::fabs(d), static_cast<int>(rng() % 60) - 30)); break;
      case Fn::Sin:
      case Fn::Cos: x = static_cast<float>(d * (rng() % 2 ? 1.0 : 300.0)); break;
    }
    v.push_back(as_u(x));
  }
  while (v.size() % 64) v.push_back(as_u(static_cast<float>(u(rng))));
  return v;
}

std::vector<u32> run(const char* kernel, const std::vector<u32>& a, u32 mode) {
  std::vector<u32> b(a.size()), c(a.size()), o(a.size(), 0);
  executor().run(co(), dispatch(kernel, {static_cast<u32>(a.size() / 64), 1, 1}, {64, 1, 1},
                                {in(a), in(b), in(c), out(o), val(mode)}));
  return o;
}

std::string hexs(u32 x) {
  char b[16];
  std::snprintf(b, sizeof b, "%08x", x);
  return b;
}

TEST(Transcendental, DefaultIsCorrectlyRoundedThenFlushedInEveryRoundMode) {
  executor().options().transcendental_envelope.reset();
  int bad = 0;
  for (const auto& fn : kFns) {
    auto x = inputs(fn.f, 5 + static_cast<u64>(fn.f));
    std::vector<u32> want(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) want[i] = ftz(mpfr_ref(fn.f, ftz(x[i]), MPFR_RNDN).value);
    for (u32 round = 0; round < 4; ++round) {
      const u32 mode = round | (3 - round) << 2 | (round % 2 ? 0xf0u : 0x00u);  // denormal fields vary too
      auto o = run(fn.kernel, x, mode);
      for (std::size_t i = 0; i < x.size(); ++i)
        if (o[i] != want[i] && ++bad <= 12)
          ADD_FAILURE() << fn.kernel << " MODE=" << std::hex << mode << " x=" << hexs(x[i]) << ": got " << hexs(o[i])
                        << " want " << hexs(want[i]);
    }
  }
  EXPECT_EQ(bad, 0);
}

// The envelope's allowed set for input x: the nearest-even value when f(x) is an f32 value, is
// NaN, or rounds to zero or infinity; else the round-down and round-up values (finite ones).
struct Allowed {
  u32 down, up;
};
Allowed allowed(Fn f, u32 x) {
  x = ftz(x);
  Ref n = mpfr_ref(f, x, MPFR_RNDN), d = mpfr_ref(f, x, MPFR_RNDD), u = mpfr_ref(f, x, MPFR_RNDU);
  const u32 mag = n.value & 0x7fffffffu;
  if (n.exact || nan32(n.value) || mag == 0 || mag == 0x7f800000u) return {ftz(n.value), ftz(n.value)};
  if ((u.value & 0x7fffffffu) == 0x7f800000u) u = d;
  if ((d.value & 0x7fffffffu) == 0x7f800000u) d = u;
  return {ftz(d.value), ftz(u.value)};
}

TEST(Transcendental, EnvelopeStaysWithinOneUlpUsesBothSidesAndIsDeterministic) {
  int bad = 0;
  for (const auto& fn : kFns) {
    auto x = inputs(fn.f, 50 + static_cast<u64>(fn.f));
    executor().options().transcendental_envelope = 1;
    auto e1 = run(fn.kernel, x, 0);
    auto e1b = run(fn.kernel, x, 2);  // same seed, another round mode: same choices
    executor().options().transcendental_envelope = 2;
    auto e2 = run(fn.kernel, x, 0);
    executor().options().transcendental_envelope.reset();
    auto def = run(fn.kernel, x, 0);
    std::size_t downs = 0, ups = 0, open = 0, seed_differs = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      Allowed a = allowed(fn.f, x[i]);
      for (u32 got : {e1[i], e2[i]}) {
        bool ok = got == a.down || got == a.up;
        if (!ok && ++bad <= 12)
          ADD_FAILURE() << fn.kernel << " x=" << hexs(x[i]) << ": envelope gave " << hexs(got) << ", allowed "
                        << hexs(a.down) << " or " << hexs(a.up);
      }
      if (a.down != a.up) {
        ++open;
        downs += e1[i] == a.down;
        ups += e1[i] == a.up;
        seed_differs += e1[i] != e2[i];
      }
      EXPECT_EQ(e1[i], e1b[i]) << fn.kernel << " x=" << hexs(x[i]);
      EXPECT_EQ(def[i], ftz(mpfr_ref(fn.f, ftz(x[i]), MPFR_RNDN).value)) << fn.kernel << " x=" << hexs(x[i]);
    }
    // A fair hash picks each side about half the time; 30% is a loose floor for ~3000 inputs.
    EXPECT_GT(open, x.size() / 2) << fn.kernel;
    EXPECT_GT(downs, open * 3 / 10) << fn.kernel;
    EXPECT_GT(ups, open * 3 / 10) << fn.kernel;
    EXPECT_GT(seed_differs, open * 3 / 10) << fn.kernel;
  }
  EXPECT_EQ(bad, 0);
}

// ---- f16 and f64 forms against MPFR (reference written for the test)

constexpr Trans kTrans[] = {Trans::Exp2, Trans::Log2, Trans::Rcp, Trans::Rsq, Trans::Sqrt, Trans::Sin, Trans::Cos};

// f(x) rounded by MPFR to a format with `prec` bits and MPFR exponent range [emin, emax]
// (subnormals), as a double; NaN for an invalid operation. rsq(-0) = -inf (ISA guide examples).
double mpfr_fmt(Trans f, double x, int prec, mpfr_exp_t emin, mpfr_exp_t emax, mpfr_rnd_t rnd, bool* exact) {
  mpfr_exp_t e0 = mpfr_get_emin(), e1 = mpfr_get_emax();
  mpfr_set_emin(emin);
  mpfr_set_emax(emax);
  mpfr_t a, r;
  mpfr_init2(a, 53);
  mpfr_init2(r, prec);
  mpfr_set_d(a, x, MPFR_RNDN);
  int t = 0;
  switch (f) {
    case Trans::Exp2: t = mpfr_exp2(r, a, rnd); break;
    case Trans::Log2: t = mpfr_log2(r, a, rnd); break;
    case Trans::Rcp: t = mpfr_ui_div(r, 1, a, rnd); break;
    case Trans::Rsq: t = mpfr_rec_sqrt(r, a, rnd); break;
    case Trans::Sqrt: t = mpfr_sqrt(r, a, rnd); break;
    case Trans::Sin: t = mpfr_sinu(r, a, 1, rnd); break;
    case Trans::Cos: t = mpfr_cosu(r, a, 1, rnd); break;
  }
  t = mpfr_subnormalize(r, t, rnd);
  double out = mpfr_get_d(r, MPFR_RNDN);
  if (exact) *exact = t == 0;
  mpfr_clear(a);
  mpfr_clear(r);
  mpfr_set_emin(e0);
  mpfr_set_emax(e1);
  if (f == Trans::Rsq && x == 0.0) out = std::copysign(INFINITY, x);
  return out;
}

double half(u32 h) {
  const int e = static_cast<int>((h >> 10) & 0x1f);
  const double m = static_cast<double>(h & 0x3ff);
  const double v = e == 31 ? (m != 0 ? NAN : INFINITY) : e == 0 ? std::ldexp(m, -24) : std::ldexp(1024.0 + m, e - 25);
  return (h & 0x8000u) ? -v : v;
}
u32 half_bits(double v) {  // v representable in binary16, or ±inf/±0; NaN -> 0xfe00 (invalid)
  if (std::isnan(v)) return 0xfe00u;
  const u32 sign = std::signbit(v) ? 0x8000u : 0u;
  v = std::fabs(v);
  if (std::isinf(v)) return sign | 0x7c00u;
  if (v == 0.0) return sign;
  const int e = std::ilogb(v);
  if (e < -14) return sign | static_cast<u32>(std::ldexp(v, 24));
  return sign | (static_cast<u32>(e + 15) << 10) | (static_cast<u32>(std::ldexp(v, 10 - e)) - 1024u);
}
u32 ref16(Trans f, u32 h, mpfr_rnd_t rnd, bool* exact = nullptr) {
  if ((h & 0x7fffu) > 0x7c00u) return h | 0x0200u;
  const u32 r = half_bits(mpfr_fmt(f, half(h), 11, -23, 16, rnd, exact));
  // ISA guide example V_SIN_F16(0xfbff) = 0x0000: a zero sine of a nonzero input is +0.
  return f == Trans::Sin && (r & 0x7fffu) == 0 && (h & 0x7fffu) != 0 ? 0u : r;
}

TEST(Transcendental16, EveryInputIsCorrectlyRounded) {
  int bad = 0;
  for (Trans f : kTrans)
    for (u32 h = 0; h < 0x10000u; ++h) {
      const u32 got = trans_nearest16(f, h), want = ref16(f, h, MPFR_RNDN);
      if (got != want && ++bad <= 12)
        ADD_FAILURE() << "f16 fn " << static_cast<int>(f) << " x=" << std::hex << h << ": got " << got << " want " << want;
    }
  EXPECT_EQ(bad, 0);
}

TEST(Transcendental16, EnvelopeIsOneOfTheTwoNeighboursOfTheExactValue) {
  int bad = 0;
  for (Trans f : kTrans) {
    std::size_t open = 0, ups = 0, differ = 0;
    for (u32 h = 0; h < 0x10000u; ++h) {
      bool exact = false;
      const u32 n = ref16(f, h, MPFR_RNDN, &exact);
      u32 down = ref16(f, h, MPFR_RNDD), up = ref16(f, h, MPFR_RNDU);
      const bool fixed = exact || (n & 0x7fffu) == 0 || (n & 0x7fffu) >= 0x7c00u;
      if ((up & 0x7fffu) == 0x7c00u) up = down;
      if ((down & 0x7fffu) == 0x7c00u) down = up;
      const u32 e1 = trans_envelope16(f, h, 1), e2 = trans_envelope16(f, h, 2);
      for (u32 got : {e1, e2}) {
        const bool ok = fixed ? got == n : (got == down || got == up);
        if (!ok && ++bad <= 12)
          ADD_FAILURE() << "f16 fn " << static_cast<int>(f) << " x=" << std::hex << h << ": envelope " << got
                        << " nearest " << n << " down " << down << " up " << up;
      }
      EXPECT_EQ(e1, trans_envelope16(f, h, 1));
      if (!fixed && down != up) {
        ++open;
        ups += e1 == up;
        differ += e1 != e2;
      }
    }
    EXPECT_GT(ups, open * 3 / 10) << static_cast<int>(f);
    EXPECT_LT(ups, open * 7 / 10) << static_cast<int>(f);
    EXPECT_GT(differ, open * 3 / 10) << static_cast<int>(f);
  }
  EXPECT_EQ(bad, 0);
}

// f64 inputs: specials, subnormals, powers of two, random patterns over all exponents.
std::vector<u64> inputs64() {
  std::vector<u64> v = {0, 0x8000000000000000ull, 1, 0x800fffffffffffffull, 0x0010000000000000ull,
                        0x3ff0000000000000ull, 0xbff0000000000000ull, 0x7ff0000000000000ull,
                        0xfff0000000000000ull, 0x7ff8000000000000ull, 0x7fefffffffffffffull,
                        0x4010000000000000ull, 0x3fd0000000000000ull, 0x4008000000000000ull};
  std::mt19937_64 rng(77);
  for (int i = 0; i < 20000; ++i) v.push_back(rng());
  for (int i = 0; i < 2000; ++i) v.push_back((rng() & 0x000fffffffffffffull) | ((1000ull + rng() % 48) << 52));
  return v;
}
u64 ref64(Trans f, u64 x, mpfr_rnd_t rnd, bool* exact = nullptr) {
  const double d = std::bit_cast<double>(x);
  if (std::isnan(d)) return x;
  return std::bit_cast<u64>(mpfr_fmt(f, d, 53, -1073, 1024, rnd, exact));
}

TEST(Transcendental64, DefaultIsCorrectlyRounded) {
  int bad = 0;
  for (Trans f : {Trans::Rcp, Trans::Rsq, Trans::Sqrt})
    for (u64 x : inputs64()) {
      const u64 got = trans_nearest64(f, x), want = ref64(f, x, MPFR_RNDN);
      const bool both_nan = std::isnan(std::bit_cast<double>(got)) && std::isnan(std::bit_cast<double>(want));
      if (got != want && !both_nan && ++bad <= 12)
        ADD_FAILURE() << "f64 fn " << static_cast<int>(f) << " x=" << std::hex << x << ": got " << got << " want " << want;
    }
  EXPECT_EQ(bad, 0);
}

// The envelope's documented bound: within 2^29 ULP (of the exact value's binade) of the exact
// value; exact, zero, infinite and NaN results unchanged; the sign kept.
TEST(Transcendental64, EnvelopeStaysWithinTwoToThe29UlpAndIsDeterministic) {
  int bad = 0;
  for (Trans f : {Trans::Rcp, Trans::Rsq, Trans::Sqrt}) {
    std::size_t moved = 0, far = 0, finite = 0;
    for (u64 x : inputs64()) {
      bool exact = false;
      const u64 n = ref64(f, x, MPFR_RNDN, &exact);
      const double nd = std::bit_cast<double>(n);
      const u64 e = trans_envelope64(f, x, 9);
      EXPECT_EQ(e, trans_envelope64(f, x, 9));
      if (exact || !std::isfinite(nd) || nd == 0.0) {
        const bool same = e == n || (std::isnan(nd) && std::isnan(std::bit_cast<double>(e)));
        if (!same && ++bad <= 12) ADD_FAILURE() << "f64 fn " << static_cast<int>(f) << " x=" << std::hex << x << ": moved a fixed result";
        continue;
      }
      ++finite;
      const double ed = std::bit_cast<double>(e);
      // |e - exact| <= |e - n| + ulp/2, measured in ulps of n's binade (the smaller of the two
      // binades a move can cross into is never below it by more than a factor 2).
      const double ulp = std::ldexp(1.0, std::max(std::ilogb(nd), -1022) - 52);
      const double err = std::fabs(ed - nd) / ulp + 0.5;
      if ((!std::isfinite(ed) || std::signbit(ed) != std::signbit(nd) || err > 0x1p29) && ++bad <= 12)
        ADD_FAILURE() << "f64 fn " << static_cast<int>(f) << " x=" << std::hex << x << ": envelope " << e << " nearest " << n;
      moved += e != n;
      far += err > 0x1p20;
    }
    EXPECT_GT(moved, finite * 9 / 10) << static_cast<int>(f);
    EXPECT_GT(far, finite / 2) << static_cast<int>(f);  // the whole documented range is used
  }
  EXPECT_EQ(bad, 0);
}

}  // namespace
}  // namespace cdna::simulator
