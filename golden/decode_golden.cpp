#include "golden/decode_golden.hpp"

#include <algorithm>
#include <cmath>
#include <span>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "golden/digest.hpp"
#include "reference/decode/decision.hpp"
#include "reference/decode/envelope.hpp"

namespace cdna::golden {

namespace {

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
  f.metadata = {{"format", kDecodeGoldenFormat},
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

DecodeGolden read_decode_golden(const std::filesystem::path& path) { return parse_decode_golden(read_safetensors(path), path.string()); }

DecodeGolden parse_decode_golden(const SafetensorsFile& f, const std::string& label) {
  auto meta = [&](const std::string& key) {
    const auto it = f.metadata.find(key);
    if (it == f.metadata.end()) throw SafetensorsError(label + ": no metadata '" + key + "'; not a decode golden file");
    return it->second;
  };
  if (meta("format") != kDecodeGoldenFormat)
    throw SafetensorsError(label + ": metadata format is '" + meta("format") + "', need '" + kDecodeGoldenFormat + "'");
  if (meta(kDigestKey) != golden_digest(f))
    throw SafetensorsError(label + ": digest mismatch: the file was changed after it was written");
  for (const auto& [key, value] : f.metadata)
    if (std::find(decode_golden_keys().begin(), decode_golden_keys().end(), key) == decode_golden_keys().end()) {
      std::string known;
      for (const auto& k : decode_golden_keys()) known += (known.empty() ? "" : ", ") + k;
      throw SafetensorsError(label + ": metadata key '" + key + "' is not one of a decode golden file (" + known + ")");
    }
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
  {
    const std::string steps = meta("steps");
    std::size_t used = 0;
    try {
      g.steps = std::stoll(steps, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != steps.size() || g.steps < 1)
      throw SafetensorsError(label + ": metadata steps '" + steps + "' is not a number of steps; need an integer >= 1");
  }
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

const std::vector<std::string>& decode_golden_keys() {
  static const std::vector<std::string> keys{"format", "model", "model_sha256", "mode", "arithmetic", "envelope",
                                             "steps", "eos", "code_object_sha256", std::string(kDigestKey)};
  return keys;
}

namespace {

std::string number(double x) {
  std::ostringstream s;
  s.precision(17);
  s << x;
  return s.str();
}
std::string ball_text(double m, double r) { return number(m) + " ± " + number(r); }

// The token fed at position q: the prompt's, then the kernel's.
std::int64_t fed_token(const DecodeGolden& g, std::int64_t q) {
  const auto prompt = static_cast<std::int64_t>(g.prompt.size());
  return q < prompt ? g.prompt[static_cast<std::size_t>(q)] : g.kernel_tokens[static_cast<std::size_t>(q - prompt)];
}

// Why the stored tokens do not fit the metadata steps and eos ("" if they do).
std::string run_problem(const DecodeGolden& g) {
  const auto n = static_cast<std::int64_t>(g.kernel_tokens.size());
  const std::string eos = "metadata eos '" + join(g.eos) + "'";
  for (std::int64_t id : g.eos)
    if (id < 0 || id >= g.vocab)
      return eos + ": id " + std::to_string(id) + " is outside [0, V = " + std::to_string(g.vocab) + ")";
  if (n == 0) return "the file holds no generated token; a run of steps >= 1 generates at least one";
  if (n > g.steps)
    return "metadata steps " + std::to_string(g.steps) + ", but the file holds " + std::to_string(n) +
           " generated tokens; steps must be at least " + std::to_string(n);
  auto is_eos = [&](std::int64_t t) { return std::find(g.eos.begin(), g.eos.end(), t) != g.eos.end(); };
  for (std::int64_t t = 0; t < n; ++t) {
    const std::int64_t token = g.kernel_tokens[static_cast<std::size_t>(t)];
    const std::string which = "generated token " + std::to_string(t) + " (" + std::to_string(token) + ")";
    if (token == -1 && t + 1 < n) return which + " is -1 (a NaN stop), but the run went on to " + std::to_string(n) + " tokens";
    if (token != -1 && (token < 0 || token >= g.vocab))
      return which + " is outside [0, V = " + std::to_string(g.vocab) + ")";
    if (t + 1 < n && is_eos(token))
      return which + " is an eos id (" + eos + "), but the run went on to " + std::to_string(n) + " tokens";
  }
  const std::int64_t last = g.kernel_tokens.back();
  if (n < g.steps && last != -1 && !is_eos(last))
    return "metadata steps " + std::to_string(g.steps) + ": the run stopped after " + std::to_string(n) +
           " tokens, but its last (" + std::to_string(last) + ") is not an eos id (" + eos +
           ") nor -1 (a NaN stop); steps must be " + std::to_string(n) + " or eos must hold " + std::to_string(last);
  return "";
}

reference::EnvelopeMethod method_of(const std::string& envelope) {
  return envelope == "affine" ? reference::EnvelopeMethod::affine : reference::EnvelopeMethod::ball;
}

// When the balls of position q differ: the mode and envelope (other than the file's) that
// re-derive them bit for bit, named as the metadata that is wrong; "" if none does.
std::string other_metadata_matching(const DecodeGolden& g, const reference::DecoderModel& model, std::int64_t q) {
  for (numerics::Rounding mode : {numerics::Rounding::RTNE, numerics::Rounding::RTNA, numerics::Rounding::RTZ})
    for (const char* envelope : {"ball", "affine"}) {
      if (mode == g.mode && envelope == g.envelope) continue;
      reference::DecodeEnvelope e(model, reference::monokernel_arithmetic(mode), method_of(envelope));
      reference::StepBounds b;
      for (std::int64_t p = 0; p <= q; ++p) b = e.step(fed_token(g, p));
      bool same = true;
      for (std::int64_t i = 0; same && i < g.vocab; ++i)
        same = same_bits(b.mid[i], g.mid[q * g.vocab + i]) && same_bits(b.rad[i], g.rad[q * g.vocab + i]);
      if (!same) continue;
      std::string wrong;
      if (mode != g.mode)
        wrong = "metadata mode '" + std::string(numerics::to_string(g.mode)) + "' (they are mode " +
                std::string(numerics::to_string(mode)) + "'s)";
      if (envelope != g.envelope)
        wrong += (wrong.empty() ? "" : " and ") + ("metadata envelope '" + g.envelope + "' (they are envelope " + envelope + "'s)");
      return "; " + wrong + " is not the run's";
    }
  return "";
}

}  // namespace

DecodeGoldenVerdict verify_decode_golden(const DecodeGolden& g, const reference::DecoderModel& model) {
  DecodeGoldenVerdict v;
  auto fail = [&](const std::string& why) {
    if (v.failure.empty()) v.failure = why;
  };
  auto stop = [&](const std::string& why) {  // the first failure stays the one reported
    if (v.failure.empty()) v.failure = why;
    v.outcome = DecodeGoldenOutcome::fail;
    return v;
  };
  if (g.arithmetic != "monokernel") return stop("arithmetic '" + g.arithmetic + "' is not one this build knows (monokernel)");
  if (model.config.vocab_size != g.vocab)
    return stop("the model's V = " + std::to_string(model.config.vocab_size) + ", the file's " + std::to_string(g.vocab));
  if (const std::string p = run_problem(g); !p.empty()) return stop(p);
  reference::DecodeEnvelope envelope(model, reference::monokernel_arithmetic(g.mode), method_of(g.envelope));
  const auto prompt = static_cast<std::int64_t>(g.prompt.size());
  for (std::int64_t q = 0; q < g.positions(); ++q) {
    const std::int64_t token = fed_token(g, q);
    const std::string at = "position " + std::to_string(q) + " (fed token " + std::to_string(token) + ")";
    if (token < 0 || token >= g.vocab) return stop(at + ": the fed token is outside [0, V)");
    const reference::StepBounds b = envelope.step(token);
    for (std::int64_t i = 0; i < g.vocab; ++i) {
      const auto k = q * g.vocab + i;
      if (!same_bits(b.mid[i], g.mid[k]) || !same_bits(b.rad[i], g.rad[k]))
        return stop(at + ", logit " + std::to_string(i) + ": the re-derived ball " + ball_text(b.mid[i], b.rad[i]) +
                    " differs from the file's " + ball_text(g.mid[k], g.rad[k]) +
                    other_metadata_matching(g, model, q));
    }
    ++v.positions;
    const reference::TokenDecision d = reference::decide_greedy(b);
    const bool decided = d.kind != reference::DecisionKind::ambiguous;
    if (decided != (g.decided[q] != 0) || d.token != g.decided_token[q])
      return stop(at + ": the re-derived decision (" + (decided ? "decided " + std::to_string(d.token) : "ambiguous") +
                  ") differs from the file's (" + (g.decided[q] ? "decided " : "ambiguous, ") +
                  std::to_string(g.decided_token[q]) + ")");
    // The stored run judged: its logits against the balls, its token against the decision.
    const bool chooses = q >= prompt - 1;
    const std::int64_t step = q - (prompt - 1);
    const std::int64_t kernel_token = chooses ? g.kernel_tokens[static_cast<std::size_t>(step)] : -2;
    const std::span<const float> row(g.kernel_logits.data() + q * g.vocab, static_cast<std::size_t>(g.vocab));
    const reference::StepVerdict sv = reference::judge_step(b, d, row, kernel_token);
    for (double r : b.rad) v.logits_finite += std::isfinite(r) ? 1 : 0;
    v.logits_outside += sv.outside;
    if (sv.outside > 0) {
      const auto w = static_cast<std::size_t>(sv.worst_index);
      fail(at + ": " + std::to_string(sv.outside) + " of " + std::to_string(g.vocab) +
           " kernel logits outside their balls; worst: logit " + std::to_string(sv.worst_index) + " = " +
           number(row[w]) + ", ball " + ball_text(b.mid[w], b.rad[w]));
    }
    if (!chooses) continue;
    ++v.choosing;
    if (!decided) {
      ++v.ambiguous;
      continue;
    }
    ++v.decided;
    if (sv.match) {
      ++v.matched;
      continue;
    }
    std::string balls;
    for (std::int64_t t : {kernel_token, d.token})
      if (t >= 0 && t < g.vocab)
        balls += std::string(balls.empty() ? " (ball of " : ", of ") + std::to_string(t) + ": " +
                 ball_text(b.mid[t], b.rad[t]) + ", kernel logit " + number(row[static_cast<std::size_t>(t)]);
    fail(at + ", choosing generated token " + std::to_string(step) + ": the kernel's token " +
         std::to_string(kernel_token) + ", the decided token " + std::to_string(d.token) +
         (balls.empty() ? "" : balls + ")"));
  }
  if (!v.failure.empty())
    v.outcome = DecodeGoldenOutcome::fail;
  else
    v.outcome = v.decided > 0 && v.logits_finite > 0 ? DecodeGoldenOutcome::pass : DecodeGoldenOutcome::nothing_judged;
  return v;
}

}  // namespace cdna::golden
