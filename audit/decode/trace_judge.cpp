#include "audit/decode/trace_judge.hpp"

#include <algorithm>
#include <chrono>
#include <future>
#include <cmath>
#include <iomanip>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <sstream>
#include <stdexcept>

#include "audit/output/shape_format.hpp"
#include "reference/decode/exact.hpp"

namespace cdna::audit {
namespace {

// The index of the largest value (lowest on ties); −1 if any is NaN.
std::int64_t argmax(const float* x, std::int64_t n) {
  std::int64_t best = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    if (std::isnan(x[i])) return -1;
    if (x[i] > x[best]) best = i;
  }
  return best;
}

// Largest minus second largest of n values (n ≥ 2), NaN-free.
template <class T>
double top2_gap(const T* x, std::int64_t n) {
  double a = -std::numeric_limits<double>::infinity(), b = a;
  for (std::int64_t i = 0; i < n; ++i) {
    const double v = static_cast<double>(x[i]);
    if (v > a) {
      b = a;
      a = v;
    } else if (v > b) {
      b = v;
    }
  }
  return a - b;
}

}  // namespace

const char* to_string(TraceStepKind kind) {
  switch (kind) {
    case TraceStepKind::match: return "match";
    case TraceStepKind::parting: return "parting";
    case TraceStepKind::undecided: return "undecided";
  }
  return "?";
}

const char* to_string(TraceStepVerdict verdict) {
  switch (verdict) {
    case TraceStepVerdict::match: return "match";
    case TraceStepVerdict::explained: return "explained";
    case TraceStepVerdict::defect: return "defect";
    case TraceStepVerdict::unclassified: return "not classified";
  }
  return "?";
}

std::optional<TraceReference> parse_trace_reference(std::string_view name) {
  if (name == "exact") return TraceReference::exact;
  if (name == "affine") return TraceReference::affine;
  if (name == "ball") return TraceReference::ball;
  return std::nullopt;
}

const char* to_string(TraceReference reference) {
  switch (reference) {
    case TraceReference::exact: return "exact";
    case TraceReference::affine: return "affine";
    case TraceReference::ball: return "ball";
  }
  return "?";
}

const char* to_string(TraceOutcome outcome) {
  switch (outcome) {
    case TraceOutcome::pass: return "PASS";
    case TraceOutcome::fail: return "FAIL";
    case TraceOutcome::not_classified: return "NOT CLASSIFIED";
  }
  return "?";
}

// Balls containing the exact logits of each position, from the oracle or an envelope.
class ExactLogits {
 public:
  ExactLogits(const reference::DecoderModel& model, TraceReference r, unsigned bits, unsigned threads) {
    if (r == TraceReference::exact) {
      oracle_.emplace(model, bits, threads);
      const auto& w = model.weights.lm_head_matrix(model.config);
      tie_ = std::make_shared<const std::vector<std::int64_t>>(
          reference::lm_head_tie_classes(w, model.config.vocab_size, model.config.hidden_size));
    } else {
      envelope_.emplace(model, reference::double_arithmetic(),
                        r == TraceReference::ball ? reference::EnvelopeMethod::ball : reference::EnvelopeMethod::affine);
    }
  }
  reference::StepBounds step(std::int64_t token) {
    if (envelope_) return envelope_->step(token);
    reference::StepBounds b;
    b.position = oracle_->position();
    b.token = token;
    b.mid = oracle_->step(token);
    for (double m : b.mid) b.rad.push_back(std::isfinite(m) ? reference::exact_logit_error(m) : 0.0);
    b.tie_class = tie_;
    b.identical_rows_identical_logits = true;  // identical exact rows give identical exact logits
    return b;
  }

 private:
  std::optional<reference::ExactDecoder> oracle_;
  std::optional<reference::DecodeEnvelope> envelope_;
  std::shared_ptr<const std::vector<std::int64_t>> tie_;
};

// One pass over the trace at the oracle's `bits` (ignored by the envelopes).
TraceJudgement judge_at(const reference::DecoderModel& model, const golden::DecodeTrace& trace, TraceReference reference,
                        const DeclaredProfile* profile, unsigned bits, unsigned threads, std::ostream* progress,
                        reference::EnvelopeMethod layer_method) {
  const std::int64_t H = model.config.hidden_size;
  const auto final_hidden = trace.hidden.find(model.config.num_hidden_layers);
  const bool lm_head = profile && final_hidden != trace.hidden.end();
  const auto t0 = std::chrono::steady_clock::now();
  // The per-layer checks need nothing from the reference: they run beside it.
  std::future<TraceLayerCheck> layers;
  if (profile)
    layers = std::async(std::launch::async, [&] { return check_trace_layers(model, trace, profile->arithmetic, layer_method, threads, progress); });
  ExactLogits exact(model, reference, bits, threads);
  const std::int64_t V = model.config.vocab_size, P = trace.prompt_length, S = trace.steps();
  TraceJudgement j;
  for (std::int64_t pos = 0; pos <= trace.position_of_step(S - 1); ++pos) {
    const reference::StepBounds b = exact.step(trace.tokens[static_cast<std::size_t>(pos)]);
    if (pos < P - 1) continue;  // a prompt position: its token choice is not the run's
    TraceStep st;
    st.step = pos - (P - 1);
    st.position = pos;
    st.token = trace.tokens[static_cast<std::size_t>(P + st.step)];
    const float* row = trace.logits.data() + st.step * V;
    st.run_argmax = argmax(row, V);
    st.exact = reference::decide_greedy(b);
    st.exact_gap = top2_gap(b.mid.data(), V);
    st.exact_radius = *std::max_element(b.rad.begin(), b.rad.end());
    st.run_gap = st.run_argmax < 0 ? std::numeric_limits<double>::quiet_NaN() : top2_gap(row, V);
    for (std::int64_t i = 0; i < V; ++i) {
      const double d = std::abs(static_cast<double>(row[i]) - b.mid[static_cast<std::size_t>(i)]);
      if (d > st.max_deviation) {  // a NaN logit is judged by the argmax check, not measured here
        st.max_deviation = d;
        st.worst_logit = i;
      }
    }
    if (st.exact.kind != reference::DecisionKind::decided) {
      st.kind = TraceStepKind::undecided;
      ++j.undecided;
    } else if (st.exact.token == st.token) {
      st.kind = TraceStepKind::match;
      ++j.matched;
    } else {
      st.kind = TraceStepKind::parting;
      ++j.parted;
      if (j.first_parting < 0) j.first_parting = st.step;
    }
    if (st.run_argmax != st.token) {
      ++j.argmax_failures;
      if (j.failure.empty()) {
        std::ostringstream m;
        m << std::setprecision(9) << "step " << st.step << " (position " << pos << "): token " << st.token
          << " is not the argmax of the run's own logits (";
        if (st.run_argmax < 0)
          m << "a logit is NaN)";
        else if (row[st.token] == row[st.run_argmax])
          m << "logit[" << st.token << "] = " << row[st.token] << " ties logit[" << st.run_argmax
            << "], and a tie goes to the lowest index)";
        else
          m << "logit[" << st.token << "] = " << row[st.token] << " < logit[" << st.run_argmax << "] = " << row[st.run_argmax] << ")";
        j.failure = m.str();
      }
    }
    if (lm_head) {
      st.lm_head = check_lm_head(model, std::span(final_hidden->second).subspan(static_cast<std::size_t>(pos * H), static_cast<std::size_t>(H)),
                                 std::span(row, static_cast<std::size_t>(V)), *profile);
      j.lm_head_checked += st.lm_head->checked;
      j.lm_head_outside += st.lm_head->outside;
      if (st.lm_head->outside > 0 && j.failure.empty())
        j.failure = "step " + std::to_string(st.step) + " (position " + std::to_string(pos) + "): " + st.lm_head->first;
    }
    j.steps.push_back(st);
    if (progress != nullptr && (st.step + 1) % 10 == 0)
      *progress << ("trace: " + std::to_string(st.step + 1) + " of " + std::to_string(S) + " steps judged\n") << std::flush;
  }
  if (layers.valid()) j.layers = layers.get();
  // The lowest position where a check failed: the token check, the LM head, a layer.
  std::int64_t bad = std::numeric_limits<std::int64_t>::max();
  std::string bad_line;
  for (const TraceStep& s : j.steps) {
    if (s.run_argmax != s.token || (s.lm_head && s.lm_head->outside > 0)) {
      bad = s.position;
      break;
    }
  }
  if (j.layers && j.layers->first && j.layers->first_bad_position <= bad) {
    bad = j.layers->first_bad_position;  // the earliest failure is a layer's: name it
    j.failure = j.layers->first->line();
  }
  const bool checked = j.layers && j.layers->complete;
  // A parting is explained only where every value up to it was judged: an unbounded ball (a
  // value that may overflow, or a bound too wide to be finite) leaves faithfulness unshown.
  const std::int64_t judged_to = !checked ? -1
                                 : j.layers->first_unbounded_position < 0 ? std::numeric_limits<std::int64_t>::max()
                                                                          : j.layers->first_unbounded_position;
  for (TraceStep& s : j.steps) {
    if (s.position >= bad) s.verdict = TraceStepVerdict::defect;
    else if (s.kind == TraceStepKind::match) s.verdict = TraceStepVerdict::match;
    else s.verdict = s.position < judged_to ? TraceStepVerdict::explained : TraceStepVerdict::unclassified;
    j.explained += s.verdict == TraceStepVerdict::explained;
    j.defects += s.verdict == TraceStepVerdict::defect;
  }
  j.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (j.argmax_failures > 0 || j.lm_head_outside > 0 || (j.layers && j.layers->outside > 0)) {
    j.outcome = TraceOutcome::fail;
  } else if (std::any_of(j.steps.begin(), j.steps.end(), [](const TraceStep& s) { return s.verdict == TraceStepVerdict::unclassified; })) {
    j.outcome = TraceOutcome::not_classified;
    std::ostringstream m;
    m << (j.parted > 0 ? "whether the declared arithmetic explains the parting" : "why the reference cannot decide a step")
      << " needs the per-layer checks: ";
    if (!profile) m << "give --profile";
    else if (!checked) m << "the trace lacks " << j.layers->missing << " (hidden.0 … n, k.L and v.L are needed)";
    else m << "from position " << j.layers->first_unbounded_position << " on some values have no finite ball under profile "
           << profile->name << " (" << j.layers->unbounded << " not judged)";
    j.failure = m.str();
  } else {
    j.outcome = TraceOutcome::pass;
  }
  return j;
}

TraceJudgement judge_decode_trace(const reference::DecoderModel& model, const golden::DecodeTrace& trace,
                                  TraceReference reference, std::optional<TraceProfile> profile, unsigned threads,
                                  std::ostream* progress, reference::EnvelopeMethod layer_method) {
  std::optional<DeclaredProfile> declared;
  if (profile) declared = declared_profile(*profile, model.config);
  return judge_decode_trace(model, trace, reference, declared ? &*declared : nullptr, threads, progress, layer_method);
}

TraceJudgement judge_decode_trace(const reference::DecoderModel& model, const golden::DecodeTrace& trace,
                                  TraceReference reference, const DeclaredProfile* profile,
                                  unsigned threads, std::ostream* progress, reference::EnvelopeMethod layer_method) {
  // The oracle's ball radii grow with depth (a few dozen bits per layer at these sizes); it
  // refuses rather than return a logit it cannot certify, and the run restarts at twice the
  // precision: 128 bits suffice for one layer, 256 for the 4-layer fixture.
  for (unsigned bits = 128;; bits *= 2) {
    try {
      TraceJudgement j = judge_at(model, trace, reference, profile, bits, threads, progress, layer_method);
      j.precision_bits = reference == TraceReference::exact ? bits : 0;
      return j;
    } catch (const std::runtime_error& e) {
      if (reference != TraceReference::exact || bits >= 4096 || std::string(e.what()).find("raise precision_bits") == std::string::npos)
        throw;
      if (progress != nullptr) *progress << "trace: the oracle needs more than " << bits << " bits; again at " << 2 * bits << "\n";
    }
  }
}

std::string trace_summary(const TraceJudgement& j) {
  std::ostringstream o;
  o << j.steps.size() << " steps: " << j.matched << " match the exact model, " << j.parted << " part from it, "
    << j.undecided << " undecided; " << j.argmax_failures << " tokens not the argmax of the run's own logits";
  if (j.lm_head_checked > 0)
    o << "; LM head: " << j.lm_head_outside << " of " << j.lm_head_checked << " logits outside their balls";
  if (j.layers && j.layers->complete)
  {
    o << "; layers: " << j.layers->outside << " of " << j.layers->checked << " values outside their balls ("
      << j.layers->positions << " positions";
    const auto& w = j.layers->widest;
    if (const auto it = std::ranges::max_element(w); it != w.end() && *it > 0)
      o << "; widest ball " << figure_text(*it, 2) << " x the RMS of its tensor, layer " << (it - w.begin());
    if (j.layers->unbounded > 0)
      o << "; " << j.layers->unbounded << " without a finite ball, not judged, from position "
        << j.layers->first_unbounded_position;
    o << ")";
  }
  if (j.layers) {
    const auto count = [&](TraceStepVerdict v) { return std::ranges::count(j.steps, v, &TraceStep::verdict); };
    o << "; verdicts: " << count(TraceStepVerdict::match) << " match, " << j.explained << " explained, " << j.defects << " defect";
  }
  if (j.first_parting >= 0) {
    const TraceStep& s = j.steps[static_cast<std::size_t>(j.first_parting)];
    o << "; first parting at step " << s.step << " (position " << s.position << "): run token " << s.token << ", exact "
      << s.exact.token << ", exact top-2 gap " << figure_text(s.exact_gap, 3) << ", run's largest logit deviation "
      << figure_text(s.max_deviation, 3);
  }
  return o.str();
}

}  // namespace cdna::audit
