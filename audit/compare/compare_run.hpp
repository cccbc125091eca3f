// `cdna-verify compare A B` (docs/compare.md): runs two kernels, through their adapters, on the
// same problems in each mode, compares their outputs element by element (audit/compare/kernel_diff.hpp),
// checks each kernel's determinism across repeated runs and simulator schedules, and decides
// four claims — every finite O element within N bf16 ULP, NaN/inf handling identical, A
// deterministic, B deterministic — each with the smallest problem that breaks it, shrunk. The
// problems: the audit's cases and the special-value cases S01–S05.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "adapters/kernel_adapter.hpp"
#include "device/executor.hpp"
#include "numerics/bf16.hpp"
#include "reference/attention/attention.hpp"
#include "simulator/schedule/simulator_executor.hpp"
#include "audit/compare/kernel_diff.hpp"

namespace cdna::audit {

struct CompareOptions {
  std::string kernel_a = "attention-fwd", kernel_b = "attention-fwd";  // adapter names
  std::filesystem::path code_object_a, code_object_b;  // KernelAdapter::load's source; empty: default
  // Per mode, a source instead of the one above (MODE=PATH, as audit --code-object).
  std::map<numerics::Rounding, std::filesystem::path> code_objects_a, code_objects_b;
  std::vector<numerics::Rounding> modes{std::begin(numerics::kAllRoundings), std::end(numerics::kAllRoundings)};
  std::string case_filter;         // ECMAScript regex searched in the case ids; empty: all
  bool audit_cases = true;         // the audit's default matrix and handed cases (audit/cases/audit_cases.hpp)
  bool special_cases = true;       // S01–S05, NaN and inf inputs (audit/cases/special_value_cases.hpp)
  bool tile_cases = true;          // the shapes around the peers' query tiles (audit/cases/audit_cases.hpp tile_cases)
  std::uint64_t ulp = 1;           // the claim "every finite O element within ulp bf16 ULP"
  std::uint64_t schedule_seed = 1;  // seed of the third run under Schedule::Random (simulator only)
  bool shrink = true;              // shrink the smallest breaking problem of each broken claim
  std::ostream* progress = nullptr;  // one line per problem and mode
  // Peer convention profile (reference/attention/profiles.hpp): rows without a visible key that follow it
  // are mapped onto the definition's (+0.0, -inf) in both outputs before they are diffed.
  std::string profile = "ours";
};

// Determinism of one kernel on one problem: run 2 against run 1 (same executor settings), and
// on the simulator run 3 under Schedule::Random with CompareOptions::schedule_seed against run 1.
struct Determinism {
  RunIdentity repeat;
  std::optional<RunIdentity> random_schedule;  // nullopt: the executor is not the simulator
  bool deterministic() const { return repeat.identical() && (!random_schedule || random_schedule->identical()); }
  std::string first_difference() const;  // "run 2: O (b=..): A 0x.., B 0x.." (A = run 1), or ""
};

// Which part of a case a shrunk problem keeps: [first, first + count) of each extent; the query
// heads kept are kv_heads × group_heads (query head h = g · group + r reads KV head g).
struct Slice {
  std::int64_t b0 = 0, nb = 0, i0 = 0, nq = 0, j0 = 0, nk = 0, g0 = 0, ng = 0, r0 = 0, nr = 0;
  std::string text() const;  // "b [0, 1), i [0, 8), j [0, 16), KV heads [0, 1), group [0, 2)"
};
Slice whole(const reference::AttentionShape& s);
// The problem made of that part of `p` (same mask, scale); the mask applies to the new Sq, Sk.
reference::AttentionProblem slice_problem(const reference::AttentionProblem& p, const Slice& s);

enum class ProblemStatus { Compared, Skipped, Error };

struct ProblemDiff {
  std::string case_id, mode, mask;  // mode "RTNE"...; mask as reference::to_string
  reference::AttentionShape shape;
  float scale = 0;
  std::uint64_t seed = 0;
  ProblemStatus status = ProblemStatus::Skipped;
  std::string reason;  // Skipped: which kernel does not take it and why; Error: which kernel failed and how
  TensorDiff o, lse;
  bool lse_compared = false;  // both kernels write LSE
  Determinism det_a, det_b;
};

enum class Claim { WithinUlp, NonFiniteIdentical, ADeterministic, BDeterministic };
inline constexpr Claim kClaims[] = {Claim::WithinUlp, Claim::NonFiniteIdentical, Claim::ADeterministic,
                                    Claim::BDeterministic};
std::string claim_id(Claim c);                    // "within_ulp", "nonfinite_identical", "a_deterministic", ...
std::string claim_text(Claim c, std::uint64_t ulp);  // "every finite O element within 1 bf16 ULP", ...

// The first offending element of `p` for claim `c` (one line), or nullopt if `p` does not break
// it (a problem not compared breaks nothing).
std::optional<std::string> claim_broken(const ProblemDiff& p, Claim c);

struct Shrunk {
  Slice slice;                   // of the smallest breaking problem's case
  reference::AttentionShape shape;
  std::string first_element;     // the first offending element of the shrunk problem
  int candidates_run = 0;        // sub-problems tried
};

struct ClaimResult {
  Claim claim = Claim::WithinUlp;
  std::string text;
  int problems_checked = 0;  // compared problems
  int problems_broken = 0;
  bool held() const { return problems_checked > 0 && problems_broken == 0; }
  // Broken: index into CompareResult::problems of the breaking problem with the fewest O
  // elements (the first of equals), its first offending element, and its shrunk form.
  std::optional<std::size_t> smallest;
  std::string first_element;
  std::optional<Shrunk> shrunk;
};

// Broken: a claim broke. RunFailed: no claim broke but a kernel failed to run on some problem
// (its claims are not known there: no pass). NothingCompared: no problem was taken by both.
enum class CompareOutcome { Held, Broken, RunFailed, NothingCompared };
std::string_view to_string(CompareOutcome o);  // "held", "broken", "run_failed", "nothing_compared"

struct CompareResult {
  std::string kernel_a, kernel_b, executor;
  std::string profile = "ours";  // named in every report
  std::vector<adapters::LoadedCodeObject> code_objects_a, code_objects_b;
  std::uint64_t ulp = 1, schedule_seed = 1;
  std::vector<ProblemDiff> problems;
  std::vector<ClaimResult> claims;  // in kClaims order (empty when nothing was compared)
  TensorDiff o_total, lse_total;    // over compared problems
  double seconds = 0;
  int count(ProblemStatus s) const;
  // Broken if a claim broke; else RunFailed if a problem could not run (Error); else Held if
  // something was compared; else NothingCompared.
  CompareOutcome outcome() const;
};

// Loads both kernels' code objects for every mode (throws std::runtime_error / invalid_argument
// with one line on bad input: unknown kernel, missing code object, a code object recording
// another mode; std::regex_error for a bad case_filter), then runs the chosen cases that both
// kernels take. `sim`: the executor as the simulator (for the
// random-schedule run), or nullptr.
CompareResult run_compare(const CompareOptions& options, device::Executor& executor,
                          simulator::SimulatorExecutor* sim);

}  // namespace cdna::audit
