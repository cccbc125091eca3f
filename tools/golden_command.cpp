#include "tools/golden_command.hpp"
#include "audit/output/shape_format.hpp"
#include "audit/output/output_paths.hpp"
#include "audit/output/progress.hpp"
#include "audit/output/summary_line.hpp"
#include "audit/decode/golden_verify.hpp"
#include "tools/cli_modes.hpp"
#include "audit/golden/golden_cases.hpp"
#include "audit/output/exit_codes.hpp"
#include "audit/golden/golden_judge.hpp"
#include "audit/golden/golden_kernel.hpp"
#include "tools/golden_make.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <memory>
#include <regex>
#include <sstream>

#include "device/attention_launcher.hpp"
#include "reference/attention/inputs.hpp"
#include "reference/attention/profiles.hpp"
#include "audit/output/device_report.hpp"
#include "tools/profile_option.hpp"
#include "audit/cases/rounding_cases.hpp"

namespace cdna::tools {

using namespace cdna::audit;  // the engine (audit/README.md)

namespace {

namespace fs = std::filesystem;
using reference::AttentionShape;
using reference::Mask;

// read_golden, refusing a property regression file with per-sequence lengths: its stored values
// are the dense problem's, but the property ran it as varlen, which the golden format cannot
// express; judging a varlen candidate against it would judge without the feature.
golden::GoldenFile read_judgeable(const fs::path& path) {
  golden::GoldenFile g = golden::read_golden(path);
  for (const char* key : {"case_seqlens_q", "case_seqlens_k"}) {
    if (auto it = g.provenance.find(key); it != g.provenance.end() && !it->second.empty()) {
      throw golden::SafetensorsError(path.string() + ": metadata '" + key + "' gives per-sequence lengths (varlen), "
                                     "which the file's dense problem does not carry; the property suite re-runs this file "
                                     "(ctest -R property_regressions)");
    }
  }
  return g;
}

}  // namespace

GoldenCommand::GoldenCommand(CLI::App& app) {
  golden_ = app.add_subcommand(
      "golden",
      "Golden files (docs/golden-files.md): safetensors files holding a problem's inputs, its exact result, the "
      "bound and floor of a correct kernel, and the output bits of a kernel (ours by default, --kernel for a peer).");
  golden_->require_subcommand(1);

  gen_ = golden_->add_subcommand(
      "gen", "Write one golden file per case and rounding mode of the golden set (atomically). Exit 0; 1 when the kernel "
             "faults on the simulator (hazard, access outside its buffers, hung wave); 2 on bad input or when no case "
             "matches --cases (NOTHING JUDGED); 3 when --executor hip finds no device.");
  gen_->add_option("--out", out_dir_, "Directory to write the files to")->required();
  gen_->add_option("--cases", cases_, "Only cases whose id contains a match of this regular expression (a search, not anchored; e.g. '^C0[1-4]$|grid')");
  gen_->add_option("--modes", modes_, "bf16 rounding modes: rtne, rtna, rtz")->delimiter(',')->capture_default_str();
  gen_->add_option("--kernel", gen_kernel_,
                   "Kernel whose output goes into o_kernel, through its adapter: attention-fwd (ours), aiter-fmha-v3, "
                   "aiter-pa, moonmath (docs/peer-kernels.md)")
      ->capture_default_str();
  gen_->add_option("--code-object", gen_code_object_,
                   "The kernel's code objects: a directory or one file (default: the adapter's own)");
  gen_->add_option("--executor", gen_executor_,
                   "Executor of the kernel whose output goes into o_kernel: simulator, hip, auto, or none (no o_kernel)")
      ->check(CLI::IsMember({"simulator", "hip", "auto", "none"}))
      ->capture_default_str();
  gen_->add_option("--threads", threads_, "Oracle worker threads (0: all cores)")->capture_default_str();
  gen_->add_flag("--quiet", quiet_, "No progress line per file on stderr");

  verify_ = golden_->add_subcommand(
      "verify",
      "Re-derive every golden file under PATH from its stored inputs: the exact O and LSE must agree with the oracle "
      "within its stated error, bound and floor with their formulas; re-run the kernel where o_kernel is stored and "
      "require the same bits. Exit 0 if all hold, 1 if any does not (or the kernel faults on the simulator), 2 on a "
      "malformed file or a file with nothing to judge, 3 when --executor hip finds no device.");
  verify_->add_option("path", verify_path_, "A golden file or a directory of them")->required();
  verify_->add_option("--executor", verify_executor_,
                      "Executor for re-running the kernel: simulator, hip, auto, or none (skip the re-run)")
      ->check(CLI::IsMember({"simulator", "hip", "auto", "none"}))
      ->capture_default_str();
  verify_->add_option("--threads", threads_, "Oracle worker threads (0: all cores)")->capture_default_str();
  verify_->add_option("--junit", junit_,
                      "Also write a JUnit XML report to FILE: one testcase per golden file (case x mode), classname "
                      "cdna-verify.golden-verify.<kernel> (docs/ci.md \"JUnit output\"); checked writable first, "
                      "written whatever the outcome");
  add_shard_options(verify_, verify_shard_, "golden files (by the case id in each file, all modes of a case together)");
  verify_->add_flag("--quiet", quiet_, "No progress lines on stderr (at most one every 5 s otherwise)");

  decode_verify_ = golden_->add_subcommand(
      "decode-verify",
      "Verify a decode golden file (docs/golden-files.md, \"Decode\"). One written by `decode --golden-out`: its tokens "
      "against its steps and eos, its balls and decisions re-derived bit for bit from its model and stored tokens, and "
      "the stored run judged: every kernel logit against its ball, every decided position's kernel token against the "
      "decided token. One written by `trace --golden-out` (any implementation's trace with its verdict): the stored "
      "trace judged again under the stored profile and reference, every step's exact token and verdict and the outcome "
      "equal to the stored ones. Exit 0 PASS, 1 FAIL (naming the position or step, token or logit, or the field; a "
      "stored run with a defect; the model is not the file's), 2 NOTHING JUDGED or NOT CLASSIFIED, or a malformed or "
      "tampered file.");
  decode_verify_->add_option("file", decode_verify_path_, "The decode golden file")->required();
  decode_verify_->add_option("--model", decode_verify_model_,
                             "Model folder to re-derive from (default: the file's own model reference)");
  decode_verify_->add_option("--threads", decode_verify_threads_,
                             "Threads of the MPFR oracle and the per-layer checks of a trace golden file (0: all cores)")
      ->check(CLI::Range(0u, 1024u))
      ->capture_default_str();

  make_ = golden_->add_subcommand(
      "make",
      "Write golden files from your own Q, K, V: --from FILE.safetensors (tensors q, k, v; BF16, F32 or fp8 U8) or raw "
      "--q/--k/--v with --shape; one file per rounding mode (docs/golden-files.md). Exit 0, or 2 on bad input "
      "(nothing written).");
  add_golden_make_options(*make_, make_options_);

  check_ = golden_->add_subcommand(
      "check",
      "Judge a candidate output of any implementation against a golden file under the pass rule "
      "(docs/pass-rule.md: bound, floor, semantic facts) in the file's rounding mode. Exit 0 pass, 1 fail, 2 bad input "
      "(a malformed, modified or impossible golden file, a missing tensor, nothing judged).");
  check_->add_option("--junit", junit_,
                     "Also write a JUnit XML report to FILE: one testcase (the golden file's case x mode), classname "
                     "cdna-verify.golden-check.candidate (docs/ci.md \"JUnit output\"); checked writable first, "
                     "written whatever the outcome");
  check_->add_option("golden", golden_path_, "The golden file")->required();
  check_->add_option("--candidate", candidate_,
                     "The candidate's output: a safetensors file with tensor 'o' (BF16 [B,Sq,Hq,Dv]; varlen files "
                     "[rows_q,Hq,Dv]) and optional 'lse' (F32 [B,Hq,Sq]; varlen [Hq,rows_q]), or raw little-endian bf16 O")
      ->required();
  check_->add_option("--candidate-format", candidate_format_, "safetensors or raw-bf16")
      ->check(CLI::IsMember({"safetensors", "raw-bf16"}))
      ->capture_default_str();
  o_tensor_option_ = check_->add_option("--o-tensor", o_tensor_, "With safetensors: the name of the candidate's O tensor")
      ->capture_default_str();
  lse_tensor_option_ =
      check_
          ->add_option("--lse-tensor", lse_tensor_,
                       "With safetensors: the name of the candidate's LSE tensor (judged when present; if given "
                       "explicitly it must exist)")
          ->capture_default_str();
  // The LSE layout a profile names (e.g. pytorch-mem-efficient's [B, Hq, ceil(Sq/32)*32]) is the
  // candidate's LSE shape under it.
  add_profile_option(check_, profile_);
  check_->add_option("--candidate-lse", candidate_lse_,
                     "With raw-bf16: the candidate's LSE as raw little-endian fp32 [B,Hq,Sq] (varlen [Hq,rows_q]; optional)");
}

bool GoldenCommand::parsed() const { return golden_->parsed(); }

int GoldenCommand::run() {
  if (gen_->parsed()) return run_gen();
  if (make_->parsed()) return run_golden_make(make_options_);
  if (verify_->parsed()) return with_junit("golden-verify", [this] { return run_verify(); });
  if (check_->parsed()) return with_junit("golden-check", [this] { return run_check(); });
  if (decode_verify_->parsed()) {
    summary().start("golden decode-verify");
    return run_decode_verify(decode_verify_path_, decode_verify_model_, decode_verify_threads_);
  }
  return 2;
}

int GoldenCommand::with_junit(const std::string& sub, const std::function<int()>& work) {
  started_ = std::chrono::system_clock::now();
  if (!junit_.empty()) check_output_file("--junit", junit_);
  return junit::run_writing_errors(junit_, "cdna-verify." + sub, "cdna-verify." + sub, work);
}

void GoldenCommand::write_junit(const std::string& sub, std::vector<junit::TestCase> cases, std::string system_out) {
  if (junit_.empty()) return;
  junit::TestSuite s;
  s.name = "cdna-verify." + sub;
  s.started = started_;
  s.seconds = std::chrono::duration<double>(std::chrono::system_clock::now() - started_).count();
  s.cases = std::move(cases);
  s.system_out = std::move(system_out);
  junit::write(junit_, {s});
  std::cout << "JUnit: " << junit_ << "\n";
}

int GoldenCommand::run_gen() {
  const auto modes = parse_modes(modes_);
  auto cases = golden_cases();
  if (!cases_.empty()) {
    const std::regex re(cases_);
    std::erase_if(cases, [&](const GoldenCaseSpec& c) { return !std::regex_search(c.id, re); });
  }
  if (cases.empty()) throw std::runtime_error("nothing judged: no golden case matches --cases '" + cases_ + "'");
  check_output_dir("--out", out_dir_);  // before the oracle runs
  std::error_code ec;
  fs::create_directories(out_dir_, ec);
  if (ec) throw std::runtime_error("cannot create '" + out_dir_ + "': " + ec.message());

  auto executor = make_executor(gen_executor_);
  CodeObjects code(gen_kernel_, gen_code_object_);
  std::size_t written = 0;
  Progress line(quiet_ ? nullptr : &std::cerr, "golden gen", "file", cases.size() * modes.size());
  for (const GoldenCaseSpec& c : cases) {
    for (numerics::Rounding mode : modes) {
      golden::GoldenFile g;
      g.case_id = c.id;
      g.description = c.description;
      g.problem = c.problem;
      g.varlen = c.varlen;
      g.layout = c.layout;
      g.mode = mode;
      g.fact_o_equals_v = c.fact;
      g.provenance["seeds"] = c.seeds;
      g.provenance["inputs"] = c.inputs;
      g.provenance["generated_by"] = "cdna-verify golden gen (tools/golden_command.cpp)";
      if (!c.reduction.empty()) g.provenance["reduction"] = c.reduction;
      golden::compute_reference_values(g, threads_);
      fill_kernel_output(g, executor.get(), code);
      const fs::path path = fs::path(out_dir_) / golden_file_name(c.id, mode);
      golden::write_golden(path, g);
      ++written;
      line.step(written, c.id + " " + std::string(numerics::to_string(mode)),
                path.string() + "  " + std::to_string(fs::file_size(path, ec)) + " bytes" + (g.kernel ? "" : "  (no o_kernel)"));
    }
  }
  std::cout << written << " golden files written to " << out_dir_ << "\n";
  return 0;
}

int GoldenCommand::run_verify() {
  summary().start("golden verify");
  const std::optional<ShardSpec> shard = verify_shard_.spec();
  if (shard) summary().set("shard", shard->text());
  auto files = golden_files_under(verify_path_);
  // Read every file first: a malformed one is bad input (exit 2) before anything is judged, in
  // every shard alike.
  std::vector<golden::GoldenFile> goldens;
  for (const auto& f : files) goldens.push_back(read_judgeable(f));
  if (shard) {
    const std::size_t all = files.size();
    std::vector<fs::path> kept_files;
    std::vector<golden::GoldenFile> kept;
    std::set<std::string> ids;
    for (std::size_t n = 0; n < all; ++n) {
      if (!shard->contains(goldens[n].case_id)) continue;
      ids.insert(goldens[n].case_id);
      kept_files.push_back(files[n]);
      kept.push_back(std::move(goldens[n]));
    }
    files = std::move(kept_files);
    goldens = std::move(kept);
    std::string list;
    for (const auto& id : ids) list += (list.empty() ? "" : ", ") + id;
    std::cout << "shard " << shard->text() << ": owns " << files.size() << " of the " << all << " golden files ("
              << ids.size() << " case(s)" << (list.empty() ? "" : ": " + list) << ")\n";
    if (files.empty() && all > 0) {
      const std::string why = "shard " + shard->text() + " owns no golden file (the " + std::to_string(all) +
                              " files are in other shards)";
      if (verify_shard_.allow_empty) {
        if (!quiet_) std::cerr << "cdna-verify: note: " << why << "; --allow-empty-shard: exit 0\n";
        summary().set_nothing_judged();  // exit 0 by permission, and still no verdict
        return 0;
      }
      std::cerr << "cdna-verify: error: " << why << "; nothing judged (--allow-empty-shard makes it exit 0)\n";
      return 2;
    }
  }

  // The executor before any work: `--executor hip` without a device fails at once (exit 3).
  std::unique_ptr<device::Executor> executor = make_executor(verify_executor_);
  if (executor) std::cout << "executor: " << description_line(executor->describe()) << "\n";
  std::map<std::string, CodeObjects> kernels;  // by the files' kernel_adapter
  int failed = 0, kernels_rerun = 0, empty = 0;
  std::vector<junit::TestCase> junit_cases;
  std::ostringstream verify_lines;  // the JUnit suite's system-out
  // Throttled: a run of a few files prints nothing; a long one a line every 5 s.
  Progress line(quiet_ ? nullptr : &std::cerr, "golden verify", "file", files.size(), 5.0);
  for (std::size_t n = 0; n < files.size(); ++n) {
    line.step(n, files[n].filename().string());
    const golden::GoldenFile& g = goldens[n];
    const auto file_started = std::chrono::steady_clock::now();
    junit::TestCase& t = junit_cases.emplace_back();
    const auto named_kernel = g.provenance.find("kernel_adapter");
    t.classname = "cdna-verify.golden-verify." +
                  (named_kernel == g.provenance.end() ? std::string("attention-fwd") : named_kernel->second);
    t.name = g.case_id + " " + std::string(numerics::to_string(g.mode));
    const GoldenVerification verified = verify_golden_file(g, threads_, executor.get(), kernels);
    if (verified.nothing_judged) {
      ++empty;
      std::cout << "EMPTY " << files[n].string() << ": nothing judged (no O element, no LSE value)\n";
      t.status = junit::Status::Skipped;
      t.message = files[n].string() + ": nothing judged (no O element, no LSE value)";
      continue;
    }
    const std::string& problem = verified.problem;
    const std::string& kernel_note = verified.kernel_note;
    kernels_rerun += verified.kernel_rerun ? 1 : 0;
    if (problem.empty()) {
      std::cout << "ok    " << files[n].string() << " (exact values, bound, floor of " << g.o_elements()
                << " O elements and " << g.lse_elements() << " LSE values" << kernel_note << ")\n";
      verify_lines << "ok    " << files[n].string() << kernel_note << "\n";
    } else {
      ++failed;
      std::cout << "FAIL  " << files[n].string() << ": " << problem << "\n";
      t.status = junit::Status::Failed;
      t.type = "golden";
      t.message = files[n].string() + ": " + problem;
    }
    t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - file_started).count();
  }
  write_junit("golden-verify", std::move(junit_cases), verify_lines.str());
  std::cout << files.size() - static_cast<std::size_t>(failed + empty) << " of " << files.size()
            << " golden files verified (" << kernels_rerun << " kernel re-runs"
            << (empty ? ", " + std::to_string(empty) + " with nothing to judge" : "") << ")\n";
  summary().set("files", files.size());
  summary().set("failed", static_cast<std::uint64_t>(failed));
  summary().set("empty", static_cast<std::uint64_t>(empty));
  summary().set("kernel_reruns", static_cast<std::uint64_t>(kernels_rerun));
  const int rc = golden_verify_exit_code(failed, empty);
  if (rc == kExitBadInput)
    std::cerr << "cdna-verify: error: " << empty << " golden file(s) hold an empty problem: nothing judged\n";
  return rc;
}

int GoldenCommand::run_check() {
  summary().start("golden check");
  const reference::Profile& profile = reference::find_profile(profile_);
  const golden::GoldenFile g = read_judgeable(golden_path_);
  if (g.varlen) {
    if (std::string why = reference::varlen_refusal(profile); !why.empty())
      throw CLI::ValidationError("--profile", golden_path_ + " is varlen: " + why);
  }
  const auto& s = g.features().shape;
  std::vector<std::uint16_t> o;
  std::optional<std::vector<float>> lse;
  if (candidate_format_ == "safetensors") {
    if (!candidate_lse_.empty()) {
      throw CLI::ValidationError("--candidate-lse", "only with --candidate-format raw-bf16 (a safetensors candidate "
                                                    "holds its LSE as tensor 'lse')");
    }
    const golden::SafetensorsFile f = golden::read_safetensors(candidate_);
    auto missing = [&](const std::string& name, const char* option) {
      std::string have;
      for (const auto& [n, unused] : f.tensors) have += (have.empty() ? "" : ", ") + n;
      return golden::SafetensorsError(candidate_ + ": no tensor '" + name + "' (" + option + "); it has: " +
                                      (have.empty() ? "no tensors" : have));
    };
    const golden::Tensor* o_found = f.find(o_tensor_);
    if (!o_found) throw missing(o_tensor_, "--o-tensor");
    const golden::Tensor& t = *o_found;
    const std::vector<std::int64_t> o_shape = g.o_shape();
    const std::vector<std::int64_t> lse_shape =
        g.varlen ? reference::varlen_lse_dims(profile, *g.varlen) : reference::lse_layout_dims(profile.lse_layout, s);
    auto shape_str = [](const std::vector<std::int64_t>& v) {
      std::string r = "[";
      for (std::size_t i = 0; i < v.size(); ++i) r += (i ? "," : "") + std::to_string(v[i]);
      return r + "]";
    };
    if (t.shape != o_shape) {
      throw golden::SafetensorsError(candidate_ + ": tensor '" + o_tensor_ + "' has shape " + shape_str(t.shape) +
                                     ", the golden file needs " + shape_str(o_shape));
    }
    o = golden::as_bf16(t, candidate_ + ": tensor '" + o_tensor_ + "'");
    if (!f.find(lse_tensor_) && lse_tensor_option_->count() > 0) throw missing(lse_tensor_, "--lse-tensor");
    if (const golden::Tensor* l = f.find(lse_tensor_)) {
      if (l->shape != lse_shape) {
        throw golden::SafetensorsError(candidate_ + ": tensor '" + lse_tensor_ + "' has shape " + shape_str(l->shape) +
                                       ", the golden file needs " + shape_str(lse_shape));
      }
      lse = golden::as_f32(*l, candidate_ + ": tensor '" + lse_tensor_ + "'");
    }
  } else {
    // Tensor names mean nothing to raw files: given anyway, they would be silently ignored.
    for (const CLI::Option* named : {o_tensor_option_, lse_tensor_option_}) {
      if (named->count() > 0) {
        throw CLI::ValidationError(named->get_name(), "names a tensor of a safetensors candidate; --candidate-format " +
                                                          candidate_format_ + " has none (drop it, or give a safetensors file)");
      }
    }
    auto read_raw = [](const std::string& path, std::int64_t elements, std::size_t size, const char* what) {
      const std::vector<std::byte> bytes = device::read_file(path, what);
      if (bytes.size() != static_cast<std::size_t>(elements) * size) {
        throw std::runtime_error(path + ": " + std::to_string(bytes.size()) + " bytes, but " + what + " of the golden "
                                 "file's shape needs " + std::to_string(elements) + " x " + std::to_string(size) + " = " +
                                 std::to_string(static_cast<std::size_t>(elements) * size));
      }
      return bytes;
    };
    const auto ob = read_raw(candidate_, g.o_elements(), 2, "candidate O (bf16)");
    o.resize(ob.size() / 2);
    for (std::size_t i = 0; i < o.size(); ++i) {
      o[i] = static_cast<std::uint16_t>(std::to_integer<unsigned>(ob[2 * i]) | (std::to_integer<unsigned>(ob[2 * i + 1]) << 8));
    }
    if (!candidate_lse_.empty()) {
      const auto lb = read_raw(candidate_lse_, g.varlen ? g.lse_elements() : reference::lse_layout_elements(profile.lse_layout, s),
                               4, "candidate LSE (fp32)");
      std::vector<float> l(lb.size() / 4);
      for (std::size_t i = 0; i < l.size(); ++i) {
        std::uint32_t u = 0;
        for (std::size_t b = 0; b < 4; ++b) u |= std::to_integer<std::uint32_t>(lb[4 * i + b]) << (8 * b);
        l[i] = std::bit_cast<float>(u);
      }
      lse = std::move(l);
    }
  }

  // The profile (docs/profiles.md): the candidate's LSE layout, and its rows without a visible key
  // (varlen files: per sequence, the LSE in the profile's varlen layout).
  const golden::CandidateVerdict v = judge_golden_candidate(g, profile, std::move(o), std::move(lse));
  const auto& c = v.comparison;
  std::cout << "golden " << golden_path_ << ": case " << g.case_id << ", " << numerics::to_string(g.mode) << ", B"
            << s.batch;
  if (g.varlen) {
    std::cout << " varlen (" << g.varlen->rows_q() << " query rows" << (g.varlen->paged() ? ", paged KV" : "") << ")";
  } else {
    std::cout << " Sq" << s.seqlen_q << " Sk" << s.seqlen_k;
  }
  std::cout << " H" << s.heads_q << "/" << s.heads_kv << " D" << s.head_dim
            << (s.dv() != s.head_dim ? " Dv" + std::to_string(s.dv()) : std::string()) << ", "
            << reference::to_string(g.features().mask);
  if (auto feature = reference::extended_feature(g.features())) std::cout << ", " << *feature;
  std::cout << ", profile " << profile.name << "\n"
            << "O: max |err| " << figure_text(c.max_abs_err_o) << " (" << figure_text(c.max_ulp_err_o, 3) << " bf16 ULP, "
            << figure_text(c.max_err_to_bound_o) << " of bound), " << c.o_violations << " outside the bound; rel-RMS "
            << figure_text(c.rel_rms_err_o) << " vs floor " << figure_text(c.floor_rel_rms_o) << " ("
            << figure_text(c.floor_rel_rms_o > 0 ? c.rel_rms_err_o / c.floor_rel_rms_o : 0.0) << "x, limit 2x)\n";
  if (v.lse_given) {
    std::cout << "LSE: max |err| " << figure_text(c.max_abs_err_lse) << " (" << figure_text(c.max_err_to_bound_lse) << " of bound), "
              << c.lse_violations << " outside the bound\n";
  } else {
    std::cout << "LSE: not given, not judged\n";
  }
  std::cout << "semantic violations: " << c.semantic_violations
            << (g.fact_o_equals_v ? std::string(", case fact (O rows = V row): ") +
                                        (v.fact_failure.empty() ? "holds" : "violated")
                                  : std::string())
            << "\n"
            << "judged: " << c.o_judged << " O elements, " << c.lse_judged << " LSE values\n";
  junit::TestCase t;
  t.classname = "cdna-verify.golden-check.candidate";
  t.name = g.case_id + " " + std::string(numerics::to_string(g.mode));
  t.seconds = std::chrono::duration<double>(std::chrono::system_clock::now() - started_).count();
  if (v.nothing_judged()) {
    t.status = junit::Status::Skipped;
    t.message = golden_path_ + ": " + v.first_failure();
  } else if (!v.pass()) {
    t.status = junit::Status::Failed;
    t.type = "verdict";
    t.message = v.first_failure();
  }
  write_junit("golden-check", {t});
  summary().set("o_judged", static_cast<std::uint64_t>(c.o_judged));
  summary().set("lse_judged", static_cast<std::uint64_t>(c.lse_judged));
  if (v.nothing_judged()) {
    // A verdict over nothing is no verdict (docs/pass-rule.md): its own outcome, not a pass.
    std::cout << "nothing judged\n";
    std::cerr << "cdna-verify: error: " << golden_path_ << ": " << v.first_failure() << "\n";
    return 2;
  }
  std::cout << (v.pass() ? "pass" : "FAIL: " + v.first_failure()) << "\n";
  return v.pass() ? 0 : 1;
}

}  // namespace cdna::tools
