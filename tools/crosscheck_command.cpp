#include "tools/crosscheck_command.hpp"

#include <chrono>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <optional>
#include <regex>
#include <set>

#include "adapters/kernel_adapter.hpp"
#include "golden/golden_file.hpp"
#include "audit/output/atomic_file.hpp"
#include "audit/compare/crosscheck.hpp"
#include "audit/run/hazard_verdict.hpp"
#include "audit/run/executor_choice.hpp"
#include "audit/golden/golden_kernel.hpp"
#include "audit/output/summary_line.hpp"

namespace cdna::tools {

using namespace cdna::audit;  // the engine (audit/README.md)

namespace {

namespace fs = std::filesystem;
using Status = CrosscheckRow::Status;

std::string seconds_text(double s) {
  return s < 120 ? std::to_string(static_cast<int>(s + 0.5)) + " s" : std::to_string(static_cast<int>(s / 60 + 0.5)) + " min";
}

// The settings apply_sim_settings reports, as one description entry.
void add_settings(device::Description& d, const std::vector<std::pair<std::string, std::string>>& settings) {
  std::string text;
  for (const auto& [k, v] : settings) text += (text.empty() ? "" : " ") + k + "=" + v;
  if (!text.empty()) d.emplace_back("settings", text);
}

}  // namespace

CrosscheckCommand::CrosscheckCommand(CLI::App& app) {
  cmd_ = app.add_subcommand(
      "crosscheck",
      "Simulator vs hardware (docs/ci.md): run every golden file by each kernel on the CDNA3 simulator and on "
      "--executor, and report per case bitwise equal, or the first differing element (tensor, index, both values as "
      "bits and decimals) and how many differ. Writes crosscheck.json and crosscheck.md to --out, prints a table and "
      "a summary line. Exit 0 all compared cases equal, 1 a case differs or a run failed, 2 bad input or nothing "
      "compared, 3 the executor cannot run here (no gfx942 device for hip).");
  cmd_->add_option("path", path_, "A golden file or a directory of them (default: the committed set golden/set)");
  cmd_->add_option("--out", out_dir_, "Directory for crosscheck.json and crosscheck.md")->capture_default_str();
  cmd_->add_option("--executor", executor_,
                   "The executor compared with the simulator: hip (a gfx942 device), or simulator (with other "
                   "--schedule/--envelope-seed/... settings than the reference's defaults)")
      ->check(CLI::IsMember({"hip", "simulator"}))
      ->capture_default_str();
  cmd_->add_option("--cases", cases_, "Only golden files whose name contains a match of this regular expression (a search, not anchored: '^C0[1-4]\\.' for C01-C04)");
  cmd_->add_option("--kernel", kernels_,
                   "Kernels to run, comma-separated: attention-fwd (ours), aiter-fmha-v3, aiter-pa, moonmath (default: all; a "
                   "peer whose code objects are absent is skipped with one line)")
      ->delimiter(',')
      ->check(CLI::IsMember(adapters::adapter_names()));
  cmd_->add_flag("--quiet", quiet_, "No progress lines on stderr");
  add_sim_options(cmd_, sim_);
}

int CrosscheckCommand::run() {
  summary().start("crosscheck");  // printed by main whatever the exit path (audit/output/summary_line.hpp)
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  // Every input checked before anything runs.
  std::optional<std::regex> filter;
  if (!cases_.empty()) filter.emplace(cases_);
  std::vector<std::string> kernels = kernels_.empty() ? adapters::adapter_names() : kernels_;
  std::vector<fs::path> files = golden_files_under(path_.empty() ? fs::path(CDNA_GOLDEN_SET_DIR) : fs::path(path_));
  if (filter) std::erase_if(files, [&](const fs::path& f) { return !std::regex_search(f.filename().string(), *filter); });
  if (files.empty()) throw std::runtime_error("no golden file matches --cases '" + cases_ + "'");
  std::vector<golden::GoldenFile> goldens;
  for (const fs::path& f : files) goldens.push_back(golden::read_golden(f));
  std::error_code ec;
  fs::create_directories(out_dir_, ec);
  if (ec || !fs::is_directory(out_dir_)) throw std::runtime_error("--out '" + out_dir_ + "' is not a directory I can create");

  if (executor_ != "simulator" && sim_.any())
    throw CLI::ValidationError("--schedule/--schedule-seed/--envelope-seed/--hazards/--lds-races/--memory-model",
                               "apply to the simulator only; the other executor is --executor " + executor_);
  ChosenExecutor other = choose_executor(executor_);  // hip without a gfx942 device: ExecutorUnavailable
  ChosenExecutor reference = choose_executor("simulator");
  CrosscheckReport report;
  const std::size_t total = files.size() * kernels.size();
  std::size_t done = 0;
  for (const std::string& kernel : kernels) {
    SimSettings ref_settings;
    ref_settings.hazards = crosscheck_hazard_policy(kernel);
    const auto ref_applied = apply_sim_settings(reference, ref_settings, kernel);
    SimSettings other_settings = sim_;
    if (other.sim && other_settings.hazards.empty()) other_settings.hazards = ref_settings.hazards;
    const auto other_applied = apply_sim_settings(other, other_settings, kernel);  // sim options with hip: exit 2
    // The simulator against itself with the same settings compares a run with its own replay:
    // nothing is cross-checked (--threads alone differs in dispatch, not in settings, and counts).
    if (other.sim && other_applied == ref_applied && !sim_.threads) {
      std::string same;
      for (const auto& [k, v] : ref_applied) same += (same.empty() ? "" : " ") + k + "=" + v;
      throw CLI::ValidationError("--executor", "simulator with the reference's own settings (" + same +
                                                   ") has nothing to cross-check; give other settings (--schedule "
                                                   "random, --envelope-seed, --memory-model, --threads, ...) or "
                                                   "--executor hip");
    }
    if (report.reference.empty()) {
      report.reference = reference.executor->describe();
      add_settings(report.reference, ref_applied);
      report.other = other.executor->describe();
      add_settings(report.other, other_applied);
    }
    // A kernel whose code objects cannot be loaded (a peer absent from ../shared/peers) is skipped, with why.
    CodeObjects code(kernel);
    std::set<numerics::Rounding> modes;
    // Files of a mode the kernel is not built in are skipped rows, each with the reason.
    for (const golden::GoldenFile& g : goldens)
      if (!code.mode_refusal(g.mode)) modes.insert(g.mode);
    try {
      for (numerics::Rounding m : modes) code.get(m);
    } catch (const std::exception& e) {
      report.kernels_skipped.push_back(kernel + ": " + e.what());
      if (!quiet_) std::cerr << "crosscheck: skip " << kernel << ": " << e.what() << "\n";
      done += files.size();
      continue;
    }
    for (std::size_t n = 0; n < files.size(); ++n) {
      CrosscheckRow row =
          crosscheck_file(goldens[n], files[n].filename().string(), kernel, code, *reference.executor, *other.executor);
      ++done;
      if (!quiet_) {
        const double t = elapsed();
        std::cerr << "crosscheck: " << done << "/" << total << " " << row.file << " " << kernel << ": "
                  << to_string(row.status) << " (" << seconds_text(t) << " elapsed, ~"
                  << seconds_text(t / static_cast<double>(done) * static_cast<double>(total - done)) << " left)\n";
      }
      report.rows.push_back(std::move(row));
    }
  }
  report.seconds = elapsed();
  write_atomically(fs::path(out_dir_) / "crosscheck.json", crosscheck_json(report));
  write_atomically(fs::path(out_dir_) / "crosscheck.md", crosscheck_markdown(report));
  const int equal = report.count(Status::Equal), differ = report.count(Status::Differ),
            errors = report.count(Status::Error), skipped = report.count(Status::Skipped);
  const int compared = equal + differ;
  std::cout << crosscheck_table(report) << "reports written to " << out_dir_ << "/crosscheck.json, crosscheck.md\n";
  const std::pair<const char*, std::uint64_t> fields[] = {
      {"compared", compared}, {"equal", equal}, {"differ", differ}, {"errors", errors}, {"skipped", skipped},
      {"kernels_skipped", report.kernels_skipped.size()}};
  for (const auto& [key, n] : fields) summary().set(key, n);
  return report.exit_code();
}

}  // namespace cdna::tools
