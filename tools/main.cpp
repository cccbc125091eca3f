// cdna-verify: the command-line program. Subcommands: audit, run, sim, golden, mutants, lint, coverage, compare,
// report, decode, trace, crosscheck, device, help.
#include <CLI/CLI.hpp>

#include <chrono>
#include <iostream>

#include "device/hip_executor.hpp"
#include "tools/audit_command.hpp"
#include "tools/cli_errors.hpp"
#include "tools/compare_command.hpp"
#include "tools/coverage_command.hpp"
#include "tools/crosscheck_command.hpp"
#include "tools/decode_command.hpp"
#include "tools/device_command.hpp"
#include "audit/run/executor_choice.hpp"
#include "audit/output/exit_codes.hpp"
#include "tools/golden_command.hpp"
#include "tools/lint_command.hpp"
#include "tools/mutants_command.hpp"
#include "tools/report_command.hpp"
#include "tools/run_command.hpp"
#include "tools/sim_command.hpp"
#include "tools/sim_settings.hpp"
#include "tools/trace_command.hpp"
#include "audit/output/summary_line.hpp"

using namespace cdna;

namespace {

// Runs the parsed subcommand; returns its exit code.
int run_parsed(tools::AuditCommand& audit, tools::RunCommand& run, tools::GoldenCommand& golden,
               tools::SimCommand& sim, tools::MutantsCommand& mutants, tools::LintCommand& lint,
               tools::CompareCommand& compare, tools::DecodeCommand& decode, const tools::SimSettings& decode_sim,
               tools::CrosscheckCommand& crosscheck, tools::DeviceCommand& device_cmd, tools::ReportCommand& report,
               tools::TraceCommand& trace, tools::CoverageCommand& coverage) {
  if (audit.parsed()) return audit.run();
  if (run.parsed()) return run.run();
  if (golden.parsed()) return golden.run();
  if (sim.parsed()) return sim.run();
  if (mutants.parsed()) return mutants.run();
  if (lint.parsed()) return lint.run();
  if (coverage.parsed()) return coverage.run();
  if (compare.parsed()) return compare.run();
  if (report.parsed()) return report.run();
  if (crosscheck.parsed()) return crosscheck.run();
  if (device_cmd.parsed()) return device_cmd.run();
  if (trace.parsed()) return trace.run();
  if (decode.parsed()) {
    audit::summary().start("decode");
    decode.prepare();  // every input checked before an executor is chosen
    audit::ChosenExecutor chosen = audit::choose_executor(decode.executor_name());
    return decode.run(chosen, tools::apply_sim_settings(chosen, decode_sim, "attention-fwd"));
  }
  return audit::kExitBadInput;
}

}  // namespace

int main(int argc, char** argv) {
  const auto t0 = std::chrono::steady_clock::now();
  CLI::App app{"cdna-verify: verification of MI300X (gfx942) attention kernels against exact oracles"};
  app.set_version_flag("--version", tools::version_text(device::build_hip()));
  app.require_subcommand(1);
  // One line per error, the same prefix as every other error of the program.
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return "cdna-verify: error: " + std::string(e.what()) + " (see --help)\n";
  });

  tools::AuditCommand audit(app);  // `audit` (tools/audit_command.hpp)

  tools::RunCommand run(app);  // `run` (tools/run_command.hpp)

  tools::SimCommand sim(app);  // `sim CODE_OBJECT KERNEL --args ...` (tools/sim_command.hpp)

  tools::GoldenCommand golden(app);  // `golden gen|verify|check`

  tools::MutantsCommand mutants(app);  // `mutants` (docs/mutation-testing.md)

  tools::LintCommand lint(app);  // `lint CODE_OBJECT [KERNEL]` (tools/lint_command.hpp)

  tools::CoverageCommand coverage(app);  // `coverage PATH...` (tools/coverage_command.hpp)

  tools::CompareCommand compare(app);  // `compare A B` (tools/compare_command.hpp, docs/compare.md)

  tools::ReportCommand report(app);  // `report merge` (tools/report_command.hpp, docs/ci.md)

  tools::DecodeCommand decode(app);  // `decode` (tools/decode_command.hpp, docs/decode-semantics.md)
  tools::SimSettings decode_sim;
  tools::add_sim_options(decode.cmd(), decode_sim);

  tools::TraceCommand trace(app);  // `trace` (tools/trace_command.hpp, docs/decode-traces.md)
  tools::CrosscheckCommand crosscheck(app);  // `crosscheck` (tools/crosscheck_command.hpp, docs/ci.md)

  tools::DeviceCommand device_cmd(app);  // `device` (tools/device_command.hpp)

  // `help [SUBCOMMAND...]`: the help of the program or of a (nested) subcommand.
  std::vector<std::string> help_words;
  CLI::App* help = app.add_subcommand("help", "Print the help of cdna-verify, or of SUBCOMMAND (e.g. `help golden verify`)");
  help->add_option("subcommand", help_words, "The subcommand (and its subcommand) to explain");
  app.footer(tools::kExitCodesHelp);  // after the subcommands: CLI11 copies a parent's footer into later ones

  if (auto why = tools::unknown_subcommand(app, argc, argv)) {
    std::cerr << "cdna-verify: error: " << *why << "\n";
    return audit::kExitBadInput;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);  // prints help, version or the one-line parse error
    return rc == 0 ? audit::kExitPass : audit::kExitBadInput;
  }
  if (help->parsed()) {
    const CLI::App* target = &app;
    for (const std::string& w : help_words) {
      const CLI::App* next = nullptr;
      for (const CLI::App* s : target->get_subcommands([](const CLI::App*) { return true; }))
        if (s->check_name(w)) next = s;
      if (!next) {
        std::cerr << "cdna-verify: error: help: '" << w << "' is not a subcommand of " << target->get_name()
                  << " (see cdna-verify --help)\n";
        return audit::kExitBadInput;
      }
      target = next;
    }
    // The formatter, not App::help(): the program's help() would show the parsed `help` subcommand's.
    std::cout << target->get_formatter()->make_help(target, target->get_name(), CLI::AppFormatMode::Normal);
    return audit::kExitPass;
  }
  audit::set_executor_notes_quiet(tools::quiet_given(app));  // "falling back to the simulator" obeys --quiet
  int rc = audit::kExitBadInput;
  try {
    rc = run_parsed(audit, run, golden, sim, mutants, lint, compare, decode, decode_sim, crosscheck, device_cmd, report, trace, coverage);
  } catch (const std::exception& e) {
    std::cout << std::flush;
    rc = tools::report_exception(e, std::cerr);
  }
  // The summary line: the last stdout line of a judging run, whatever the path (docs/ci.md).
  if (audit::summary().started())
    std::cout << audit::summary().line(rc, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count())
              << std::endl;
  return rc;
}
