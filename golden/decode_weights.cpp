#include "golden/decode_weights.hpp"

#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "golden/safetensors.hpp"
#include "numerics/bf16.hpp"
#include "reference/common/input_file.hpp"

namespace cdna::golden {
namespace {

using reference::DecoderModel;
using reference::DecoderTensorSpec;
using reference::ModelFileError;

constexpr const char* kSingleFile = "model.safetensors";
constexpr const char* kIndexFile = "model.safetensors.index.json";

[[noreturn]] void fail_tensor(const std::filesystem::path& file, const std::string& name, const std::string& what) {
  throw ModelFileError(file.string() + ": tensor '" + name + "': " + what);
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  DecoderTensorSpec s;
  s.shape = shape;
  return s.shape_text();
}

// bf16 bits of an fp32 value, if it is one (low 16 bits zero: widening is exact and reversible).
std::optional<std::uint16_t> exact_bf16(float v) {
  std::uint32_t u = 0;
  std::memcpy(&u, &v, sizeof u);
  if ((u & 0xFFFFu) != 0) return std::nullopt;
  return static_cast<std::uint16_t>(u >> 16);
}

// The tensor's values as bf16 bits: BF16 as stored, F32/F16 only when every value is a bf16 value.
std::vector<std::uint16_t> bf16_values(const Tensor& t, const std::filesystem::path& file, const std::string& name) {
  if (t.dtype == Dtype::BF16) return as_bf16(t, file.string());
  std::vector<float> f;
  if (t.dtype == Dtype::F32) {
    f = as_f32(t, file.string());
  } else if (t.dtype == Dtype::F16) {
    f.resize(t.data.size() / 2);
    for (std::size_t i = 0; i < f.size(); ++i)
      f[i] = numerics::f32_from_f16(static_cast<std::uint16_t>(std::to_integer<unsigned>(t.data[2 * i]) |
                                                               (std::to_integer<unsigned>(t.data[2 * i + 1]) << 8)));
  } else {
    fail_tensor(file, name, "dtype " + std::string(to_string(t.dtype)) + ", need BF16 (or F32/F16 holding bf16 values)");
  }
  std::vector<std::uint16_t> bits(f.size());
  for (std::size_t i = 0; i < f.size(); ++i) {
    const auto b = exact_bf16(f[i]);
    if (!b)
      fail_tensor(file, name, std::string(to_string(t.dtype)) + " element " + std::to_string(i) + " = " +
                                  std::to_string(f[i]) + " is not a bf16 value, need BF16 weights (converting would round)");
    bits[i] = *b;
  }
  return bits;
}

std::string read_text(const std::filesystem::path& path) {
  if (auto why = reference::directory_instead_of_file(path, "model file")) throw ModelFileError(*why);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ModelFileError(path.string() + ": cannot read: no such file or not readable");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// tensor name -> shard file name, from the index's "weight_map".
std::map<std::string, std::string> weight_map(const std::filesystem::path& index) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_text(index));
  } catch (const nlohmann::json::parse_error& e) {
    throw ModelFileError(index.string() + ": not valid JSON (" + e.what() + ")");
  }
  if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object())
    throw ModelFileError(index.string() + ": weight_map: missing, need an object of tensor name -> shard file");
  std::map<std::string, std::string> map;
  for (const auto& [name, file] : j["weight_map"].items()) {
    // A shard is a plain file name in the folder: no paths out of it.
    if (!file.is_string() || file.get<std::string>().empty() || file.get<std::string>().find('/') != std::string::npos ||
        file.get<std::string>() == "..")
      throw ModelFileError(index.string() + ": weight_map: '" + name + "' -> " + file.dump() +
                           ", need the name of a shard file in the folder");
    map[name] = file.get<std::string>();
  }
  return map;
}

// Every tensor name -> the file it is in (relative to the folder).
std::map<std::string, std::string> tensor_files(const std::filesystem::path& folder,
                                                std::map<std::string, SafetensorsFile>& shards) {
  std::map<std::string, std::string> where;
  if (std::filesystem::exists(folder / kIndexFile)) {
    where = weight_map(folder / kIndexFile);
    for (const auto& [name, file] : where) {
      if (!shards.contains(file)) shards.emplace(file, read_safetensors(folder / file));
      if (shards.at(file).find(name) == nullptr)
        fail_tensor(folder / file, name, "listed in " + std::string(kIndexFile) + " but not in this shard");
    }
    for (const auto& [file, content] : shards)
      for (const auto& [name, t] : content.tensors) {
        const auto it = where.find(name);
        if (it == where.end()) fail_tensor(folder / file, name, "not listed in the index's weight_map, need it listed");
        if (it->second != file)
          fail_tensor(folder / file, name, "also in " + it->second + " according to the index, need one copy");
      }
  } else {
    shards.emplace(kSingleFile, read_safetensors(folder / kSingleFile));
    for (const auto& [name, t] : shards.at(kSingleFile).tensors) where[name] = kSingleFile;
  }
  return where;
}

void check_shape(const Tensor& t, const DecoderTensorSpec& spec, const std::filesystem::path& file) {
  if (t.shape != spec.shape)
    fail_tensor(file, spec.name, "shape " + shape_text(t.shape) + ", need " + spec.shape_text() + " (from config.json)");
}

reference::DecoderModel load_checked(const std::filesystem::path& folder) {
  DecoderModel m;
  m.config = reference::read_decoder_config(folder / "config.json");
  m.weights.layers.resize(static_cast<std::size_t>(m.config.num_hidden_layers));
  std::map<std::string, SafetensorsFile> shards;
  std::map<std::string, std::string> where = tensor_files(folder, shards);
  for (const DecoderTensorSpec& spec : reference::decoder_tensor_specs(m.config)) {
    const auto it = where.find(spec.name);
    if (it == where.end())
      throw ModelFileError(folder.string() + ": tensor '" + spec.name + "': missing, need BF16 " + spec.shape_text());
    const std::filesystem::path file = folder / it->second;
    const Tensor& t = *shards.at(it->second).find(spec.name);
    check_shape(t, spec, file);
    tensor_bits(m.weights, spec) = bf16_values(t, file, spec.name);
    where.erase(it);
  }
  if (const auto it = where.find("lm_head.weight"); it != where.end() && m.config.tie_word_embeddings) {
    const std::filesystem::path file = folder / it->second;
    const Tensor& t = *shards.at(it->second).find(it->first);
    if (t.shape != std::vector<std::int64_t>{m.config.vocab_size, m.config.hidden_size} ||
        bf16_values(t, file, it->first) != m.weights.embed_tokens)
      fail_tensor(file, it->first, "differs from model.embed_tokens.weight while tie_word_embeddings is true, need a copy or none");
    where.erase(it);
  }
  if (!where.empty())
    fail_tensor(folder / where.begin()->second, where.begin()->first,
                "not a tensor of this decoder (biases, inv_freq and extra layers are not supported), need none");
  return m;
}

}  // namespace

reference::DecoderModel load_decoder_model(const std::filesystem::path& folder) {
  try {
    return load_checked(folder);
  } catch (const SafetensorsError& e) {
    throw ModelFileError(e.what());  // already "<file>: <what is wrong>"
  }
}

void write_decoder_model(const reference::DecoderModel& model, const std::filesystem::path& folder,
                         const ModelWriteOptions& options) {
  reference::validate_decoder_model(model, "model to write");
  const std::vector<DecoderTensorSpec> specs = reference::decoder_tensor_specs(model.config);
  const auto shards = static_cast<std::size_t>(options.shards);
  if (options.shards < 1 || shards > specs.size())
    throw std::invalid_argument("shards " + std::to_string(options.shards) + " outside [1, " +
                                std::to_string(specs.size()) + "] (the number of tensors)");
  std::filesystem::create_directories(folder);
  nlohmann::json map = nlohmann::json::object();
  std::size_t total = 0;
  for (std::size_t s = 0; s < shards; ++s) {
    char name[64];
    std::snprintf(name, sizeof name, "model-%05zu-of-%05zu.safetensors", s + 1, shards);
    const std::string file = shards == 1 ? kSingleFile : name;
    SafetensorsFile f;
    f.metadata["format"] = "pt";
    for (std::size_t k = s * specs.size() / shards; k < (s + 1) * specs.size() / shards; ++k) {
      f.tensors[specs[k].name] = make_bf16(specs[k].shape, tensor_bits(model.weights, specs[k]));
      map[specs[k].name] = file;
      total += 2 * static_cast<std::size_t>(specs[k].elements());
    }
    write_safetensors(folder / file, f);
  }
  if (shards == 1) std::filesystem::remove(folder / kIndexFile);  // a stale index would win over the new file
  if (shards > 1) {
    const nlohmann::json index = {{"metadata", {{"total_size", total}}}, {"weight_map", map}};
    const std::string text = index.dump(2) + "\n";
    write_file_atomically(folder / kIndexFile, std::as_bytes(std::span(text)));
  }
  const std::string config = reference::decoder_config_json(model.config);
  write_file_atomically(folder / "config.json", std::as_bytes(std::span(config)));
}

}  // namespace cdna::golden
