#include "audit/audit.hpp"
#include "audit/output/progress.hpp"

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
#include "reference/attention/profiles.hpp"
#include "reference/attention/sampled_compare.hpp"
#include "audit/cases/feature_cases.hpp"  // paged_decode_tile_cases
#include "audit/peer_tolerance.hpp"
#include "audit/cases/production_cases.hpp"
#include "adapters/code_object_mode.hpp"
#include "audit/run/case_jobs.hpp"
#include "audit/report/rounding_audit.hpp"
#include "audit/output/shape_format.hpp"

namespace cdna::audit {
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

// Why `adapter` cannot take case `c` (one line), or nullopt. Varlen and paged problems go through
// the adapter's varlen launch (adapters take none by default); a peer's adapter takes problems of
// the base definition only, dense or varlen.
std::optional<std::string> case_unsupported_reason(const adapters::KernelAdapter& adapter, const AuditCase& c,
                                                   numerics::Rounding mode) {
  const bool ours = adapter.name() == "attention-fwd";
  if (auto why = c.varlen ? adapter.varlen_unsupported_reason(*c.varlen, mode) : adapter.unsupported_reason(c.problem, mode))
    return why;
  if (auto feature = reference::extended_feature(c.varlen ? c.varlen->base : c.problem); feature && !ours)
    return adapter.name() + " declares no " + *feature + " (its adapter takes the base definition only)";
  return std::nullopt;
}


}  // namespace

namespace {

// One worker's view of the audit: its executor and callbacks and its own adapter (loaded with the
// same code objects as the first; adapters keep loaded state and say nothing of threads).
struct CaseRunner {
  const AuditWorker* worker = nullptr;
  std::unique_ptr<adapters::KernelAdapter> adapter;

  // One run of case `c` (or of its twin) in `mode` through the adapter: dense, or varlen
  // (O [rows_q, Hq, Dv], LSE [Hq, rows_q]).
  device::AttentionOutput run(const AuditCase& c, bool twin, numerics::Rounding mode) {
    if (!c.varlen) return adapter->run(*worker->executor, twin ? *c.twin : c.problem, mode);
    return adapter->run_varlen(*worker->executor, twin ? *c.varlen_twin : *c.varlen, mode);
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
    for (const auto& l : runner.adapter->load(mode, source))
      if (loaded)
        loaded->push_back({l.mode, l.path, l.mode_recorded, golden::sha256_hex(device::read_file(l.path, "code object"))});
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
  if (!why && c.varlen) {
    if (std::string refusal = reference::varlen_refusal(profile); !refusal.empty()) why = refusal;
  }
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
  // A production case: the oracle on its seeded sample of rows only (reference/attention/sampled_compare.hpp).
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
    bool stopped = false;  // the case's run threw: its hazards were not judged
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
        r.o_sums = o_error_sums(sc.o_sampled, sc.exact_o_sampled, static_cast<std::size_t>(c.problem.shape.dv()));
        r.rows_total = sc.rows_total;
        r.rows_judged = sc.rows_judged;
        sampling = sc.summary();
      } else {
        r.comparison = c.varlen ? reference::compare_varlen_with_profile(profile, *c.varlen, exact, out.o, out.lse, mode,
                                                                         lse_given)
                                : reference::compare_with_profile(profile, c.problem, exact, out.o, out.lse, mode, lse_given);
        const std::int64_t dv = c.varlen ? c.varlen->base.shape.dv() : c.problem.shape.dv();
        r.o_sums = o_error_sums(out.o, exact.o, static_cast<std::size_t>(dv));
      }
      r.compared = true;
      if (c.sample_rows == 0) {
        if (auto peer = peer_tolerance(adapter.name(), c.varlen ? nullptr : &c.problem, c.varlen ? &*c.varlen : nullptr, out.o)) {
          r.peer_tolerance = peer->text;
          r.peer_tolerance_pass = peer->pass;
        }
      }
      std::string facts = c.exact_facts ? c.exact_facts(widen(out)) : "";
      if (facts.empty() && (c.twin || c.varlen_twin)) {
        const std::string d = bitwise_difference(out, runner.run(c, true, mode));
        if (!d.empty()) facts = "not equal to its twin run: " + d;
      }
      r.verdict = verdict_of(r.comparison, facts.empty());
      r.note = !r.comparison.first_failure.empty() ? r.comparison.first_failure : facts;
      if (!sampling.empty()) r.note = r.note.empty() ? sampling : r.note + "; " + sampling;
    } catch (const std::exception& e) {
      r.kernel_seconds = seconds_since(t_kernel);
      r.verdict = Verdict::Fail;
      r.note = e.what();
      stopped = true;
    }
    r.numerics = r.verdict;
    if (worker.hazards) {
      CaseHazards h = worker.hazards();
      r.hazards = h.summary;
      // A run that stopped (a simulator error, an output the oracle refused) was not judged for
      // its hazards: its sites so far are listed, the verdict is not "none".
      r.hazard_verdict = stopped && h.verdict != "-" ? "not judged" : h.verdict;
      r.documented_sites = h.documented;
      r.llvm_only_sites = h.llvm_only;
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
  if (options.paged && !options.tiles) {
    auto p = paged_decode_tile_cases();
    cases.insert(cases.end(), std::make_move_iterator(p.begin()), std::make_move_iterator(p.end()));
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
  result.code_objects_not_taken = runners.front().adapter->not_taken();
  result.kernel = runners.front().adapter->name();

  const std::size_t total = cases.size() * options.modes.size();
  std::size_t done = 0;
  std::mutex progress_mutex;  // `done` and the progress lines, shared by the workers
  // "audit: case 12 of 124 (C05 RTNE), 0:31 elapsed, ~2:10 left: pass max|err| ... (0.42 s)".
  Progress line(options.progress, "audit", "case", total);
  auto progress = [&](const CaseResult& r) {
    std::string detail(to_string(r.verdict));
    if (r.compared) detail += "  max|err| " + figure_text(r.comparison.max_abs_err_o);
    detail += "  (" + figure_text(r.kernel_seconds + r.oracle_seconds, 2) + " s)";
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

void select_case_set(AuditOptions& options, const std::string& set) {
  const bool peer = options.kernel != "attention-fwd";
  const bool paged_only = options.kernel == "aiter-pa" && set == "default";
  options.matrix = !paged_only && (set == "all" || set == "default" || set == "matrix");
  options.handed = !paged_only && (set == "all" || set == "default" || set == "handed");
  options.tiles = !paged_only && (set == "all" || set == "tiles" || (set == "default" && peer));
  options.paged = paged_only || set == "paged";
  options.production = set == "production";
}

bool set_runs_decode_cases(const std::string& set, const std::string& kernel) {
  return kernel == "attention-fwd" && (set == "default" || set == "all" || set == "decode");
}

}  // namespace cdna::audit
