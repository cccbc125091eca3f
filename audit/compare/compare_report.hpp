// What `cdna-verify compare` prints and writes (docs/compare.md): the table on stdout and
// compare.json.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "audit/compare/compare_run.hpp"

namespace cdna::audit {

// The stdout table: one line per problem and mode, the ULP histogram of O (and LSE) over every
// compared problem, NaN/inf disagreements with their first sites, the claims held / broken with
// the smallest breaking problem and its shrunk shape, and the outcome line.
std::string compare_table(const CompareResult& r);

// "HELD: ...", "BROKEN: ...", "NOTHING COMPARED: ..." (one line).
std::string compare_outcome_line(const CompareResult& r);

nlohmann::json compare_json(const CompareResult& r);

// <dir>/compare.json, written atomically (audit/output/atomic_file.hpp). Throws std::runtime_error
// naming the path on failure.
void write_compare_json(const CompareResult& r, const std::filesystem::path& dir);

}  // namespace cdna::audit
