#include "golden/decode_golden.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "golden/digest.hpp"
#include "reference/decode/decision.hpp"
#include "reference/decode/envelope.hpp"

namespace cdna::golden {

namespace {

constexpr const char* kFormat = "cdna-verify decode golden v1";

std::vector<std::int32_t> to_i32(const std::vector<std::int64_t>& v) { return {v.begin(), v.end()}; }
std::vector<std::int64_t> to_i64(const std::vector<std::int32_t>& v) { return {v.begin(), v.end()}; }

std::string join(const std::vector<std::int64_t>& ids) {
  std::string s;
  for (auto id : ids) s += (s.empty() ? "" : ",") + std::to_string(id);
  return s;
}

std::vector<std::int64_t> split_ids(const std::string& text, const std::string& label) {
  std::vector<std::int64_t> ids;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    std::size_t used = 0;
    try {
      ids.push_back(std::stoll(item, &used));
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != item.size()) throw SafetensorsError(label + ": '" + text + "' is not comma-separated ids");
  }
  return ids;
}

// The tensor `name` of `f` with exactly `shape` (its dtype is checked by the as_* accessor).
const Tensor& shaped(const SafetensorsFile& f, const std::string& name, const std::vector<std::int64_t>& shape,
                     const std::string& label) {
  const Tensor& t = f.at(name, label);
  if (t.shape != shape) {
    std::string want;
    for (auto e : shape) want += (want.empty() ? "" : ", ") + std::to_string(e);
    throw SafetensorsError(label + ": tensor '" + name + "' has the wrong shape; need [" + want + "]");
  }
  return t;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

SafetensorsFile to_safetensors(const DecodeGolden& g) {
  const std::int64_t P = g.positions(), V = g.vocab;
  if (static_cast<std::int64_t>(g.mid.size()) != P * V || g.rad.size() != g.mid.size() ||
      static_cast<std::int64_t>(g.kernel_logits.size()) != P * V || static_cast<std::int64_t>(g.decided_token.size()) != P)
    throw std::invalid_argument("decode golden: tensor sizes disagree with " + std::to_string(P) + " positions of V = " +
                                std::to_string(V));
  SafetensorsFile f;
  f.metadata = {{"format", kFormat},
                {"model", g.model},
                {"model_sha256", g.model_sha256},
                {"mode", std::string(numerics::to_string(g.mode))},
                {"arithmetic", g.arithmetic},
                {"envelope", g.envelope},
                {"steps", std::to_string(g.steps)},
                {"eos", join(g.eos)},
                {"code_object_sha256", g.code_object_sha256}};
  const auto prompt = to_i32(g.prompt), tokens = to_i32(g.kernel_tokens);
  f.tensors["prompt"] = make_i32({static_cast<std::int64_t>(prompt.size())}, prompt);
  f.tensors["kernel_tokens"] = make_i32({static_cast<std::int64_t>(tokens.size())}, tokens);
  f.tensors["logit_mid"] = make_f64({P, V}, g.mid);
  f.tensors["logit_rad"] = make_f64({P, V}, g.rad);
  f.tensors["decided"] = make_u8({P}, g.decided);
  f.tensors["decided_token"] = make_i32({P}, g.decided_token);
  f.tensors["kernel_logits"] = make_f32({P, V}, g.kernel_logits);
  f.metadata[kDigestKey] = golden_digest(f);
  return f;
}

DecodeGolden read_decode_golden(const std::filesystem::path& path) {
  const std::string label = path.string();
  const SafetensorsFile f = read_safetensors(path);
  auto meta = [&](const std::string& key) {
    const auto it = f.metadata.find(key);
    if (it == f.metadata.end()) throw SafetensorsError(label + ": no metadata '" + key + "'; not a decode golden file");
    return it->second;
  };
  if (meta("format") != kFormat)
    throw SafetensorsError(label + ": metadata format is '" + meta("format") + "', need '" + kFormat + "'");
  if (meta(kDigestKey) != golden_digest(f))
    throw SafetensorsError(label + ": digest mismatch: the file was changed after it was written");
  DecodeGolden g;
  g.model = meta("model");
  g.model_sha256 = meta("model_sha256");
  g.arithmetic = meta("arithmetic");
  g.envelope = meta("envelope");
  if (g.envelope != "ball" && g.envelope != "affine")
    throw SafetensorsError(label + ": metadata envelope '" + g.envelope + "' is not ball or affine");
  g.code_object_sha256 = meta("code_object_sha256");
  const auto mode = numerics::parse_rounding(meta("mode"));
  if (!mode) throw SafetensorsError(label + ": metadata mode '" + meta("mode") + "' is not rtne, rtna or rtz");
  g.mode = *mode;
  g.steps = split_ids(meta("steps"), label + ": metadata steps").at(0);
  g.eos = split_ids(meta("eos"), label + ": metadata eos");
  g.prompt = to_i64(as_i32(f.at("prompt", label), label + ": prompt"));
  g.kernel_tokens = to_i64(as_i32(f.at("kernel_tokens", label), label + ": kernel_tokens"));
  const Tensor& mid = f.at("logit_mid", label);
  if (mid.shape.size() != 2) throw SafetensorsError(label + ": tensor 'logit_mid' must be [positions, V]");
  const std::int64_t P = mid.shape[0];
  g.vocab = mid.shape[1];
  const auto expected = static_cast<std::int64_t>(g.prompt.size() + g.kernel_tokens.size()) - 1;
  if (g.prompt.empty() || P < 1 || P > expected)
    throw SafetensorsError(label + ": " + std::to_string(P) + " positions for a prompt of " +
                           std::to_string(g.prompt.size()) + " and " + std::to_string(g.kernel_tokens.size()) +
                           " kernel tokens; need 1 to prompt + tokens - 1");
  g.mid = as_f64(mid, label + ": logit_mid");
  g.rad = as_f64(shaped(f, "logit_rad", {P, g.vocab}, label), label + ": logit_rad");
  g.decided = as_u8(shaped(f, "decided", {P}, label), label + ": decided");
  g.decided_token = as_i32(shaped(f, "decided_token", {P}, label), label + ": decided_token");
  g.kernel_logits = as_f32(shaped(f, "kernel_logits", {P, g.vocab}, label), label + ": kernel_logits");
  return g;
}

std::string model_folder_sha256(const std::filesystem::path& folder) {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(folder))
    if (e.path().extension() == ".safetensors") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::string listing;
  for (const auto& p : files) {
    std::ifstream in(p, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) throw std::runtime_error(p.string() + ": cannot read");
    listing += p.filename().string() + " " +
               sha256_hex(std::as_bytes(std::span<const char>(bytes.data(), bytes.size()))) + "\n";
  }
  return sha256_hex(std::as_bytes(std::span<const char>(listing.data(), listing.size())));
}

std::string verify_decode_golden(const DecodeGolden& g, const reference::DecoderModel& model) {
  if (g.arithmetic != "monokernel") return "arithmetic '" + g.arithmetic + "' is not one this build knows (monokernel)";
  if (model.config.vocab_size != g.vocab)
    return "the model's V = " + std::to_string(model.config.vocab_size) + ", the file's " + std::to_string(g.vocab);
  reference::DecodeEnvelope envelope(model, reference::monokernel_arithmetic(g.mode),
                                     g.envelope == "affine" ? reference::EnvelopeMethod::affine
                                                            : reference::EnvelopeMethod::ball);
  const auto prompt = static_cast<std::int64_t>(g.prompt.size());
  for (std::int64_t q = 0; q < g.positions(); ++q) {
    const std::int64_t token = q < prompt ? g.prompt[q] : g.kernel_tokens[q - prompt];
    if (token < 0 || token >= g.vocab) return "position " + std::to_string(q) + ": fed token " + std::to_string(token) + " is outside [0, V)";
    const reference::StepBounds b = envelope.step(token);
    for (std::int64_t i = 0; i < g.vocab; ++i) {
      const auto k = q * g.vocab + i;
      if (!same_bits(b.mid[i], g.mid[k]) || !same_bits(b.rad[i], g.rad[k]))
        return "position " + std::to_string(q) + ", logit " + std::to_string(i) + ": re-derived ball differs from the file's";
    }
    const reference::TokenDecision d = reference::decide_greedy(b);
    const bool decided = d.kind != reference::DecisionKind::ambiguous;
    if (decided != (g.decided[q] != 0) || d.token != g.decided_token[q])
      return "position " + std::to_string(q) + ": re-derived decision (" + std::to_string(d.token) +
             ") differs from the file's (" + std::to_string(g.decided_token[q]) + ")";
  }
  return "";
}

}  // namespace cdna::golden
