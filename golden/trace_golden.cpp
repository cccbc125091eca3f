#include "golden/trace_golden.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

#include "golden/digest.hpp"

namespace cdna::golden {

namespace {

constexpr std::string_view kTracePrefix = "trace.";
constexpr std::array<const char*, 7> kKeys = {"format", "model", "model_sha256", "profile", "reference",
                                              "layer_envelope", "outcome"};

bool one_of(const std::string& v, std::initializer_list<const char*> allowed) {
  return std::any_of(allowed.begin(), allowed.end(), [&](const char* a) { return v == a; });
}

// S = len(tokens) − prompt_length of the trace part, or −1 when either is missing or malformed.
std::int64_t trace_steps(const SafetensorsFile& trace) {
  const Tensor* tokens = trace.find("tokens");
  const auto p = trace.metadata.find("prompt_length");
  if (tokens == nullptr || tokens->shape.size() != 1 || p == trace.metadata.end()) return -1;
  std::size_t used = 0;
  std::int64_t prompt = 0;
  try {
    prompt = std::stoll(p->second, &used);
  } catch (const std::exception&) {
    return -1;
  }
  if (used != p->second.size() || prompt < 1 || prompt >= tokens->shape[0]) return -1;
  return tokens->shape[0] - prompt;
}

}  // namespace

SafetensorsFile to_safetensors(const TraceGolden& g) {
  const std::int64_t s = trace_steps(g.trace);
  if (s < 1) throw std::invalid_argument("trace golden: the trace has no tokens [T] and prompt_length in [1, T)");
  if (static_cast<std::int64_t>(g.exact_token.size()) != s || static_cast<std::int64_t>(g.step_verdict.size()) != s)
    throw std::invalid_argument("trace golden: exact_token and step_verdict need " + std::to_string(s) + " steps");
  SafetensorsFile f;
  for (const auto& [name, tensor] : g.trace.tensors) {
    if (name == "exact_token" || name == "step_verdict")
      throw std::invalid_argument("trace golden: the trace holds a tensor named '" + name + "'");
    f.tensors[name] = tensor;
  }
  f.tensors["exact_token"] = make_i32({s}, g.exact_token);
  f.tensors["step_verdict"] = make_u8({s}, g.step_verdict);
  for (const auto& [key, value] : g.trace.metadata) f.metadata[std::string(kTracePrefix) + key] = value;
  f.metadata["format"] = kTraceGoldenFormat;
  f.metadata["model"] = g.model;
  f.metadata["model_sha256"] = g.model_sha256;
  f.metadata["profile"] = g.profile;
  f.metadata["reference"] = g.reference;
  f.metadata["layer_envelope"] = g.layer_envelope;
  f.metadata["outcome"] = g.outcome;
  f.metadata[kDigestKey] = golden_digest(f);
  return f;
}

TraceGolden read_trace_golden(const std::filesystem::path& path) { return parse_trace_golden(read_safetensors(path), path.string()); }

TraceGolden parse_trace_golden(SafetensorsFile f, const std::string& label) {
  auto meta = [&](const std::string& key) {
    const auto it = f.metadata.find(key);
    if (it == f.metadata.end()) throw SafetensorsError(label + ": no metadata '" + key + "'; not a decode trace golden file");
    return it->second;
  };
  if (meta("format") != kTraceGoldenFormat)
    throw SafetensorsError(label + ": metadata format is '" + meta("format") + "', need '" + kTraceGoldenFormat + "'");
  if (meta(kDigestKey) != golden_digest(f))
    throw SafetensorsError(label + ": digest mismatch: the file was changed after it was written");
  TraceGolden g;
  for (const auto& [key, value] : f.metadata) {
    if (key == kTracePrefix) {
      throw SafetensorsError(label + ": metadata key 'trace.' names no key of the trace; need trace.<key>");
    } else if (key.starts_with(kTracePrefix)) {
      g.trace.metadata[key.substr(kTracePrefix.size())] = value;
    } else if (key != kDigestKey && std::find_if(kKeys.begin(), kKeys.end(), [&](const char* k) { return key == k; }) == kKeys.end()) {
      std::string known;
      for (const char* k : kKeys) known += std::string(known.empty() ? "" : ", ") + k;
      throw SafetensorsError(label + ": metadata key '" + key + "' is not one of a decode trace golden file (" + known +
                             ", digest, trace.<key>)");
    }
  }
  g.model = meta("model");
  g.model_sha256 = meta("model_sha256");
  if (g.model_sha256.size() != 64 || g.model_sha256.find_first_not_of("0123456789abcdef") != std::string::npos)
    throw SafetensorsError(label + ": metadata model_sha256 '" + g.model_sha256 +
                           "' is not a SHA-256; need 64 lowercase hex digits");
  g.profile = meta("profile");
  g.reference = meta("reference");
  if (!one_of(g.reference, {"exact", "affine", "ball"}))
    throw SafetensorsError(label + ": metadata reference '" + g.reference + "' is not exact, affine or ball");
  g.layer_envelope = meta("layer_envelope");
  if (!one_of(g.layer_envelope, {"affine", "ball"}))
    throw SafetensorsError(label + ": metadata layer_envelope '" + g.layer_envelope + "' is not affine or ball");
  g.outcome = meta("outcome");
  if (!one_of(g.outcome, {"PASS", "FAIL", "NOT CLASSIFIED"}))
    throw SafetensorsError(label + ": metadata outcome '" + g.outcome + "' is not PASS, FAIL or NOT CLASSIFIED");
  for (auto& [name, tensor] : f.tensors)
    if (name != "exact_token" && name != "step_verdict") g.trace.tensors[name] = std::move(tensor);
  const std::int64_t s = trace_steps(g.trace);
  if (s < 1)
    throw SafetensorsError(label + ": the trace part needs tokens I32 [T] and metadata trace.prompt_length in [1, T)");
  for (const char* name : {"exact_token", "step_verdict"}) {
    const Tensor& t = f.at(name, label);
    if (t.shape != std::vector<std::int64_t>{s})
      throw SafetensorsError(label + ": tensor '" + name + "' has the wrong shape; need [" + std::to_string(s) + "] (one per step)");
  }
  g.exact_token = as_i32(f.at("exact_token", label), label + ": exact_token");
  g.step_verdict = as_u8(f.at("step_verdict", label), label + ": step_verdict");
  for (std::size_t i = 0; i < g.step_verdict.size(); ++i)
    if (g.step_verdict[i] > 3)
      throw SafetensorsError(label + ": step_verdict[" + std::to_string(i) + "] = " + std::to_string(g.step_verdict[i]) +
                             " is not a verdict; need 0 match, 1 explained, 2 defect or 3 unclassified");
  return g;
}

}  // namespace cdna::golden
