// `report merge`'s engine: the reports of the N shards of one audit
// (`audit --shard I/N`) joined into the report.json, report.md and report.html the unsharded run
// writes, measured times excepted (docs/ci.md, "Shards and merged reports").
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "audit/report/audit_result.hpp"

namespace cdna::audit {

struct ShardReport {
  std::filesystem::path dir;  // the shard's report folder, named in errors
  AuditResult result;
};

// The unsharded run's result from its shards: rows back in the unsharded order (CaseResult and
// DecodeCaseResult position), the kill matrices from the shards that ran them, seconds the
// longest shard's. Throws std::runtime_error with one line naming a folder unless the shards
// are shards 1..N of one run: each sharded, the same N, each index once, the same version,
// kernel, executor, executor settings, profile, modes, code objects (SHA-256), --set and --cases,
// no case in two shards, every matched case in one.
AuditResult merge_shards(const std::vector<ShardReport>& shards);


}  // namespace cdna::audit
