// The simulator fallback of cdna::device::Executor: loads the gfx942 code object, decodes the
// kernel once (cached per code-object bytes), allocates the host's buffers in simulated
// global memory, packs the kernarg segment per the metadata, runs every workgroup on the CPU
// and copies writable buffers back.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "device/executor.hpp"
#include "simulator/decode/code_object.hpp"
#include "simulator/decode/isa.hpp"
#include "simulator/schedule/scheduler.hpp"

namespace cdna::simulator {

// Counters of the last run().
struct SimStats {
  std::uint64_t wave_instructions = 0;  // instructions executed, summed over waves
  std::uint64_t mfma_instructions = 0;
  std::uint64_t workgroups = 0;
  double seconds = 0;                   // wall time of the run (load + decode + execute)
  std::string parallel;                 // RunCounters::parallel of the dispatch
};

class SimulatorExecutor : public device::Executor {
 public:
  SimulatorExecutor();
  ~SimulatorExecutor() override;

  std::string name() const override { return "simulator"; }
  // executor "simulator", device, host_cpu ("model name" of /proc/cpuinfo), threads (options().threads,
  // 0 resolved to the usable cores: workgroups of a dispatch that do not communicate run on that
  // many threads, scheduler.hpp), schedule and transcendental_envelope
  // (options()).
  device::Description describe() const override;
  void run(std::span<const std::byte> code_object, const device::Dispatch& dispatch) override;
  // options().max_resident_workgroups: the scheduler admits no more at once.
  std::uint64_t max_resident_workgroups(std::span<const std::byte>, const device::Dispatch&) override {
    return options_.max_resident_workgroups;
  }

  const SimStats& last_stats() const { return stats_; }
  // Wait-state violations of the last run() under hazard policy Report or Differential (with
  // their verdicts; kept when the run fails), one record per site (simulator/checks/hazard_policy.hpp).
  const std::vector<HazardViolation>& last_hazards() const { return hazards_; }
  // The same, summed over every run() of this executor (a site seen in several runs: counts
  // added), for tools that run many dispatches (the audit).
  const std::vector<HazardViolation>& all_hazards() const { return all_hazards_; }
  // Forgets all_hazards() (the audit reads them per case).
  void clear_all_hazards() { all_hazards_.clear(); }
  // LDS races of the last run() under options().lds_races == LdsRaces::Report (empty otherwise;
  // under LdsRaces::Error the first race ends the run with an error instead). A run with races
  // runs the dispatch a second time to find their pcs (lds_race.hpp); last_stats() is then
  // that run's.
  const std::vector<LdsRace>& last_lds_races() const { return lds_races_; }
  // The same, summed over every run() of this executor (one entry per kernel and pair of pcs).
  const std::vector<LdsRace>& all_lds_races() const { return all_lds_races_.races(); }
  SchedulerOptions& options() { return options_; }
  // Names code objects in messages (e.g. the file name); default "<N-byte code object>".
  void set_code_object_label(std::string label) { label_ = std::move(label); }

  // The decoded kernel (decoding it if not cached yet).
  std::shared_ptr<const Program> program(std::span<const std::byte> code_object,
                                         std::string_view kernel);
  // The loaded code object (cached).
  const CodeObject& code_object(std::span<const std::byte> code_object);

 private:
  struct Entry;
  std::shared_ptr<Entry> entry_for(std::span<const std::byte> code_object, const std::string& name = {});
  // One run; `watches` (the second run after an LDS race) records the racing accesses' pcs;
  // `found` receives the races of LdsRaces::Report.
  void run_once(std::span<const std::byte> code_object, const device::Dispatch& dispatch,
                std::vector<LdsWatch>* watches, std::vector<LdsRace>& found);

  std::vector<std::shared_ptr<Entry>> cache_;  // most recently used last
  void merge_hazards();

  SimStats stats_;
  std::vector<HazardViolation> hazards_, all_hazards_;
  std::vector<LdsRace> lds_races_;
  LdsRaceLog all_lds_races_;
  SchedulerOptions options_;
  std::string label_;
};

}  // namespace cdna::simulator
