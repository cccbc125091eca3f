#include "tools/trace_command.hpp"

#include <cctype>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <nlohmann/json.hpp>

#include "audit/decode/profile_file.hpp"
#include "audit/decode/trace_golden_verify.hpp"
#include "audit/decode/trace_judge.hpp"
#include "audit/decode/trace_layers.hpp"
#include "audit/output/atomic_file.hpp"
#include "audit/output/exit_codes.hpp"
#include "audit/output/output_paths.hpp"
#include "audit/output/shape_format.hpp"
#include "audit/output/summary_line.hpp"
#include "golden/decode_trace.hpp"
#include "golden/decode_weights.hpp"
#include "golden/safetensors.hpp"
#include "tools/layer_envelope_option.hpp"
#include "reference/decode/config.hpp"

namespace cdna::tools {
using namespace cdna::audit;

namespace {

nlohmann::json number(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(); }

}  // namespace

TraceCommand::TraceCommand(CLI::App& app) {
  cmd_ = app.add_subcommand(
      "trace",
      "Judge a decode trace of any implementation (tokens and logits of a greedy run; docs/decode-traces.md) against "
      "its model, teacher-forced on the run's own tokens: each token against the argmax of the run's own logits and "
      "against the exact model's token after the same prefix (the MPFR oracle), and with --profile each step's logits "
      "against the LM head of the run's own final hidden state and every layer's K, V and residual stream against the "
      "layer applied to the run's own layer input and cache (docs/decode-bounds.md §15). Each step: match, explained (a "
      "parting while every check up to it holds) or defect (a check failed at or before it; the first is named). Exit 0 "
      "PASS, 1 FAIL (a defect: a token that is not the argmax of its logits, a value outside its ball), 2 bad input or "
      "NOT CLASSIFIED (a step parts from the exact model and there is no --profile, or the trace lacks the hidden states "
      "and cache the per-layer checks need).");
  cmd_->add_option("--model", model_dir_, "Hugging Face model folder of the run (config.json + model.safetensors)")->required();
  cmd_->add_option("--trace", trace_path_, "The trace (safetensors: tokens, logits, prompt_length; docs/decode-traces.md)")
      ->required();
  cmd_->add_option("--reference", reference_,
                   "Where the exact model's logits come from: exact (the MPFR oracle, certified to 2^-52 relative; the "
                   "default), affine or ball (the fast reference's envelope: affine forms, slow at depth; balls, "
                   "vacuous beyond a few layers; docs/decode-bounds.md §12-§13)")
      ->check(CLI::IsMember({"exact", "affine", "ball"}));
  auto* profile = cmd_->add_option("--profile", profile_,
                   "The implementation's declared arithmetic, for the checks of its own values (per layer from hidden.L, "
                   "k.L, v.L; the LM head from hidden.n): fp32 (PyTorch in fp32 throughout, TF32 off) or bf16 (PyTorch "
                   "bf16: bf16 values between operations, fp32 accumulation, SDPA's fused attention) or "
                   "monokernel-rtne, -rtna, -rtz (this project's decode monokernel with that KV-cache rounding: a trace "
                   "written by `decode --write-trace`); or FILE.json, a profile file describing another implementation "
                   "(a built-in base with some arithmetic fields set otherwise; docs/decode-traces.md \"Profile files\"); "
                   "docs/decode-traces.md \"Profiles\". Default: none, no such check")
      ->check(CLI::Validator(
          [](const std::string& v) {
            return parse_trace_profile(v) || v.ends_with(".json")
                       ? std::string()
                       : v + " is not fp32, bf16, monokernel-rtne, monokernel-rtna, monokernel-rtz or a FILE.json profile file";
          },
          "PROFILE"));
  add_layer_envelope_option(cmd_, layer_envelope_, profile);
  cmd_->add_option("--threads", threads_, "Threads of the MPFR oracle and of the per-layer checks (0: all cores, the default)")
      ->check(CLI::Range(0u, 1024u));
  cmd_->add_option("--json", json_, "Also write the per-step results to FILE (JSON)");
  cmd_->add_option("--golden-out", golden_out_,
                   "Also write a decode trace golden file to FILE: the trace bit for bit with its verdict (each step's "
                   "exact token and verdict, the outcome), the model's weight hash, the profile with every field stated and "
                   "the reference, sealed by a digest; written whatever the outcome, checked later with `golden "
                   "decode-verify` (docs/golden-files.md \"Decode traces\")");
  cmd_->add_flag("--quiet", quiet_, "Print only the outcome, not a line per step");
}

bool TraceCommand::parsed() const { return cmd_->parsed(); }

int TraceCommand::run() {
  summary().start("trace");
  namespace fs = std::filesystem;
  for (const auto& [flag, file] : {std::pair{"--json", &json_}, std::pair{"--golden-out", &golden_out_}}) {
    if (!*file) continue;
    check_output_file(flag, **file);
    const fs::path out = fs::weakly_canonical(**file);
    if (out == fs::weakly_canonical(trace_path_) || out.parent_path() == fs::weakly_canonical(model_dir_) ||
        (profile_ && out == fs::weakly_canonical(*profile_)))
      throw std::invalid_argument(std::string(flag) + " " + **file +
                                  " is the trace, the profile file or a path in the model folder (which is read, never "
                                  "written); need another path");
  }
  if (json_ && golden_out_ && fs::weakly_canonical(*json_) == fs::weakly_canonical(*golden_out_))
    throw std::invalid_argument("--json and --golden-out name the same file " + *json_ + "; need two paths");
  // An output of an earlier run would be read as this run's if this one stops early.
  if (json_) fs::remove(*json_);
  if (golden_out_) fs::remove(*golden_out_);
  const reference::DecoderModel model = golden::load_decoder_model(model_dir_);
  // The file as read: a golden file keeps the trace bit for bit (BF16 tensors stay BF16).
  const golden::SafetensorsFile trace_file = golden::read_safetensors(trace_path_);
  const golden::DecodeTrace trace = golden::parse_decode_trace(trace_file, model.config, trace_path_);
  // The declared arithmetic: a built-in's, or a profile file's (its base named where it matters).
  std::optional<DeclaredProfile> declared;
  const bool from_file = profile_ && !parse_trace_profile(*profile_);
  if (from_file) {
    declared = read_profile_file(*profile_, model.config);
  } else if (profile_) {
    declared = declared_profile(*parse_trace_profile(*profile_), model.config);
  }
  const std::string base = declared ? to_string(declared->base) : "";
  // A monokernel trace records its KV-cache rounding (audit/decode/monokernel_trace.hpp): judged
  // under another mode's profile it would be held to arithmetic it never claimed.
  if (const auto k = trace.metadata.find("kv_rounding"); declared && base.starts_with("monokernel-") && k != trace.metadata.end()) {
    std::string mode = base.substr(std::string("monokernel-").size());
    for (char& ch : mode) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    if (k->second != mode)
      throw std::invalid_argument("--profile " + *profile_ + ": the trace's metadata kv_rounding is " + k->second +
                                  "; need --profile monokernel-" + [&] {
                                    std::string m = k->second;
                                    for (char& ch : m) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
                                    return m;
                                  }());
  }
  const TraceReference ref = *parse_trace_reference(reference_);  // the option's check
  std::cout << "trace: " << trace_path_ << " (" << trace.tokens.size() << " tokens, prompt " << trace.prompt_length << ", "
            << trace.steps() << " steps";
  if (const auto p = trace.metadata.find("producer"); p != trace.metadata.end()) std::cout << ", producer " << p->second;
  if (const auto d = trace.metadata.find("dtype"); d != trace.metadata.end()) std::cout << ", dtype " << d->second;
  std::cout << ")\nmodel: " << model_dir_ << " (" << model.config.num_hidden_layers << " layers, RoPE "
            << reference::rope_text(model.config) << "), reference " << reference_ << ", profile "
            << (declared ? declared->name + (from_file ? " (profile file " + *profile_ + ", base " + base + ")" : std::string()) +
                               ", layer envelope " + layer_envelope_
                         : std::string("none (no check of the run's own values)"))
            << (profile_ && trace.hidden.count(model.config.num_hidden_layers) == 0 ? " (the trace has no hidden.n: no LM-head check)" : "")
            << "\n";
  const reference::EnvelopeMethod layer_method = layer_envelope_method(layer_envelope_);
  const TraceJudgement j = judge_decode_trace(model, trace, ref, declared ? &*declared : nullptr, threads_,
                                              quiet_ ? nullptr : &std::cerr, layer_method);
  if (!quiet_) {
    for (const TraceStep& s : j.steps) {
      std::cout << "step " << s.step << " (position " << s.position << "): token " << s.token << ", "
                << to_string(s.kind);
      if (s.exact.kind == reference::DecisionKind::decided) std::cout << " (exact " << s.exact.token << ")";
      if (j.layers) std::cout << " -> " << to_string(s.verdict);
      std::cout << ", exact top-2 gap " << figure_text(s.exact_gap, 3) << ", run's gap " << figure_text(s.run_gap, 3)
                << ", largest logit deviation " << figure_text(s.max_deviation, 3) << " (reference radius "
                << figure_text(s.exact_radius, 2) << ")"
                << (s.run_argmax != s.token ? ", NOT the argmax of its logits" : "");
      if (s.lm_head)
        std::cout << ", LM head " << s.lm_head->outside << " of " << s.lm_head->checked << " outside (worst "
                  << figure_text(s.lm_head->worst_ratio, 2) << " of its radius)";
      std::cout << "\n";
    }
  }
  summary().set("steps", static_cast<std::uint64_t>(j.steps.size()));
  summary().set("matched", static_cast<std::uint64_t>(j.matched));
  summary().set("parted", static_cast<std::uint64_t>(j.parted));
  summary().set("undecided", static_cast<std::uint64_t>(j.undecided));
  if (j.layers) {
    summary().set("explained", static_cast<std::uint64_t>(j.explained));
    summary().set("defects", static_cast<std::uint64_t>(j.defects));
  }
  std::cout << to_string(j.outcome) << ": " << trace_summary(j);
  if (j.outcome != TraceOutcome::pass) std::cout << "; " << j.failure;
  std::cout << " (reference: ";
  if (j.precision_bits > 0)
    std::cout << "the MPFR oracle at " << j.precision_bits << " bits";
  else
    std::cout << "the fast reference's " << reference_ << " envelope";
  std::cout << ", " << figure_text(j.seconds, 3) << " s)\n";
  if (json_) {
    nlohmann::json o;
    o["trace"] = trace_path_;
    o["model"] = {{"folder", model_dir_}, {"rope", reference::rope_text(model.config)}};
    o["metadata"] = trace.metadata;
    o["reference"] = reference_;
    o["profile"] = declared ? nlohmann::json(declared->name) : nlohmann::json();
    if (from_file) o["profile_file"] = {{"path", *profile_}, {"base", base}};
    if (j.precision_bits > 0) o["precision_bits"] = j.precision_bits;
    for (const TraceStep& s : j.steps)
      o["steps"].push_back({{"step", s.step}, {"position", s.position}, {"token", s.token}, {"run_argmax", s.run_argmax},
                            {"kind", to_string(s.kind)}, {"verdict", to_string(s.verdict)},
                            {"exact_token", s.exact.kind == reference::DecisionKind::decided ? nlohmann::json(s.exact.token)
                                                                                              : nlohmann::json()},
                            {"exact_gap", number(s.exact_gap)}, {"exact_radius", number(s.exact_radius)},
                            {"run_gap", number(s.run_gap)}, {"max_deviation", number(s.max_deviation)},
                            {"worst_logit", s.worst_logit},
                            {"lm_head_outside", s.lm_head ? nlohmann::json(s.lm_head->outside) : nlohmann::json()},
                            {"lm_head_worst_ratio", s.lm_head ? number(s.lm_head->worst_ratio) : nlohmann::json()}});
    o["counts"] = {{"steps", j.steps.size()}, {"matched", j.matched}, {"parted", j.parted}, {"undecided", j.undecided},
                   {"argmax_failures", j.argmax_failures}, {"lm_head_checked", j.lm_head_checked},
                   {"lm_head_outside", j.lm_head_outside}, {"explained", j.explained}, {"defects", j.defects}};
    if (j.layers) {
      nlohmann::json l = {{"complete", j.layers->complete}, {"checked", j.layers->checked}, {"outside", j.layers->outside},
                          {"unbounded", j.layers->unbounded},
                          {"first_unbounded_position", j.layers->first_unbounded_position},
                          {"positions", j.layers->positions},
                          {"seconds", j.layers->seconds}};
      if (!j.layers->missing.empty()) l["missing"] = j.layers->missing;
      for (double r : j.layers->worst_ratio) l["worst_ratio_per_layer"].push_back(number(r));
      for (double r : j.layers->widest) l["widest_per_layer"].push_back(number(r));
      if (j.layers->first)
        l["first_outside"] = {{"layer", j.layers->first->layer}, {"position", j.layers->first->position},
                              {"tensor", j.layers->first->tensor}, {"element", j.layers->first->element},
                              {"value", number(j.layers->first->value)}, {"mid", number(j.layers->first->mid)},
                              {"radius", number(j.layers->first->radius)}};
      o["layers"] = l;
    }
    o["outcome"] = to_string(j.outcome);
    o["summary"] = trace_summary(j);
    if (!j.failure.empty()) o["failure"] = j.failure;
    write_atomically(*json_, o.dump(2) + "\n");
    std::cout << "json: " << *json_ << "\n";
  }
  if (golden_out_) {
    golden::write_safetensors(*golden_out_, golden::to_safetensors(make_trace_golden(trace_file, j, model_dir_,
                                                                                     declared ? &*declared : nullptr, ref,
                                                                                     layer_method)));
    std::cout << "golden: " << *golden_out_ << " (check it with `cdna-verify golden decode-verify " << *golden_out_ << "`)\n";
  }
  switch (j.outcome) {
    case TraceOutcome::pass: return kExitPass;
    case TraceOutcome::fail: return kExitFail;
    case TraceOutcome::not_classified: return kExitBadInput;
  }
  return kExitBadInput;
}

}  // namespace cdna::tools
