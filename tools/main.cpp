// cdna-verify: the command-line program. Subcommands: audit, run, sim, golden, mutants, lint, compare, decode,
// crosscheck, device.
#include <CLI/CLI.hpp>

#include <iostream>
#include <regex>

#include "tools/audit_command.hpp"
#include "device/hip_executor.hpp"
#include "tools/compare_command.hpp"
#include "tools/crosscheck_command.hpp"
#include "tools/decode_command.hpp"
#include "tools/device_command.hpp"
#include "tools/executor_choice.hpp"
#include "tools/exit_codes.hpp"
#include "tools/golden_command.hpp"
#include "tools/lint_command.hpp"
#include "tools/mutants.hpp"
#include "tools/report_merge.hpp"
#include "tools/run_command.hpp"
#include "tools/sim_command.hpp"
#include "tools/sim_settings.hpp"

using namespace cdna;

int main(int argc, char** argv) {
  CLI::App app{"cdna-verify: verification of MI300X (gfx942) attention kernels against exact oracles"};
  app.set_version_flag("--version", std::string(CDNA_VERSION) + " (HIP: " + device::build_hip() + ")");
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

  tools::CompareCommand compare(app);  // `compare A B` (tools/compare_command.hpp, docs/compare.md)

  tools::ReportCommand report(app);  // `report merge` (tools/report_merge.hpp, docs/ci.md)

  tools::DecodeCommand decode(app);  // `decode` (tools/decode_command.hpp, docs/decode-semantics.md)
  tools::SimSettings decode_sim;
  tools::add_sim_options(decode.cmd(), decode_sim);

  tools::CrosscheckCommand crosscheck(app);  // `crosscheck` (tools/crosscheck_command.hpp, docs/ci.md)

  tools::DeviceCommand device_cmd(app);  // `device` (tools/device_command.hpp)

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);  // prints help, version or the one-line parse error
    return rc == 0 ? 0 : 2;
  }
  try {
    if (audit.parsed()) return audit.run();
    if (run.parsed()) return run.run();
    if (golden.parsed()) return golden.run();
    if (sim.parsed()) return sim.run();
    if (mutants.parsed()) return mutants.run();
    if (lint.parsed()) return lint.run();
    if (compare.parsed()) return compare.run();
    if (report.parsed()) return report.run();
    if (crosscheck.parsed()) return crosscheck.run();
    if (device_cmd.parsed()) return device_cmd.run();
    if (decode.parsed()) {
      decode.prepare();  // every input checked before an executor is chosen
      tools::ChosenExecutor chosen = tools::choose_executor(decode.executor_name());
      return decode.run(chosen, tools::apply_sim_settings(chosen, decode_sim, "attention-fwd"));
    }
  } catch (const tools::ExecutorUnavailable& e) {
    std::cerr << "cdna-verify: error: " << e.what() << "\n";
    return tools::kExitExecutorUnavailable;
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
