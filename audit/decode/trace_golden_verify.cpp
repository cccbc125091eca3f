#include "audit/decode/trace_golden_verify.hpp"

#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "audit/decode/profile_file.hpp"
#include "audit/output/exit_codes.hpp"
#include "audit/output/summary_line.hpp"
#include "golden/decode_golden.hpp"  // model_folder_sha256
#include "golden/decode_trace.hpp"
#include "golden/decode_weights.hpp"

namespace cdna::audit {

namespace {

std::int32_t exact_token(const TraceStep& s) {
  return s.exact.kind == reference::DecisionKind::decided ? static_cast<std::int32_t>(s.exact.token) : -1;
}

std::string token_text(std::int32_t t) { return t < 0 ? std::string("none (not decided)") : std::to_string(t); }

const char* verdict_text(std::uint8_t code) {
  return code <= 3 ? to_string(static_cast<TraceStepVerdict>(code)) : "?";
}

}  // namespace

golden::TraceGolden make_trace_golden(const golden::SafetensorsFile& trace_file, const TraceJudgement& j,
                                      const std::string& model_dir, const DeclaredProfile* profile,
                                      TraceReference reference, reference::EnvelopeMethod layer_method) {
  golden::TraceGolden g;
  g.trace = trace_file;
  // Absolute: the file is verified later from anywhere.
  g.model = std::filesystem::absolute(model_dir).lexically_normal().string();
  g.model_sha256 = golden::model_folder_sha256(model_dir);
  g.profile = profile ? profile_file_text(*profile) : std::string();
  g.reference = to_string(reference);
  g.layer_envelope = layer_method == reference::EnvelopeMethod::ball ? "ball" : "affine";
  g.outcome = to_string(j.outcome);
  for (const TraceStep& s : j.steps) {
    g.exact_token.push_back(exact_token(s));
    g.step_verdict.push_back(static_cast<std::uint8_t>(s.verdict));
  }
  return g;
}

int run_trace_golden_verify(const golden::TraceGolden& g, const std::string& path,
                            const std::optional<std::string>& model_dir, unsigned threads) {
  const std::string dir = model_dir.value_or(g.model);
  reference::DecoderModel model;
  try {
    model = golden::load_decoder_model(dir);
  } catch (const std::exception& e) {
    if (model_dir) throw;
    throw std::invalid_argument(path + ": the file's model folder " + g.model + " cannot be loaded (give --model DIR): " +
                                e.what());
  }
  if (golden::model_folder_sha256(dir) != g.model_sha256) {
    std::cout << "FAIL: " << path << ": the weights of " << dir << " are not the file's model (" << g.model << ", sha256 "
              << g.model_sha256 << ")\n";
    return kExitFail;
  }
  const golden::DecodeTrace trace = golden::parse_decode_trace(g.trace, model.config, path);
  for (std::size_t i = 0; i < g.exact_token.size(); ++i)
    if (g.exact_token[i] < -1 || g.exact_token[i] >= model.config.vocab_size)
      throw std::invalid_argument(path + ": exact_token[" + std::to_string(i) + "] = " + std::to_string(g.exact_token[i]) +
                                  " is not a token id or -1 (not decided); need [-1, " +
                                  std::to_string(model.config.vocab_size) + ")");
  std::optional<DeclaredProfile> profile;
  if (!g.profile.empty()) {
    // The profile as written states every field, so that a later version's base defaults do not
    // change what the file was judged under.
    if (const auto field = unstated_profile_field(g.profile))
      throw std::invalid_argument(path + ": metadata profile does not state " + *field +
                                  "; a trace golden file's profile states every field of a profile file");
    profile = parse_profile_text(g.profile, model.config, path + ": metadata profile");
  }
  const TraceReference ref = *parse_trace_reference(g.reference);  // read_trace_golden checked it
  const reference::EnvelopeMethod method =
      g.layer_envelope == "ball" ? reference::EnvelopeMethod::ball : reference::EnvelopeMethod::affine;
  const TraceJudgement j = judge_decode_trace(model, trace, ref, profile ? &*profile : nullptr, threads, &std::cerr, method);
  summary().set("steps", static_cast<std::uint64_t>(j.steps.size()));
  summary().set("matched", static_cast<std::uint64_t>(j.matched));
  if (j.layers) {
    summary().set("explained", static_cast<std::uint64_t>(j.explained));
    summary().set("defects", static_cast<std::uint64_t>(j.defects));
  }
  const std::string judged = j.failure.empty() ? std::string() : " (the judgement's first failure: " + j.failure + ")";
  for (std::size_t i = 0; i < j.steps.size(); ++i) {
    const TraceStep& s = j.steps[i];
    const std::int32_t t = exact_token(s);
    if (t != g.exact_token[i] || static_cast<std::uint8_t>(s.verdict) != g.step_verdict[i]) {
      std::cout << "FAIL: " << path << ": step " << s.step << " (position " << s.position << ", token " << s.token
                << "): the file records exact token " << token_text(g.exact_token[i]) << ", verdict "
                << verdict_text(g.step_verdict[i]) << "; judged again: exact token " << token_text(t) << ", verdict "
                << to_string(s.verdict) << judged << "\n";
      return kExitFail;
    }
  }
  const std::string outcome = to_string(j.outcome);
  if (outcome != g.outcome) {
    std::cout << "FAIL: " << path << ": the file records outcome " << g.outcome << "; judged again: " << outcome << judged
              << "\n";
    return kExitFail;
  }
  const std::string how = " (" + g.model + ", profile " + (profile ? profile->name : std::string("none")) + ", reference " +
                          g.reference + (profile ? ", layer envelope " + g.layer_envelope : std::string()) + ")";
  const std::string again = "; every step's exact token and verdict judged again and equal to the file's" + how;
  switch (j.outcome) {
    case TraceOutcome::pass:
      std::cout << "PASS: " << path << ": " << trace_summary(j) << again << "\n";
      return kExitPass;
    case TraceOutcome::fail:
      std::cout << "FAIL: " << path << ": the stored run has a defect, as the file records: " << trace_summary(j) << "; "
                << j.failure << again << "\n";
      return kExitFail;
    case TraceOutcome::not_classified: break;
  }
  std::cout << "NOT CLASSIFIED: " << path << ": " << trace_summary(j) << "; " << j.failure << again << "\n";
  return kExitBadInput;
}

}  // namespace cdna::audit
