// `cdna-verify decode` (docs/decode-semantics.md "Running it"): one decode run of the monokernel
// (device/decode_launcher.hpp) on a model folder or a seeded random model, judged position by
// position (audit/decode/decode_check.hpp). Exit 0: PASS; 1: FAIL (a logit outside its ball, a decided
// token the kernel did not choose, a stop that does not fit, a kernel that faulted or hung, or the
// exact oracle outside a ball with --exact); 2: bad input, or NOTHING JUDGED (no position's token
// was decided).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "reference/decode/model.hpp"
#include "audit/run/executor_choice.hpp"

namespace cdna::tools {

class DecodeCommand {
 public:
  explicit DecodeCommand(CLI::App& app);
  CLI::App* cmd() const { return cmd_; }  // main.cpp adds the simulator options to it
  bool parsed() const;
  const std::string& executor_name() const { return executor_; }
  // Reads and checks every input (model, prompt, eos, mode, code object, output paths) before
  // any executor is chosen; throws CLI::ValidationError or std::invalid_argument, one line.
  void prepare();
  // Runs and judges on `chosen` (the simulator's settings already applied, listed in
  // `settings` for the report); prints the position lines and the summary; returns the exit code.
  int run(const audit::ChosenExecutor& chosen, const std::vector<std::pair<std::string, std::string>>& settings);

 private:
  CLI::App* cmd_ = nullptr;
  std::optional<std::string> model_dir_, code_object_, json_, golden_out_, trace_out_;
  std::optional<std::uint64_t> random_seed_;
  std::string preset_ = "tiny", mode_ = "rtne", executor_ = "auto", envelope_ = "affine",
              step_reference_ = "exact", layer_envelope_ = "affine";  // check_decode's default
  bool duplicate_rows_ = false, quiet_ = false, layer_checks_ = false;
  std::string prompt_raw_;  // --prompt as given (one argument, split here: CLI11 drops empty elements)
  std::optional<std::string> eos_raw_;  // --eos as given, likewise
  std::vector<std::int64_t> prompt_, eos_;
  std::int64_t steps_ = 0, exact_ = 0;
  std::optional<std::uint32_t> grid_;
  std::uint32_t block_ = 256;
  // Filled by prepare().
  reference::DecoderModel model_;
  std::string model_ref_, model_sha256_, code_object_path_;
  std::vector<std::byte> code_object_bytes_;
};

}  // namespace cdna::tools
