#include "tools/cli_errors.hpp"

#include <regex>

#include "simulator/state/kernel_fault.hpp"
#include "audit/output/exit_codes.hpp"

namespace cdna::tools {

using namespace cdna::audit;  // the engine (audit/README.md)

extern const char* const kGitRevision;  // generated: build/tools/git_revision.cpp

const char* const kExitCodesHelp =
    "Exit codes (every subcommand):\n"
    "  0  pass: something was judged and every verdict passed (sim, which judges nothing: the dispatch ran)\n"
    "  1  a verdict failed: the kernel, a golden file's bits or a lint finding is wrong; a simulator error\n"
    "     the kernel caused (hazard, access outside its buffers, hung wave, instruction limit, LDS race,\n"
    "     an instruction the simulator does not implement) counts here, naming kernel, pc, wave, instruction\n"
    "  2  bad input or tool error, or NOTHING JUDGED (no case matched, every case rejected, an empty problem),\n"
    "     or work refused before it starts (past --max-memory, --max-work, --max-workgroups)\n"
    "  3  the executor asked for cannot run here (--executor hip without a gfx942 device)\n"
    "A judging run's last stdout line is \"cdna-verify summary: SUBCOMMAND PASS|FAIL|NOTHING JUDGED key=value ...\"\n"
    "(docs/ci.md).";

std::string version_text(const std::string& hip) {
  return std::string("cdna-verify ") + CDNA_VERSION + " (git " + kGitRevision + ") LLVM " + CDNA_LLVM_VERSION +
         " (decoding), HIP: " + hip;
}

int report_exception(const std::exception& e, std::ostream& err) {
  if (dynamic_cast<const ExecutorUnavailable*>(&e)) {
    err << "cdna-verify: error: " << e.what() << "\n";
    return kExitExecutorUnavailable;
  }
  if (dynamic_cast<const simulator::KernelFault*>(&e)) {
    err << "cdna-verify: FAIL: " << e.what() << "\n";
    return kExitFail;
  }
  if (dynamic_cast<const std::regex_error*>(&e))
    err << "cdna-verify: error: --cases is not a valid regular expression: " << e.what() << "\n";
  else
    err << "cdna-verify: error: " << e.what() << "\n";
  return kExitBadInput;
}

std::optional<std::string> unknown_subcommand(const CLI::App& app, int argc, const char* const* argv) {
  if (argc < 2) return std::nullopt;
  const std::string word = argv[1];
  if (word.empty()) return std::nullopt;
  if (word[0] == '-') {
    const std::string name = word.substr(0, word.find('='));
    if (app.get_option_no_throw(name)) return std::nullopt;
    return "unknown option '" + name + "'; before a subcommand cdna-verify takes --help or --version only";
  }
  std::string names;
  for (const CLI::App* s : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (s->check_name(word)) return std::nullopt;
    names += (names.empty() ? "" : ", ") + s->get_name();
  }
  return "unknown subcommand '" + word + "'; subcommands: " + names;
}

bool quiet_given(const CLI::App& app) {
  for (const CLI::App* s : app.get_subcommands()) {
    const CLI::Option* q = s->get_option_no_throw("--quiet");
    if ((q && q->count() > 0) || quiet_given(*s)) return true;
  }
  return false;
}

}  // namespace cdna::tools
