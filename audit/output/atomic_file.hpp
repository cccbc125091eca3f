// Writing a report file so that a failed or interrupted write never leaves a file that looks
// complete: the text goes to "<path>.partial" first and is renamed onto <path> when whole.
#pragma once

#include <filesystem>
#include <string>

namespace cdna::audit {

// Creates the path's folder if it is missing. Throws std::runtime_error naming the path and the
// reason if the folder cannot be created or the temporary file cannot be written or renamed (the
// temporary file is removed on a failed write).
void write_atomically(const std::filesystem::path& path, const std::string& text);

}  // namespace cdna::audit
