#include "audit/output/atomic_file.hpp"

#include <cerrno>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace cdna::audit {

void write_atomically(const std::filesystem::path& path, const std::string& text) {
  const std::filesystem::path tmp = path.string() + ".partial";
  std::error_code ec;
  // The folder check_output_file accepted as "can be created".
  if (const auto parent = std::filesystem::absolute(path, ec).parent_path(); !ec && !parent.empty())
    std::filesystem::create_directories(parent, ec);
  if (ec) throw std::runtime_error("cannot write '" + path.string() + "': cannot create its folder: " + ec.message());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      const int why = errno;
      if (std::filesystem::is_regular_file(tmp, ec)) std::filesystem::remove(tmp, ec);
      throw std::runtime_error("cannot write '" + path.string() + "': " + std::generic_category().message(why));
    }
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw std::runtime_error("cannot write '" + path.string() + "': " + ec.message());
}

}  // namespace cdna::audit
