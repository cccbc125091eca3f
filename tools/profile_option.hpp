// `--profile NAME` (reference/attention/profiles.hpp, docs/profiles.md), shared by audit, compare and golden
// check: an unknown name is refused at parse time with one line listing the profiles (exit 2).
#pragma once

#include <CLI/CLI.hpp>

#include <stdexcept>
#include <string>

#include "reference/attention/profiles.hpp"

namespace cdna::tools {

inline CLI::Option* add_profile_option(CLI::App* app, std::string& name) {
  return app
      ->add_option("--profile", name,
                   "Peer conventions to judge under (docs/profiles.md): " + reference::profile_names() +
                       ". A profile changes only what rows without a visible key must hold (O, LSE) and how a "
                       "candidate's LSE is laid out; never the bound of ordinary rows")
      ->check(CLI::Validator(
          [](std::string& value) -> std::string {
            try {
              (void)reference::find_profile(value);
              return "";
            } catch (const std::invalid_argument& e) {
              return e.what();
            }
          },
          "PROFILE"))
      ->capture_default_str();
}

}  // namespace cdna::tools
