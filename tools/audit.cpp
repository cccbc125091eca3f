#include "tools/audit.hpp"
#include "tools/progress.hpp"
#include "tools/atomic_file.hpp"
#include "tools/audit_json.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <mutex>
#include <numeric>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "adapters/kernel_adapter.hpp"
#include "device/attention_launcher.hpp"
#include "device/hip_executor.hpp"
#include "golden/digest.hpp"
#include "reference/profiles.hpp"
#include "reference/sampled_compare.hpp"
#include "tools/audit_production_cases.hpp"
#include "adapters/code_object_mode.hpp"
#include "tools/case_jobs.hpp"
#include "tools/plots.hpp"
#include "tools/report_html.hpp"
#include "tools/rounding_audit.hpp"
#include "tools/shape_format.hpp"

namespace cdna::tools {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

CaseResult base_row(const AuditCase& c, std::size_t position) {
  CaseResult r;
  r.id = c.id;
  r.description = c.description;
  r.mask = std::string(reference::to_string(c.problem.mask));
  r.shape = c.problem.shape;
  r.scale = c.problem.scale;
  r.seed = c.seed;
  r.mode = "-";
  r.position = position;
  return r;
}

// Why `adapter` cannot take case `c` (one line), or nullopt. Varlen and paged problems go
// through our kernel's varlen launcher; a peer kernel is run through its adapter, whose
// interface has dense problems of the base definition only.
std::optional<std::string> case_unsupported_reason(const adapters::KernelAdapter& adapter, const AuditCase& c,
                                                   numerics::Rounding mode) {
  const bool ours = adapter.name() == "attention-fwd";
  if (c.varlen) {
    if (!ours) return adapter.name() + " is run through its adapter, which takes no varlen or paged problem";
    return device::attention_unsupported_reason(*c.varlen);
  }
  if (auto why = adapter.unsupported_reason(c.problem, mode)) return why;
  if (auto feature = reference::extended_feature(c.problem); feature && !ours)
    return adapter.name() + " declares no " + *feature + " (its adapter takes the base definition only)";
  return std::nullopt;
}

std::string fmt(double x, int precision = 3) {
  std::ostringstream o;
  o << std::setprecision(precision) << x;
  return o.str();
}


}  // namespace

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::Pass: return "pass";
    case Verdict::Fail: return "FAIL";
    case Verdict::Rejected: return "rejected";
  }
  return "?";
}

std::string_view to_string(AuditOutcome o) {
  switch (o) {
    case AuditOutcome::Pass: return "pass";
    case AuditOutcome::Fail: return "fail";
    case AuditOutcome::NothingJudged: return "nothing_judged";
  }
  return "?";
}

int AuditResult::count(Verdict v) const {
  int n = 0;
  for (const auto& r : rows) n += r.verdict == v;
  return n;
}

AuditCounts AuditResult::counts() const {
  AuditCounts c;
  for (const auto& r : rows) {
    c.cases_passed += r.verdict == Verdict::Pass;
    c.cases_failed += r.verdict == Verdict::Fail;
    c.cases_rejected += r.verdict == Verdict::Rejected;
    if (!r.compared) continue;
    c.cases_judged += r.comparison.judged();
    c.cases_sampled += r.comparison.judged() && r.rows_total > 0;
    c.o_judged += r.comparison.o_judged;
    c.lse_judged += r.comparison.lse_judged;
    c.convention_rows += r.comparison.convention_rows;
    c.cases_with_convention_rows += r.comparison.convention_rows > 0;
  }
  return c;
}

AuditOutcome AuditResult::outcome() const {
  const AuditCounts c = counts();
  const int decode_failed = decode ? decode->count(DecodeOutcome::Fail) : 0;
  const int decode_passed = decode ? decode->count(DecodeOutcome::Pass) : 0;
  if (c.cases_failed > 0 || decode_failed > 0) return AuditOutcome::Fail;
  return c.cases_judged > 0 || decode_passed > 0 ? AuditOutcome::Pass : AuditOutcome::NothingJudged;
}

std::string AuditResult::nothing_judged_reason() const {
  if (outcome() != AuditOutcome::NothingJudged) return "";
  if (rows.empty() && (!decode || decode->rows.empty())) return "nothing judged: no case matched";
  if (rows.empty())
    return "nothing judged: no attention case ran, and no token was decided in the " +
           std::to_string(decode->rows.size()) + " decode run(s)";
  const AuditCounts c = counts();
  return "nothing judged: no kernel output was judged; of " + std::to_string(rows.size()) + " matched case(s), " +
         std::to_string(c.cases_rejected) + " rejected (outside the kernel's features) and " +
         std::to_string(c.cases_passed) + " only checked that the kernel refuses them";
}

std::string outcome_line(const AuditResult& result) {
  const AuditCounts c = result.counts();
  const AuditOutcome o = result.outcome();
  std::string line = o == AuditOutcome::Pass ? "PASS" : o == AuditOutcome::Fail ? "FAIL" : "NOTHING JUDGED";
  if (result.rows.empty() && result.decode) {
    const DecodeAuditResult& d = *result.decode;
    return line + ": decode only: " + std::to_string(d.rows.size()) + " run(s), " +
           std::to_string(d.count(DecodeOutcome::Pass)) + " passed, " + std::to_string(d.count(DecodeOutcome::Fail)) +
           " failed, " + std::to_string(d.count(DecodeOutcome::NothingJudged)) + " nothing judged";
  }
  line += ": " + std::to_string(c.cases_judged) + " case(s) judged (" + std::to_string(c.o_judged) +
          " O elements, " + std::to_string(c.lse_judged) + " LSE values), " + std::to_string(c.cases_failed) +
          " failed, " + std::to_string(c.cases_rejected) + " rejected";
  if (c.cases_sampled > 0)
    line += "; " + std::to_string(c.cases_sampled) + " of the judged case(s) sampled (query rows judged exactly on a " +
            "seeded sample only, docs/pass-rule.md \"Production cases\")";
  if (result.decode)
    line += "; decode: " + std::to_string(result.decode->rows.size()) + " run(s), " +
            std::to_string(result.decode->count(DecodeOutcome::Pass)) + " passed, " +
            std::to_string(result.decode->count(DecodeOutcome::Fail)) + " failed, " +
            std::to_string(result.decode->count(DecodeOutcome::NothingJudged)) + " nothing judged";
  return line;
}

namespace {

// One worker's view of the audit: its executor and callbacks, its own adapter (loaded with the
// same code objects as the first; adapters keep loaded state and say nothing of threads) and its
// own cache of our kernel's code-object bytes for the varlen launcher.
struct CaseRunner {
  const AuditWorker* worker = nullptr;
  std::unique_ptr<adapters::KernelAdapter> adapter;
  std::map<numerics::Rounding, std::filesystem::path> code_paths;  // of our kernel, per mode
  std::map<numerics::Rounding, std::vector<std::byte>> code_bytes;  // read when a varlen case runs

  // One run of case `c` (or of its twin) in `mode`: dense through the adapter, varlen through
  // our kernel's varlen launcher (O [rows_q, Hq, Dv], LSE [Hq, rows_q]).
  device::AttentionOutput run(const AuditCase& c, bool twin, numerics::Rounding mode) {
    if (!c.varlen) return adapter->run(*worker->executor, twin ? *c.twin : c.problem, mode);
    auto& bytes = code_bytes[mode];
    if (bytes.empty()) bytes = device::read_file(code_paths.at(mode), "attention code object");
    return device::run_attention_varlen(*worker->executor, bytes, twin ? *c.varlen_twin : *c.varlen);
  }
};

// A runner for `worker` with the adapter of `options` loaded in every mode; the code objects it
// loaded go to `loaded` when given. Throws std::runtime_error (one line) for a bad code object,
// or one built for another mode: bad input, not a failing case.
CaseRunner make_runner(const AuditOptions& options, const AuditWorker& worker, std::vector<AuditedCodeObject>* loaded) {
  CaseRunner runner;
  runner.worker = &worker;
  runner.adapter = adapters::make_adapter(options.kernel);
  for (numerics::Rounding mode : options.modes) {
    auto it = options.code_objects.find(mode);
    const auto source = it != options.code_objects.end() ? it->second : options.code_object_source;
    for (const auto& l : runner.adapter->load(mode, source)) {
      if (loaded)
        loaded->push_back({l.mode, l.path, l.mode_recorded, golden::sha256_hex(device::read_file(l.path, "code object"))});
      runner.code_paths[mode] = l.path;
    }
  }
  return runner;
}

// The rows of case `c` (one per mode, or one row "-" when it is rejected before any mode runs),
// each passed to `row_done` as it is finished. The oracle runs once for the case, on
// `oracle_threads` threads. A kernel run or comparison that throws is a failed row; the oracle
// throwing ends the case (and the audit) with its error.
std::vector<CaseResult> audit_case(const AuditOptions& options, const reference::Profile& profile, CaseRunner& runner,
                                   const AuditCase& c, std::size_t position,
                                   const std::function<void(const CaseResult&)>& row_done) {
  const AuditWorker& worker = *runner.worker;
  const adapters::KernelAdapter& adapter = *runner.adapter;
  const bool lse_given = adapter.features().writes_lse;
  std::vector<CaseResult> rows;
  // Features are the same in every mode but for which code objects were found; the first mode speaks for all.
  auto why = case_unsupported_reason(adapter, c, options.modes.front());
  // Varlen outputs are judged under the definition's conventions only (as golden files are).
  if (!why && c.varlen && profile.name != "ours")
    why = "a varlen case is judged under the profile 'ours' only, not '" + std::string(profile.name) + "'";
  if (!why && c.sample_rows > 0 && profile.name != "ours")
    why = "a sampled production case is judged under the profile 'ours' only, not '" + std::string(profile.name) + "'";
  if (c.expect_rejection || why || !c.unsupported_feature.empty()) {
    CaseResult r = base_row(c, position);
    if (c.expect_rejection) {
      r.verdict = why ? Verdict::Pass : Verdict::Fail;
      r.note = why ? "rejected as required: " + *why : "the kernel accepts a problem it must reject";
    } else {
      r.verdict = Verdict::Rejected;
      r.note = why ? *why : c.unsupported_feature;
    }
    row_done(r);
    rows.push_back(std::move(r));
    return rows;
  }

  const auto t_oracle = Clock::now();
  reference::ExactOptions exact_options;
  exact_options.threads = options.oracle_threads;
  // A production case: the oracle on its seeded sample of rows only (reference/sampled_compare.hpp).
  reference::ExactSample sample;
  reference::AttentionResult exact;
  if (c.sample_rows > 0) {
    if (options.progress)
      *options.progress << "audit: " << c.id << ": the MPFR oracle on " << c.sample_rows
                        << " seeded query rows per head (of " << c.problem.shape.seqlen_q << ")\n";
    sample = reference::exact_sample(c.problem, c.sample_rows, c.seed);
  } else {
    exact = c.varlen ? reference::varlen_forward_exact(*c.varlen, exact_options)
                     : reference::attention_forward_exact_with(c.problem, exact_options);
  }
  const double oracle_seconds = seconds_since(t_oracle);

  for (numerics::Rounding mode : options.modes) {
    CaseResult r = base_row(c, position);
    r.mode = std::string(numerics::to_string(mode));
    r.oracle_seconds = mode == options.modes.front() ? oracle_seconds : 0.0;
    const auto t_kernel = Clock::now();
    if (c.sample_rows > 0 && options.progress)  // minutes long: the dispatch's own lines follow
      *options.progress << "audit: " << c.id << " " << r.mode << ": the kernel on " << shape_text(c.problem.shape) << "\n";
    try {
      const device::AttentionOutput out = runner.run(c, false, mode);
      r.kernel_seconds = seconds_since(t_kernel);
      if (worker.wave_instructions) r.wave_instructions = worker.wave_instructions();
      std::string sampling;
      if (c.sample_rows > 0) {
        const reference::SampledComparison sc =
            reference::compare_sampled(c.problem, sample, out.o, out.lse, mode, lse_given);
        r.comparison = sc.comparison;
        r.o_sums = o_error_sums(sc.o_sampled, sc.exact_o_sampled);
        r.rows_total = sc.rows_total;
        r.rows_judged = sc.rows_judged;
        sampling = sc.summary();
      } else {
        r.comparison = c.varlen ? reference::compare_varlen(*c.varlen, exact, out.o, out.lse, mode, lse_given)
                                : reference::compare_with_profile(profile, c.problem, exact, out.o, out.lse, mode, lse_given);
        r.o_sums = o_error_sums(out.o, exact.o);
      }
      r.compared = true;
      std::string facts = c.exact_facts ? c.exact_facts(widen(out)) : "";
      if (facts.empty() && (c.twin || c.varlen_twin)) {
        const std::string d = bitwise_difference(out, runner.run(c, true, mode));
        if (!d.empty()) facts = "not equal to its twin run: " + d;
      }
      r.verdict = r.comparison.pass() && facts.empty() ? Verdict::Pass : Verdict::Fail;
      r.note = !r.comparison.first_failure.empty() ? r.comparison.first_failure : facts;
      if (!sampling.empty()) r.note = r.note.empty() ? sampling : r.note + "; " + sampling;
    } catch (const std::exception& e) {
      r.kernel_seconds = seconds_since(t_kernel);
      r.verdict = Verdict::Fail;
      r.note = e.what();
    }
    if (worker.hazards) {
      CaseHazards h = worker.hazards();
      r.hazards = h.summary;
      r.hazard_sites = std::move(h.sites);
      if (!h.failure.empty()) {
        // The figures stay those of the run as written; the verdict cannot be a pass.
        r.note = h.failure + (r.verdict == Verdict::Pass ? "; as written the output passes the pass rule"
                                                         : "; as written: " + r.note);
        r.verdict = Verdict::Fail;
      }
    }
    row_done(r);
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace

AuditResult run_audit(const AuditOptions& options, device::Executor& executor,
                      const std::function<std::uint64_t()>& wave_instructions,
                      const std::function<CaseHazards()>& hazards) {
  return run_audit(options, std::vector<AuditWorker>{{&executor, wave_instructions, hazards}});
}

AuditResult run_audit(const AuditOptions& options, const std::vector<AuditWorker>& workers) {
  if (workers.empty()) throw std::invalid_argument("run_audit: no worker (at least one executor is needed)");
  const auto t_start = Clock::now();
  AuditResult result;
  result.executor = workers.front().executor->name();
  result.build_hip = device::build_hip();

  std::vector<AuditCase> cases;
  if (options.matrix) cases = default_matrix();
  if (options.handed) {
    auto h = handed_cases();
    cases.insert(cases.end(), std::make_move_iterator(h.begin()), std::make_move_iterator(h.end()));
  }
  if (options.tiles) {
    auto t = tile_cases();
    cases.insert(cases.end(), std::make_move_iterator(t.begin()), std::make_move_iterator(t.end()));
  }
  if (options.production) {
    auto p = production_cases(options.kernel);
    cases.insert(cases.end(), std::make_move_iterator(p.begin()), std::make_move_iterator(p.end()));
  }
  if (!options.case_filter.empty()) {
    const std::regex re(options.case_filter);
    std::erase_if(cases, [&](const AuditCase& c) { return !std::regex_search(c.id, re); });
  }
  result.case_filter = options.case_filter;
  // Positions in the unsharded enumeration, then this shard's cases only.
  std::map<std::string, std::size_t> position;
  for (std::size_t i = 0; i < cases.size(); ++i) position.emplace(cases[i].id, i);
  if (options.shard) {
    ShardInfo info;
    info.spec = *options.shard;
    info.cases_matched = static_cast<int>(cases.size());
    std::erase_if(cases, [&](const AuditCase& c) { return !options.shard->contains(c.id); });
    for (const AuditCase& c : cases) info.owned.push_back(c.id);
    result.shard = std::move(info);
  }

  const reference::Profile& profile = reference::find_profile(options.profile);
  result.profile = std::string(profile.name);
  // Every runner before any case runs: a bad code object stops the audit here, with its one line.
  std::vector<CaseRunner> runners;
  for (const AuditWorker& w : workers) runners.push_back(make_runner(options, w, runners.empty() ? &result.code_objects : nullptr));
  result.kernel = runners.front().adapter->name();

  const std::size_t total = cases.size() * options.modes.size();
  std::size_t done = 0;
  std::mutex progress_mutex;  // `done` and the progress lines, shared by the workers
  // "audit: case 12 of 124 (C05 RTNE), 0:31 elapsed, ~2:10 left: pass max|err| ... (0.42 s)".
  Progress line(options.progress, "audit", "case", total);
  auto progress = [&](const CaseResult& r) {
    std::string detail(to_string(r.verdict));
    if (r.compared) detail += "  max|err| " + fmt(r.comparison.max_abs_err_o);
    detail += "  (" + fmt(r.kernel_seconds + r.oracle_seconds, 2) + " s)";
    if (!r.note.empty() && (r.verdict != Verdict::Pass || r.rows_total > 0)) detail += "  " + r.note;
    const std::lock_guard<std::mutex> lock(progress_mutex);
    // A rejected case stands for all its modes.
    done += r.mode == "-" ? options.modes.size() : 1;
    line.step(done, r.id + " " + r.mode, detail);
  };

  // Several workers take the costliest cases first (score elements, B*Hq*Sq*Sk*D): a long case
  // taken last would run alone at the end. One worker keeps the case order.
  std::vector<std::size_t> order(cases.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  if (runners.size() > 1) {
    const auto cost = [&](std::size_t i) {
      const auto& s = cases[i].problem.shape;
      return static_cast<double>(s.batch) * s.heads_q * s.seqlen_q * s.seqlen_k * s.head_dim;
    };
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return cost(a) > cost(b); });
  }
  // Each case's rows in its slot, so the reports keep the case order whatever ran first.
  std::vector<std::vector<CaseResult>> slots(cases.size());
  for_each_index(cases.size(), static_cast<unsigned>(runners.size()), [&](unsigned w, std::size_t k) {
    const std::size_t i = order[k];
    slots[i] = audit_case(options, profile, runners[w], cases[i], position.at(cases[i].id), progress);
  });
  for (auto& rows : slots)
    for (auto& r : rows) result.rows.push_back(std::move(r));
  result.seconds = seconds_since(t_start);
  return result;
}

namespace {
// " (executor settings: k=v ...)" or "" when there are none.
std::string settings_text(const AuditResult& result) {
  if (result.executor_settings.empty()) return "";
  std::string t = " (executor settings:";
  for (const auto& [k, v] : result.executor_settings) t += " " + k + "=" + v;
  return t + ")";
}
}  // namespace

std::string convention_line(const AuditCounts& c) {
  return std::to_string(c.convention_rows) + " failing row(s) in " + std::to_string(c.cases_with_convention_rows) +
         " case(s) are special rows (no visible key, NaN score, +inf score: docs/semantics.md §5) where the kernel "
         "follows another convention than the definition; still failures";
}

// The cases the kernel rejected for a feature it does not take (not the required rejections of
// C13): their features were judged on the reference only — the definition's facts checked on the
// oracle by reference/attention_features_test and tools/audit_cases_test, the golden files
// X04–X08 and `cdna-verify mutants --features` — never on this kernel. "" if there is none.
std::string reference_only_line(const AuditResult& result) {
  std::string ids;
  for (const auto& r : result.rows) {
    if (r.verdict != Verdict::Rejected) continue;
    if (ids.find(r.id + " ") == std::string::npos && ids.find(r.id + ",") == std::string::npos) {
      ids += (ids.empty() ? "" : ", ") + r.id + " (" + r.note + ")";
    }
  }
  if (ids.empty()) return "";
  return "not run on this kernel, judged on the reference only (oracle facts: reference/attention_features_test, "
         "tools/audit_cases_test; golden files X04-X08; mutants --features): " + ids;
}

std::string shard_line(const AuditResult& result) {
  if (!result.shard) return "";
  const ShardInfo& s = *result.shard;
  const std::string n = "/" + std::to_string(s.spec.count);
  std::string ids;
  for (const auto& id : s.owned) ids += (ids.empty() ? "" : ", ") + id;
  return "shard " + s.spec.text() + ": owns " + std::to_string(s.owned.size()) + " of the " +
         std::to_string(s.cases_matched) + " matched case(s)" + (ids.empty() ? "" : " (" + ids + ")") +
         "; the mutation kill matrix runs in shard " + std::to_string(s.mutation_shard) + n +
         ", the decode kill matrix in shard " + std::to_string(s.decode_mutation_shard) + n +
         "; `cdna-verify report merge` joins the shards (docs/ci.md)";
}

std::string summary_table(const AuditResult& result) {
  std::ostringstream o;
  o << std::left << std::setw(34) << "case" << std::setw(6) << "mode" << std::setw(11) << "executor" << std::right
    << std::setw(11) << "max|err|" << std::setw(9) << "ULP" << std::setw(11) << "LSE err" << std::setw(9)
    << "err/bnd" << "  verdict\n";
  for (const auto& r : result.rows) {
    o << std::left << std::setw(34) << r.id << std::setw(6) << r.mode << std::setw(11) << result.executor.substr(0, 10)
      << std::right;
    if (r.compared) {
      o << std::setw(11) << fmt(r.comparison.max_abs_err_o) << std::setw(9) << fmt(r.comparison.max_ulp_err_o, 2)
        << std::setw(11) << fmt(r.comparison.max_abs_err_lse) << std::setw(9)
        << fmt(std::max(r.comparison.max_err_to_bound_o, r.comparison.max_err_to_bound_lse), 2);
    } else {
      o << std::setw(11) << "-" << std::setw(9) << "-" << std::setw(11) << "-" << std::setw(9) << "-";
    }
    o << "  " << to_string(r.verdict);
    if ((r.verdict != Verdict::Pass || r.rows_total > 0) && !r.note.empty()) o << ": " << r.note;
    o << "\n";
  }
  const CaseResult* largest = nullptr;
  std::uint64_t total_instructions = 0;
  double total_kernel_seconds = 0;
  for (const auto& r : result.rows) {
    total_instructions += r.wave_instructions;
    total_kernel_seconds += r.kernel_seconds;
    if (r.wave_instructions > 0 && (!largest || r.wave_instructions > largest->wave_instructions)) largest = &r;
  }
  if (largest) {
    o << "simulator: " << total_instructions << " wave-instructions in " << fmt(total_kernel_seconds, 3)
      << " s of kernel runs; largest case " << largest->id << " " << largest->mode << ": "
      << largest->wave_instructions << " wave-instructions in " << fmt(largest->kernel_seconds, 3) << " s ("
      << fmt(static_cast<double>(largest->wave_instructions) / largest->kernel_seconds / 1e6, 3) << " M/s)\n";
  }
  o << result.count(Verdict::Pass) << " passed, " << result.count(Verdict::Fail) << " failed, "
    << result.count(Verdict::Rejected) << " rejected (not run: outside the kernel's features) in "
    << fmt(result.seconds, 3) << " s, kernel " << result.kernel << " (profile " << result.profile << ") on "
    << result.executor << settings_text(result) << "\n"
    << outcome_line(result) << "\n";
  if (const AuditCounts c = result.counts(); c.convention_rows > 0) o << convention_line(c) << "\n";
  if (const std::string ref = reference_only_line(result); !ref.empty()) o << ref << "\n";
  return o.str();
}


void write_reports(const AuditResult& result, const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create report directory '" + dir.string() + "': " + ec.message());

  const AuditCounts counts = result.counts();
  write_atomically(dir / "report.json", audit_json(result).dump(2) + "\n");

  std::ostringstream md;
  md << "# cdna-verify audit\n\n**" << outcome_line(result) << "**";
  if (result.outcome() == AuditOutcome::NothingJudged) md << " (" << result.nothing_judged_reason() << ")";
  md << "\n\n";
  if (result.shard) md << "**" << shard_line(result) << ".**\n\n";
  if (counts.convention_rows > 0) md << "Convention failures: " << convention_line(counts) << ".\n\n";
  if (const std::string ref = reference_only_line(result); !ref.empty()) md << "Rejected features: " << ref << ".\n\n";
  for (const auto& c : result.code_objects) {
    if (!c.mode_recorded)
      md << adapters::unchecked_mode_notice(c.path, c.mode) << ".\n\n";
  }
  if (!result.executor_description.empty()) {
    md << "Executor description:";
    for (const auto& [k, v] : result.executor_description) md << " " << k << " `" << v << "`;";
    md << "\n\n";
  }
  md << "Kernel: `" << result.kernel << "`. Profile: `" << result.profile << "` (docs/profiles.md). Executor: `" << result.executor << "`" << settings_text(result)
     << ". Pass rule: docs/pass-rule.md (certified bound of docs/error-analysis.md, rel-RMS ≤ 2 × floor). "
     << result.count(Verdict::Pass) << " passed, " << result.count(Verdict::Fail) << " failed, "
     << result.count(Verdict::Rejected) << " rejected, " << fmt(result.seconds, 3) << " s.\n\n"
     << "| case | shape | mask | mode | max abs err | max ULP | LSE err | err/bound | verdict | note |\n"
     << "|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& r : result.rows) {
    md << "| " << r.id << " | " << shape_text(r.shape) << " | " << r.mask << " | " << r.mode << " | ";
    if (r.compared) {
      md << fmt(r.comparison.max_abs_err_o) << " | " << fmt(r.comparison.max_ulp_err_o, 2) << " | "
         << fmt(r.comparison.max_abs_err_lse) << " | "
         << fmt(std::max(r.comparison.max_err_to_bound_o, r.comparison.max_err_to_bound_lse), 2) << " | ";
    } else {
      md << "- | - | - | - | ";
    }
    std::string note = r.note;
    for (char& ch : note) if (ch == '|') ch = '/';
    md << to_string(r.verdict) << " | " << note << " |\n";
  }
  md << "\n## Rounding-mode audit\n\n";
  const std::vector<ModeAudit> per_mode = rounding_audit(result);
  if (per_mode.empty()) {
    md << "No compared case.\n";
  } else {
    // |err| bins in bf16 ULPs of the exact value; bias and RMS over the same elements.
    md << "O error pooled per mode; ULPs are bf16 ULPs of the exact value.\n\n| mode | cases | elements | bias (ULP) | "
          "RMS (ULP) | rel-RMS | floor rel-RMS | rel-RMS / floor | max ULP |";
    for (const auto& l : abs_ulp_bin_labels()) md << " \\|err\\| " << l << " |";
    md << "\n|";
    for (int col = 0; col < 9 + static_cast<int>(abs_ulp_bin_labels().size()); ++col) md << "---|";
    md << "\n";
    for (const ModeAudit& m : per_mode) {
      md << "| " << m.mode << " | " << m.cases << " | " << m.elements << " | " << fmt(m.mean_ulp_err) << " | "
         << fmt(m.rms_ulp_err) << " | " << fmt(m.rel_rms_err) << " | " << fmt(m.floor_rel_rms) << " | "
         << fmt(m.rms_to_floor) << " | " << fmt(m.max_ulp_err) << " |";
      for (auto n : m.abs_histogram) md << " " << n << " |";
      md << "\n";
    }
  }
  md << "\n## Mutation testing: the kill matrix\n\n";
  if (result.mutation) {
    const MutantsResult& m = *result.mutation;
    md << m.mutants() << " kernel mutants (one deliberate mistake each, RTNE; docs/mutation-testing.md) on "
       << m.cases.size() << " fixed cases, " << fmt(m.seconds, 3) << " s: " << m.killed_by_ours() << " of "
       << m.mutants() << " killed by our verdict. ";
    md << kill_matrix_markdown(m);
  } else {
    md << "Not run (" << result.mutation_not_run << ").\n";
  }
  if (result.decode)
    md << decode_markdown(*result.decode);
  else
    md << "\n## Decode\n\nNot run (" << result.decode_not_run << ").\n";
  write_atomically(dir / "report.md", md.str());
  write_atomically(dir / "report.html", report_html(result, Gnuplot(), &std::cerr));
}

}  // namespace cdna::tools
