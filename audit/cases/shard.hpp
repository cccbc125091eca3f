// Shards: one run's cases split over N processes or machines (docs/ci.md, "Shards and merged
// reports"). A case belongs to shard 1 + (FNV-1a 64-bit hash of its case id) mod N, so the same
// case lands in the same shard whatever filter selects it, and every mode (and kernel) of a case
// goes with it. Shards are numbered 1..N as Jest and Playwright take `--shard I/N`; GoogleTest's
// own GTEST_SHARD_INDEX is 0-based.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cdna::audit {

// FNV-1a, 64 bits (offset basis 14695981039346656037, prime 1099511628211; Fowler, Noll and Vo,
// IETF draft-eastlake-fnv) over the bytes of `text`.
std::uint64_t fnv1a64(std::string_view text);

struct ShardSpec {
  int index = 1;  // 1-based, 1..count
  int count = 1;

  // "I/N" with integers 1 <= I <= N. Throws std::invalid_argument with one line naming `option`
  // and what is wrong, e.g. "--shard '0/3': I must be in 1..N".
  static ShardSpec parse(const std::string& text, const std::string& option = "--shard");
  // From GTEST_SHARD_INDEX (0-based) and GTEST_TOTAL_SHARDS as GoogleTest defines them: nullopt
  // if neither is set; throws std::invalid_argument (one line) if only one is set or either is
  // not an integer in range.
  static std::optional<ShardSpec> from_gtest_env();

  // The shard (1..count) that case `case_id` belongs to.
  static int of(std::string_view case_id, int count);
  bool contains(std::string_view case_id) const { return of(case_id, count) == index; }
  std::string text() const;  // "I/N"
};

// The pseudo case ids whose shard runs a whole-run part once: the mutation kill matrix and the
// decode kill matrix run in ShardSpec::of(kMutationKillMatrixId, N) and of(kDecodeKillMatrixId, N).
inline constexpr std::string_view kMutationKillMatrixId = "kill-matrix:mutation";
inline constexpr std::string_view kDecodeKillMatrixId = "kill-matrix:decode";

// For the GoogleTest binaries of properties/: removes "--shard I/N" (or "--shard=I/N") and
// "--allow-empty-shard" from argv and sets GTEST_SHARD_INDEX = I - 1 and GTEST_TOTAL_SHARDS = N,
// which InitGoogleTest then honours. Returns whether --allow-empty-shard was given. Call before
// ::testing::InitGoogleTest. Throws std::invalid_argument (one line) on a bad value, or if --shard
// is given while GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS name another shard.
bool apply_shard_argument(int& argc, char** argv);

}  // namespace cdna::audit
