// main() of the property binaries that have no main of their own: `--shard I/N` (tools/shard.hpp)
// becomes GoogleTest's GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS, then the tests run as gtest_main runs
// them.
#include <gtest/gtest.h>

#include <iostream>
#include <stdexcept>

#include "tools/shard.hpp"

int main(int argc, char** argv) {
  try {
    cdna::tools::apply_shard_argument(argc, argv);
  } catch (const std::invalid_argument& e) {
    std::cerr << argv[0] << ": error: " << e.what() << "\n";
    return 2;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
