// `--junit FILE` of the property runner (attention_properties_test, feature_properties_test,
// decode_properties_test): one JUnit testcase per property (GoogleTest test) x kernel, classname
// "cdna-verify.property.<kernel>", name "<Suite>.<Test>", with RapidCheck's own counts (cases
// judged, cases discarded and why) in the testcase's system-out; written through audit/output/junit.hpp,
// validated against ci/junit.xsd (docs/ci.md "JUnit output"). GoogleTest's --gtest_output=xml is
// not valid against that schema (docs/ci.md says where it differs), hence this writer.
#pragma once

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <functional>
#include <string>
#include <utility>

namespace cdna::properties {

// Takes `--junit FILE` (or --junit=FILE) out of argv; call after ::testing::InitGoogleTest.
// Checks FILE before any test runs (audit/output/output_paths.hpp check_output_file) and registers the listener that records
// every test; `kernel_of` names the kernel a test runs (the classname's last part). Returns 0, or
// 2 after printing one line on stderr (no value, not writable).
int setup_junit(int& argc, char** argv, std::function<std::string(const ::testing::TestInfo&)> kernel_of);

// Writes the JUnit file (if --junit was given) after RUN_ALL_TESTS, whatever its result, and
// returns `rc` (RUN_ALL_TESTS's), or 2 if the file cannot be written (one line on stderr).
int finish_junit(int rc);

// As rc::detail::checkGTest (rapidcheck/gtest.h): runs `property` with the RC_PARAMS
// configuration, fails the current GoogleTest test with RapidCheck's message, and also records
// RapidCheck's counts for the JUnit file: generated cases that ran to a result (successes and the
// failing case; shrinking steps not counted) and discarded cases (RC_DISCARD, RC_PRE) by reason.
void check_gtest_counted(const rc::detail::Property& property);

template <typename Testable>
void check_counted(Testable&& testable) {
  check_gtest_counted(rc::detail::toProperty(std::forward<Testable>(testable)));
}

}  // namespace cdna::properties

// RC_GTEST_PROP (rapidcheck/gtest.h) with the counts recorded (check_counted).
#define CDNA_RC_GTEST_PROP(TestCase, Name, ArgList)                                          \
  void cdnaPropImpl_##TestCase##_##Name ArgList;                                             \
  TEST(TestCase, Name) { ::cdna::properties::check_counted(&cdnaPropImpl_##TestCase##_##Name); } \
  void cdnaPropImpl_##TestCase##_##Name ArgList
