// Output locations checked before any work (issue 13 §4: `--out` was checked only after the
// whole audit): every --out, --json and --junit of every subcommand goes through one of these
// as the subcommand starts, so that a run never ends by failing to write what it computed.
#pragma once

#include <filesystem>
#include <string>

namespace cdna::audit {

// Throws std::invalid_argument (exit 2), one line naming `option` and the path, unless `dir` is a
// writable directory or can be created (its nearest existing ancestor is a writable directory).
// Creates nothing.
void check_output_dir(const std::string& option, const std::filesystem::path& dir);

// The same for a file to be written: not a directory, device, FIFO or socket itself, and its
// folder as check_output_dir (write_atomically creates a missing folder).
void check_output_file(const std::string& option, const std::filesystem::path& file);

}  // namespace cdna::audit
