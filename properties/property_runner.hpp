// Glue between RapidCheck and the property checks: draws a case, discards (and counts) cases
// the kernel rejects after confirming that the launcher refuses them, runs the check, and keeps
// the last failing case of each test so that the test's end writes it out as a regression file
// (the last failing evaluation of a RapidCheck run is the shrunk counterexample).
#pragma once

#include <string>

#include "properties/checks.hpp"
#include "properties/generators.hpp"

namespace cdna::properties {

// Runs one RapidCheck evaluation of `property` (a name of all_checks()) on a case of `spec`,
// with the correct kernel on a shared simulator. Call inside an RC_GTEST_PROP body.
void evaluate_property(const std::string& property, const CaseSpec& spec);

// Registers the gtest listener that prints each property test's counts (cases judged, cases
// rejected by the kernel and why) and writes the recorded failing case of a failed test to
// regression_dir(). Call once from main before RUN_ALL_TESTS.
void install_property_listener();

}  // namespace cdna::properties
