#include "audit/golden/golden_cases.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <string>

#include "audit/cases/rounding_cases.hpp"
#include "reference/attention/inputs.hpp"

namespace cdna::audit {
namespace {

using reference::AttentionShape;
using reference::Mask;

std::string lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

}  // namespace

std::string seeds_text(std::uint64_t seed) {
  return "q=" + std::to_string(seed) + " k=" + std::to_string(seed + 1) + " v=" + std::to_string(seed + 2) +
         " (reference::randn_bf16: mt19937_64, Box-Muller, rounded to bf16 RTNE)";
}

GoldenCaseSpec randn_case(std::string id, std::string description, AttentionShape shape, Mask mask,
                          std::uint64_t seed, double qk_std, double v_std) {
  GoldenCaseSpec c;
  c.id = std::move(id);
  c.description = std::move(description);
  c.problem = reference::randn_problem(shape, mask, seed, qk_std, v_std);
  c.seeds = seeds_text(seed);
  std::ostringstream in;
  in << "Q, K = " << qk_std << " * randn, V = " << v_std << " * randn; scale = fl32(1/sqrt(D))";
  c.inputs = in.str();
  return c;
}

std::vector<GoldenCaseSpec> golden_cases() {
  std::vector<GoldenCaseSpec> cases;
  {
    auto c = randn_case("C01", "one key: O = V bit for bit, LSE = the single scaled score", {1, 1, 1, 1, 1, 64},
                        Mask::None, 101, 3.0, 3.0);
    c.fact = golden::RowsEqualV{0, 0, 0};
    cases.push_back(std::move(c));
  }
  for (Mask mask : {Mask::CausalBottomRight, Mask::CausalTopLeft}) {
    const bool br = mask == Mask::CausalBottomRight;
    auto c = randn_case(br ? "C02-bottom-right" : "C02-top-left",
                        br ? "Sq 1, Sk 239, causal bottom-right: same as no mask"
                           : "Sq 1, Sk 239, causal top-left: O = V of key 0",
                        {1, 1, 239, 1, 1, 64}, mask, 102);
    c.reduction = "heads 8/8 -> 1/1, D 128 -> 64 (Sq 1, Sk 239 and the mask kept)";
    if (!br) c.fact = golden::RowsEqualV{0, 0, 0};
    cases.push_back(std::move(c));
  }
  {
    auto c = randn_case("C03", "Sq 5, Sk 2 causal: rows 0-2 fully masked, row 3 = V0, row 4 sees both",
                        {1, 5, 2, 4, 4, 64}, Mask::CausalBottomRight, 103);
    c.fact = golden::RowsEqualV{3, 3, 0};
    cases.push_back(std::move(c));
  }
  {
    auto c = randn_case("C04", "Sq 130, Sk 19 causal: rows 0-110 fully masked, on no tile boundary",
                        {1, 130, 19, 1, 1, 64}, Mask::CausalBottomRight, 104);
    c.reduction = "Sq 301 -> 130, Sk 190 -> 19 (Sq - Sk = 111 fully masked rows kept), heads 2/2 -> 1/1, D 128 -> 64";
    cases.push_back(std::move(c));
  }
  {
    GoldenCaseSpec c;
    c.id = "C06";
    c.description = "all inputs 133120, scale 0.25: huge equal scores, O = V exactly";
    c.problem.shape = {1, 1, 4, 1, 1, 64};
    c.problem.scale = 0.25f;
    c.problem.q = reference::filled_bf16(64, 133120.0);
    c.problem.k = reference::filled_bf16(256, 133120.0);
    c.problem.v = reference::filled_bf16(256, 133120.0);
    c.seeds = "none";
    c.inputs = "every element of Q, K, V = 133120 (exact in bf16); scale 0.25";
    c.fact = golden::RowsEqualV{0, 0, 0};
    cases.push_back(std::move(c));
  }
  {
    auto c = randn_case("C07", "Sq 17, Sk 519, Q and K = 4 randn: logit std about 16", {1, 17, 519, 1, 1, 64},
                        Mask::None, 107, 4.0, 1.0);
    c.reduction = "Sq 257 -> 17, heads 2/2 -> 1/1, D 128 -> 64 (Sk 519 and the logit std of 16 kept)";
    cases.push_back(std::move(c));
  }
  {
    auto c = randn_case("C08", "Sq = Sk = 64 causal, scale 0: row i = mean of V0..Vi, no NaN", {1, 64, 64, 1, 1, 64},
                        Mask::CausalBottomRight, 108);
    c.problem.scale = 0.0f;
    c.inputs = "Q, K, V = randn; scale 0";
    c.reduction = "heads 2/2 -> 1/1";
    cases.push_back(std::move(c));
  }
  {
    auto c = randn_case("C09", "Sq = Sk = 40, scale -1/sqrt(D)", {1, 40, 40, 1, 1, 128}, Mask::None, 109);
    c.problem.scale = -c.problem.scale;
    c.inputs = "Q, K, V = randn; scale = -fl32(1/sqrt(D))";
    c.reduction = "Sq = Sk 128 -> 40, heads 2/2 -> 1/1 (D 128 kept)";
    cases.push_back(std::move(c));
  }
  {
    auto c = randn_case("C10", "Sq 16, Sk 300, every K row identical: all scores tie, O = mean of V",
                        {1, 16, 300, 1, 1, 64}, Mask::None, 110);
    const auto& s = c.problem.shape;
    const std::size_t row = static_cast<std::size_t>(s.heads_kv * s.head_dim);
    for (std::size_t j = 1; j < static_cast<std::size_t>(s.seqlen_k); ++j)
      std::copy_n(c.problem.k.begin(), row, c.problem.k.begin() + static_cast<std::ptrdiff_t>(j * row));
    c.inputs = "Q, V = randn; K = randn with every row replaced by row 0";
    c.reduction = "Sq 64 -> 16, heads 2/2 -> 1/1, D 128 -> 64 (Sk 300 kept)";
    cases.push_back(std::move(c));
  }
  {
    auto c = randn_case("C12", "Sq = Sk = 4, 16/2 heads: LSE per query head, GQA mapping h / 8",
                        {1, 4, 4, 16, 2, 64}, Mask::None, 112);
    c.reduction = "Sq = Sk 256 -> 4, heads 64/8 -> 16/2 (group of 8 query heads per KV head kept), D 128 -> 64";
    cases.push_back(std::move(c));
  }
  for (std::int64_t d : {59, 111}) {
    cases.push_back(randn_case("C13-d" + std::to_string(d),
                               "D = " + std::to_string(d) + ": defined, but a kernel built for D 64/128 must reject it",
                               {1, 16, 16, 1, 1, d}, Mask::None, 113));
  }
  for (const RoundingCase& r : rounding_cases()) {  // crafted: every mode gives other bits
    GoldenCaseSpec c;
    c.id = r.id;
    c.description = r.description;
    c.problem = r.problem;
    c.seeds = r.seeds;
    c.inputs = r.inputs;
    cases.push_back(std::move(c));
  }
  // The grid: GQA 2/1, D 64, (Sq, Sk) short and long either way, every mask where it differs.
  const std::pair<std::int64_t, std::int64_t> lengths[] = {{1, 20}, {5, 5}, {5, 20}, {17, 5}};
  std::uint64_t seed = 2000;
  for (auto [sq, sk] : lengths) {
    for (Mask mask : {Mask::None, Mask::CausalBottomRight, Mask::CausalTopLeft}) {
      // Top-left equals bottom-right when Sq = Sk; with Sq = 1 it is C02-top-left's case.
      if (mask == Mask::CausalTopLeft && (sq == sk || sq == 1)) continue;
      const std::string id = "grid/sq" + std::to_string(sq) + "-sk" + std::to_string(sk) + "/" +
                             std::string(reference::to_string(mask));
      std::ostringstream what;
      what << "grid: Sq " << sq << ", Sk " << sk << ", heads 2/1, D 64, " << reference::to_string(mask);
      cases.push_back(randn_case(id, what.str(), {1, sq, sk, 2, 1, 64}, mask, seed));
      seed += 10;
    }
  }
  for (GoldenCaseSpec& c : golden_feature_cases()) cases.push_back(std::move(c));
  return cases;
}

std::string golden_file_name(const std::string& case_id, numerics::Rounding mode) {
  std::string name = case_id;
  std::replace(name.begin(), name.end(), '/', '_');
  return name + "." + lower(std::string(numerics::to_string(mode))) + ".safetensors";
}

}  // namespace cdna::audit
