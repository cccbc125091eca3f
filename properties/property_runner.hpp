// Glue between RapidCheck and the property checks: draws a case, discards (and counts) cases
// the kernel rejects after confirming that the launcher refuses them, runs the check, and keeps
// the last failing case of each test so that the test's end writes it out as a regression file
// (the last failing evaluation of a RapidCheck run is the shrunk counterexample).
#pragma once

#include <optional>
#include <string>

#include "properties/checks.hpp"
#include "properties/generators.hpp"

namespace cdna::properties {

// Runs one RapidCheck evaluation of `property` (a name of all_checks()) on a case of `spec`,
// with the kernel under test (kernel_under_test.hpp: ours by default) on a shared simulator;
// through an adapter, `spec` is biased to the kernel's features (CaseSpec::kernel). Call inside
// a RapidCheck property.
void evaluate_property(const std::string& property, const CaseSpec& spec);

// Why `property` cannot be judged for the kernel under test (one line), or nullopt: its code
// objects are absent (a peer folder), or the property needs what the adapter path lacks
// (strided layouts; GQA). Throws std::invalid_argument for a bad CDNA_PROPERTY_* variable.
std::optional<std::string> skip_reason(const std::string& property);

// The body of one property test: prints which kernel runs, skips (GTEST_SKIP, with the reason)
// what skip_reason names, else checks `property` with RapidCheck (RC_PARAMS) on cases of `spec`.
void check_property(const std::string& property, const CaseSpec& spec);

// Registers the gtest listener that prints each property test's counts (cases judged, cases
// rejected by the kernel and why) and writes the recorded failing case of a failed test to
// regression_dir(). Call once from main before RUN_ALL_TESTS.
void install_property_listener();

}  // namespace cdna::properties
