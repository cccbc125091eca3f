#include "tools/run_command.hpp"

#include <cmath>
#include <iostream>
#include <memory>

#include "adapters/code_object_mode.hpp"
#include "adapters/kernel_adapter.hpp"
#include "reference/compare.hpp"
#include "reference/inputs.hpp"
#include "simulator/simulator_executor.hpp"
#include "tools/audit_command.hpp"
#include "tools/cli_checks.hpp"
#include "tools/device_report.hpp"
#include "tools/hazard_option.hpp"
#include "tools/lds_races_cli.hpp"

namespace cdna::tools {

RunCommand::RunCommand(CLI::App& app) {
  cmd_ = app.add_subcommand(
      "run",
      "Run one attention problem with seeded randn inputs on the available executor and compare it with "
      "the exact oracle; prints how many O elements and LSE values were judged. Exit 0 on pass, 1 on fail, 2 on "
      "bad input (e.g. a shape the kernel does not support, a non-finite scale, a code object built for another "
      "--mode) or when nothing would be judged (B, Sq or Hq = 0).");
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

}


// `cdna-verify run`: one problem with seeded randn inputs, kernel vs exact oracle. Every input
// error, a shape whose output is empty included, throws before anything runs.
int RunCommand::run() {
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
  reference::fill_randn(p, seed_);
  reference::validate(p);
  const std::unique_ptr<adapters::KernelAdapter> adapter = adapters::make_adapter(kernel_);
  if (auto why = adapter->unsupported_reason(p, *mode)) throw std::invalid_argument(*why);
  std::string paths;
  for (const auto& c : adapter->load(*mode, code_object_)) {
    paths += (paths.empty() ? "" : ", ") + c.path;
    if (!c.mode_recorded)
      std::cerr << "cdna-verify: note: " << adapters::unchecked_mode_notice(c.path, numerics::to_string(*mode)) << "\n";
  }
  ChosenExecutor chosen = choose_executor(executor_);
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
            << (c.pass() ? "pass: " : "FAIL: " + c.first_failure + "; ") << c.o_judged << " O elements and "
            << c.lse_judged << " LSE values judged (" << c.o_exact_facts << " as exact facts)\n";
  if (list_hazards) std::cout << hazards_text();
  const std::string hazard = chosen.sim ? hazard_failure(chosen.sim->all_hazards()) : "";
  if (!hazard.empty()) std::cout << "FAIL: " << hazard << (c.pass() ? " (as written, the output passes)" : "") << "\n";
  return c.pass() && hazard.empty() ? 0 : 1;
}

}  // namespace cdna::tools
