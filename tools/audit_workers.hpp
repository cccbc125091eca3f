// The executors of `cdna-verify audit --jobs N` (docs/ci.md "Parallel cases"): one simulator per
// job, each set up as the command's own executor (schedule, envelope, hazard, LDS-race and
// memory-model settings) with its own callbacks, and the cores shared out among them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "simulator/checks/lds_race.hpp"
#include "audit/audit.hpp"
#include "audit/run/executor_choice.hpp"
#include "tools/sim_settings.hpp"

namespace cdna::tools {

// Dispatch threads of each job's simulator when --threads is not given: the usable cores shared
// out, max(1, cores / jobs), so that jobs x threads does not exceed the cores (when jobs <= cores).
unsigned threads_per_job(unsigned cores, unsigned jobs);

struct AuditWorkers {
  unsigned jobs = 1;
  unsigned threads = 0;  // dispatch threads of each job's simulator (0 on a device)
  std::vector<audit::ChosenExecutor> owned;  // the jobs' simulators (none on a device)
  std::vector<audit::AuditWorker> workers;   // one per job, for run_audit
};

// The workers for `main`, the executor --executor chose. On the simulator: `jobs` (nullopt: the
// usable cores, simulator::usable_cores) fresh simulators, each with `given` applied
// (apply_sim_settings) and its dispatch threads set to given.threads or threads_per_job; its
// hazard policy's findings read per case (differential sites fail the case, not the run). On a
// device: `main` alone (jobs 1; one device runs one case at a time). Throws
// CLI::ValidationError if `jobs` > 1 is given for a device.
AuditWorkers make_audit_workers(audit::ChosenExecutor& main, std::optional<unsigned> jobs, const SimSettings& given,
                                const std::string& kernel);

// Says the jobs in the simulator's description (report.json "executor_description"): "threads"
// becomes each job's dispatch threads, followed by "; decode cases and kill matrices: M" when
// `main_threads` (the command's executor's SchedulerOptions::threads, 0: the usable cores)
// differs, and "jobs" follows it.
void describe_jobs(device::Description& d, const AuditWorkers& w, unsigned main_threads);

// The LDS races of every job's simulator and then of `main` (one entry per kernel and pair of
// pcs, counts added; simulator/checks/lds_race.hpp), jobs in job order.
std::vector<simulator::LdsRace> all_lds_races(const AuditWorkers& w, const audit::ChosenExecutor& main);

}  // namespace cdna::tools
