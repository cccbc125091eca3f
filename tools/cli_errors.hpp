// What main does around the subcommands (docs/ci.md "Exit codes, summary line, progress"): the
// exit code and one stderr line for a thrown error, the unknown-subcommand and `help` handling,
// the --version text and the exit-code footer of --help.
#pragma once

#include <CLI/CLI.hpp>

#include <exception>
#include <optional>
#include <ostream>
#include <string>

namespace cdna::tools {

// The exit-code table of `cdna-verify --help` and README "Exit codes".
extern const char* const kExitCodesHelp;

// "cdna-verify 0.1.0 (git <rev>[-dirty]) LLVM <x.y.z> (decoding), HIP: <hip>": the revision
// captured at build time (cmake/git_revision.cmake; "unknown" outside a git checkout), the LLVM
// whose AMDGPU disassembler decodes code objects (LLVM_PACKAGE_VERSION of the LLVMConfig CMake
// found), and the HIP build (device::build_hip()).
std::string version_text(const std::string& hip);

// Prints the error's one line on `err` and returns its exit code (audit/output/exit_codes.hpp):
// ExecutorUnavailable 3; simulator::KernelFault 1 (the kernel as written is wrong: "FAIL: ..."
// naming kernel, pc, wave and instruction); CLI11 errors, a bad --cases regex and every other
// std::exception 2.
int report_exception(const std::exception& e, std::ostream& err);

// When argv's first word is not an option and names no subcommand of `app`: the one-line error
// "unknown subcommand 'WORD'; subcommands: audit, run, ..." (without the program prefix); when it
// is an option the program does not have (`--versionx`): "unknown option 'WORD' ...", which CLI11
// would otherwise report as a missing subcommand.
std::optional<std::string> unknown_subcommand(const CLI::App& app, int argc, const char* const* argv);

// True when a parsed subcommand (at any depth) was given --quiet.
bool quiet_given(const CLI::App& app);

}  // namespace cdna::tools
