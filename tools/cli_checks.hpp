// CLI11 validators for numeric options, so that a value outside an option's domain is a one-line
// input error (exit 2) before any work. CLI11 2.1 converts "-1" into an unsigned option by
// wrapping it to 2^64 - 1, and a float option takes "nan" and "inf": these checks see the text
// before the conversion.
#pragma once

#include <CLI/CLI.hpp>

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

// A number whose fp32 value is finite (not NaN, not inf, not so large it overflows fp32).
inline CLI::Validator finite_fp32() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const float x = std::strtof(text.c_str(), &end);
        if (text.empty() || *end != '\0') return "'" + text + "' is not a number; expected a finite fp32 value";
        if (!std::isfinite(x))  // strtof overflows to inf
          return "'" + text + "' is not a finite fp32 value; expected a finite number of magnitude below 3.4e38";
        return "";
      },
      "FLOAT");
}

}  // namespace cdna::tools
