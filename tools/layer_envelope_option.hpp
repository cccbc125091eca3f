// `--layer-envelope affine|ball` (docs/decode-bounds.md §15, "Affine forms or balls"), shared by
// `decode --layer-checks` and `trace --profile`: the value type of the per-layer checks'
// enclosures. `needs` is the option it only makes sense with (refused without it, exit 2).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "reference/decode/envelope.hpp"

namespace cdna::tools {

inline CLI::Option* add_layer_envelope_option(CLI::App* app, std::string& value, CLI::Option* needs) {
  return app
      ->add_option("--layer-envelope", value,
                   "With " + needs->get_name() +
                       ", the per-layer checks' enclosures: affine (affine forms, the tighter; ~2 us per weight and "
                       "position at H 2048) or ball (componentwise balls, two double GEMVs per weight matrix; wider, "
                       "still one layer's roundings; docs/decode-bounds.md section 15)")
      ->check(CLI::IsMember({"affine", "ball"}))
      ->needs(needs)
      ->capture_default_str();
}

// The option's value as the method of the enclosures (the option's check admits only these two).
inline reference::EnvelopeMethod layer_envelope_method(const std::string& value) {
  return value == "ball" ? reference::EnvelopeMethod::ball : reference::EnvelopeMethod::affine;
}

}  // namespace cdna::tools
