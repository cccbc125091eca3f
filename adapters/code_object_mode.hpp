// Loading an attention code object declared for a bf16 rounding mode, and holding the code
// object to the mode it records (device/attention_launcher.hpp, kRoundingSymbol): a mismatch is
// refused before anything runs; a code object that records no mode is run as declared, and the
// caller says that the mode was not checked.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "numerics/bf16.hpp"

namespace cdna::adapters {

struct AttentionCodeObject {
  std::filesystem::path path;
  std::vector<std::byte> bytes;
  numerics::Rounding declared = numerics::Rounding::RTNE;
  bool mode_recorded = false;  // false: no kRoundingSymbol; `declared` is the user's word only
};

// Reads and parses the code object at `path` (simulator::CodeObject), requires each of
// `kernels`, and requires the mode it records, if any, to be `declared`. Throws
// std::runtime_error with one line naming the path: unreadable, malformed, kernel missing, a
// malformed mode symbol, or a recorded mode other than `declared` (naming both).
AttentionCodeObject load_attention_code_object(const std::filesystem::path& path, numerics::Rounding declared,
                                               std::span<const char* const> kernels);

// One line for a code object at `path` that records no mode: `declared_mode` ("RTZ") is the
// user's declaration and is not checked; for `kernel` aiter-pa, the adapter's (the only mode its
// kernels' conversions have, docs/peer-kernels.md), not checked per file.
std::string unchecked_mode_notice(std::string_view path, std::string_view declared_mode, std::string_view kernel = "");

}  // namespace cdna::adapters
