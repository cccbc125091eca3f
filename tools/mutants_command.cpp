#include "tools/mutants_command.hpp"

#include <filesystem>
#include <iostream>
#include <memory>
#include <regex>

#include "audit/mutants/mutants.hpp"
#include "audit/output/output_paths.hpp"
#include "audit/output/summary_line.hpp"
#include "audit/run/executor_choice.hpp"

namespace cdna::tools {

using namespace cdna::audit;  // the engine (audit/README.md)

MutantsCommand::MutantsCommand(CLI::App& app) {
  sub_ = app.add_subcommand(
      "mutants",
      "Mutation testing of the verifier (docs/mutation-testing.md): run the correct kernel (in each rounding "
      "mode), every built kernel mutant (one deliberate mistake each, RTNE) and every mode swap (the correct "
      "kernel of one mode judged as another, e.g. RTNA_DECLARED_RTNE) on a fixed set of inputs, judge each output "
      "by the parts of our verdict and by the peer suites' pass rules, print the kill matrix, write mutants.json "
      "and mutants.md. Exit 0 if every mutant is killed by our verdict and the correct kernel passes it in every "
      "mode, 1 otherwise, 2 on bad input.");
  auto* out_option = sub_->add_option("--out", out_dir_, "Directory for mutants.json and mutants.md")->capture_default_str();
  auto* mutants_option =
      sub_->add_option("--mutants", filter_, "Only mutants whose name matches this regular expression (e.g. 'RESCALE')");
  auto* executor_option = sub_->add_option("--executor", executor_, "auto (HIP device if present, else simulator), simulator, hip")
      ->check(CLI::IsMember({"auto", "simulator", "hip"}))
      ->capture_default_str();
  auto* code_option = sub_->add_option("--code-object-dir", code_object_dir_,
                   "Directory of attention_fwd_{rtne,rtna,rtz}.hsaco and attention_fwd_mutant_*.hsaco")
      ->capture_default_str();
  sub_->add_flag("--quiet", quiet_, "No progress lines");
  sub_->add_flag("--features", features_,
                 "Only the feature mutants (audit/mutants/feature_mutants.hpp): a CPU model of the declared arithmetic with "
                 "soft cap, fp8 descale, sinks and windows, correct and with one mistake each (SOFTCAP_AFTER_MASK, "
                 "DESCALE_TWICE, SINK_DROPPED, WINDOW_OFF_BY_ONE_CPU), judged by our verdict and the MoonMath and cuDNN "
                 "rules; prints the matrix (no kernel runs, no report files). Exit 0 if our verdict kills every one and "
                 "passes the correct model, 1 otherwise, 2 if our verdict does not take a case")
      ->excludes(out_option)
      ->excludes(mutants_option)  // kernel options: --features runs no kernel, so they would be ignored
      ->excludes(executor_option)
      ->excludes(code_option);
}

bool MutantsCommand::parsed() const { return sub_->parsed(); }

int MutantsCommand::run() {
  summary().start(features_ ? "mutants --features" : "mutants");
  if (features_) return run_features(std::cout);
  check_output_dir("--out", out_dir_);  // before any kernel runs
  if (!filter_.empty()) {
    std::regex re;
    try {
      re = std::regex(filter_);
    } catch (const std::regex_error& e) {
      throw CLI::ValidationError("--mutants", "'" + filter_ + "' is not a valid regular expression: " + e.what());
    }
    bool any = false;
    for (const MutantInfo& m : attention_mutants()) any = any || std::regex_search(m.name, re);
    if (!any) throw CLI::ValidationError("--mutants", "'" + filter_ + "' matches no mutant");
  }
  // "hip" without a device: ExecutorUnavailable (exit 3).
  const std::unique_ptr<device::Executor> executor = choose_executor(executor_).executor;

  MutantsOptions options;
  options.code_object_dir = code_object_dir_;
  options.filter = filter_;
  options.progress = quiet_ ? nullptr : &std::cerr;
  const MutantsResult result = run_mutants(options, *executor);
  std::uint64_t survived = 0;
  for (const KernelResult& k : result.kernels) survived += !k.control && !k.killed_by_ours();
  summary().set("kernels", result.kernels.size());
  summary().set("survived", survived);
  std::cout << kill_matrix(result);
  write_mutant_reports(result, out_dir_);
  std::cout << "reports: " << (std::filesystem::path(out_dir_) / "mutants.json").string() << ", "
            << (std::filesystem::path(out_dir_) / "mutants.md").string() << "\n";
  return result.ok() ? 0 : 1;
}

}  // namespace cdna::tools
