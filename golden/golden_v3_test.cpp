// Golden format v3 (docs/golden-files.md): every feature of the extended definition survives a
// write and a read; inconsistent combinations, bad layouts and tampering are one-line errors; v2
// files are still read; varlen files are judged per sequence.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "golden/digest.hpp"
#include "golden/golden_file.hpp"
#include "golden/stored_values.hpp"
#include "reference/attention/inputs.hpp"

namespace cdna::golden {
namespace {

using reference::AttentionProblem;
using reference::Mask;
constexpr double kInf = std::numeric_limits<double>::infinity();

// Stored values that satisfy the sanity rules (stored_values.hpp) without being the oracle's:
// rows with a key get O 0.25, LSE 1, bounds 0.5; rows without one the definition's O +0 and LSE
// (-inf, or the head's sink) with bounds 0. For the format tests only, which never judge them.
void placeholder_dense(const AttentionProblem& p, std::vector<double>& o, std::vector<double>& lse,
                       std::vector<double>& o_bound, std::vector<double>& lse_bound) {
  const auto& s = p.shape;
  o.assign(static_cast<std::size_t>(s.o_elements()), 0.25);
  lse.assign(static_cast<std::size_t>(s.lse_elements()), 1.0);
  o_bound.assign(o.size(), 0.5);
  lse_bound.assign(lse.size(), 0.5);
  for (std::int64_t b = 0; b < s.batch; ++b)
    for (std::int64_t h = 0; h < s.heads_q; ++h)
      for (std::int64_t i = 0; i < s.seqlen_q; ++i) {
        if (reference::visible_range(p, i).count > 0) continue;
        const auto l = static_cast<std::size_t>((b * s.heads_q + h) * s.seqlen_q + i);
        lse[l] = p.sinks.empty() ? -kInf : p.sinks[static_cast<std::size_t>(h)];
        lse_bound[l] = 0;
        for (std::int64_t d = 0; d < s.dv(); ++d) {
          const auto at = static_cast<std::size_t>(((b * s.seqlen_q + i) * s.heads_q + h) * s.dv() + d);
          o[at] = 0.0;
          o_bound[at] = 0;
        }
      }
}

void fill_placeholder(GoldenFile& g) {
  if (!g.varlen) {
    placeholder_dense(g.problem, g.exact.o, g.exact.lse, g.o_bound, g.lse_bound);
  } else {
    const auto& vp = *g.varlen;
    g.exact.o.assign(static_cast<std::size_t>(vp.o_elements()), std::nan(""));
    g.exact.lse.assign(static_cast<std::size_t>(vp.lse_elements()), std::nan(""));
    g.o_bound = g.exact.o;
    g.lse_bound = g.exact.lse;
    for (std::int64_t b = 0; b < vp.sequences(); ++b) {
      std::vector<double> o, lse, ob, lb;
      placeholder_dense(reference::sequence_problem(vp, b), o, lse, ob, lb);
      reference::scatter_sequence(vp, b, o, lse, g.exact.o, g.exact.lse);
      reference::scatter_sequence(vp, b, ob, lb, g.o_bound, g.lse_bound);
    }
  }
  g.o_floor = g.exact.o;
}

GoldenFile dense(reference::AttentionShape shape, Mask mask, std::uint64_t seed) {
  GoldenFile g;
  g.case_id = "v3/dense";
  g.description = "format test";
  g.problem.shape = shape;
  g.problem.mask = mask;
  g.problem.scale = 0.125f;
  reference::fill_randn(g.problem, seed);
  return g;
}

void make_fp8(GoldenFile& g, reference::ElementType type) {
  for (auto* t : {&g.problem.q, &g.problem.k, &g.problem.v})
    for (std::size_t i = 0; i < t->size(); ++i) (*t)[i] = static_cast<std::uint16_t>((i * 37 + 5) % 0x80);  // no 0x80 (NaN)
  g.problem.dtype = type;
}

// A varlen file: 3 sequences, padded query starts, one without keys; `paged`: K/V in pages.
GoldenFile varlen(bool paged) {
  GoldenFile g;
  g.case_id = paged ? "v3/paged" : "v3/varlen";
  g.description = "format test";
  reference::VarlenProblem vp;
  vp.base.shape = {3, 0, 0, 2, 1, 64};
  vp.base.mask = Mask::CausalBottomRight;
  vp.cu_seqlens_q = {0, 2, 5, 6};
  vp.seqstart_q = {0, 3, 6, 8};  // rows 2, 6 and 7 belong to no sequence
  std::int64_t rows_k = 0;
  if (paged) {
    vp.seqused_k = {5, 0, 9};
    vp.page_size = 4;
    vp.pages_per_sequence = 3;
    vp.block_table = {2, 0, 0, 1, 1, 1, 3, 4, 0};
    rows_k = 5 * 4;
  } else {
    vp.cu_seqlens_k = {0, 4, 4, 11};
    rows_k = 11;
  }
  vp.q = reference::randn_bf16(static_cast<std::size_t>(9 * 2 * 64), 21);
  vp.k = reference::randn_bf16(static_cast<std::size_t>(rows_k * 64), 22);
  vp.v = reference::randn_bf16(static_cast<std::size_t>(rows_k * 64), 23);
  g.varlen = std::move(vp);
  return g;
}

GoldenFile read_back(const GoldenFile& g) {
  return from_safetensors(parse_safetensors(serialize_safetensors(to_safetensors(g)), "mem"), "mem");
}

// Expects reading f (digest recomputed) to fail with one line containing `want`.
void expect_refused(SafetensorsFile f, const std::string& want) {
  f.metadata[kDigestKey] = golden_digest(f);
  try {
    (void)from_safetensors(parse_safetensors(serialize_safetensors(f), "g.safetensors"), "g.safetensors");
    ADD_FAILURE() << "no error, expected '" << want << "'";
  } catch (const SafetensorsError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    EXPECT_EQ(what.rfind("g.safetensors: ", 0), 0u) << what;
    EXPECT_NE(what.find(want), std::string::npos) << "message: " << what << "\nwanted: " << want;
  }
}

SafetensorsFile written(GoldenFile g) {
  fill_placeholder(g);
  return to_safetensors(g);
}

void expect_same_problem(const AttentionProblem& a, const AttentionProblem& b) {
  EXPECT_EQ(a.shape.batch, b.shape.batch);
  EXPECT_EQ(a.shape.seqlen_q, b.shape.seqlen_q);
  EXPECT_EQ(a.shape.seqlen_k, b.shape.seqlen_k);
  EXPECT_EQ(a.shape.heads_q, b.shape.heads_q);
  EXPECT_EQ(a.shape.heads_kv, b.shape.heads_kv);
  EXPECT_EQ(a.shape.head_dim, b.shape.head_dim);
  EXPECT_EQ(a.shape.dv(), b.shape.dv());
  EXPECT_EQ(a.mask, b.mask);
  EXPECT_EQ(a.scale, b.scale);
  EXPECT_EQ(a.window_left, b.window_left);
  EXPECT_EQ(a.window_right, b.window_right);
  EXPECT_EQ(a.softcap, b.softcap);
  EXPECT_EQ(a.sinks, b.sinks);
  EXPECT_EQ(a.dtype, b.dtype);
  EXPECT_EQ(a.descale_q, b.descale_q);
  EXPECT_EQ(a.descale_k, b.descale_k);
  EXPECT_EQ(a.descale_v, b.descale_v);
  EXPECT_EQ(a.q, b.q);
  EXPECT_EQ(a.k, b.k);
  EXPECT_EQ(a.v, b.v);
}

TEST(GoldenV3, EveryFeatureSurvivesAWriteAndARead) {
  std::vector<std::pair<std::string, GoldenFile>> files;
  auto add = [&](std::string name, GoldenFile g) { files.emplace_back(std::move(name), std::move(g)); };
  {
    auto g = dense({1, 6, 9, 2, 1, 64}, Mask::None, 1);
    g.problem.window_left = 3;
    g.problem.window_right = 0;
    add("window", g);
  }
  {
    auto g = dense({1, 4, 5, 2, 1, 64}, Mask::None, 2);
    g.problem.softcap = 30.0f;
    add("softcap", g);
  }
  {
    auto g = dense({1, 7, 3, 2, 2, 64}, Mask::CausalBottomRight, 3);  // rows 0-3 see no key: LSE = the sink
    g.problem.sinks = {1.5f, -std::numeric_limits<float>::infinity()};
    add("sinks", g);
  }
  add("dv", dense({1, 3, 4, 2, 2, 192, 128}, Mask::None, 4));
  {
    auto g = dense({2, 3, 4, 4, 2, 64}, Mask::None, 5);
    make_fp8(g, reference::ElementType::FP8_E4M3FNUZ);
    g.problem.descale_q = {0.5f, 1, 2, 4};
    g.problem.descale_k = {1, 1, 0.25f, 1};
    g.problem.descale_v = {3};
    add("fp8 e4m3, descale per (b, kv head)", g);
  }
  {
    auto g = dense({1, 3, 4, 2, 1, 64}, Mask::None, 6);
    make_fp8(g, reference::ElementType::FP8_E5M2FNUZ);
    g.problem.descale_k = {0.125f};
    add("fp8 e5m2", g);
  }
  {
    auto g = dense({2, 3, 4, 2, 1, 64}, Mask::None, 7);
    g.layout = *named_layout("sbhd", g.problem.shape);
    add("sbhd", g);
  }
  {
    auto g = dense({2, 3, 4, 2, 1, 64}, Mask::None, 8);
    g.layout = Layout{"strided", {600, 200, 80, 1}, {512, 128, 64, 1}, {512, 128, 64, 1}, {128, 256, 768, 2}};
    add("strided", g);
  }
  add("varlen", varlen(false));
  add("paged", varlen(true));
  for (auto& [name, g] : files) {
    SCOPED_TRACE(name);
    fill_placeholder(g);
    const GoldenFile r = read_back(g);
    EXPECT_EQ(r.format_version, 3);
    expect_same_problem(r.features(), g.features());
    EXPECT_EQ(r.varlen.has_value(), g.varlen.has_value());
    if (g.varlen) {
      EXPECT_EQ(r.varlen->cu_seqlens_q, g.varlen->cu_seqlens_q);
      EXPECT_EQ(r.varlen->cu_seqlens_k, g.varlen->cu_seqlens_k);
      EXPECT_EQ(r.varlen->seqstart_q, g.varlen->seqstart_q);
      EXPECT_EQ(r.varlen->seqused_k, g.varlen->seqused_k);
      EXPECT_EQ(r.varlen->page_size, g.varlen->page_size);
      EXPECT_EQ(r.varlen->pages_per_sequence, g.varlen->pages_per_sequence);
      EXPECT_EQ(r.varlen->block_table, g.varlen->block_table);
      EXPECT_EQ(r.varlen->q, g.varlen->q);
      EXPECT_EQ(r.varlen->k, g.varlen->k);
      EXPECT_EQ(r.varlen->v, g.varlen->v);
    } else {
      const Layout want = g.layout.name == "bshd" ? *named_layout("bshd", g.problem.shape) : g.layout;
      EXPECT_EQ(r.layout.name, want.name);
      EXPECT_EQ(r.layout.q, want.q);
      EXPECT_EQ(r.layout.o, want.o);
    }
    EXPECT_EQ(r.o_shape(), g.o_shape());
    EXPECT_EQ(r.exact.o.size(), g.exact.o.size());
    EXPECT_EQ(r.exact.lse.size(), g.exact.lse.size());
  }
}

TEST(GoldenV3, FeatureMetadataAndTensorsAreWritten) {
  auto g = dense({1, 7, 3, 2, 2, 64}, Mask::CausalBottomRight, 3);
  g.problem.sinks = {1.5f, 2.0f};
  g.problem.window_left = 2;
  const SafetensorsFile f = written(g);
  EXPECT_EQ(f.metadata.at("format"), "cdna-verify golden attention-forward v3");
  EXPECT_EQ(f.metadata.at("window_left"), "2");
  EXPECT_EQ(f.metadata.at("window_right"), "-1");
  EXPECT_EQ(f.metadata.at("layout"), "bshd");
  EXPECT_EQ(f.metadata.at("stride_q"), "896,128,64,1");
  EXPECT_EQ(f.find("sinks")->shape, std::vector<std::int64_t>{2});
  auto p = varlen(true);
  const SafetensorsFile fp = written(p);
  EXPECT_EQ(fp.metadata.at("page_size"), "4");
  EXPECT_EQ(fp.metadata.at("pages"), "5");
  EXPECT_EQ(fp.find("k")->shape, (std::vector<std::int64_t>{5, 4, 1, 64}));
  EXPECT_EQ(fp.find("o_exact")->shape, (std::vector<std::int64_t>{9, 2, 64}));
  EXPECT_EQ(fp.find("lse_exact")->shape, (std::vector<std::int64_t>{2, 9}));
  EXPECT_EQ(fp.metadata.count("seqlen_q"), 0u);
}

TEST(GoldenV3, InconsistentCombinationsAreOneLineErrors) {
  const SafetensorsFile d = written(dense({1, 3, 4, 2, 1, 64}, Mask::None, 9));
  const SafetensorsFile pg = written(varlen(true));
  const SafetensorsFile vl = written(varlen(false));
  {
    auto f = pg;
    f.metadata.erase("page_size");
    f.metadata.erase("pages");
    expect_refused(f, "tensor 'block_table' without metadata 'page_size'");
  }
  {
    auto f = pg;
    f.tensors.erase("block_table");
    expect_refused(f, "metadata 'page_size' without tensor 'block_table'");
  }
  {
    auto f = vl;
    f.metadata["pages"] = "3";
    expect_refused(f, "metadata 'pages' without 'page_size'");
  }
  {
    auto f = pg;
    f.metadata["rows_k"] = "20";
    expect_refused(f, "metadata 'rows_k' with 'page_size'");
  }
  {
    auto f = d;
    f.tensors["seqused_k"] = make_i32({1}, std::vector<std::int32_t>{4});
    expect_refused(f, "tensor 'seqused_k' without tensor 'cu_seqlens_q'");
  }
  {
    auto f = d;
    f.metadata["page_size"] = "4";
    expect_refused(f, "metadata 'page_size' is for varlen files");
  }
  {
    auto f = vl;
    f.metadata["seqlen_q"] = "5";
    expect_refused(f, "metadata 'seqlen_q' is for dense files");
  }
  {
    auto f = pg;
    f.tensors["block_table"] = make_i32({3, 3}, std::vector<std::int32_t>{2, 0, 0, 1, 1, 1, 3, 4, 7});
    expect_refused(f, "block_table");  // page 7 of 5: reference::validate names it
  }
  {
    auto f = d;
    f.metadata["stride_q"] = "768,128,64,2";
    expect_refused(f, "the strides are not those of layout 'bshd'");
  }
  {
    auto f = d;
    f.metadata["layout"] = "strided";
    f.metadata["stride_q"] = "384,64,64,1";  // s and h both step 64: rows overlap heads
    expect_refused(f, "share an address");
  }
  {
    auto f = d;
    f.metadata["layout"] = "nhwc";
    expect_refused(f, "layout 'nhwc' is not bshd, bhsd, sbhd or strided");
  }
  {
    auto f = d;
    f.metadata["stride_k"] = "1,2,3";
    expect_refused(f, "metadata 'stride_k' = '1,2,3' is not four integers");
  }
  {
    auto f = d;
    f.metadata["dtype"] = "fp8_e4m3fnuz";  // q, k, v stay BF16
    expect_refused(f, "tensor 'q' has dtype BF16, expected U8");
  }
  {
    auto f = d;
    f.metadata["dtype"] = "fp8";
    expect_refused(f, "metadata 'dtype' = 'fp8' is not bf16, fp8_e4m3fnuz or fp8_e5m2fnuz");
  }
  {
    auto f = d;
    f.tensors["descale_q"] = make_f32({2}, std::vector<float>{1, 1});
    expect_refused(f, "tensor 'descale_q' has shape [2], expected [1] or [1,1]");
  }
  {
    auto f = d;
    f.tensors["descale_q"] = make_f32({1}, std::vector<float>{2});
    expect_refused(f, "descale");  // descale factors on bf16 inputs: reference::validate
  }
  {
    auto f = d;
    f.tensors["sinks"] = make_f32({3}, std::vector<float>{0, 0, 0});
    expect_refused(f, "tensor 'sinks' has shape [3], expected [2]");
  }
  {
    auto f = d;
    f.metadata["window_left"] = "-2";
    expect_refused(f, "metadata 'window_left' = '-2' is not an integer");
  }
  {
    auto f = d;
    f.metadata["softcap"] = "0.1";
    expect_refused(f, "metadata 'softcap' = '0.1' is not the exact decimal of an fp32 value");
  }
  {
    auto f = d;
    f.metadata["alibi_slopes"] = "1";
    expect_refused(f, "metadata key 'alibi_slopes' is not part of golden format v3");
  }
  {
    auto f = d;
    f.metadata.erase("head_dim_v");
    expect_refused(f, "no metadata 'head_dim_v'");
  }
  {
    auto f = vl;
    f.metadata["fact_o_equals_v"] = "0-0:0";
    expect_refused(f, "metadata 'fact_o_equals_v' is for dense files");
  }
}

TEST(GoldenV3, TamperingIsCaughtByTheDigest) {
  for (bool paged : {false, true}) {
    SafetensorsFile f = written(varlen(paged));
    f.tensors.at(paged ? "block_table" : "cu_seqlens_q").data[0] ^= std::byte{1};
    try {
      (void)from_safetensors(parse_safetensors(serialize_safetensors(f), "g"), "g");
      ADD_FAILURE() << "a changed byte was read";
    } catch (const SafetensorsError& e) {
      EXPECT_NE(std::string(e.what()).find("digest mismatch"), std::string::npos) << e.what();
    }
  }
  SafetensorsFile f = written(dense({1, 3, 4, 2, 1, 64}, Mask::None, 9));
  f.metadata["window_left"] = "1";  // unsealed: the digest no longer matches
  try {
    (void)from_safetensors(parse_safetensors(serialize_safetensors(f), "g"), "g");
    ADD_FAILURE() << "a changed window was read";
  } catch (const SafetensorsError& e) {
    EXPECT_NE(std::string(e.what()).find("digest mismatch"), std::string::npos) << e.what();
  }
}

TEST(GoldenV3, StoredValuesFollowTheSinksAndPerSequenceRules) {
  auto g = dense({1, 7, 3, 2, 2, 64}, Mask::CausalBottomRight, 3);  // rows 0-3 see no key
  g.problem.sinks = {1.5f, -std::numeric_limits<float>::infinity()};
  fill_placeholder(g);
  EXPECT_EQ(stored_values_problem(g), "");
  g.exact.lse[0] = -kInf;  // head 0 has a finite sink: LSE of a keyless row is the sink, not -inf
  EXPECT_NE(stored_values_problem(g).find("the definition gives its sink 1.5"), std::string::npos)
      << stored_values_problem(g);

  auto v = varlen(false);
  fill_placeholder(v);
  EXPECT_EQ(stored_values_problem(v), "");
  // Sequence 1 has no key: its row (storage row 3) must hold LSE -inf.
  v.exact.lse[3] = 0.0;
  EXPECT_NE(stored_values_problem(v).find("sequence 1: lse_exact"), std::string::npos) << stored_values_problem(v);
}

TEST(GoldenV3, VarlenFilesAreComputedAndJudgedPerSequence) {
  GoldenFile g = varlen(true);
  g.mode = numerics::Rounding::RTNE;
  compute_reference_values(g, 1);
  const GoldenFile r = read_back(g);
  EXPECT_EQ(verify_reference_values(r, 1), "");
  std::vector<std::uint16_t> o(r.o_floor.size());
  for (std::size_t i = 0; i < o.size(); ++i)
    o[i] = std::isnan(r.o_floor[i]) ? 0x7FC0 : numerics::bf16_from_f32(static_cast<float>(r.o_floor[i]), numerics::Rounding::RTZ);
  const CandidateVerdict ok = judge_candidate(r, o, std::nullopt);
  EXPECT_TRUE(ok.pass()) << ok.first_failure();
  EXPECT_GT(ok.comparison.o_judged, 0);
  // Storage rows 2, 6 and 7 belong to no sequence: never judged, whatever they hold.
  EXPECT_EQ(ok.comparison.o_judged, 6 * 2 * 64);
  // Sequence 1 has no key: its row (storage row 3) must be +0.0.
  auto bad = o;
  bad[3 * 2 * 64] = 0x3F80;  // 1.0
  const CandidateVerdict v = judge_candidate(r, bad, std::nullopt);
  EXPECT_FALSE(v.pass());
  EXPECT_NE(v.first_failure().find("sequence 1"), std::string::npos) << v.first_failure();
  // Stored exact values edited after the fact: re-derivation catches it.
  GoldenFile t = r;
  t.exact.o[0] += 1e-3;
  EXPECT_NE(verify_reference_values(t, 1).find("o_exact row=0 h=0 d=0"), std::string::npos) << verify_reference_values(t, 1);
}

TEST(GoldenV3, V2FilesAreStillReadAndJudged) {
  const GoldenFile g = read_golden(std::filesystem::path(CDNA_GOLDEN_SET_DIR) / "C03.rtne.safetensors");
  EXPECT_EQ(g.format_version, 2);
  EXPECT_FALSE(g.varlen);
  EXPECT_EQ(g.layout.name, "bshd");
  EXPECT_EQ(g.layout.q, named_layout("bshd", g.problem.shape)->q);
  EXPECT_FALSE(reference::extended_feature(g.problem));
  ASSERT_TRUE(g.kernel);
  EXPECT_TRUE(judge_candidate(g, g.kernel->o, std::span<const float>(g.kernel->lse)).pass());
  // v3's feature keys are not v2 keys: a v2 file carrying one is refused, not judged without it.
  SafetensorsFile f = read_safetensors(std::filesystem::path(CDNA_GOLDEN_SET_DIR) / "C03.rtne.safetensors");
  f.metadata["window_left"] = "2";
  expect_refused(f, "metadata key 'window_left' is not part of golden format v2");
  // Rewritten, it is a v3 file of the same problem.
  const GoldenFile r = read_back(g);
  EXPECT_EQ(r.format_version, 3);
  expect_same_problem(r.problem, g.problem);
}

// The committed window (0, 0) file holds the definition's fact: each row sees its diagonal key
// only, so the exact O and our kernel's O are that key's V row (docs/semantics.md, windows).
TEST(GoldenV3, CommittedWindowZeroFileHoldsTheDiagonalFact) {
  const GoldenFile g = read_golden(std::filesystem::path(CDNA_GOLDEN_SET_DIR) / "X03-window-0-0.rtne.safetensors");
  const auto& s = g.problem.shape;
  ASSERT_EQ(g.problem.window_left, 0);
  ASSERT_EQ(g.problem.window_right, 0);
  ASSERT_TRUE(g.kernel);
  ASSERT_EQ(s.seqlen_q, s.seqlen_k);
  for (std::int64_t i = 0; i < s.seqlen_q; ++i)
    for (std::int64_t d = 0; d < s.head_dim; ++d) {
      const auto at = static_cast<std::size_t>(i * s.head_dim + d);
      const double v = numerics::f32_from_bf16(g.problem.v[at]);
      EXPECT_EQ(g.exact.o[at], v) << "i=" << i << " d=" << d;
      EXPECT_EQ(static_cast<double>(numerics::f32_from_bf16(g.kernel->o[at])), v) << "i=" << i << " d=" << d;
    }
}

TEST(GoldenV3, LayoutsDeriveTheirStrides) {
  const reference::AttentionShape s{2, 3, 5, 4, 2, 64, 32};
  EXPECT_EQ(named_layout("bshd", s)->q, (Strides{3 * 4 * 64, 4 * 64, 64, 1}));
  EXPECT_EQ(named_layout("bhsd", s)->k, (Strides{2 * 5 * 64, 64, 5 * 64, 1}));
  EXPECT_EQ(named_layout("sbhd", s)->o, (Strides{4 * 32, 2 * 4 * 32, 32, 1}));
  EXPECT_FALSE(named_layout("strided", s));
  EXPECT_EQ(parse_strides("1,-2,3,4"), (Strides{1, -2, 3, 4}));
  EXPECT_FALSE(parse_strides("1,2,3"));
  EXPECT_FALSE(parse_strides("1,2,3,4,5"));
  EXPECT_FALSE(parse_strides("1,2,,4"));
  Layout l = *named_layout("bshd", s);
  l.name = "strided";
  EXPECT_EQ(layout_problem(l, s), "");
  l.q[0] = -1;
  EXPECT_NE(layout_problem(l, s).find("negative"), std::string::npos);
  l.q = {0, 256, 64, 1};  // B = 2 on stride 0
  EXPECT_NE(layout_problem(l, s).find("is 0 on a dim of extent 2"), std::string::npos);
}

}  // namespace
}  // namespace cdna::golden
