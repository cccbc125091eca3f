#include "tools/audit_command.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <mutex>
#include <regex>

#include "adapters/code_object_mode.hpp"
#include "adapters/kernel_adapter.hpp"
#include "audit/audit.hpp"
#include "audit/report/audit_junit.hpp"
#include "tools/audit_workers.hpp"
#include "tools/cli_modes.hpp"
#include "tools/code_object_option.hpp"
#include "audit/run/hazard_verdict.hpp"
#include "tools/hazard_option.hpp"
#include "tools/lds_races_cli.hpp"
#include "audit/output/output_paths.hpp"
#include "simulator/schedule/parallel.hpp"
#include "tools/profile_option.hpp"
#include "audit/output/progress.hpp"
#include "audit/output/summary_line.hpp"

namespace cdna::tools {

using namespace cdna::audit;  // the engine (audit/README.md)

const char* const kKernelOptionHelp =
    "Kernel to audit, through its adapter (docs/peer-kernels.md): attention-fwd (ours, "
                                  "the build's code objects), aiter-fmha-v3 (AMD AITER FMHA v3 code objects, default "
                                  "../shared/peers/aiter-fmha-v3-gfx942), aiter-pa (AMD AITER paged attention for "
                                  "decode, bf16 KV cache, RTNA; code objects and pa_asm.csv, default "
                                  "../shared/peers/aiter-decode-gfx942), moonmath (MoonMath's kernels built from "
                                  "../shared/peers/moonmath-attention)";

AuditCommand::AuditCommand(CLI::App& app) {
  cmd_ = app.add_subcommand(
      "audit",
      "Run the default matrix and the handed cases C01-C14 and the feature cases W01-F02 (and, for a peer --kernel, the shapes around its tiles) "
      "on the available executor (a gfx942 device through the HIP runtime, else the CDNA3 simulator) with any kernel "
      "adapter (--kernel: ours, aiter-fmha-v3, aiter-pa, moonmath), compare O and LSE with the exact MPFR oracle "
      "(docs/pass-rule.md), print a table and the kill matrix of the mutation testing (docs/mutation-testing.md), write report.json, report.md and report.html. Exit 0 "
      "(outcome PASS) if at least one kernel output was judged and no case failed, 1 (FAIL) if a case failed, 2 on "
      "bad input or when nothing was judged (NOTHING JUDGED: no case matched, or every matched case was rejected).");
  cmd_->add_option("--out", out_dir_, "Directory for report.json, report.md and report.html")->capture_default_str();
  modes_option_ = cmd_->add_option("--modes", modes_,
                                   "bf16 rounding modes to audit: rtne, rtna, rtz (default: every mode the --kernel is "
                                   "built in; all three but for aiter-pa, RTNA only)")
                      ->delimiter(',');
  cmd_->add_option("--cases", cases_, "Only cases whose id contains a match of this regular expression (a search, not anchored: 'C0[1-4]' also selects SC01; '^C0[1-4]$' exactly C01-C04)");
  cmd_->add_option("--set", set_,
                    "Which cases: default (matrix + handed, + tiles for a peer kernel; for aiter-pa: paged only), paged (the paged decode "
                    "batches only: page 16, GQA 4/8/16, a long context, 2-5 query rows per sequence, an empty sequence, NaN in "
                    "unused slots), all (matrix + handed + tiles), "
                    "matrix (model layouts), handed (C01-C14, the crafted R cases, the feature cases W01, W02, P01, SC01, SK01, DV01, F01, F02), tiles (Sq, Sk in {1, 255, 256, "
                    "257, 384, 385, 1000} around the peer kernels' 256- and 384-row query tiles, GQA at three, varlen batches packed and with padded starts, and paged decode batches around AITER PA's 16-slot pages and GQA 4/8/16), decode (only the "
                    "decode monokernel's cases D01-D05 and D07, and its kill matrix; default adds them for our kernel, all "
                    "adds D06, one layer at Llama-3.2-1B's shapes; docs/decode-semantics.md), production (the "
                    "benchmark shapes, in no other set: B1 H8/8 Sq=Sk=4096 D128 for a peer --kernel, B1 H1 Sq 1024 "
                    "Sk 33000 D128 for ours; judged on 64 seeded query rows per head against the MPFR oracle, the "
                    "other rows checked finite, and each row says so; minutes per mode on the simulator; "
                    "docs/pass-rule.md \"Production cases\")")
      ->check(CLI::IsMember({"default", "all", "matrix", "handed", "tiles", "paged", "decode", "production"}))
      ->capture_default_str();
  cmd_->add_option("--executor", executor_, "auto (HIP device if present, else simulator), simulator, hip")
      ->check(CLI::IsMember({"auto", "simulator", "hip"}))
      ->capture_default_str();
  cmd_->add_option("--kernel", kernel_, kKernelOptionHelp)->capture_default_str();
  cmd_->add_option("--code-object", code_objects_,
                    "DIR|FILE: the kernel's code objects for every mode (a directory holding them under their usual "
                    "names, or one file), or MODE=PATH for one mode (repeatable). A code object that records another "
                    "mode (our symbol cdna_bf16_rounding, AITER's kernel name) is refused; one that records none is "
                    "audited as MODE, and the report says MODE was not checked");
  cmd_->add_flag("--quiet", quiet_, "No progress lines");
  cmd_->add_flag("--no-mutants", no_mutants_,
                  "Skip the mutation testing of the verifier (kill matrix in the reports; about 10 s on the simulator)");
  add_sim_options(cmd_, sim_);
  cmd_->add_option("--jobs", jobs_,
                    "Attention cases run at once, each job on its own simulator (a case's modes together, its oracle "
                    "once); the reports are those of --jobs 1 but for times (docs/ci.md \"Parallel cases\"). Default: "
                    "the cores this process may use (1 for --set production: one case per kernel, whose dispatches "
                    "then take the cores); 1: one case after another. Without --threads each job's "
                    "dispatches get max(1, cores / N) threads, as does each case's oracle (report.json "
                    "executor_description: jobs, threads). The decode cases and the kill matrices run one at a time "
                    "as before. The HIP device takes 1 only")
      ->check(CLI::Range(1u, 4096u));
  add_profile_option(cmd_, profile_);
  cmd_->add_option("--junit", junit_,
                    "Also write a JUnit XML report to FILE (one testcase per case x mode x kernel, the kill matrices "
                    "as a second testsuite; docs/ci.md \"JUnit output\"); checked writable before the audit starts, "
                    "written whatever the outcome");
  add_shard_options(cmd_, shard_, "attention and decode cases (all modes of a case together; the kill matrices in one shard each)");

}

int AuditCommand::run() {
  summary().start("audit");
  started_ = std::chrono::system_clock::now();
  check_output_dir("--out", out_dir_);  // before any case runs, not after the whole audit
  if (!junit_.empty()) check_output_file("--junit", junit_);
  return junit::run_writing_errors(junit_, "cdna-verify.audit", "cdna-verify.audit." + kernel_,
                                   [this] { return run_checked(); });
}

int AuditCommand::run_checked() {
  const std::string& out_dir = out_dir_;
  const std::string& kernel = kernel_;
  const std::string& cases = cases_;
  const std::string& set = set_;
  const bool quiet = quiet_;
  const bool mutants = !no_mutants_;
  const std::optional<ShardSpec> shard = shard_.spec();  // before any work: a bad --shard is bad input
  if (shard) summary().set("shard", shard->text());
  AuditOptions options;
  options.shard = shard;
  options.kernel = kernel;
  options.profile = profile_;
  options.modes = modes_option_->count() > 0 ? parse_modes(modes_) : adapters::make_adapter(kernel)->features().modes;
  options.case_filter = cases;
  if (set == "decode" && kernel != "attention-fwd")
    throw CLI::ValidationError("--set", "decode audits our decode monokernel; --kernel " + kernel +
                                            " names an attention kernel (drop --kernel, or choose another --set)");
  const bool run_decode_cases = set_runs_decode_cases(set, kernel);
  select_case_set(options, set);
  options.progress = quiet ? nullptr : &std::cerr;
  {
    CodeObjectChoice c = parse_code_object_option(code_objects_, options.modes, "--code-object");
    options.code_object_source = c.source;
    options.code_objects = std::move(c.per_mode);
  }

  ChosenExecutor chosen = choose_executor(executor_);
  auto settings = apply_sim_settings(chosen, sim_, kernel);
  // The attention cases run on the workers' executors; the decode cases and the kill matrices
  // below on `chosen` (one case at a time, its dispatches on --threads or all usable cores).
  // The production set has one case per kernel (all modes on one worker): one job, whose
  // dispatches take the cores, unless --jobs says otherwise.
  const std::optional<unsigned> jobs = !jobs_ && set == "production" ? std::optional<unsigned>(1) : jobs_;
  AuditWorkers workers = make_audit_workers(chosen, jobs, sim_, kernel);
  options.oracle_threads = threads_per_job(simulator::usable_cores(), workers.jobs);
  std::function<std::uint64_t()> wave_instructions;
  // A long dispatch (the production cases) says how far it is, at most a line every 10 s; with
  // one job only (several jobs' dispatches would interleave their lines).
  std::unique_ptr<Progress> dispatch_line;
  std::mutex dispatch_mutex;  // workgroups may retire on several threads
  if (!quiet && workers.owned.size() == 1) {
    workers.owned.front().sim->options().workgroup_done = [&](std::uint64_t done, std::uint64_t total) {
      const std::lock_guard<std::mutex> lock(dispatch_mutex);
      if (!dispatch_line || done == 1)
        dispatch_line = std::make_unique<Progress>(&std::cerr, "audit: simulator", "workgroup", total, 10.0);
      dispatch_line->step(done);
    };
  }
  if (auto* sim = chosen.sim) {
    wave_instructions = [sim] { return sim->last_stats().wave_instructions; };
    sim->options().differential_throws = false;  // as on the workers: the decode audit judges such a run itself
    sim->clear_all_hazards();
  }
  summary().set("kernel", kernel);
  summary().set("executor", chosen.executor->name());
  AuditResult result = run_audit(options, workers.workers);
  // Hazard sites over the whole audit, in case order whichever job ran a case.
  std::vector<simulator::HazardViolation> audit_hazards;
  for (const CaseResult& r : result.rows) simulator::merge_hazard_sites(audit_hazards, r.hazard_sites);
  result.executor_settings = std::move(settings);
  result.executor_description = chosen.executor->describe();
  if (chosen.sim) describe_jobs(result.executor_description, workers, chosen.sim->options().threads);
  result.set = set;
  // Which shard runs each kill matrix: the one that owns its pseudo case id (audit/cases/shard.hpp).
  const int mutation_shard = shard ? ShardSpec::of(kMutationKillMatrixId, shard->count) : 1;
  const int decode_mutation_shard = shard ? ShardSpec::of(kDecodeKillMatrixId, shard->count) : 1;
  if (result.shard) {
    result.shard->mutation_shard = mutation_shard;
    result.shard->decode_mutation_shard = decode_mutation_shard;
    result.shard->allow_empty = shard_.allow_empty;
  }
  const std::string shard_name = shard ? "shard " + shard->text() : "";
  const auto in_other_shard = [&](const std::string& what, int owner) {
    return shard_name + ": " + what + " runs in shard " + std::to_string(owner) + "/" + std::to_string(shard->count);
  };
  if (!run_decode_cases) {
    result.decode_not_run = kernel != "attention-fwd" ? "--kernel " + kernel + " is an attention kernel"
                                                      : "--set " + set + " has no decode cases";
  } else if (const std::vector<DecodeCase> all = decode_cases();
             std::none_of(all.begin(), all.end(), [&](const DecodeCase& c) {
               return std::regex_search(c.id, std::regex(cases.empty() ? std::string(".*") : cases));
             })) {
    result.decode_not_run = "no decode case matched --cases '" + cases + "'";
  } else if (const std::vector<std::string> ids = decode_case_ids(cases, set == "all");
             shard && std::none_of(ids.begin(), ids.end(), [&](const std::string& id) { return shard->contains(id); }) &&
             shard->index != decode_mutation_shard) {
    result.decode_not_run = shard_name + " owns no decode case; " + in_other_shard("the decode kill matrix", decode_mutation_shard);
    result.shard->cases_matched += static_cast<int>(ids.size());
  } else {
    if (result.shard) {
      result.shard->cases_matched += static_cast<int>(ids.size());
      for (const auto& id : ids)
        if (shard->contains(id)) result.shard->owned.push_back(id);
    }
    if (!quiet) std::cerr << "decode: the monokernel on the decode cases (D01-D05, D07; D06 with --set all; docs/decode-semantics.md)\n";
    DecodeAuditOptions d;
    d.modes = options.modes;
    d.case_filter = cases;
    d.include_slow = set == "all";
    d.mutants = mutants && (!shard || shard->index == decode_mutation_shard);
    if (shard) d.owns = [shard](const std::string& id) { return shard->contains(id); };
    d.progress = quiet ? nullptr : &std::cerr;
    std::function<void(std::optional<std::uint64_t>)> memory_model;
    if (auto* sim = chosen.sim) {
      const simulator::SchedulerOptions given = sim->options();
      memory_model = [sim, given](std::optional<std::uint64_t> starve_seed) {
        const bool on = starve_seed.has_value();
        sim->options().memory_model = on ? simulator::MemoryModel::Cdna3 : given.memory_model;
        sim->options().starve_seed = on ? starve_seed : given.starve_seed;
        sim->options().hang_rounds = on ? std::max<std::uint64_t>(given.hang_rounds, 2 * given.starve_rounds) : given.hang_rounds;
      };
    }
    result.decode = run_decode_audit(d, *chosen.executor, wave_instructions, memory_model);
    if (mutants && !d.mutants) result.decode->mutants_not_run = in_other_shard("the decode kill matrix", decode_mutation_shard);
    std::cout << "\n" << decode_table(*result.decode);
  }
  if (chosen.sim && chosen.sim->options().hazard_policy != simulator::HazardPolicy::Error)
    result.executor_settings.emplace_back("hazard_violations", hazard_summary(audit_hazards));
  if (chosen.sim && chosen.sim->options().lds_races == simulator::LdsRaces::Report)
    result.executor_settings.emplace_back("lds_races_reported",
                                          std::to_string(print_lds_races(std::cerr, all_lds_races(workers, chosen))));
  for (const auto& c : result.code_objects)
    if (!c.mode_recorded) std::cerr << "cdna-verify: note: " << adapters::unchecked_mode_notice(c.path, c.mode, result.kernel) << "\n";
  for (const auto& n : result.code_objects_not_taken) std::cerr << "cdna-verify: note: not audited (present, not taken): " << n << "\n";
  if (set != "decode") std::cout << summary_table(result);
  else std::cout << outcome_line(result) << "\n";
  if (chosen.sim) std::cout << hazard_lines(audit_hazards);
  const AuditOutcome outcome = result.outcome();
  const AuditCounts counts = result.counts();
  summary().set("judged", static_cast<std::uint64_t>(counts.cases_judged));
  summary().set("failed", static_cast<std::uint64_t>(counts.cases_failed));
  summary().set("rejected", static_cast<std::uint64_t>(counts.cases_rejected));
  if (counts.cases_sampled > 0) summary().set("sampled", static_cast<std::uint64_t>(counts.cases_sampled));
  if (chosen.sim && chosen.sim->options().hazard_policy != simulator::HazardPolicy::Error) {
    // The two verdicts (issue 23 §3): cases whose numerics fail, cases whose hazards fail, and
    // the audit's sites of documented and of LLVM-only rules.
    std::uint64_t numerics_failed = 0, hazards_failed = 0;
    for (const CaseResult& r : result.rows) {
      numerics_failed += r.numerics_verdict() == Verdict::Fail;
      hazards_failed += r.hazard_verdict == "fails";
    }
    summary().set("numerics_failed", numerics_failed);
    summary().set("hazards_failed", hazards_failed);
    summary().set("hazard_sites", static_cast<std::uint64_t>(documented_sites(audit_hazards)));
    summary().set("hazard_sites_llvm_only", static_cast<std::uint64_t>(llvm_only_sites(audit_hazards)));
  }
  if (result.decode) {
    summary().set("decode_passed", static_cast<std::uint64_t>(result.decode->count(DecodeOutcome::Pass)));
    summary().set("decode_failed", static_cast<std::uint64_t>(result.decode->count(DecodeOutcome::Fail)));
  }
  // Mutation testing judges our verifier, not the audited kernel; an audit that judged nothing
  // is an input error, so it ends without that extra work.
  // A shard runs it in the shard that owns it whatever its own cases judged; `report merge` drops
  // it again if the whole run judged nothing.
  if (!shard && outcome == AuditOutcome::NothingJudged) result.mutation_not_run = "the audit judged nothing";
  if (shard && shard->index != mutation_shard) result.mutation_not_run = in_other_shard("the kill matrix", mutation_shard);
  if (set == "decode") result.mutation_not_run = "--set decode (the decode kill matrix is in the decode section)";
  const bool run_mutation = shard ? shard->index == mutation_shard : outcome != AuditOutcome::NothingJudged;
  if (mutants && run_mutation && set != "decode") {
    // Mutation testing of the verifier itself (docs/mutation-testing.md): its kill matrix goes
    // into the reports. It judges our verdict, not the audited kernel, so it does not change the
    // exit code; a surviving mutant or a false positive is reported on stderr.
    if (!quiet) std::cerr << "mutation testing: kernel mutants on the fixed cases\n";
    MutantsOptions mo;
    mo.progress = quiet ? nullptr : &std::cerr;
    if (chosen.sim) {
      // The mutants are ours: the simulator's checks stop them as they do our kernel (a peer's
      // differential or report policy would let the missing-wait-state mutants through).
      chosen.sim->options().hazard_policy = simulator::HazardPolicy::Error;
      chosen.sim->options().differential_throws = true;
      chosen.sim->options().lds_races = simulator::LdsRaces::Error;
    }
    result.mutation = run_mutants(mo, *chosen.executor);
    std::cout << "\nMutation testing (kill matrix):\n" << kill_matrix(*result.mutation);
    if (!result.mutation->ok())
      std::cerr << "cdna-verify: warning: mutation testing: a mutant survived our verdict or the correct kernel "
                   "failed a check of ours (see the kill matrix)\n";
  }
  write_reports(result, out_dir);
  if (!junit_.empty()) {
    junit::write(junit_, audit_junit(result, options.modes, started_));
    std::cout << "JUnit: " << junit_ << "\n";
  }
  std::cout << "reports: " << (std::filesystem::path(out_dir) / "report.json").string() << ", "
            << (std::filesystem::path(out_dir) / "report.md").string() << ", "
            << (std::filesystem::path(out_dir) / "report.html").string() << "\n";
  if (result.shard) std::cout << shard_line(result) << "\n";
  if (result.shard && (result.shard->owned.empty() || outcome == AuditOutcome::NothingJudged) &&
      result.shard->cases_matched > 0) {
    // A shard's nothing is not the run's nothing (docs/ci.md): exit 2 unless the fleet says it may be.
    const std::string why = result.shard->owned.empty()
                                ? shard_name + " owns no case (the " + std::to_string(result.shard->cases_matched) +
                                      " matched cases are in other shards)"
                                : shard_name + " judged nothing of its " + std::to_string(result.shard->owned.size()) +
                                      " case(s): " + result.nothing_judged_reason();
    if (shard_.allow_empty) {
      if (!quiet) std::cerr << "cdna-verify: note: " << why << "; --allow-empty-shard: exit 0, `report merge` judges the run\n";
      summary().set_nothing_judged();  // exit 0 by permission, and still no verdict
      return 0;
    }
    std::cerr << "cdna-verify: error: " << why << "; the outcome is NOTHING JUDGED (--allow-empty-shard makes it exit 0)\n";
    return 2;
  }
  if (outcome == AuditOutcome::NothingJudged) {
    std::cerr << "cdna-verify: error: " << result.nothing_judged_reason()
              << (result.rows.empty() && !result.decode ? " --cases '" + cases + "' (with --set " + set + ")" : "")
              << "; the outcome is NOTHING JUDGED, not a pass\n";
    return 2;
  }
  return outcome == AuditOutcome::Pass ? 0 : 1;
}

}  // namespace cdna::tools
