#include "golden/golden_file.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>

#include "golden/digest.hpp"
#include "golden/stored_values.hpp"
#include "reference/attention/inputs.hpp"

namespace cdna::golden {
namespace {

GoldenFile small_golden(numerics::Rounding mode = numerics::Rounding::RTNE) {
  GoldenFile g;
  g.case_id = "test/small";
  g.description = "Sq 6, Sk 9, heads 2/1, D 64, causal top-left";
  auto& p = g.problem;
  p.shape = {1, 6, 9, 2, 1, 64};
  p.mask = reference::Mask::CausalTopLeft;
  p.scale = 0.125f;
  p.q = reference::randn_bf16(static_cast<std::size_t>(p.shape.q_elements()), 11);
  p.k = reference::randn_bf16(static_cast<std::size_t>(p.shape.kv_elements()), 12);
  p.v = reference::randn_bf16(static_cast<std::size_t>(p.shape.kv_elements()), 13);
  g.mode = mode;
  g.provenance["seeds"] = "q=11 k=12 v=13";
  g.provenance["note.extra"] = "kept";
  g.fact_o_equals_v = RowsEqualV{0, 0, 0};
  compute_reference_values(g, 1);
  return g;
}

// The floor's O (bf16 values held in doubles) as bf16 bits: an ideal kernel's output.
std::vector<std::uint16_t> floor_bits(const GoldenFile& g) {
  std::vector<std::uint16_t> bits(g.o_floor.size());
  for (std::size_t i = 0; i < bits.size(); ++i) {
    bits[i] = numerics::bf16_from_f32(static_cast<float>(g.o_floor[i]), numerics::Rounding::RTZ);  // exact
  }
  return bits;
}

// A file changed after it was written, with its digest recomputed: what a hand-made file or a
// writer's bug looks like (the digest cannot catch it; the reader's other checks must).
SafetensorsFile resealed(SafetensorsFile f) {
  f.metadata[kDigestKey] = golden_digest(f);
  return f;
}

// Reads f (digest recomputed unless `reseal` is false) and expects one line containing `want`.
void expect_read_error(const SafetensorsFile& f0, const std::string& want, bool reseal = true) {
  const SafetensorsFile f = reseal ? resealed(f0) : f0;
  try {
    (void)from_safetensors(parse_safetensors(serialize_safetensors(f), "g.safetensors"), "g.safetensors");
    FAIL() << "no error, expected '" << want << "'";
  } catch (const SafetensorsError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    EXPECT_EQ(what.rfind("g.safetensors: ", 0), 0u) << what;
    EXPECT_NE(what.find(want), std::string::npos) << "message: " << what << "\nwanted: " << want;
  }
}

TEST(GoldenFile, ScaleIsWrittenAsExactDecimalAndHex) {
  EXPECT_EQ(exact_decimal(0.1f), "0.100000001490116119384765625");
  EXPECT_EQ(exact_decimal(-0.25f), "-0.25");
  EXPECT_EQ(exact_decimal(0.0f), "0");
  EXPECT_EQ(hex_float(0.125f), "0x1p-3");
  EXPECT_EQ(hex_float(0.1f), "0x1.99999ap-4");
  EXPECT_EQ(exact_decimal(0x1p-149f).substr(0, 12), "1.4012984643");
}

TEST(GoldenFile, RoundTripThroughSafetensors) {
  GoldenFile g = small_golden();
  g.kernel = KernelOutput{floor_bits(g), std::vector<float>(g.exact.lse.begin(), g.exact.lse.end())};
  const auto bytes = serialize_safetensors(to_safetensors(g));
  const SafetensorsFile st = parse_safetensors(bytes, "mem");
  for (const auto& key : required_metadata_keys(3, false, false)) EXPECT_TRUE(st.metadata.count(key)) << key;
  EXPECT_TRUE(st.metadata.count("fact_o_equals_v"));
  EXPECT_EQ(st.metadata.at("format"), kGoldenFormat);
  EXPECT_EQ(st.metadata.at("scale"), "0.125");
  EXPECT_EQ(st.metadata.at("scale_hex"), "0x1p-3");
  EXPECT_EQ(st.metadata.at("mask"), "causal_top_left");
  EXPECT_EQ(st.metadata.at("rounding"), "RTNE");
  EXPECT_EQ(st.metadata.at("fact_o_equals_v"), "0-0:0");
  EXPECT_EQ(st.metadata.at("executor"), "none");

  const GoldenFile r = from_safetensors(st, "mem");
  EXPECT_EQ(r.case_id, g.case_id);
  EXPECT_EQ(r.description, g.description);
  EXPECT_EQ(r.problem.shape.seqlen_k, 9);
  EXPECT_EQ(r.problem.shape.heads_kv, 1);
  EXPECT_EQ(r.problem.mask, g.problem.mask);
  EXPECT_EQ(r.problem.scale, g.problem.scale);
  EXPECT_EQ(r.problem.q, g.problem.q);
  EXPECT_EQ(r.problem.v, g.problem.v);
  EXPECT_EQ(r.mode, g.mode);
  EXPECT_EQ(r.o_bound, g.o_bound);
  EXPECT_EQ(r.o_floor, g.o_floor);
  EXPECT_EQ(r.exact.o, g.exact.o);
  ASSERT_TRUE(r.kernel.has_value());
  EXPECT_EQ(r.kernel->o, g.kernel->o);
  EXPECT_EQ(r.provenance.at("note.extra"), "kept");
  ASSERT_TRUE(r.fact_o_equals_v.has_value());
  EXPECT_EQ(r.fact_o_equals_v->last, 0);
  // Same content, same bytes.
  EXPECT_EQ(serialize_safetensors(to_safetensors(r)), bytes);
}

TEST(GoldenFile, BoundsMatchTheRuleAndMaskedRowsAreExact) {
  GoldenFile g = small_golden();
  g.problem.mask = reference::Mask::CausalBottomRight;
  g.problem.shape = {1, 6, 3, 2, 1, 64};  // rows 0-2 see nothing
  g.problem.k.resize(static_cast<std::size_t>(g.problem.shape.kv_elements()));
  g.problem.v.resize(static_cast<std::size_t>(g.problem.shape.kv_elements()));
  compute_reference_values(g, 1);
  EXPECT_EQ(g.lse_bound[0], 0.0);
  EXPECT_EQ(g.o_bound[0], 0.0);
  EXPECT_EQ(g.exact.lse[0], -std::numeric_limits<double>::infinity());
  const std::size_t last = g.o_bound.size() - 1;
  EXPECT_GT(g.o_bound[last], 0.0);
  EXPECT_LT(g.o_bound[last], 0.05);
}

TEST(GoldenFile, MalformedMetadataAndTensorsAreOneLineErrors) {
  const GoldenFile g = small_golden();
  const SafetensorsFile good = to_safetensors(g);
  {
    auto f = good;
    f.metadata.erase("mask");
    expect_read_error(f, "no metadata 'mask'");
  }
  {
    auto f = good;
    f.metadata["format"] = "something else";
    expect_read_error(f, "metadata 'format' is 'something else'");
  }
  {
    auto f = good;
    f.metadata["scale_hex"] = "0x1p-2";
    expect_read_error(f, "'scale' (0.125) and 'scale_hex' (0x1p-2) differ");
  }
  {
    auto f = good;
    f.metadata["scale"] = "0.1";  // not an fp32 value
    expect_read_error(f, "not the exact decimal of an fp32 value");
  }
  {
    auto f = good;
    f.metadata["seqlen_k"] = "-3";
    expect_read_error(f, "metadata 'seqlen_k' = '-3' is not an integer");
  }
  {
    auto f = good;
    f.metadata["heads_kv"] = "4";
    expect_read_error(f, "'heads_q' = 2 is not a multiple of heads_kv = 4");
  }
  {
    auto f = good;
    f.metadata["seqlen_k"] = "10";
    expect_read_error(f, "tensor 'k' has shape [1,9,1,64], expected [1,10,1,64]");
  }
  {
    auto f = good;
    f.metadata["rounding"] = "RTX";
    expect_read_error(f, "'rounding' = 'RTX'");
  }
  {
    auto f = good;
    f.metadata["fact_o_equals_v"] = "0-9:0";
    expect_read_error(f, "fact_o_equals_v");
  }
  {
    auto f = good;
    f.tensors["o_exact"] = make_f32({1, 6, 2, 64}, std::vector<float>(768));
    expect_read_error(f, "tensor 'o_exact' has dtype F32, expected F64");
  }
  {
    auto f = good;
    f.tensors.erase("o_floor");
    expect_read_error(f, "no tensor 'o_floor'");
  }
  {
    auto f = good;
    f.tensors["mystery"] = make_u8({1}, std::vector<std::uint8_t>{1});
    expect_read_error(f, "unknown tensor 'mystery'");
  }
  {
    auto f = good;
    f.tensors["lse_kernel"] = f.tensors.at("lse_exact");  // an LSE with no O (a kernel without LSE stores O only)
    expect_read_error(f, "lse_kernel without o_kernel");
  }
}

// The digest: any change after writing is refused (one line), whatever was changed.
TEST(GoldenFile, DigestCatchesEveryChange) {
  const SafetensorsFile good = to_safetensors(small_golden());
  ASSERT_EQ(good.metadata.at(kDigestKey).rfind("sha256:", 0), 0u);
  EXPECT_EQ(good.metadata.at(kDigestKey).size(), 7u + 64u);
  EXPECT_NO_THROW((void)from_safetensors(good, "g.safetensors"));
  const std::string mismatch = "digest mismatch: the file was modified after it was written (tensors or metadata); "
                               "regenerate it";
  {
    auto f = good;  // one bit of one tensor byte
    f.tensors.at("o_exact").data[100] ^= std::byte{0x01};
    expect_read_error(f, mismatch, false);
  }
  {
    auto f = good;  // a metadata value that is still valid
    f.metadata["description"] = "something else";
    expect_read_error(f, mismatch, false);
  }
  {
    auto f = good;  // o_bound edited to -1
    auto b = as_f64(f.tensors.at("o_bound"), "t");
    b[0] = -1;
    f.tensors["o_bound"] = make_f64(f.tensors.at("o_bound").shape, b);
    expect_read_error(f, mismatch, false);
  }
  {
    auto f = good;
    f.metadata.erase(kDigestKey);
    expect_read_error(f, "no metadata 'digest'", false);
  }
  {
    auto f = good;  // a v1 file (no digest)
    f.metadata.erase(kDigestKey);
    f.metadata["format"] = kGoldenFormatV1;
    expect_read_error(f, "golden format v1 has no digest and is no longer read", false);
  }
}

// Found with golden/fuzz (docs/fuzzing.md): metadata text with a control
// character gave a message of several lines; the CLI's error is one line.
TEST(GoldenFile, MetadataWithNewlinesGivesOneLine) {
  const SafetensorsFile good = to_safetensors(small_golden());
  {
    auto f = good;
    f.metadata["batch"] = "1\n2";
    expect_read_error(f, "metadata 'batch' = '1?2' is not an integer");
  }
  {
    auto f = good;
    f.metadata["bad\nkey"] = "x";
    expect_read_error(f, "metadata key 'bad?key' is not part of golden format v3");
  }
}

// Replaces the dense tensors of f by empty ones of batch 0 and Sq, Sk, Hq, Hkv, D = `e`, with
// `strides` for Q, K, V and O.
SafetensorsFile empty_batch(SafetensorsFile f, std::int64_t e, const std::string& strides) {
  for (const char* k : {"seqlen_q", "seqlen_k", "heads_q", "heads_kv", "head_dim", "head_dim_v"})
    f.metadata[k] = std::to_string(e);
  f.metadata["batch"] = "0";
  f.metadata.erase("fact_o_equals_v");
  for (const char* k : {"stride_q", "stride_k", "stride_v", "stride_o"})
    f.metadata[k] = strides;
  for (const char* t : {"q", "k", "v", "o_kernel"}) f.tensors[t] = make_bf16({0, e, e, e}, {});
  for (const char* t : {"o_exact", "o_bound", "o_floor"}) f.tensors[t] = make_f64({0, e, e, e}, {});
  for (const char* t : {"lse_exact", "lse_bound"}) f.tensors[t] = make_f64({0, e, e}, {});
  f.tensors["lse_kernel"] = make_f32({0, e, e}, {});
  return f;
}

// Found with golden/fuzz: batch 0 with extents whose product overflows int64 (the tensors are
// empty, so the reader's byte-size checks pass) made the layout's strides overflow (undefined
// behaviour). Refused now; batch 0 with extents whose products fit is still a valid file.
TEST(GoldenFile, EmptyBatchWithOverflowingExtentsIsRefused) {
  const SafetensorsFile good = to_safetensors(small_golden());
  EXPECT_NO_THROW(from_safetensors(resealed(empty_batch(good, 1000, "1000000000,1000000,1000,1")), "g.safetensors"));
  expect_read_error(empty_batch(good, 2147483647, "1,1,1,1"), "the product of a tensor's non-zero extents overflows 64 bits");
}

// Metadata keys: the format's, the tools' provenance keys and note.*; nothing else.
TEST(GoldenFile, UnknownMetadataKeysAreRefused) {
  const SafetensorsFile good = to_safetensors(small_golden());
  {
    auto f = good;  // refused whether or not the digest was recomputed
    f.metadata["alibi_slopes"] = "0.5";  // a feature the definition does not have (format v3 has softcap)
    const std::string want = "metadata key 'alibi_slopes' is not part of golden format v3 (the definition has no such "
                             "feature); free provenance keys must start with 'note.'";
    expect_read_error(f, want, false);
    expect_read_error(f, want, true);
  }
  {
    auto f = good;
    f.metadata["note."] = "an empty note name";
    expect_read_error(f, "metadata key 'note.' is not part of golden format v3");
  }
  {
    auto f = resealed(good);
    f.metadata["note.bug"] = "issue 9";
    f = resealed(f);
    EXPECT_EQ(from_safetensors(f, "g").provenance.at("note.bug"), "issue 9");
  }
  GoldenFile g = small_golden();
  g.provenance["alibi_slopes"] = "0.5";
  EXPECT_THROW((void)to_safetensors(g), std::invalid_argument);
}

// Stored values the definition cannot give (a hand-made file or a writer's bug, digest intact):
// one line naming the element; the same values are not written in the first place.
TEST(GoldenFile, ImpossibleStoredValuesAreABadFile) {
  const GoldenFile g = small_golden();
  const SafetensorsFile good = to_safetensors(g);
  auto edit = [&](const char* name, std::size_t at, double value) {
    auto f = good;
    auto t = as_f64(f.tensors.at(name), "t");
    t[at] = value;
    f.tensors[name] = make_f64(f.tensors.at(name).shape, t);
    return f;
  };
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  // Element 70 is b=0 h=1 i=0 d=6 ([B,Sq,Hq,D] = [1,6,2,64]).
  expect_read_error(edit("o_bound", 70, -1), "o_bound b=0 h=1 i=0 d=6 = -1 is negative");
  expect_read_error(edit("o_bound", 70, nan), "o_bound b=0 h=1 i=0 d=6 = nan is NaN, but the exact value is not");
  expect_read_error(edit("o_bound", 70, inf), "o_bound b=0 h=1 i=0 d=6 = inf is +inf, but the row's inputs are finite");
  expect_read_error(edit("lse_bound", 1, -0.5), "lse_bound b=0 h=0 i=1 = -0.5 is negative");
  expect_read_error(edit("o_exact", 70, nan), "o_exact b=0 h=1 i=0 d=6 is nan, but the row's inputs are finite");
  expect_read_error(edit("lse_exact", 1, nan), "lse_exact b=0 h=0 i=1 is nan, but the row sees 2 key(s)");
  expect_read_error(edit("o_floor", 70, 0.1), "o_floor b=0 h=1 i=0 d=6 = 0.10000000000000001 is not a bf16 value");
  expect_read_error(edit("o_floor", 70, nan), "o_floor b=0 h=1 i=0 d=6 is nan, but the exact value is finite");
  {
    auto f = good;  // a NaN scale: not a problem of the definition (docs/semantics.md section 1)
    f.metadata["scale"] = "nan";
    f.metadata["scale_hex"] = "nan";
    expect_read_error(f, "scale");
  }
  GoldenFile w = g;
  w.o_bound[70] = -1;
  const auto never = std::filesystem::temp_directory_path() / "golden_file_test_never.safetensors";
  std::filesystem::remove(never);
  EXPECT_THROW(write_golden(never, w), std::runtime_error);
  EXPECT_FALSE(std::filesystem::exists(never));
  std::filesystem::remove(never);
}

// Where the inputs hold a NaN, the definition gives NaN in the rows that see it, and those rows'
// bounds are NaN: such a file is good, and the rows that do not see the NaN stay checked.
TEST(GoldenFile, NaNFromANaNInputIsAccepted) {
  GoldenFile g = small_golden();
  g.problem.mask = reference::Mask::CausalBottomRight;  // Sq 6, Sk 9: row i sees keys 0 .. i + 3
  g.problem.v[5 * 64 + 2] = 0x7FC0;                     // NaN in V of key 5, column 2
  compute_reference_values(g, 1);
  ASSERT_TRUE(std::isnan(g.exact.o[2 * 128 + 2]));      // row 2 sees key 5
  ASSERT_FALSE(std::isnan(g.exact.o[1 * 128 + 2]));     // row 1 does not
  const SafetensorsFile f = to_safetensors(g);
  EXPECT_NO_THROW((void)from_safetensors(f, "g")) << stored_values_problem(g);
  GoldenFile bad_row = g;
  bad_row.exact.o[1 * 128 + 2] = std::numeric_limits<double>::quiet_NaN();
  bad_row.o_bound[1 * 128 + 2] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(stored_values_problem(bad_row).find("o_exact b=0 h=0 i=1 d=2 is nan, but the row's inputs are finite"),
            std::string::npos)
      << stored_values_problem(bad_row);
}

// Finite inputs whose scores may overflow fp32 (sum_d |Q_d K_d| = 64 * 2^124): the bound may be
// +inf there, and such a file is good; the same +inf in a row of small scores is not.
TEST(GoldenFile, InfiniteBoundWhereScoresMayOverflowIsAccepted) {
  GoldenFile g = small_golden();
  g.problem.mask = reference::Mask::None;
  g.fact_o_equals_v.reset();
  const std::uint16_t big = numerics::bf16_from_f32(0x1p62f, numerics::Rounding::RTNE);
  std::fill(g.problem.q.begin(), g.problem.q.begin() + 64, big);  // row 0, head 0
  std::fill(g.problem.k.begin(), g.problem.k.begin() + 64, big);  // key 0
  compute_reference_values(g, 1);
  ASSERT_TRUE(std::isinf(g.o_bound[0])) << g.o_bound[0];
  EXPECT_EQ(stored_values_problem(g), "");
  EXPECT_NO_THROW((void)from_safetensors(to_safetensors(g), "g"));
  GoldenFile small = small_golden();
  small.o_bound[0] = std::numeric_limits<double>::infinity();
  EXPECT_NE(stored_values_problem(small).find("o_bound b=0 h=0 i=0 d=0 = inf is +inf"), std::string::npos)
      << stored_values_problem(small);
}

TEST(GoldenFile, VerifyRecomputesAndCatchesTampering) {
  const GoldenFile g = small_golden();
  EXPECT_EQ(verify_reference_values(g, 1), "");
  {
    GoldenFile t = g;
    t.exact.o[70] *= 1 + 1e-12;  // far beyond the oracle's 2^-120-ish error
    EXPECT_NE(verify_reference_values(t, 1).find("o_exact b=0 h=1 i=0 d=6"), std::string::npos)
        << verify_reference_values(t, 1);
  }
  {
    GoldenFile t = g;
    t.exact.lse[3] = std::nextafter(t.exact.lse[3], 100.0);
    t.exact.lse[3] = std::nextafter(t.exact.lse[3], 100.0);
    t.exact.lse[3] = std::nextafter(t.exact.lse[3], 100.0);
    EXPECT_NE(verify_reference_values(t, 1).find("lse_exact"), std::string::npos);
  }
  {
    GoldenFile t = g;
    t.o_bound[5] *= 1.001;
    EXPECT_NE(verify_reference_values(t, 1).find("o_bound"), std::string::npos);
  }
  {
    GoldenFile t = g;
    t.lse_bound[1] *= 0.5;
    EXPECT_NE(verify_reference_values(t, 1).find("lse_bound"), std::string::npos);
  }
  {
    GoldenFile t = g;
    t.o_floor[7] += 2 * numerics::bf16_ulp(t.o_floor[7]);
    EXPECT_NE(verify_reference_values(t, 1).find("o_floor"), std::string::npos);
  }
  {
    GoldenFile t = g;
    t.problem.q[0] ^= 0x0100;  // inputs changed, stored values not
    EXPECT_NE(verify_reference_values(t, 1), "");
  }
}

TEST(GoldenFile, IdealKernelPassesAndMistakesFail) {
  const GoldenFile g = small_golden();
  const auto ideal = floor_bits(g);
  {
    const CandidateVerdict v = judge_candidate(g, ideal, std::nullopt);
    EXPECT_TRUE(v.pass()) << v.first_failure();
    EXPECT_FALSE(v.lse_given);
  }
  // One element 10 bf16 ULPs off where the bound is tighter than that.
  std::size_t pick = 0;
  double best = 1e300;
  for (std::size_t i = 0; i < g.o_bound.size(); ++i) {
    const double ulps = g.o_bound[i] / numerics::bf16_ulp(g.exact.o[i]);
    if (g.exact.o[i] != 0 && ulps < best) best = ulps, pick = i;
  }
  ASSERT_LT(best, 10.0);
  auto off = ideal;
  off[pick] = static_cast<std::uint16_t>(off[pick] + 10);
  const CandidateVerdict v = judge_candidate(g, off, std::nullopt);
  EXPECT_FALSE(v.pass());
  EXPECT_EQ(v.comparison.o_violations, 1);
  // Row 0 sees key 0 only (top-left): the fact O = V_0 catches a one-ULP change there.
  auto row0 = ideal;
  row0[3] = static_cast<std::uint16_t>(row0[3] + 1);
  const CandidateVerdict f = judge_candidate(g, row0, std::nullopt);
  EXPECT_FALSE(f.pass());
  EXPECT_NE(f.fact_failure.find("O[b=0, h=0, i=0, d=3]"), std::string::npos) << f.fact_failure;
  // Wrong sizes are bad input.
  EXPECT_THROW(judge_candidate(g, std::vector<std::uint16_t>(5), std::nullopt), std::invalid_argument);
  const std::vector<float> short_lse(3);
  EXPECT_THROW(judge_candidate(g, ideal, std::span<const float>(short_lse)), std::invalid_argument);
}

TEST(GoldenFile, LseIsJudgedWhenGiven) {
  const GoldenFile g = small_golden();
  const auto ideal = floor_bits(g);
  std::vector<float> lse(g.exact.lse.begin(), g.exact.lse.end());
  EXPECT_TRUE(judge_candidate(g, ideal, std::span<const float>(lse)).pass());
  lse[4] *= 1.01f;
  const CandidateVerdict v = judge_candidate(g, ideal, std::span<const float>(lse));
  EXPECT_TRUE(v.lse_given);
  EXPECT_EQ(v.comparison.lse_violations, 1);
}

// The committed set: every file parses, and the stored kernel bits of C07 in RTNE pass while
// those of RTZ (same inputs) fail the RTNE file's floor rule.
TEST(GoldenFile, CommittedSetRtzKernelFailsTheRtneFloor) {
  const std::filesystem::path dir = CDNA_GOLDEN_SET_DIR;
  const GoldenFile rtne = read_golden(dir / "C07.rtne.safetensors");
  const GoldenFile rtz = read_golden(dir / "C07.rtz.safetensors");
  ASSERT_TRUE(rtne.kernel && rtz.kernel);
  EXPECT_EQ(rtne.problem.q, rtz.problem.q);
  EXPECT_TRUE(judge_candidate(rtne, rtne.kernel->o, std::span<const float>(rtne.kernel->lse)).pass());
  const CandidateVerdict v = judge_candidate(rtne, rtz.kernel->o, std::span<const float>(rtz.kernel->lse));
  EXPECT_FALSE(v.pass());
  EXPECT_TRUE(v.comparison.floor_violation) << v.comparison.rel_rms_err_o << " vs floor " << v.comparison.floor_rel_rms_o;
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".safetensors") continue;
    EXPECT_NO_THROW((void)read_golden(e.path())) << e.path();
    ++files;
  }
  EXPECT_GE(files, 40u);
}

}  // namespace
}  // namespace cdna::golden
