// Hazard policies Report and Differential (simulator/checks/hazard_policy.hpp).
#include "simulator/checks/hazard_policy.hpp"

#include <algorithm>
#include <cstring>

#include "simulator/state/wave.hpp"

namespace cdna::simulator {

std::string_view to_string(HazardPolicy p) {
  switch (p) {
    case HazardPolicy::Error: return "error";
    case HazardPolicy::Report: return "report";
    case HazardPolicy::Differential: return "differential";
  }
  return "?";
}

std::optional<HazardPolicy> parse_hazard_policy(std::string_view s) {
  for (HazardPolicy p : {HazardPolicy::Error, HazardPolicy::Report, HazardPolicy::Differential})
    if (s == to_string(p)) return p;
  return std::nullopt;
}

std::string_view to_string(HazardViolation::Verdict v) {
  switch (v) {
    case HazardViolation::Verdict::Reported: return "reported";
    case HazardViolation::Verdict::Benign: return "benign";
    case HazardViolation::Verdict::ChangesOutput: return "changes the output";
    case HazardViolation::Verdict::NotJudged: return "not judged";
  }
  return "?";
}

void merge_hazard_sites(std::vector<HazardViolation>& into, const std::vector<HazardViolation>& from) {
  for (const auto& v : from) {
    auto same = [&](const HazardViolation& x) {
      return x.kernel == v.kernel && x.pc == v.pc && x.producer_pc == v.producer_pc && x.rule == v.rule &&
             x.wait_states == v.wait_states && x.verdict == v.verdict;
    };
    auto it = std::find_if(into.begin(), into.end(), same);
    if (it == into.end()) into.push_back(v);
    else it->count += v.count;
  }
}

std::string describe(const HazardViolation& v) {
  std::string s = "pc " + hex(v.pc) + " '" + v.instruction + "': rule " + v.rule +
                  (v.reg.empty() ? "" : " (" + v.reg + ")") + ", " + std::to_string(v.wait_states) + " of " +
                  std::to_string(v.needed) + " wait states after '" + v.producer + "' at pc " + hex(v.producer_pc) +
                  ", " + std::to_string(v.count) + (v.count == 1 ? " time" : " times") + " (first: workgroup (" +
                  std::to_string(v.workgroup[0]) + "," + std::to_string(v.workgroup[1]) + "," +
                  std::to_string(v.workgroup[2]) + ") wave " + std::to_string(v.wave) + ")";
  if (v.llvm_only) s += ", LLVM only (not a documented hazard; never fails)";
  if (v.verdict != HazardViolation::Verdict::Reported) s += ", " + std::string(to_string(v.verdict));
  if (!v.note.empty()) s += " (" + v.note + ")";
  return s;
}

namespace {

bool overlaps(VRange a, std::uint32_t row) { return a.n && row >= a.row && row < std::uint32_t{a.row} + a.n; }

bool reads_row(const HazardInfo& c, std::uint32_t row) {
  for (int i = 0; i < c.nreads; ++i)
    if (overlaps(c.reads[i], row)) return true;
  return false;
}

bool in(SMask m, unsigned r) { return r < 64 ? (m.lo >> r) & 1 : (m.hi >> (r - 64)) & 1; }

}  // namespace

void HazardMonitor::Shadow::reset() {
  for (auto& r : rows) r.clock = 0;
  sclock.fill(0);
}

void HazardMonitor::substitute(std::vector<std::uint8_t> producers, std::vector<std::uint8_t> consumers,
                               std::vector<std::uint8_t> seen) {
  save_ = std::move(producers);
  old_reads_ = std::move(consumers);
  seen_ = std::move(seen);
}

void HazardMonitor::save(Wave& w, Shadow& sh, std::uint32_t, const HazardInfo& h) {
  const std::uint64_t clock = w.hazards.clock;  // the clock the producer's ring entry gets
  for (std::uint32_t r = h.write.row; r < std::uint32_t{h.write.row} + h.write.n; ++r) {
    if (sh.slot_of_row.empty()) sh.slot_of_row.assign(kVgprFileRows, -1);
    if (sh.slot_of_row[r] < 0) {
      sh.slot_of_row[r] = static_cast<std::int16_t>(sh.rows.size());
      sh.rows.emplace_back();
    }
    auto& saved = sh.rows[static_cast<std::size_t>(sh.slot_of_row[r])];
    saved.clock = clock;
    std::memcpy(saved.lanes.data(), w.row(r), sizeof saved.lanes);
  }
  for (unsigned r = 0; r < 128; ++r)
    if (in(h.swrite, r)) {
      sh.sclock[r] = clock;
      sh.svalue[r] = w.s[r];
    }
}

void HazardMonitor::record(const HazardEvent& e, const std::array<std::uint32_t, 3>& workgroup, std::uint32_t wave,
                           std::uint32_t index) {
  const auto rule = static_cast<std::uint64_t>(e.hit.rule - hazard_rules().data());
  const std::uint64_t key = std::uint64_t{index} | (std::uint64_t{e.producer} << 20) | (rule << 40) |
                            (static_cast<std::uint64_t>(e.present) << 46);
  auto [it, fresh] = index_of_.try_emplace(key, violations_.size());
  if (!fresh) {
    ++violations_[it->second].count;
    return;
  }
  HazardViolation v;
  v.kernel = program_.kernel;
  v.pc = program_.insts[index].address - program_.code_entry;
  v.instruction = program_.text[index];
  v.producer_pc = program_.insts[e.producer].address - program_.code_entry;
  v.producer = program_.text[e.producer];
  v.rule = std::string(e.hit.rule->id);
  v.source = e.hit.rule->source;
  v.llvm_only = e.hit.rule->llvm_only();
  v.reg = e.hit.reg;
  v.wait_states = e.present;
  v.needed = e.hit.need;
  v.workgroup = workgroup;
  v.wave = wave;
  v.count = 1;
  v.consumer_index = index;
  v.producer_index = e.producer;
  violations_.push_back(std::move(v));
}

bool HazardMonitor::before(Wave& w, Shadow& sh, const std::array<std::uint32_t, 3>& workgroup, std::uint32_t wave,
                           std::uint32_t index, const HazardInfo& h) {
  collect_hazards(w.hazards, h, program_, events_);
  if (events_.empty()) return false;
  for (const auto& e : events_) record(e, workgroup, wave, index);
  if (old_reads_.empty()) return false;  // Report, or the first run of Differential
  // LLVM-only sites are not judged: the old-value run leaves them alone.
  events_.erase(std::remove_if(events_.begin(), events_.end(), [](const HazardEvent& e) { return e.hit.rule->llvm_only(); }),
                events_.end());
  if (events_.empty()) return false;
  const std::string site = "pc " + hex(program_.insts[index].address - program_.code_entry) + " '" +
                           program_.text[index] + "'";
  if (!seen_[index]) {
    problems_.push_back("the old-value run reached a violation the first run did not, at " + site +
                        " (the control flow depends on the hazarded values)");
    return false;
  }
  if (!old_reads_[index]) return false;
  // Registers to give their old value: what each producer wrote and the consumer reads; of
  // several producers of a register (an MFMA chain), the most recent one.
  struct Want {
    int reg;  // VGPR row, or -1 - SGPR
    std::uint64_t clock;
  };
  std::vector<Want> want;
  auto add = [&](int reg, std::uint64_t clock) {
    for (auto& x : want)
      if (x.reg == reg) {
        x.clock = std::max(x.clock, clock);
        return;
      }
    want.push_back(Want{reg, clock});
  };
  for (const auto& e : events_) {
    const HazardInfo& p = program_.hazards[e.producer];
    bool any = false;
    for (std::uint32_t r = p.write.row; r < std::uint32_t{p.write.row} + p.write.n; ++r)
      if (reads_row(h, r)) add(static_cast<int>(r), e.producer_clock), any = true;
    for (unsigned r = 0; r < 128; ++r)
      if (in(p.swrite, r) && in(h.sread, r)) add(-1 - static_cast<int>(r), e.producer_clock), any = true;
    if (!any)
      problems_.push_back("rule " + std::string(e.hit.rule->id) + " at " + site + " after '" +
                          program_.text[e.producer] +
                          "': the instruction does not read what the producer wrote, so there is no old value to "
                          "give it (only read-after-write violations can be judged)");
  }
  swaps_.clear();
  swap_exec_ = w.exec();
  for (const Want& x : want) {
    Swap s;
    s.reg = x.reg;
    if (x.reg >= 0) {
      const auto r = static_cast<std::uint32_t>(x.reg);
      const int slot = sh.slot_of_row.empty() ? -1 : sh.slot_of_row[r];
      if (slot < 0 || sh.rows[static_cast<std::size_t>(slot)].clock != x.clock) {
        problems_.push_back("no saved old value of v-row " + std::to_string(r) + " for " + site);
        continue;
      }
      std::memcpy(s.lanes.data(), w.row(r), sizeof s.lanes);
      std::memcpy(w.row(r), sh.rows[static_cast<std::size_t>(slot)].lanes.data(), sizeof s.lanes);
    } else {
      const auto r = static_cast<unsigned>(-1 - x.reg);
      if (sh.sclock[r] != x.clock) {
        problems_.push_back("no saved old value of s" + std::to_string(r) + " for " + site);
        continue;
      }
      s.lanes[0] = w.s[r];
      w.s[r] = sh.svalue[r];
    }
    swaps_.push_back(s);
  }
  return !swaps_.empty();
}

void HazardMonitor::restore(Wave& w, const HazardInfo& h) {
  for (const Swap& s : swaps_) {
    if (s.reg >= 0) {
      const auto r = static_cast<std::uint32_t>(s.reg);
      std::uint32_t* row = w.row(r);
      // A register the instruction wrote keeps its result in the lanes it wrote (EXEC).
      const bool written = overlaps(h.write, r);
      for (int l = 0; l < kLanes; ++l)
        if (!written || !((swap_exec_ >> l) & 1)) row[l] = s.lanes[static_cast<std::size_t>(l)];
    } else {
      const auto r = static_cast<unsigned>(-1 - s.reg);
      if (!in(h.swrite, r)) w.s[r] = s.lanes[0];
    }
  }
  swaps_.clear();
}

namespace {

using Outputs = std::vector<std::vector<std::uint8_t>>;

// "" when equal, else where the first byte differs.
std::string first_difference(const Outputs& a, const Outputs& b, const std::vector<std::string>& labels) {
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    const auto& x = a[i];
    const auto& y = b[i];
    const std::size_t n = std::min(x.size(), y.size());
    std::size_t k = 0;
    while (k < n && x[k] == y[k]) ++k;
    if (k == n && x.size() == y.size()) continue;
    std::string m = (i < labels.size() ? labels[i] : "output buffer " + std::to_string(i)) + " differs first at byte " +
                    std::to_string(k);
    const std::size_t word = k / 4;
    if (4 * word + 4 <= n) {
      std::uint32_t u = 0, v = 0;
      std::memcpy(&u, x.data() + 4 * word, 4);
      std::memcpy(&v, y.data() + 4 * word, 4);
      m += " (32-bit element " + std::to_string(word) + ": " + hex(u) + " with the new value, " + hex(v) +
           " with the old)";
    }
    return m;
  }
  return "";
}

std::string site_text(const HazardViolation& v) {
  return "pc " + hex(v.pc) + " '" + v.instruction + "' (rule " + v.rule + ", " + std::to_string(v.wait_states) +
         " of " + std::to_string(v.needed) + " wait states after '" + v.producer + "' at pc " + hex(v.producer_pc) +
         ")";
}

}  // namespace

DifferentialResult judge_differential(const Program& program, const HazardRun& run,
                                      const std::vector<std::string>& labels, Outputs& outputs,
                                      std::size_t max_narrowing) {
  DifferentialResult res;
  HazardMonitor first(program);
  outputs = run(first);
  res.violations = first.violations();
  if (res.violations.empty()) return res;
  const std::size_t n = program.insts.size();
  std::vector<std::uint8_t> producers(n, 0), consumers(n, 0);
  std::vector<std::uint32_t> sites;  // consumer indices, in order of first violation
  for (const auto& v : res.violations) {
    if (v.llvm_only) continue;  // listed, never judged (HazardSource::LlvmOnly)
    producers[v.producer_index] = 1;
    if (!consumers[v.consumer_index]) sites.push_back(v.consumer_index);
    consumers[v.consumer_index] = 1;
  }
  if (sites.empty()) return res;  // only LLVM-only sites: nothing to judge
  const std::string who = "simulator: kernel '" + program.kernel + "' (code object '" + program.code_object + "'): ";
  auto old_run = [&](const std::vector<std::uint8_t>& enabled, std::vector<std::string>& problems) {
    HazardMonitor m(program);
    m.substitute(producers, enabled, consumers);
    Outputs o = run(m);
    problems = m.problems();
    return o;
  };
  std::vector<std::string> problems;
  const Outputs old = old_run(consumers, problems);
  if (!problems.empty()) {
    for (auto& v : res.violations)
      if (!v.llvm_only) v.verdict = HazardViolation::Verdict::NotJudged;
    res.error = who + "hazard policy differential cannot judge the kernel's wait-state violations: " + problems.front() +
                (problems.size() > 1 ? " (and " + std::to_string(problems.size() - 1) + " more)" : "");
    return res;
  }
  const std::string diff = first_difference(outputs, old, labels);
  if (diff.empty()) {
    for (auto& v : res.violations)
      if (!v.llvm_only) v.verdict = HazardViolation::Verdict::Benign;
    return res;
  }
  // Which sites change the output on their own (when cheap: one more run per site).
  std::vector<std::uint8_t> changes(n, 0);
  const bool narrow = sites.size() > 1 && sites.size() <= max_narrowing;
  if (narrow) {
    for (std::uint32_t c : sites) {
      std::vector<std::uint8_t> one(n, 0);
      one[c] = 1;
      std::vector<std::string> p;
      if (!first_difference(outputs, old_run(one, p), labels).empty()) changes[c] = 1;
    }
  }
  // Name each changing consumer once, with its nearest producer (the last of an MFMA chain).
  std::vector<const HazardViolation*> named_sites;
  auto name_site = [&](const HazardViolation& v) {
    for (auto& x : named_sites)
      if (x->consumer_index == v.consumer_index) {
        if (v.wait_states < x->wait_states) x = &v;
        return;
      }
    named_sites.push_back(&v);
  };
  for (auto& v : res.violations) {
    if (v.llvm_only) continue;
    const bool alone = changes[v.consumer_index];
    if (!narrow || alone) {
      v.verdict = HazardViolation::Verdict::ChangesOutput;
      v.note = narrow ? "alone" : sites.size() == 1 ? "" : "together with the other sites; not narrowed";
    } else {
      v.verdict = HazardViolation::Verdict::Benign;
      v.note = "alone; the sites together change the output";
    }
  }
  if (std::none_of(res.violations.begin(), res.violations.end(),
                   [](const auto& v) { return v.verdict == HazardViolation::Verdict::ChangesOutput; }))
    for (auto& v : res.violations) {  // only the sites together change it
      if (v.llvm_only) continue;
      v.verdict = HazardViolation::Verdict::ChangesOutput;
      v.note = "only together with the other sites";
    }
  for (const auto& v : res.violations)
    if (v.verdict == HazardViolation::Verdict::ChangesOutput) name_site(v);
  std::string named;
  const std::size_t count = named_sites.size();
  for (std::size_t i = 0; i < count && i < 4; ++i) named += (named.empty() ? "" : "; ") + site_text(*named_sites[i]);
  res.error = who + "a wait-state violation changes the output (hazard policy differential): " + named +
              (count > 4 ? " (and " + std::to_string(count - 4) + " more)" : "") +
              "; with the registers' values from before the producer wrote them, " + diff;
  return res;
}

}  // namespace cdna::simulator
