// `cdna-verify golden gen|make|verify|check`: golden files (golden/golden_file.hpp,
// docs/golden-files.md) — write them for the golden set, re-derive and re-run what they hold,
// make them from a user's Q, K, V (tools/golden_make.hpp), and judge any implementation's output
// against one.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "golden/golden_file.hpp"
#include "reference/attention.hpp"
#include "tools/shard_option.hpp"
#include "tools/golden_make.hpp"

namespace cdna::tools {

// One problem of the golden set.
struct GoldenCaseSpec {
  std::string id, description;
  reference::AttentionProblem problem;
  std::string seeds;      // "q=101 k=102 v=103 (reference::randn_bf16)" or "none"
  std::string inputs;     // how Q, K, V were made
  std::string reduction;  // "" for a handed case at its own shape, else what was made smaller and why
  std::optional<golden::RowsEqualV> fact;
  std::optional<reference::VarlenProblem> varlen;  // a varlen case (then `problem` is unused)
  golden::Layout layout;                           // the strides a kernel is run with (default bshd)
};

// "q=S k=S+1 v=S+2 (reference::randn_bf16 ...)": the seeds of randn_case's inputs.
std::string seeds_text(std::uint64_t seed);
// A dense case with seeded randn inputs as tools/audit_cases.cpp makes them (Q seed, K seed + 1,
// V seed + 2; Q, K with std qk_std, V with v_std), scale fl32(1/sqrt(D)).
GoldenCaseSpec randn_case(std::string id, std::string description, reference::AttentionShape shape,
                          reference::Mask mask, std::uint64_t seed, double qk_std = 1.0, double v_std = 1.0);

// The golden set's cases of the extended definition (tools/golden_feature_cases.cpp): varlen C05,
// padded cache C11, paged KV, windows, soft cap, sinks, Dv != D, fp8 e4m3 and e5m2, layouts.
std::vector<GoldenCaseSpec> golden_feature_cases();

// The golden set: the handed cases C01–C14 of ../shared/cases/README.md that the oracle can
// compute without varlen inputs (C05 and C11 need varlen; C14's K and V alone are 17 MB),
// reduced in shape where the full case would be large (each says how), and a small grid
// (D 64, Hq/Hkv 2/1, (Sq, Sk) in (1, 20), (5, 5), (5, 20), (17, 5); masks none and causal
// bottom-right, and causal top-left where it differs from both and from C02), and the crafted
// rounding cases R01, … (tools/rounding_cases.hpp).
std::vector<GoldenCaseSpec> golden_cases();

// "C02-top-left" -> "C02-top-left.rtne.safetensors"; '/' in grid ids becomes '_'.
std::string golden_file_name(const std::string& case_id, numerics::Rounding mode);

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
  CLI::App* decode_verify_ = nullptr;  // tools/decode_golden_verify.hpp
  std::string decode_verify_path_;
  std::optional<std::string> decode_verify_model_;
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
  CLI::Option* lse_tensor_option_ = nullptr;  // given explicitly: the tensor must exist
  unsigned threads_ = 0;
  std::string profile_ = "ours";  // check --profile (tools/profile_option.hpp)

  int run_gen();
  int run_verify();
  int run_check();
};

}  // namespace cdna::tools
