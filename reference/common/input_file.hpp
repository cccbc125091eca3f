// One wording for a directory given where a file is read (issue 13 §4: "a directory passed as a
// file names the path"), shared by every reader of an input file: code objects, golden and
// safetensors files, candidate outputs, model files.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <system_error>

namespace cdna::reference {

// "<what> '<path>' is a directory, expected a file" when `path` names a directory, else nullopt.
// `what` ("code object", "golden file") may be empty.
inline std::optional<std::string> directory_instead_of_file(const std::filesystem::path& path, const std::string& what) {
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) return std::nullopt;
  return (what.empty() ? "" : what + " ") + "'" + path.string() + "' is a directory, expected a file";
}

}  // namespace cdna::reference
