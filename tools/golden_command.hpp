// `cdna-verify golden gen|make|verify|check`: golden files (golden/golden_file.hpp,
// docs/golden-files.md) — write them for the golden set, re-derive and re-run what they hold,
// make them from a user's Q, K, V (tools/golden_make.hpp), and judge any implementation's output
// against one.
#pragma once

#include <CLI/CLI.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tools/shard_option.hpp"
#include "tools/golden_make.hpp"
#include "audit/output/junit.hpp"

namespace cdna::tools {

// Registers `golden` and its subcommands on `app`.
class GoldenCommand {
 public:
  explicit GoldenCommand(CLI::App& app);
  bool parsed() const;
  // Runs the parsed subcommand: exit code 0 pass, 1 fail. Bad input throws (one line), which
  // main turns into exit code 2.
  int run();

 private:
  CLI::App* golden_ = nullptr;
  CLI::App* gen_ = nullptr;
  CLI::App* verify_ = nullptr;
  CLI::App* check_ = nullptr;
  CLI::App* make_ = nullptr;
  CLI::App* decode_verify_ = nullptr;  // audit/decode/golden_verify.hpp
  std::string decode_verify_path_;
  std::optional<std::string> decode_verify_model_;
  unsigned decode_verify_threads_ = 0;
  GoldenMakeOptions make_options_;
  // gen
  std::string out_dir_;
  std::string cases_;
  std::vector<std::string> modes_{"rtne", "rtna", "rtz"};
  std::string gen_executor_ = "simulator";
  std::string gen_kernel_ = "attention-fwd";
  std::string gen_code_object_;
  bool quiet_ = false;
  // verify
  std::string verify_path_;
  std::string verify_executor_ = "simulator";
  ShardOption verify_shard_;  // --shard I/N: the files of this shard's case ids only
  // check
  std::string golden_path_;
  std::string candidate_;
  std::string candidate_format_ = "safetensors";
  std::string candidate_lse_;
  std::string o_tensor_ = "o", lse_tensor_ = "lse";
  CLI::Option* o_tensor_option_ = nullptr;    // given with a raw candidate: refused
  CLI::Option* lse_tensor_option_ = nullptr;  // given explicitly: the tensor must exist
  unsigned threads_ = 0;
  std::string profile_ = "ours";  // check --profile (tools/profile_option.hpp)
  // verify, check: --junit FILE (audit/output/junit.hpp; docs/ci.md "JUnit output")
  std::string junit_;
  std::chrono::system_clock::time_point started_;

  int run_gen();
  int run_verify();
  int run_check();
  // Runs `work` of subcommand `sub` ("golden-verify", "golden-check") with --junit: the file
  // checked writable first, an <error> testcase written if `work` throws.
  int with_junit(const std::string& sub, const std::function<int()>& work);
  void write_junit(const std::string& sub, std::vector<audit::junit::TestCase> cases, std::string system_out = "");
};

}  // namespace cdna::tools
