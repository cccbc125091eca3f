#include "audit/decode/profile_file.hpp"

#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "audit/decode/trace_layers.hpp"  // declared_profile

namespace cdna::audit {
namespace {

constexpr const char* kFormat = "cdna-verify-profile-1";

// `path` is the label of the text: "profile file X.json", or where a golden file keeps it.
[[noreturn]] void refuse(const std::filesystem::path& path, const std::string& what) {
  throw std::invalid_argument(path.string() + ": " + what);
}

constexpr const char* kArithmeticFields[] = {"accumulation_u", "underflow_abs", "transcendental_rel", "constant_rel",
                                             "rope_abs", "elementwise_u", "attention_weights_u", "fused_exp_argument",
                                             "attention_key_block", "kv_cache", "activations"};

double bounded_number(const std::filesystem::path& path, const std::string& key, const nlohmann::json& v) {
  if (!v.is_number()) refuse(path, "arithmetic." + key + " is " + std::string(v.type_name()) + "; need a number in [0, 2^-7]");
  const double x = v.get<double>();
  if (!std::isfinite(x) || x < 0 || x > 0x1p-7)
    refuse(path, "arithmetic." + key + " = " + v.dump() + " is outside [0, 2^-7 = 0.0078125]");
  return x;
}

reference::Storage storage(const std::filesystem::path& path, const std::string& key, const nlohmann::json& v) {
  using reference::StorageFormat;
  const std::string s = v.is_string() ? v.get<std::string>() : std::string();
  if (s == "fp32") return {StorageFormat::fp32, numerics::Rounding::RTNE};
  if (s == "bf16-rtne") return {StorageFormat::bf16, numerics::Rounding::RTNE};
  if (s == "bf16-rtna") return {StorageFormat::bf16, numerics::Rounding::RTNA};
  if (s == "bf16-rtz") return {StorageFormat::bf16, numerics::Rounding::RTZ};
  refuse(path, "arithmetic." + key + " = " + v.dump() + "; need \"fp32\", \"bf16-rtne\", \"bf16-rtna\" or \"bf16-rtz\"");
}

// The file's spelling of a storage; exact storage has none (no implementation stores exactly).
std::string storage_text(const reference::Storage& s) {
  switch (s.format) {
    case reference::StorageFormat::fp32: return "fp32";
    case reference::StorageFormat::bf16:
      switch (s.mode) {
        case numerics::Rounding::RTNE: return "bf16-rtne";
        case numerics::Rounding::RTNA: return "bf16-rtna";
        case numerics::Rounding::RTZ: return "bf16-rtz";
      }
      break;
    case reference::StorageFormat::exact: break;
  }
  throw std::invalid_argument("a profile storing values exactly has no profile-file spelling; need fp32 or bf16 storage");
}

}  // namespace

DeclaredProfile parse_profile_text(const std::string& text, const reference::DecoderConfig& config,
                                   const std::filesystem::path& path) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // The library's text after its "[json.exception.parse_error.101] " tag: where and what.
    const std::string what = e.what();
    const auto tag = what.find("] ");
    refuse(path, "not JSON: " + (tag == std::string::npos ? what : what.substr(tag + 2)));
  }
  if (!j.is_object()) refuse(path, "is " + std::string(j.type_name()) + "; need a JSON object");
  for (const auto& [key, value] : j.items())
    if (key != "format" && key != "name" && key != "base" && key != "arithmetic")
      refuse(path, "unknown field '" + key + "'; need format, name, base, arithmetic");
  if (!j.contains("format") || j["format"] != kFormat)
    refuse(path, "format is " + (j.contains("format") ? j["format"].dump() : std::string("missing")) + "; need \"" + kFormat + "\"");
  if (!j.contains("name") || !j["name"].is_string() || j["name"].get<std::string>().empty())
    refuse(path, "name is missing or not a non-empty string");
  const std::optional<TraceProfile> base =
      j.contains("base") && j["base"].is_string() ? parse_trace_profile(j["base"].get<std::string>()) : std::nullopt;
  if (!base)
    refuse(path, "base is " + (j.contains("base") ? j["base"].dump() : std::string("missing")) +
                     "; need fp32, bf16, monokernel-rtne, monokernel-rtna or monokernel-rtz");
  DeclaredProfile d = declared_profile(*base, config);
  d.name = j["name"].get<std::string>();
  if (!j.contains("arithmetic")) return d;
  if (!j["arithmetic"].is_object()) refuse(path, "arithmetic is " + std::string(j["arithmetic"].type_name()) + "; need an object");
  reference::DecodeArithmetic& a = d.arithmetic;
  for (const auto& [key, v] : j["arithmetic"].items()) {
    if (key == "accumulation_u") a.accumulation_u = bounded_number(path, key, v);
    else if (key == "underflow_abs") a.underflow_abs = bounded_number(path, key, v);
    else if (key == "transcendental_rel") a.transcendental_rel = bounded_number(path, key, v);
    else if (key == "constant_rel") a.constant_rel = bounded_number(path, key, v);
    else if (key == "rope_abs") a.rope_abs = bounded_number(path, key, v);
    else if (key == "elementwise_u") a.elementwise_u = bounded_number(path, key, v);
    else if (key == "attention_weights_u") a.attention_weights_u = bounded_number(path, key, v);
    else if (key == "kv_cache") a.kv_cache = storage(path, key, v);
    else if (key == "activations") a.activations = storage(path, key, v);
    else if (key == "fused_exp_argument") {
      if (!v.is_boolean()) refuse(path, "arithmetic.fused_exp_argument = " + v.dump() + "; need true or false");
      a.fused_exp_argument = v.get<bool>();
    } else if (key == "attention_key_block") {
      if (!v.is_number_integer() || v.get<std::int64_t>() < 0)
        refuse(path, "arithmetic.attention_key_block = " + v.dump() + "; need an integer >= 0 (0: no online rescale)");
      a.attention_key_block = v.get<std::int64_t>();
    } else {
      std::string known;
      for (const char* f : kArithmeticFields) known += std::string(known.empty() ? "" : ", ") + f;
      refuse(path, "unknown arithmetic field '" + key + "'; need " + known);
    }
  }
  return d;
}

DeclaredProfile read_profile_file(const std::filesystem::path& path, const reference::DecoderConfig& config) {
  std::ifstream in(path, std::ios::binary);
  if (!in) refuse("profile file " + path.string(), "cannot be read (need a JSON profile file, docs/decode-traces.md \"Profile files\")");
  std::stringstream text;
  text << in.rdbuf();
  return parse_profile_text(text.str(), config, "profile file " + path.string());
}

std::optional<std::string> unstated_profile_field(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object() || !j.contains("arithmetic") || !j["arithmetic"].is_object()) return std::string("arithmetic");
  for (const char* f : kArithmeticFields)
    if (!j["arithmetic"].contains(f)) return std::string("arithmetic.") + f;
  return std::nullopt;
}

std::string profile_file_text(const DeclaredProfile& profile) {
  const reference::DecodeArithmetic& a = profile.arithmetic;
  nlohmann::json j = {{"format", kFormat}, {"name", profile.name}, {"base", to_string(profile.base)}};
  j["arithmetic"] = {{"accumulation_u", a.accumulation_u},
                     {"underflow_abs", a.underflow_abs},
                     {"transcendental_rel", a.transcendental_rel},
                     {"constant_rel", a.constant_rel},
                     {"rope_abs", a.rope_abs},
                     {"elementwise_u", a.elementwise_u},
                     {"attention_weights_u", a.attention_weights_u},
                     {"fused_exp_argument", a.fused_exp_argument},
                     {"attention_key_block", a.attention_key_block},
                     {"kv_cache", storage_text(a.kv_cache)},
                     {"activations", storage_text(a.activations)}};
  return j.dump();
}

}  // namespace cdna::audit
