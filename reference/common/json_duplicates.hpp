// Duplicate keys in JSON text. RFC 8259 §4 leaves duplicate names' meaning to the reader, and
// nlohmann::json keeps the last one silently; a file that says a setting twice is refused
// instead (config.json, safetensors headers). Use: DuplicateKeys d; json::parse(text, d.callback());
// then d.first is the first key seen twice in one object at any level ("" if none).
#pragma once

#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <vector>

namespace cdna::reference {

struct DuplicateKeys {
  std::string first;
  std::vector<std::set<std::string>> open_objects;

  nlohmann::json::parser_callback_t callback() {
    return [this](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
      using E = nlohmann::json::parse_event_t;
      if (event == E::object_start) {
        open_objects.emplace_back();
      } else if (event == E::object_end) {
        if (!open_objects.empty()) open_objects.pop_back();
      } else if (event == E::key && !open_objects.empty() && first.empty() && parsed.is_string()) {
        if (!open_objects.back().insert(parsed.get<std::string>()).second) first = parsed.get<std::string>();
      }
      return true;
    };
  }
};

}  // namespace cdna::reference
