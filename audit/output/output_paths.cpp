#include "audit/output/output_paths.hpp"

#include <unistd.h>

#include <stdexcept>
#include <system_error>

namespace cdna::audit {

namespace fs = std::filesystem;

namespace {
[[noreturn]] void refuse(const std::string& option, const fs::path& p, const std::string& why) {
  throw std::invalid_argument(option + " '" + p.string() + "': " + why);
}
}  // namespace

void check_output_dir(const std::string& option, const fs::path& dir) {
  if (dir.empty()) refuse(option, dir, "empty path; expected a directory");
  std::error_code ec;
  // The nearest part of the path that exists must be a directory we may write into.
  fs::path existing = fs::absolute(dir, ec);
  while (!fs::exists(existing, ec)) {
    if (ec || !existing.has_relative_path()) refuse(option, dir, "cannot be inspected: " + ec.message());
    existing = existing.parent_path();
  }
  if (!fs::is_directory(existing, ec)) {
    refuse(option, dir, (existing == fs::absolute(dir) ? std::string("is not a directory") : "'" + existing.string() + "' is not a directory") +
                            "; expected a directory that exists or can be created");
  }
  if (::access(existing.c_str(), W_OK | X_OK) != 0)
    refuse(option, dir, "'" + existing.string() + "' is not writable; expected a directory we may write into");
}

void check_output_file(const std::string& option, const fs::path& file) {
  std::error_code ec;
  if (fs::is_directory(file, ec)) refuse(option, file, "is a directory, expected a file");
  // A device, FIFO or socket would be replaced by the rename of the finished file.
  if (fs::exists(file, ec) && !fs::is_regular_file(file, ec))
    refuse(option, file, "is not a regular file (a device, FIFO or socket), expected a file to write");
  const fs::path parent = fs::absolute(file, ec).parent_path();
  check_output_dir(option + " (its folder)", parent);
}

}  // namespace cdna::audit
