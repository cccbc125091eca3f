#include "audit/compare/compare_run.hpp"

#include <algorithm>
#include <chrono>
#include <regex>
#include <stdexcept>

#include "reference/attention/profiles.hpp"
#include "audit/cases/audit_cases.hpp"
#include "audit/output/progress.hpp"
#include "audit/cases/special_value_cases.hpp"

namespace cdna::audit {
namespace {

// The two kernels and where they run.
struct Runner {
  adapters::KernelAdapter& a;
  adapters::KernelAdapter& b;
  device::Executor& executor;
  simulator::SimulatorExecutor* sim;
  const CompareOptions& options;

  // Runs `k` three times (see Determinism); returns run 1.
  device::AttentionOutput run_three(adapters::KernelAdapter& k, const reference::AttentionProblem& p,
                                    numerics::Rounding mode, Determinism& det) {
    device::AttentionOutput first = k.run(executor, p, mode);
    const device::AttentionOutput second = k.run(executor, p, mode);
    det.repeat = identical_runs(p.shape, first.o, first.lse, second.o, second.lse);
    if (sim) {
      const simulator::SchedulerOptions saved = sim->options();
      sim->options().schedule = simulator::Schedule::Random;
      sim->options().seed = options.schedule_seed;
      device::AttentionOutput third;
      try {
        third = k.run(executor, p, mode);
      } catch (...) {
        sim->options() = saved;
        throw;
      }
      sim->options() = saved;
      det.random_schedule = identical_runs(p.shape, first.o, first.lse, third.o, third.lse);
    }
    return first;
  }

  // The rows of `out` without a visible key that follow the chosen profile, as the definition's.
  void map_profile(const reference::AttentionProblem& p, const adapters::KernelAdapter& k, device::AttentionOutput& out) const {
    const reference::Profile& profile = reference::find_profile(options.profile);
    if (profile.name == reference::default_profile().name) return;
    const bool lse = k.features().writes_lse;
    reference::ProfiledOutput m = reference::apply_profile(profile, p, out.o, out.lse, lse);
    out.o = std::move(m.o);
    if (lse) out.lse = std::move(m.lse);
  }

  // Fills d's status, diffs and determinism for `p` in `mode`.
  void compare(const reference::AttentionProblem& p, numerics::Rounding mode, ProblemDiff& d) {
    d.shape = p.shape;
    d.mask = std::string(reference::to_string(p.mask));
    d.scale = p.scale;
    d.mode = std::string(numerics::to_string(mode));
    if (p.shape.o_elements() == 0) {  // a comparison over nothing must not count as one
      d.status = ProblemStatus::Skipped;
      d.reason = "empty output (B, Sq or Hq = 0): nothing to compare";
      return;
    }
    for (auto* k : {&a, &b}) {
      if (auto why = k->unsupported_reason(p, mode)) {
        d.status = ProblemStatus::Skipped;
        d.reason = std::string(k == &a ? "A" : "B") + " (" + k->name() + ") does not take it: " + *why;
        return;
      }
    }
    device::AttentionOutput out_a, out_b;
    const char* who = "A";
    try {
      out_a = run_three(a, p, mode, d.det_a);
      who = "B";
      out_b = run_three(b, p, mode, d.det_b);
    } catch (const std::exception& e) {
      d.status = ProblemStatus::Error;
      d.reason = std::string(who) + " (" + (who[0] == 'A' ? a.name() : b.name()) + ") failed to run: " + e.what();
      return;
    }
    d.status = ProblemStatus::Compared;
    map_profile(p, a, out_a);
    map_profile(p, b, out_b);
    d.o = diff_o(p.shape, out_a.o, out_b.o, options.ulp);
    d.lse_compared = a.features().writes_lse && b.features().writes_lse;
    if (d.lse_compared) d.lse = diff_lse(p.shape, out_a.lse, out_b.lse, options.ulp);
  }
};

using Clock = std::chrono::steady_clock;

// Candidate halves of the current slice: each extent of 2 or more, first half then second half.
std::vector<Slice> halves(const Slice& s) {
  std::vector<Slice> out;
  auto halve = [&](std::int64_t Slice::*first, std::int64_t Slice::*count) {
    const std::int64_t n = s.*count;
    if (n < 2) return;
    Slice lo = s, hi = s;
    lo.*count = n / 2;
    hi.*first = s.*first + n / 2;
    hi.*count = n - n / 2;
    out.push_back(lo);
    out.push_back(hi);
  };
  halve(&Slice::i0, &Slice::nq);
  halve(&Slice::j0, &Slice::nk);
  halve(&Slice::g0, &Slice::ng);
  halve(&Slice::r0, &Slice::nr);
  halve(&Slice::b0, &Slice::nb);
  return out;
}

// Greedy shrinking: take the first half-slice that still breaks `claim`, until none does or the
// budget of candidate runs is spent (each candidate runs both kernels three times).
Shrunk shrink(Runner& runner, const reference::AttentionProblem& full, const ProblemDiff& broken, Claim claim,
              numerics::Rounding mode) {
  constexpr int kBudget = 48;
  Shrunk best{whole(full.shape), full.shape, *claim_broken(broken, claim), 0};
  bool progress = true;
  while (progress && best.candidates_run < kBudget) {
    progress = false;
    for (const Slice& cand : halves(best.slice)) {
      if (best.candidates_run >= kBudget) break;
      const reference::AttentionProblem p = slice_problem(full, cand);
      ProblemDiff d;
      ++best.candidates_run;
      runner.compare(p, mode, d);
      if (auto first = claim_broken(d, claim)) {
        best = {cand, p.shape, *first, best.candidates_run};
        progress = true;
        break;
      }
    }
  }
  return best;
}

std::vector<AuditCase> chosen_cases(const std::string& filter, bool audit, bool special, bool tiles) {
  std::vector<AuditCase> cases;
  auto add = [&](std::vector<AuditCase> more) {
    cases.insert(cases.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  };
  if (audit) {
    add(default_matrix());
    add(handed_cases());
  }
  if (special) add(special_value_cases());
  if (tiles) add(tile_cases());
  if (!filter.empty()) {
    const std::regex re(filter);
    std::erase_if(cases, [&](const AuditCase& c) { return !std::regex_search(c.id, re); });
  }
  return cases;
}

}  // namespace

std::string Determinism::first_difference() const {
  if (!repeat.identical()) return "run 2 differs from run 1: " + repeat.first;
  if (random_schedule && !random_schedule->identical())
    return "the random-schedule run differs from run 1: " + random_schedule->first;
  return "";
}

std::string Slice::text() const {
  auto r = [](const char* name, std::int64_t first, std::int64_t n) {
    return std::string(name) + " [" + std::to_string(first) + ", " + std::to_string(first + n) + ")";
  };
  return r("b", b0, nb) + ", " + r("i", i0, nq) + ", " + r("j", j0, nk) + ", " + r("KV heads", g0, ng) + ", " +
         r("group", r0, nr);
}

Slice whole(const reference::AttentionShape& s) {
  return {0, s.batch, 0, s.seqlen_q, 0, s.seqlen_k, 0, s.heads_kv, 0, s.heads_q / std::max<std::int64_t>(1, s.heads_kv)};
}

reference::AttentionProblem slice_problem(const reference::AttentionProblem& p, const Slice& s) {
  const reference::AttentionShape& f = p.shape;
  const std::int64_t D = f.head_dim, group = f.heads_q / f.heads_kv;
  reference::AttentionProblem out;
  out.shape = {s.nb, s.nq, s.nk, s.ng * s.nr, s.ng, D};
  out.mask = p.mask;
  out.scale = p.scale;
  auto copy_row = [&](std::vector<std::uint16_t>& dst, const std::vector<std::uint16_t>& src, std::int64_t at) {
    dst.insert(dst.end(), src.begin() + at * D, src.begin() + (at + 1) * D);
  };
  for (std::int64_t b = s.b0; b < s.b0 + s.nb; ++b) {
    for (std::int64_t i = s.i0; i < s.i0 + s.nq; ++i)  // Q [B, Sq, Hq, D]
      for (std::int64_t g = s.g0; g < s.g0 + s.ng; ++g)
        for (std::int64_t r = s.r0; r < s.r0 + s.nr; ++r) copy_row(out.q, p.q, (b * f.seqlen_q + i) * f.heads_q + g * group + r);
    for (std::int64_t j = s.j0; j < s.j0 + s.nk; ++j)  // K, V [B, Sk, Hkv, D]
      for (std::int64_t g = s.g0; g < s.g0 + s.ng; ++g) {
        copy_row(out.k, p.k, (b * f.seqlen_k + j) * f.heads_kv + g);
        copy_row(out.v, p.v, (b * f.seqlen_k + j) * f.heads_kv + g);
      }
  }
  return out;
}

std::string claim_id(Claim c) {
  switch (c) {
    case Claim::WithinUlp: return "within_ulp";
    case Claim::NonFiniteIdentical: return "nonfinite_identical";
    case Claim::ADeterministic: return "a_deterministic";
    case Claim::BDeterministic: return "b_deterministic";
  }
  return "?";
}

std::string claim_text(Claim c, std::uint64_t ulp) {
  switch (c) {
    case Claim::WithinUlp: return "every finite O element within " + std::to_string(ulp) + " bf16 ULP";
    case Claim::NonFiniteIdentical: return "NaN/inf handling identical (positions and bit patterns)";
    case Claim::ADeterministic: return "A deterministic";
    case Claim::BDeterministic: return "B deterministic";
  }
  return "?";
}

std::optional<std::string> claim_broken(const ProblemDiff& p, Claim c) {
  if (p.status != ProblemStatus::Compared) return std::nullopt;
  switch (c) {
    case Claim::WithinUlp:
      if (p.o.beyond == 0) return std::nullopt;
      return p.o.first_beyond.front().text() + " (" +
             std::to_string(bf16_values_apart(static_cast<std::uint16_t>(p.o.first_beyond.front().a_bits),
                                              static_cast<std::uint16_t>(p.o.first_beyond.front().b_bits))) +
             " ULP apart)";
    case Claim::NonFiniteIdentical: {
      std::vector<DiffSite> first = p.o.first_nonfinite();
      if (first.empty() && p.lse_compared) first = p.lse.first_nonfinite();
      if (first.empty()) return std::nullopt;
      return first.front().text();
    }
    case Claim::ADeterministic:
      if (p.det_a.deterministic()) return std::nullopt;
      return p.det_a.first_difference();
    case Claim::BDeterministic:
      if (p.det_b.deterministic()) return std::nullopt;
      return p.det_b.first_difference();
  }
  return std::nullopt;
}

std::string_view to_string(CompareOutcome o) {
  switch (o) {
    case CompareOutcome::Held: return "held";
    case CompareOutcome::Broken: return "broken";
    case CompareOutcome::RunFailed: return "run_failed";
    case CompareOutcome::NothingCompared: return "nothing_compared";
  }
  return "?";
}

int CompareResult::count(ProblemStatus s) const {
  return static_cast<int>(std::count_if(problems.begin(), problems.end(), [&](const ProblemDiff& p) { return p.status == s; }));
}

CompareOutcome CompareResult::outcome() const {
  const bool broken = std::any_of(claims.begin(), claims.end(), [](const ClaimResult& c) { return !c.held(); });
  if (count(ProblemStatus::Compared) > 0 && broken) return CompareOutcome::Broken;
  if (count(ProblemStatus::Error) > 0) return CompareOutcome::RunFailed;
  return count(ProblemStatus::Compared) > 0 ? CompareOutcome::Held : CompareOutcome::NothingCompared;
}

CompareResult run_compare(const CompareOptions& options, device::Executor& executor,
                          simulator::SimulatorExecutor* sim) {
  const auto t0 = Clock::now();
  CompareResult result;
  result.ulp = options.ulp;
  result.schedule_seed = options.schedule_seed;
  result.executor = executor.name();
  result.profile = std::string(reference::find_profile(options.profile).name);  // unknown: fails before any work
  auto a = adapters::make_adapter(options.kernel_a);  // an unknown name fails before any work
  auto b = adapters::make_adapter(options.kernel_b);
  const std::vector<AuditCase> cases = chosen_cases(options.case_filter, options.audit_cases, options.special_cases, options.tile_cases);
  result.kernel_a = a->name();
  result.kernel_b = b->name();
  for (numerics::Rounding mode : options.modes) {
    // A mode a kernel is not built in is a skip per problem (unsupported_reason), not bad input.
    auto built = [&](adapters::KernelAdapter& k) {
      const auto m = k.features().modes;
      return std::find(m.begin(), m.end(), mode) != m.end();
    };
    auto source = [&](const std::filesystem::path& all, const std::map<numerics::Rounding, std::filesystem::path>& each) {
      const auto it = each.find(mode);
      return it == each.end() ? all : it->second;
    };
    if (built(*a))
      for (auto& c : a->load(mode, source(options.code_object_a, options.code_objects_a))) result.code_objects_a.push_back(c);
    if (built(*b))
      for (auto& c : b->load(mode, source(options.code_object_b, options.code_objects_b))) result.code_objects_b.push_back(c);
  }

  Runner runner{*a, *b, executor, sim, options};
  // "compare: problem 7 of 90 (C05 RTNE), 0:12 elapsed, ~2:30 left: compared, max 1 ULP".
  Progress line(options.progress, "compare", "problem", cases.size() * options.modes.size());
  for (const AuditCase& c : cases) {
    for (numerics::Rounding mode : options.modes) {
      ProblemDiff d;
      d.case_id = c.id;
      d.seed = c.seed;
      if (c.expect_rejection || !c.unsupported_feature.empty() || c.varlen) {
        d.shape = c.problem.shape;
        d.mask = std::string(reference::to_string(c.problem.mask));
        d.mode = std::string(numerics::to_string(mode));
        d.reason = c.expect_rejection ? "a case every kernel must refuse (not an output to compare)"
                   : c.varlen         ? "a varlen case (adapters take dense problems)"
                                      : c.unsupported_feature;
      } else {
        runner.compare(c.problem, mode, d);
      }
      line.next(c.id + " " + d.mode, d.status == ProblemStatus::Compared ? "compared, max " + std::to_string(d.o.max_ulps) + " ULP"
                                     : d.status == ProblemStatus::Error  ? "ERROR " + d.reason
                                                                         : "skipped (" + d.reason + ")");
      if (d.status == ProblemStatus::Compared) {
        result.o_total.add(d.o);
        if (d.lse_compared) result.lse_total.add(d.lse);
      }
      result.problems.push_back(std::move(d));
    }
  }

  if (result.count(ProblemStatus::Compared) > 0) {
    for (Claim claim : kClaims) {
      ClaimResult cr;
      cr.claim = claim;
      cr.text = claim_text(claim, options.ulp);
      for (std::size_t k = 0; k < result.problems.size(); ++k) {
        const ProblemDiff& p = result.problems[k];
        cr.problems_checked += p.status == ProblemStatus::Compared;
        const auto first = claim_broken(p, claim);
        if (!first) continue;
        ++cr.problems_broken;
        if (!cr.smallest || p.shape.o_elements() < result.problems[*cr.smallest].shape.o_elements()) {
          cr.smallest = k;
          cr.first_element = *first;
        }
      }
      result.claims.push_back(cr);
    }
    // Shrinking re-runs the kernels; done after every claim is decided so it changes no figure above.
    for (ClaimResult& cr : result.claims) {
      if (!cr.smallest || !options.shrink) continue;
      const ProblemDiff& p = result.problems[*cr.smallest];
      const auto it = std::find_if(cases.begin(), cases.end(), [&](const AuditCase& c) { return c.id == p.case_id; });
      if (options.progress) *options.progress << "shrinking " << p.case_id << " " << p.mode << " (" << cr.text << ")\n";
      cr.shrunk = shrink(runner, it->problem, p, cr.claim, *numerics::parse_rounding(p.mode));
    }
  }
  result.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return result;
}

}  // namespace cdna::audit
