// A profile file: a user's description of another implementation's declared arithmetic, for
// `cdna-verify trace --profile FILE.json` (docs/decode-traces.md, "Profile files"). It names a
// built-in profile as its base and sets some of the base's DecodeArithmetic fields otherwise:
//
//   {"format": "cdna-verify-profile-1", "name": "my-engine-bf16", "base": "bf16",
//    "arithmetic": {"attention_key_block": 64, "transcendental_rel": 2.4e-7}}
//
// Fields of "arithmetic" (reference/decode/envelope.hpp DecodeArithmetic, their meaning and the
// bounds they enter in docs/decode-bounds.md §1-§9 and §15): accumulation_u, underflow_abs,
// transcendental_rel, constant_rel, rope_abs, elementwise_u, attention_weights_u (unit roundoffs
// and absolute errors, each a finite number in [0, 2^-7]: coarser than bf16 truncation is not a
// declared arithmetic the bounds are derived for), fused_exp_argument (true or false),
// attention_key_block (an integer ≥ 0), kv_cache and activations (storage: "fp32", "bf16-rtne",
// "bf16-rtna", "bf16-rtz"). Anything else changes the arithmetic in a way the bounds do not know,
// so it is refused, never ignored.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "audit/decode/trace_profile.hpp"
#include "reference/decode/config.hpp"

namespace cdna::audit {

// Reads and validates the file; the base's arithmetic for `config` (trace_arithmetic) with the
// file's fields set. Throws std::invalid_argument with one line naming the file, the field and
// what would be right: a file that cannot be read, malformed JSON, a missing or unknown format,
// name or base, an unknown field, a value of the wrong type or outside its range.
DeclaredProfile read_profile_file(const std::filesystem::path& path, const reference::DecoderConfig& config);
// The same from the file's text; `path` is the label errors start with ("profile file X.json").
DeclaredProfile parse_profile_text(const std::string& text, const reference::DecoderConfig& config,
                                   const std::filesystem::path& path);
// A profile file stating every field of `profile` (one line of JSON): parse_profile_text of it for
// the same config gives `profile` back, whatever the built-in base's defaults become. Decode trace
// golden files store their profile so (golden/trace_golden.hpp). Throws std::invalid_argument for
// a storage the format cannot spell (exact).
std::string profile_file_text(const DeclaredProfile& profile);
// The first field a profile file's text leaves to its base ("arithmetic.rope_abs"; "arithmetic"
// for no arithmetic object or text that is not JSON), nullopt when it states every one.
std::optional<std::string> unstated_profile_field(const std::string& text);

}  // namespace cdna::audit
