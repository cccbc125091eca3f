// Directed cases: the MFMA matrix modifiers (cbsz/abid A-block broadcast, blgp B lane pattern,
// f64 neg:[A,B,C]) and every sparse v_smfmac_*.
//
// Dense modifiers: model = mfma_model.hpp (naive block model, calculator layouts) with the
// modifier applied to the operand placement as the AMD Matrix Instruction Calculator README
// words it (mfma_model.cpp: b_source_lane, a_source_block; f64 neg from the "BLGP Modifier to
// Negate FP64 Input Matrices" example).
//
// v_smfmac_*: written from the calculator README's sparse example ("Example of Printing
// Compression Index Information"; e.g. K[2][31] of v_smfmac_f32_16x16x32_f16 is v0{50}.[7:4]):
// for M x M x K with Ks = K/2 stored A entries per row, kpa = M*Ks/64 per lane and kpb = M*K/64
// B entries per lane, stored entry s of row i lives in lane i + M*(s / kpa), element s % kpa of
// A, and its 2-bit position in its group of four k is bits [2e+1:2e] (e = s % kpa) of the same
// lane's index segment of vidx: byte (16-bit inputs) or half (8-bit inputs) number ABID when
// CBSZ = 0, number 0 otherwise. B[k][j] is in lane j + M*(k / kpb), element k % kpb; C = D in
// the dense layout. Arithmetic: the naive MPFR model's naive_smfmac_* (the gather convention of
// numerics/smfmac.hpp). A in v[10:11], B in v[12:15], the index in v16.
// Hazards (cdna3-facts.md §5, LLVM checkMAIHazards90A): a back-to-back v_smfmac accumulating into
// the same D needs no wait (full SrcC overlap, 4 passes); a VALU write of the index right before
// and an MFMA result used as the index are refused by the simulator's checker (error cases).
#include <bit>
#include <random>
#include <string>
#include <tuple>

#include "numerics/mfma_naive_model.hpp"
#include "simulator/directed/cases.hpp"
#include "simulator/directed/mfma_model.hpp"

namespace cdna::simulator::directed {
namespace {

namespace nt = cdna::numerics::testing;

std::string vrange(const char* file, int first, int n) {
  return std::string(file) + "[" + std::to_string(first) + ":" + std::to_string(first + n - 1) + "]";
}

const std::string kWait = "  s_nop 7\n  s_nop 7\n  s_nop 7\n";  // 24 wait states

// ---- dense MFMA with modifiers ----

Mfma find(const std::string& name) {
  for (const auto& f : instructions())
    if (f.name == name) return f;
  return {};
}

std::string mods_text(const Mfma& f, const MfmaMods& m) {
  if (f.f64())
    return " neg:[" + std::to_string(m.neg & 1) + "," + std::to_string((m.neg >> 1) & 1) + "," +
           std::to_string((m.neg >> 2) & 1) + "]";
  return " cbsz:" + std::to_string(m.cbsz) + " abid:" + std::to_string(m.abid) + " blgp:" + std::to_string(m.blgp);
}

Case dense_case(const std::string& name, const MfmaMods& m) {
  const Mfma f = find(name);
  const int n = f.out_regs(), nr = f.in_regs();
  auto operand = [](int reg, int count) { return count == 1 ? "v" + std::to_string(reg) : vrange("v", reg, count); };
  const std::string body = "  " + f.name + " " + vrange("v", 32, n) + ", " + operand(10, nr) + ", " +
                           operand(12, nr) + ", " + vrange("v", 32, n) + mods_text(f, m) + "\n";
  auto model = [f, n, m](State& s) {
    const auto d = mfma_result(f, s, 10, 12, f.a == In::F32, m);
    for (int r = 0; r < n; ++r) s.vout[static_cast<std::size_t>(r)] = d[static_cast<std::size_t>(r)];
  };
  return Case{f.name, body, model, Values::Int, [f](State& s) { init_operands(f, s); }};
}

// A case that must fail with `error`. A form refused at decode does not count as the mnemonic
// (the coverage test looks for decoded instructions), so `valid`, a supported form of the same
// instruction, runs first.
Case refused(const std::string& mnemonic, const std::string& line, const std::string& error,
             const std::string& valid = {}) {
  Case c{mnemonic, (valid.empty() ? "" : "  " + valid + "\n") + "  " + line + "\n", [](State&) {}, Values::Int};
  c.expect_error = error;
  return c;
}

void add_modifier_cases(std::vector<Case>& cs) {
  // CBSZ/ABID on each multi-block shape (every legal CBSZ width appears), with BLGP beside.
  cs.push_back(dense_case("v_mfma_f32_4x4x4_16b_f16", {4, 13, 0, 0}));
  cs.push_back(dense_case("v_mfma_f32_4x4x4_16b_bf16", {2, 1, 5, 0}));
  cs.push_back(dense_case("v_mfma_f32_16x16x4_4b_bf16", {2, 3, 0, 0}));
  cs.push_back(dense_case("v_mfma_f32_16x16x4_4b_f16", {1, 1, 6, 0}));
  cs.push_back(dense_case("v_mfma_f32_32x32x4_2b_f16", {1, 1, 0, 0}));
  cs.push_back(dense_case("v_mfma_f32_32x32x4_2b_bf16", {1, 0, 2, 0}));
  cs.push_back(dense_case("v_mfma_i32_16x16x4_4b_i8", {1, 0, 3, 0}));
  cs.push_back(dense_case("v_mfma_i32_4x4x4_16b_i8", {3, 6, 4, 0}));
  cs.push_back(dense_case("v_mfma_i32_32x32x4_2b_i8", {1, 1, 1, 0}));
  cs.push_back(dense_case("v_mfma_f32_32x32x1_2b_f32", {1, 1, 7, 0}));
  cs.push_back(dense_case("v_mfma_f32_16x16x1_4b_f32", {2, 2, 4, 0}));
  cs.push_back(dense_case("v_mfma_f32_4x4x1_16b_f32", {3, 5, 2, 0}));
  // BLGP 1..7 on the single-block shapes of every input type.
  cs.push_back(dense_case("v_mfma_f32_16x16x16_f16", {0, 0, 1, 0}));
  cs.push_back(dense_case("v_mfma_f32_32x32x8_bf16", {0, 0, 2, 0}));
  cs.push_back(dense_case("v_mfma_f32_16x16x16_bf16", {0, 0, 3, 0}));
  cs.push_back(dense_case("v_mfma_f32_16x16x8_xf32", {0, 0, 3, 0}));
  cs.push_back(dense_case("v_mfma_f32_32x32x4_xf32", {0, 0, 5, 0}));
  cs.push_back(dense_case("v_mfma_f32_16x16x32_fp8_bf8", {0, 0, 4, 0}));
  cs.push_back(dense_case("v_mfma_f32_32x32x16_bf8_fp8", {0, 0, 7, 0}));
  cs.push_back(dense_case("v_mfma_i32_32x32x16_i8", {0, 0, 5, 0}));
  cs.push_back(dense_case("v_mfma_i32_16x16x32_i8", {0, 0, 6, 0}));
  cs.push_back(dense_case("v_mfma_f32_16x16x4_f32", {0, 0, 6, 0}));
  cs.push_back(dense_case("v_mfma_f32_32x32x8_f16", {0, 0, 1, 0}));
  // f64: the BLGP field as neg:[A,B,C].
  cs.push_back(dense_case("v_mfma_f64_16x16x4_f64", {0, 0, 0, 1}));
  cs.push_back(dense_case("v_mfma_f64_16x16x4_f64", {0, 0, 0, 6}));
  cs.push_back(dense_case("v_mfma_f64_4x4x4_4b_f64", {0, 0, 0, 7}));
  // Values without a defined meaning are refused at decode.
  cs.push_back(refused("v_mfma_f32_16x16x16_f16",
                       "v_mfma_f32_16x16x16_f16 v[32:35], v[10:11], v[12:13], v[32:35] cbsz:1",
                       "cbsz must be 0..log2(blocks)",
                       "v_mfma_f32_16x16x16_f16 v[32:35], v[10:11], v[12:13], v[32:35]"));
  cs.push_back(refused("v_mfma_f32_16x16x4_4b_f16",
                       "v_mfma_f32_16x16x4_4b_f16 v[32:47], v[10:11], v[12:13], v[32:47] cbsz:1 abid:2",
                       "abid below 2^cbsz",
                       "v_mfma_f32_16x16x4_4b_f16 v[32:47], v[10:11], v[12:13], v[32:47] cbsz:1 abid:1"));
  cs.push_back(refused("v_mfma_f64_4x4x4_4b_f64",
                       "v_mfma_f64_4x4x4_4b_f64 v[32:33], v[10:11], v[12:13], v[32:33] cbsz:1",
                       "f64 MFMA with cbsz:1",
                       "v_mfma_f64_4x4x4_4b_f64 v[32:33], v[10:11], v[12:13], v[32:33]"));
}

// ---- sparse ----

struct Sparse {
  std::string name;
  int m, k;  // M = N, dense K
  In a, b;
  int bits() const { return elem_bits(a); }
  int ks() const { return k / 2; }
  int kpa() const { return m * ks() / 64; }
  int kpb() const { return m * k / 64; }
  int out_regs() const { return m * m / 64; }
  int segments() const { return bits() == 8 ? 2 : 4; }
};

std::vector<Sparse> sparse_instructions() {
  std::vector<Sparse> v;
  for (const auto& [shape16, shape8, m] : {std::tuple{"16x16x32", "16x16x64", 16}, std::tuple{"32x32x16", "32x32x32", 32}}) {
    const int k16 = m == 16 ? 32 : 16, k8 = 2 * k16;
    v.push_back({std::string("v_smfmac_f32_") + shape16 + "_f16", m, k16, In::F16, In::F16});
    v.push_back({std::string("v_smfmac_f32_") + shape16 + "_bf16", m, k16, In::Bf16, In::Bf16});
    v.push_back({std::string("v_smfmac_i32_") + shape8 + "_i8", m, k8, In::I8, In::I8});
    for (In x : {In::Fp8, In::Bf8})
      for (In y : {In::Fp8, In::Bf8})
        v.push_back({std::string("v_smfmac_f32_") + shape8 + "_" + (x == In::Fp8 ? "fp8" : "bf8") + "_" +
                         (y == In::Fp8 ? "fp8" : "bf8"),
                     m, k8, x, y});
  }
  return v;
}

// D += A*B of `f` with the index segment `seg` of v16, accumulating onto output VGPRs from
// `dst` (v32 + dst).
void smfmac_model(const Sparse& f, State& s, int seg, int dst) {
  const State init = s;
  const int bits = f.bits();
  for (int i = 0; i < f.m; ++i) {
    std::vector<u64> a;
    std::vector<std::uint8_t> sel;
    for (int st = 0; st < f.ks(); ++st) {
      const int lane = i + f.m * (st / f.kpa()), e = st % f.kpa();
      a.push_back(element(init, 10, 2, lane, e, bits));
      const u32 index_word = init.vin[6][static_cast<std::size_t>(lane)];
      // Segment width from the calculator README: 8 bits for 16-bit inputs, 16 for 8-bit ones.
      const int width = bits == 8 ? 16 : 8;
      const u32 segment = (index_word >> (seg * width)) & ((1u << width) - 1u);
      sel.push_back(static_cast<std::uint8_t>((segment >> (2 * e)) & 3u));
    }
    for (int j = 0; j < f.m; ++j) {
      std::vector<u64> b;
      for (int k = 0; k < f.k; ++k) {
        const int lane = j + f.m * (k / f.kpb()), e = k % f.kpb();
        // B spans v12..v15: element e of the 128-bit lane value.
        const int word = e * bits / 32, shift = e * bits % 32;
        b.push_back((init.vin[static_cast<std::size_t>(2 + word)][static_cast<std::size_t>(lane)] >> shift) &
                    ((1u << bits) - 1u));
      }
      Mfma shape{f.name, f.m, f.k, 1, f.a, f.b};
      const auto [r, l] = d_place(shape, 0, i, j);
      const auto ur = static_cast<std::size_t>(dst + r), ul = static_cast<std::size_t>(l);
      const u32 cw = init.vout[ur][ul];
      u32 out = 0;
      if (f.a == In::I8) {
        std::vector<std::int8_t> x, y;
        for (u64 v : a) x.push_back(static_cast<std::int8_t>(static_cast<std::uint8_t>(v)));
        for (u64 v : b) y.push_back(static_cast<std::int8_t>(static_cast<std::uint8_t>(v)));
        out = static_cast<u32>(nt::naive_smfmac_dot_i8(x, sel, y, static_cast<i32>(cw)));
      } else if (bits == 8) {
        std::vector<std::uint8_t> x, y;
        for (u64 v : a) x.push_back(static_cast<std::uint8_t>(v));
        for (u64 v : b) y.push_back(static_cast<std::uint8_t>(v));
        out = std::bit_cast<u32>(nt::naive_smfmac_dot_fp8(x, kind8(f.a), sel, y, kind8(f.b), std::bit_cast<float>(cw)));
      } else {
        std::vector<u16> x, y;
        for (u64 v : a) x.push_back(static_cast<u16>(v));
        for (u64 v : b) y.push_back(static_cast<u16>(v));
        out = std::bit_cast<u32>(nt::naive_smfmac_dot(f.a == In::F16 ? nt::InputFormat::F16 : nt::InputFormat::Bf16,
                                                      x, sel, y, std::bit_cast<float>(cw)));
      }
      s.vout[ur][ul] = out;
    }
  }
}

// A (kpa entries, 64 bits) in v[10:11], B (kpb entries, 128 bits) in v[12:15], random index
// bits in v16 (every 2-bit field is a valid position), C in v32..v63.
void init_sparse(const Sparse& f, State& s) {
  std::mt19937_64 g(s.mem[0] * 0x9e3779b97f4a7c15ull + s.mem[1] + 77);
  for (int l = 0; l < kLanes; ++l) {
    const auto ul = static_cast<std::size_t>(l);
    u64 a = 0, b0 = 0, b1 = 0;
    for (int e = 0; e < f.kpa(); ++e) a |= random_element(f.a, g) << (e * f.bits());
    for (int e = 0; e < f.kpb(); ++e) {
      const u64 x = random_element(f.b, g);
      const int bit = e * f.bits();
      if (bit < 64) b0 |= x << bit;
      else b1 |= x << (bit - 64);
    }
    s.vin[0][ul] = static_cast<u32>(a);
    s.vin[1][ul] = static_cast<u32>(a >> 32);
    s.vin[2][ul] = static_cast<u32>(b0);
    s.vin[3][ul] = static_cast<u32>(b0 >> 32);
    s.vin[4][ul] = static_cast<u32>(b1);
    s.vin[5][ul] = static_cast<u32>(b1 >> 32);
    s.vin[6][ul] = static_cast<u32>(g());
  }
  for (int r = 0; r < kVOut; ++r)
    for (int l = 0; l < kLanes; ++l) {
      const u64 x = g();
      u32 c;
      if (f.a == In::I8) c = static_cast<u32>(static_cast<i32>(x % (1u << 31)) - (1 << 30));
      else if (x % 16 == 0) c = 0;
      else c = static_cast<u32>(((x >> 63) << 31) | ((115 + (x >> 40) % 21) << 23) | (x & 0x7fffff));
      s.vout[static_cast<std::size_t>(r)][static_cast<std::size_t>(l)] = c;
    }
}

// Forms: index segment 0 into v32..; another segment (abid) into v48..; 16x16 shapes also
// CBSZ != 0 (abid ignored: segment 0) into v36.., an AGPR accumulator (a0..a3, read back into
// v52..v55), and a back-to-back second accumulation into v32.. (full SrcC overlap, no wait).
Case sparse_case(const Sparse& f, int abid) {
  const int n = f.out_regs();
  const std::string ops = ", v[10:11], v[12:15], v16";
  std::string body = "  " + f.name + " " + vrange("v", 32, n) + ops + "\n";
  body += "  " + f.name + " " + vrange("v", 48, n) + ops + " abid:" + std::to_string(abid) + "\n";
  const bool small = n == 4;
  if (small) {
    body += "  " + f.name + " " + vrange("v", 32, n) + ops + "\n";
    body += "  " + f.name + " " + vrange("v", 36, n) + ops + " cbsz:2 abid:3\n";
    for (int r = 0; r < 4; ++r) body += "  v_accvgpr_write_b32 a" + std::to_string(r) + ", v" + std::to_string(52 + r) + "\n";
    body += "  s_nop 1\n  " + f.name + " a[0:3]" + ops + " abid:1\n" + kWait;
    for (int r = 0; r < 4; ++r) body += "  v_accvgpr_read_b32 v" + std::to_string(52 + r) + ", a" + std::to_string(r) + "\n";
  }
  auto model = [f, abid, small](State& s) {
    smfmac_model(f, s, 0, 0);
    smfmac_model(f, s, abid, 16);
    if (small) {
      smfmac_model(f, s, 0, 0);
      smfmac_model(f, s, 0, 4);
      smfmac_model(f, s, 1, 20);
    }
  };
  return Case{f.name, body, model, Values::Int, [f](State& s) { init_sparse(f, s); }};
}

void add_sparse_cases(std::vector<Case>& cs) {
  const auto all = sparse_instructions();
  for (std::size_t i = 0; i < all.size(); ++i) {
    const Sparse& f = all[i];
    cs.push_back(sparse_case(f, 1 + static_cast<int>(i) % (f.segments() - 1)));
  }
  const std::string first = all[0].name;  // v_smfmac_f32_16x16x32_f16
  const std::string line = first + " v[32:35], v[10:11], v[12:15], v16";
  cs.push_back(refused(first, "s_mov_b64 exec, s[16:17]\n  " + line, "not all lanes active"));
  cs.push_back(refused("v_smfmac_i32_16x16x64_i8", "v_smfmac_i32_16x16x64_i8 v[32:35], v[10:11], v[12:15], v16 abid:2",
                       "selects no index segment",
                       "v_smfmac_i32_16x16x64_i8 v[32:35], v[10:11], v[12:15], v16 abid:1"));
  cs.push_back(refused(first, "v_mov_b32 v16, v17\n  " + line, "MFMA read of a VALU result (v16)"));
  cs.push_back(refused(first, line + "\n  " + first + " v[36:39], v[10:11], v[12:15], v32",
                       "v_smfmac index read of the MFMA result (v[32:35])"));
}

}  // namespace

void add_mfma_sparse_cases(std::vector<Case>& cases) {
  add_modifier_cases(cases);
  add_sparse_cases(cases);
}

}  // namespace cdna::simulator::directed
