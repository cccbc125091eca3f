// `cdna-verify compare` (tools/compare_command.hpp).
#include "tools/compare_command.hpp"
#include "audit/output/output_paths.hpp"
#include "audit/output/summary_line.hpp"

#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "tools/cli_checks.hpp"
#include "tools/cli_modes.hpp"
#include "tools/code_object_option.hpp"
#include "audit/compare/compare_report.hpp"
#include "audit/compare/compare_run.hpp"
#include "audit/run/executor_choice.hpp"
#include "audit/run/hazard_verdict.hpp"
#include "tools/hazard_option.hpp"
#include "tools/profile_option.hpp"

namespace cdna::tools {

using namespace cdna::audit;  // the engine (audit/README.md)

CompareCommand::CompareCommand(CLI::App& app) {
  cmd_ = app.add_subcommand(
      "compare",
      "Run kernels A and B (adapter names: attention-fwd, aiter-fmha-v3, aiter-pa, moonmath) on the audit's cases and the "
      "special-value cases S01-S05 (NaN and inf inputs) and the tile shapes (--set) that both take, in each of --modes, and compare their outputs element by element: the histogram of |A - B| in bf16 ULPs "
      "(distance in representable values) over O elements finite in both, NaN/inf positions and bit patterns, and "
      "each kernel's determinism (two runs, and on the simulator a third under a random wave schedule). Checks the "
      "claims: every finite O element within --ulp bf16 ULP; NaN/inf handling identical; A deterministic; B "
      "deterministic; for a broken claim prints the smallest problem breaking it and shrinks it (docs/compare.md). "
      "Exit 0 if every claim held over at least one problem, 1 if a claim broke or a kernel failed to run, 2 on bad "
      "input or when no problem was taken by both kernels (NOTHING COMPARED).");
  cmd_->add_option("A", kernel_a_, "Kernel A (adapter name)")->required();
  cmd_->add_option("B", kernel_b_, "Kernel B (adapter name)")->required();
  cmd_->add_option("--code-object-a", code_object_a_,
                   "DIR|FILE: kernel A's code objects for every mode (default: the adapter's own), or MODE=PATH for "
                   "one mode (repeatable), as audit --code-object; one that records a mode other than the one it "
                   "runs in is refused");
  cmd_->add_option("--code-object-b", code_object_b_, "Kernel B's code objects, as --code-object-a");
  cmd_->add_option("--modes", modes_, "bf16 rounding modes: rtne, rtna, rtz")->delimiter(',')->capture_default_str();
  cmd_->add_option("--cases", cases_, "Only the cases whose id contains a match of this regular expression (a search, not anchored; e.g. '^C0[1-3]$|S0')");
  cmd_->add_option("--set", set_,
                   "Which cases: all, audit (the audit's matrix and C01-C14, R01...), special (S01-S05: +inf and NaN "
                   "scores, inf in V, rows without keys by -inf scores), tiles (Sq, Sk around the peers' 256- and "
                   "384-row query tiles, as audit --set tiles)")
      ->check(CLI::IsMember({"all", "audit", "special", "tiles"}))
      ->capture_default_str();
  cmd_->add_option("--ulp", ulp_, "The claim's N: every finite O element within N bf16 ULP")
      ->check(unsigned_integer())
      ->capture_default_str();
  cmd_->add_option("--schedule-seed", schedule_seed_, "Seed of the random-schedule run (simulator only)")
      ->check(unsigned_integer())
      ->capture_default_str();
  cmd_->add_option("--executor", executor_, "auto (HIP device if present, else simulator), simulator, hip")
      ->check(CLI::IsMember({"auto", "simulator", "hip"}))
      ->capture_default_str();
  add_hazards_option(cmd_, hazards_);  // simulator only
  cmd_->add_option("--out", out_, "Directory for compare.json (written only when given)");
  add_profile_option(cmd_, profile_);
  cmd_->add_flag("--no-shrink", no_shrink_, "Do not shrink the smallest problem breaking a claim");
  cmd_->add_flag("--quiet", quiet_, "No progress lines");
}

bool CompareCommand::parsed() const { return cmd_->parsed(); }

int CompareCommand::run() {
  summary().start("compare");
  CompareOptions o;
  o.kernel_a = kernel_a_;
  o.kernel_b = kernel_b_;
  o.modes = parse_modes(modes_);
  CodeObjectChoice a = parse_code_object_option(code_object_a_, o.modes, "--code-object-a");
  CodeObjectChoice b = parse_code_object_option(code_object_b_, o.modes, "--code-object-b");
  o.code_object_a = a.source;
  o.code_objects_a = std::move(a.per_mode);
  o.code_object_b = b.source;
  o.code_objects_b = std::move(b.per_mode);
  o.case_filter = cases_;
  o.audit_cases = set_ == "all" || set_ == "audit";
  o.special_cases = set_ == "all" || set_ == "special";
  o.tile_cases = set_ == "all" || set_ == "tiles";
  o.ulp = ulp_;
  o.profile = profile_;
  o.schedule_seed = schedule_seed_;
  o.shrink = !no_shrink_;
  o.progress = quiet_ ? nullptr : &std::cerr;
  if (out_) check_output_dir("--out", *out_);  // an unusable --out is bad input before any kernel runs
  ChosenExecutor chosen = choose_executor(executor_);
  if (!chosen.sim && !hazards_.empty()) throw CLI::ValidationError("--hazards", "applies to the simulator only");
  // A peer's early reads (docs/peer-kernels.md) would stop every run under `error`; compare is
  // about the values as written, so a peer defaults to `report` (the sites are listed).
  if (hazards_.empty()) hazards_ = kernel_a_ == "attention-fwd" && kernel_b_ == "attention-fwd" ? "error" : "report";
  if (chosen.sim) apply_hazards_option(*chosen.sim, hazards_);
  const CompareResult r = run_compare(o, *chosen.executor, chosen.sim);
  std::cout << compare_table(r);
  if (chosen.sim && hazards_ != "error")
    std::cout << "hazard violations (--hazards " << hazards_ << "): " << hazard_summary(chosen.sim->all_hazards()) << "\n";
  if (out_) {
    write_compare_json(r, *out_);
    std::cout << "written: " << (std::filesystem::path(*out_) / "compare.json").string() << "\n";
  }
  summary().set("compared", static_cast<std::uint64_t>(r.count(ProblemStatus::Compared)));
  summary().set("errors", static_cast<std::uint64_t>(r.count(ProblemStatus::Error)));
  switch (r.outcome()) {
    case CompareOutcome::Held: return 0;
    case CompareOutcome::Broken: return 1;
    case CompareOutcome::RunFailed:
      std::cerr << "cdna-verify: error: " << r.count(ProblemStatus::Error)
                << " problem(s) could not run (see the table); the claims are not known there\n";
      return 1;
    case CompareOutcome::NothingCompared:
      std::cerr << "cdna-verify: error: nothing compared: no problem"
                << (cases_.empty() ? "" : " matching --cases '" + cases_ + "'")
                << " was taken by both kernels; the outcome is NOTHING COMPARED, not a pass\n";
      return 2;
  }
  return 2;
}

}  // namespace cdna::tools
