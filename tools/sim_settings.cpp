#include "tools/sim_settings.hpp"

#include "simulator/schedule/simulator_executor.hpp"
#include "tools/cli_checks.hpp"
#include "audit/run/hazard_verdict.hpp"
#include "tools/hazard_option.hpp"
#include "tools/lds_races_cli.hpp"
#include "tools/memory_model_cli.hpp"

namespace cdna::tools {

using namespace cdna::audit;  // the engine (audit/README.md)

void add_threads_option(CLI::App* cmd, std::optional<unsigned>& threads) {
  cmd->add_option("--threads", threads,
                  "Simulator threads per dispatch: workgroups that do not communicate run in parallel, with results "
                  "bitwise those of the serial scheduler (simulator/README.md \"Parallel dispatch\"); 1 = serial; "
                  "0 (as in golden gen/make/verify) or omitted: the cores this process may use")
      ->check(CLI::Range(0u, 4096u));
}

void add_sim_options(CLI::App* cmd, SimSettings& s) {
  cmd->add_option("--schedule", s.schedule,
                  "Simulator wave schedule: round-robin, or random (seeded interleaving; simulator/README.md)")
      ->check(CLI::IsMember({"round-robin", "random"}))
      ->capture_default_str();
  cmd->add_option("--schedule-seed", s.schedule_seed, "Seed of --schedule random (default 0)")
      ->check(unsigned_integer());
  cmd->add_option("--envelope-seed", s.envelope_seed,
                  "Simulator transcendental envelope mode: each v_exp/log/rcp/rsq/sqrt/sin/cos_f32 result is the "
                  "round-down or round-up of the exact value (within the documented 1 ULP), chosen by this seed "
                  "(default: correctly rounded)")
      ->check(unsigned_integer());
  add_hazards_option(cmd, s.hazards);
  add_lds_races_option(cmd, s.lds_races);
  add_memory_model_option(cmd, s.memory_model);
  add_threads_option(cmd, s.threads);
}

std::vector<std::pair<std::string, std::string>> apply_sim_settings(const ChosenExecutor& c, const SimSettings& given,
                                                                     const std::string& kernel) {
  SimSettings s = given;
  if (s.hazards.empty()) s.hazards = default_hazard_policy(kernel);
  if (!c.sim) {
    if (s.any())
      throw CLI::ValidationError("--schedule/--schedule-seed/--envelope-seed/--hazards/--lds-races/--memory-model/--threads",
                                 "apply to the simulator only");
    return {};
  }
  if (s.schedule_seed && s.schedule != "random") {
    throw CLI::ValidationError("--schedule-seed", "needs --schedule random");
  }
  auto& o = c.sim->options();
  o.schedule = s.schedule == "random" ? simulator::Schedule::Random : simulator::Schedule::RoundRobin;
  o.seed = s.schedule_seed.value_or(0);
  o.transcendental_envelope = s.envelope_seed;
  o.threads = s.threads.value_or(0);
  simulator::parse_lds_races(s.lds_races, o.lds_races);  // CLI11 checked the spelling
  simulator::parse_memory_model(s.memory_model, o.memory_model);
  std::vector<std::pair<std::string, std::string>> out{{"schedule", s.schedule}};
  if (s.schedule == "random") out.emplace_back("schedule_seed", std::to_string(o.seed));
  out.emplace_back("transcendental_envelope_seed", s.envelope_seed ? std::to_string(*s.envelope_seed) : "none");
  apply_hazards_option(*c.sim, s.hazards);
  out.emplace_back("hazards", s.hazards);
  out.emplace_back("lds_races", s.lds_races);
  out.emplace_back("memory_model", s.memory_model);
  return out;
}

}  // namespace cdna::tools
