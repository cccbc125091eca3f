// Test-side MFMA model shared by the dense (cases_mfma.cpp) and modifier/sparse
// (cases_mfma_sparse.cpp) directed cases; see mfma_model.hpp.
#include "simulator/directed/mfma_model.hpp"

#include <bit>
#include <random>

#include "numerics/mfma_naive_model.hpp"

namespace cdna::simulator::directed {

namespace nt = cdna::numerics::testing;

int elem_bits(In t) {
  switch (t) {
    case In::F16: case In::Bf16: return 16;
    case In::Fp8: case In::Bf8: case In::I8: return 8;
    case In::Xf32: case In::F32: return 32;
    case In::F64: return 64;
  }
  return 0;
}

std::vector<Mfma> instructions() {
  std::vector<Mfma> v;
  struct S { const char* shape; int m, k, b; };
  const S h[] = {{"32x32x8", 32, 8, 1}, {"16x16x16", 16, 16, 1}, {"32x32x4_2b", 32, 4, 2},
                 {"16x16x4_4b", 16, 4, 4}, {"4x4x4_16b", 4, 4, 16}};
  for (const auto& s : h) {
    v.push_back({std::string("v_mfma_f32_") + s.shape + "_f16", s.m, s.k, s.b, In::F16, In::F16});
    v.push_back({std::string("v_mfma_f32_") + s.shape + "_bf16", s.m, s.k, s.b, In::Bf16, In::Bf16});
  }
  v.push_back({"v_mfma_f32_16x16x8_xf32", 16, 8, 1, In::Xf32, In::Xf32});
  v.push_back({"v_mfma_f32_32x32x4_xf32", 32, 4, 1, In::Xf32, In::Xf32});
  for (const S& s : {S{"16x16x32", 16, 32, 1}, S{"32x32x16", 32, 16, 1}})
    for (In x : {In::Fp8, In::Bf8})
      for (In y : {In::Fp8, In::Bf8})
        v.push_back({std::string("v_mfma_f32_") + s.shape + "_" + (x == In::Fp8 ? "fp8" : "bf8") + "_" +
                         (y == In::Fp8 ? "fp8" : "bf8"),
                     s.m, s.k, s.b, x, y});
  const S i8[] = {{"16x16x32", 16, 32, 1}, {"32x32x16", 32, 16, 1}, {"32x32x4_2b", 32, 4, 2},
                  {"16x16x4_4b", 16, 4, 4}, {"4x4x4_16b", 4, 4, 16}};
  for (const auto& s : i8) v.push_back({std::string("v_mfma_i32_") + s.shape + "_i8", s.m, s.k, s.b, In::I8, In::I8});
  const S f32[] = {{"16x16x4", 16, 4, 1}, {"32x32x2", 32, 2, 1}, {"32x32x1_2b", 32, 1, 2},
                   {"16x16x1_4b", 16, 1, 4}, {"4x4x1_16b", 4, 1, 16}};
  for (const auto& s : f32) v.push_back({std::string("v_mfma_f32_") + s.shape + "_f32", s.m, s.k, s.b, In::F32, In::F32});
  v.push_back({"v_mfma_f64_16x16x4_f64", 16, 4, 1, In::F64, In::F64});
  v.push_back({"v_mfma_f64_4x4x4_4b_f64", 4, 4, 4, In::F64, In::F64});
  return v;
}

// ---- layouts (the file comment of cases_mfma.cpp) ----
int a_lane(const Mfma& f, int b, int i, int k) { return f.m * b + f.m * f.blocks * (k / f.kpl()) + i; }
// 32-bit result register and lane of D[i][j] in block b (for f64: the pair index).
std::pair<int, int> d_place(const Mfma& f, int b, int i, int j) {
  if (f.f64()) {
    if (f.m == 16) return {i / 4, 16 * (i % 4) + j};
    return {0, 16 * (i % 4) + 4 * b + j};
  }
  if (f.m == 4) return {i, 4 * b + j};
  if (f.m == 16) return {4 * b + i % 4, 16 * (i / 4) + j};
  return {16 * b + 4 * (i / 8) + i % 4, 32 * ((i / 4) % 2) + j};
}

// Element e (of `bits`) of a lane's operand registers starting at input VGPR `reg`.
u64 element(const State& s, int reg, int nregs, int lane, int e, int bits) {
  u64 w = s.vin[static_cast<std::size_t>(reg - 10)][static_cast<std::size_t>(lane)];
  if (nregs > 1) w |= static_cast<u64>(s.vin[static_cast<std::size_t>(reg - 9)][static_cast<std::size_t>(lane)]) << 32;
  const u64 mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
  return (w >> (e * bits)) & mask;
}

numerics::Fp8Kind kind8(In t) { return t == In::Fp8 ? numerics::Fp8Kind::Fp8 : numerics::Fp8Kind::Bf8; }

namespace {
// The lane whose B data lane `lane` uses under BLGP, from the calculator README's wording
// ("BLGP=1: lanes 0-31 also broadcast into lanes 32-63", ..., "3: rotated down by 16: lane 16's
// data is put into lane 0", "4..7: lanes 0-15 / 16-31 / 32-47 / 48-63 broadcast to the others").
int b_source_lane(int lane, int blgp) {
  if (blgp == 1) return lane >= 32 ? lane - 32 : lane;
  if (blgp == 2) return lane < 32 ? lane + 32 : lane;
  if (blgp == 3) return lane >= 48 ? lane - 48 : lane + 16;
  if (blgp >= 4) return (blgp - 4) * 16 + (lane & 15);
  return lane;
}
// The block whose A data block b uses: one block of each group of 2^cbsz, the abid-th.
int a_source_block(int b, int cbsz, int abid) { return b - b % (1 << cbsz) + abid; }
}  // namespace

std::vector<Lanes> mfma_result(const Mfma& f, const State& s, int a_reg, int b_reg, bool flush,
                               const MfmaMods& mods) {
  std::vector<Lanes> d(static_cast<std::size_t>(f.out_regs()));
  const int ab = elem_bits(f.a), nr = f.in_regs();
  for (int b = 0; b < f.blocks; ++b)
    for (int i = 0; i < f.m; ++i)
      for (int j = 0; j < f.m; ++j) {
        std::vector<u64> av, bv;
        for (int k = 0; k < f.k; ++k) {
          const int asrc = a_source_block(b, mods.cbsz, mods.abid);
          av.push_back(element(s, a_reg, nr, a_lane(f, asrc, i, k), k % f.kpl(), ab));
          bv.push_back(element(s, b_reg, nr, b_source_lane(a_lane(f, b, j, k), mods.blgp), k % f.kpl(),
                               ab));  // B: the A form with N, j
        }
        const auto [r, l] = d_place(f, b, i, j);
        const auto ur = static_cast<std::size_t>(r), ul = static_cast<std::size_t>(l);
        if (f.f64()) {
          // neg:[A,B,C] negates the inputs (calculator README, FP64 BLGP-as-NEG example).
          auto sgn = [&](int bit) { return (mods.neg >> bit) & 1 ? -1.0 : 1.0; };
          const double c = sgn(2) * std::bit_cast<double>(lane_pair(s.vout[2 * ur], s.vout[2 * ur + 1], l));
          std::vector<double> x, y;
          for (std::size_t k = 0; k < av.size(); ++k) {
            x.push_back(sgn(0) * std::bit_cast<double>(av[k]));
            y.push_back(sgn(1) * std::bit_cast<double>(bv[k]));
          }
          set_lane_pair(d[2 * ur], d[2 * ur + 1], l, std::bit_cast<u64>(nt::naive_mfma_dot_f64(x, y, c)));
          continue;
        }
        const u32 cw = s.vout[ur][ul];
        const float c = std::bit_cast<float>(cw);
        u32 out = 0;
        switch (f.a) {
          case In::F16: case In::Bf16: {
            std::vector<u16> x, y;
            for (u64 v : av) x.push_back(static_cast<u16>(v));
            for (u64 v : bv) y.push_back(static_cast<u16>(v));
            out = std::bit_cast<u32>(nt::naive_mfma_dot(f.a == In::F16 ? nt::InputFormat::F16 : nt::InputFormat::Bf16, x, y, c));
            break;
          }
          case In::Fp8: case In::Bf8: {
            std::vector<std::uint8_t> x, y;
            for (u64 v : av) x.push_back(static_cast<std::uint8_t>(v));
            for (u64 v : bv) y.push_back(static_cast<std::uint8_t>(v));
            out = std::bit_cast<u32>(nt::naive_mfma_dot_fp8(x, kind8(f.a), y, kind8(f.b), c));
            break;
          }
          case In::I8: {
            std::vector<std::int8_t> x, y;
            for (u64 v : av) x.push_back(static_cast<std::int8_t>(static_cast<std::uint8_t>(v)));
            for (u64 v : bv) y.push_back(static_cast<std::int8_t>(static_cast<std::uint8_t>(v)));
            out = static_cast<u32>(nt::naive_mfma_dot_i8(x, y, static_cast<i32>(cw), false));
            break;
          }
          case In::Xf32: case In::F32: {
            std::vector<float> x, y;
            for (u64 v : av) x.push_back(std::bit_cast<float>(static_cast<u32>(v)));
            for (u64 v : bv) y.push_back(std::bit_cast<float>(static_cast<u32>(v)));
            out = std::bit_cast<u32>(f.a == In::Xf32 ? nt::naive_mfma_dot_xf32(x, y, c)
                                                     : nt::naive_mfma_dot_f32(x, y, c, flush));
            break;
          }
          case In::F64: break;
        }
        d[ur][ul] = out;
      }
  return d;
}

// ---- operand values ----
// Random element patterns of type t: moderate exponents, some zeros and subnormals, no NaN/inf.
u64 random_element(In t, std::mt19937_64& g) {
  const u64 r = g();
  const u64 sign = r >> 63, pick = r % 32;
  switch (t) {
    case In::F16:
      if (pick < 2) return sign << 15;
      if (pick < 3) return (sign << 15) | ((r >> 8) & 0x3ff);
      return (sign << 15) | ((10 + (r >> 20) % 12) << 10) | ((r >> 8) & 0x3ff);
    case In::Bf16:
      if (pick < 2) return sign << 15;
      if (pick < 3) return (sign << 15) | ((r >> 8) & 0x7f);
      return (sign << 15) | ((120 + (r >> 20) % 16) << 7) | ((r >> 8) & 0x7f);
    case In::Fp8: case In::Bf8: {
      const u64 byte = (r >> 8) & 0xff;
      return byte == 0x80 ? 0 : byte;  // 0x80 is the only NaN (FNUZ)
    }
    case In::I8: return (r >> 8) & 0xff;
    case In::Xf32: case In::F32: {
      if (pick < 2) return sign << 31;
      if (pick < 4) return (sign << 31) | ((r >> 8) & 0x7fffff);  // subnormal
      const u64 e = t == In::Xf32 ? 120 + (r >> 40) % 16 : 115 + (r >> 40) % 26;
      return (sign << 31) | (e << 23) | ((r >> 8) & 0x7fffff);
    }
    case In::F64:
      if (pick < 2) return sign << 63;
      if (pick < 3) return (sign << 63) | ((r >> 4) & 0xfffffffffffff);
      return (sign << 63) | ((1013 + (r >> 52) % 21) << 52) | ((r >> 4) & 0xfffffffffffff);
  }
  return 0;
}

// Fills A (v10..) and B (v12..) element by element, and C in v32.. (out_regs registers).
void init_operands(const Mfma& f, State& s) {
  std::mt19937_64 g(s.mem[0] * 0x9e3779b97f4a7c15ull + s.mem[1]);  // the seed's random words
  const int bits = elem_bits(f.a), nr = f.in_regs();
  for (int reg : {10, 12})
    for (int l = 0; l < kLanes; ++l) {
      u64 w = 0;
      for (int e = 0; e < f.kpl(); ++e) w |= random_element(reg == 10 ? f.a : f.b, g) << (e * bits);
      s.vin[static_cast<std::size_t>(reg - 10)][static_cast<std::size_t>(l)] = static_cast<u32>(w);
      if (nr > 1) s.vin[static_cast<std::size_t>(reg - 9)][static_cast<std::size_t>(l)] = static_cast<u32>(w >> 32);
    }
  for (int r = 0; r < f.out_regs(); ++r)
    for (int l = 0; l < kLanes; ++l) {
      const u64 x = g();
      u32 c;
      if (f.a == In::I8) c = static_cast<u32>(static_cast<i32>(x % (1u << 31)) - (1 << 30));
      else if (f.f64()) c = static_cast<u32>(r % 2 == 0 ? x : ((x >> 63) << 31) | ((1010 + (x >> 40) % 21) << 20) | (x & 0xfffff));
      else if (x % 16 == 0) c = 0;
      else c = static_cast<u32>(((x >> 63) << 31) | ((115 + (x >> 40) % 21) << 23) | (x & 0x7fffff));
      s.vout[static_cast<std::size_t>(r)][static_cast<std::size_t>(l)] = c;
    }
}


}  // namespace cdna::simulator::directed
