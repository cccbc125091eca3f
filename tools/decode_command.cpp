#include "tools/decode_command.hpp"
#include "audit/output/summary_line.hpp"

#include <unistd.h>

#include <filesystem>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "adapters/code_object_mode.hpp"
#include "device/decode_launcher.hpp"
#include "golden/decode_golden.hpp"
#include "golden/decode_weights.hpp"
#include "golden/digest.hpp"
#include "reference/decode/config.hpp"
#include "reference/decode/envelope.hpp"
#include "reference/decode/random.hpp"
#include "audit/output/atomic_file.hpp"
#include "tools/cli_checks.hpp"
#include "tools/layer_envelope_option.hpp"
#include "audit/decode/decode_audit.hpp"  // layer_checks_json
#include "audit/decode/decode_check.hpp"
#include "audit/decode/exact_check.hpp"
#include "audit/decode/monokernel_trace.hpp"
#include "golden/decode_trace.hpp"
#include "golden/safetensors.hpp"

namespace cdna::tools {

using namespace cdna::audit;  // the engine (audit/README.md)

namespace {

const char* decision_name(reference::DecisionKind k) {
  switch (k) {
    case reference::DecisionKind::decided: return "decided";
    case reference::DecisionKind::ambiguous: return "ambiguous";
    case reference::DecisionKind::nan: return "nan";
  }
  return "?";
}

// JSON has no inf or NaN: such figures become strings.
nlohmann::json number(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(std::to_string(x)); }

}  // namespace

DecodeCommand::DecodeCommand(CLI::App& app) {
  cmd_ = app.add_subcommand(
      "decode",
      "Run a Llama-architecture decode on the decode monokernel (one persistent dispatch: the prompt's positions, "
      "then up to --steps greedy tokens), then judge every position: its fp32 logits against their certified balls "
      "(the monokernel's declared arithmetic, teacher-forced on the kernel's own tokens) and every chosen token by "
      "certified token equality (docs/decode-semantics.md). Prints one line per position (stderr) and a summary. "
      "Exit 0 PASS, 1 FAIL, 2 bad input or NOTHING JUDGED (no position's token was decided, the balls too wide, and "
      "no --layer-checks classified every step).");
  auto* model = cmd_->add_option("--model", model_dir_,
                                 "Hugging Face model folder: config.json + model.safetensors (or an index and its "
                                 "shards), bf16 weights");
  auto* random = cmd_->add_option("--random-model", random_seed_, "Seed of a random model of --preset instead of --model")
                     ->check(unsigned_integer());
  model->excludes(random);
  cmd_->add_option("--preset", preset_, "Shapes of the random model: micro, tiny, llama-3.2-1b-layer, llama-3.2-1b (reference/decode/random.hpp)")
      ->capture_default_str();
  cmd_->add_flag("--duplicate-lm-head-rows", duplicate_rows_,
                 "Random model: LM-head rows 2i+1 copy rows 2i (exactly tied logits: the tie rule is exercised)");
  cmd_->add_option("--prompt", prompt_raw_, "Prompt token ids, comma-separated, each in [0, V)")->required();
  cmd_->add_option("--steps", steps_, "Tokens to generate, N >= 1")->required();
  cmd_->add_option("--eos", eos_raw_, "Stop ids, comma-separated (default: config.json's eos_token_id)");
  cmd_->add_option("--mode", mode_, "bf16 rounding of the KV cache: rtne, rtna, rtz")
      ->check(CLI::IsMember({"rtne", "rtna", "rtz"}))
      ->capture_default_str();
  cmd_->add_option("--grid", grid_,
                   "Workgroups G, all resident at once (default: 304 on HIP, one per MI300X CU; 8 on the simulator, "
                   "which runs every workgroup on the CPU: the same work in fewer, longer workgroups keeps simulated "
                   "time down)")
      ->check(CLI::Range(1u, 1u << 20));
  cmd_->add_option("--block", block_, "Work-items per workgroup, a multiple of 64 up to 1024")->capture_default_str();
  cmd_->add_option("--envelope", envelope_,
                   "How the balls are computed (docs/decode-bounds.md §12-13): affine (rounding errors as shared "
                   "symbols; narrow enough to decide one-layer models of H 64, ~0.5 s per position on the tiny preset) "
                   "or ball (componentwise; fast, decides only the smallest models)")
      ->check(CLI::IsMember({"ball", "affine"}))
      ->capture_default_str();
  cmd_->add_option("--executor", executor_, "auto (HIP device if present, else simulator), simulator, hip")
      ->check(CLI::IsMember({"auto", "simulator", "hip"}))
      ->capture_default_str();
  cmd_->add_option("--code-object", code_object_,
                   "Another decode monokernel code object (another build, a mutant); refused if it records a mode "
                   "other than --mode, run as --mode with a note if it records none");
  cmd_->add_option("--exact", exact_,
                   "Also run the exact MPFR oracle on the first K positions: the fast reference must lie within its "
                   "proven distance of it and the kernel's balls must contain it (a miss is a FAIL of the verifier)")
      ->check(unsigned_integer());
  cmd_->add_option("--json", json_, "Write the whole result as JSON to this file (written whole or not at all)");
  cmd_->add_option("--golden-out", golden_out_,
                   "Write a decode golden file (docs/golden-files.md, \"Decode\"): tokens, balls, decisions, kernel "
                   "logits; check it later with `golden decode-verify`");
  auto* layer_checks = cmd_->add_flag("--layer-checks", layer_checks_,
                 "Also judge the run layer by layer from its own values (docs/decode-bounds.md section 15): the kernel "
                 "records its residual stream, and every layer's K, V and residual stream is checked against that "
                 "layer applied to the run's own input and KV cache, the LM head against its own final hidden state, "
                 "each step against the exact model's token (--step-reference): match, parting explained, or "
                 "defect. Decides where the a-priori balls leave every step ambiguous; costs an MPFR oracle run unless --step-reference ball");
  cmd_->add_option("--step-reference", step_reference_,
                   "With --layer-checks, where each step's exact-model token comes from: exact (the MPFR oracle, "
                   "certain; measured 28 s per position for one layer at Llama-3.2-1B's shapes on 2 cores, more bits and "
                   "time with depth) or ball (the fast double "
                   "reference with its proven distance; may leave the exact token undecided at depth, which the "
                   "outcome line counts: such a step is explained when the run is faithful up to it)")
      ->check(CLI::IsMember({"exact", "ball"}))
      ->needs(layer_checks)
      ->capture_default_str();
  add_layer_envelope_option(cmd_, layer_envelope_, layer_checks);
  cmd_->add_option("--write-trace", trace_out_,
                   "Write the run as a decode trace (docs/decode-traces.md: tokens, logits, hidden.L, k.L, v.L), to "
                   "be judged later by `cdna-verify trace --profile monokernel-<mode>`");
  cmd_->add_flag("--quiet", quiet_, "No per-position lines on stderr");
}

bool DecodeCommand::parsed() const { return cmd_->parsed(); }

namespace {

// A comma list of token ids, split here keeping empty elements: "1,,2" is refused, not run as
// 1,2 (CLI11's delimiter drops them; issue 23 §6). Throws CLI::ValidationError naming `option`.
std::vector<std::int64_t> token_ids(const std::string& raw, const char* option) {
  std::vector<std::string> items(1);
  for (char ch : raw) {
    if (ch == ',')
      items.emplace_back();
    else
      items.back().push_back(ch);
  }
  for (std::size_t n = 0; n < items.size(); ++n)
    if (items[n].empty())
      throw CLI::ValidationError(option, "'" + raw + "' has an empty element (element " + std::to_string(n + 1) +
                                             "); need comma-separated token ids, e.g. 1,2,3");
  std::vector<std::int64_t> ids;
  for (const std::string& item : items) {
    std::size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size())
      throw CLI::ValidationError(option, "'" + item + "' is not a token id; need comma-separated integers, e.g. 1,2,3");
    ids.push_back(v);
  }
  return ids;
}

}  // namespace

void DecodeCommand::prepare() {
  if (!model_dir_ && !random_seed_) throw CLI::ValidationError("decode", "give --model DIR or --random-model SEED");
  if (model_dir_ && (duplicate_rows_ || cmd_->count("--preset") > 0))
    throw CLI::ValidationError("--preset/--duplicate-lm-head-rows", "apply to --random-model only, not to --model");
  if (steps_ < 1) throw CLI::ValidationError("--steps", std::to_string(steps_) + " is not a number of tokens; need >= 1");
  if (prompt_raw_.empty()) throw CLI::ValidationError("--prompt", "is empty; need at least one token id");
  prompt_ = token_ids(prompt_raw_, "--prompt");
  if (eos_raw_) eos_ = token_ids(*eos_raw_, "--eos");
  // Output files are checked before the run (minutes on the simulator): a folder that exists and
  // can be written, and not a folder name itself.
  for (const auto* out : {&json_, &golden_out_, &trace_out_}) {
    if (!*out) continue;
    const char* option = out == &json_ ? "--json" : out == &golden_out_ ? "--golden-out" : "--write-trace";
    const std::filesystem::path path(**out);
    const std::filesystem::path dir = path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
      throw CLI::ValidationError(option, "'" + path.string() + "' is a folder; need a file name");
    if (!std::filesystem::is_directory(dir, ec) || ::access(dir.c_str(), W_OK) != 0)
      throw CLI::ValidationError(option, "cannot write into '" + dir.string() + "' (not a writable folder)");
  }
  if (model_dir_) {
    model_ = golden::load_decoder_model(*model_dir_);
    model_ref_ = std::filesystem::absolute(*model_dir_).lexically_normal().string();  // golden files work from any folder
    model_sha256_ = golden::model_folder_sha256(*model_dir_);
  } else {
    reference::RandomModelOptions o;
    o.duplicate_lm_head_rows = duplicate_rows_;
    model_ = reference::random_decoder_model(reference::decoder_preset(preset_), *random_seed_, o);
    model_ref_ = "random:" + preset_ + ":" + std::to_string(*random_seed_) + (duplicate_rows_ ? ":dup" : "");
  }
  const std::int64_t vocab = model_.config.vocab_size;
  if (cmd_->count("--eos") == 0) eos_ = model_.config.eos_token_id;
  for (std::int64_t id : eos_)
    if (id < 0 || id >= vocab)
      throw CLI::ValidationError("--eos", "token " + std::to_string(id) + " is outside [0, " + std::to_string(vocab) +
                                              "), the model's vocabulary");
  const std::int64_t positions = static_cast<std::int64_t>(prompt_.size()) + steps_ - 1;
  if (exact_ > positions)
    throw CLI::ValidationError("--exact", std::to_string(exact_) + " positions, but the run has at most " +
                                              std::to_string(positions) + " (prompt + steps - 1)");
  const auto mode = *numerics::parse_rounding(mode_);  // CLI11 checked the spelling
  device::DecodeLaunch probe{&model_, prompt_, steps_, eos_, mode, grid_.value_or(1), block_};
  if (auto why = device::decode_unsupported_reason(probe)) throw std::invalid_argument(*why);
  code_object_path_ = code_object_ ? *code_object_ : device::decode_code_object(mode).string();
  static constexpr const char* kernels[] = {device::kDecodeKernel};
  const adapters::AttentionCodeObject c = adapters::load_attention_code_object(code_object_path_, mode, kernels);
  if (!c.mode_recorded)
    std::cerr << "cdna-verify: note: " << adapters::unchecked_mode_notice(code_object_path_, numerics::to_string(mode))
              << "\n";
  code_object_bytes_ = c.bytes;
}

int DecodeCommand::run(const ChosenExecutor& chosen, const std::vector<std::pair<std::string, std::string>>& settings) {
  DecodeCheckOptions options;
  device::DecodeLaunch& l = options.launch;
  l.model = &model_;
  l.prompt = prompt_;
  l.steps = steps_;
  l.eos = eos_;
  l.mode = *numerics::parse_rounding(mode_);
  l.grid = grid_.value_or(chosen.sim ? 8u : 304u);
  l.block = block_;
  options.progress = quiet_ ? nullptr : &std::cerr;
  options.method = envelope_ == "affine" ? reference::EnvelopeMethod::affine : reference::EnvelopeMethod::ball;
  options.layer_checks = layer_checks_;
  options.step_reference = step_reference_ == "ball" ? TraceReference::ball : TraceReference::exact;
  options.layer_method = layer_envelope_method(layer_envelope_);
  l.record_hidden = trace_out_.has_value();

  // --exact: the oracle and the fast reference follow the same fed tokens as the kernel's balls.
  std::optional<ExactCheck> exact_check;
  if (exact_ > 0) exact_check.emplace(model_, exact_);
  golden::DecodeGolden gold;
  options.on_bounds = [&](const reference::StepBounds& kernel_balls) {
    if (golden_out_) {
      gold.mid.insert(gold.mid.end(), kernel_balls.mid.begin(), kernel_balls.mid.end());
      gold.rad.insert(gold.rad.end(), kernel_balls.rad.begin(), kernel_balls.rad.end());
    }
    if (exact_check) exact_check->add(kernel_balls);
  };

  std::function<std::uint64_t()> wave_instructions;
  if (auto* sim = chosen.sim) wave_instructions = [sim] { return sim->last_stats().wave_instructions; };
  DecodeCheck check;
  try {
    check = check_decode(*chosen.executor, code_object_bytes_, options, wave_instructions);
  } catch (const std::invalid_argument&) {
    throw;  // a launch the kernel or executor cannot take (e.g. a grid that is not resident): exit 2
  } catch (const std::runtime_error& e) {
    // The kernel faulted, hung or left no status: a failure of the kernel, not of the input.
    std::cout << "FAIL: the decode kernel did not complete: " << e.what() << "\n";
    return 1;
  }
  if (exact_check) exact_check->judge(check);
  const ExactReport exact = exact_check ? exact_check->report() : ExactReport{};

  const auto& stats = check.kernel.stats;
  const double per = static_cast<double>(std::max<std::int64_t>(stats.positions, 1));
  std::cout << "decode: " << model_ref_ << " (RoPE " << reference::rope_text(model_.config) << "), prompt " << prompt_.size() << " tokens, " << steps_ << " steps, "
            << mode_ << ", envelope " << envelope_ << ", grid " << l.grid << ", block " << l.block << ", executor " << chosen.executor->name()
            << ", code object " << code_object_path_;
  for (const auto& [k, v] : settings) std::cout << ", " << k << " " << v;
  std::cout << "\n";
  std::cout << "kernel tokens:";
  for (auto t : check.kernel.tokens) std::cout << ' ' << t;
  std::cout << "\n" << decode_outcome_line(check) << "\n";
  std::cout << (chosen.sim ? "simulator CPU" : "device") << " seconds per position " << stats.seconds / per;
  if (chosen.sim) std::cout << ", wave instructions per position " << static_cast<double>(check.wave_instructions) / per;
  std::cout << ", weight bytes per position " << stats.weight_bytes_per_token << " of " << stats.model_bytes
            << " model bytes, envelope " << check.envelope_seconds << " s\n";
  if (exact_ > 0)
    std::cout << "exact oracle, " << exact.positions << " positions: fast reference within its proven distance ("
              << exact.outside_fast << " outside, worst ratio " << exact.worst_fast_ratio << "); kernel balls: "
              << exact.outside_kernel << " outside, worst ratio " << exact.worst_kernel_ratio << " over finite radii, "
              << exact.kernel_infinite << " infinite radii\n";

  if (golden_out_) {
    gold.model = model_ref_;
    gold.model_sha256 = model_sha256_;
    gold.code_object_sha256 = golden::sha256_hex(code_object_bytes_);
    gold.mode = l.mode;
    gold.envelope = envelope_;
    gold.steps = steps_;
    gold.vocab = model_.config.vocab_size;
    gold.eos = eos_;
    gold.prompt = prompt_;
    gold.kernel_tokens = check.kernel.tokens;
    gold.kernel_logits = check.kernel.logits;
    for (const DecodePosition& p : check.positions) {
      gold.decided.push_back(p.verdict.decision.kind != reference::DecisionKind::ambiguous);
      gold.decided_token.push_back(static_cast<std::int32_t>(p.verdict.decision.token));
    }
    golden::write_safetensors(*golden_out_, golden::to_safetensors(gold));
    std::cout << "golden: " << *golden_out_ << "\n";
  }
  if (trace_out_ && check.kernel.status == device::DecodeStatus::Nan) {
    // The verdict stands (and --json is still written); only the trace cannot be made.
    std::cerr << "cdna-verify: note: --write-trace: the run stopped on a NaN logit (token -1), which no trace can "
                 "hold; no trace written\n";
  } else if (trace_out_) {
    try {
      golden::write_safetensors(*trace_out_, golden::decode_trace_file(monokernel_trace(l, check.kernel), model_.config));
    } catch (...) {
      if (golden_out_) std::filesystem::remove(*golden_out_);
      throw;
    }
    std::cout << "trace: " << *trace_out_ << " (judge it with `cdna-verify trace --profile monokernel-" << mode_ << "`)\n";
  }
  if (json_) {
    nlohmann::json j;
    const auto& c = model_.config;
    j["model"] = {{"reference", model_ref_},   {"layers", c.num_hidden_layers}, {"hidden", c.hidden_size},
                  {"intermediate", c.intermediate_size}, {"heads_q", c.num_attention_heads},
                  {"heads_kv", c.num_key_value_heads}, {"head_dim", c.head_dim}, {"vocab", c.vocab_size},
                  {"rope", reference::rope_text(c)}};
    j["launch"] = {{"prompt", prompt_}, {"steps", steps_}, {"eos", eos_}, {"mode", mode_}, {"envelope", envelope_}, {"grid", l.grid},
                   {"block", l.block}, {"executor", chosen.executor->name()}, {"code_object", code_object_path_}};
    for (const auto& [k, v] : settings) j["launch"]["simulator"][k] = v;
    j["kernel"] = {{"tokens", check.kernel.tokens}, {"status", device::to_string(check.kernel.status)}};
    for (const DecodePosition& p : check.positions) {
      const auto& v = p.verdict;
      j["positions"].push_back({{"position", p.position}, {"fed_token", p.fed_token}, {"chooses", p.chooses},
                                {"kernel_token", p.chooses ? nlohmann::json(v.kernel_token) : nlohmann::json()},
                                {"decision", p.chooses ? decision_name(v.decision.kind) : "prompt"},
                                {"decided_token", v.expected_token},
                                {"candidates", v.decision.candidates.size()}, {"outside", v.outside},
                                {"max_ratio", number(v.max_ratio)}, {"median_radius", number(p.median_radius)},
                                {"gap", number(p.top_gap)}});
    }
    const DecodeCounts& n = check.counts;
    j["counts"] = {{"positions", n.positions}, {"choosing", n.choosing},   {"decided", n.decided},
                   {"ambiguous", n.ambiguous}, {"matched", n.matched},     {"mismatched", n.mismatched},
                   {"logits_outside", n.logits_outside}, {"logits_finite_radius", n.logits_finite_radius},
                   {"last_position_local_checked", n.local_checked}, {"last_position_local_outside", n.local_outside}};
    if (check.layers) {
      nlohmann::json& lc = j["layer_checks"] = layer_checks_json(n, check.layer_seconds);
      const double layer_s = check.layers->layers ? check.layers->layers->seconds : 0.0;
      lc["outcome"] = to_string(check.layers->outcome);
      lc["layer_check_seconds"] = layer_s;
      lc["reference_and_lm_head_seconds"] = check.layers->seconds - layer_s;
      lc["oracle_bits"] = check.layers->precision_bits;
      lc["step_reference"] = step_reference_;
      lc["layer_envelope"] = layer_envelope_;
      lc["exact_token_undecided"] = check.layers->undecided;
    }
    j["outcome"] = to_string(check.outcome);
    j["summary"] = decode_outcome_line(check);
    if (!check.failure.empty()) j["failure"] = check.failure;
    j["figures"] = {{"kernel_seconds_per_position", stats.seconds / per},
                    {"wave_instructions_per_position", static_cast<double>(check.wave_instructions) / per},
                    {"weight_bytes_per_position", stats.weight_bytes_per_token}, {"model_bytes", stats.model_bytes},
                    {"envelope_seconds", check.envelope_seconds}};
    if (exact_ > 0)
      j["exact"] = {{"positions", exact.positions}, {"outside_fast", exact.outside_fast},
                    {"worst_fast_ratio", number(exact.worst_fast_ratio)}, {"outside_kernel", exact.outside_kernel},
                    {"worst_kernel_ratio", number(exact.worst_kernel_ratio)},
                    {"kernel_infinite_radii", exact.kernel_infinite}};
    try {
      write_atomically(*json_, j.dump(2) + "\n");
    } catch (...) {
      // All outputs or none: the golden file and trace written just before go too.
      if (golden_out_) std::filesystem::remove(*golden_out_);
      if (trace_out_) std::filesystem::remove(*trace_out_);
      throw;
    }
    std::cout << "json: " << *json_ << "\n";
  }
  summary().set("positions", static_cast<std::uint64_t>(check.counts.positions));
  summary().set("decided", static_cast<std::uint64_t>(check.counts.decided));
  summary().set("mismatched", static_cast<std::uint64_t>(check.counts.mismatched));
  if (check.outcome == DecodeOutcome::NothingJudged) {
    std::cerr << "cdna-verify: error: no position's token was decided (every step ambiguous: the balls are too wide "
                 "to order the logits)"
              << (layer_checks_ ? "" : "; --layer-checks judges each step from the run's own values")
              << "; the outcome is NOTHING JUDGED, not a pass\n";
    return 2;
  }
  return check.outcome == DecodeOutcome::Pass ? 0 : 1;
}

}  // namespace cdna::tools
