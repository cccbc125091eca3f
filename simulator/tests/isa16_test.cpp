// 16-bit instructions (f16 and i16/u16, non-packed and packed) against host models: f16
// results from exact integer arithmetic rounded once to nearest even.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>

#include "simulator/tests/test_util.hpp"

namespace cdna::simulator {
namespace {

using namespace testing;
using u32 = std::uint32_t;
__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

SimulatorExecutor& executor() {
  static SimulatorExecutor e;
  return e;
}

std::vector<u32> run(const std::string& kernel, const std::vector<u32>& a, const std::vector<u32>& b,
                     const std::vector<u32>& c) {
  static auto co = testdata("isa");
  std::vector<u32> o(64, 0xdeadbeef);
  executor().run(co, dispatch(kernel, {1, 1, 1}, {64, 1, 1}, {in(a), in(b), in(c), out(o)}));
  return o;
}

bool nan16(u32 h) { return (h & 0x7fffu) > 0x7c00u; }

// Exact value of an f16 as (integer) * 2^-24.
i128 scaled(u32 h) {
  u32 e = (h >> 10) & 0x1f, f = h & 0x3ff;
  i128 m = e ? (f | 0x400) : f;
  i128 v = e ? m << (e - 1) : m;  // units of 2^-24
  return (h & 0x8000) ? -v : v;
}
// Round (v * 2^-shift_units) given as an integer multiple of 2^-unit to f16, nearest even.
u32 round_f16(i128 v, int unit) {  // value = v * 2^-unit
  if (v == 0) return 0;
  u32 sign = v < 0 ? 0x8000u : 0u;
  u128 m = static_cast<u128>(v < 0 ? -v : v);
  int lead = 127;
  while (!((m >> lead) & 1)) --lead;
  int e = lead - unit;                  // exponent of the leading bit
  int q = std::max(e, -14) - 10;        // quantum exponent
  int sh = q + unit;                    // bits to drop
  u128 r;
  if (sh <= 0) {
    r = m << -sh;
  } else {
    r = m >> sh;
    u128 rem = m & ((u128{1} << sh) - 1);
    u128 half = u128{1} << (sh - 1);
    if (rem > half || (rem == half && (r & 1))) ++r;
  }
  u32 bits = static_cast<u32>(((q + 24) << 10) + r) ;  // (q + 14 + 10) since q = E - 10
  if (e < -14 || r < 1024) bits = static_cast<u32>(r);  // subnormal (or rounds up to min normal)
  else bits = static_cast<u32>((static_cast<u32>(q + 10 + 15) << 10) + static_cast<u32>(r - 1024));
  if (bits >= 0x7c00u) return sign | 0x7c00u;
  return sign | bits;
}
u32 ref_add(u32 a, u32 b) { return round_f16(scaled(a) + scaled(b), 24); }
u32 ref_mul(u32 a, u32 b) { return round_f16(scaled(a) * scaled(b), 48); }
u32 ref_fma(u32 a, u32 b, u32 c) { return round_f16(scaled(a) * scaled(b) + (scaled(c) << 24), 48); }
float f16(u32 h) {
  std::uint16_t x = static_cast<std::uint16_t>(h);
  _Float16 v;
  std::memcpy(&v, &x, 2);
  return static_cast<float>(v);
}

// Random f16 inputs (finite, including subnormals and zeros) in bits 15:0 and 31:16.
std::vector<u32> halves(u32 seed) {
  auto r = random_u32(64, seed);
  for (auto& x : r) {
    u32 lo = x & 0xffffu, hi = x >> 16;
    if ((lo & 0x7c00u) == 0x7c00u) lo &= 0xbfffu;  // no inf/NaN
    if ((hi & 0x7c00u) == 0x7c00u) hi &= 0xbfffu;
    x = lo | (hi << 16);
  }
  return r;
}

void check(const std::string& kernel, const std::vector<u32>& a, const std::vector<u32>& b,
           const std::vector<u32>& c, const std::function<u32(u32, u32, u32)>& model) {
  auto o = run(kernel, a, b, c);
  for (std::size_t l = 0; l < 64; ++l) {
    u32 e = model(a[l], b[l], c[l]);
    bool ok = o[l] == e || (nan16(o[l] & 0xffff) && nan16(e & 0xffff) && (o[l] >> 16) == (e >> 16));
    EXPECT_TRUE(ok) << kernel << " lane " << l << std::hex << " a=" << a[l] << " b=" << b[l]
                    << " c=" << c[l] << " got " << o[l] << " expected " << e;
  }
}

u32 lo(u32 x) { return x & 0xffffu; }
u32 hi(u32 x) { return x >> 16; }
u32 maxh(u32 a, u32 b) { return f16(a) >= f16(b) ? (f16(a) == f16(b) ? ((a & 0x8000u) ? b : a) : a) : b; }
std::int32_t s16(u32 x) { return static_cast<std::int16_t>(static_cast<std::uint16_t>(x)); }

TEST(SimIsa16, F16Arithmetic) {
  auto a = halves(51), b = halves(52), c = halves(53);
  for (std::size_t l = 0; l < 8; ++l) b[l] = a[l] ^ 0x8000u;  // exact cancellation
  check("add_f16", a, b, c, [](u32 x, u32 y, u32) { return ref_add(lo(x), lo(y)); });
  check("sub_f16", a, b, c, [](u32 x, u32 y, u32) { return ref_add(lo(x), lo(y) ^ 0x8000u); });
  check("mul_f16", a, b, c, [](u32 x, u32 y, u32) { return ref_mul(lo(x), lo(y)); });
  check("fma_f16", a, b, c, [](u32 x, u32 y, u32 z) { return ref_fma(lo(x), lo(y), lo(z)); });
  check("fma_f16_opsel", a, b, c, [](u32 x, u32 y, u32 z) { return ref_fma(hi(x), hi(y) ^ 0x8000u, lo(z)); });
  check("max_f16", a, b, c, [](u32 x, u32 y, u32) { return maxh(lo(x), lo(y)); });
  check("min_f16", a, b, c, [](u32 x, u32 y, u32) {
    u32 m = maxh(lo(x), lo(y));
    return m == lo(x) && lo(x) != lo(y) ? lo(y) : (m == lo(y) && lo(x) != lo(y) ? lo(x) : (lo(x) & 0x8000u ? lo(x) : lo(y))); });
}

TEST(SimIsa16, IntegerAndPacked) {
  auto a = random_u32(64, 61), b = random_u32(64, 62), c = random_u32(64, 63);
  check("add_u16", a, b, c, [](u32 x, u32 y, u32) { return (x + y) & 0xffffu; });
  check("sub_u16", a, b, c, [](u32 x, u32 y, u32) { return (x - y) & 0xffffu; });
  check("mul_lo_u16", a, b, c, [](u32 x, u32 y, u32) { return (x * y) & 0xffffu; });
  check("lshlrev_b16", a, b, c, [](u32 x, u32 y, u32) { return (lo(y) << (x & 15)) & 0xffffu; });
  check("ashrrev_i16", a, b, c, [](u32 x, u32 y, u32) { return static_cast<u32>(s16(y) >> (x & 15)) & 0xffffu; });
  check("max_i16", a, b, c, [](u32 x, u32 y, u32) { return s16(x) > s16(y) ? lo(x) : lo(y); });
  check("min_u16", a, b, c, [](u32 x, u32 y, u32) { return std::min(lo(x), lo(y)); });
  check("pk_add_u16", a, b, c, [](u32 x, u32 y, u32) { return ((x + y) & 0xffffu) | (((hi(x) + hi(y)) & 0xffffu) << 16); });
  check("pk_mul_lo_u16", a, b, c, [](u32 x, u32 y, u32) { return ((x * y) & 0xffffu) | (((hi(x) * hi(y)) & 0xffffu) << 16); });
  check("pk_ashrrev_i16", a, b, c, [](u32 x, u32 y, u32) {
    return (static_cast<u32>(s16(lo(y)) >> (x & 15)) & 0xffffu) | ((static_cast<u32>(s16(hi(y)) >> (hi(x) & 15)) & 0xffffu) << 16); });
  check("pk_max_i16", a, b, c, [](u32 x, u32 y, u32) {
    return (s16(lo(x)) > s16(lo(y)) ? lo(x) : lo(y)) | ((s16(hi(x)) > s16(hi(y)) ? hi(x) : hi(y)) << 16); });
  auto h = halves(64), k = halves(65), m = halves(66);
  check("pk_add_f16", h, k, m, [](u32 x, u32 y, u32) { return ref_add(lo(x), lo(y)) | (ref_add(hi(x), hi(y)) << 16); });
  // op_sel:[1,0] op_sel_hi:[0,1] neg_lo:[1,0]: low = -x.hi * y.lo, high = x.lo * y.hi.
  check("pk_mul_f16_mods", h, k, m, [](u32 x, u32 y, u32) { return ref_mul(hi(x) ^ 0x8000u, lo(y)) | (ref_mul(lo(x), hi(y)) << 16); });
  check("pk_fma_f16", h, k, m, [](u32 x, u32 y, u32 z) { return ref_fma(lo(x), lo(y), lo(z)) | (ref_fma(hi(x), hi(y), hi(z)) << 16); });
  check("pk_max_f16", h, k, m, [](u32 x, u32 y, u32) { return maxh(lo(x), lo(y)) | (maxh(hi(x), hi(y)) << 16); });
}

TEST(SimIsa16, ConversionsAndCompares) {
  auto a = random_u32(64, 71), h = halves(72), k = halves(73);
  auto c = random_u32(64, 74);
  check("cvt_f16_u16", a, a, a, [](u32 x, u32, u32) {
    _Float16 v = static_cast<_Float16>(static_cast<float>(lo(x)));  // exact in float, one rounding
    std::uint16_t b;
    std::memcpy(&b, &v, 2);
    return u32{b}; });
  check("cvt_i16_f16", h, h, h, [](u32 x, u32, u32) {
    float f = std::trunc(f16(lo(x)));  // saturating, like v_cvt_i32_f32
    f = std::fmax(-32768.0f, std::fmin(32767.0f, f));
    return static_cast<u32>(static_cast<std::int32_t>(f)) & 0xffffu; });
  check("cmp_f16", h, k, c, [](u32 x, u32 y, u32 z) {
    u32 hx = lo(x);
    u32 e = (hx >> 10) & 0x1f, f = hx & 0x3ff;
    bool neg = hx >> 15;
    u32 cls = e == 0 ? (f ? (neg ? 4u : 7u) : (neg ? 5u : 6u)) : (neg ? 3u : 8u);
    return u32{f16(hx) < f16(lo(y))} | (((z >> cls) & 1u) << 1); });
}

}  // namespace
}  // namespace cdna::simulator
