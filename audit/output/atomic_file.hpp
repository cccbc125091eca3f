// Writing a report file so that a failed or interrupted write never leaves a file that looks
// complete: the text goes to "<path>.partial" first and is renamed onto <path> when whole.
#pragma once

#include <filesystem>
#include <string>

namespace cdna::audit {

// Throws std::runtime_error naming the path if the temporary file cannot be written or renamed
// (the temporary file is removed on a failed write).
void write_atomically(const std::filesystem::path& path, const std::string& text);

}  // namespace cdna::audit
