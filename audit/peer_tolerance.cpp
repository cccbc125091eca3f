#include "audit/peer_tolerance.hpp"

#include <sstream>
#include <vector>

#include "audit/output/shape_format.hpp"  // figure_text
#include "reference/attention/peer_rules.hpp"

namespace cdna::audit {
namespace {

enum class Rule { Mha, Pa, Moonmath };

// The rule's verdict on one dense problem: err, tol as the rule compares them.
reference::PeerVerdict judge_one(Rule rule, const reference::AttentionProblem& p, std::span<const std::uint16_t> o) {
  reference::PeerReferences refs;
  refs.shape = p.shape;
  refs.upcast = reference::upcast_reference(p);
  if (rule == Rule::Pa) return reference::aiter_pa_rule(refs, o);
  if (rule == Rule::Moonmath) return reference::moonmath_rule(refs, o);
  refs.lowp = reference::bf16_reference(p);
  return reference::aiter_rule(refs, o);
}

}  // namespace

std::optional<PeerTolerance> peer_tolerance(std::string_view kernel, const reference::AttentionProblem* dense,
                                            const reference::VarlenProblem* varlen, std::span<const std::uint16_t> o) {
  Rule rule;
  std::string name;
  if (kernel == "aiter-fmha-v3") rule = Rule::Mha, name = "AITER test_mha.py rule";
  else if (kernel == "aiter-pa") rule = Rule::Pa, name = "AITER test_pa.py rule";
  else if (kernel == "moonmath") rule = Rule::Moonmath, name = "MoonMath's test rule";
  else return std::nullopt;
  const reference::AttentionProblem& base = varlen ? varlen->base : *dense;
  if (base.shape.dv() != base.shape.head_dim || reference::extended_feature(base)) return std::nullopt;

  reference::PeerVerdict worst;
  worst.pass = true;
  double worst_ratio = -1;
  std::string where;
  // The first failing sequence, else the one nearest its tolerance.
  const auto take = [&](const reference::PeerVerdict& v, const std::string& at) {
    const double ratio = v.tol > 0 ? v.err / v.tol : v.err;
    if (worst.pass && (!v.pass || !(ratio <= worst_ratio))) worst = v, worst_ratio = ratio, where = at;
  };
  if (!varlen) {
    take(judge_one(rule, *dense, o), "");
  } else {
    const std::vector<std::uint16_t> all(o.begin(), o.end());
    const std::vector<float> no_lse;
    for (std::int64_t b = 0; b < varlen->sequences(); ++b) {
      if (varlen->seqlen_q(b) == 0) continue;
      std::vector<std::uint16_t> seq_o;
      std::vector<float> seq_lse;
      reference::gather_sequence(*varlen, b, all, no_lse, seq_o, seq_lse);
      take(judge_one(rule, reference::sequence_problem(*varlen, b), seq_o), "sequence " + std::to_string(b) + ": ");
    }
  }
  std::ostringstream t;
  t << name << ": " << (worst.pass ? "pass" : "FAIL") << ", ";
  if (rule == Rule::Pa) t << where << "max |O - ref| / (0.01 + 0.01|ref|) " << figure_text(worst.err) << " (<= 1 passes)";
  else if (rule == Rule::Moonmath) t << where << "max |O - ref| / (0.05 + 0.05|ref|) " << figure_text(worst.err) << " (<= 1 passes)";
  else t << where << "max|O - ref| " << figure_text(worst.err) << (worst.pass ? " <= " : " > ") << figure_text(worst.tol);
  return PeerTolerance{worst.pass, t.str()};
}

}  // namespace cdna::audit
