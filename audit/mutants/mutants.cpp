#include "audit/mutants/mutants.hpp"
#include "audit/output/shape_format.hpp"

#include "audit/output/atomic_file.hpp"
#include "audit/mutants/feature_mutants.hpp"
#include "audit/output/progress.hpp"
#include "audit/output/output_paths.hpp"
#include "audit/output/summary_line.hpp"


#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <numbers>
#include <random>
#include <regex>
#include <span>
#include <sstream>
#include <stdexcept>

#include "device/attention_launcher.hpp"
#include "audit/run/executor_choice.hpp"
#include "numerics/bf16.hpp"
#include "reference/attention/compare.hpp"
#include "reference/attention/flush_cases.hpp"
#include "reference/attention/inputs.hpp"
#include "reference/attention/varlen_inputs.hpp"
#include "adapters/code_object_mode.hpp"
#include "simulator/schedule/simulator_executor.hpp"
#include "audit/cases/rounding_cases.hpp"

namespace cdna::audit {
namespace {

using reference::AttentionProblem;
using reference::AttentionShape;
using reference::Mask;
using Clock = std::chrono::steady_clock;

constexpr numerics::Rounding kMode = numerics::Rounding::RTNE;  // every mistake mutant is built RTNE

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::uint16_t bf16(double x) { return numerics::bf16_from_f32(static_cast<float>(x), kMode); }

MutantCase random_case(std::string id, std::string description, AttentionShape shape, Mask mask,
                       std::uint64_t seed, double qk_std = 1.0) {
  MutantCase c;
  c.id = std::move(id);
  c.description = std::move(description);
  c.problem = reference::randn_problem(shape, mask, seed, qk_std);
  return c;
}

std::size_t kv_index(const AttentionShape& s, std::int64_t b, std::int64_t j, std::int64_t hk, std::int64_t d) {
  return static_cast<std::size_t>(((b * s.seqlen_k + j) * s.heads_kv + hk) * s.head_dim + d);
}

// Uniform integer in [lo, hi] from a generator whose output the C++ standard fixes.
std::int64_t draw(std::mt19937_64& gen, std::int64_t lo, std::int64_t hi) {
  return lo + static_cast<std::int64_t>(gen() % static_cast<std::uint64_t>(hi - lo + 1));
}

// Scale 0 (every visible key weighs 1, P = 1 exactly) and V columns that are c on 47 keys and
// one bf16 ULP of c nearer zero on one key (|c| in (1, 2), random sign): O = c - sign(c)·ulp/48,
// 1/48 ULP inside a bf16 number. RTNE rounds it to c (the floor's error is ulp/48), truncation
// to the next bf16 number toward zero (an error of 47/48 ULP), and a rounding of the unnormalised
// sum 48c - ulp (which needs up to 10 bits) before the division can move O by a whole ULP.
MutantCase uniform_below_grid_case() {
  MutantCase c = random_case("uniform-below-grid",
                             "scale 0, Sk 48, each V column c on 47 keys and c - 1 ULP on one: O = c - ulp/48, "
                             "just inside a bf16 number",
                             {1, 16, 48, 2, 2, 64}, Mask::None, 7100);
  c.problem.scale = 0.0f;
  const AttentionShape& s = c.problem.shape;
  std::mt19937_64 gen(7103);
  for (std::int64_t hk = 0; hk < s.heads_kv; ++hk) {
    for (std::int64_t d = 0; d < s.head_dim; ++d) {
      const double sign = draw(gen, 0, 1) == 0 ? 1.0 : -1.0;
      const double mag = 1.0 + static_cast<double>(draw(gen, 1, 127)) * 0x1p-7;  // bf16, ULP 2^-7
      const std::int64_t low = draw(gen, 0, s.seqlen_k - 1);
      for (std::int64_t j = 0; j < s.seqlen_k; ++j)
        c.problem.v[kv_index(s, 0, j, hk, d)] = bf16(sign * (j == low ? mag - 0x1p-7 : mag));
    }
  }
  return c;
}

// Scores just below the row maximum: scale ln 2 (so scale·log2 e = 1 in fp32), q = (a, 0, ...),
// k_j = (-δ_j, 0, ...) with δ_0 = 0 and δ_j in {2^-9, 2^-10, 2^-11}, a in {1/2, 3/4, 1}: every
// p_j = 2^(-a δ_j) lies in (1 - 2^-9, 1], which RTNE rounds to 1 and truncation to 1 - 2^-8.
// V is constant along the keys, so O = V exactly and the floor is exact: a P rounded in the
// wrong mode moves O by about one ULP.
MutantCase near_tie_case() {
  MutantCase c = random_case("near-tie-constant-v",
                             "scores within 2^-9 of the max (P just below 1), V constant along keys: O = V exactly",
                             {1, 16, 40, 2, 2, 64}, Mask::None, 7200);
  AttentionProblem& p = c.problem;
  const AttentionShape& s = p.shape;
  p.scale = static_cast<float>(std::numbers::ln2);
  std::mt19937_64 gen(7203);
  std::fill(p.q.begin(), p.q.end(), bf16(0.0));
  std::fill(p.k.begin(), p.k.end(), bf16(0.0));
  const double a[] = {0.5, 0.75, 1.0};
  for (std::int64_t i = 0; i < s.seqlen_q; ++i)
    for (std::int64_t h = 0; h < s.heads_q; ++h)
      p.q[static_cast<std::size_t>((i * s.heads_q + h) * s.head_dim)] = bf16(a[draw(gen, 0, 2)]);
  const double delta[] = {0x1p-9, 0x1p-10, 0x1p-11};
  for (std::int64_t j = 1; j < s.seqlen_k; ++j)
    for (std::int64_t hk = 0; hk < s.heads_kv; ++hk) p.k[kv_index(s, 0, j, hk, 0)] = bf16(-delta[draw(gen, 0, 2)]);
  for (std::int64_t hk = 0; hk < s.heads_kv; ++hk)
    for (std::int64_t d = 0; d < s.head_dim; ++d) {
      const std::uint16_t v = p.v[kv_index(s, 0, 0, hk, d)];
      for (std::int64_t j = 1; j < s.seqlen_k; ++j) p.v[kv_index(s, 0, j, hk, d)] = v;
    }
  return c;
}

// Issue 9 §2 and §3 in one problem: Sq = Sk = 16, D 64, causal; V holds NaN at key 3 (rows 0-2
// cannot see it and must stay finite; rows 3-8 see it and are NaN in that column), and K row 9 is
// +inf in dimension 0 with Q's dimension 0 positive, so rows 9-15 see one +inf score: O = V9,
// LSE = +inf (docs/semantics.md §5.6; key 3's NaN weighs 0 there).
MutantCase nonfinite_keys_case() {
  MutantCase c = random_case("nonfinite-keys",
                             "causal 16x16: NaN V at key 3 (invisible to rows 0-2), +inf score at key 9 (rows 9-15)",
                             {1, 16, 16, 1, 1, 64}, Mask::CausalBottomRight, 7300);
  AttentionProblem& p = c.problem;
  const AttentionShape& s = p.shape;
  for (std::int64_t i = 0; i < s.seqlen_q; ++i) {
    std::uint16_t& q0 = p.q[static_cast<std::size_t>(i * s.head_dim)];
    q0 = bf16(0.5 + std::abs(static_cast<double>(numerics::f32_from_bf16(q0))));
  }
  p.v[kv_index(s, 0, 3, 0, 5)] = 0x7fc0;   // NaN
  p.k[kv_index(s, 0, 9, 0, 0)] = 0x7f80;   // +inf
  return c;
}

// Rows with exactly one visible key must have O = V of that key bit for bit (P = 1 exactly;
// docs/pass-rule.md §5 of the verdict). "" if so, else one line.
std::string one_key_rows_fact(const AttentionProblem& p, std::span<const std::uint16_t> o) {
  const AttentionShape& s = p.shape;
  const std::int64_t group = s.heads_q / s.heads_kv;
  for (std::int64_t b = 0; b < s.batch; ++b)
    for (std::int64_t i = 0; i < s.seqlen_q; ++i) {
      const reference::KeyRange keys = reference::visible_range(p, i);
      if (keys.count != 1) continue;
      for (std::int64_t h = 0; h < s.heads_q; ++h)
        for (std::int64_t d = 0; d < s.head_dim; ++d) {
          const std::uint16_t got = o[static_cast<std::size_t>(((b * s.seqlen_q + i) * s.heads_q + h) * s.head_dim + d)];
          const std::uint16_t want = p.v[kv_index(s, b, keys.first, h / group, d)];
          if (got != want) {
            std::ostringstream m;
            m << "row b=" << b << " h=" << h << " i=" << i << " sees one key but O[" << d << "] = "
              << numerics::f32_from_bf16(got) << " != V = " << numerics::f32_from_bf16(want);
            return m.str();
          }
        }
    }
  return "";
}

// one_key_rows_fact of every sequence of a varlen output (O [rows_q, Hq, D]).
std::string one_key_rows_fact(const reference::VarlenProblem& p, const std::vector<std::uint16_t>& o) {
  for (std::int64_t b = 0; b < p.sequences(); ++b) {
    std::vector<std::uint16_t> seq_o;
    std::vector<float> no_lse;
    reference::gather_sequence(p, b, o, no_lse, seq_o, no_lse);
    const std::string fact = one_key_rows_fact(reference::sequence_problem(p, b), seq_o);
    if (!fact.empty()) return "sequence " + std::to_string(b) + ": " + fact;
  }
  return "";
}

// The oracle's result of a case, or why it has none: a reference that does not take one of the
// case's features yet (require_base_definition) leaves our bound, floor and LSE columns
// unjudged on that case (NoOutput, never a pass).
struct CaseExact {
  std::optional<reference::AttentionResult> result;
  std::string unjudged;
};
CaseExact case_exact(const MutantCase& c) {
  try {
    return {c.varlen ? reference::varlen_forward_exact(*c.varlen) : reference::attention_forward_exact(c.problem), ""};
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()).find("does not take") == std::string::npos) throw;
    return {std::nullopt, e.what()};
  }
}

// The peer suites' references of a case: one per sequence of a varlen case (its rows judged
// as the suite would judge that sequence alone), or why the peer rules cannot judge it.
struct CasePeers {
  std::vector<reference::PeerReferences> per_sequence;  // one for a dense case
  std::vector<std::int64_t> sequence;                   // varlen: the sequence of each entry
  std::string unjudged;
};
CasePeers case_peers(const MutantCase& c, numerics::Rounding mode) {
  CasePeers p;
  try {
    if (!c.varlen) {
      p.per_sequence.push_back(reference::peer_references(c.problem, mode));
      return p;
    }
    for (std::int64_t b = 0; b < c.varlen->sequences(); ++b) {
      if (c.varlen->seqlen_q(b) == 0) continue;  // no row to judge
      p.per_sequence.push_back(reference::peer_references(reference::sequence_problem(*c.varlen, b), mode));
      p.sequence.push_back(b);
    }
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()).find("does not take") == std::string::npos) throw;
    p.per_sequence.clear();
    p.unjudged = e.what();
  }
  return p;
}

// A peer rule's verdict on a case: a varlen case fails if any sequence fails; err / tol are the
// sequence's with the largest err / tol.
reference::PeerVerdict judge_peer(reference::PeerRule rule, const MutantCase& c, const CasePeers& peers,
                                  const device::AttentionOutput& out) {
  if (!c.varlen) return reference::judge(rule, peers.per_sequence.front(), out.o, out.lse);
  reference::PeerVerdict worst;
  worst.pass = true;
  for (std::size_t e = 0; e < peers.per_sequence.size(); ++e) {
    std::vector<std::uint16_t> o;
    std::vector<float> lse;
    reference::gather_sequence(*c.varlen, peers.sequence[e], out.o, out.lse, o, lse);
    reference::PeerVerdict v = reference::judge(rule, peers.per_sequence[e], o, lse);
    if (!v.note.empty()) v.note = "sequence " + std::to_string(peers.sequence[e]) + ": " + v.note;
    const auto ratio = [](const reference::PeerVerdict& x) {
      return x.tol > 0 ? x.err / x.tol : (x.err > 0 ? HUGE_VAL : 0.0);
    };
    if (e == 0 || (v.pass == worst.pass ? ratio(v) > ratio(worst) : !v.pass)) worst = v;
  }
  return worst;
}

// A varlen case: `problem` shows the base problem (docs of MutantCase).
MutantCase varlen_case(std::string id, std::string description, reference::VarlenProblem v) {
  MutantCase c;
  c.id = std::move(id);
  c.description = std::move(description);
  c.problem = v.base;
  c.varlen = std::move(v);
  return c;
}

// The varlen, paged and window cases (issue 12): each feature mutant's mistake shows on one of
// them, by an error small enough that a loose rule (AITER's 0.01 floor) may miss it.
void add_varlen_cases(std::vector<MutantCase>& cases) {
  // One head for the two long cases: the simulator's time grows with heads x tiles.
  const AttentionShape one_head{1, 0, 0, 1, 1, 64}, heads{1, 0, 0, 2, 1, 64};
  // Sequences (Sq_b, Sk_b) = (16, 300), (15, 300), (4, 0): the batch's largest lengths put the
  // diagonal at i + 284, the second sequence's own at i + 285 (a misaligned row loses one key of
  // about 286); the third has no key (O = 0, LSE = -inf whatever the alignment).
  cases.push_back(varlen_case("varlen-causal-own-alignment",
                              "varlen causal, (Sq_b, Sk_b) = (16, 300), (15, 300), (4, 0): each sequence's own "
                              "bottom-right diagonal",
                              reference::packed_varlen(one_head, Mask::CausalBottomRight, {16, 15, 4}, {300, 300, 0}, 7400)));
  // Pages of 64 keys, shuffled; Sk_b 512 and 256 fill their pages, so a key read from the next
  // page (or the table's next column) is a real key of the cache, not an unused NaN slot.
  cases.push_back(varlen_case(
      "paged-shuffled",
      "paged KV, pages of 64 in a shuffled block table, (Sq_b, Sk_b) = (16, 512), (9, 256), no mask",
      reference::paged_from_packed(reference::packed_varlen(one_head, Mask::None, {16, 9}, {512, 256}, 7410), 64, 0, 7413,
                                   0x7FC0)));
  // Window (0, 0): every row sees its diagonal key alone (O = V of it, a fact of the verdict);
  // rows whose diagonal is before key 0 see nothing.
  reference::VarlenProblem w00 = reference::packed_varlen(heads, Mask::None, {16, 5, 3}, {40, 5, 1}, 7420);
  w00.base.window_left = w00.base.window_right = 0;
  cases.push_back(varlen_case("window-0-0",
                              "varlen window (0, 0), (Sq_b, Sk_b) = (16, 40), (5, 5), (3, 1): O = V of the diagonal key",
                              std::move(w00)));
  // FlashAttention's local attention: causal with 8 keys to the left of the diagonal.
  reference::VarlenProblem local = reference::packed_varlen(heads, Mask::CausalBottomRight, {20, 33}, {40, 33}, 7430);
  local.base.window_left = 8;
  local.base.window_right = 0;
  cases.push_back(varlen_case("window-8-0-causal",
                              "varlen causal, window (8, 0), (Sq_b, Sk_b) = (20, 40), (33, 33)", std::move(local)));
}

std::string_view outcome_name(Outcome o) {
  switch (o) {
    case Outcome::Pass: return "pass";
    case Outcome::Fail: return "fail";
    case Outcome::NoOutput: return "no output";
  }
  return "?";
}

// "B1 Sq17 Sk128 H4/2 D64"; a varlen case: "B3 (Sq_b, Sk_b) 16/500 17/500 4/0 H2/1 D64, paged 64,
// window (8, 0)".
std::string shape_text(const MutantCase& c) {
  const AttentionShape& s = c.problem.shape;
  std::ostringstream o;
  o << "B" << s.batch;
  if (!c.varlen) {
    o << " Sq" << s.seqlen_q << " Sk" << s.seqlen_k;
  } else {
    o << " (Sq_b, Sk_b)";
    for (std::int64_t b = 0; b < c.varlen->sequences(); ++b) o << " " << c.varlen->seqlen_q(b) << "/" << c.varlen->seqlen_k(b);
  }
  o << " H" << s.heads_q << "/" << s.heads_kv << " D" << s.head_dim;
  if (c.varlen && c.varlen->paged()) o << ", paged " << c.varlen->page_size;
  if (c.problem.window_left != -1 || c.problem.window_right != -1)
    o << ", window (" << c.problem.window_left << ", " << c.problem.window_right << ")";
  return o.str();
}

}  // namespace

const std::vector<MutantInfo>& attention_mutants() {
  static const std::vector<MutantInfo> mutants = {
      {"TOPLEFT", "causal mask aligned top-left (j <= i) instead of bottom-right"},
      {"NO_RESCALE", "running sum and accumulator not rescaled when the max grows"},
      {"L_NOT_RESCALED", "accumulator rescaled when the max grows, running sum not"},
      {"ACC_NOT_RESCALED", "running sum rescaled when the max grows, accumulator not"},
      {"MAX_BEFORE_SCALE", "running max taken over the raw scores, used as the shift of the scaled ones"},
      {"EXP_BASE_E", "natural exp (expf) applied to base-2 scores"},
      {"LSE_BASE2", "LSE stored in base 2 (ln 2 factor forgotten)"},
      {"LSE_NO_MAX", "LSE = ln l, the running max term forgotten"},
      {"P_TRUNC", "P not rounded: high half of the fp32 bits reinterpreted (truncation, RTZ) where RTNE is declared"},
      {"O_RTZ", "stored O truncated (RTZ) where RTNE is declared"},
      {"O_ROUNDED_TWICE", "unnormalised accumulator rounded to bf16, then normalised and rounded again"},
      {"KV_TAIL_UNMASKED", "j < Sk dropped from the score mask: zero-padded keys of the last KV tile get weight"},
      {"DROP_LAST_KV_TILE", "KV loop over whole 16-key tiles only: the last partial tile is ignored"},
      {"MASKED_ROW_NAN", "-inf guard of the shift dropped: a fully masked row computes -inf - (-inf) = NaN"},
      {"MASKED_ROW_RCP0", "l > 0 guard of the normalisation dropped: a fully masked row gives 0 * rcp(0) = NaN"},
      {"GQA_MOD", "KV head h % Hkv instead of h / (Hq / Hkv)"},
      {"SUM_BF16", "running sum kept in bf16 (rounded after every update)"},
      {"SCALE_TWICE", "softmax scale applied twice"},
      {"SCALE_SQRT_D", "scale sqrt(D) instead of the host's 1/sqrt(D)"},
      {"CAUSAL_OFF_BY_ONE", "causal diagonal excluded: j < i + Sk - Sq"},
      {"KV_END_TOPLEFT", "KV loop bound computed top-left while the mask is bottom-right"},
      {"DROP_LAST_Q_TILE", "a partial 16-row query tile is dropped (Sq not a multiple of 16)"},
      {"NO_MFMA_WAIT", "wait states after the Q·K MFMA left out (hazard)"},
      {"NO_VALU_WAIT", "wait states before the P·V MFMA left out (hazard)"},
      {"ROW_MAX_PARTIAL", "cross-lane row max over lanes l^16 only, not l^32"},
      {"MASK_ZERO", "masked scores set to 0 instead of -inf"},
      {"INF_SCORE_NAIVE", "+inf scores not special-cased: 2^(inf - inf) = NaN where O = V of the +inf key"},
      {"V_NONFINITE_MFMA", "NaN/inf V entries go into the P.V MFMA: 0 * NaN leaks into rows that cannot see the key"},
      {"NO_TRANS_WAIT", "v_exp_f32 wrapper without its s_nop 0 (trans-use hazard)"},
      {"WINDOW_OFF_BY_ONE", "sliding window's left edge one key too wide (diag - left - 1 visible)"},
      {"PAGE_INDEX_OFF_BY_ONE", "page of key j from (j + 1) / page_size: each page's last key read from the next page"},
      {"VARLEN_GLOBAL_ALIGNMENT", "varlen diagonal from the batch's largest lengths, not each sequence's Sk_b - Sq_b"},
  };
  return mutants;
}

std::filesystem::path mutant_code_object(std::string_view name, const std::filesystem::path& dir) {
  std::string lower(name);
  for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return dir / ("attention_fwd_mutant_" + lower + ".hsaco");
}

std::vector<MutantCase> mutant_cases() {
  std::vector<MutantCase> cases;
  cases.push_back(random_case("gqa-causal-sq17-sk128",
                              "GQA 4/2, causal with Sq 17 < Sk 128 (alignment), Sq not a multiple of 16, "
                              "growing max over 8 KV tiles",
                              {1, 17, 128, 4, 2, 64}, Mask::CausalBottomRight, 7000));
  cases.push_back(random_case("causal-sq40-sk24",
                              "causal with Sq 40 > Sk 24: rows 0-15 fully masked, row 16 sees one key; "
                              "partial KV and query tiles; GQA 2/1, D 128",
                              {1, 40, 24, 2, 1, 128}, Mask::CausalBottomRight, 7010));
  cases.push_back(random_case("logits-std16",
                              "Q, K ~ 4 N(0,1): logits with std 16; Sk 77 (partial KV tile), Sq 33",
                              {1, 33, 77, 2, 2, 128}, Mask::None, 7020, 4.0));
  cases.push_back(random_case("long-kv-b2", "B 2, Sk 519 (33 KV tiles, the last partial), Sq 20, GQA 2/1",
                              {2, 20, 519, 2, 1, 64}, Mask::None, 7030));
  cases.push_back(random_case("C03-sq5-sk2", "Sq 5, Sk 2 causal: rows 0-2 fully masked, row 3 = V0",
                              {1, 5, 2, 4, 4, 64}, Mask::CausalBottomRight, 7040));
  cases.push_back(uniform_below_grid_case());
  cases.push_back(near_tie_case());
  for (const RoundingCase& r : rounding_cases()) cases.push_back({r.id, r.description, r.problem, {}});
  // Issue 9 §1: inputs where the declared flushes move O far from the exact value; the controls
  // must pass them (no false positive from the flush allowance's absence) and the mutants are
  // judged on them like on the others.
  cases.push_back({"flush-exp-weights",
                   "v_exp_f32 flushes the weights of keys 127-140 below the max (base 2), V = +-2^126 there",
                   reference::flushed_weights_instance(), {}});
  cases.push_back(nonfinite_keys_case());
  cases.push_back({"flush-subnormal-v", "V of bf16 subnormals, causal Sq 8 < Sk 16: every O is an fp32 denormal",
                   reference::subnormal_v_instance(), {}});
  add_varlen_cases(cases);
  return cases;
}

const std::vector<ModeSwap>& mode_swaps() {
  static const std::vector<ModeSwap> swaps = [] {
    std::vector<ModeSwap> v;
    for (numerics::Rounding built : numerics::kAllRoundings)
      for (numerics::Rounding declared : numerics::kAllRoundings) {
        if (built == declared) continue;
        const std::string b(numerics::to_string(built)), d(numerics::to_string(declared));
        v.push_back({b + "_DECLARED_" + d,
                     "the correct " + b + " kernel (P and O rounded " + b + ") where " + d + " is declared", built,
                     declared});
      }
    return v;
  }();
  return swaps;
}

std::string column_name(int column) {
  static constexpr const char* ours[] = {"bound", "floor", "facts", "LSE", "sim"};
  if (column < kOurChecks) return ours[column];
  return std::string(reference::to_string(reference::kAllPeerRules[column - kOurChecks]));
}

bool KernelResult::failed(int column) const {
  for (const auto& row : outcomes)
    if (row[static_cast<std::size_t>(column)] == Outcome::Fail) return true;
  return false;
}

bool KernelResult::killed_by_ours() const {
  for (int c = 0; c < kOurChecks; ++c)
    if (killed[static_cast<std::size_t>(c)]) return true;
  return false;
}

int MutantsResult::mutants() const {
  int n = 0;
  for (const auto& k : kernels) n += !k.control;
  return n;
}

int MutantsResult::killed(int column) const {
  int n = 0;
  for (const auto& k : kernels) n += !k.control && k.killed[static_cast<std::size_t>(column)];
  return n;
}

int MutantsResult::killed_by_ours() const {
  int n = 0;
  for (const auto& k : kernels) n += !k.control && k.killed_by_ours();
  return n;
}

bool MutantsResult::ok() const {
  if (kernels.empty() || !kernels.front().control) return false;
  for (const auto& k : kernels)
    if (k.control == k.killed_by_ours()) return false;  // a control failing, or a mutant surviving
  return true;
}

MutantsResult run_mutants(const MutantsOptions& options, device::Executor& executor) {
  const auto t_start = Clock::now();
  MutantsResult result;
  result.executor = executor.name();
  result.cases = mutant_cases();

  struct Kernel {
    std::string name, mistake;
    bool control;
    numerics::Rounding declared;
    std::vector<std::byte> code;
  };
  std::vector<Kernel> kernels;
  // `built`: the mode the code object must record (device/CMakeLists.txt: the mutants are built
  // RTNE); `declared`: the mode the verdict assumes, another one for a mode swap on purpose.
  auto load = [&](std::string name, std::string mistake, bool control, numerics::Rounding built,
                  numerics::Rounding declared, const std::filesystem::path& path) {
    adapters::AttentionCodeObject code = adapters::load_attention_code_object(path, built, device::kAttentionKernels);
    kernels.push_back({std::move(name), std::move(mistake), control, declared, std::move(code.bytes)});
  };
  if (options.control) {
    for (numerics::Rounding mode : numerics::kAllRoundings) {
      std::string lower(numerics::to_string(mode));
      for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      load(mode == kMode ? "control" : "control_" + lower,
           "none: the correct kernel (" + std::string(numerics::to_string(mode)) + ")", true, mode, mode,
           device::attention_code_object(mode, options.code_object_dir));
    }
  }
  const std::regex re(options.filter.empty() ? std::string(".*") : options.filter);
  for (const MutantInfo& m : attention_mutants()) {
    if (!std::regex_search(m.name, re)) continue;
    load(m.name, m.mistake, false, kMode, kMode, mutant_code_object(m.name, options.code_object_dir));
  }
  for (const ModeSwap& m : mode_swaps()) {
    if (!std::regex_search(m.name, re)) continue;
    load(m.name, m.mistake, false, m.built, m.declared,
         device::attention_code_object(m.built, options.code_object_dir));
  }

  // Per case: the exact oracle once, and the peer suites' references once per declared mode.
  std::vector<CaseExact> exact;
  for (const MutantCase& c : result.cases) exact.push_back(case_exact(c));
  std::map<numerics::Rounding, std::vector<CasePeers>> refs;
  for (const Kernel& k : kernels) {
    if (refs.count(k.declared)) continue;
    auto& r = refs[k.declared];
    for (const MutantCase& c : result.cases) r.push_back(case_peers(c, k.declared));
  }

  // "mutants: kernel 3 of 20 (no_rescale), 0:04 elapsed, ~0:22 left: killed (1.9 s)".
  Progress line(options.progress, "mutants", "kernel", kernels.size());
  for (const Kernel& k : kernels) {
    const auto t_kernel = Clock::now();
    KernelResult kr;
    kr.name = k.name;
    kr.mistake = k.mistake;
    kr.control = k.control;
    kr.declared = k.declared;
    for (std::size_t ci = 0; ci < result.cases.size(); ++ci) {
      const MutantCase& c = result.cases[ci];
      std::array<Outcome, kColumns> row{};
      std::array<std::string, kColumns> notes;
      CaseFigures fig;
      device::AttentionOutput out;
      bool ran = true;
      try {
        out = c.varlen ? device::run_attention_varlen(executor, k.code, *c.varlen)
                       : device::run_attention(executor, k.code, c.problem);
      } catch (const std::exception& e) {
        // The run stopped in the simulator's checks (hazard, access outside every buffer, ...):
        // there is no output for the other checks to judge.
        ran = false;
        row.fill(Outcome::NoOutput);
        row[static_cast<std::size_t>(Check::Simulator)] = Outcome::Fail;
        notes[static_cast<std::size_t>(Check::Simulator)] = e.what();
      }
      if (ran) {
        const CaseExact& ex = exact[ci];
        const reference::AttentionComparison cmp =
            !ex.result ? reference::AttentionComparison{}
            : c.varlen ? reference::compare_varlen(*c.varlen, *ex.result, out.o, out.lse, k.declared)
                       : reference::compare_attention(c.problem, *ex.result, out.o, out.lse, k.declared);
        fig.rel_rms_err_o = cmp.rel_rms_err_o;
        fig.floor_rel_rms_o = cmp.floor_rel_rms_o;
        fig.max_err_to_bound_o = cmp.max_err_to_bound_o;
        fig.max_err_to_bound_lse = cmp.max_err_to_bound_lse;
        auto set = [&](Check check, bool fail, const std::string& note) {
          const auto col = static_cast<std::size_t>(check);
          row[col] = fail ? Outcome::Fail : Outcome::Pass;
          if (fail) notes[col] = note;
        };
        set(Check::Bound, cmp.o_violations > 0,
            std::to_string(cmp.o_violations) + " O elements outside the bound (max err/bound " +
                figure_text(cmp.max_err_to_bound_o) + ")");
        set(Check::Floor, cmp.floor_violation,
            "rel-RMS " + figure_text(cmp.rel_rms_err_o) + " > 2 x floor " + figure_text(cmp.floor_rel_rms_o));
        const std::string one_key = c.varlen ? one_key_rows_fact(*c.varlen, out.o) : one_key_rows_fact(c.problem, out.o);
        set(Check::Facts, cmp.semantic_violations > 0 || !one_key.empty(),
            cmp.semantic_violations > 0 ? std::to_string(cmp.semantic_violations) + " semantic violations" : one_key);
        set(Check::Lse, cmp.lse_violations > 0,
            std::to_string(cmp.lse_violations) + " LSE outside the bound (max err/bound " +
                figure_text(cmp.max_err_to_bound_lse) + ")");
        set(Check::Simulator, false, "");
        if (!ex.result) {
          // The oracle does not take this case yet: the checks that need it judge nothing.
          for (Check check : {Check::Bound, Check::Floor, Check::Lse}) {
            row[static_cast<std::size_t>(check)] = Outcome::NoOutput;
            notes[static_cast<std::size_t>(check)] = ex.unjudged;
          }
        }
        const CasePeers& peers = refs[k.declared][ci];
        for (std::size_t r = 0; r < std::size(reference::kAllPeerRules); ++r) {
          if (!peers.unjudged.empty()) {
            row[kOurChecks + r] = Outcome::NoOutput;
            notes[kOurChecks + r] = peers.unjudged;
            continue;
          }
          const reference::PeerVerdict v = judge_peer(reference::kAllPeerRules[r], c, peers, out);
          row[kOurChecks + r] = v.pass ? Outcome::Pass : Outcome::Fail;
          notes[kOurChecks + r] = v.note;
          fig.peer_err[r] = v.err;
          fig.peer_tol[r] = v.tol;
        }
        if (!cmp.first_failure.empty() && kr.first_verdict_failure.empty()) {
          kr.first_verdict_failure = c.id + ": " + cmp.first_failure;
        }
      }
      for (int col = 0; col < kColumns; ++col) {
        const auto u = static_cast<std::size_t>(col);
        if (row[u] == Outcome::Fail && kr.first_failure[u].empty()) kr.first_failure[u] = c.id + ": " + notes[u];
      }
      kr.outcomes.push_back(row);
      kr.figures.push_back(fig);
    }
    kr.seconds = seconds_since(t_kernel);
    const KernelResult* control = nullptr;  // the correct kernel judged in the same mode
    for (const KernelResult& r : result.kernels)
      if (r.control && r.declared == kr.declared) control = &r;
    for (std::size_t col = 0; col < static_cast<std::size_t>(kColumns); ++col) {
      for (std::size_t ci = 0; ci < kr.outcomes.size(); ++ci) {
        const bool counts = kr.control || !control || control->outcomes[ci][col] != Outcome::Fail;
        if (kr.outcomes[ci][col] == Outcome::Fail && counts) kr.killed[col] = true;
      }
    }
    line.next(kr.name, std::string(kr.control ? (kr.killed_by_ours() ? "FAILS our verdict" : "passes our verdict")
                                              : (kr.killed_by_ours() ? "killed" : "SURVIVES")) +
                           "  (" + figure_text(kr.seconds, 2) + " s)");
    result.kernels.push_back(std::move(kr));
  }
  result.seconds = seconds_since(t_start);
  return result;
}

std::string kill_matrix(const MutantsResult& result) {
  std::ostringstream o;
  constexpr int kName = 24, kCell = 9;
  auto header = [&] {
    o << std::left << std::setw(kName) << "kernel" << std::right;
    for (int c = 0; c < kOurChecks; ++c) o << std::setw(6) << column_name(c);
    o << std::setw(6) << "OURS" << " |";
    for (int c = kOurChecks; c < kColumns; ++c) o << std::setw(kCell) << column_name(c);
    o << "\n";
  };
  auto cells = [&](const KernelResult& k) {
    o << std::left << std::setw(kName) << k.name << std::right;
    for (int c = 0; c < kOurChecks; ++c) o << std::setw(6) << (k.killed[static_cast<std::size_t>(c)] ? "X" : ".");
    o << std::setw(6) << (k.killed_by_ours() ? "X" : ".") << " |";
    for (int c = kOurChecks; c < kColumns; ++c) o << std::setw(kCell) << (k.killed[static_cast<std::size_t>(c)] ? "X" : ".");
    o << "\n";
  };
  header();
  for (const auto& k : result.kernels)
    if (!k.control) cells(k);
  const int n = result.mutants();
  auto rate = [&](int killed) { return std::to_string(killed) + "/" + std::to_string(n); };
  o << std::left << std::setw(kName) << "killed" << std::right;
  for (int c = 0; c < kOurChecks; ++c) o << std::setw(6) << rate(result.killed(c));
  o << std::setw(6) << rate(result.killed_by_ours()) << " |";
  for (int c = kOurChecks; c < kColumns; ++c) o << std::setw(kCell) << rate(result.killed(c));
  o << "\n";
  bool control_header = false;
  for (const auto& k : result.kernels)
    if (k.control) {
      if (!control_header) o << "controls (X = false positive):\n";
      control_header = true;
      cells(k);
    }
  o << "X = fails on at least one of " << result.cases.size() << " cases on which the control passes that column; "
    << "sim = the simulator's checks stopped the run (no output for the other columns). " << result.killed_by_ours() << " of " << n
    << " mutants killed by our verdict; " << figure_text(result.seconds, 3) << " s on " << result.executor << "\n";
  return o.str();
}

nlohmann::json mutants_json(const MutantsResult& result) {
  nlohmann::json j;
  j["tool"] = "cdna-verify mutants";
  j["version"] = CDNA_VERSION;
  j["executor"] = result.executor;
  j["rounding"] = "mistakes built RTNE; each kernel's 'declared' is the mode it is judged in";
  j["seconds"] = result.seconds;
  j["ok"] = result.ok();
  auto& cases = j["cases"] = nlohmann::json::array();
  for (const auto& c : result.cases) {
    const auto& s = c.problem.shape;
    cases.push_back({{"id", c.id},
                     {"description", c.description},
                     {"shape", {{"B", s.batch}, {"Sq", s.seqlen_q}, {"Sk", s.seqlen_k}, {"Hq", s.heads_q},
                                {"Hkv", s.heads_kv}, {"D", s.head_dim}}},
                     {"shape_text", shape_text(c)},
                     {"mask", reference::to_string(c.problem.mask)},
                     {"scale", c.problem.scale}});
  }
  std::vector<std::string> columns;
  for (int c = 0; c < kColumns; ++c) columns.push_back(column_name(c));
  j["columns"] = columns;
  auto& kernels = j["kernels"] = nlohmann::json::array();
  for (const auto& k : result.kernels) {
    nlohmann::json row = {{"name", k.name}, {"mistake", k.mistake}, {"control", k.control},
                          {"declared", numerics::to_string(k.declared)}, {"seconds", k.seconds},
                          {"killed_by_ours", k.killed_by_ours()}};
    if (!k.first_verdict_failure.empty()) row["first_verdict_failure"] = k.first_verdict_failure;
    for (int c = 0; c < kColumns; ++c) {
      row["killed"][columns[static_cast<std::size_t>(c)]] = k.killed[static_cast<std::size_t>(c)];
      if (!k.first_failure[static_cast<std::size_t>(c)].empty())
        row["first_failure"][columns[static_cast<std::size_t>(c)]] = k.first_failure[static_cast<std::size_t>(c)];
    }
    // JSON has no inf or NaN: such figures are written as strings.
    auto number = [](double x) -> nlohmann::json {
      if (std::isfinite(x)) return x;
      return std::isnan(x) ? "nan" : (x > 0 ? "inf" : "-inf");
    };
    for (std::size_t ci = 0; ci < k.outcomes.size(); ++ci) {
      const std::string& id = result.cases[ci].id;
      for (int c = 0; c < kColumns; ++c)
        row["outcomes"][id][columns[static_cast<std::size_t>(c)]] = outcome_name(k.outcomes[ci][static_cast<std::size_t>(c)]);
      const CaseFigures& f = k.figures[ci];
      auto& fj = row["figures"][id];
      fj["rel_rms_err_o"] = number(f.rel_rms_err_o);
      fj["floor_rel_rms_o"] = number(f.floor_rel_rms_o);
      fj["max_err_to_bound_o"] = number(f.max_err_to_bound_o);
      fj["max_err_to_bound_lse"] = number(f.max_err_to_bound_lse);
      for (std::size_t r = 0; r < std::size(reference::kAllPeerRules); ++r) {
        fj[columns[kOurChecks + r]] = {{"err", number(f.peer_err[r])}, {"tol", number(f.peer_tol[r])}};
      }
    }
    kernels.push_back(std::move(row));
  }
  auto& summary = j["summary"];
  summary["mutants"] = result.mutants();
  summary["killed_by_ours"] = result.killed_by_ours();
  for (int c = 0; c < kColumns; ++c) {
    summary["killed"][columns[static_cast<std::size_t>(c)]] = result.killed(c);
    bool false_positive = false;  // on any control
    for (const auto& k : result.kernels) false_positive = false_positive || (k.control && k.killed[static_cast<std::size_t>(c)]);
    summary["false_positives"][columns[static_cast<std::size_t>(c)]] = false_positive;
  }
  return j;
}

std::string kill_matrix_markdown(const MutantsResult& result) {
  std::ostringstream md;
  md << "X = fails on at least one case on which the control passes that column (on the control "
        "row: a false positive).\n\n| mutant | mistake |";
  for (int c = 0; c < kOurChecks; ++c) md << " " << column_name(c) << " |";
  md << " **ours** |";
  for (int c = kOurChecks; c < kColumns; ++c) md << " " << column_name(c) << " |";
  md << "\n|---|---|";
  for (int c = 0; c <= kColumns; ++c) md << "---|";
  md << "\n";
  auto md_row = [&](const KernelResult& k) {
    std::string mistake = k.mistake;
    for (char& ch : mistake)
      if (ch == '|') ch = '/';
    md << "| " << k.name << " | " << mistake << " |";
    for (int c = 0; c < kOurChecks; ++c) md << " " << (k.killed[static_cast<std::size_t>(c)] ? "X" : ".") << " |";
    md << " **" << (k.killed_by_ours() ? "X" : ".") << "** |";
    for (int c = kOurChecks; c < kColumns; ++c) md << " " << (k.killed[static_cast<std::size_t>(c)] ? "X" : ".") << " |";
    md << "\n";
  };
  for (const auto& k : result.kernels)
    if (k.control) md_row(k);
  for (const auto& k : result.kernels)
    if (!k.control) md_row(k);
  md << "| **kill rate** | |";
  for (int c = 0; c < kOurChecks; ++c) md << " " << result.killed(c) << "/" << result.mutants() << " |";
  md << " **" << result.killed_by_ours() << "/" << result.mutants() << "** |";
  for (int c = kOurChecks; c < kColumns; ++c) md << " " << result.killed(c) << "/" << result.mutants() << " |";
  md << "\n";
  return md.str();
}

void write_mutant_reports(const MutantsResult& result, const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create report directory '" + dir.string() + "': " + ec.message());
  write_atomically(dir / "mutants.json", mutants_json(result).dump(2) + "\n");

  std::ostringstream md;
  md << "# cdna-verify mutants\n\n"
     << "Executor: `" << result.executor << "`. " << result.mutants()
     << " mutants (mistakes built RTNE, and correct kernels judged in another declared mode), " << result.cases.size()
     << " cases, " << figure_text(result.seconds, 3) << " s. " << result.killed_by_ours() << " of " << result.mutants()
     << " killed by our verdict; the controls "
     << (result.kernels.empty() || !result.kernels.front().control ? "were not run"
         : std::any_of(result.kernels.begin(), result.kernels.end(),
                       [](const KernelResult& k) { return k.control && k.killed_by_ours(); })
             ? "FAIL a check of ours"
             : "pass every check of ours")
     << ".\n\n" << kill_matrix_markdown(result);
  md << "\n## Cases\n\n| case | shape | mask | scale | what it exposes |\n|---|---|---|---|---|\n";
  for (const auto& c : result.cases) {
    md << "| " << c.id << " | " << shape_text(c) << " | " << reference::to_string(c.problem.mask)
       << " | " << c.problem.scale << " | " << c.description << " |\n";
  }
  md << "\n## First failure per kernel (our verdict)\n\n";
  for (const auto& k : result.kernels) {
    md << "- **" << k.name << "**:";
    bool any = false;
    for (int c = 0; c < kOurChecks; ++c) {
      const auto& note = k.first_failure[static_cast<std::size_t>(c)];
      if (note.empty()) continue;
      md << (any ? ";" : "") << " " << column_name(c) << " — " << note;
      any = true;
    }
    if (!any) md << " none";
    md << "\n";
  }
  write_atomically(dir / "mutants.md", md.str());
}

int run_features(std::ostream& out) {
  const std::vector<FeatureRow> rows = run_feature_matrix();
  out << feature_matrix_text(rows);
  bool all_judged = true, ok = true;
  for (const FeatureRow& r : rows) {
    bool killed = false;
    for (const FeatureCell& c : r.cells) {
      all_judged = all_judged && c.ours_pass.has_value();
      if (c.ours_pass && r.mutant == FeatureMutant::None) ok = ok && *c.ours_pass;
      killed = killed || (c.ours_pass && !*c.ours_pass);
    }
    if (r.mutant != FeatureMutant::None) ok = ok && killed;
  }
  if (!all_judged) {
    out << "NOT JUDGED: our verdict does not take every feature case (the line above says which)\n";
    return 2;
  }
  return ok ? 0 : 1;
}

}  // namespace cdna::audit
