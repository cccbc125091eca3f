// The transcendental unit (v_exp/log/rcp/rsq/sqrt/sin/cos_f32) against MPFR: by default the
// correctly rounded value (nearest even) with denormals flushed, under every MODE round mode
// (which must not change it); in envelope mode one of the two f32 values bracketing the exact
// value, chosen per input and seed.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <bit>
#include <cmath>
#include <random>

#include "simulator/test_util.hpp"

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

}  // namespace
}  // namespace cdna::simulator
