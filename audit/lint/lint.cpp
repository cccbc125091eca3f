// The control-flow walk of `cdna-verify lint` (audit/lint/lint.hpp).
#include "audit/lint/lint.hpp"

#include <algorithm>
#include <deque>
#include <tuple>

#include "simulator/checks/hazard.hpp"

namespace cdna::audit {
namespace {

using simulator::Opcode;
using simulator::Program;

// Producers live at one point: (producer index, wait states since it), sorted by index.
struct Live {
  std::uint32_t producer;
  std::uint32_t since;
  std::uint64_t superseded = 0;  // rules for which a later producer wrote all its registers
};
using State = std::vector<Live>;

std::string hex(std::uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

// The state after instruction i: every live producer is one instruction's wait states older,
// expired ones leave, and i itself enters if it produces for any rule.
State after(const Program& p, std::uint32_t i, const State& in) {
  const auto& hz = p.hazards;
  State out;
  out.reserve(in.size() + 1);
  const auto& rules = simulator::hazard_rules();
  for (const Live& l : in) {
    const std::uint32_t since = l.since + hz[i].wait_states;
    if (since >= hz[l.producer].window) continue;
    std::uint64_t superseded = l.superseded;
    for (std::uint64_t both = hz[i].produces & hz[l.producer].produces & ~superseded; both; both &= both - 1) {
      const auto r = static_cast<std::size_t>(__builtin_ctzll(both));
      if (simulator::supersedes(hz[i], hz[l.producer], rules[r])) superseded |= std::uint64_t{1} << r;
    }
    out.push_back({l.producer, since, superseded});
  }
  if (hz[i].produces) {
    auto it = std::lower_bound(out.begin(), out.end(), i, [](const Live& l, std::uint32_t v) { return l.producer < v; });
    if (it != out.end() && it->producer == i) it->since = 0, it->superseded = 0;
    else out.insert(it, {i, 0, 0});
  }
  return out;
}

// Merges `in` into `into` keeping the smaller count per producer; true if `into` changed.
bool merge(State& into, const State& in) {
  bool changed = false;
  State m;
  m.reserve(into.size() + in.size());
  std::size_t a = 0, b = 0;
  while (a < into.size() || b < in.size()) {
    if (b == in.size() || (a < into.size() && into[a].producer < in[b].producer)) {
      m.push_back(into[a++]);
    } else if (a == into.size() || in[b].producer < into[a].producer) {
      m.push_back(in[b++]);
      changed = true;
    } else {
      // A rule stays superseded only if it is on every incoming path.
      const std::uint64_t superseded = into[a].superseded & in[b].superseded;
      if (in[b].since < into[a].since || superseded != into[a].superseded) changed = true;
      m.push_back({into[a].producer, std::min(into[a].since, in[b].since), superseded});
      ++a, ++b;
    }
  }
  into.swap(m);
  return changed;
}

// Successors of instruction i; a path the walk cannot follow adds a note.
std::vector<std::uint32_t> successors(const Program& p, std::uint32_t i, std::vector<std::string>& notes) {
  const simulator::Inst& I = p.insts[i];
  const std::string at = "pc " + hex(I.address - p.code_entry) + " '" + p.text[i] + "'";
  const std::uint32_t next = i + 1 < p.insts.size() ? i + 1 : UINT32_MAX;
  if (!p.reason[i].empty()) {
    notes.push_back(at + ": not checked beyond this instruction (" + p.reason[i] + ")");
    return {};
  }
  switch (I.op) {
    case Opcode::s_endpgm: case Opcode::s_trap: return {};
    case Opcode::s_branch: return {I.target};
    case Opcode::s_cbranch_scc0: case Opcode::s_cbranch_scc1: case Opcode::s_cbranch_vccz:
    case Opcode::s_cbranch_vccnz: case Opcode::s_cbranch_execz: case Opcode::s_cbranch_execnz:
    case Opcode::s_cbranch_i_fork: case Opcode::s_call_b64:
      return next == UINT32_MAX ? std::vector<std::uint32_t>{I.target} : std::vector<std::uint32_t>{I.target, next};
    case Opcode::s_setpc_b64:
      notes.push_back(at + ": jumps to a computed address; the code there is not checked");
      return {};
    case Opcode::s_swappc_b64:
      notes.push_back(at + ": calls a computed address; the callee is not checked and the return path starts "
                           "with the state before the call");
      break;
    default: break;
  }
  return next == UINT32_MAX ? std::vector<std::uint32_t>{} : std::vector<std::uint32_t>{next};
}

}  // namespace

LintResult lint_program(const Program& p) {
  LintResult r;
  const std::size_t n = p.insts.size();
  std::vector<State> in(n);
  std::vector<char> reached(n, 0), queued(n, 0);
  std::deque<std::uint32_t> work{p.entry_index};
  reached[p.entry_index] = queued[p.entry_index] = 1;
  std::vector<std::vector<std::uint32_t>> succ(n);
  std::vector<char> have_succ(n, 0);
  while (!work.empty()) {  // to the fixed point: a state only gains producers or smaller counts
    const std::uint32_t i = work.front();
    work.pop_front();
    queued[i] = 0;
    if (!have_succ[i]) succ[i] = successors(p, i, r.notes), have_succ[i] = 1;
    const State out = after(p, i, in[i]);
    for (std::uint32_t s : succ[i]) {
      const bool first = !reached[s];
      reached[s] = 1;
      if ((merge(in[s], out) || first) && !queued[s]) queued[s] = 1, work.push_back(s);
    }
  }
  std::vector<simulator::HazardHit> hits;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (!reached[i]) continue;
    ++r.instructions;
    if (!p.hazards[i].consumes) continue;
    for (const Live& l : in[i]) {
      hits.clear();
      simulator::hazard_hits(p.hazards[l.producer], p.hazards[i], static_cast<int>(l.since), p.accum_offset, hits);
      for (const auto& h : hits) {
        const auto bit = static_cast<std::size_t>(h.rule - simulator::hazard_rules().data());
        if ((l.superseded >> bit) & 1) continue;  // a later writer of the same rule: its hazard, not this one
        r.findings.push_back({p.insts[i].address - p.code_entry, p.insts[l.producer].address - p.code_entry,
                              p.text[i], p.text[l.producer], std::string(h.rule->id), std::string(h.rule->what),
                              h.reg, h.rule->source, h.need, static_cast<int>(l.since), h.rule->llvm_only()});
      }
    }
  }
  // One finding per consumer and rule: the producer with the largest shortfall (an MFMA chain
  // writing the same registers would otherwise repeat one hazard for every link).
  std::sort(r.findings.begin(), r.findings.end(), [](const LintFinding& a, const LintFinding& b) {
    return std::make_tuple(a.pc, a.rule, a.present - a.need, a.producer_pc) <
           std::make_tuple(b.pc, b.rule, b.present - b.need, b.producer_pc);
  });
  r.findings.erase(std::unique(r.findings.begin(), r.findings.end(),
                               [](const LintFinding& a, const LintFinding& b) { return a.pc == b.pc && a.rule == b.rule; }),
                   r.findings.end());
  return r;
}

std::string describe(const LintFinding& f) {
  return "pc " + hex(f.pc) + " '" + f.consumer + "': " + f.what + (f.reg.empty() ? "" : " (" + f.reg + ")") + " " +
         std::to_string(f.present) + " wait states after pc " + hex(f.producer_pc) + " '" + f.producer +
         "'; needs " + std::to_string(f.need) + " (rule " + f.rule + ", " + f.source + ")" +
         (f.llvm_only ? "; LLVM only: listed, not a documented hazard" : "");
}

}  // namespace cdna::audit
