// CLI11 validators for numeric options, so that a value outside an option's domain is a one-line
// input error (exit 2) before any work. CLI11 2.1 converts "-1" into an unsigned option by
// wrapping it to 2^64 - 1, and a float option takes "nan" and "inf": these checks see the text
// before the conversion.
#pragma once

#include <CLI/CLI.hpp>

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

// Whether `text`, a number whose fp32 value is x, names a nonzero value that rounds to 0 in fp32
// (below about 7e-46): such a scale would silently become 0, another problem (uniform weights).
inline bool fp32_underflows_to_zero(const std::string& text, float x) {
  if (x != 0) return false;
  errno = 0;
  const double d = std::strtod(text.c_str(), nullptr);
  return d != 0 || errno == ERANGE;
}

// A number whose fp32 value is finite (not NaN, not inf, not so large it overflows fp32) and
// not a nonzero value that underflows to 0.
inline CLI::Validator finite_fp32() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const float x = std::strtof(text.c_str(), &end);
        if (text.empty() || *end != '\0') return "'" + text + "' is not a number; expected a finite fp32 value";
        if (!std::isfinite(x))  // strtof overflows to inf
          return "'" + text + "' is not a finite fp32 value; expected a finite number of magnitude below 3.4e38";
        if (fp32_underflows_to_zero(text, x))
          return "'" + text + "' underflows to 0 in fp32; expected 0 itself or a magnitude of at least 1.4e-45";
        return "";
      },
      "FLOAT");
}

}  // namespace cdna::tools
