// --shard I/N and --allow-empty-shard of `audit` and `golden verify` (audit/cases/shard.hpp; docs/ci.md,
// "Shards and merged reports").
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <stdexcept>
#include <string>

#include "audit/cases/shard.hpp"

namespace cdna::tools {

struct ShardOption {
  std::string text;          // "I/N" as given; empty: no sharding
  bool allow_empty = false;  // --allow-empty-shard

  // nullopt without --shard; throws std::invalid_argument (one line) on a bad value, and for
  // --allow-empty-shard without --shard (a permission for a shard that owns nothing, meaningless
  // for a whole run: accepting it would let a typo in a CI script pass unnoticed).
  std::optional<audit::ShardSpec> spec() const {
    if (text.empty()) {
      if (allow_empty) throw std::invalid_argument("--allow-empty-shard is given without --shard I/N; it applies to a shard only");
      return std::nullopt;
    }
    return audit::ShardSpec::parse(text);
  }
};

inline void add_shard_options(CLI::App* cmd, ShardOption& shard, const std::string& what) {
  cmd->add_option("--shard", shard.text,
                  "I/N: run shard I (1..N) of N only: the " + what +
                      " whose FNV-1a 64-bit hash of the case id is I-1 mod N (the same case always lands in the same "
                      "shard, whatever --cases; docs/ci.md)");
  cmd->add_flag("--allow-empty-shard", shard.allow_empty,
                "With --shard: a shard that owns no case (or judges none of its cases) exits 0 instead of 2; its "
                "report still says NOTHING JUDGED (for CI fleets with more shards than cases)");
}

}  // namespace cdna::tools
