// CLI11 validators for numeric options, so that a value outside an option's domain is a one-line
// input error (exit 2) before any work. CLI11 2.1 converts "-1" into an unsigned option by
// wrapping it to 2^64 - 1, and a float option takes "nan" and "inf": these checks see the text
// before the conversion.
#pragma once

#include <CLI/CLI.hpp>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

namespace cdna::tools {

// Decimal digits only: an unsigned integer (the conversion then refuses one too large).
inline CLI::Validator unsigned_integer() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
          return "'" + text + "' is not an unsigned integer; expected decimal digits (0 or more)";
        return "";
      },
      "UINT");
}

// Reads `text` (decimal or C99 hex) as the nearest fp32 value into x; returns "" if it is a
// finite fp32 value that is not a nonzero number underflowing to 0 (which would silently become
// another problem, e.g. a scale of 0: uniform weights), else what is wrong, as a phrase that
// follows the quoted text ("is not a number ...").
inline std::string read_finite_fp32(const std::string& text, float& x) {
  char* end = nullptr;
  const bool blank = text.empty() || std::isspace(static_cast<unsigned char>(text[0]));
  x = blank ? NAN : std::strtof(text.c_str(), &end);
  if (blank || *end != '\0') return "is not a number (decimal or C99 hex, e.g. 0.125 or 0x1p-3)";
  if (!std::isfinite(x)) return "is not a finite fp32 value (magnitude below 3.4e38; no NaN or inf)";
  errno = 0;
  if (x == 0 && (std::strtod(text.c_str(), nullptr) != 0 || errno == ERANGE))
    return "underflows to 0 in fp32; give 0 itself or a magnitude of at least 1.4e-45";
  return "";
}

// An option whose value must pass read_finite_fp32.
inline CLI::Validator finite_fp32() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        float x;
        const std::string why = read_finite_fp32(text, x);
        return why.empty() ? "" : "'" + text + "' " + why;
      },
      "FLOAT");
}

}  // namespace cdna::tools
