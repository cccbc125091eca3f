#include "tools/audit_workers.hpp"

#include <algorithm>

#include "simulator/schedule/parallel.hpp"
#include "audit/run/hazard_verdict.hpp"
#include "tools/hazard_option.hpp"

namespace cdna::tools {

using namespace cdna::audit;  // the engine (audit/README.md)

unsigned threads_per_job(unsigned cores, unsigned jobs) { return std::max(1u, cores / std::max(1u, jobs)); }

AuditWorkers make_audit_workers(ChosenExecutor& main, std::optional<unsigned> jobs, const SimSettings& given,
                                const std::string& kernel) {
  AuditWorkers w;
  if (!main.sim) {
    if (jobs && *jobs > 1)
      throw CLI::ValidationError("--jobs", "runs cases at once on simulator executors only; on the HIP device the "
                                           "cases run one at a time (drop --jobs, or give --executor simulator)");
    w.workers.push_back({main.executor.get(), {}, {}});
    return w;
  }
  const unsigned cores = simulator::usable_cores();
  w.jobs = jobs.value_or(cores);
  w.threads = given.threads.value_or(threads_per_job(cores, w.jobs));
  SimSettings s = given;
  s.threads = w.threads;
  for (unsigned j = 0; j < w.jobs; ++j) {
    ChosenExecutor e = choose_executor("simulator");
    apply_sim_settings(e, s, kernel);
    simulator::SimulatorExecutor* sim = e.sim;
    sim->options().differential_throws = false;  // the audit fails such a case itself, with its figures
    sim->clear_all_hazards();
    w.workers.push_back({e.executor.get(), [sim] { return sim->last_stats().wave_instructions; }, [sim] {
                           // This case's sites (the simulator's since the last case), then forgotten.
                           const auto& v = sim->all_hazards();
                           // Under error a documented hazard stops the run: not judged apart ("-").
                           const bool apart = sim->options().hazard_policy != simulator::HazardPolicy::Error;
                           CaseHazards h{v.empty() ? "" : hazard_summary(v), hazard_failure(v),
                                         apart ? hazard_verdict(v) : "-", documented_sites(v), llvm_only_sites(v), v};
                           sim->clear_all_hazards();
                           return h;
                         }});
    w.owned.push_back(std::move(e));
  }
  return w;
}

void describe_jobs(device::Description& d, const AuditWorkers& w, unsigned main_threads) {
  const unsigned main = main_threads ? main_threads : simulator::usable_cores();
  std::string threads = std::to_string(w.threads);
  if (w.threads != main) threads += " per job; decode cases and kill matrices: " + std::to_string(main);
  auto it = std::find_if(d.begin(), d.end(), [](const auto& kv) { return kv.first == "threads"; });
  if (it == d.end()) it = d.emplace(d.end(), "threads", "");
  it->second = threads;
  d.emplace(it + 1, "jobs", std::to_string(w.jobs));
}

std::vector<simulator::LdsRace> all_lds_races(const AuditWorkers& w, const ChosenExecutor& main) {
  simulator::LdsRaceLog log;
  for (const ChosenExecutor& e : w.owned)
    for (const auto& r : e.sim->all_lds_races()) log.add(r);
  if (main.sim)
    for (const auto& r : main.sim->all_lds_races()) log.add(r);
  return log.races();
}

}  // namespace cdna::tools
