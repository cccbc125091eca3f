// cdna-verify: the command-line program. Subcommands: audit, run, sim, golden, mutants, lint, compare, decode.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <optional>
#include <memory>
#include <regex>

#include "simulator/simulator_executor.hpp"
#include "reference/inputs.hpp"
#include "tools/cli_checks.hpp"
#include "tools/cli_modes.hpp"
#include "tools/profile_option.hpp"
#include "adapters/code_object_mode.hpp"
#include "adapters/kernel_adapter.hpp"
#include "tools/audit.hpp"
#include "tools/golden_command.hpp"
#include "tools/hazard_option.hpp"
#include "tools/lds_races_cli.hpp"
#include "tools/memory_model_cli.hpp"
#include "tools/mutants.hpp"
#include "tools/sim_command.hpp"
#include "tools/lint_command.hpp"
#include "tools/compare_command.hpp"
#include "tools/decode_command.hpp"
#include "tools/executor_choice.hpp"

namespace {

using namespace cdna;


using tools::ChosenExecutor;
using tools::choose_executor;

// Simulator settings of `audit` and `run`: the schedule, the transcendental envelope and the
// hazard policy.
struct SimSettings {
  std::string schedule = "round-robin";
  std::optional<std::uint64_t> schedule_seed;
  std::optional<std::uint64_t> envelope_seed;
  std::string hazards;  // "": error for our kernel, differential for a peer (default_hazards)
  std::string lds_races = "error";
  std::string memory_model = "coherent";
  bool any() const {
    return schedule != "round-robin" || schedule_seed || envelope_seed || !hazards.empty() || lds_races != "error" ||
           memory_model != "coherent";
  }
};

void add_sim_options(CLI::App* cmd, SimSettings& s) {
  cmd->add_option("--schedule", s.schedule,
                  "Simulator wave schedule: round-robin, or random (seeded interleaving; simulator/README.md)")
      ->check(CLI::IsMember({"round-robin", "random"}))
      ->capture_default_str();
  cmd->add_option("--schedule-seed", s.schedule_seed, "Seed of --schedule random (default 0)")
      ->check(tools::unsigned_integer());
  cmd->add_option("--envelope-seed", s.envelope_seed,
                  "Simulator transcendental envelope mode: each v_exp/log/rcp/rsq/sqrt/sin/cos_f32 result is the "
                  "round-down or round-up of the exact value (within the documented 1 ULP), chosen by this seed "
                  "(default: correctly rounded)")
      ->check(tools::unsigned_integer());
  tools::add_hazards_option(cmd, s.hazards);
  tools::add_lds_races_option(cmd, s.lds_races);
  tools::add_memory_model_option(cmd, s.memory_model);
}

// Applies `s` to the chosen executor; returns the settings for the report. Throws when they are
// given but the executor is not the simulator.
// The hazard policy when --hazards is not given: error for our kernel (its wait states are ours
// to get right), differential for a peer kernel (AITER reads MFMA results early, on purpose or by
// timing: the audit reports whether its output depends on it; docs/peer-kernels.md).
std::string default_hazards(const std::string& kernel) { return kernel == "attention-fwd" ? "error" : "differential"; }

std::vector<std::pair<std::string, std::string>> apply_sim_settings(const ChosenExecutor& c, const SimSettings& given,
                                                                     const std::string& kernel) {
  SimSettings s = given;
  if (s.hazards.empty()) s.hazards = default_hazards(kernel);
  if (!c.sim) {
    if (s.any())
      throw CLI::ValidationError("--schedule/--schedule-seed/--envelope-seed/--hazards/--lds-races/--memory-model",
                                 "apply to the simulator only");
    return {};
  }
  if (s.schedule_seed && s.schedule != "random") {
    throw CLI::ValidationError("--schedule-seed", "needs --schedule random");
  }
  auto& o = c.sim->options();
  o.schedule = s.schedule == "random" ? simulator::Schedule::Random : simulator::Schedule::RoundRobin;
  o.seed = s.schedule_seed.value_or(0);
  o.transcendental_envelope = s.envelope_seed;
  simulator::parse_lds_races(s.lds_races, o.lds_races);  // CLI11 checked the spelling
  simulator::parse_memory_model(s.memory_model, o.memory_model);
  std::vector<std::pair<std::string, std::string>> out{{"schedule", s.schedule}};
  if (s.schedule == "random") out.emplace_back("schedule_seed", std::to_string(o.seed));
  out.emplace_back("transcendental_envelope_seed", s.envelope_seed ? std::to_string(*s.envelope_seed) : "none");
  tools::apply_hazards_option(*c.sim, s.hazards);
  out.emplace_back("hazards", s.hazards);
  out.emplace_back("lds_races", s.lds_races);
  out.emplace_back("memory_model", s.memory_model);
  return out;
}

int run_audit_command(const std::string& out_dir, const std::string& kernel, const std::vector<std::string>& mode_names,
                      const std::string& cases, const std::string& set, const std::string& executor_name,
                      const std::vector<std::string>& code_object_overrides, bool quiet, bool mutants,
                      const SimSettings& sim_settings, const std::string& profile) {
  tools::AuditOptions options;
  options.kernel = kernel;
  options.profile = profile;
  options.modes = tools::parse_modes(mode_names);
  options.case_filter = cases;
  // "default": the matrix and the handed cases, and for a peer kernel the shapes around its tiles
  // (ours has its own tiles of 16-64 rows, covered by the matrix; `--set all` adds them for any).
  const bool peer = kernel != "attention-fwd";
  if (set == "decode" && kernel != "attention-fwd")
    throw CLI::ValidationError("--set", "decode audits our decode monokernel; --kernel " + kernel +
                                            " names an attention kernel (drop --kernel, or choose another --set)");
  // Decode cases (tools/decode_audit.hpp) audit our monokernel: with our attention kernel's
  // default and full sets, or alone.
  const bool run_decode_cases = kernel == "attention-fwd" && (set == "default" || set == "all" || set == "decode");
  options.matrix = set == "all" || set == "default" || set == "matrix";
  options.handed = set == "all" || set == "default" || set == "handed";
  options.tiles = set == "all" || set == "tiles" || (set == "default" && peer);
  options.progress = quiet ? nullptr : &std::cerr;
  for (const auto& item : code_object_overrides) {
    const auto eq = item.find('=');
    auto mode = eq == std::string::npos ? std::nullopt : numerics::parse_rounding(item.substr(0, eq));
    if (!mode && eq == std::string::npos) {
      if (!options.code_object_source.empty())
        throw CLI::ValidationError("--code-object", "give one DIR|FILE for every mode, or MODE=PATH per mode");
      options.code_object_source = item;  // a directory of the kernel's code objects, or one file
      continue;
    }
    if (!mode) {
      throw CLI::ValidationError("--code-object", "'" + item + "' is not DIR|FILE or MODE=PATH with MODE rtne, rtna or rtz");
    }
    if (std::find(options.modes.begin(), options.modes.end(), *mode) == options.modes.end()) {
      // Silently auditing the built code object instead would report a pass for a file never run.
      throw CLI::ValidationError("--code-object", "'" + item + "' names mode " + std::string(numerics::to_string(*mode)) +
                                                      ", which --modes does not audit; add it to --modes");
    }
    options.code_objects[*mode] = item.substr(eq + 1);
  }

  ChosenExecutor chosen = choose_executor(executor_name);
  auto settings = apply_sim_settings(chosen, sim_settings, kernel);
  std::function<std::uint64_t()> wave_instructions;
  if (auto* sim = chosen.sim) wave_instructions = [sim] { return sim->last_stats().wave_instructions; };

  // Hazard sites per case (the executor's, cleared after each case) and over the whole audit.
  std::vector<simulator::HazardViolation> audit_hazards;
  std::function<tools::CaseHazards()> case_hazards;
  if (auto* sim = chosen.sim) {
    sim->options().differential_throws = false;  // the audit fails such a case itself, with its figures
    sim->clear_all_hazards();
    case_hazards = [sim, &audit_hazards] {
      const auto& v = sim->all_hazards();
      simulator::merge_hazard_sites(audit_hazards, v);
      tools::CaseHazards h{v.empty() ? "" : tools::hazard_summary(v), tools::hazard_failure(v)};
      sim->clear_all_hazards();
      return h;
    };
  }
  tools::AuditResult result = tools::run_audit(options, *chosen.executor, wave_instructions, case_hazards);
  result.executor_settings = std::move(settings);
  if (!run_decode_cases) {
    result.decode_not_run = kernel != "attention-fwd" ? "--kernel " + kernel + " is an attention kernel"
                                                      : "--set " + set + " has no decode cases";
  } else if (const std::vector<tools::DecodeCase> all = tools::decode_cases();
             std::none_of(all.begin(), all.end(), [&](const tools::DecodeCase& c) {
               return std::regex_search(c.id, std::regex(cases.empty() ? std::string(".*") : cases));
             })) {
    result.decode_not_run = "no decode case matched --cases '" + cases + "'";
  } else {
    if (!quiet) std::cerr << "decode: the monokernel on the decode cases (D01-D05; D06 with --set all; docs/decode-semantics.md)\n";
    tools::DecodeAuditOptions d;
    d.modes = options.modes;
    d.case_filter = cases;
    d.include_slow = set == "all";
    d.mutants = mutants;
    d.progress = quiet ? nullptr : &std::cerr;
    std::function<void(bool)> memory_model;
    if (auto* sim = chosen.sim) {
      const simulator::MemoryModel given = sim->options().memory_model;
      memory_model = [sim, given](bool on) {
        sim->options().memory_model = on ? simulator::MemoryModel::Cdna3 : given;
      };
    }
    result.decode = tools::run_decode_audit(d, *chosen.executor, wave_instructions, memory_model);
    std::cout << "\n" << tools::decode_table(*result.decode);
  }
  if (chosen.sim && chosen.sim->options().hazard_policy != simulator::HazardPolicy::Error)
    result.executor_settings.emplace_back("hazard_violations", tools::hazard_summary(audit_hazards));
  if (chosen.sim && chosen.sim->options().lds_races == simulator::LdsRaces::Report)
    result.executor_settings.emplace_back("lds_races_reported",
                                          std::to_string(tools::print_lds_races(std::cerr, chosen.sim->all_lds_races())));
  for (const auto& c : result.code_objects)
    if (!c.mode_recorded) std::cerr << "cdna-verify: note: " << adapters::unchecked_mode_notice(c.path, c.mode) << "\n";
  if (set != "decode") std::cout << tools::summary_table(result);
  else std::cout << tools::outcome_line(result) << "\n";
  if (chosen.sim) std::cout << tools::hazard_lines(audit_hazards);
  const tools::AuditOutcome outcome = result.outcome();
  // Mutation testing judges our verifier, not the audited kernel; an audit that judged nothing
  // is an input error, so it ends without that extra work.
  if (outcome == tools::AuditOutcome::NothingJudged) result.mutation_not_run = "the audit judged nothing";
  if (set == "decode") result.mutation_not_run = "--set decode (the decode kill matrix is in the decode section)";
  if (mutants && outcome != tools::AuditOutcome::NothingJudged && set != "decode") {
    // Mutation testing of the verifier itself (docs/mutation-testing.md): its kill matrix goes
    // into the reports. It judges our verdict, not the audited kernel, so it does not change the
    // exit code; a surviving mutant or a false positive is reported on stderr.
    if (!quiet) std::cerr << "mutation testing: kernel mutants on the fixed cases\n";
    tools::MutantsOptions mo;
    mo.progress = quiet ? nullptr : &std::cerr;
    if (chosen.sim) {
      // The mutants are ours: the simulator's checks stop them as they do our kernel (a peer's
      // differential or report policy would let the missing-wait-state mutants through).
      chosen.sim->options().hazard_policy = simulator::HazardPolicy::Error;
      chosen.sim->options().differential_throws = true;
      chosen.sim->options().lds_races = simulator::LdsRaces::Error;
    }
    result.mutation = tools::run_mutants(mo, *chosen.executor);
    std::cout << "\nMutation testing (kill matrix):\n" << tools::kill_matrix(*result.mutation);
    if (!result.mutation->ok())
      std::cerr << "cdna-verify: warning: mutation testing: a mutant survived our verdict or the correct kernel "
                   "failed a check of ours (see the kill matrix)\n";
  }
  tools::write_reports(result, out_dir);
  std::cout << "reports: " << (std::filesystem::path(out_dir) / "report.json").string() << ", "
            << (std::filesystem::path(out_dir) / "report.md").string() << ", "
            << (std::filesystem::path(out_dir) / "report.html").string() << "\n";
  if (outcome == tools::AuditOutcome::NothingJudged) {
    std::cerr << "cdna-verify: error: " << result.nothing_judged_reason()
              << (result.rows.empty() && !result.decode ? " --cases '" + cases + "' (with --set " + set + ")" : "")
              << "; the outcome is NOTHING JUDGED, not a pass\n";
    return 2;
  }
  return outcome == tools::AuditOutcome::Pass ? 0 : 1;
}

struct RunArgs {
  std::vector<std::int64_t> shape;  // B, Sq, Sk, Hq, Hkv, D
  std::string mask = "none";
  std::string mode = "rtne";
  std::optional<float> scale;
  std::uint64_t seed = 1;
  std::string code_object;
  std::string kernel = "attention-fwd";
  std::string executor = "auto";
  SimSettings sim;
};

// `cdna-verify run`: one problem with seeded randn inputs, kernel vs exact oracle. Every input
// error, a shape whose output is empty included, throws before anything runs.
int run_one_command(const RunArgs& a) {
  if (a.shape.size() != 6) {
    throw CLI::ValidationError("--shape", "expected 6 comma-separated integers B,Sq,Sk,Hq,Hkv,D");
  }
  const auto mode = numerics::parse_rounding(a.mode);
  if (!mode) throw CLI::ValidationError("--mode", "unknown rounding mode '" + a.mode + "'; expected rtne, rtna or rtz");
  for (std::int64_t x : a.shape)
    if (x < 0) throw CLI::ValidationError("--shape", "extents must be >= 0");
  // O is [B, Sq, Hq, D] and LSE [B, Hq, Sq]: with B, Sq or Hq = 0 there is nothing to judge.
  // Sk = 0 is judged: every row has no visible key and must be O = +0.0, LSE = -inf.
  const std::pair<const char*, std::int64_t> extents[] = {{"B", a.shape[0]}, {"Sq", a.shape[1]}, {"Hq", a.shape[3]}};
  for (const auto& [name, extent] : extents) {
    if (extent == 0) {
      throw std::invalid_argument(std::string("nothing judged: ") + name +
                                  " = 0 gives an empty output (no O element, no LSE value); B, Sq and Hq must be "
                                  ">= 1 (Sk = 0 is judged: rows without keys)");
    }
  }
  reference::AttentionProblem p;
  p.shape = {a.shape[0], a.shape[1], a.shape[2], a.shape[3], a.shape[4], a.shape[5]};
  p.mask = a.mask == "none"                                          ? reference::Mask::None
           : a.mask == "causal" || a.mask == "causal_bottom_right" ? reference::Mask::CausalBottomRight
                                                                   : reference::Mask::CausalTopLeft;
  if (p.shape.head_dim < 1 || p.shape.heads_kv < 1) {
    throw CLI::ValidationError("--shape", "Hkv and D must be >= 1");
  }
  p.scale = a.scale.value_or(static_cast<float>(1.0 / std::sqrt(static_cast<double>(p.shape.head_dim))));
  reference::fill_randn(p, a.seed);
  reference::validate(p);
  const std::unique_ptr<adapters::KernelAdapter> adapter = adapters::make_adapter(a.kernel);
  if (auto why = adapter->unsupported_reason(p, *mode)) throw std::invalid_argument(*why);
  std::string paths;
  for (const auto& c : adapter->load(*mode, a.code_object)) {
    paths += (paths.empty() ? "" : ", ") + c.path;
    if (!c.mode_recorded)
      std::cerr << "cdna-verify: note: " << adapters::unchecked_mode_notice(c.path, numerics::to_string(*mode)) << "\n";
  }
  ChosenExecutor chosen = choose_executor(a.executor);
  std::string settings_text;
  for (const auto& [k, v] : apply_sim_settings(chosen, a.sim, a.kernel)) settings_text += " " + k + "=" + v;
  // A run stopped by the hazard policy still lists the sites it judged (stdout; the error
  // itself stays one stderr line).
  const bool list_hazards = chosen.sim && chosen.sim->options().hazard_policy != simulator::HazardPolicy::Error;
  if (chosen.sim) chosen.sim->options().differential_throws = false;  // judged below, with the figures
  auto hazards_text = [&] {
    return "hazard violations: " + tools::hazard_summary(chosen.sim->all_hazards()) + "\n" +
           tools::hazard_lines(chosen.sim->all_hazards());
  };
  device::AttentionOutput out;
  try {
    out = adapter->run(*chosen.executor, p, *mode);
  } catch (...) {
    if (list_hazards) std::cout << hazards_text() << std::flush;
    throw;
  }
  if (chosen.sim) tools::print_lds_races(std::cerr, chosen.sim->all_lds_races());
  const reference::AttentionResult exact = reference::attention_forward_exact(p);
  const bool lse_given = adapter->features().writes_lse;
  const reference::AttentionComparison c = reference::compare_attention(p, exact, out.o, out.lse, *mode, lse_given);
  std::cout << "kernel " << adapter->name() << ", executor " << chosen.executor->name() << settings_text
            << ", code object " << paths << ", " << numerics::to_string(*mode) << (lse_given ? "" : " (the kernel writes no LSE)") << "\n"
            << "max |err| O " << c.max_abs_err_o << " (" << c.max_ulp_err_o << " bf16 ULP, "
            << c.max_err_to_bound_o << " of bound), max |err| LSE " << c.max_abs_err_lse << " ("
            << c.max_err_to_bound_lse << " of bound)\n"
            << (c.pass() ? "pass: " : "FAIL: " + c.first_failure + "; ") << c.o_judged << " O elements and "
            << c.lse_judged << " LSE values judged (" << c.o_exact_facts << " as exact facts)\n";
  if (list_hazards) std::cout << hazards_text();
  const std::string hazard = chosen.sim ? tools::hazard_failure(chosen.sim->all_hazards()) : "";
  if (!hazard.empty()) std::cout << "FAIL: " << hazard << (c.pass() ? " (as written, the output passes)" : "") << "\n";
  return c.pass() && hazard.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"cdna-verify: verification of MI300X (gfx942) attention kernels against exact oracles"};
  app.set_version_flag("--version", std::string(CDNA_VERSION));
  app.require_subcommand(1);
  // One line per error, the same prefix as every other error of the program.
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return "cdna-verify: error: " + std::string(e.what()) + " (see --help)\n";
  });

  auto* audit = app.add_subcommand(
      "audit",
      "Run the default matrix and the handed cases C01-C14 (and, for a peer --kernel, the shapes around its tiles) "
      "on the available executor (a gfx942 device through the HIP runtime, else the CDNA3 simulator) with any kernel "
      "adapter (--kernel: ours, aiter-fmha-v3, moonmath), compare O and LSE with the exact MPFR oracle "
      "(docs/pass-rule.md), print a table and the kill matrix of the mutation testing (docs/mutation-testing.md), write report.json, report.md and report.html. Exit 0 "
      "(outcome PASS) if at least one kernel output was judged and no case failed, 1 (FAIL) if a case failed, 2 on "
      "bad input or when nothing was judged (NOTHING JUDGED: no case matched, or every matched case was rejected).");
  std::string out_dir = "report";
  std::vector<std::string> modes{"rtne", "rtna", "rtz"};
  std::string cases, set = "default", executor = "auto";
  std::vector<std::string> code_objects;
  bool quiet = false;
  bool no_mutants = false;
  audit->add_option("--out", out_dir, "Directory for report.json, report.md and report.html")->capture_default_str();
  audit->add_option("--modes", modes, "bf16 rounding modes to audit: rtne, rtna, rtz")
      ->delimiter(',')
      ->capture_default_str();
  audit->add_option("--cases", cases, "Only cases whose id matches this regular expression (e.g. 'C0[1-4]')");
  audit->add_option("--set", set,
                    "Which cases: default (matrix + handed, + tiles for a peer kernel), all (matrix + handed + tiles), "
                    "matrix (model layouts), handed (C01-C14 and the crafted R cases), tiles (Sq, Sk in {1, 255, 256, "
                    "257, 384, 385, 1000} around the peer kernels' 256- and 384-row query tiles, and GQA at three), decode (only the "
                    "decode monokernel's cases D01-D05, and its kill matrix; default adds them for our kernel, all adds "
                    "D06, one layer at Llama-3.2-1B's shapes; docs/decode-semantics.md)")
      ->check(CLI::IsMember({"default", "all", "matrix", "handed", "tiles", "decode"}))
      ->capture_default_str();
  audit->add_option("--executor", executor, "auto (HIP device if present, else simulator), simulator, hip")
      ->check(CLI::IsMember({"auto", "simulator", "hip"}))
      ->capture_default_str();
  std::string audit_kernel = "attention-fwd";
  const std::string kernel_help = "Kernel to audit, through its adapter (docs/peer-kernels.md): attention-fwd (ours, "
                                  "the build's code objects), aiter-fmha-v3 (AMD AITER FMHA v3 code objects, default "
                                  "../shared/peers/aiter-fmha-v3-gfx942), moonmath (MoonMath's kernels built from "
                                  "../shared/peers/moonmath-attention)";
  audit->add_option("--kernel", audit_kernel, kernel_help)->capture_default_str();
  audit->add_option("--code-object", code_objects,
                    "DIR|FILE: the kernel's code objects for every mode (a directory holding them under their usual "
                    "names, or one file), or MODE=PATH for one mode (repeatable). A code object that records another "
                    "mode (our symbol cdna_bf16_rounding, AITER's kernel name) is refused; one that records none is "
                    "audited as MODE, and the report says MODE was not checked");
  audit->add_flag("--quiet", quiet, "No progress lines");
  audit->add_flag("--no-mutants", no_mutants,
                  "Skip the mutation testing of the verifier (kill matrix in the reports; about 10 s on the simulator)");
  SimSettings audit_sim;
  add_sim_options(audit, audit_sim);
  std::string audit_profile = "ours";
  tools::add_profile_option(audit, audit_profile);

  RunArgs run_args;
  auto* run = app.add_subcommand(
      "run",
      "Run one attention problem with seeded randn inputs on the available executor and compare it with "
      "the exact oracle; prints how many O elements and LSE values were judged. Exit 0 on pass, 1 on fail, 2 on "
      "bad input (e.g. a shape the kernel does not support, a non-finite scale, a code object built for another "
      "--mode) or when nothing would be judged (B, Sq or Hq = 0).");
  run->add_option("--shape", run_args.shape, "B,Sq,Sk,Hq,Hkv,D")->delimiter(',')->required();
  run->add_option("--mask", run_args.mask,
                  "none, causal (bottom-right), causal-top-left; golden files' names causal_bottom_right and "
                  "causal_top_left are taken too")
      ->check(CLI::IsMember({"none", "causal", "causal-top-left", "causal_bottom_right", "causal_top_left"}))
      ->capture_default_str();
  run->add_option("--mode", run_args.mode, "bf16 rounding mode of the kernel: rtne, rtna, rtz")->capture_default_str();
  run->add_option("--scale", run_args.scale, "Score scale, a finite fp32 value (default 1/sqrt(D))")
      ->check(tools::finite_fp32());
  run->add_option("--seed", run_args.seed, "Seed of the randn inputs (Q: seed, K: seed+1, V: seed+2)")
      ->check(tools::unsigned_integer())
      ->capture_default_str();
  run->add_option("--kernel", run_args.kernel, kernel_help)->capture_default_str();
  run->add_option("--code-object", run_args.code_object,
                  "Code object file or directory to run (default: the kernel's own for --mode); refused if it records "
                  "a mode other than --mode, run as --mode with a note if it records none");
  run->add_option("--executor", run_args.executor, "auto, simulator, hip")
      ->check(CLI::IsMember({"auto", "simulator", "hip"}))
      ->capture_default_str();
  add_sim_options(run, run_args.sim);

  tools::SimCommand sim(app);  // `sim CODE_OBJECT KERNEL --args ...` (tools/sim_command.hpp)

  tools::GoldenCommand golden(app);  // `golden gen|verify|check`

  tools::MutantsCommand mutants(app);  // `mutants` (docs/mutation-testing.md)

  tools::LintCommand lint(app);  // `lint CODE_OBJECT [KERNEL]` (tools/lint_command.hpp)

  tools::CompareCommand compare(app);  // `compare A B` (tools/compare_command.hpp, docs/compare.md)

  tools::DecodeCommand decode(app);  // `decode` (tools/decode_command.hpp, docs/decode-semantics.md)
  SimSettings decode_sim;
  add_sim_options(decode.cmd(), decode_sim);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);  // prints help, version or the one-line parse error
    return rc == 0 ? 0 : 2;
  }
  try {
    if (audit->parsed()) {
      return run_audit_command(out_dir, audit_kernel, modes, cases, set, executor, code_objects, quiet, !no_mutants, audit_sim,
                               audit_profile);
    }
    if (run->parsed()) return run_one_command(run_args);
    if (golden.parsed()) return golden.run();
    if (sim.parsed()) return sim.run();
    if (mutants.parsed()) return mutants.run();
    if (lint.parsed()) return lint.run();
    if (compare.parsed()) return compare.run();
    if (decode.parsed()) {
      decode.prepare();  // every input checked before an executor is chosen
      ChosenExecutor chosen = choose_executor(decode.executor_name());
      return decode.run(chosen, apply_sim_settings(chosen, decode_sim, "attention-fwd"));
    }
  } catch (const CLI::Error& e) {
    std::cerr << "cdna-verify: error: " << e.what() << "\n";
    return 2;
  } catch (const std::regex_error& e) {
    std::cerr << "cdna-verify: error: --cases is not a valid regular expression: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "cdna-verify: error: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
