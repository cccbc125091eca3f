#include "audit/decode/decode_check.hpp"

#include "audit/decode/ball_forward.hpp"
#include "audit/decode/monokernel_trace.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace cdna::audit {

std::string_view to_string(DecodeOutcome o) {
  switch (o) {
    case DecodeOutcome::Pass: return "pass";
    case DecodeOutcome::Fail: return "fail";
    case DecodeOutcome::NothingJudged: return "nothing_judged";
  }
  return "?";
}

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

double top_gap(const std::vector<double>& mid) {
  double a = -INFINITY, b = -INFINITY;
  for (double x : mid) {
    if (x > a) b = a, a = x;
    else if (x > b) b = x;
  }
  return a - b;
}

// Why the kernel's stop does not fit its status ("" if it does).
std::string stop_problem(const device::DecodeResult& k, const device::DecodeLaunch& launch) {
  const auto n = static_cast<std::int64_t>(k.tokens.size());
  switch (k.status) {
    case device::DecodeStatus::Steps:
      if (n != launch.steps)
        return "status steps but " + std::to_string(n) + " tokens for " + std::to_string(launch.steps) + " steps";
      return "";
    case device::DecodeStatus::Eos:
      if (n == 0 || std::find(launch.eos.begin(), launch.eos.end(), k.tokens.back()) == launch.eos.end())
        return "status eos but the last token is not an eos id";
      return "";
    case device::DecodeStatus::Nan:
      if (n == 0 || k.tokens.back() != -1) return "status nan but the last token is not -1";
      return "";
  }
  return "unknown status";
}

}  // namespace

DecodeCheck check_decode(device::Executor& executor, std::span<const std::byte> code_object,
                         const DecodeCheckOptions& options,
                         const std::function<std::uint64_t()>& wave_instructions) {
  const device::DecodeLaunch& launch = options.launch;
  DecodeCheck out;
  device::DecodeLaunch run = launch;
  run.record_hidden = run.record_hidden || options.layer_checks;
  out.kernel = device::run_decode(executor, code_object, run);
  if (wave_instructions) out.wave_instructions = wave_instructions();
  if (options.edit_result) options.edit_result(out.kernel);
  const device::DecodeResult& k = out.kernel;
  const reference::DecoderModel& model = *launch.model;
  const auto vocab = model.config.vocab_size;
  const auto prompt = static_cast<std::int64_t>(launch.prompt.size());
  const std::int64_t positions = k.stats.positions;

  const auto t0 = std::chrono::steady_clock::now();
  const reference::EnvelopeMethod method = options.method.value_or(
      model.config.hidden_size <= 128 ? reference::EnvelopeMethod::affine : reference::EnvelopeMethod::ball);
  reference::DecodeEnvelope envelope(model, reference::monokernel_arithmetic(launch.mode), method);
  auto fail = [&](const std::string& why) {
    if (out.failure.empty()) out.failure = why;
  };
  if (const std::string p = stop_problem(k, launch); !p.empty()) fail(p);
  if (static_cast<std::int64_t>(k.logits.size()) != positions * vocab)
    throw std::runtime_error("decode kernel returned " + std::to_string(k.logits.size()) + " logits for " +
                             std::to_string(positions) + " positions of V = " + std::to_string(vocab));
  for (std::int64_t q = 0; q < positions; ++q) {
    DecodePosition pos;
    pos.position = q;
    pos.fed_token = q < prompt ? launch.prompt[static_cast<std::size_t>(q)]
                               : k.tokens[static_cast<std::size_t>(q - prompt)];
    pos.chooses = q >= prompt - 1;
    const reference::StepBounds bounds = envelope.step(pos.fed_token);
    if (options.on_bounds) options.on_bounds(bounds);
    const std::span<const float> row(k.logits.data() + q * vocab, static_cast<std::size_t>(vocab));
    const std::int64_t chosen_index = q - (prompt - 1);
    const std::int64_t kernel_token =
        pos.chooses && chosen_index < static_cast<std::int64_t>(k.tokens.size())
            ? k.tokens[static_cast<std::size_t>(chosen_index)]
            : -2;  // a prompt position: its token is not the kernel's choice
    pos.verdict = reference::judge_step(bounds, row, kernel_token);
    pos.median_radius = median(bounds.rad);
    pos.top_gap = top_gap(bounds.mid);

    // This position from the kernel's KV cache (its K/V slot and logits, where the balls are finite).
    const device::StepCheck sc =
        device::check_position_from_kv(model, launch.mode, k.params, k.kv_cache, row, q, pos.fed_token);
    pos.state_checked = static_cast<std::int64_t>(sc.checked);
    pos.state_outside = static_cast<std::int64_t>(sc.outside);
    pos.state_first = sc.first;
    DecodeCounts& c = out.counts;
    ++c.positions;
    c.logits_outside += pos.verdict.outside;
    c.state_checked += pos.state_checked;
    c.state_outside += pos.state_outside;
    for (double r : bounds.rad) c.logits_finite_radius += std::isfinite(r) ? 1 : 0;
    if (pos.verdict.outside > 0)
      fail("position " + std::to_string(q) + ": " + std::to_string(pos.verdict.outside) +
           " logits outside their balls (worst index " + std::to_string(pos.verdict.worst_index) + ")");
    if (pos.state_outside > 0)
      fail("position " + std::to_string(q) + " (from the kernel's KV cache): " + std::to_string(pos.state_outside) +
           " of " + std::to_string(pos.state_checked) + " values outside one position of the declared arithmetic; first: " +
           pos.state_first);
    if (pos.chooses) {
      ++c.choosing;
      pos.decided = pos.verdict.decision.kind != reference::DecisionKind::ambiguous;
      pos.expected_token = pos.verdict.decision.token;
      pos.match = pos.decided && kernel_token == pos.expected_token;
      c.decided += pos.decided ? 1 : 0;
      c.ambiguous += pos.decided ? 0 : 1;
      if (pos.match) ++c.matched;
      if (pos.decided && !pos.match) {
        ++c.mismatched;
        fail("position " + std::to_string(q) + ": kernel token " + std::to_string(kernel_token) +
             ", the definition's (decided) " + std::to_string(pos.expected_token));
      }
    }
    if (options.progress) *options.progress << position_line(pos, kernel_token) << '\n';
    out.positions.push_back(std::move(pos));
  }
  if (positions > 0 && k.status != device::DecodeStatus::Nan) {
    const std::int64_t last = positions - 1;
    const std::span<const float> row(k.logits.data() + last * vocab, static_cast<std::size_t>(vocab));
    const device::StepCheck local = device::check_last_position(
        model, launch.mode, k.params, k.last_exchange_set, k.kv_cache, row, last, out.positions.back().fed_token);
    out.counts.local_checked = static_cast<std::int64_t>(local.checked);
    out.counts.local_outside = static_cast<std::int64_t>(local.outside);
    if (local.outside > 0)
      fail("position " + std::to_string(last) + " (local check): " + std::to_string(local.outside) + " of " +
           std::to_string(local.checked) + " values outside one step of the declared arithmetic; first: " + local.first);
  }
  out.envelope_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  bool layers_pass = false;
  if (options.layer_checks && k.status == device::DecodeStatus::Nan)
    out.layers_not_run = "the run stopped on a NaN logit, which no trace can hold";
  else if (options.layer_checks && !stop_problem(k, launch).empty())
    out.layers_not_run = "the run's stop does not fit its status";
  if (options.layer_checks && out.layers_not_run.empty()) {
    const auto t1 = std::chrono::steady_clock::now();
    const golden::DecodeTrace trace = monokernel_trace(run, k);
    out.layers = judge_decode_trace(model, trace, options.step_reference, monokernel_profile(launch.mode),
                                    options.threads, nullptr, options.layer_method);
    out.layer_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
    const TraceJudgement& j = *out.layers;
    DecodeCounts& c = out.counts;
    for (const TraceStep& s : j.steps) {
      c.layer_matched += s.verdict == TraceStepVerdict::match ? 1 : 0;
      c.layer_explained += s.verdict == TraceStepVerdict::explained ? 1 : 0;
      c.layer_defects += s.verdict == TraceStepVerdict::defect ? 1 : 0;
      c.layer_unclassified += s.verdict == TraceStepVerdict::unclassified ? 1 : 0;
    }
    if (j.layers) {
      c.layer_checked = j.layers->checked;
      c.layer_outside = j.layers->outside;
      c.layer_unbounded = j.layers->unbounded;
    }
    if (j.outcome == TraceOutcome::fail) fail("per-layer checks: " + j.failure);
    layers_pass = j.outcome == TraceOutcome::pass;
  }
  if (!out.failure.empty())
    out.outcome = DecodeOutcome::Fail;
  else
    out.outcome = layers_pass || out.counts.decided > 0 ? DecodeOutcome::Pass : DecodeOutcome::NothingJudged;
  return out;
}

std::string position_line(const DecodePosition& p, std::int64_t kernel_token) {
  std::ostringstream s;
  s << "pos " << p.position << "  fed " << p.fed_token;
  const reference::StepVerdict& v = p.verdict;
  if (p.chooses) {
    s << "  kernel " << kernel_token << "  ";
    if (!p.decided)
      s << "ambiguous (" << v.decision.candidates.size() << " candidates)";
    else
      s << "decided " << p.expected_token << (p.expected_token < 0 ? " (NaN logits)" : "")
        << (v.decision.by_tie_class ? " (tie class)" : "");
  } else {
    s << "  (prompt)";
  }
  s << "  logits outside " << v.outside << "  max|k-mid|/rad " << v.max_ratio << "  median rad "
    << p.median_radius << "  gap " << p.top_gap << "  from KV: " << p.state_outside << "/" << p.state_checked
    << " outside  ";
  const bool bad = v.outside > 0 || p.state_outside > 0 || (p.chooses && p.decided && !p.match);
  s << (bad ? "FAIL" : (p.chooses && !p.decided ? "ambiguous" : "pass"));
  return s.str();
}

std::string decode_outcome_line(const DecodeCheck& c) {
  std::ostringstream s;
  switch (c.outcome) {
    case DecodeOutcome::Pass: s << "PASS"; break;
    case DecodeOutcome::Fail: s << "FAIL"; break;
    case DecodeOutcome::NothingJudged: s << "NOTHING JUDGED"; break;
  }
  const DecodeCounts& n = c.counts;
  s << ": " << n.positions << " positions, " << n.choosing << " choosing a token: " << n.decided << " decided ("
    << n.matched << " match, "
    << n.mismatched << " mismatch), " << n.ambiguous << " ambiguous; every position from the kernel's KV cache: "
    << n.state_outside << " of " << n.state_checked << " values outside; " << n.logits_outside << " logits outside their a-priori balls, " << n.logits_finite_radius << " of "
    << n.positions * (c.positions.empty() ? 0 : static_cast<std::int64_t>(c.kernel.logits.size() / std::max<std::int64_t>(n.positions, 1)))
    << " with a finite ball; last position's local check: " << n.local_outside << " of " << n.local_checked
    << " values outside; status " << device::to_string(c.kernel.status);
  if (c.layers)
    s << "; per-layer checks: " << n.layer_matched << " match, " << n.layer_explained << " explained, "
      << n.layer_defects << " defect, " << n.layer_unclassified << " not classified of " << c.layers->steps.size()
      << " steps, " << n.layer_outside << " of " << n.layer_checked << " layer values outside"
      << (n.layer_unbounded > 0 ? ", " + std::to_string(n.layer_unbounded) + " without a finite ball" : std::string())
      << (c.layers->undecided > 0 ? "; the exact model's token undecided at " + std::to_string(c.layers->undecided) +
                                        " steps (its reference's balls too wide)"
                                  : std::string())
      << (c.layers->outcome != TraceOutcome::pass ? " (" + c.layers->failure + ")" : std::string());
  if (!c.layers_not_run.empty()) s << "; per-layer checks: not run (" << c.layers_not_run << ")";
  if (c.outcome == DecodeOutcome::Fail) s << "; first failure: " << c.failure;
  return s.str();
}

}  // namespace cdna::audit
