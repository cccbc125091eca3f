#include "audit/decode/decode_audit.hpp"

#include <chrono>
#include <iomanip>
#include <limits>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "device/attention_launcher.hpp"  // read_file
#include "device/decode_launcher.hpp"
#include "reference/decode/random.hpp"

namespace cdna::audit {

namespace {

// The decode mutants, as CDNA_DECODE_MUTANTS in device/CMakeLists.txt (what each gets wrong:
// device/kernels/decode_monokernel.hip).
const std::vector<std::string>& decode_mutant_names() {
  static const std::vector<std::string> names = {
      "dropped_release",      "dropped_release_plain_store", "dropped_acquire",
      "sentinel_reset_wrong_step", "rope_position_off_by_one", "rope_interleaved",
      "kv_wrong_slot",
      "residual_twice",       "rmsnorm_eps_misplaced",       "argmax_tie_highest",
      "gqa_mod",              "lm_head_tile_skipped"};
  return names;
}

// The "micro" preset (reference/decode/random.hpp): small enough that the certified bounds decide
// its steps; two query heads per KV head, so that a wrong GQA mapping reads another head.
reference::DecoderConfig micro_config() { return reference::decoder_preset("micro"); }

}  // namespace

// Short runs of D01 and of the micro model with duplicated LM-head rows (so the tie-breaking
// mutant meets ties), and D01's on four workgroups.
std::vector<DecodeCase> decode_kill_cases() {
  DecodeCase a;
  a.id = "K1";
  a.description = "micro model, seed 1, 12 steps";
  a.config = micro_config();
  a.seed = 1;
  a.prompt = {1, 2, 3};
  a.steps = 12;
  DecodeCase b = a;
  b.id = "K2";
  b.description = "micro model, seed 2, LM-head rows duplicated, 12 steps";
  b.seed = 2;
  b.duplicate_lm_head_rows = true;
  // The protocol's case (audit/decode/decode_memory_model_test.cpp): four workgroups on four
  // XCDs, where a reset performed after the partial that should follow it is read as new.
  DecodeCase k = a;
  k.id = "K3";
  k.description = "micro model, seed 1, grid 4, 12 steps";
  k.grid = 4;
  k.starve_sweep = true;
  return {a, b, k};
}

namespace {

device::DecodeLaunch launch_of(const DecodeCase& c, const reference::DecoderModel& model, numerics::Rounding mode,
                               std::uint32_t grid) {
  device::DecodeLaunch l;
  l.model = &model;
  l.prompt = c.prompt;
  l.steps = c.steps;
  l.mode = mode;
  l.grid = c.grid ? c.grid : grid;
  return l;
}

}  // namespace

std::vector<DecodeCase> decode_cases() {
  std::vector<DecodeCase> out;
  DecodeCase d;
  d.id = "D01";
  d.description = "micro model (1 layer, H 32, Hq 4, Hkv 2, D 8, V 200), seed 1, 64 steps";
  d.config = micro_config();
  d.seed = 1;
  d.prompt = {1, 2, 3};
  d.steps = 64;
  out.push_back(d);

  d = {};
  d.id = "D02";
  d.description = "small model (1 layer, H 64, I 128, Hq 4, Hkv 2, D 16, V 500), seed 4, 64 steps";
  d.config = micro_config();
  d.config.hidden_size = 64;
  d.config.intermediate_size = 128;
  d.config.head_dim = 16;
  d.config.vocab_size = 500;
  d.seed = 4;
  d.prompt = {10, 20, 30, 40};
  d.steps = 64;
  out.push_back(d);

  d = {};
  d.id = "D03";
  d.description = "micro model, seed 2, LM-head rows duplicated (ties go to the lowest index), 64 steps";
  d.config = micro_config();
  d.seed = 2;
  d.duplicate_lm_head_rows = true;
  d.prompt = {5, 6};
  d.steps = 64;
  out.push_back(d);

  d = {};
  d.id = "D04";
  d.description = "tiny preset (2 layers, H 256, V 1000), seed 1, 16 steps (bounds too wide to decide: "
                  "docs/decode-bounds.md §12)";
  d.config = reference::decoder_preset("tiny");
  d.seed = 1;
  d.prompt = {1, 2, 3, 4};
  d.steps = 16;
  d.layer_checks = true;
  out.push_back(d);

  d.layer_checks = false;
  d.id = "D05";
  d.description = "tiny preset, seed 3, a NaN LM-head weight: token -1 and stop, no hang";
  d.seed = 3;
  d.nan_row = 7;
  d.prompt = {9};
  d.steps = 4;
  out.push_back(d);

  d = {};
  d.id = "D06";
  d.description = "one layer at Llama-3.2-1B's shapes (H 2048, I 8192, V 128256), seed 1, 2 steps";
  d.config = reference::decoder_preset("llama-3.2-1b-layer");
  d.seed = 1;
  d.prompt = {128000};
  d.steps = 2;
  d.slow = true;
  out.push_back(d);

  d = {};
  d.id = "D07";
  d.description = "16 layers (H 128, I 384, Hq 4, Hkv 1, D 32, V 2048: t16-h128-mqa's shapes), seed 1, 16 steps "
                  "(a priori nothing decided; judged layer by layer)";
  d.config = reference::decoder_preset("micro");
  d.config.hidden_size = 128;
  d.config.intermediate_size = 384;
  d.config.num_hidden_layers = 16;
  d.config.num_attention_heads = 4;
  d.config.num_key_value_heads = 1;
  d.config.head_dim = 32;
  d.config.vocab_size = 2048;
  d.config.tie_word_embeddings = false;
  d.seed = 1;
  d.prompt = {1, 17, 42, 7, 99, 3};
  d.steps = 16;
  d.layer_checks = true;
  out.push_back(d);
  return out;
}

reference::DecoderModel decode_case_model(const DecodeCase& c) {
  reference::RandomModelOptions o;
  o.duplicate_lm_head_rows = c.duplicate_lm_head_rows;
  reference::DecoderModel m = reference::random_decoder_model(c.config, c.seed, o);
  if (c.nan_row) {
    auto& head = c.config.tie_word_embeddings ? m.weights.embed_tokens : m.weights.lm_head;
    head.at(static_cast<std::size_t>(*c.nan_row * c.config.hidden_size)) = 0x7FC0;  // bf16 quiet NaN
  }
  return m;
}

int DecodeAuditResult::count(DecodeOutcome o) const {
  int n = 0;
  for (const auto& r : rows) n += r.outcome == o ? 1 : 0;
  return n;
}

int DecodeAuditResult::killed() const {
  int n = 0;
  for (const auto& m : mutants) n += m.killed ? 1 : 0;
  return n;
}

DecodeAuditResult run_decode_audit(const DecodeAuditOptions& options, device::Executor& executor,
                                   const std::function<std::uint64_t()>& wave_instructions,
                                   const std::function<void(std::optional<std::uint64_t>)>& set_memory_model) {
  const auto t0 = std::chrono::steady_clock::now();
  DecodeAuditResult out;
  const std::regex filter(options.case_filter.empty() ? std::string(".*") : options.case_filter);
  std::size_t position = 0;
  for (const DecodeCase& c : decode_cases()) {
    if (!std::regex_search(c.id, filter) || (c.slow && !options.include_slow)) continue;
    const std::size_t case_position = position++;
    if (options.owns && !options.owns(c.id)) continue;
    const reference::DecoderModel model = decode_case_model(c);
    for (numerics::Rounding mode : options.modes) {
      DecodeCaseResult row;
      row.id = c.id;
      row.description = c.description;
      row.mode = std::string(numerics::to_string(mode));
      row.position = case_position;
      DecodeCheckOptions o;
      o.launch = launch_of(c, model, mode, options.grid);
      o.layer_checks = c.layer_checks;
      // a-priori balls, not affine forms, where the per-layer checks judge: affine forms at 16
      // layers cost minutes and decide nothing (docs/decode-bounds.md §12)
      if (c.layer_checks && c.config.num_hidden_layers > 2) o.method = reference::EnvelopeMethod::ball;
      try {
        const std::vector<std::byte> code = device::read_file(device::decode_code_object(mode), "decode code object");
        const DecodeCheck check = check_decode(executor, code, o, wave_instructions);
        row.outcome = check.outcome;
        row.line = decode_outcome_line(check);
        row.counts = check.counts;
        row.status = std::string(device::to_string(check.kernel.status));
        row.positions = check.kernel.stats.positions;
        row.kernel_seconds = check.kernel.stats.seconds;
        row.envelope_seconds = check.envelope_seconds;
        row.wave_instructions = check.wave_instructions;
        row.weight_bytes_per_token = check.kernel.stats.weight_bytes_per_token;
        row.model_bytes = check.kernel.stats.model_bytes;
        row.layer_checks = check.layers.has_value();
        row.layer_seconds = check.layer_seconds;
      } catch (const std::exception& e) {
        row.outcome = DecodeOutcome::Fail;
        row.line = std::string("FAIL: ") + e.what();
        row.status = "-";
      }
      if (options.progress)
        *options.progress << c.id << ' ' << row.mode << ": " << row.line << '\n' << std::flush;
      out.rows.push_back(std::move(row));
    }
  }

  if (!options.mutants) {
    out.mutants_not_run = "--no-mutants";
  } else {
    out.memory_model = set_memory_model ? "cdna3" : "hardware";
    struct Restore {
      const std::function<void(std::optional<std::uint64_t>)>& f;
      ~Restore() {
        if (f) f(std::nullopt);
      }
    } restore{set_memory_model};
    const std::vector<DecodeCase> cases = decode_kill_cases();
    std::vector<reference::DecoderModel> models;
    for (const auto& c : cases) models.push_back(decode_case_model(c));
    // The starvation seeds a case runs under: every one of 1..kDecodeKillStarveSeeds for the
    // protocol's case, the first for the others; one run on hardware (no seeds to choose).
    auto seeds_of = [&](const DecodeCase& c) -> std::uint64_t {
      return set_memory_model && c.starve_sweep ? kDecodeKillStarveSeeds : 1;
    };
    auto run_kill_case = [&](std::span<const std::byte> code, std::size_t i, std::uint64_t seed) {
      if (set_memory_model) set_memory_model(seed);
      DecodeCheckOptions o;
      o.launch = launch_of(cases[i], models[i], numerics::Rounding::RTNE, options.grid);
      return check_decode(executor, code, o);
    };
    auto label = [&](std::size_t i, std::uint64_t seed) {
      return cases[i].id + (seeds_of(cases[i]) > 1 ? " starve seed " + std::to_string(seed) : std::string());
    };
    // Control: the correct kernel passes every kill case under the mutants' memory model and each
    // starvation seed, so that a kill is the mutant's doing.
    const std::vector<std::byte> correct =
        device::read_file(device::decode_code_object(numerics::Rounding::RTNE), "decode code object");
    for (std::size_t i = 0; i < cases.size(); ++i) {
      for (std::uint64_t seed = 1; seed <= seeds_of(cases[i]); ++seed) {
        const DecodeCheck check = run_kill_case(correct, i, seed);
        if (check.outcome != DecodeOutcome::Pass)
          throw std::runtime_error("decode kill matrix: the correct kernel gives " + std::string(to_string(check.outcome)) +
                                   " on kill case " + label(i, seed) + " (" + cases[i].description +
                                   ") under the mutants' memory model, so no kill would mean anything: " +
                                   decode_outcome_line(check));
      }
      out.control += (out.control.empty() ? "" : ", ") + cases[i].id + " pass" +
                     (seeds_of(cases[i]) > 1 ? " (starve seeds 1-" + std::to_string(seeds_of(cases[i])) + ")" : "");
    }
    for (const std::string& name : decode_mutant_names()) {
      DecodeMutantResult m;
      m.name = name;
      const auto path =
          std::filesystem::path(CDNA_CODE_OBJECT_DIR) / ("decode_monokernel_mutant_" + name + ".hsaco");
      const std::vector<std::byte> code = device::read_file(path, "decode mutant code object");
      for (std::size_t i = 0; i < cases.size(); ++i) {
        // Further seeds only while the mutant survives: they are for the kill, not for the report.
        std::string how;
        std::uint64_t seed = 1;
        for (; seed <= seeds_of(cases[i]); ++seed) {
          try {
            const DecodeCheck check = run_kill_case(code, i, seed);
            how = std::string(to_string(check.outcome));
            if (check.outcome == DecodeOutcome::Fail) {
              m.killed = true;
              how += " (" + check.failure + ")";
            }
          } catch (const std::exception& e) {
            m.killed = true;
            std::string what = e.what();
            for (char& ch : what)
              if (ch == '\n') ch = ' ';  // one line in tables (the watchdog lists the live waves on lines of their own)
            if (what.size() > 700) what = what.substr(0, 700) + "…";
            how = "error: " + what;
          }
          if (m.killed) break;
        }
        const std::uint64_t ran = std::min(seed, seeds_of(cases[i]));
        m.how += (m.how.empty() ? "" : "; ") + label(i, ran) + ": " + how;
      }
      if (options.progress)
        *options.progress << "decode mutant " << name << ": " << (m.killed ? "killed" : "SURVIVED") << " — " << m.how
                          << '\n' << std::flush;
      out.mutants.push_back(std::move(m));
    }
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

namespace {
std::string per_token(double total, std::int64_t positions) {
  std::ostringstream s;
  s << std::setprecision(3) << (positions > 0 ? total / static_cast<double>(positions) : 0.0);
  return s.str();
}
// The per-layer verdicts of a row: steps match/explained/defect/not classified, or "-" (not run).
std::string layer_cell(const DecodeCaseResult& row) {
  if (!row.layer_checks) return "-";
  const DecodeCounts& n = row.counts;
  return std::to_string(n.layer_matched) + "/" + std::to_string(n.layer_explained) + "/" +
         std::to_string(n.layer_defects) + "/" + std::to_string(n.layer_unclassified);
}
}  // namespace

std::string decode_table(const DecodeAuditResult& r) {
  std::ostringstream s;
  s << "decode case  mode  outcome         positions  decided  ambiguous  mismatch  outside  per-layer (m/e/d/u)  s/pos    instr/pos\n";
  for (const auto& row : r.rows) {
    s << std::left << std::setw(12) << row.id << std::setw(6) << row.mode << std::setw(16) << to_string(row.outcome)
      << std::setw(11) << row.positions << std::setw(9) << row.counts.decided << std::setw(11) << row.counts.ambiguous
      << std::setw(10) << row.counts.mismatched << std::setw(9) << row.counts.logits_outside << std::setw(21)
      << layer_cell(row) << std::setw(9) << per_token(row.kernel_seconds, row.positions)
      << per_token(static_cast<double>(row.wave_instructions), row.positions) << '\n';
    if (row.outcome != DecodeOutcome::Pass) s << "    " << row.line << '\n';
  }
  if (!r.mutants.empty())
    s << "decode kill matrix (memory model " << r.memory_model << "): " << r.killed() << " of " << r.mutants.size()
      << " mutants killed (control: " << r.control << ")\n";
  return s.str();
}

std::string decode_markdown(const DecodeAuditResult& r) {
  std::ostringstream s;
  s << "\n## Decode: the monokernel, token by token (docs/decode-semantics.md)\n\n";
  s << "| case | mode | outcome | positions | decided | ambiguous | mismatch | logits outside | per-layer steps "
       "match/explained/defect/not classified | layer values outside | simulator s/position | "
       "wave instructions/position | weight bytes/position | model bytes |\n"
       "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& row : r.rows)
    s << "| " << row.id << " | " << row.mode << " | " << to_string(row.outcome) << " | " << row.positions << " | "
      << row.counts.decided << " | " << row.counts.ambiguous << " | " << row.counts.mismatched << " | "
      << row.counts.logits_outside << " | " << layer_cell(row) << " | "
      << (row.layer_checks ? std::to_string(row.counts.layer_outside) + " of " + std::to_string(row.counts.layer_checked)
                           : std::string("-"))
      << " | " << per_token(row.kernel_seconds, row.positions) << " | "
      << per_token(static_cast<double>(row.wave_instructions), row.positions) << " | " << row.weight_bytes_per_token
      << " | " << row.model_bytes << " |\n";
  s << "\n";
  for (const auto& row : r.rows) s << "- " << row.id << " " << row.mode << ": " << row.description << ". " << row.line << "\n";
  if (!r.mutants.empty()) {
    s << "\n### Decode kill matrix (memory model: " << r.memory_model << ")\n\n" << r.killed() << " of "
      << r.mutants.size() << " decode mutants killed; the correct kernel on the kill cases under the same memory model: "
      << r.control << ".\n\n| mutant | killed | how |\n|---|---|---|\n";
    for (const auto& m : r.mutants) s << "| " << m.name << " | " << (m.killed ? "yes" : "**no**") << " | " << m.how << " |\n";
  } else {
    s << "\nDecode kill matrix not run (" << r.mutants_not_run << ").\n";
  }
  return s.str();
}

std::vector<std::string> decode_case_ids(const std::string& case_filter, bool include_slow) {
  const std::regex filter(case_filter.empty() ? std::string(".*") : case_filter);
  std::vector<std::string> ids;
  for (const DecodeCase& c : decode_cases())
    if (std::regex_search(c.id, filter) && (!c.slow || include_slow)) ids.push_back(c.id);
  return ids;
}

nlohmann::json layer_checks_json(const DecodeCounts& n, double seconds) {
  return {{"match", n.layer_matched},          {"explained", n.layer_explained},   {"defect", n.layer_defects},
          {"not_classified", n.layer_unclassified}, {"values_checked", n.layer_checked}, {"values_outside", n.layer_outside},
          {"values_unbounded", n.layer_unbounded}, {"seconds", seconds}};
}

nlohmann::json decode_json(const DecodeAuditResult& r) {
  nlohmann::json j;
  j["seconds"] = r.seconds;
  for (const auto& row : r.rows)
    j["cases"].push_back({{"id", row.id},
                          {"description", row.description},
                          {"mode", row.mode},
                          {"outcome", to_string(row.outcome)},
                          {"line", row.line},
                          {"status", row.status},
                          {"position", row.position},
                          {"positions", row.positions},
                          {"positions_judged", row.counts.positions},
                          {"choosing", row.counts.choosing},
                          {"decided", row.counts.decided},
                          {"ambiguous", row.counts.ambiguous},
                          {"matched", row.counts.matched},
                          {"mismatched", row.counts.mismatched},
                          {"logits_outside", row.counts.logits_outside},
                          {"logits_finite_radius", row.counts.logits_finite_radius},
                          {"kv_cache_values_checked", row.counts.state_checked},
                          {"kv_cache_values_outside", row.counts.state_outside},
                          {"last_position_values_checked", row.counts.local_checked},
                          {"last_position_values_outside", row.counts.local_outside},
                          {"kernel_seconds", row.kernel_seconds},
                          {"envelope_seconds", row.envelope_seconds},
                          {"wave_instructions", row.wave_instructions},
                          {"weight_bytes_per_token", row.weight_bytes_per_token},
                          {"model_bytes", row.model_bytes},
                          {"layer_checks", row.layer_checks ? layer_checks_json(row.counts, row.layer_seconds) : nlohmann::json()}});
  if (r.mutants.empty()) {
    j["mutants_not_run"] = r.mutants_not_run;
  } else {
    j["memory_model"] = r.memory_model;
    j["killed"] = r.killed();
    j["control"] = r.control;
    for (const auto& m : r.mutants) j["mutants"].push_back({{"name", m.name}, {"killed", m.killed}, {"how", m.how}});
  }
  return j;
}

}  // namespace cdna::audit
