// The aiter-pa adapter (adapters/aiter_pa.hpp) on AMD's shipped paged-attention code objects in
// ../shared/peers/aiter-decode-gfx942: the pa_asm.csv row read for each code object (a symbol
// that is not the row's knl_name refused, a quantised-cache row refused by name), RTNA only, the
// refusals of problems the kernels do not take, and paged decode batches (one query row per
// sequence at GQA 4, 8 and 16; two rows under the causal mask) run through the simulator and
// judged against the exact oracle (reference::compare_varlen, no LSE). Everything that needs the
// code objects skips with one line when the folder is absent.
#include "adapters/aiter_pa.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>
#include <fstream>

#include "reference/attention/varlen_inputs.hpp"
#include "simulator/schedule/simulator_executor.hpp"

namespace cdna::adapters {
namespace {

using numerics::Rounding;
using reference::Mask;
using reference::VarlenProblem;

const std::filesystem::path kDir = peers_dir() / "aiter-decode-gfx942";

#define SKIP_WITHOUT_AITER_PA()                                            \
  if (!std::filesystem::exists(kDir / "pa_bf16_noquant_gqa8_1tg_4w.co")) \
  GTEST_SKIP() << "skipped (not a pass): " << kDir.string() << " is absent (AITER's decode code objects)"

// B sequences of `q_rows` query rows and lengths[b] keys, pages of `page` slots, `unused` in the
// unused slots and spare pages (+0 by default); heads hq/hkv, D 128, scale fp32(1/√128).
VarlenProblem decode(std::int64_t hq, std::int64_t hkv, const std::vector<std::int32_t>& lengths, std::int32_t q_rows,
                     std::uint64_t seed, std::int32_t page = 16, std::uint16_t unused = 0) {
  const std::vector<std::int32_t> rows(lengths.size(), q_rows);
  const Mask mask = q_rows > 1 ? Mask::CausalBottomRight : Mask::None;
  return reference::paged_from_packed(reference::packed_varlen({1, 0, 0, hq, hkv, 128}, mask, rows, lengths, seed),
                                      page, 2, seed, unused);
}

std::string what(const std::exception& e) { return e.what(); }

TEST(AiterPaAdapter, ReadsEachKernelFromItsCsvRow) {
  SKIP_WITHOUT_AITER_PA();
  AiterPaAdapter a;
  // The bf16 rows present: noquant Gqa 8 and 16, and the multi-token Gqa 8 row.
  EXPECT_EQ(a.load(Rounding::RTNA, kDir).size(), 3u);
  try {
    a.load(Rounding::RTNE, kDir);
    FAIL() << "RTNE was taken";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(what(e).find("(RTNA) only"), std::string::npos) << e.what();
  }
  try {
    AiterPaAdapter().load(Rounding::RTNA, kDir / "pa_bf16_pertokenFp8_gqa8_2tg_4w.co");
    FAIL() << "a quantised-cache kernel was taken";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(what(e).find("its KV cache is fp8"), std::string::npos) << e.what();
  }
  // A CSV row naming another symbol than the code object holds.
  const std::filesystem::path tmp = std::filesystem::temp_directory_path() / "aiter_pa_test_csv";
  std::filesystem::remove_all(tmp);
  std::filesystem::create_directories(tmp);
  std::filesystem::copy_file(kDir / "pa_bf16_noquant_gqa8_1tg_4w.co", tmp / "pa_bf16_noquant_gqa8_1tg_4w.co");
  std::ofstream(tmp / "pa_asm.csv") << "qType,kvType,Gqa,Mtp,Msk,Hp,blkSz,knl_name,co_name,ps,qTile,quant_type\n"
                                    << "bf16,bf16,8,0,0,0,16,_ZN5aiter28pa_bf16_noquant_gqa16_1tg_4wE,"
                                       "pa_bf16_noquant_gqa8_1tg_4w.co,0,0,0\n";
  try {
    AiterPaAdapter().load(Rounding::RTNA, tmp);
    FAIL() << "a code object whose symbol is not its row's knl_name was taken";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(what(e).find("is not the one pa_asm.csv names"), std::string::npos) << e.what();
  }
  std::ofstream(tmp / "pa_asm.csv") << "qType,kvType,Gqa\nbf16,bf16,8\n";  // columns missing
  EXPECT_THROW(AiterPaAdapter().load(Rounding::RTNA, tmp), std::runtime_error);
  std::filesystem::remove(tmp / "pa_asm.csv");
  try {
    AiterPaAdapter().load(Rounding::RTNA, tmp);
    FAIL() << "a directory without pa_asm.csv was taken";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(what(e).find("pa_asm.csv"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(tmp);
}

TEST(AiterPaAdapter, RefusesWhatTheKernelsDoNotTake) {
  SKIP_WITHOUT_AITER_PA();
  AiterPaAdapter a;
  a.load(Rounding::RTNA, kDir);
  const auto why = [&](const VarlenProblem& p, Rounding mode = Rounding::RTNA) {
    return a.varlen_unsupported_reason(p, mode).value_or("");
  };
  EXPECT_EQ(why(decode(8, 1, {5, 40}, 1, 1)), "");
  EXPECT_NE(why(decode(8, 1, {5}, 1, 1), Rounding::RTNE).find("rounding mode RTNE"), std::string::npos);
  EXPECT_NE(why(decode(8, 1, {5}, 1, 1, 32)).find("page size 32"), std::string::npos);
  EXPECT_NE(why(decode(64, 2, {5}, 1, 1)).find("Hq/Hkv = 32"), std::string::npos);
  VarlenProblem scaled = decode(8, 1, {5}, 1, 1);
  scaled.base.scale = 0.5f;
  EXPECT_NE(why(scaled).find("fixes it at 1/sqrt(128)"), std::string::npos);
  VarlenProblem open_rows = decode(8, 1, {5}, 2, 1);
  open_rows.base.mask = Mask::None;
  EXPECT_NE(why(open_rows).find("causal mask"), std::string::npos);
  VarlenProblem packed = reference::packed_varlen({1, 0, 0, 8, 1, 128}, Mask::None, {1}, {5}, 1);
  EXPECT_NE(why(packed).find("paged KV cache only"), std::string::npos);
  EXPECT_NE(a.unsupported_reason(reference::AttentionProblem{}, Rounding::RTNA).value_or("").size(), 0u);
}

// Paged decode batches around the 16-slot page and the GQA groups, a long context, and 2-4 query
// rows per sequence under the causal mask (the range AITER's op_tests/test_pa_mtp.py runs): the
// oracle verdict (RTNA).
TEST(AiterPaAdapter, PagedDecodePassesTheOracle) {
  SKIP_WITHOUT_AITER_PA();
  AiterPaAdapter a;
  a.load(Rounding::RTNA, kDir);
  simulator::SimulatorExecutor ex;
  const VarlenProblem cases[] = {decode(8, 1, {1, 16, 17, 300}, 1, 31), decode(32, 2, {15, 256, 513}, 1, 32),
                                 decode(16, 4, {33, 1000}, 1, 33),        decode(16, 1, {8193}, 1, 35),
                                 decode(8, 1, {2, 40, 300}, 2, 34),       decode(8, 1, {40, 7}, 3, 36),
                                 decode(4, 1, {40, 7}, 4, 37)};
  for (const VarlenProblem& v : cases) {
    ASSERT_FALSE(a.varlen_unsupported_reason(v, Rounding::RTNA)) << *a.varlen_unsupported_reason(v, Rounding::RTNA);
    const auto out = a.run_varlen(ex, v, Rounding::RTNA);
    const auto c = reference::compare_varlen(v, reference::varlen_forward_exact(v), out.o, out.lse, Rounding::RTNA,
                                             /*lse_given=*/false);
    EXPECT_TRUE(c.pass()) << "heads " << v.base.shape.heads_q << "/" << v.base.shape.heads_kv << " rows "
                          << v.rows_q() << ": " << c.first_failure;
    EXPECT_GT(c.o_judged, 0);
  }
}

// The finding of docs/peer-kernels.md: the kernel reads V at all 64 keys of the last 64-key tile,
// used or not, with P = 0 there: the last page's slots past the used length, and for the table
// entries past the used pages (its buffer descriptor spans the used pages only, so they read as
// 0) page 0. A NaN in V there makes every element of the sequence's output NaN (0x7FFF); the
// definition never reads those slots. A NaN in K there is masked.
TEST(AiterPaAdapter, FindingVOfTheLastTilesUnusedSlotsReachesTheOutput) {
  SKIP_WITHOUT_AITER_PA();
  AiterPaAdapter a;
  a.load(Rounding::RTNA, kDir);
  simulator::SimulatorExecutor ex;
  const VarlenProblem base = decode(8, 1, {17}, 1, 31);  // 17 keys: pages 1 (full) and 2 (slot 0); 0 and 3 spare
  ASSERT_EQ(base.block_table, (std::vector<std::int32_t>{1, 2}));
  const auto nan_at = [&](bool v_not_k, std::int64_t page, std::int64_t first_slot) {
    VarlenProblem p = base;
    auto& x = v_not_k ? p.v : p.k;
    std::fill(x.begin() + (page * 16 + first_slot) * 128, x.begin() + (page + 1) * 16 * 128, 0x7FC0);
    return p;
  };
  const auto all_nan = [&](const VarlenProblem& p) {
    const auto out = a.run_varlen(ex, p, Rounding::RTNA);
    return std::all_of(out.o.begin(), out.o.end(), [](std::uint16_t x) { return x == 0x7FFF; });
  };
  const auto passes = [&](const VarlenProblem& p) {
    const auto out = a.run_varlen(ex, p, Rounding::RTNA);
    return reference::compare_varlen(p, reference::varlen_forward_exact(p), out.o, out.lse, Rounding::RTNA, false).pass();
  };
  EXPECT_TRUE(passes(base));
  EXPECT_TRUE(all_nan(nan_at(true, 2, 1)));   // V, the last page's unused slots
  EXPECT_TRUE(all_nan(nan_at(true, 0, 0)));   // V, page 0: no table entry names it
  EXPECT_TRUE(passes(nan_at(true, 3, 0)));    // V, page 3: not read
  EXPECT_TRUE(passes(nan_at(false, 2, 1)));   // K there: masked
  EXPECT_TRUE(passes(nan_at(false, 0, 0)));
}

// The finding of docs/peer-kernels.md: five query rows per sequence (past the 1-4 of AITER's
// test_pa_mtp.py; pa_fwd does not refuse them) give wrong outputs. B 1, heads 1/1, Sq 5 = Sk 5:
// row 0 sees key 0 only, so its exact O is V_0, and the kernel's differs; rows 1-4 are never
// written; four rows pass.
TEST(AiterPaAdapter, FindingFiveQueryRowsPerSequenceAreWrong) {
  SKIP_WITHOUT_AITER_PA();
  AiterPaAdapter a;
  a.load(Rounding::RTNA, kDir);
  simulator::SimulatorExecutor ex;
  const VarlenProblem five = decode(1, 1, {5}, 5, 41), four = decode(1, 1, {4}, 4, 41);
  const auto out = a.run_varlen(ex, five, Rounding::RTNA);
  const std::int64_t v0 = five.k_row(0, 0) * 128;
  int differ = 0;
  for (std::int64_t d = 0; d < 128; ++d) differ += out.o[static_cast<std::size_t>(d)] != five.v[static_cast<std::size_t>(v0 + d)];
  // Rows 1-4 are never written: they keep the sentinel the output was filled with.
  EXPECT_TRUE(std::all_of(out.o.begin() + 128, out.o.end(), [](std::uint16_t x) { return x == device::kUnwrittenO; }));
  EXPECT_GT(differ, 64) << "row 0 of five is V_0 in " << 128 - differ << " of 128 columns";
  EXPECT_FALSE(reference::compare_varlen(five, reference::varlen_forward_exact(five), out.o, out.lse, Rounding::RTNA, false).pass());
  // Rows that see no key (Sq 4 > Sk 2: rows 0 and 1) are NaN (0x7FFF), as a sequence of no key is.
  const VarlenProblem short_cache = decode(4, 1, {2}, 4, 42);
  const auto out_short = a.run_varlen(ex, short_cache, Rounding::RTNA);
  EXPECT_TRUE(std::all_of(out_short.o.begin(), out_short.o.begin() + 2 * 4 * 128, [](std::uint16_t x) { return x == 0x7FFF; }));
  const auto out4 = a.run_varlen(ex, four, Rounding::RTNA);
  EXPECT_TRUE(reference::compare_varlen(four, reference::varlen_forward_exact(four), out4.o, out4.lse, Rounding::RTNA, false).pass());
}

}  // namespace
}  // namespace cdna::adapters
