// report.json of `cdna-verify audit`, both ways: the writer, and the reader `report merge` rebuilds
// an AuditResult with (rows with their comparison figures and rounding-audit sums, the mutation
// result, the decode result, hazard summaries, executor settings, code objects, shard), so that
// report.md and report.html can be written again from JSON alone (docs/ci.md, "Shards and merged
// reports").
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>

#include "audit/report/audit_result.hpp"

namespace cdna::audit {

// The content of report.json. A non-finite figure is written as the string "nan", "inf" or
// "-inf" (JSON has no such numbers).
nlohmann::json audit_json(const AuditResult& result);

// The AuditResult `j` was written from. Throws std::runtime_error (one line, no path: the caller
// names the file) if `j` is not an audit report of this version, lacks a field, or is not what
// audit_json writes for the result it holds (a field edited by hand: counts, outcome, a verdict
// against its counts, a mutation case unknown to this build).
AuditResult audit_from_json(const nlohmann::json& j);

// Reads <dir>/report.json with audit_from_json; errors name the file (one line).
AuditResult read_audit_report(const std::filesystem::path& dir);

}  // namespace cdna::audit
