// Instruction-level tests: each kernel of testdata/isa.hip runs one instruction (or a short
// sequence) through inline asm; expected lanes come from host models written here from the
// ISA semantics, independently of the simulator's code.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <functional>
#include <limits>

#include "numerics/fp8.hpp"
#include "simulator/exec/dot2.hpp"
#include "simulator/tests/test_util.hpp"

namespace cdna::simulator {
namespace {

using namespace testing;
using u32 = std::uint32_t;
using u64 = std::uint64_t;
using i32 = std::int32_t;
using i64 = std::int64_t;
__extension__ typedef __int128 i128;

SimulatorExecutor& executor() {
  static SimulatorExecutor e;
  return e;
}
const std::vector<std::byte>& isa_co() {
  static auto co = testdata("isa");
  return co;
}

struct Inputs {
  std::vector<u32> a, b, c;
};

Inputs int_inputs(u32 seed) {
  Inputs in{random_u32(64, seed), random_u32(64, seed + 100), random_u32(64, seed + 200)};
  const u32 edges[] = {0u, 1u, 0xffffffffu, 0x80000000u, 0x7fffffffu, 0xffffu, 31u, 32u};
  for (std::size_t i = 0; i < 8; ++i) {
    in.a[i] = edges[i];
    in.b[i + 8] = edges[i];
    in.c[i + 16] = edges[i];
    in.a[i + 24] = edges[i];
    in.b[i + 24] = edges[7 - i];
  }
  return in;
}

Inputs float_inputs(u32 seed) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float specials[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, inf, -inf, nan, 1e-40f, -3e-39f,
                            65504.0f, 65520.0f, 1e5f, 6e-5f, 3e-8f, 0.75f, 2.5f, -3.5f, 1e30f, 1.5f};
  auto r = random_u32(192, seed);
  Inputs in{std::vector<u32>(64), std::vector<u32>(64), std::vector<u32>(64)};
  for (std::size_t i = 0; i < 64; ++i) {
    auto rnd = [&](u32 x) { return (x & 0x807fffffu) | ((112u + x % 32u) << 23); };  // ~[2^-15, 2^17)
    in.a[i] = i < 20 ? as_u(specials[i]) : rnd(r[i]);
    in.b[i] = i >= 20 && i < 40 ? as_u(specials[i - 20]) : rnd(r[64 + i]);
    in.c[i] = i >= 40 && i < 60 ? as_u(specials[i - 40]) : rnd(r[128 + i]);
  }
  return in;
}

std::vector<u32> run(const std::string& kernel, const Inputs& x, std::size_t out_words = 64,
                     u32 fill = 0xdeadbeefu) {
  std::vector<u32> o(out_words, fill);
  executor().run(isa_co(), dispatch(kernel, {1, 1, 1}, {64, 1, 1}, {in(x.a), in(x.b), in(x.c), out(o)}));
  return o;
}

using F3 = std::function<u32(u32, u32, u32)>;
void check_lanes(const std::string& kernel, const Inputs& in, const F3& model) {
  auto o = run(kernel, in);
  for (std::size_t l = 0; l < 64; ++l)
    EXPECT_EQ(o[l], model(in.a[l], in.b[l], in.c[l]))
        << kernel << " lane " << l << " a=" << std::hex << in.a[l] << " b=" << in.b[l] << " c=" << in.c[l];
}

bool is_nan(u32 x) { return (x & 0x7fffffffu) > 0x7f800000u; }
// Floats compare bit for bit, except that any NaN matches any NaN.
void check_float_lanes(const std::string& kernel, const Inputs& in, const F3& model) {
  auto o = run(kernel, in);
  for (std::size_t l = 0; l < 64; ++l) {
    u32 e = model(in.a[l], in.b[l], in.c[l]);
    bool ok = (is_nan(e) && is_nan(o[l])) || e == o[l];
    EXPECT_TRUE(ok) << kernel << " lane " << l << std::hex << " a=" << in.a[l] << " b=" << in.b[l]
                    << " c=" << in.c[l] << ": got " << o[l] << " expected " << e;
  }
}

u32 byte_perm(u64 data, u32 sel) {
  sel &= 0xff;
  if (sel >= 13) return 0xff;
  if (sel == 12) return 0;
  if (sel >= 8) {
    int bit = 16 * static_cast<int>(sel - 8) + 15;
    return ((data >> bit) & 1) ? 0xffu : 0u;
  }
  return static_cast<u32>(data >> (8 * sel)) & 0xff;
}
u32 sx(u32 x, int bits) { return static_cast<u32>(static_cast<i32>(x << (32 - bits)) >> (32 - bits)); }
u32 bfe(u32 s, u32 off, u32 w, bool sign) {
  off &= 31;
  w &= 31;
  if (w == 0) return 0;
  // v_bfe_i32 shifts S0 arithmetically (ISA guide: tmp = (S0.i32 >> offset) & mask).
  const u32 shifted = sign ? static_cast<u32>(static_cast<std::int32_t>(s) >> off) : s >> off;
  u32 f = static_cast<u32>(shifted & ((1ull << w) - 1));
  return sign ? sx(f, static_cast<int>(w)) : f;
}
template <class T>
T med3(T a, T b, T c) {
  return std::max(std::min(a, b), std::min(std::max(a, b), c));
}

TEST(SimIsa, IntegerVop3) {
  Inputs in = int_inputs(1);
  check_lanes("perm_b32", in, [](u32 a, u32 b, u32 c) {
    u64 d = (u64{a} << 32) | b;
    return byte_perm(d, c) | byte_perm(d, c >> 8) << 8 | byte_perm(d, c >> 16) << 16 | byte_perm(d, c >> 24) << 24;
  });
  Inputs sel = in;
  for (std::size_t l = 0; l < 64; ++l) {  // selectors in the interesting range 0..15
    u32 r = random_u32(64, 99)[l];
    sel.c[l] = (r & 0x0f0f0f0f);
  }
  check_lanes("perm_b32", sel, [](u32 a, u32 b, u32 c) {
    u64 d = (u64{a} << 32) | b;
    return byte_perm(d, c) | byte_perm(d, c >> 8) << 8 | byte_perm(d, c >> 16) << 16 | byte_perm(d, c >> 24) << 24;
  });
  check_lanes("alignbit_b32", in, [](u32 a, u32 b, u32 c) { return static_cast<u32>(((u64{a} << 32) | b) >> (c & 31)); });
  check_lanes("alignbyte_b32", in, [](u32 a, u32 b, u32 c) { return static_cast<u32>(((u64{a} << 32) | b) >> (8 * (c & 3))); });
  check_lanes("bfe_u32", in, [](u32 a, u32 b, u32 c) { return bfe(a, b, c, false); });
  check_lanes("bfe_i32", in, [](u32 a, u32 b, u32 c) { return bfe(a, b, c, true); });
  check_lanes("bfi_b32", in, [](u32 a, u32 b, u32 c) { return (a & b) | (~a & c); });
  check_lanes("lshl_or_b32", in, [](u32 a, u32 b, u32 c) { return (a << (b & 31)) | c; });
  check_lanes("and_or_b32", in, [](u32 a, u32 b, u32 c) { return (a & b) | c; });
  check_lanes("or3_b32", in, [](u32 a, u32 b, u32 c) { return a | b | c; });
  check_lanes("add3_u32", in, [](u32 a, u32 b, u32 c) { return a + b + c; });
  check_lanes("lshl_add_u32", in, [](u32 a, u32 b, u32 c) { return (a << (b & 31)) + c; });
  check_lanes("add_lshl_u32", in, [](u32 a, u32 b, u32 c) { return (a + b) << (c & 31); });
  check_lanes("xad_u32", in, [](u32 a, u32 b, u32 c) { return (a ^ b) + c; });
  check_lanes("med3_i32", in, [](u32 a, u32 b, u32 c) { return static_cast<u32>(med3<i32>(static_cast<i32>(a), static_cast<i32>(b), static_cast<i32>(c))); });
  check_lanes("med3_u32", in, [](u32 a, u32 b, u32 c) { return med3<u32>(a, b, c); });
  check_lanes("min3_i32", in, [](u32 a, u32 b, u32 c) { return static_cast<u32>(std::min({static_cast<i32>(a), static_cast<i32>(b), static_cast<i32>(c)})); });
  check_lanes("max3_u32", in, [](u32 a, u32 b, u32 c) { return std::max({a, b, c}); });
  check_lanes("mad_u32_u24", in, [](u32 a, u32 b, u32 c) { return (a & 0xffffff) * (b & 0xffffff) + c; });
  check_lanes("mad_i32_i24", in, [](u32 a, u32 b, u32 c) {
    return static_cast<u32>(static_cast<i64>(static_cast<i32>(sx(a, 24))) * static_cast<i32>(sx(b, 24))) + c; });
  check_lanes("sad_u32", in, [](u32 a, u32 b, u32 c) { return (a > b ? a - b : b - a) + c; });
}

TEST(SimIsa, IntegerVop2AndVop1) {
  Inputs in = int_inputs(2);
  check_lanes("mul_hi_u32", in, [](u32 a, u32 b, u32) { return static_cast<u32>((u64{a} * b) >> 32); });
  check_lanes("mul_hi_i32", in, [](u32 a, u32 b, u32) {
    return static_cast<u32>(static_cast<u64>(static_cast<i64>(static_cast<i32>(a)) * static_cast<i32>(b)) >> 32); });
  check_lanes("mul_lo_u32", in, [](u32 a, u32 b, u32) { return a * b; });
  check_lanes("mul_i32_i24", in, [](u32 a, u32 b, u32) {
    return static_cast<u32>(static_cast<i64>(static_cast<i32>(sx(a, 24))) * static_cast<i32>(sx(b, 24))); });
  check_lanes("mul_hi_i32_i24", in, [](u32 a, u32 b, u32) {
    return static_cast<u32>(static_cast<u64>(static_cast<i64>(static_cast<i32>(sx(a, 24))) * static_cast<i32>(sx(b, 24))) >> 32); });
  check_lanes("mul_u32_u24", in, [](u32 a, u32 b, u32) { return (a & 0xffffff) * (b & 0xffffff); });
  check_lanes("mul_hi_u32_u24", in, [](u32 a, u32 b, u32) { return static_cast<u32>((u64{a & 0xffffff} * (b & 0xffffff)) >> 32); });
  check_lanes("bcnt_u32_b32", in, [](u32 a, u32 b, u32) { return static_cast<u32>(std::popcount(a)) + b; });
  check_lanes("bfm_b32", in, [](u32 a, u32 b, u32) { return static_cast<u32>(((1ull << (a & 31)) - 1) << (b & 31)); });
  check_lanes("ashrrev_i32", in, [](u32 a, u32 b, u32) { return static_cast<u32>(static_cast<i32>(b) >> (a & 31)); });
  check_lanes("lshrrev_b32", in, [](u32 a, u32 b, u32) { return b >> (a & 31); });
  check_lanes("lshlrev_b32", in, [](u32 a, u32 b, u32) { return b << (a & 31); });
  check_lanes("xnor_b32", in, [](u32 a, u32 b, u32) { return ~(a ^ b); });
  check_lanes("subrev_u32", in, [](u32 a, u32 b, u32) { return b - a; });
  check_lanes("min_i32", in, [](u32 a, u32 b, u32) { return static_cast<i32>(a) < static_cast<i32>(b) ? a : b; });
  check_lanes("max_u32", in, [](u32 a, u32 b, u32) { return std::max(a, b); });
  check_lanes("ffbh_u32", in, [](u32 a, u32, u32) { return a ? static_cast<u32>(std::countl_zero(a)) : ~0u; });
  check_lanes("ffbl_b32", in, [](u32 a, u32, u32) { return a ? static_cast<u32>(std::countr_zero(a)) : ~0u; });
  check_lanes("ffbh_i32", in, [](u32 a, u32, u32) {
    if (a == 0 || a == ~0u) return ~0u;
    return static_cast<u32>(std::countl_zero(static_cast<i32>(a) < 0 ? ~a : a)); });
  check_lanes("bfrev_b32", in, [](u32 a, u32, u32) {
    u32 r = 0;
    for (int i = 0; i < 32; ++i) r |= ((a >> i) & 1) << (31 - i);
    return r; });
  check_lanes("not_b32", in, [](u32 a, u32, u32) { return ~a; });
  check_lanes("mov_b32_literal", in, [](u32 a, u32, u32) { return a + 0x12345678u; });
  check_lanes("inline_neg16", in, [](u32 a, u32, u32) { return a - 16u; });
}

float F(u32 x) { return as_f(x); }
u32 U(float f) { return as_u(f); }
u32 flush32(u32 x) { return (x & 0x7f800000u) == 0 ? x & 0x80000000u : x; }
u32 f16_rne(float f) { _Float16 h = static_cast<_Float16>(f); std::uint16_t b; std::memcpy(&b, &h, 2); return b; }
u32 f16_rtz(u32 x) {
  // Round toward zero by truncating the f32 to the f16 grid (finite); overflow to 65504.
  float f = F(x);
  if (std::isnan(f)) return 0x7e00u | ((x >> 16) & 0x8000u);
  if (std::isinf(f)) return (x >> 16 & 0x8000u) | 0x7c00u;
  float m = std::fabs(f);
  if (m >= 65520.0f || m > 65504.0f) return (x >> 16 & 0x8000u) | 0x7bffu;
  _Float16 h = static_cast<_Float16>(f);
  if (std::fabs(static_cast<float>(h)) > m) h = static_cast<_Float16>(std::nextafter(static_cast<float>(h), 0.0f)) ;
  // nextafter in float then to f16 may round back; step the f16 bits instead.
  std::uint16_t b;
  std::memcpy(&b, &h, 2);
  _Float16 back;
  std::memcpy(&back, &b, 2);
  if (std::fabs(static_cast<float>(back)) > m) --b;
  return b;
}
float f16_to_f32(u32 b) { std::uint16_t h = static_cast<std::uint16_t>(b); _Float16 x; std::memcpy(&x, &h, 2); return static_cast<float>(x); }

TEST(SimIsa, FloatModifiersPackingAndConversions) {
  Inputs in = float_inputs(3);
  check_float_lanes("fma_f32_mods", in, [](u32 a, u32 b, u32 c) { return U(std::fma(-std::fabs(F(a)), F(b), -F(c))); });
  check_float_lanes("mul_f32_omod", in, [](u32 a, u32 b, u32) { return U(F(a) * F(b) * 2.0f); });
  check_float_lanes("add_f32_clamp", in, [](u32 a, u32 b, u32) {
    float r = F(a) + F(b);
    return U(std::isnan(r) ? 0.0f : r <= 0.0f ? 0.0f : r > 1.0f ? 1.0f : r); });
  check_float_lanes("sub_f32_div2", in, [](u32 a, u32 b, u32) { return U((F(a) - F(b)) * 0.5f); });
  check_float_lanes("med3_f32", in, [](u32 a, u32 b, u32 c) {
    float x = F(a), y = F(b), z = F(c);
    if (std::isnan(x) || std::isnan(y) || std::isnan(z)) return U(std::fmin(std::fmin(x, y), z));
    return U(std::fmax(std::fmin(x, y), std::fmin(std::fmax(x, y), z))); });
  check_float_lanes("max3_f32", in, [](u32 a, u32 b, u32 c) { return U(std::fmax(std::fmax(F(a), F(b)), F(c))); });
  check_float_lanes("pack_b32_f16", in, [](u32 a, u32 b, u32) { return (a & 0xffffu) | (b << 16); });
  check_float_lanes("pack_b32_f16_opsel", in, [](u32 a, u32 b, u32) { return (a >> 16) | (((b >> 16) ^ 0x8000u) << 16); });
  check_float_lanes("cvt_f16_f32", in, [](u32 a, u32, u32) { return f16_rne(F(a)); });
  check_float_lanes("cvt_pkrtz", in, [](u32 a, u32 b, u32) { return f16_rtz(a) | (f16_rtz(b) << 16); });
  check_float_lanes("cvt_f32_f16", in, [](u32 a, u32, u32) { return U(f16_to_f32(a & 0xffff)); });
  check_float_lanes("cvt_u32_f32", in, [](u32 a, u32, u32) {
    float f = F(a);
    if (std::isnan(f) || f <= 0) return 0u;
    return f >= 4294967296.0f ? 0xffffffffu : static_cast<u32>(f); });
  check_float_lanes("cvt_i32_f32", in, [](u32 a, u32, u32) {
    float f = F(a);
    if (std::isnan(f)) return 0u;
    if (f >= 2147483648.0f) return 0x7fffffffu;
    if (f < -2147483648.0f) return 0x80000000u;
    return static_cast<u32>(static_cast<i32>(f)); });
  check_float_lanes("cvt_f32_ubyte2", in, [](u32 a, u32, u32) { return U(static_cast<float>((a >> 16) & 0xff)); });
  check_float_lanes("rndne_f32", in, [](u32 a, u32, u32) { return U(std::nearbyint(F(a))); });
  check_float_lanes("sqrt_f32", in, [](u32 a, u32, u32) { return flush32(U(std::sqrt(F(flush32(a))))); });
  check_float_lanes("mul_f32_inline_inv2pi", in, [](u32 a, u32, u32) { return U(F(0x3e22f983u) * F(a)); });
  Inputs ld = in;
  for (std::size_t l = 0; l < 64; ++l) ld.b[l] = static_cast<u32>(static_cast<i32>(l % 41) - 20);
  ld.b[3] = 300;
  ld.b[4] = static_cast<u32>(-300);
  check_float_lanes("ldexp_f32", ld, [](u32 a, u32 b, u32) { return U(std::ldexp(F(a), static_cast<i32>(b))); });
}

TEST(SimIsa, ComparesClassAndCndmask) {
  Inputs in = float_inputs(4);
  check_lanes("cndmask_mods", in, [](u32 a, u32 b, u32 c) { return a > b ? (a & 0x7fffffffu) : (c ^ 0x80000000u); });
  check_lanes("cmp_u_f32", in, [](u32 a, u32 b, u32) { return u32{std::isnan(F(a)) || std::isnan(F(b))}; });
  check_lanes("cmp_nlt_f32", in, [](u32 a, u32 b, u32) { return u32{!(F(a) < F(b))}; });
  Inputs cls = in;
  for (std::size_t l = 0; l < 64; ++l) cls.b[l] = random_u32(64, 77)[l] & 0x3ff;
  cls.a[7] = 0x7f800001u;  // signalling NaN
  check_lanes("cmp_class_f32", cls, [](u32 a, u32 b, u32) {
    float f = F(a);
    int k;
    if (std::isnan(f)) k = (a & 0x00400000u) ? 1 : 0;
    else if (std::isinf(f)) k = f < 0 ? 2 : 9;
    else if (f == 0) k = std::signbit(f) ? 5 : 6;
    else if (std::fpclassify(f) == FP_SUBNORMAL) k = f < 0 ? 4 : 7;
    else k = f < 0 ? 3 : 8;
    return (b >> k) & 1u; });
  Inputs iin = int_inputs(5);
  check_lanes("cmpx_write", iin, [](u32 a, u32 b, u32 c) { return a < b ? 0x77u : c; });
}

TEST(SimIsa, SixtyFourBitAndCarries) {
  Inputs in = int_inputs(6);
  auto o = run("mad_u64_u32", in, 192);
  for (std::size_t l = 0; l < 64; ++l) {
    u64 add = (u64{in.c[l]} << 32) | in.c[l];
    __extension__ unsigned __int128 r = static_cast<unsigned __int128>(u64{in.a[l]} * in.b[l]) + add;
    EXPECT_EQ(o[3 * l], static_cast<u32>(r)) << l;
    EXPECT_EQ(o[3 * l + 1], static_cast<u32>(static_cast<u64>(r) >> 32)) << l;
    EXPECT_EQ(o[3 * l + 2], static_cast<u32>(r >> 64)) << l;
  }
  o = run("mad_i64_i32", in, 192);
  for (std::size_t l = 0; l < 64; ++l) {
    i64 add = static_cast<i64>((u64{in.c[l]} << 32) | in.b[l]);
    i128 r = static_cast<i128>(static_cast<i64>(static_cast<i32>(in.a[l])) * static_cast<i32>(in.b[l])) + add;
    EXPECT_EQ(o[3 * l], static_cast<u32>(r)) << l;
    EXPECT_EQ(o[3 * l + 1], static_cast<u32>(static_cast<u64>(r) >> 32)) << l;
    EXPECT_EQ(o[3 * l + 2], static_cast<u32>((r >> 64) & 1)) << l;
  }
  o = run("lshl_add_u64", in, 128);
  for (std::size_t l = 0; l < 64; ++l) {
    u64 x = (u64{in.b[l]} << 32) | in.a[l], y = (u64{in.a[l]} << 32) | in.c[l];
    u64 r = (x << 3) + y;
    EXPECT_EQ(o[2 * l], static_cast<u32>(r));
    EXPECT_EQ(o[2 * l + 1], static_cast<u32>(r >> 32));
  }
  o = run("add_co_chain", in, 128);
  for (std::size_t l = 0; l < 64; ++l) {
    u64 lo = u64{in.a[l]} + in.b[l];
    EXPECT_EQ(o[2 * l], static_cast<u32>(lo));
    EXPECT_EQ(o[2 * l + 1], static_cast<u32>(in.c[l] + in.a[l] + (lo >> 32)));
  }
  o = run("sub_co_chain", in, 128);
  for (std::size_t l = 0; l < 64; ++l) {
    u32 borrow = in.b[l] > in.a[l] ? 1u : 0u;
    EXPECT_EQ(o[2 * l], in.a[l] - in.b[l]);
    EXPECT_EQ(o[2 * l + 1], in.c[l] - in.a[l] - borrow);
  }
}

TEST(SimIsa, PackedF32) {
  Inputs in = float_inputs(7);
  auto o = run("pk_mul_f32_opsel", in, 128);
  for (std::size_t l = 0; l < 64; ++l) {
    u32 ex = U(F(in.a[l]) * F(in.c[l])), ey = U(F(in.b[l]) * F(in.c[l]));
    EXPECT_TRUE(o[2 * l] == ex || (is_nan(ex) && is_nan(o[2 * l]))) << l;
    EXPECT_TRUE(o[2 * l + 1] == ey || (is_nan(ey) && is_nan(o[2 * l + 1]))) << l;
  }
  o = run("pk_fma_f32_neg", in, 128);
  for (std::size_t l = 0; l < 64; ++l) {
    float a = F(in.a[l]), b = F(in.b[l]), c = F(in.c[l]);
    u32 ex = U(std::fma(b, c, -b)), ey = U(std::fma(-b, a, c));
    EXPECT_TRUE(o[2 * l] == ex || (is_nan(ex) && is_nan(o[2 * l]))) << l;
    EXPECT_TRUE(o[2 * l + 1] == ey || (is_nan(ey) && is_nan(o[2 * l + 1]))) << l;
  }
  o = run("pk_mov_b32", in, 128);
  for (std::size_t l = 0; l < 64; ++l) {
    EXPECT_EQ(o[2 * l], in.b[l]);
    EXPECT_EQ(o[2 * l + 1], in.c[l]);
  }
}

TEST(SimIsa, Sdwa) {
  Inputs in = int_inputs(8);
  check_lanes("sdwa_add_sel", in, [](u32 a, u32 b, u32) { return ((a >> 8) & 0xff) + (b >> 16); });
  check_lanes("sdwa_sext", in, [](u32 a, u32 b, u32) { return sx(a & 0xff, 8) + (b >> 24); });
  check_lanes("sdwa_preserve", in, [](u32 a, u32 b, u32 c) { return (c & ~0x00ff0000u) | (((a & b) & 0xff) << 16); });
  check_lanes("sdwa_pad_word1", in, [](u32 a, u32 b, u32) { return (((a & 0xffff) | ((b >> 16) & 0xff)) & 0xffff) << 16; });
  check_lanes("sdwa_dst_sext", in, [](u32 a, u32 b, u32) {
    u32 f = (a - b) & 0xff;
    return (f << 8) | ((f & 0x80) ? 0xffff0000u : 0u); });
  check_lanes("sdwa_vop1", in, [](u32 a, u32, u32) { return U(static_cast<float>(a >> 16)); });
  check_lanes("sdwa_vopc", in, [](u32 a, u32 b, u32) { return u32{(a & 0xff) == ((b >> 8) & 0xff)}; });
}

// DPP host model: source lane per control, invalid lanes, row/bank masks, bound_ctrl.
std::vector<u32> dpp_model(const std::vector<u32>& src, const std::vector<u32>& old,
                           const std::function<int(int)>& source, u32 row_mask, u32 bank_mask,
                           bool bound_ctrl) {
  std::vector<u32> r(64);
  for (int l = 0; l < 64; ++l) {
    auto u = static_cast<std::size_t>(l);
    r[u] = old[u];
    if (!((row_mask >> (l / 16)) & 1) || !((bank_mask >> ((l % 16) / 4)) & 1)) continue;
    int s = source(l);
    if (s >= 0) r[u] = src[static_cast<std::size_t>(s)];
    else if (bound_ctrl) r[u] = 0;
  }
  return r;
}

TEST(SimIsa, Dpp) {
  Inputs in = int_inputs(9);
  struct C {
    const char* kernel;
    std::function<int(int)> source;
    u32 row_mask, bank_mask;
    bool bound;
  };
  const C cases[] = {
      {"dpp_quad_perm", [](int l) { const int p[4] = {3, 0, 2, 1}; return (l & ~3) | p[l & 3]; }, 0xf, 0xf, false},
      {"dpp_row_shl", [](int l) { return (l % 16) + 3 < 16 ? l + 3 : -1; }, 0xf, 0xf, false},
      {"dpp_row_shr_bound", [](int l) { return (l % 16) >= 2 ? l - 2 : -1; }, 0xf, 0xf, true},
      {"dpp_row_ror", [](int l) { return (l & ~15) | (((l % 16) - 5 + 16) % 16); }, 0xf, 0xf, false},
      {"dpp_row_mirror", [](int l) { return (l & ~15) | (15 - l % 16); }, 0xf, 0xf, false},
      {"dpp_row_half_mirror", [](int l) { return (l & ~7) | (7 - l % 8); }, 0xf, 0xf, false},
      {"dpp_row_bcast15", [](int l) { return l < 16 ? -1 : (l & ~15) - 1; }, 0xa, 0xf, false},
      {"dpp_row_bcast31", [](int l) { return l < 32 ? -1 : 31; }, 0xc, 0xf, false},
      {"dpp_wave_shr", [](int l) { return l == 0 ? -1 : l - 1; }, 0xf, 0xf, false},
      {"dpp_wave_rol", [](int l) { return (l + 1) % 64; }, 0xf, 0xf, false},
      {"dpp_masks", [](int l) { return (l & ~3) | 1; }, 0x5, 0x6, false},
  };
  for (const auto& c : cases) {
    auto o = run(c.kernel, in);
    auto e = dpp_model(in.a, in.c, c.source, c.row_mask, c.bank_mask, c.bound);
    for (std::size_t l = 0; l < 64; ++l) EXPECT_EQ(o[l], e[l]) << c.kernel << " lane " << l;
  }
  auto o = run("dpp_add", in);
  for (std::size_t l = 0; l < 64; ++l) {
    u32 e = (l % 16) >= 1 ? in.a[l - 1] + in.b[l] : in.c[l];
    EXPECT_EQ(o[l], e) << "dpp_add lane " << l;
  }
}

TEST(SimIsa, LaneOperations) {
  Inputs in = int_inputs(10);
  auto o = run("lane_ops", in, 256);
  for (std::size_t l = 0; l < 64; ++l) {
    EXPECT_EQ(o[4 * l], in.a[0]);
    EXPECT_EQ(o[4 * l + 1], in.a[13]);
    EXPECT_EQ(o[4 * l + 2], l == 7 ? in.a[13] : in.b[l]);
    EXPECT_EQ(o[4 * l + 3], l);
  }
}

TEST(SimIsa, ScalarAlu) {
  const u32 xs[] = {0x12345678u, 0x80000001u, 0xfffffff0u, 5u};
  const u32 ys[] = {0x00080004u, 0x000c0010u, 0x0005001bu, 0x7fffffffu};
  const u64 zs[] = {0x0123456789abcdefull, 0x8000000000000000ull, 0ull, 0xffffffff00000000ull};
  for (int k = 0; k < 4; ++k) {
    u32 x = xs[k], y = ys[k];
    u64 z = zs[k];
    std::vector<u32> o(18, 0);
    executor().run(isa_co(), dispatch("scalar_ops", {1, 1, 1}, {64, 1, 1}, {out(o), val(x), val(y), val(z)}));
    SCOPED_TRACE(k);
    EXPECT_EQ(o[0], bfe(x, y & 31, (y >> 16) & 0x7f, false));
    EXPECT_EQ(o[1], bfe(x, y & 31, (y >> 16) & 0x7f, true));
    EXPECT_EQ(o[2], (x << 2) + y);
    EXPECT_EQ(o[3], static_cast<u32>((u64{x} * y) >> 32));
    EXPECT_EQ(o[4], static_cast<u32>(static_cast<u64>(static_cast<i64>(static_cast<i32>(x)) * static_cast<i32>(y)) >> 32));
    // s_absdiff_i32: the difference wraps to 32 bits before the absolute value (CDNA3 ISA guide
    // 12.1 pseudo-code and its examples, e.g. (0x80000000, 1) => 0x7fffffff).
    const u32 d = x - y;
    EXPECT_EQ(o[5], static_cast<i32>(d) < 0 ? 0u - d : d);
    EXPECT_EQ(o[6], x < y ? x : y);
    EXPECT_EQ(o[7], (x & 0xffff) | (y & 0xffff0000u));
    u32 xx = static_cast<i32>(x) < 0 ? ~x : x;
    EXPECT_EQ(o[8], (x == 0 || x == ~0u) ? ~0u : static_cast<u32>(std::countl_zero(xx)));
    EXPECT_EQ(o[9], z ? static_cast<u32>(std::countr_zero(z)) : ~0u);
    EXPECT_EQ(o[10], static_cast<u32>(std::popcount(z)));
    EXPECT_EQ(o[11], 0xffff8001u + 0x7fffu);
    u32 off = y & 63, w = (y >> 16) & 0x7f;
    u64 f = w == 0 ? 0 : (w >= 64 ? z >> off : (z >> off) & ((1ull << w) - 1));
    EXPECT_EQ(o[12], static_cast<u32>(f));
    EXPECT_EQ(o[13], static_cast<u32>(f >> 32));
    u64 sh = static_cast<u64>(static_cast<i64>(z) >> (x & 63));
    EXPECT_EQ(o[14], static_cast<u32>(sh));
    EXPECT_EQ(o[15], static_cast<u32>(sh >> 32));
    u64 rev = 0;
    for (int i = 0; i < 64; ++i) rev |= ((z >> i) & 1) << (63 - i);
    EXPECT_EQ(o[16], static_cast<u32>(rev));
    EXPECT_EQ(o[17], static_cast<u32>(rev >> 32));
  }
  const u32 pairs[][2] = {{0xffffffffu, 1u}, {0x7fffffffu, 1u}, {5u, 7u}, {0x80000000u, 0x80000000u}};
  for (const auto& p : pairs) {
    std::vector<u32> o(4, 0);
    executor().run(isa_co(), dispatch("scalar_carry", {1, 1, 1}, {64, 1, 1}, {out(o), val(p[0]), val(p[1])}));
    u64 s = u64{p[0]} + p[1];
    EXPECT_EQ(o[0], static_cast<u32>(s));
    EXPECT_EQ(o[1], static_cast<u32>(s >> 32));
    i64 si = static_cast<i64>(static_cast<i32>(p[0])) + static_cast<i32>(p[1]);
    EXPECT_EQ(o[2], (si > INT32_MAX || si < INT32_MIN) ? 1u : 0u);
    EXPECT_EQ(o[3], p[1] > p[0] ? 1u : 0u);
  }
}

TEST(SimIsa, ModeRegister) {
  Inputs in = float_inputs(11);
  in.a[0] = as_u(1e-20f);
  in.b[0] = as_u(1e-20f);  // product 1e-40: a denormal, flushed
  in.a[1] = 0x00400000u;   // denormal input, flushed
  in.b[1] = as_u(2.0f);
  check_float_lanes("mode_flush", in, [](u32 a, u32 b, u32) { return flush32(U(F(flush32(a)) * F(flush32(b)))); });
}

TEST(SimIsa, LdsOperations) {
  Inputs in = int_inputs(12);
  auto o = run("lds_ops", in, 320);
  u32 prefix = 0;
  for (std::size_t l = 0; l < 64; ++l) {
    EXPECT_EQ(o[5 * l], in.b[l ^ 1]) << l;
    EXPECT_EQ(o[5 * l + 1], in.a[l ^ 1]) << l;
    EXPECT_EQ(o[5 * l + 2], prefix) << l;  // lanes complete in lane order; LDS starts zeroed
    prefix += in.c[l] & 0xff;
    EXPECT_EQ(o[5 * l + 3], in.a[63 - l]) << l;
    EXPECT_EQ(o[5 * l + 4], sx(in.a[l] & 0xff, 8)) << l;
  }
}

TEST(SimIsa, GlobalSubDwordAndAtomics) {
  Inputs x = int_inputs(13);
  const Inputs& in = x;
  std::vector<u32> o(400, 0);
  o[201] = 0xffffffffu;
  executor().run(isa_co(), dispatch("global_ops", {1, 1, 1}, {64, 1, 1}, {testing::in(x.a), testing::in(x.b), testing::in(x.c), out(o)}));
  const auto* ab = reinterpret_cast<const std::uint8_t*>(in.a.data());
  const auto* bs = reinterpret_cast<const std::int16_t*>(in.b.data());
  u32 mx = 0, mn = 0xffffffffu, xo = 0;
  u64 sum = 0;
  for (std::size_t l = 0; l < 64; ++l) {
    EXPECT_EQ(o[l], static_cast<u32>(static_cast<std::int8_t>(ab[l * 3])) + static_cast<u32>(bs[l]) * 3u) << l;
    EXPECT_EQ(o[128 + l], 1u);
    EXPECT_EQ(o[256 + l], l);  // CAS chain: lanes complete in lane order
    mx = std::max(mx, in.c[l]);
    mn = std::min(mn, in.c[l]);
    xo ^= in.c[l];
    sum += u64{in.c[l]} << 16;
    EXPECT_EQ(reinterpret_cast<const std::uint16_t*>(&o[320])[l], static_cast<std::uint16_t>(in.a[l] >> 5));
  }
  for (std::size_t j = 0; j < 8; ++j) EXPECT_EQ(o[64 + j], 8u);
  EXPECT_EQ(o[200], mx);
  EXPECT_EQ(o[201], mn);
  EXPECT_EQ(o[202], xo);
  EXPECT_EQ(o[204] | (u64{o[205]} << 32), sum);
  EXPECT_EQ(o[210], 64u);
}

TEST(SimIsa, ScalarCompareSelectBranchAndWideLoad) {
  std::vector<u32> table(64);
  for (std::size_t i = 0; i < 64; ++i) table[i] = static_cast<u32>(i * i + 3);
  const i32 xs[] = {-7, 5, 100, -2147483647, 0};
  const i32 ys[] = {3, 5, -100, 31, 0};
  for (int k = 0; k < 5; ++k) {
    i32 x = xs[k], y = ys[k];
    std::vector<u32> o(12, 0);
    executor().run(isa_co(), dispatch("scalar_more", {1, 1, 1}, {64, 1, 1}, {out(o), in(table), val(x), val(y)}));
    SCOPED_TRACE(k);
    u32 ux = static_cast<u32>(x), uy = static_cast<u32>(y);
    EXPECT_EQ(o[0], x < 0 ? 0u - ux : ux);
    EXPECT_EQ(o[1], x >= y ? 1u : 0u);
    EXPECT_EQ(o[2], ux >= uy ? 1u : 0u);
    EXPECT_EQ(o[3], x < y ? 1u : 0u);
    EXPECT_EQ(o[4], ux << (uy & 31));
    EXPECT_EQ(o[5], static_cast<u32>(std::min(x, y)));
    EXPECT_EQ(o[6], ux | uy);
    EXPECT_EQ(o[7], ux - uy);
    EXPECT_EQ(o[8], x > y ? 11u : 22u);
    EXPECT_EQ(o[9], table[16] + table[21] + table[31]);
    EXPECT_EQ(o[10], ux == uy ? 0xffffffffu : 0u);
    EXPECT_EQ(o[11], ux == uy ? 0xffffffffu : 0u);
  }
}

// The forms the extended attention kernels added: s_max_i32, s_cmp_gt_i32, s_cmp_eq_u64 and the
// VOPC v_cmp_le_u32, on signed edges, equal values and 64-bit values differing in the high half.
TEST(SimIsa, VarlenKernelForms) {
  std::vector<u32> b(64);
  for (std::size_t l = 0; l < 64; ++l) b[l] = static_cast<u32>(l * 0x9E3779B9u);
  const i32 xs[] = {-7, 5, 100, -2147483647, 0};
  const i32 ys[] = {3, 5, -100, 31, 0};
  const std::uint64_t ps[] = {1, 0x100000005ull, 7, 0xFFFFFFFF00000000ull, 0};
  const std::uint64_t qs[] = {1, 0x5ull, 7, 0xFFFFFFFF00000000ull, 1};
  for (int k = 0; k < 5; ++k) {
    std::vector<u32> o(68, 0);
    executor().run(isa_co(), dispatch("varlen_kernel_forms", {1, 1, 1}, {64, 1, 1},
                                      {out(o), in(b), val(xs[k]), val(ys[k]), val(ps[k]), val(qs[k])}));
    SCOPED_TRACE(k);
    EXPECT_EQ(o[0], static_cast<u32>(std::max(xs[k], ys[k])));
    EXPECT_EQ(o[1], xs[k] > ys[k] ? 1u : 0u);
    EXPECT_EQ(o[2], ps[k] == qs[k] ? 1u : 0u);
    for (std::size_t l = 0; l < 64; ++l) EXPECT_EQ(o[4 + l], b[l] <= static_cast<u32>(xs[k]) ? 1u : 0u) << l;
  }
}

TEST(SimIsa, UnsignedShortLoadsAndCompares) {
  Inputs in = float_inputs(14);
  Inputs iv = int_inputs(15);
  in.a = iv.a;
  auto o = run("loads_and_compares", in, 256);
  const auto* us = reinterpret_cast<const std::uint16_t*>(in.a.data());
  for (std::size_t l = 0; l < 64; ++l) {
    EXPECT_EQ(o[4 * l], u32{us[l * 2 + 1]} * 5u) << l;
    u32 ge = static_cast<i32>(in.b[l]) >= static_cast<i32>(in.c[l]) ? 1u : 0u;
    EXPECT_EQ(o[4 * l + 1], ge | (ge << 1)) << l;
    EXPECT_EQ(o[4 * l + 2], u32{!(F(in.b[l]) == F(in.c[l]))}) << l;
    const u32 ordered = std::isnan(F(in.b[l])) ? 0u : 1u;
    const u32 eq = in.b[l] == ((in.c[l] & 3u) ? in.c[l] : in.b[l]) ? 1u : 0u;  // equal in about 1/4 of the lanes
    EXPECT_EQ(o[4 * l + 3], ordered | (ordered << 1) | (eq << 2)) << l;
  }
}

// The forms of the attention kernel's non-finite paths: u16 and f32 compares into VCC, scalar
// branches on SCC and VCC.
TEST(SimIsa, CompareAndBranchForms) {
  Inputs in = float_inputs(16);
  in.a = int_inputs(17).a;
  auto o = run("compares_and_branches", in, 384);
  std::uint64_t eq = 0, lg = 0, neq = 0;
  for (std::size_t l = 0; l < 64; ++l) {
    const u32 y = (in.c[l] & 3u) ? in.b[l] : ((in.a[l] & 0xffffu) | (~in.a[l] & 0xffff0000u));
    const bool e = (in.a[l] & 0xffffu) == (y & 0xffffu);
    const float b = F(in.b[l]), c = F(in.c[l]);
    const bool ordered = !std::isnan(b) && !std::isnan(c);
    eq |= std::uint64_t{e} << l;
    lg |= std::uint64_t{ordered && b != c} << l;
    neq |= std::uint64_t{!(b == c)} << l;
    EXPECT_EQ(o[4 * l], e ? 3u : 0u) << l;
    EXPECT_EQ(o[4 * l + 1], u32{ordered && b != c} | (u32{!(b == c)} << 1)) << l;
    const u32 a16 = in.a[l] & 0xffffu, b16 = in.b[l] & 0xffffu, c16 = in.c[l] & 0xffffu;
    const float z = F((in.c[l] & 4u) ? in.c[l] : in.b[l]);
    EXPECT_EQ(o[256 + 2 * l], std::max(a16, b16)) << l;
    EXPECT_EQ(o[256 + 2 * l + 1], std::max({a16, b16, c16}) | (u32{b == z} << 16)) << l;
  }
  // Both directions of each branch occur only if these hold for the inputs.
  ASSERT_NE(eq, 0u);
  ASSERT_NE(static_cast<u32>(lg), static_cast<u32>(neq));
  for (std::size_t l = 0; l < 64; ++l) {
    EXPECT_EQ(o[4 * l + 2], 11u | (22u << 8)) << l;  // lo(lg) != lo(neq), lo(lg) == lo(lg)
    EXPECT_EQ(o[4 * l + 3], (eq == 0 ? 33u : 44u) | (55u << 8)) << l;
  }
}

// ---- v_dot2_f32_f16 / v_dot2c_f32_f16: reference = the exact a0*b0 + a1*b1 + c (binary128,
// exact for these inputs' exponent spread, and any residual is far below the f32 rounding
// point) rounded once to f32; the Sequential parameter is checked against two f32 roundings.
__extension__ typedef __float128 f128;
double f16_value(u32 h) {  // test-local f16 decoder
  h &= 0xffff;
  const double sign = (h >> 15) ? -1.0 : 1.0;
  const int e = static_cast<int>((h >> 10) & 31);
  const int m = static_cast<int>(h & 0x3ff);
  if (e == 31) return m ? std::numeric_limits<double>::quiet_NaN() : sign * std::numeric_limits<double>::infinity();
  if (e == 0) return sign * std::ldexp(m, -24);
  return sign * std::ldexp(1024 + m, e - 25);
}
u32 dot2_model(u32 a, u32 b, u32 c, bool once) {
  const double a0 = f16_value(a), a1 = f16_value(a >> 16), b0 = f16_value(b), b1 = f16_value(b >> 16);
  const float cf = as_f(c);
  if (once) {
    f128 x = static_cast<f128>(a0) * static_cast<f128>(b0) + static_cast<f128>(a1) * static_cast<f128>(b1) + static_cast<f128>(cf);
    return as_u(static_cast<float>(x));
  }
  float s1 = static_cast<float>(static_cast<f128>(cf) + static_cast<f128>(a0) * static_cast<f128>(b0));
  return as_u(static_cast<float>(static_cast<f128>(s1) + static_cast<f128>(a1) * static_cast<f128>(b1)));
}
TEST(SimIsa, Dot2F32F16) {
  Inputs in = float_inputs(31);
  // Cancellation cases: a0*b0 = -(a1*b1) with a small c, and c = -(a0*b0) with a tiny a1*b1.
  in.a[60] = 0x3c00u | (0x3c01u << 16); in.b[60] = 0x4000u | (0xc000u << 16); in.c[60] = as_u(1e-8f);
  in.a[61] = 0x3c01u | (0x0001u << 16); in.b[61] = 0x3c01u | (0x0001u << 16); in.c[61] = as_u(-1.0019531f);
  in.a[62] = 0x7bffu | (0x7bffu << 16); in.b[62] = 0x7bffu | (0x7bffu << 16); in.c[62] = as_u(-3.4e38f);
  check_float_lanes("dot2_f32_f16", in, [](u32 a, u32 b, u32 c) { return dot2_model(a, b, c, true); });
  check_float_lanes("dot2c_f32_f16", in, [](u32 a, u32 b, u32 c) { return dot2_model(a, b, c, true); });
  set_dot2_rounding(Dot2Rounding::Sequential);
  check_float_lanes("dot2_f32_f16", in, [](u32 a, u32 b, u32 c) { return dot2_model(a, b, c, false); });
  set_dot2_rounding(Dot2Rounding::Once);
}

// ---- fp8/bf8 conversions: the byte/word placement is computed here; the per-value rounding is
// numerics/fp8.hpp's (tested on its own).
TEST(SimIsa, Fp8Conversions) {
  using numerics::Fp8Kind;
  Inputs in = float_inputs(41);
  auto r = random_u32(64, 43);
  for (std::size_t l = 0; l < 64; ++l) {  // values in the fp8 range, some beyond it
    if (l >= 20 && l < 40) in.a[l] = (r[l] & 0x807fffffu) | ((118u + r[l] % 20u) << 23);
  }
  auto rne = [](u32 x, Fp8Kind k) { return u32{numerics::fp8_from_f32_rne(as_f(x), k)}; };
  for (Fp8Kind k : {Fp8Kind::Fp8, Fp8Kind::Bf8}) {
    const std::string n = k == Fp8Kind::Fp8 ? "fp8" : "bf8";
    check_lanes("cvt_pk_" + n + "_f32_w0", in, [&](u32 a, u32 b, u32 c) {
      return (c & 0xffff0000u) | rne(a, k) | (rne(b, k) << 8); });
    check_lanes("cvt_pk_" + n + "_f32_w1", in, [&](u32 a, u32 b, u32 c) {
      return (c & 0x0000ffffu) | (rne(a, k) << 16) | (rne(b, k) << 24); });
  }
  auto sr = [](u32 x, u32 rnd, Fp8Kind k) { return u32{numerics::fp8_from_f32_sr(as_f(x), rnd, k)}; };
  const int bytes[] = {0, 1, 2};
  for (int byte : bytes)
    check_lanes("cvt_sr_fp8_f32_b" + std::to_string(byte), in, [&](u32 a, u32 b, u32 c) {
      const int sh = 8 * byte;
      return (c & ~(0xffu << sh)) | (sr(a, b, Fp8Kind::Fp8) << sh); });
  check_lanes("cvt_sr_bf8_f32_b3", in, [&](u32 a, u32 b, u32 c) {
    return (c & 0x00ffffffu) | (sr(a, b, Fp8Kind::Bf8) << 24); });
  // Decoding: every byte value appears in some lane and byte position.
  Inputs d = in;
  for (std::size_t l = 0; l < 64; ++l) d.a[l] = static_cast<u32>(4 * l) | static_cast<u32>(4 * l + 1) << 8 | static_cast<u32>(4 * l + 2) << 16 | static_cast<u32>(4 * l + 3) << 24;
  auto dec = [](u32 byte, Fp8Kind k) { return as_u(numerics::f32_from_fp8(static_cast<std::uint8_t>(byte), k)); };
  check_float_lanes("cvt_f32_fp8_b0", d, [&](u32 a, u32, u32) { return dec(a & 0xff, Fp8Kind::Fp8); });
  check_float_lanes("cvt_f32_bf8_b0", d, [&](u32 a, u32, u32) { return dec(a & 0xff, Fp8Kind::Bf8); });
  check_float_lanes("cvt_f32_fp8_b2", d, [&](u32 a, u32, u32) { return dec((a >> 16) & 0xff, Fp8Kind::Fp8); });
  check_float_lanes("cvt_f32_bf8_b3", d, [&](u32 a, u32, u32) { return dec(a >> 24, Fp8Kind::Bf8); });
  auto o = run("cvt_pk_f32_fp8_w0", d, 128);
  auto o2 = run("cvt_pk_f32_bf8_w1", d, 128);
  for (std::size_t l = 0; l < 64; ++l) {
    auto same = [](u32 x, u32 y) { return x == y || (is_nan(x) && is_nan(y)); };
    EXPECT_TRUE(same(o[2 * l], dec(d.a[l] & 0xff, Fp8Kind::Fp8))) << l;
    EXPECT_TRUE(same(o[2 * l + 1], dec((d.a[l] >> 8) & 0xff, Fp8Kind::Fp8))) << l << std::hex << " got " << o[2 * l + 1] << " want " << dec((d.a[l] >> 8) & 0xff, Fp8Kind::Fp8) << " first " << o[2 * l];
    EXPECT_TRUE(same(o2[2 * l], dec((d.a[l] >> 16) & 0xff, Fp8Kind::Bf8))) << l;
    EXPECT_TRUE(same(o2[2 * l + 1], dec(d.a[l] >> 24, Fp8Kind::Bf8))) << l;
  }
}

// ---- MUBUF: raw buffers (stride 0). Expected values from the ISA guide's rules written out
// here: address = base + soffset + voffset + inst_offset; out of range when
// voffset + inst_offset (+ 4 per further dword) >= num_records: loads give 0, stores drop.
TEST(SimIsa, BufferLoadsStoresAndOutOfRange) {
  std::vector<u32> src(64 + 8);
  auto r = random_u32(src.size(), 77);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = r[i];
  // Dwords 0..39 fully inside, dword 40 half inside (out: a piece must end within num_records;
  // simulator/README.md "Buffer range checking", which also counts soffset and inst offset).
  const u32 n_src = 4 * 40 + 2;
  const u32 n_dst = 4 * 50;
  std::vector<u32> dst(128, 0xabababab), o(64 * 8, 0xdeadbeef);
  executor().run(isa_co(), dispatch("buffer_ops", {1, 1, 1}, {64, 1, 1},
                                    {in(src), out(dst), out(o), val(n_src), val(n_dst)}));
  auto bytes = reinterpret_cast<const std::uint8_t*>(src.data());
  auto byte_at = [&](u32 off) { return off + 1 <= n_src ? u32{bytes[off]} : 0u; };
  auto fits = [&](u32 rel, u32 size) { return rel + size <= n_src; };
  for (u32 t = 0; t < 64; ++t) {
    const u32* q = &o[8 * t];
    const u32 d0 = fits(4 * t, 4) ? src[t] : 0u;
    EXPECT_EQ(q[0], d0) << "dword lane " << t;
    EXPECT_EQ(q[1], byte_at(3 * t + 1)) << "ubyte lane " << t;
    const u32 sh = fits(2 * t, 2) ? static_cast<u32>(static_cast<i32>(static_cast<std::int16_t>(bytes[2 * t] | (bytes[2 * t + 1] << 8)))) : 0u;
    EXPECT_EQ(q[2], sh) << "sshort lane " << t;
    EXPECT_EQ(q[3], static_cast<u32>(static_cast<i32>(static_cast<std::int8_t>(byte_at(3 * t + 2))))) << "sbyte lane " << t;
    EXPECT_EQ(q[4], fits(8 * t, 4) ? src[2 * t] : 0u) << "dwordx2.x lane " << t;
    EXPECT_EQ(q[5], fits(8 * t + 4, 4) ? src[2 * t + 1] : 0u) << "dwordx2.y lane " << t;
    EXPECT_EQ(q[6], fits(4 * t + 8, 4) ? src[t + 2] : 0u) << "soffset lane " << t;  // soffset 8 counts
    EXPECT_EQ(q[7], fits(4 * t + 16, 4) ? src[t + 4] : 0u) << "lds lane " << t;
  }
  for (u32 i = 0; i < 64; ++i) {
    const u32 d0 = fits(4 * i, 4) ? src[i] : 0u;
    EXPECT_EQ(dst[i], 4 * i + 4 <= n_dst ? d0 + 1 : 0xababababu) << "store dword " << i;
  }
  // buffer_store_short at 256 + 2t: only below n_dst = 200: all dropped.
  for (u32 i = 64; i < 128; ++i) EXPECT_EQ(dst[i], 0xababababu) << "store short dword " << i;
}
TEST(SimIsa, BufferBuiltins) {
  std::vector<u32> src(64);
  for (u32 i = 0; i < 64; ++i) src[i] = 1000 + i;
  std::vector<u32> dst(64, 7), o(64, 0xdeadbeef);
  const u32 n_src = 4 * 30, n_dst = 4 * 20;
  executor().run(isa_co(), dispatch("buffer_builtin", {1, 1, 1}, {64, 1, 1},
                                    {in(src), out(dst), out(o), val(n_src), val(n_dst)}));
  for (u32 t = 0; t < 64; ++t) {
    const u32 x = t < 30 ? 1000 + t : 0u;
    EXPECT_EQ(o[t], x) << t;
    EXPECT_EQ(dst[t], t < 20 ? x + 1 : 7u) << t;
  }
}

}  // namespace
}  // namespace cdna::simulator
