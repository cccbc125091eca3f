#include "audit/decode/golden_verify.hpp"

#include <iostream>
#include <stdexcept>

#include <filesystem>

#include "audit/decode/trace_golden_verify.hpp"
#include "audit/output/exit_codes.hpp"
#include "audit/output/summary_line.hpp"
#include "device/attention_launcher.hpp"  // read_file
#include "device/decode_launcher.hpp"
#include "golden/decode_golden.hpp"
#include "golden/digest.hpp"
#include "golden/decode_weights.hpp"
#include "reference/decode/random.hpp"

namespace cdna::audit {

namespace {

// "random:<preset>:<seed>[:dup]" -> the model; throws std::invalid_argument if malformed.
reference::DecoderModel random_model(const std::string& ref) {
  const auto a = ref.find(':'), b = ref.find(':', a + 1);
  const auto c = b == std::string::npos ? std::string::npos : ref.find(':', b + 1);
  const std::string seed = b == std::string::npos ? "" : ref.substr(b + 1, c == std::string::npos ? c : c - b - 1);
  const std::string tail = c == std::string::npos ? "" : ref.substr(c + 1);
  if (b == std::string::npos || seed.empty() || seed.find_first_not_of("0123456789") != std::string::npos ||
      (c != std::string::npos && tail != "dup"))
    throw std::invalid_argument("model reference '" + ref + "' is not random:<preset>:<seed>[:dup]");
  reference::RandomModelOptions o;
  o.duplicate_lm_head_rows = tail == "dup";
  return reference::random_decoder_model(reference::decoder_preset(ref.substr(a + 1, b - a - 1)), std::stoull(seed), o);
}

// The metadata mode against the code object the file records: this build's decode monokernel of
// another mode (each records its mode, and `decode` refuses a code object of another mode) means
// the mode was changed. Checked whatever the balls say (where every ball is infinite they cannot
// tell the mode). "" when it fits, or the hash is no code object of this build (another build, a
// mutant, a code object that is not there).
std::string mode_problem(const golden::DecodeGolden& g) {
  for (numerics::Rounding m : {numerics::Rounding::RTNE, numerics::Rounding::RTNA, numerics::Rounding::RTZ}) {
    if (m == g.mode) continue;
    const std::filesystem::path path = device::decode_code_object(m);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) continue;
    if (golden::sha256_hex(device::read_file(path, "decode code object")) == g.code_object_sha256)
      return "metadata mode '" + std::string(numerics::to_string(g.mode)) + "' is not the run's: code_object_sha256 is " +
             "this build's " + std::string(numerics::to_string(m)) + " decode monokernel (" + path.string() + ")";
  }
  return "";
}

}  // namespace

int run_decode_verify(const std::string& path, const std::optional<std::string>& model_dir, unsigned threads) {
  golden::SafetensorsFile f = golden::read_safetensors(path);
  const auto it = f.metadata.find("format");
  if (it != f.metadata.end() && it->second == golden::kTraceGoldenFormat)
    return run_trace_golden_verify(golden::parse_trace_golden(std::move(f), path), path, model_dir, threads);
  if (it == f.metadata.end() || it->second != golden::kDecodeGoldenFormat)
    throw golden::SafetensorsError(path + ": metadata format is " +
                                   (it == f.metadata.end() ? std::string("missing") : "'" + it->second + "'") + "; need '" +
                                   golden::kDecodeGoldenFormat + "' or '" + golden::kTraceGoldenFormat + "'");
  const golden::DecodeGolden g = golden::parse_decode_golden(f, path);
  reference::DecoderModel model;
  const bool random = g.model.rfind("random:", 0) == 0;
  if (!model_dir && random) {
    model = random_model(g.model);
  } else {
    const std::string dir = model_dir.value_or(g.model);
    model = golden::load_decoder_model(dir);
    if (!random && golden::model_folder_sha256(dir) != g.model_sha256) {
      std::cout << "FAIL: " << path << ": the weights of " << dir << " are not the file's model (" << g.model
                << ", sha256 " << g.model_sha256 << ")\n";
      return kExitFail;
    }
  }
  if (const std::string p = mode_problem(g); !p.empty()) {
    std::cout << "FAIL: " << path << ": " << p << "\n";
    return kExitFail;
  }
  const golden::DecodeGoldenVerdict v = golden::verify_decode_golden(g, model);
  summary().set("positions", static_cast<std::uint64_t>(v.positions));
  summary().set("decided", static_cast<std::uint64_t>(v.decided));
  summary().set("logits_outside", static_cast<std::uint64_t>(v.logits_outside));
  const std::string counts =
      std::to_string(v.positions) + " positions of V = " + std::to_string(g.vocab) + ", " + std::to_string(v.choosing) +
      " choosing a token: " + std::to_string(v.decided) + " decided (" + std::to_string(v.matched) + " match), " +
      std::to_string(v.ambiguous) + " ambiguous; " + std::to_string(v.logits_outside) + " kernel logits outside their balls, " +
      std::to_string(v.logits_finite) + " of " + std::to_string(v.positions * g.vocab) + " with a finite ball";
  switch (v.outcome) {
    case golden::DecodeGoldenOutcome::fail:
      std::cout << "FAIL: " << path << ": " << v.failure << "\n";
      return kExitFail;
    case golden::DecodeGoldenOutcome::nothing_judged:
      std::cout << "NOTHING JUDGED: " << path << ": " << counts
                << "; balls and decisions re-derived bit for bit, but "
                << (v.logits_finite == 0 ? "every ball is infinite" : "no position's token was decided (every step ambiguous)")
                << ": nothing of the stored run is judged, and the metadata mode and envelope are not checked by the balls ("
                << g.model << ", " << numerics::to_string(g.mode) << ", envelope "
                << g.envelope << ")\n";
      return kExitBadInput;
    case golden::DecodeGoldenOutcome::pass: break;
  }
  std::cout << "PASS: " << path << ": " << counts << "; balls and decisions re-derived bit for bit (" << g.model << ", "
            << numerics::to_string(g.mode) << ", envelope " << g.envelope << ")\n";
  return kExitPass;
}

}  // namespace cdna::audit
