// User text (a file's key, a metadata value, a JSON key) quoted in a one-line error message:
// control characters (a newline would split the message) shown as '?', text past `max`
// characters cut and marked "...".
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace cdna::golden {

inline std::string printable(std::string_view s, std::size_t max = 60) {
  std::string out;
  for (char c : s.substr(0, max)) out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
  if (s.size() > max) out += "...";
  return out;
}

}  // namespace cdna::golden
