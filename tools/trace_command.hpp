// `cdna-verify trace` (docs/decode-traces.md): a decode trace of any implementation (tokens and
// logits of a greedy run, golden/decode_trace.hpp) judged against a model folder, step by step,
// teacher-forced on the run's own prefix (audit/decode/trace_judge.hpp), and with --profile the
// run's logits against the LM head of its own final hidden state (audit/decode/trace_profile.hpp).
// Exit 0: PASS (every token the argmax of its own logits and the exact model's decided token,
// every checked logit in its ball); 1: FAIL (a token that is not the argmax of the run's own
// logits, a logit outside its ball); 2: bad input, or NOT CLASSIFIED (a step parts from the exact
// model, or the reference cannot decide it; the summary line says NOTHING JUDGED).
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

namespace cdna::tools {

class TraceCommand {
 public:
  explicit TraceCommand(CLI::App& app);
  bool parsed() const;
  // Reads the model and the trace, judges, prints a line per step (unless --quiet) and the
  // outcome, writes --json; returns the exit code. Bad input throws, one line.
  int run();

 private:
  CLI::App* cmd_ = nullptr;
  std::string model_dir_, trace_path_, reference_ = "exact", layer_envelope_ = "affine";
  unsigned threads_ = 0;
  std::optional<std::string> json_, profile_, golden_out_;
  bool quiet_ = false;
};

}  // namespace cdna::tools
