// Mutation testing of the verifier (docs/mutation-testing.md). Runs the
// correct kernel (the control) and every kernel mutant (device/kernels/attention_fwd.hip, one
// deliberate mistake each, built by CMake next to the normal code objects) on one fixed set of
// inputs, judges every output by each part of our verdict and by each peer suite's rule
// (reference/attention/peer_rules.hpp), and reports which check kills which mutant.
#pragma once

#include <array>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "device/executor.hpp"
#include "numerics/bf16.hpp"
#include "reference/attention/attention.hpp"
#include "reference/attention/peer_rules.hpp"
#include "reference/attention/varlen.hpp"

namespace cdna::audit {

struct MutantInfo {
  std::string name;     // CDNA_MUTANT_<name>
  std::string mistake;  // one line
};
// Every mutant of the attention kernel; the same names as CDNA_ATTENTION_MUTANTS in
// device/CMakeLists.txt.
const std::vector<MutantInfo>& attention_mutants();
// <dir>/attention_fwd_mutant_<name in lower case>.hsaco.
std::filesystem::path mutant_code_object(std::string_view name, const std::filesystem::path& dir);

// A correct kernel judged in a mode other than the one it was built for ("RTNA kernel
// declared RTNE"): the code object attention_fwd_<built>.hsaco, the verdict in `declared`.
// All six ordered pairs of RTNE, RTNA, RTZ.
struct ModeSwap {
  std::string name;     // "RTNA_DECLARED_RTNE"
  std::string mistake;  // one line
  numerics::Rounding built, declared;
};
const std::vector<ModeSwap>& mode_swaps();

struct MutantCase {
  std::string id, description;
  // The dense problem; for a varlen / paged case, varlen->base (B sequences, Sq = Sk = 0, no
  // inputs): what the report shows of its mask, scale and heads.
  reference::AttentionProblem problem;
  // Set for a varlen / paged case (reference/attention/varlen.hpp): run by run_attention_varlen, judged by
  // compare_varlen, the one-key facts and the peer rules per sequence.
  std::optional<reference::VarlenProblem> varlen;
};
// The fixed inputs: each mutant's mistake shows on at least one (docs/mutation-testing.md).
std::vector<MutantCase> mutant_cases();

// The kill-matrix columns: our verdict's parts, then the peer rules in kAllPeerRules order.
enum class Check : std::uint8_t { Bound, Floor, Facts, Lse, Simulator };
inline constexpr int kOurChecks = 5;
inline constexpr int kColumns = kOurChecks + static_cast<int>(std::size(reference::kAllPeerRules));
std::string column_name(int column);

// Outcome of one check on one case.
enum class Outcome : std::uint8_t { Pass, Fail, NoOutput };

// The figures behind the outcomes of one case (all 0 when the run gave no output).
struct CaseFigures {
  double rel_rms_err_o = 0, floor_rel_rms_o = 0;        // our floor check: err <= 2 x floor
  double max_err_to_bound_o = 0, max_err_to_bound_lse = 0;  // our bounds: <= 1
  std::array<double, std::size(reference::kAllPeerRules)> peer_err{}, peer_tol{};  // pass iff err <= tol
};

struct KernelResult {
  std::string name;  // "control", "control_rtna", "control_rtz" or the mutant's name
  std::string mistake;
  bool control = false;
  numerics::Rounding declared = numerics::Rounding::RTNE;  // the mode the verdict judges in
  std::vector<std::array<Outcome, kColumns>> outcomes;  // per case
  std::vector<CaseFigures> figures;                      // per case
  std::array<std::string, kColumns> first_failure;       // "<case>: <note>" of the first failing case
  std::string first_verdict_failure;  // "<case>: <first violation compare_attention saw>", if any
  double seconds = 0;
  // A column kills a mutant if it fails on a case on which it passes the control of the same
  // declared mode (a rule that also fails the correct kernel there tells nothing about the
  // mistake); without that control, if it fails on any case. For a control itself: fails on any
  // case (a false positive).
  std::array<bool, kColumns> killed{};

  bool failed(int column) const;  // Fail on at least one case
  bool killed_by_ours() const;    // killed by any of our checks
};

struct MutantsOptions {
  std::filesystem::path code_object_dir = CDNA_CODE_OBJECT_DIR;
  std::string filter;  // ECMAScript regex searched in mutant names; empty: all
  // Run the correct kernel first, in each mode (MutantsResult::ok() needs the RTNE one).
  bool control = true;
  std::ostream* progress = nullptr;
};

struct MutantsResult {
  std::string executor;
  std::vector<MutantCase> cases;  // problems included, for the report
  std::vector<KernelResult> kernels;  // the controls (if run) first, RTNE, RTNA, RTZ
  double seconds = 0;
  int mutants() const;  // kernels that are not controls: mistakes and mode swaps
  int killed(int column) const;  // mutants the column kills
  int killed_by_ours() const;    // mutants any of our checks kills
  // Every mutant killed by our verdict and every control (the RTNE one first) passes every one
  // of our checks.
  bool ok() const;
};

// Throws std::runtime_error naming the file if a code object is missing or unloadable.
MutantsResult run_mutants(const MutantsOptions& options, device::Executor& executor);

// The kill matrix as a text table, with kill rates and the control's false positives.
std::string kill_matrix(const MutantsResult& result);

// The whole result as JSON (cases, per-kernel outcomes and figures, kill counts, false positives);
// the content of mutants.json and of report.json's "mutation_testing".
nlohmann::json mutants_json(const MutantsResult& result);
// The kill matrix as a Markdown table: control row, one row per mutant, kill-rate row.
std::string kill_matrix_markdown(const MutantsResult& result);

// Writes <dir>/mutants.json and <dir>/mutants.md atomically (temporary file, then rename).
void write_mutant_reports(const MutantsResult& result, const std::filesystem::path& dir);


// `mutants --features`: prints the feature matrix to `out`; 0 if our verdict kills every feature
// mutant and passes the correct model, 1 otherwise, 2 if it does not take some case.
int run_features(std::ostream& out);

}  // namespace cdna::audit
