// The decode part of `cdna-verify audit` (issue 11): fixed decode cases D01–D07 run by the
// monokernel (device/decode_launcher.hpp) and judged by audit/decode/decode_check.hpp in each rounding
// mode, and the decode kill matrix: every decode mutant (device/CMakeLists.txt
// CDNA_DECODE_MUTANTS) on the kill cases, on the simulator in the memory-model mode
// (simulator/checks/memory_model.hpp, MemoryModel::Cdna3) so that a dropped coherence bit can show.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "device/executor.hpp"
#include "numerics/bf16.hpp"
#include "reference/decode/model.hpp"
#include "audit/decode/decode_check.hpp"

namespace cdna::audit {

// One fixed decode case: a seeded random model, a prompt, a number of steps.
struct DecodeCase {
  std::string id;           // "D01", …
  std::string description;  // one line
  reference::DecoderConfig config;
  std::uint64_t seed = 0;
  bool duplicate_lm_head_rows = false;
  // Set LM-head row `nan_row`'s first weight to a quiet NaN (the sentinel protocol's own hazard:
  // a producer whose correct value is NaN must not hang its consumers).
  std::optional<std::int64_t> nan_row;
  std::vector<std::int64_t> prompt;
  std::int64_t steps = 1;
  std::uint32_t grid = 0;  // workgroups; 0: DecodeAuditOptions::grid
  bool slow = false;  // only with `--set all` (minutes on the simulator)
  // Also judge each run layer by layer from its own values (DecodeCheckOptions::layer_checks):
  // where the a-priori balls decide nothing, this is what judges the steps.
  bool layer_checks = false;
  // A kill case run under each starvation seed 1..kDecodeKillStarveSeeds (run_decode_audit).
  bool starve_sweep = false;
};

// D01 micro (1 layer, H 32) 64 steps, D02 a small model (1 layer, H 64, V 500) 64 steps,
// D03 micro with duplicated LM-head rows (tie classes), D04 the 2-layer tiny preset (its a-priori
// bounds are too wide to decide; judged by the per-layer checks), D05 tiny with a NaN LM-head
// weight, D06 one layer at Llama-3.2-1B's shapes (slow: `--set all`), D07 16 layers (H 128, MQA:
// the shapes of the t16-h128-mqa fixture, random weights), judged by the per-layer checks.
std::vector<DecodeCase> decode_cases();
// The model of a case (random_decoder_model with its options, then the NaN weight).
reference::DecoderModel decode_case_model(const DecodeCase& c);

struct DecodeCaseResult {
  std::string id, description, mode;
  DecodeOutcome outcome = DecodeOutcome::Fail;
  std::string line;   // decode_outcome_line, or the error that stopped the run
  DecodeCounts counts;
  std::string status;  // the kernel's stop: steps, eos, nan ("-" when it did not finish)
  std::int64_t positions = 0;
  double kernel_seconds = 0, envelope_seconds = 0;
  std::uint64_t wave_instructions = 0;
  std::uint64_t weight_bytes_per_token = 0, model_bytes = 0;
  bool layer_checks = false;  // the case ran them: counts.layer_* hold their verdicts
  double layer_seconds = 0;
  // Index of the case among the decode cases the unsharded run matches: where `report merge`
  // puts the rows of shards back.
  std::size_t position = 0;
};

struct DecodeMutantResult {
  std::string name;    // e.g. "dropped_acquire"
  bool killed = false;
  std::string how;     // per kill case: "D01: fail (position 3: …)" / "hang: …" / "pass"
};

struct DecodeAuditResult {
  std::vector<DecodeCaseResult> rows;
  std::vector<DecodeMutantResult> mutants;  // empty when not run
  std::string mutants_not_run;              // why, when empty
  std::string memory_model;                 // of the mutant runs: "cdna3" or "hardware"
  std::string control;                      // the correct kernel on the kill cases: "K1 pass, …"
  double seconds = 0;
  int count(DecodeOutcome o) const;
  int killed() const;
};

struct DecodeAuditOptions {
  std::vector<numerics::Rounding> modes;
  std::string case_filter;  // ECMAScript regex searched in case ids; empty: every case
  bool include_slow = false;
  bool mutants = true;
  // Run only the cases this returns true for (a shard's: audit/cases/shard.hpp); empty: every case.
  std::function<bool(const std::string&)> owns;
  std::uint32_t grid = 8;   // workgroups (the simulator's time grows with the grid)
  std::ostream* progress = nullptr;
};

// The simulator's starvation seeds of the kill matrix (SchedulerOptions::starve_seed 1..this):
// a store held past its wave's partial lets DROPPED_RELEASE's missing release show
// (docs/decode-semantics.md §5.6). Which seed holds the right store depends on the compiled code
// (any change to the kernel moves it), so the protocol's case runs under each, not under one.
inline constexpr std::uint64_t kDecodeKillStarveSeeds = 8;

// Runs the cases on `executor` (wave_instructions: the simulator's count of the last dispatch, or
// empty) and, if options.mutants, the kill matrix, each run after `set_memory_model(seed)` (the
// simulator's memory-model mode with that starvation seed; seeds 1..kDecodeKillStarveSeeds on a
// kill case with starve_sweep, seed 1 on the others) and `set_memory_model(nullopt)` after (empty
// when the executor is not the simulator: then the hardware's own memory model is the one the
// mutants face, one run per case). First the correct kernel's control runs of every kill case
// and seed (not PASS: throws std::runtime_error), then the mutants, each stopping its seeds at
// the first kill. A case that throws (hang, fault) is a FAIL row with the error; for a mutant, a
// throw kills it.
DecodeAuditResult run_decode_audit(const DecodeAuditOptions& options, device::Executor& executor,
                                   const std::function<std::uint64_t()>& wave_instructions = {},
                                   const std::function<void(std::optional<std::uint64_t>)>& set_memory_model = {});

// The kill cases: K1 micro seed 1, K2 micro seed 2 with duplicated LM-head rows (ties), both 12
// steps on the audit's grid; K3 K1 on grid 4 (four XCDs: the protocol's case), under every
// starvation seed.
std::vector<DecodeCase> decode_kill_cases();

// The ids of the decode cases a run with `case_filter` and `include_slow` takes, in run order.
std::vector<std::string> decode_case_ids(const std::string& case_filter, bool include_slow);

std::string decode_table(const DecodeAuditResult& r);          // plain text, for the terminal
std::string decode_markdown(const DecodeAuditResult& r);       // report.md section
nlohmann::json decode_json(const DecodeAuditResult& r);        // report.json "decode"
// The per-layer checks' counts as report.json and `decode --json` write them ("layer_checks":
// match, explained, defect, not_classified, values_checked, values_outside, values_unbounded,
// seconds: `seconds`).
nlohmann::json layer_checks_json(const DecodeCounts& n, double seconds);

}  // namespace cdna::audit
