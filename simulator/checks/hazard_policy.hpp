// What the simulator does when a kernel breaks a wait-state rule (simulator/checks/hazard.hpp;
// simulator/README.md "Hazard policy"):
//  - Error (default): the run stops with an error naming both instructions.
//  - Report: every violation is recorded (HazardViolation, one record per site with its count)
//    and the run goes on; reads see the producer's new value, as the simulator computes every
//    result at once.
//  - Differential: the dispatch runs as under Report, then once more with every hazarded read
//    seeing the register's value from before the producer wrote it; every writable buffer of the
//    two runs is compared bit for bit. Equal: the violations are benign (listed, no error).
//    Different: an error naming the site(s) that change the output and the first differing byte.
//    Sites of LLVM-only rules (HazardSource) are listed (verdict Reported) and never substituted.
// The old value is the pre-write value of the producer's destination registers that the
// consumer reads (VGPR rows; SGPRs for the scalar rules), saved when the producer issued; for a
// chain of MFMAs accumulating into the same rows, the value before the last one. A violation
// whose consumer does not read what the producer wrote (write-after-write, write-after-read, a
// mode or EXEC dependence) has no such old value: under Differential it is an error saying so.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "simulator/checks/hazard.hpp"

namespace cdna::simulator {

struct Wave;

enum class HazardPolicy : std::uint8_t { Error, Report, Differential };
std::string_view to_string(HazardPolicy p);
// "error", "report", "differential"; nullopt for anything else.
std::optional<HazardPolicy> parse_hazard_policy(std::string_view s);

// One hazard site: a consumer instruction, a producer and a rule, with the wait states present
// and needed; `count` dynamic occurrences, the first in `workgroup`/`wave`.
struct HazardViolation {
  enum class Verdict : std::uint8_t {
    Reported,       // policy Report: not judged
    Benign,         // Differential: the output is the same bit for bit with the old value
    ChangesOutput,  // Differential: this site alone (or, when not narrowed, the sites together) changes it
    NotJudged,      // Differential: no old value to give, or narrowing not done
  };
  std::string kernel;
  std::uint64_t pc = 0;           // consumer, bytes from the kernel's code entry
  std::string instruction;        // consumer text
  std::uint64_t producer_pc = 0;
  std::string producer;           // producer text
  std::string rule;               // rule id (hazard_rules.cpp)
  std::string source;             // the rule's source (ISA case and LLVM function, or LLVM only)
  bool llvm_only = false;         // an LLVM-only rule: listed and counted, never judged or failed
  std::string reg;                // the shared register, e.g. "v[64:79]"
  int wait_states = 0;            // present
  int needed = 0;
  std::array<std::uint32_t, 3> workgroup{};
  std::uint32_t wave = 0;
  std::uint64_t count = 0;
  Verdict verdict = Verdict::Reported;
  std::string note;               // why NotJudged, or what ChangesOutput found
  std::uint32_t consumer_index = 0, producer_index = 0;  // instructions of the decoded Program
};
std::string_view to_string(HazardViolation::Verdict v);
// "pc 0x1a4 'v_max3_f32 ...': rule mfma-result-valu (v[64:79]), 5 of 11 wait states after
// 'v_mfma_...' at pc 0x198, 8 times (first: workgroup (0,0,0) wave 3)[, benign]".
std::string describe(const HazardViolation& v);
// Adds `from` to `into` one site at a time: a site already there (same kernel, pcs, rule, wait
// states and verdict) gets its count added, a new one is appended.
void merge_hazard_sites(std::vector<HazardViolation>& into, const std::vector<HazardViolation>& from);

// Per-dispatch bookkeeping of the scheduler under Report and Differential (Error needs none).
class HazardMonitor {
 public:
  explicit HazardMonitor(const Program& program) : program_(program) {}

  // Old-value mode (the second run of Differential): producers at `producers` save the
  // pre-write value of their destinations; reads at `consumers` see them.
  // Reads at consumers that are in `seen` but not in `consumers` see the new value; a violation
  // at a consumer not in `seen` (a site the first run did not reach) is a problem.
  void substitute(std::vector<std::uint8_t> producers, std::vector<std::uint8_t> consumers,
                  std::vector<std::uint8_t> seen);
  bool saves_at(std::uint32_t index) const { return !save_.empty() && save_[index]; }

  // Per-wave storage of saved values; one per wave slot, reset when a wave starts.
  struct Shadow {
    struct Saved {
      std::uint64_t clock = 0;  // 0: nothing saved
      std::array<std::uint32_t, 64> lanes{};
    };
    std::vector<std::int16_t> slot_of_row;  // VGPR row -> index into rows, -1 none
    std::vector<Saved> rows;
    std::array<std::uint64_t, 128> sclock{};
    std::array<std::uint32_t, 128> svalue{};
    void reset();
  };

  // Before the producer at `index` issues (only where saves_at(index)).
  void save(Wave& w, Shadow& sh, std::uint32_t index, const HazardInfo& h);
  // The instruction at `index` is about to issue and hazard_check_due said so: records its
  // violations and, in old-value mode, puts the old values in place. Returns whether it did
  // (then restore() must follow the instruction).
  bool before(Wave& w, Shadow& sh, const std::array<std::uint32_t, 3>& workgroup, std::uint32_t wave,
              std::uint32_t index, const HazardInfo& h);
  void restore(Wave& w, const HazardInfo& h);

  const std::vector<HazardViolation>& violations() const { return violations_; }
  // Old-value mode: reads that could not be given an old value, and sites not seen by the
  // first run (control flow changed); empty when the old-value run is a faithful counterpart.
  const std::vector<std::string>& problems() const { return problems_; }

 private:
  void record(const HazardEvent& e, const std::array<std::uint32_t, 3>& workgroup, std::uint32_t wave,
              std::uint32_t index);
  const Program& program_;
  std::vector<HazardViolation> violations_;
  std::unordered_map<std::uint64_t, std::size_t> index_of_;  // site key -> violations_
  std::vector<std::uint8_t> save_, old_reads_, seen_;
  std::vector<std::string> problems_;
  // Swapped-in registers of the current instruction: row or -1-sreg, and the new values.
  struct Swap {
    int reg = 0;
    std::array<std::uint32_t, 64> lanes{};
  };
  std::vector<Swap> swaps_;
  std::uint64_t swap_exec_ = 0;
  std::vector<HazardEvent> events_;
};

// The Differential judgement. `run(monitor)` runs the whole dispatch once with the given
// monitor and returns the contents of every writable buffer (named by `labels`). It runs it as
// under Report; with violations, once more with the old values; when the outputs differ and
// there are at most `max_narrowing` consumer sites, once more per site with that site alone.
// Returns the violations with their verdicts, the first run's outputs in `outputs`, and an
// error (one line naming the site(s) and the first differing byte) when the old values change
// the output or a violation cannot be judged. Deterministic: every run has the scheduler options of
// the first (schedule seed included).
using HazardRun = std::function<std::vector<std::vector<std::uint8_t>>(HazardMonitor&)>;
struct DifferentialResult {
  std::vector<HazardViolation> violations;
  std::string error;  // empty: benign (or no violation)
};
DifferentialResult judge_differential(const Program& program, const HazardRun& run,
                                      const std::vector<std::string>& labels,
                                      std::vector<std::vector<std::uint8_t>>& outputs,
                                      std::size_t max_narrowing = 16);

}  // namespace cdna::simulator
