#include "golden/decode_trace.hpp"

#include <charconv>
#include <stdexcept>

#include "numerics/bf16.hpp"

namespace cdna::golden {
namespace {

[[noreturn]] void fail(const std::string& label, const std::string& what) { throw SafetensorsError(label + ": " + what); }

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// F32 values, or BF16 widened exactly; anything else refused.
std::vector<float> float_values(const Tensor& t, const std::string& label, const std::string& name,
                                const std::vector<std::int64_t>& shape) {
  if (t.shape != shape) fail(label, name + ": shape " + shape_text(t.shape) + ", need " + shape_text(shape));
  if (t.dtype == Dtype::F32) return as_f32(t, label);
  if (t.dtype == Dtype::BF16) {
    std::vector<float> out;
    for (std::uint16_t b : as_bf16(t, label)) out.push_back(numerics::f32_from_bf16(b));
    return out;
  }
  fail(label, name + ": dtype " + std::string(to_string(t.dtype)) + ", need F32 (or BF16)");
}

// "hidden.3" -> 3 for prefix "hidden."; -1 when the name is not the prefix and a decimal layer.
std::int64_t layer_of(const std::string& name, const std::string& prefix) {
  if (name.rfind(prefix, 0) != 0 || name.size() == prefix.size()) return -1;
  const char* b = name.data() + prefix.size();
  const char* e = name.data() + name.size();
  if (*b == '0' && e - b > 1) return -1;  // one spelling per layer
  std::int64_t l = -1;
  const auto [p, ec] = std::from_chars(b, e, l);
  return ec == std::errc() && p == e ? l : -1;
}

}  // namespace

DecodeTrace parse_decode_trace(const SafetensorsFile& file, const reference::DecoderConfig& c, const std::string& label) {
  DecodeTrace t;
  t.metadata = file.metadata;
  const auto p = file.metadata.find("prompt_length");
  if (p == file.metadata.end()) fail(label, "metadata prompt_length: missing, need the prompt's token count");
  {
    const std::string& s = p->second;
    std::int64_t n = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    if (ec != std::errc() || end != s.data() + s.size() || n < 1)
      fail(label, "metadata prompt_length: \"" + s + "\" is not a positive integer");
    t.prompt_length = n;
  }
  const Tensor& tok = file.at("tokens", label);
  if (tok.dtype != Dtype::I32 || tok.shape.size() != 1)
    fail(label, "tokens: " + std::string(to_string(tok.dtype)) + " " + shape_text(tok.shape) + ", need I32 [T]");
  for (std::int32_t id : as_i32(tok, label)) {
    if (id < 0 || id >= c.vocab_size)
      fail(label, "tokens: " + std::to_string(id) + " is not a token id, need [0, vocab_size " + std::to_string(c.vocab_size) + ")");
    t.tokens.push_back(id);
  }
  const auto T = static_cast<std::int64_t>(t.tokens.size());
  if (t.prompt_length >= T)
    fail(label, "metadata prompt_length: " + std::to_string(t.prompt_length) + " leaves no generated token in " +
                    std::to_string(T) + " tokens, need prompt_length < T");
  if (T > c.max_position_embeddings)
    fail(label, "tokens: " + std::to_string(T) + " tokens, need at most max_position_embeddings " +
                    std::to_string(c.max_position_embeddings));
  t.vocab = c.vocab_size;
  t.logits = float_values(file.at("logits", label), label, "logits", {t.steps(), c.vocab_size});
  const std::int64_t n = c.num_hidden_layers;
  for (const auto& [name, tensor] : file.tensors) {
    if (name == "tokens" || name == "logits") continue;
    if (const std::int64_t l = layer_of(name, "hidden."); l >= 0 && l <= n) {
      t.hidden[l] = float_values(tensor, label, name, {T - 1, c.hidden_size});
    } else if (const std::int64_t lk = layer_of(name, "k."); lk >= 0 && lk < n) {
      t.k[lk] = float_values(tensor, label, name, {T - 1, c.num_key_value_heads, c.head_dim});
    } else if (const std::int64_t lv = layer_of(name, "v."); lv >= 0 && lv < n) {
      t.v[lv] = float_values(tensor, label, name, {T - 1, c.num_key_value_heads, c.head_dim});
    } else {
      fail(label, "tensor '" + name + "': not a tensor of a decode trace of this " + std::to_string(n) +
                      "-layer model, need tokens, logits, hidden.0 ... hidden." + std::to_string(n) + ", k.L and v.L for L < " +
                      std::to_string(n) + " (docs/decode-traces.md)");
    }
  }
  return t;
}

DecodeTrace read_decode_trace(const std::filesystem::path& path, const reference::DecoderConfig& config) {
  return parse_decode_trace(read_safetensors(path), config, path.string());
}

SafetensorsFile decode_trace_file(const DecodeTrace& t, const reference::DecoderConfig& c) {
  const auto T = static_cast<std::int64_t>(t.tokens.size());
  if (t.prompt_length < 1 || t.prompt_length >= T) throw std::invalid_argument("decode_trace_file: prompt_length outside [1, T)");
  if (t.vocab != c.vocab_size || static_cast<std::int64_t>(t.logits.size()) != t.steps() * t.vocab)
    throw std::invalid_argument("decode_trace_file: logits are not [S, V]");
  SafetensorsFile f;
  f.metadata = t.metadata;
  f.metadata["prompt_length"] = std::to_string(t.prompt_length);
  const std::vector<std::int32_t> ids(t.tokens.begin(), t.tokens.end());
  f.tensors["tokens"] = make_i32({T}, ids);
  f.tensors["logits"] = make_f32({t.steps(), t.vocab}, t.logits);
  for (const auto& [l, x] : t.hidden) f.tensors["hidden." + std::to_string(l)] = make_f32({T - 1, c.hidden_size}, x);
  for (const auto& [l, x] : t.k) f.tensors["k." + std::to_string(l)] = make_f32({T - 1, c.num_key_value_heads, c.head_dim}, x);
  for (const auto& [l, x] : t.v) f.tensors["v." + std::to_string(l)] = make_f32({T - 1, c.num_key_value_heads, c.head_dim}, x);
  return f;
}

}  // namespace cdna::golden
