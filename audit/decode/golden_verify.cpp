#include "audit/decode/golden_verify.hpp"

#include <iostream>
#include <stdexcept>

#include "golden/decode_golden.hpp"
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

}  // namespace

int run_decode_verify(const std::string& path, const std::optional<std::string>& model_dir) {
  const golden::DecodeGolden g = golden::read_decode_golden(path);
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
      return 1;
    }
  }
  const std::string problem = golden::verify_decode_golden(g, model);
  if (!problem.empty()) {
    std::cout << "FAIL: " << path << ": " << problem << "\n";
    return 1;
  }
  std::cout << "ok: " << path << ": " << g.positions() << " positions of V = " << g.vocab
            << ": balls and decisions re-derived bit for bit (" << g.model << ", " << numerics::to_string(g.mode)
            << ")\n";
  return 0;
}

}  // namespace cdna::audit
