#include "tools/run_command.hpp"

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <memory>

#include "adapters/code_object_mode.hpp"
#include "adapters/kernel_adapter.hpp"
#include "reference/attention/compare.hpp"
#include "reference/attention/inputs.hpp"
#include "simulator/schedule/simulator_executor.hpp"
#include "tools/audit_command.hpp"
#include "tools/cli_checks.hpp"
#include "audit/output/device_report.hpp"
#include "audit/run/hazard_verdict.hpp"
#include "tools/hazard_option.hpp"
#include "tools/lds_races_cli.hpp"
#include "audit/output/progress.hpp"
#include "audit/run/run_estimate.hpp"
#include "audit/output/summary_line.hpp"
#include "audit/output/exit_codes.hpp"

namespace cdna::tools {

using namespace cdna::audit;  // the engine (audit/README.md)

RunCommand::RunCommand(CLI::App& app) {
  cmd_ = app.add_subcommand(
      "run",
      "Run one attention problem with seeded randn inputs on the available executor and compare it with "
      "the exact oracle; prints how many O elements and LSE values were judged. Before anything is allocated it "
      "prints the memory and work the problem needs and refuses past --max-memory or --max-work. Exit 0 on pass, 1 on "
      "fail (a wrong output, or a simulator error the kernel caused: hazard, access outside its buffers, hung wave, "
      "LDS race, an instruction the simulator does not implement), 2 on bad input (e.g. a shape the kernel does not "
      "support, a non-finite scale, a code object built for another --mode, a problem past a limit) or when nothing "
      "would be judged (B, Sq or Hq = 0), 3 when --executor hip finds no device.");
  cmd_->add_option("--shape", shape_, "B,Sq,Sk,Hq,Hkv,D")->delimiter(',')->required();
  cmd_->add_option("--mask", mask_,
                  "none, causal (bottom-right), causal-top-left; golden files' names causal_bottom_right and "
                  "causal_top_left are taken too")
      ->check(CLI::IsMember({"none", "causal", "causal-top-left", "causal_bottom_right", "causal_top_left"}))
      ->capture_default_str();
  cmd_->add_option("--mode", mode_, "bf16 rounding mode of the kernel: rtne, rtna, rtz")->capture_default_str();
  cmd_->add_option("--scale", scale_, "Score scale, a finite fp32 value (default 1/sqrt(D))")
      ->check(finite_fp32());
  cmd_->add_option("--seed", seed_, "Seed of the randn inputs (Q: seed, K: seed+1, V: seed+2)")
      ->check(unsigned_integer())
      ->capture_default_str();
  cmd_->add_option("--kernel", kernel_, kKernelOptionHelp)->capture_default_str();
  cmd_->add_option("--code-object", code_object_,
                  "Code object file or directory to run (default: the kernel's own for --mode); refused if it records "
                  "a mode other than --mode, run as --mode with a note if it records none");
  cmd_->add_option("--executor", executor_, "auto, simulator, hip")
      ->check(CLI::IsMember({"auto", "simulator", "hip"}))
      ->capture_default_str();
  add_sim_options(cmd_, sim_);
  cmd_->add_option("--max-memory", max_memory_,
                   "Refuse a problem whose inputs, kernel buffers and exact-oracle results need more host memory than "
                   "this: BYTES or with a unit (512MiB, 8GiB, 1.5TiB; default half of MemAvailable)")
      ->check(CLI::Validator(
          [](std::string& t) -> std::string {
            return parse_bytes(t) ? "" : "'" + t + "' is not a size; expected BYTES or a number with KiB, MiB, GiB or TiB";
          },
          "SIZE"));
  cmd_->add_option("--max-work", max_work_,
                   "Refuse a problem of more multiply-adds than this (B*Hq*Sq*Sk*(D+Dv), the work of the exact oracle "
                   "and of the kernel; docs/ci.md gives the rates measured)")
      ->check(CLI::Validator(
          [](std::string& t) -> std::string {
            char* end = nullptr;
            const double x = std::strtod(t.c_str(), &end);
            return !t.empty() && *end == '\0' && std::isfinite(x) && x > 0
                       ? ""
                       : "'" + t + "' is not a positive number of multiply-adds (e.g. 1e12)";
          },
          "WORK"))
      ->capture_default_str();
  cmd_->add_flag("--quiet", quiet_, "No progress lines and notes on stderr (errors still)");
}


// `cdna-verify run`: one problem with seeded randn inputs, kernel vs exact oracle. Every input
// error, a shape whose output is empty included, throws before anything runs.
int RunCommand::run() {
  summary().start("run");
  if (shape_.size() != 6) {
    throw CLI::ValidationError("--shape", "expected 6 comma-separated integers B,Sq,Sk,Hq,Hkv,D");
  }
  const auto mode = numerics::parse_rounding(mode_);
  if (!mode) throw CLI::ValidationError("--mode", "unknown rounding mode '" + mode_ + "'; expected rtne, rtna or rtz");
  for (std::int64_t x : shape_)
    if (x < 0) throw CLI::ValidationError("--shape", "extents must be >= 0");
  // O is [B, Sq, Hq, D] and LSE [B, Hq, Sq]: with B, Sq or Hq = 0 there is nothing to judge.
  // Sk = 0 is judged: every row has no visible key and must be O = +0.0, LSE = -inf.
  const std::pair<const char*, std::int64_t> extents[] = {{"B", shape_[0]}, {"Sq", shape_[1]}, {"Hq", shape_[3]}};
  for (const auto& [name, extent] : extents) {
    if (extent == 0) {
      throw std::invalid_argument(std::string("nothing judged: ") + name +
                                  " = 0 gives an empty output (no O element, no LSE value); B, Sq and Hq must be "
                                  ">= 1 (Sk = 0 is judged: rows without keys)");
    }
  }
  reference::AttentionProblem p;
  p.shape = {shape_[0], shape_[1], shape_[2], shape_[3], shape_[4], shape_[5]};
  p.mask = mask_ == "none"                                          ? reference::Mask::None
           : mask_ == "causal" || mask_ == "causal_bottom_right" ? reference::Mask::CausalBottomRight
                                                                   : reference::Mask::CausalTopLeft;
  if (p.shape.head_dim < 1 || p.shape.heads_kv < 1) {
    throw CLI::ValidationError("--shape", "Hkv and D must be >= 1");
  }
  p.scale = scale_.value_or(static_cast<float>(1.0 / std::sqrt(static_cast<double>(p.shape.head_dim))));
  // The cost first, from the shape alone: nothing is allocated yet (issue 13 §4).
  const bool on_simulator = executor_ == "simulator";  // "auto" may find a device; the estimate then errs high
  const RunEstimate estimate = estimate_run(p.shape, executor_ != "hip");
  double max_memory = 0;
  if (!max_memory_.empty()) max_memory = *parse_bytes(max_memory_);
  else if (auto half = default_max_memory()) max_memory = *half;
  else throw std::invalid_argument("--max-memory: /proc/meminfo gives no MemAvailable; give --max-memory BYTES");
  check_run_limits(estimate, max_memory, max_work_);
  std::cout << "estimate: " << estimate.text() << (on_simulator || executor_ == "hip" ? "" : " (if on the simulator)")
            << "; limits --max-memory " << bytes_text(max_memory) << ", --max-work " << max_work_ << "\n"
            << std::flush;
  // The kernel and its code object next, before gigabytes of inputs are drawn.
  const std::unique_ptr<adapters::KernelAdapter> adapter = adapters::make_adapter(kernel_);
  if (auto why = adapter->unsupported_reason(p, *mode)) throw std::invalid_argument(*why);
  std::string paths;
  for (const auto& c : adapter->load(*mode, code_object_)) {
    paths += (paths.empty() ? "" : ", ") + c.path;
    if (!c.mode_recorded && !quiet_)
      std::cerr << "cdna-verify: note: " << adapters::unchecked_mode_notice(c.path, numerics::to_string(*mode)) << "\n";
  }
  ChosenExecutor chosen = choose_executor(executor_);  // exit 3 before any input is drawn
  reference::fill_randn(p, seed_);
  reference::validate(p);
  summary().set("kernel", kernel_);
  summary().set("executor", chosen.executor->name());
  // A long dispatch says how far it is on stderr, at most one line every 5 s.
  Progress line(quiet_ ? nullptr : &std::cerr, "run: simulator", "workgroup", 0, 5.0);
  if (chosen.sim) {
    chosen.sim->options().workgroup_done = [&line](std::uint64_t done, std::uint64_t total) {
      line.set_total(total);
      line.step(done);
    };
  }
  if (chosen.sim) chosen.sim->set_code_object_label(paths);  // a kernel fault names the file
  std::string settings_text;
  for (const auto& [k, v] : apply_sim_settings(chosen, sim_, kernel_)) settings_text += " " + k + "=" + v;
  // A run stopped by the hazard policy still lists the sites it judged (stdout; the error
  // itself stays one stderr line).
  const bool list_hazards = chosen.sim && chosen.sim->options().hazard_policy != simulator::HazardPolicy::Error;
  if (chosen.sim) chosen.sim->options().differential_throws = false;  // judged below, with the figures
  auto hazards_text = [&] {
    return "hazard violations: " + hazard_summary(chosen.sim->all_hazards()) + "\n" +
           hazard_lines(chosen.sim->all_hazards());
  };
  device::AttentionOutput out;
  try {
    out = adapter->run(*chosen.executor, p, *mode);
  } catch (...) {
    if (list_hazards) std::cout << hazards_text() << std::flush;
    throw;
  }
  if (chosen.sim) print_lds_races(std::cerr, chosen.sim->all_lds_races());
  const reference::AttentionResult exact = reference::attention_forward_exact(p);
  const bool lse_given = adapter->features().writes_lse;
  const reference::AttentionComparison c = reference::compare_attention(p, exact, out.o, out.lse, *mode, lse_given);
  std::cout << "executor: " << description_line(chosen.executor->describe()) << "\n"
            << "kernel " << adapter->name() << ", executor " << chosen.executor->name() << settings_text
            << ", code object " << paths << ", " << numerics::to_string(*mode) << (lse_given ? "" : " (the kernel writes no LSE)") << "\n"
            << "max |err| O " << c.max_abs_err_o << " (" << c.max_ulp_err_o << " bf16 ULP, "
            << c.max_err_to_bound_o << " of bound), max |err| LSE " << c.max_abs_err_lse << " ("
            << c.max_err_to_bound_lse << " of bound)\n"
            << (c.pass() ? "pass: " : c.nothing_judged() ? "NOTHING JUDGED: " + c.first_failure + "; " : "FAIL: " + c.first_failure + "; ")
            << c.o_judged << " O elements and "
            << c.lse_judged << " LSE values judged (" << c.o_exact_facts << " as exact facts)\n";
  if (list_hazards) std::cout << hazards_text();
  const std::string hazard = chosen.sim ? hazard_failure(chosen.sim->all_hazards()) : "";
  if (!hazard.empty()) std::cout << "FAIL: " << hazard << (c.pass() ? " (as written, the output passes)" : "") << "\n";
  summary().set("o_judged", static_cast<std::uint64_t>(c.o_judged));
  summary().set("lse_judged", static_cast<std::uint64_t>(c.lse_judged));
  if (hazard.empty() && c.nothing_judged()) {
    summary().set_nothing_judged();
    return kExitBadInput;  // NOTHING JUDGED (README "Exit codes")
  }
  return c.pass() && hazard.empty() ? kExitPass : kExitFail;
}

}  // namespace cdna::tools
