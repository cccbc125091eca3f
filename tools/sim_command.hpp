// `cdna-verify sim`: runs any kernel of a gfx942 code object on the CDNA3 simulator with
// arguments from a JSON file, writes output buffers back to files and prints run statistics
// (wave-instructions by class, MFMA count, memory traffic, workgroups, time, rate).
// `cdna-verify sim --list-instructions` prints the mnemonics the simulator implements.
//
// args.json: a JSON array, one entry per explicit kernel argument (format: tools/sim_args.hpp);
// a directory given where a file is expected (args.json, a buffer, inout or output file) is
// refused with its path before the run. Outputs are written to a temporary file next to the
// destination and renamed, only after a successful run.
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "simulator/schedule/scheduler.hpp"

namespace cdna::tools {

// The bytes of a file; throws one line naming `what` and the path if it cannot be read.
std::vector<std::byte> read_whole_file(const std::filesystem::path& p, const std::string& what);

class SimCommand {
 public:
  explicit SimCommand(CLI::App& app);
  bool parsed() const;
  // Exit code 0 after a successful run; bad input throws one line (exit 2), a fault of the kernel
  // throws simulator::KernelFault (exit 1).
  int run();

 private:
  CLI::App* sim_ = nullptr;
  std::string code_object_, kernel_, args_;
  std::vector<std::uint32_t> grid_, block_;
  std::uint32_t lds_ = 0;
  bool list_ = false;
  std::string hazards_ = "error";
  std::string lds_races_ = "error";
  std::string memory_model_ = "coherent";
  // The scheduler's own limit by default (simulator/schedule/scheduler.hpp max_total_instructions).
  std::uint64_t max_instructions_ = simulator::SchedulerOptions{}.max_total_instructions;
  std::optional<unsigned> threads_;
  // 2^24 workgroups: about 2^26 wave turns at the 4 waves of a 256-item block; far past any grid
  // the repository's kernels launch (e.g. attention at B 64, Hq 64, Sq 4096 / 64 rows: 2^18).
  std::uint64_t max_workgroups_ = std::uint64_t{1} << 24;
  bool quiet_ = false;
};

}  // namespace cdna::tools
