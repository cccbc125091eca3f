// `--shard I/N` of the property binaries: tools::apply_shard_argument turns it into GoogleTest's
// GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS (tools/shard.hpp). Call first in main, before
// ::testing::InitGoogleTest.
#pragma once

#include <iostream>
#include <stdexcept>

#include "tools/shard.hpp"

namespace cdna::properties {

// Takes --shard out of argv. Returns false after printing one error line (argv[0]: error: ...)
// on a bad value; main then exits 2 (bad input).
inline bool take_shard_argument(int& argc, char** argv) {
  try {
    tools::apply_shard_argument(argc, argv);
    return true;
  } catch (const std::invalid_argument& e) {
    std::cerr << argv[0] << ": error: " << e.what() << "\n";
    return false;
  }
}

}  // namespace cdna::properties
