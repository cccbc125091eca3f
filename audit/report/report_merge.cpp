#include "audit/report/report_merge.hpp"

#include <algorithm>
#include <iostream>
#include <map>
#include <set>
#include <stdexcept>

#include "audit/report/audit_json.hpp"
#include "audit/output/exit_codes.hpp"

namespace cdna::audit {
namespace {

std::string quoted(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

// The code objects as they must agree: mode, SHA-256 (paths may differ between machines).
std::vector<std::pair<std::string, std::string>> code_digests(const AuditResult& r) {
  std::vector<std::pair<std::string, std::string>> v;
  for (const auto& c : r.code_objects) v.emplace_back(c.mode, c.sha256);
  return v;
}

// One line if `b` is not of the same run as `a` (first differing property), else "".
std::string run_difference(const AuditResult& a, const AuditResult& b) {
  if (a.build_hip != b.build_hip) return "built with HIP " + b.build_hip + ", not " + a.build_hip;
  if (a.kernel != b.kernel) return "kernel " + b.kernel + ", not " + a.kernel;
  if (a.executor != b.executor) return "executor " + b.executor + ", not " + a.executor;
  if (a.profile != b.profile) return "profile " + b.profile + ", not " + a.profile;
  if (a.set != b.set) return "--set " + b.set + ", not " + a.set;
  if (a.case_filter != b.case_filter) return "--cases '" + b.case_filter + "', not '" + a.case_filter + "'";
  if (code_digests(a) != code_digests(b)) return "other modes or code objects (by SHA-256)";
  if (a.executor_settings != b.executor_settings) return "other executor settings";
  if (a.shard->cases_matched != b.shard->cases_matched)
    return std::to_string(b.shard->cases_matched) + " matched cases, not " + std::to_string(a.shard->cases_matched);
  if (a.shard->mutation_shard != b.shard->mutation_shard || a.shard->decode_mutation_shard != b.shard->decode_mutation_shard)
    return "other kill-matrix shards";
  return "";
}

// The executors' descriptions: a value all shards share as is; one that differs (another host
// CPU, driver or clock on another runner) as "shard 1/3: v1; shard 2/3: v2; ...".
device::Description merged_description(const std::map<int, const ShardReport*>& by_index) {
  device::Description merged = by_index.begin()->second->result.executor_description;
  for (auto& [key, value] : merged) {
    std::string per_shard;
    bool differ = false;
    for (const auto& [index, s] : by_index) {
      std::string v = "(none)";
      for (const auto& [k, x] : s->result.executor_description)
        if (k == key) v = x;
      differ = differ || v != value;
      per_shard += (per_shard.empty() ? "" : "; ") + s->result.shard->spec.text() + ": " + v;
    }
    if (differ) value = "shard " + per_shard;
  }
  return merged;
}

template <class Row>
void by_position(std::vector<Row>& rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const Row& x, const Row& y) { return x.position < y.position; });
}

}  // namespace

AuditResult merge_shards(const std::vector<ShardReport>& shards) {
  if (shards.empty()) throw std::runtime_error("report merge: no shard folder given");
  for (const auto& s : shards)
    if (!s.result.shard)
      throw std::runtime_error(quoted(s.dir) + " holds an unsharded report (audit without --shard); merge takes shards");
  const ShardReport& first = shards.front();
  const int n = first.result.shard->spec.count;
  std::map<int, const ShardReport*> by_index;
  std::map<std::string, const ShardReport*> owner;  // case id -> shard that ran it
  for (const auto& s : shards) {
    const ShardInfo& info = *s.result.shard;
    if (info.spec.count != n)
      throw std::runtime_error(quoted(s.dir) + " is shard " + info.spec.text() + ", but " + quoted(first.dir) + " is of " +
                               std::to_string(n) + " shards");
    if (const std::string d = run_difference(first.result, s.result); !d.empty())
      throw std::runtime_error(quoted(s.dir) + " is not of the same run as " + quoted(first.dir) + ": " + d);
    if (auto [it, fresh] = by_index.emplace(info.spec.index, &s); !fresh)
      throw std::runtime_error(quoted(s.dir) + " is shard " + info.spec.text() + " again (also " + quoted(it->second->dir) + ")");
    for (const auto& id : info.owned)
      if (auto [it, fresh] = owner.emplace(id, &s); !fresh)
        throw std::runtime_error(quoted(s.dir) + ": case " + id + " is also in " + quoted(it->second->dir));
  }
  for (int i = 1; i <= n; ++i)
    if (!by_index.contains(i)) {
      std::string given;
      for (const auto& [index, s] : by_index) given += (given.empty() ? "" : ", ") + quoted(s->dir) + " (" + std::to_string(index) + ")";
      throw std::runtime_error("shard " + std::to_string(i) + "/" + std::to_string(n) + " is missing; given: " + given);
    }
  if (static_cast<int>(owner.size()) != first.result.shard->cases_matched)
    throw std::runtime_error("the shards own " + std::to_string(owner.size()) + " cases, but the run matched " +
                             std::to_string(first.result.shard->cases_matched) + " (" + quoted(first.dir) + ")");

  AuditResult merged = first.result;
  merged.shard.reset();
  merged.rows.clear();
  merged.seconds = 0;
  merged.decode.reset();
  merged.executor_description = merged_description(by_index);
  const ShardReport& mutation_owner = *by_index.at(first.result.shard->mutation_shard);
  const ShardReport& decode_owner = *by_index.at(first.result.shard->decode_mutation_shard);
  merged.mutation = mutation_owner.result.mutation;
  merged.mutation_not_run = mutation_owner.result.mutation_not_run;
  merged.decode_not_run = decode_owner.result.decode_not_run;
  for (const auto& [index, s] : by_index) {
    const AuditResult& r = s->result;
    merged.rows.insert(merged.rows.end(), r.rows.begin(), r.rows.end());
    merged.seconds = std::max(merged.seconds, r.seconds);  // the shards ran side by side
    if (!r.decode) continue;
    if (!merged.decode) {
      merged.decode = DecodeAuditResult{};
      merged.decode->mutants_not_run = decode_owner.result.decode ? decode_owner.result.decode->mutants_not_run : "";
      if (decode_owner.result.decode) {
        merged.decode->mutants = decode_owner.result.decode->mutants;
        merged.decode->memory_model = decode_owner.result.decode->memory_model;
        merged.decode->control = decode_owner.result.decode->control;
      }
    }
    merged.decode->rows.insert(merged.decode->rows.end(), r.decode->rows.begin(), r.decode->rows.end());
    merged.decode->seconds = std::max(merged.decode->seconds, r.decode->seconds);
  }
  by_position(merged.rows);
  if (merged.decode) by_position(merged.decode->rows);
  // The unsharded run skips the kill matrix when it judged nothing (tools/audit_command.cpp).
  if (merged.outcome() == AuditOutcome::NothingJudged && merged.set != "decode") {
    merged.mutation.reset();
    merged.mutation_not_run = "the audit judged nothing";
  }
  return merged;
}

}  // namespace cdna::audit
