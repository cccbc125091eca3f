#include "audit/cases/audit_cases.hpp"

#include <cmath>
#include <cstring>
#include <sstream>
#include <type_traits>

#include "numerics/bf16.hpp"
#include "reference/attention/inputs.hpp"
#include "audit/cases/feature_cases.hpp"
#include "audit/cases/rounding_cases.hpp"

namespace cdna::audit {
namespace {

using reference::AttentionProblem;
using reference::AttentionShape;
using reference::Mask;

// Rows [first, last] of every head see exactly key j: O row = V_j bit for bit (P = 1 exactly).
std::function<std::string(const CaseOutput&)> rows_equal_v(const AttentionProblem& p, std::int64_t first,
                                                           std::int64_t last, std::int64_t j) {
  return [s = p.shape, v = p.v, first, last, j](const CaseOutput& out) -> std::string {
    const std::int64_t group = s.heads_q / s.heads_kv;
    for (std::int64_t h = 0; h < s.heads_q; ++h)
      for (std::int64_t i = first; i <= last; ++i)
        for (std::int64_t d = 0; d < s.head_dim; ++d) {
          const double got = out.o[static_cast<std::size_t>((i * s.heads_q + h) * s.head_dim + d)];
          const double want = numerics::f32_from_bf16(v[static_cast<std::size_t>((j * s.heads_kv + h / group) * s.head_dim + d)]);
          if (got != want) {
            std::ostringstream m;
            m << "O[i=" << i << ", h=" << h << ", d=" << d << "] = " << got << " but the single visible key "
              << j << " has V = " << want << " (must be equal bit for bit)";
            return m.str();
          }
        }
    return "";
  };
}

}  // namespace

AuditCase make_case(std::string id, std::string description, AttentionShape shape, Mask mask,
                    std::uint64_t seed, double qk_std, double v_std) {
  AuditCase c;
  c.id = std::move(id);
  c.description = std::move(description);
  c.seed = seed;
  c.problem = reference::randn_problem(shape, mask, seed, qk_std, v_std);
  return c;
}

std::vector<AuditCase> default_matrix() {
  struct Model {
    const char* name;
    std::int64_t hq, hkv, d;
  };
  const Model models[] = {{"llama3-8b", 32, 8, 128}, {"llama3.2-1b", 32, 8, 64}};
  const std::pair<std::int64_t, std::int64_t> lengths[] = {{1, 301}, {17, 17}, {17, 128}, {128, 17}, {128, 128}};
  std::vector<AuditCase> cases;
  std::uint64_t seed = 1000;
  for (const Model& m : models) {
    for (auto [sq, sk] : lengths) {
      for (Mask mask : {Mask::None, Mask::CausalBottomRight}) {
        std::ostringstream id;
        id << m.name << "/sq" << sq << "-sk" << sk << (mask == Mask::None ? "" : "/causal");
        std::ostringstream what;
        what << m.name << " heads " << m.hq << "/" << m.hkv << " D " << m.d << ", Sq " << sq << ", Sk " << sk
             << ", " << reference::to_string(mask);
        cases.push_back(make_case(id.str(), what.str(), {1, sq, sk, m.hq, m.hkv, m.d}, mask, seed));
        seed += 10;
      }
    }
  }
  return cases;
}

std::vector<AuditCase> tile_cases() {
  // Around the query tiles of the peer kernels: AITER's 256 rows per workgroup, MoonMath's 384
  // (ts_qo in AITER's fmha_fwd.csv; QTilesPerWG · QTileRows in MoonMath's attention_kernel.hip),
  // and their key blocks (32 and 64, which divide these lengths' neighbours unevenly).
  const std::int64_t lengths[] = {1, 255, 256, 257, 384, 385, 1000};
  std::vector<AuditCase> cases;
  std::uint64_t seed = 5000;
  for (std::int64_t sq : lengths)
    for (std::int64_t sk : lengths)
      for (Mask mask : {Mask::None, Mask::CausalBottomRight}) {
        std::ostringstream id, what;
        id << "tiles/sq" << sq << "-sk" << sk << (mask == Mask::None ? "" : "/causal");
        what << "around the peers' query tiles (256, 384): heads 1/1 D 128, Sq " << sq << ", Sk " << sk << ", "
             << reference::to_string(mask);
        cases.push_back(make_case(id.str(), what.str(), {1, sq, sk, 1, 1, 128}, mask, seed));
        seed += 10;
      }
  // GQA and several batches and heads, where a kernel's batch/head strides and head grouping show.
  const std::pair<std::int64_t, std::int64_t> gqa_lengths[] = {{257, 257}, {385, 1000}, {1000, 385}};
  for (auto [sq, sk] : gqa_lengths)
    for (Mask mask : {Mask::None, Mask::CausalBottomRight}) {
      std::ostringstream id, what;
      id << "tiles-gqa/sq" << sq << "-sk" << sk << (mask == Mask::None ? "" : "/causal");
      what << "B 2, heads 8/2 D 128, Sq " << sq << ", Sk " << sk << ", " << reference::to_string(mask);
      cases.push_back(make_case(id.str(), what.str(), {2, sq, sk, 8, 2, 128}, mask, seed));
      seed += 10;
    }
  for (AuditCase& c : varlen_tile_cases()) cases.push_back(std::move(c));
  for (AuditCase& c : paged_decode_tile_cases()) cases.push_back(std::move(c));
  return cases;
}

std::vector<AuditCase> handed_cases() {
  std::vector<AuditCase> cases;
  {
    AuditCase c = make_case("C01", "one key: O = V bit for bit, LSE = the single scaled score",
                            {1, 1, 1, 1, 1, 64}, Mask::None, 101, 3.0, 3.0);
    c.exact_facts = rows_equal_v(c.problem, 0, 0, 0);
    cases.push_back(std::move(c));
  }
  cases.push_back(make_case("C02-bottom-right", "Sq 1, Sk 239, causal bottom-right: same as no mask",
                            {1, 1, 239, 8, 8, 128}, Mask::CausalBottomRight, 102));
  {
    AuditCase c = make_case("C02-top-left", "Sq 1, Sk 239, causal top-left: O = V of key 0",
                            {1, 1, 239, 8, 8, 128}, Mask::CausalTopLeft, 102);
    c.exact_facts = rows_equal_v(c.problem, 0, 0, 0);
    cases.push_back(std::move(c));
  }
  {
    AuditCase c = make_case("C03", "Sq 5, Sk 2 causal: rows 0-2 fully masked, row 3 = V0, row 4 sees both",
                            {1, 5, 2, 4, 4, 64}, Mask::CausalBottomRight, 103);
    c.exact_facts = rows_equal_v(c.problem, 3, 3, 0);
    cases.push_back(std::move(c));
  }
  cases.push_back(make_case("C04", "Sq 301, Sk 190 causal: rows 0-110 fully masked, on no tile boundary",
                            {1, 301, 190, 2, 2, 128}, Mask::CausalBottomRight, 104));
  std::vector<AuditCase> varlen = varlen_handed_cases();  // C05, C11
  cases.push_back(std::move(varlen[0]));
  {
    AuditCase c = make_case("C06", "all inputs 133120, scale 0.25: huge equal scores, O = V exactly",
                            {1, 1, 4, 1, 1, 64}, Mask::None, 106);
    const std::size_t nq = static_cast<std::size_t>(c.problem.shape.q_elements());
    const std::size_t nkv = static_cast<std::size_t>(c.problem.shape.kv_elements());
    c.problem.q = reference::filled_bf16(nq, 133120.0);
    c.problem.k = reference::filled_bf16(nkv, 133120.0);
    c.problem.v = reference::filled_bf16(nkv, 133120.0);
    c.problem.scale = 0.25f;
    c.exact_facts = rows_equal_v(c.problem, 0, 0, 0);
    cases.push_back(std::move(c));
  }
  cases.push_back(make_case("C07", "Sq 257, Sk 519, Q and K = 4 randn: logit std about 16",
                            {1, 257, 519, 2, 2, 128}, Mask::None, 107, 4.0, 1.0));
  {
    AuditCase c = make_case("C08", "Sq = Sk = 64 causal, scale 0: row i = mean of V0..Vi, no NaN",
                            {1, 64, 64, 2, 2, 64}, Mask::CausalBottomRight, 108);
    c.problem.scale = 0.0f;
    cases.push_back(std::move(c));
  }
  {
    AuditCase c = make_case("C09", "Sq = Sk = 128, scale -1/sqrt(D)", {1, 128, 128, 2, 2, 128}, Mask::None, 109);
    c.problem.scale = -c.problem.scale;
    cases.push_back(std::move(c));
  }
  {
    AuditCase c = make_case("C10", "Sq 64, Sk 300, every K row identical: all scores tie, O = mean of V",
                            {1, 64, 300, 2, 2, 128}, Mask::None, 110);
    const auto& s = c.problem.shape;
    const std::size_t row = static_cast<std::size_t>(s.heads_kv * s.head_dim);
    for (std::size_t j = 1; j < static_cast<std::size_t>(s.seqlen_k); ++j)
      std::copy_n(c.problem.k.begin(), row, c.problem.k.begin() + static_cast<std::ptrdiff_t>(j * row));
    cases.push_back(std::move(c));
  }
  cases.push_back(std::move(varlen[1]));
  cases.push_back(make_case("C12", "Sq = Sk = 256, 64/8 heads: LSE per query head, GQA mapping h / 8",
                            {1, 256, 256, 64, 8, 128}, Mask::None, 112));
  for (std::int64_t d : {59, 111}) {
    AuditCase c = make_case("C13-d" + std::to_string(d), "D = " + std::to_string(d) + ": must be rejected",
                            {1, 16, 16, 1, 1, d}, Mask::None, 113);
    c.expect_rejection = true;
    cases.push_back(std::move(c));
  }
  cases.push_back(make_case("C14", "Sq 4, Sk 33000: finite and within bound past 32768 keys",
                            {1, 4, 33000, 1, 1, 128}, Mask::None, 114));
  // Crafted: exact pre-rounding O on bf16 ties (audit/cases/rounding_cases.hpp); the rounding-mode
  // fact itself is part of compare_attention (reference/attention/exact_rows.hpp).
  std::vector<RoundingCase> crafted = rounding_cases();
  for (RoundingCase& r : rounding_cases_d128()) crafted.push_back(std::move(r));
  std::uint64_t seed = 8100;
  for (const RoundingCase& r : crafted) {
    AuditCase c;
    c.id = r.id;
    c.description = r.description;
    c.seed = seed;  // Q's seed (8100, 8200, 8300)
    seed += 100;
    c.problem = r.problem;
    cases.push_back(std::move(c));
  }
  for (AuditCase& c : audit_feature_cases()) cases.push_back(std::move(c));
  return cases;
}

CaseOutput widen(const device::AttentionOutput& out) {
  CaseOutput w;
  w.o.reserve(out.o.size());
  for (std::uint16_t bits : out.o) w.o.push_back(numerics::f32_from_bf16(bits));
  w.lse.assign(out.lse.begin(), out.lse.end());
  return w;
}

namespace {
template <class T>
std::string first_difference(const char* what, const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size())
    return std::string(what) + " has " + std::to_string(a.size()) + " elements against " + std::to_string(b.size());
  for (std::size_t x = 0; x < a.size(); ++x) {
    if (std::memcmp(&a[x], &b[x], sizeof(T)) == 0) continue;
    if constexpr (std::is_floating_point_v<T>)
      if (std::isnan(a[x]) && std::isnan(b[x])) continue;
    std::ostringstream m;
    m << what << "[" << x << "] differs: " << +a[x] << " against " << +b[x] << " (must be equal bit for bit)";
    return m.str();
  }
  return "";
}
}  // namespace

std::string bitwise_difference(const device::AttentionOutput& a, const device::AttentionOutput& b) {
  std::string d = first_difference("O bits", a.o, b.o);
  if (d.empty()) {
    // LSE bits: fp32 NaN payloads count (the kernel's output is compared as written).
    std::vector<std::uint32_t> la(a.lse.size()), lb(b.lse.size());
    std::memcpy(la.data(), a.lse.data(), la.size() * 4);
    std::memcpy(lb.data(), b.lse.data(), lb.size() * 4);
    d = first_difference("LSE bits", la, lb);
  }
  return d;
}

std::string bitwise_difference(const CaseOutput& a, const CaseOutput& b) {
  std::string d = first_difference("O", a.o, b.o);
  return d.empty() ? first_difference("LSE", a.lse, b.lse) : d;
}

}  // namespace cdna::audit
