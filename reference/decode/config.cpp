#include "reference/decode/config.hpp"
#include "reference/common/input_file.hpp"
#include "reference/common/json_duplicates.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

namespace cdna::reference {
namespace {

using nlohmann::json;

[[noreturn]] void fail(std::string_view label, std::string_view field, const std::string& what) {
  throw ModelFileError(std::string(label) + ": " + std::string(field) + ": " + what);
}

std::string json_text(const json& v) { return v.dump(); }

// A positive integer field; `fallback` when absent (nullopt: required).
std::int64_t positive_int(const json& j, std::string_view label, const char* field,
                          std::optional<std::int64_t> fallback) {
  const auto it = j.find(field);
  if (it == j.end()) {
    if (!fallback) fail(label, field, "missing, need a positive integer");
    return *fallback;
  }
  if (!it->is_number_integer() || it->get<std::int64_t>() <= 0)
    fail(label, field, json_text(*it) + " is not a positive integer");
  return it->get<std::int64_t>();
}

double number(const json& j, std::string_view label, const char* field, std::optional<double> fallback) {
  const auto it = j.find(field);
  if (it == j.end()) {
    if (!fallback) fail(label, field, "missing, need a number");
    return *fallback;
  }
  if (!it->is_number()) fail(label, field, json_text(*it) + " is not a number, need a JSON number");
  return it->get<double>();
}

bool boolean(const json& j, std::string_view label, const char* field, bool fallback) {
  const auto it = j.find(field);
  if (it == j.end()) return fallback;
  if (!it->is_boolean()) fail(label, field, json_text(*it) + " is not true or false");
  return it->get<bool>();
}

// A field that, if present, must have exactly this value (the architecture the definition covers).
void must_equal(const json& j, std::string_view label, const char* field, const json& want) {
  const auto it = j.find(field);
  if (it != j.end() && *it != want)
    fail(label, field, json_text(*it) + " is not supported, need " + json_text(want));
}

// The fields of a Llama config.json that leave one forward pass of greedy decoding unchanged:
// token ids other than EOS, training-only settings (initializer_range, attention_dropout: not
// applied in inference), bookkeeping of transformers' PreTrainedConfig (LlamaConfig of
// transformers 4.x and 5.x, configuration_llama.py and configuration_utils.py).
bool leaves_arithmetic_unchanged(const std::string& key) {
  static const char* const kKeys[] = {
      "bos_token_id", "pad_token_id", "sep_token_id", "decoder_start_token_id", "initializer_range",
      "attention_dropout", "use_cache", "transformers_version", "_name_or_path", "_commit_hash",
      "_attn_implementation_autoset", "output_attentions", "output_hidden_states", "return_dict", "torchscript",
      "tokenizer_class", "id2label", "label2id", "problem_type", "finetuning_task", "prefix",
      "task_specific_params", "chunk_size_feed_forward", "is_encoder_decoder", "is_decoder",
      "add_cross_attention", "tie_encoder_decoder", "cross_attention_hidden_size"};
  return std::find(std::begin(kKeys), std::end(kKeys), key) != std::end(kKeys);
}

// The fields parse_decoder_config reads or checks.
bool read_field(const std::string& key) {
  static const char* const kKeys[] = {
      "architectures", "model_type", "hidden_act", "attention_bias", "mlp_bias", "pretraining_tp",
      "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads",
      "head_dim", "rms_norm_eps", "rope_theta", "rope_scaling", "rope_parameters", "partial_rotary_factor",
      "sliding_window", "use_sliding_window", "vocab_size", "tie_word_embeddings", "max_position_embeddings",
      "eos_token_id", "dtype", "torch_dtype"};
  return std::find(std::begin(kKeys), std::end(kKeys), key) != std::end(kKeys);
}

// Every field of the file is read, checked, or known not to change the arithmetic: anything else
// might (a soft cap, a multiplier, a sliding window under another name) and is refused.
void refuse_unknown_fields(const json& j, std::string_view label) {
  for (const auto& [key, value] : j.items()) {
    if (read_field(key) || leaves_arithmetic_unchanged(key)) continue;
    fail(label, key, json_text(value) + ": not a field of a Llama config.json this definition knows (it may change the "
                     "arithmetic), need the fields of docs/decode-semantics.md §1.7 only");
  }
}

// A field that may be absent or null, or must hold `neutral` (the value that changes nothing).
void absent_or(const json& j, std::string_view label, const char* field, const json& neutral, const char* why) {
  const auto it = j.find(field);
  if (it != j.end() && !it->is_null() && *it != neutral)
    fail(label, field, json_text(*it) + " is not supported (" + why + "), need " + json_text(neutral) + " or absent");
}

// The RoPE settings of one of config.json's spellings: transformers 4 (rope_theta beside
// rope_scaling) or 5 (rope_parameters with rope_theta inside). nullopt theta: not given there.
struct RopeSpelling {
  std::optional<double> theta;
  std::optional<Llama3RopeScaling> llama3;  // nullopt: no scaling ("default")
};

// rope_scaling (transformers 4) or rope_parameters (5) at `field`: rope_type "default" (no
// scaling) or "llama3" (legacy key "type"); every other type is refused by name, as is a key
// the type does not have.
RopeSpelling rope_object(const json& o, std::string_view label, const std::string& field, bool theta_inside) {
  if (!o.is_object()) fail(label, field, json_text(o) + " is not null or an object");
  const json* type = o.contains("rope_type") ? &o["rope_type"] : o.contains("type") ? &o["type"] : nullptr;
  const std::string t = type == nullptr ? "default" : type->is_string() ? type->get<std::string>() : "";
  if (t != "default" && t != "llama3")
    fail(label, field + ".rope_type",
         (type ? json_text(*type) : "missing") + " is not supported, need \"default\" or \"llama3\" (other RoPE types: linear, dynamic, "
         "yarn, longrope, ... are not implemented)");
  if (o.contains("rope_type") && o.contains("type") && o["rope_type"] != o["type"])
    fail(label, field + ".type", json_text(o["type"]) + " disagrees with rope_type " + json_text(o["rope_type"]) + ", need one value");
  const std::string l = std::string(label) + ": " + field;
  RopeSpelling r;
  for (const auto& [key, value] : o.items()) {
    const bool known = key == "rope_type" || key == "type" || (theta_inside && key == "rope_theta") ||
                       key == "partial_rotary_factor" ||
                       (t == "llama3" && (key == "factor" || key == "low_freq_factor" || key == "high_freq_factor" ||
                                          key == "original_max_position_embeddings"));
    if (!known) fail(label, field + "." + key, "is not a setting of rope_type \"" + t + "\" this definition knows, need it removed");
  }
  absent_or(o, l, "partial_rotary_factor", 1.0, "RoPE on part of each head is not implemented");
  if (theta_inside && o.contains("rope_theta")) r.theta = number(o, l, "rope_theta", std::nullopt);
  if (t == "llama3") {
    Llama3RopeScaling s;
    s.factor = number(o, l, "factor", std::nullopt);
    s.low_freq_factor = number(o, l, "low_freq_factor", std::nullopt);
    s.high_freq_factor = number(o, l, "high_freq_factor", std::nullopt);
    s.original_max_position_embeddings = positive_int(o, l, "original_max_position_embeddings", std::nullopt);
    r.llama3 = s;
  }
  return r;
}

bool same_scaling(const std::optional<Llama3RopeScaling>& a, const std::optional<Llama3RopeScaling>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a || (a->factor == b->factor && a->low_freq_factor == b->low_freq_factor &&
                a->high_freq_factor == b->high_freq_factor &&
                a->original_max_position_embeddings == b->original_max_position_embeddings);
}

// rope_theta and the scaling from whichever spellings the file has; two spellings that disagree
// are refused (which one transformers would use depends on its version).
void read_rope(const json& j, std::string_view label, DecoderConfig& c) {
  std::optional<double> theta;
  if (j.contains("rope_theta")) theta = number(j, label, "rope_theta", std::nullopt);
  std::optional<RopeSpelling> v4, v5;
  if (j.contains("rope_scaling") && !j["rope_scaling"].is_null()) v4 = rope_object(j["rope_scaling"], label, "rope_scaling", false);
  if (j.contains("rope_parameters") && !j["rope_parameters"].is_null())
    v5 = rope_object(j["rope_parameters"], label, "rope_parameters", true);
  if (v5 && v5->theta) {
    if (theta && *theta != *v5->theta)
      fail(label, "rope_theta", json_text(j["rope_theta"]) + " disagrees with rope_parameters.rope_theta " +
                                    json_text(j["rope_parameters"]["rope_theta"]) + ", need one value");
    theta = v5->theta;
  }
  if (v4 && v5 && !same_scaling(v4->llama3, v5->llama3))
    fail(label, "rope_scaling", json_text(j["rope_scaling"]) + " disagrees with rope_parameters " +
                                    json_text(j["rope_parameters"]) + ", need one setting");
  c.rope_theta = theta.value_or(10000.0);
  c.rope_scaling = v5 ? v5->llama3 : v4 ? v4->llama3 : std::nullopt;
}

// dtype (transformers 5) and torch_dtype (4): the dtype transformers loads the weights in. It is
// the implementation's, not the definition's (real arithmetic on the stored bf16 values), so it
// is only checked: a known name, and the two spellings agreeing.
void check_dtype(const json& j, std::string_view label) {
  const json* seen = nullptr;
  for (const char* field : {"torch_dtype", "dtype"}) {
    const auto it = j.find(field);
    if (it == j.end() || it->is_null()) continue;
    if (*it != "bfloat16" && *it != "float16" && *it != "float32")
      fail(label, field, json_text(*it) + " is not a dtype of a Llama checkpoint this project reads, need \"bfloat16\", "
                                         "\"float16\" or \"float32\"");
    if (seen != nullptr && *seen != *it)
      fail(label, field, json_text(*it) + " disagrees with torch_dtype " + json_text(*seen) + ", need one value");
    seen = &*it;
  }
}

std::vector<std::int64_t> eos_ids(const json& j, std::string_view label) {
  const auto it = j.find("eos_token_id");
  if (it == j.end() || it->is_null()) return {};
  const auto one = [&](const json& v) {
    if (!v.is_number_integer()) fail(label, "eos_token_id", json_text(v) + " is not an integer, need token ids");
    return v.get<std::int64_t>();
  };
  if (!it->is_array()) return {one(*it)};
  std::vector<std::int64_t> ids;
  for (const json& v : *it) ids.push_back(one(v));
  return ids;
}

void check_positive_finite(double v, std::string_view label, const char* field) {
  if (!std::isfinite(v) || v <= 0) fail(label, field, std::to_string(v) + " is not a finite number > 0");
}

}  // namespace

DecoderConfig parse_decoder_config(std::string_view json_text_in, std::string_view label) {
  json j;
  DuplicateKeys dup;
  try {
    j = json::parse(json_text_in, dup.callback());
  } catch (const json::parse_error& e) {
    throw ModelFileError(std::string(label) + ": not valid JSON (" + e.what() + ")");
  }
  if (!dup.first.empty()) fail(label, dup.first, "given twice, need each field once (which one a reader takes is not defined)");
  if (!j.is_object()) throw ModelFileError(std::string(label) + ": not a JSON object, need config.json's object");
  refuse_unknown_fields(j, label);
  must_equal(j, label, "model_type", "llama");
  must_equal(j, label, "architectures", json::array({"LlamaForCausalLM"}));
  must_equal(j, label, "hidden_act", "silu");
  must_equal(j, label, "attention_bias", false);
  must_equal(j, label, "mlp_bias", false);
  absent_or(j, label, "pretraining_tp", 1, "a sliced projection is another operation order");
  absent_or(j, label, "partial_rotary_factor", 1.0, "RoPE on part of each head is not implemented");
  absent_or(j, label, "sliding_window", nullptr, "windowed attention is not implemented");
  absent_or(j, label, "use_sliding_window", false, "windowed attention is not implemented");
  check_dtype(j, label);
  DecoderConfig c;
  c.hidden_size = positive_int(j, label, "hidden_size", std::nullopt);
  c.intermediate_size = positive_int(j, label, "intermediate_size", std::nullopt);
  c.num_hidden_layers = positive_int(j, label, "num_hidden_layers", std::nullopt);
  c.num_attention_heads = positive_int(j, label, "num_attention_heads", std::nullopt);
  c.num_key_value_heads = positive_int(j, label, "num_key_value_heads", c.num_attention_heads);
  if (!j.contains("head_dim") && c.hidden_size % c.num_attention_heads != 0)
    fail(label, "head_dim", "missing and hidden_size " + std::to_string(c.hidden_size) +
                                " is not a multiple of num_attention_heads " + std::to_string(c.num_attention_heads) +
                                ", need head_dim");
  c.head_dim = positive_int(j, label, "head_dim", c.hidden_size / c.num_attention_heads);
  c.rms_norm_eps = number(j, label, "rms_norm_eps", 1e-6);
  read_rope(j, label, c);
  c.vocab_size = positive_int(j, label, "vocab_size", std::nullopt);
  c.tie_word_embeddings = boolean(j, label, "tie_word_embeddings", false);
  c.max_position_embeddings = positive_int(j, label, "max_position_embeddings", 2048);
  c.eos_token_id = eos_ids(j, label);
  validate_decoder_config(c, label);
  return c;
}

std::string rope_text(const DecoderConfig& c) {
  const auto num = [](double v) {
    std::ostringstream o;
    o << std::setprecision(17) << v;
    return o.str();
  };
  std::string t = (c.rope_scaling ? "llama3" : "default") + std::string(", rope_theta ") + num(c.rope_theta);
  if (c.rope_scaling) {
    const Llama3RopeScaling& s = *c.rope_scaling;
    t += ", factor " + num(s.factor) + ", low_freq_factor " + num(s.low_freq_factor) + ", high_freq_factor " +
         num(s.high_freq_factor) + ", original_max_position_embeddings " + std::to_string(s.original_max_position_embeddings);
  }
  return t;
}

DecoderConfig read_decoder_config(const std::filesystem::path& path) {
  if (auto why = directory_instead_of_file(path, "model config")) throw ModelFileError(*why);
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  if (in) text << in.rdbuf();
  if (!in || in.bad())
    throw ModelFileError(path.string() + ": cannot read: " + (std::filesystem::exists(path) ? "read error" : "no such file"));
  return parse_decoder_config(text.str(), path.string());
}

void validate_decoder_config(const DecoderConfig& c, std::string_view label) {
  // Sizes up to 2^24 (layers 2^16) keep every tensor's element count far inside 64 bits.
  const auto positive = [&](std::int64_t v, const char* field) {
    if (v <= 0) fail(label, field, std::to_string(v) + " is not a positive integer");
    const std::int64_t limit = std::string_view(field) == "num_hidden_layers" ? 1 << 16 : 1 << 24;
    if (v > limit) fail(label, field, std::to_string(v) + " is above the supported " + std::to_string(limit));
  };
  positive(c.hidden_size, "hidden_size");
  positive(c.intermediate_size, "intermediate_size");
  positive(c.num_hidden_layers, "num_hidden_layers");
  positive(c.num_attention_heads, "num_attention_heads");
  positive(c.num_key_value_heads, "num_key_value_heads");
  positive(c.head_dim, "head_dim");
  positive(c.vocab_size, "vocab_size");
  positive(c.max_position_embeddings, "max_position_embeddings");
  if (c.num_attention_heads % c.num_key_value_heads != 0)
    fail(label, "num_key_value_heads", std::to_string(c.num_key_value_heads) + " does not divide num_attention_heads " +
                                           std::to_string(c.num_attention_heads) + ", need a divisor");
  if (c.head_dim % 2 != 0) fail(label, "head_dim", std::to_string(c.head_dim) + " is odd, need an even size (RoPE pairs)");
  check_positive_finite(c.rms_norm_eps, label, "rms_norm_eps");
  check_positive_finite(c.rope_theta, label, "rope_theta");
  if (c.rope_scaling) {
    const Llama3RopeScaling& s = *c.rope_scaling;
    if (!std::isfinite(s.factor) || s.factor < 1)
      fail(label, "rope_scaling.factor", std::to_string(s.factor) + " is not a finite number >= 1");
    check_positive_finite(s.low_freq_factor, label, "rope_scaling.low_freq_factor");
    if (!std::isfinite(s.high_freq_factor) || s.high_freq_factor <= s.low_freq_factor)
      fail(label, "rope_scaling.high_freq_factor",
           std::to_string(s.high_freq_factor) + " is not a finite number > low_freq_factor " + std::to_string(s.low_freq_factor));
    if (s.original_max_position_embeddings <= 0)
      fail(label, "rope_scaling.original_max_position_embeddings",
           std::to_string(s.original_max_position_embeddings) + " is not a positive integer");
  }
  for (std::int64_t id : c.eos_token_id)
    if (id < 0 || id >= c.vocab_size)
      fail(label, "eos_token_id", std::to_string(id) + " is not a token id, need [0, vocab_size " + std::to_string(c.vocab_size) + ")");
}

std::string decoder_config_json(const DecoderConfig& c) {
  validate_decoder_config(c, "config");
  json j = json::object();
  j["architectures"] = json::array({"LlamaForCausalLM"});
  j["model_type"] = "llama";
  j["hidden_act"] = "silu";
  j["torch_dtype"] = "bfloat16";
  j["attention_bias"] = false;
  j["mlp_bias"] = false;
  j["hidden_size"] = c.hidden_size;
  j["intermediate_size"] = c.intermediate_size;
  j["num_hidden_layers"] = c.num_hidden_layers;
  j["num_attention_heads"] = c.num_attention_heads;
  j["num_key_value_heads"] = c.num_key_value_heads;
  j["head_dim"] = c.head_dim;
  j["rms_norm_eps"] = c.rms_norm_eps;
  j["rope_theta"] = c.rope_theta;
  if (c.rope_scaling) {
    const Llama3RopeScaling& s = *c.rope_scaling;
    j["rope_scaling"] = {{"rope_type", "llama3"},
                         {"factor", s.factor},
                         {"low_freq_factor", s.low_freq_factor},
                         {"high_freq_factor", s.high_freq_factor},
                         {"original_max_position_embeddings", s.original_max_position_embeddings}};
  } else {
    j["rope_scaling"] = nullptr;
  }
  j["vocab_size"] = c.vocab_size;
  j["tie_word_embeddings"] = c.tie_word_embeddings;
  j["max_position_embeddings"] = c.max_position_embeddings;
  if (c.eos_token_id.empty())
    j["eos_token_id"] = nullptr;
  else if (c.eos_token_id.size() == 1)
    j["eos_token_id"] = c.eos_token_id[0];
  else
    j["eos_token_id"] = c.eos_token_id;
  return j.dump(2) + "\n";
}

std::int64_t DecoderTensorSpec::elements() const {
  std::int64_t n = 1;
  for (std::int64_t e : shape) n *= e;
  return n;
}

std::string DecoderTensorSpec::shape_text() const {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::vector<DecoderTensorSpec> decoder_tensor_specs(const DecoderConfig& c) {
  const std::int64_t H = c.hidden_size, I = c.intermediate_size, V = c.vocab_size;
  const std::int64_t q = c.num_attention_heads * c.head_dim, kv = c.num_key_value_heads * c.head_dim;
  std::vector<DecoderTensorSpec> specs;
  specs.push_back({"model.embed_tokens.weight", {V, H}, -1, &DecoderWeights::embed_tokens, nullptr});
  using L = DecoderLayerWeights;
  const std::pair<const char*, std::pair<std::vector<std::int64_t>, std::vector<std::uint16_t> L::*>> layer[] = {
      {"input_layernorm", {{H}, &L::input_layernorm}},
      {"self_attn.q_proj", {{q, H}, &L::q_proj}},
      {"self_attn.k_proj", {{kv, H}, &L::k_proj}},
      {"self_attn.v_proj", {{kv, H}, &L::v_proj}},
      {"self_attn.o_proj", {{H, q}, &L::o_proj}},
      {"post_attention_layernorm", {{H}, &L::post_attention_layernorm}},
      {"mlp.gate_proj", {{I, H}, &L::gate_proj}},
      {"mlp.up_proj", {{I, H}, &L::up_proj}},
      {"mlp.down_proj", {{H, I}, &L::down_proj}},
  };
  for (std::int64_t l = 0; l < c.num_hidden_layers; ++l)
    for (const auto& [name, what] : layer)
      specs.push_back({"model.layers." + std::to_string(l) + "." + name + ".weight", what.first, l, nullptr, what.second});
  specs.push_back({"model.norm.weight", {H}, -1, &DecoderWeights::norm, nullptr});
  if (!c.tie_word_embeddings) specs.push_back({"lm_head.weight", {V, H}, -1, &DecoderWeights::lm_head, nullptr});
  return specs;
}

std::vector<std::uint16_t>& tensor_bits(DecoderWeights& w, const DecoderTensorSpec& spec) {
  return spec.layer < 0 ? w.*spec.model_member : w.layers.at(static_cast<std::size_t>(spec.layer)).*spec.layer_member;
}

const std::vector<std::uint16_t>& tensor_bits(const DecoderWeights& w, const DecoderTensorSpec& spec) {
  return spec.layer < 0 ? w.*spec.model_member : w.layers.at(static_cast<std::size_t>(spec.layer)).*spec.layer_member;
}

void validate_decoder_model(const DecoderModel& model, std::string_view label) {
  validate_decoder_config(model.config, label);
  if (static_cast<std::int64_t>(model.weights.layers.size()) != model.config.num_hidden_layers)
    fail(label, "layers", std::to_string(model.weights.layers.size()) + " layers of weights, need num_hidden_layers " +
                              std::to_string(model.config.num_hidden_layers));
  for (const DecoderTensorSpec& spec : decoder_tensor_specs(model.config)) {
    const auto n = static_cast<std::int64_t>(tensor_bits(model.weights, spec).size());
    if (n != spec.elements())
      fail(label, spec.name, "has " + std::to_string(n) + " elements, need " + spec.shape_text() + " = " + std::to_string(spec.elements()));
  }
  if (model.config.tie_word_embeddings && !model.weights.lm_head.empty())
    fail(label, "lm_head.weight", "present while tie_word_embeddings is true, need it empty (the embedding is the LM head)");
}

}  // namespace cdna::reference
