// `--shard I/N` of the property binaries: audit::apply_shard_argument turns it into GoogleTest's
// GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS (audit/cases/shard.hpp). Call first in main, before
// ::testing::InitGoogleTest.
#pragma once

#include <iostream>
#include <stdexcept>

#include <gtest/gtest.h>

#include "audit/cases/shard.hpp"

namespace cdna::properties {

// --allow-empty-shard was given (take_shard_argument): a run of zero tests exits 0, not 2.
inline bool& empty_shard_allowed() {
  static bool allowed = false;
  return allowed;
}

// Takes --shard and --allow-empty-shard out of argv. Returns false after printing one error line (argv[0]: error: ...)
// on a bad value; main then exits 2 (bad input).
inline bool take_shard_argument(int& argc, char** argv) {
  try {
    empty_shard_allowed() = audit::apply_shard_argument(argc, argv);
    return true;
  } catch (const std::invalid_argument& e) {
    std::cerr << argv[0] << ": error: " << e.what() << "\n";
    return false;
  }
}

// The exit code of RUN_ALL_TESTS, unless no test ran (a shard that owns no test, a filter that
// matches none): nothing was judged, which is not a pass (exit 2) unless --allow-empty-shard was
// given, as a CI fleet with a fixed shard count needs (docs/ci.md "Shards and merged reports").
inline int nothing_ran_is_not_a_pass(int rc, const char* program) {
  if (::testing::UnitTest::GetInstance()->test_to_run_count() > 0) return rc;
  if (empty_shard_allowed()) {
    std::cerr << program << ": note: no test ran (this shard owns none); --allow-empty-shard: exit 0\n";
    return rc;
  }
  std::cerr << program << ": error: no test ran (the shard owns none, or the filter matched none): nothing judged "
            << "(--allow-empty-shard makes an empty shard exit 0)\n";
  return 2;
}

}  // namespace cdna::properties
