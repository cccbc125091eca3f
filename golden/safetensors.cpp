#include "golden/safetensors.hpp"
#include "reference/common/json_duplicates.hpp"
#include "reference/common/input_file.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <system_error>

#include <unistd.h>

#include "golden/printable.hpp"

namespace cdna::golden {
namespace {

constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;  // the reference implementation's limit

struct DtypeInfo {
  Dtype dtype;
  std::string_view name;
  std::size_t size;
};
constexpr std::array<DtypeInfo, 15> kDtypes{{{Dtype::BOOL, "BOOL", 1},
                                             {Dtype::U8, "U8", 1},
                                             {Dtype::I8, "I8", 1},
                                             {Dtype::F8_E5M2, "F8_E5M2", 1},
                                             {Dtype::F8_E4M3, "F8_E4M3", 1},
                                             {Dtype::I16, "I16", 2},
                                             {Dtype::U16, "U16", 2},
                                             {Dtype::F16, "F16", 2},
                                             {Dtype::BF16, "BF16", 2},
                                             {Dtype::I32, "I32", 4},
                                             {Dtype::U32, "U32", 4},
                                             {Dtype::F32, "F32", 4},
                                             {Dtype::F64, "F64", 8},
                                             {Dtype::I64, "I64", 8},
                                             {Dtype::U64, "U64", 8}}};

const DtypeInfo& info(Dtype d) {
  for (const auto& i : kDtypes)
    if (i.dtype == d) return i;
  throw std::invalid_argument("unknown safetensors dtype");
}

[[noreturn]] void bad(std::string_view label, const std::string& what) {
  throw SafetensorsError(std::string(label) + ": " + what);
}

// Checked element count and byte size of a shape; nullopt on overflow or a negative extent.
std::optional<std::uint64_t> checked_bytes(const std::vector<std::int64_t>& shape, std::size_t elem_size) {
  std::uint64_t n = 1;
  for (std::int64_t e : shape) {
    if (e < 0) return std::nullopt;
    if (__builtin_mul_overflow(n, static_cast<std::uint64_t>(e), &n)) return std::nullopt;
  }
  std::uint64_t bytes = 0;
  if (__builtin_mul_overflow(n, static_cast<std::uint64_t>(elem_size), &bytes)) return std::nullopt;
  return bytes;
}

template <class T>
void store_le(std::byte* out, T value) {
  using U = std::conditional_t<sizeof(T) == 1, std::uint8_t,
                               std::conditional_t<sizeof(T) == 2, std::uint16_t,
                                                  std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>;
  const U u = std::bit_cast<U>(value);
  for (std::size_t b = 0; b < sizeof(T); ++b) out[b] = static_cast<std::byte>((u >> (8 * b)) & 0xffu);
}

template <class T>
T load_le(const std::byte* in) {
  using U = std::conditional_t<sizeof(T) == 1, std::uint8_t,
                               std::conditional_t<sizeof(T) == 2, std::uint16_t,
                                                  std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>;
  U u = 0;
  for (std::size_t b = 0; b < sizeof(T); ++b) u = static_cast<U>(u | (static_cast<U>(std::to_integer<std::uint8_t>(in[b])) << (8 * b)));
  return std::bit_cast<T>(u);
}

template <class T>
Tensor make_typed(Dtype dtype, std::vector<std::int64_t> shape, std::span<const T> values) {
  const auto bytes = checked_bytes(shape, sizeof(T));
  if (!bytes) throw std::invalid_argument("safetensors tensor: negative or overflowing extent");
  if (*bytes != values.size() * sizeof(T)) {
    throw std::invalid_argument("safetensors tensor: " + std::to_string(values.size()) +
                                " values do not match the shape's element count");
  }
  Tensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.data.resize(values.size() * sizeof(T));
  for (std::size_t n = 0; n < values.size(); ++n) store_le(t.data.data() + n * sizeof(T), values[n]);
  return t;
}

template <class T>
std::vector<T> typed(const Tensor& t, Dtype want, std::string_view label) {
  if (t.dtype != want) {
    bad(label, "tensor has dtype " + std::string(to_string(t.dtype)) + ", expected " + std::string(to_string(want)));
  }
  if (t.data.size() % sizeof(T) != 0) bad(label, "tensor data is not a whole number of elements");
  std::vector<T> out(t.data.size() / sizeof(T));
  for (std::size_t n = 0; n < out.size(); ++n) out[n] = load_le<T>(t.data.data() + n * sizeof(T));
  return out;
}

// A non-negative JSON integer, or nullopt (negative, fractional, too large, not a number).
std::optional<std::uint64_t> json_uint(const nlohmann::json& j) {
  if (j.is_number_unsigned()) return j.get<std::uint64_t>();
  if (j.is_number_integer()) {
    const auto v = j.get<std::int64_t>();
    if (v >= 0) return static_cast<std::uint64_t>(v);
  }
  return std::nullopt;
}

struct Entry {
  std::string name;
  std::uint64_t begin = 0, end = 0;
};

}  // namespace

std::string_view to_string(Dtype dtype) { return info(dtype).name; }

std::optional<Dtype> parse_dtype(std::string_view name) {
  for (const auto& i : kDtypes)
    if (i.name == name) return i.dtype;
  return std::nullopt;
}

std::size_t dtype_size(Dtype dtype) { return info(dtype).size; }

std::int64_t Tensor::elements() const {
  std::int64_t n = 1;
  for (std::int64_t e : shape) n *= e;
  return n;
}

Tensor make_bf16(std::vector<std::int64_t> shape, std::span<const std::uint16_t> bits) {
  return make_typed(Dtype::BF16, std::move(shape), bits);
}
Tensor make_f32(std::vector<std::int64_t> shape, std::span<const float> values) {
  return make_typed(Dtype::F32, std::move(shape), values);
}
Tensor make_f64(std::vector<std::int64_t> shape, std::span<const double> values) {
  return make_typed(Dtype::F64, std::move(shape), values);
}
Tensor make_i32(std::vector<std::int64_t> shape, std::span<const std::int32_t> values) {
  return make_typed(Dtype::I32, std::move(shape), values);
}
Tensor make_u8(std::vector<std::int64_t> shape, std::span<const std::uint8_t> values) {
  return make_typed(Dtype::U8, std::move(shape), values);
}

std::vector<std::uint16_t> as_bf16(const Tensor& t, std::string_view label) {
  return typed<std::uint16_t>(t, Dtype::BF16, label);
}
std::vector<float> as_f32(const Tensor& t, std::string_view label) { return typed<float>(t, Dtype::F32, label); }
std::vector<double> as_f64(const Tensor& t, std::string_view label) { return typed<double>(t, Dtype::F64, label); }
std::vector<std::int32_t> as_i32(const Tensor& t, std::string_view label) {
  return typed<std::int32_t>(t, Dtype::I32, label);
}
std::vector<std::uint8_t> as_u8(const Tensor& t, std::string_view label) {
  return typed<std::uint8_t>(t, Dtype::U8, label);
}

const Tensor* SafetensorsFile::find(const std::string& name) const {
  auto it = tensors.find(name);
  return it == tensors.end() ? nullptr : &it->second;
}

const Tensor& SafetensorsFile::at(const std::string& name, std::string_view label) const {
  if (const Tensor* t = find(name)) return *t;
  bad(label, "no tensor '" + printable(name) + "'");
}

SafetensorsFile parse_safetensors(std::span<const std::byte> bytes, std::string_view label) {
  if (bytes.size() < 8) {
    bad(label, "truncated: " + std::to_string(bytes.size()) + " bytes, shorter than the 8-byte header length");
  }
  const std::uint64_t n = load_le<std::uint64_t>(bytes.data());
  if (n < 2) bad(label, "header length " + std::to_string(n) + " is too small for a JSON object");
  if (n > kMaxHeaderBytes) {
    bad(label, "header length " + std::to_string(n) + " exceeds the format's limit of 100000000 bytes");
  }
  if (n > bytes.size() - 8) {
    bad(label, "truncated: header length " + std::to_string(n) + " but only " + std::to_string(bytes.size() - 8) +
                   " bytes follow it");
  }
  const std::string_view header(reinterpret_cast<const char*>(bytes.data() + 8), static_cast<std::size_t>(n));
  if (header.front() != '{') bad(label, "header does not start with '{' (not a JSON object)");
  // The JSON parser would take a NUL byte as the end of its input; JSON text never holds one.
  if (const auto nul = header.find('\0'); nul != std::string_view::npos) {
    bad(label, "header is not valid JSON: NUL byte at header offset " + std::to_string(nul));
  }

  // Duplicate keys are not allowed at any level (the format notes); nlohmann keeps the last
  // one silently, so they are caught while parsing.
  reference::DuplicateKeys dup;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(header.begin(), header.end(), dup.callback());
  } catch (const nlohmann::json::exception& e) {
    std::string what = e.what();
    std::replace(what.begin(), what.end(), '\n', ' ');
    bad(label, "header is not valid JSON: " + printable(what, 160));
  }
  if (!dup.first.empty()) bad(label, "header has the key '" + printable(dup.first) + "' twice");
  if (!j.is_object()) bad(label, "header is not a JSON object");

  SafetensorsFile file;
  std::vector<Entry> entries;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& name = it.key();
    const nlohmann::json& v = it.value();
    if (name == "__metadata__") {
      if (!v.is_object()) bad(label, "__metadata__ is not a JSON object");
      for (auto m = v.begin(); m != v.end(); ++m) {
        if (!m.value().is_string()) bad(label, "__metadata__ value of '" + printable(m.key()) + "' is not a string");
        file.metadata[m.key()] = m.value().get<std::string>();
      }
      continue;
    }
    const std::string where = "tensor '" + printable(name) + "'";
    if (!v.is_object()) bad(label, where + " is not a JSON object");
    for (auto f = v.begin(); f != v.end(); ++f) {
      if (f.key() != "dtype" && f.key() != "shape" && f.key() != "data_offsets") {
        bad(label, where + " has an unknown field '" + printable(f.key()) + "'");
      }
    }
    if (!v.contains("dtype") || !v["dtype"].is_string()) bad(label, where + " has no string field 'dtype'");
    const auto dtype = parse_dtype(v["dtype"].get<std::string>());
    if (!dtype) bad(label, where + " has the unknown dtype '" + printable(v["dtype"].get<std::string>()) + "'");
    if (!v.contains("shape") || !v["shape"].is_array()) bad(label, where + " has no array field 'shape'");
    Tensor t;
    t.dtype = *dtype;
    for (const auto& e : v["shape"]) {
      const auto x = json_uint(e);
      if (!x || *x > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        bad(label, where + " has a shape entry that is not a non-negative integer: " + printable(e.dump()));
      }
      t.shape.push_back(static_cast<std::int64_t>(*x));
    }
    if (!v.contains("data_offsets") || !v["data_offsets"].is_array() || v["data_offsets"].size() != 2) {
      bad(label, where + " has no field 'data_offsets' of two integers");
    }
    const auto begin = json_uint(v["data_offsets"][0]), end = json_uint(v["data_offsets"][1]);
    if (!begin || !end) bad(label, where + " has data_offsets that are not non-negative integers");
    if (*end < *begin) {
      bad(label, where + " has data_offsets [" + std::to_string(*begin) + ", " + std::to_string(*end) +
                     ") with end before begin");
    }
    const auto want = checked_bytes(t.shape, dtype_size(*dtype));
    if (!want) bad(label, where + " has a shape whose byte size overflows 64 bits");
    if (*end - *begin != *want) {
      bad(label, where + " has " + std::to_string(*end - *begin) + " data bytes but dtype " +
                     std::string(to_string(*dtype)) + " and its shape need " + std::to_string(*want));
    }
    entries.push_back({name, *begin, *end});
    file.tensors.emplace(name, std::move(t));
  }

  // The data buffer must be covered exactly: no hole, no overlap, nothing after the last tensor.
  const std::uint64_t data_size = bytes.size() - 8 - n;
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.begin != b.begin ? a.begin < b.begin : a.end < b.end; });
  std::uint64_t expected = 0;
  std::string previous;
  for (const Entry& e : entries) {
    if (e.begin > data_size || e.end > data_size) {
      bad(label, "tensor '" + printable(e.name) + "' data_offsets [" + std::to_string(e.begin) + ", " +
                     std::to_string(e.end) + ") run past the end of the data (" + std::to_string(data_size) +
                     " bytes; truncated file?)");
    }
    if (e.begin < expected) {
      bad(label, "tensor '" + printable(e.name) + "' data_offsets [" + std::to_string(e.begin) + ", " +
                     std::to_string(e.end) + ") overlap tensor '" + printable(previous) + "'");
    }
    if (e.begin > expected) {
      bad(label, "tensor '" + printable(e.name) + "' begins at " + std::to_string(e.begin) +
                     ", leaving unreferenced bytes from " + std::to_string(expected));
    }
    expected = e.end;
    previous = e.name;
  }
  if (expected != data_size) {
    bad(label, std::to_string(data_size - expected) + " bytes after the last tensor's data are not referenced by "
                                                      "the header");
  }
  for (const Entry& e : entries) {
    Tensor& t = file.tensors.at(e.name);
    const auto* first = bytes.data() + 8 + n + e.begin;
    t.data.assign(first, first + (e.end - e.begin));
  }
  return file;
}

SafetensorsFile read_safetensors(const std::filesystem::path& path) {
  if (auto why = reference::directory_instead_of_file(path, "")) throw SafetensorsError(*why);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::error_code ec(errno, std::generic_category());
    throw SafetensorsError(path.string() + ": cannot read: " + ec.message());
  }
  std::vector<std::byte> bytes;
  std::array<char, 1 << 16> buf{};
  while (in) {
    in.read(buf.data(), buf.size());
    const auto got = static_cast<std::size_t>(in.gcount());
    const auto* b = reinterpret_cast<const std::byte*>(buf.data());
    bytes.insert(bytes.end(), b, b + got);
  }
  if (in.bad()) throw SafetensorsError(path.string() + ": cannot read: I/O error");
  return parse_safetensors(bytes, path.string());
}

std::vector<std::byte> serialize_safetensors(const SafetensorsFile& file) {
  std::vector<std::pair<const std::string*, const Tensor*>> order;
  for (const auto& [name, t] : file.tensors) {
    if (name == "__metadata__") throw std::invalid_argument("safetensors: a tensor may not be named __metadata__");
    const auto want = checked_bytes(t.shape, dtype_size(t.dtype));
    if (!want || *want != t.data.size()) {
      throw std::invalid_argument("safetensors: tensor '" + name + "' has " + std::to_string(t.data.size()) +
                                  " data bytes, which do not match its dtype and shape");
    }
    order.emplace_back(&name, &t);
  }
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return dtype_size(a.second->dtype) > dtype_size(b.second->dtype);
  });

  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!file.metadata.empty()) {
    nlohmann::ordered_json meta = nlohmann::ordered_json::object();
    for (const auto& [k, v] : file.metadata) meta[k] = v;
    header["__metadata__"] = std::move(meta);
  }
  std::uint64_t offset = 0;
  for (const auto& [name, t] : order) {
    nlohmann::ordered_json entry = nlohmann::ordered_json::object();
    entry["dtype"] = std::string(to_string(t->dtype));
    entry["shape"] = t->shape;
    entry["data_offsets"] = {offset, offset + t->data.size()};
    offset += t->data.size();
    header[*name] = std::move(entry);
  }
  std::string text;
  try {
    text = header.dump();
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(std::string("safetensors: header cannot be written: ") + e.what());
  }
  text.append((8 - text.size() % 8) % 8, ' ');

  std::vector<std::byte> out(8 + text.size() + offset);
  store_le(out.data(), static_cast<std::uint64_t>(text.size()));
  std::memcpy(out.data() + 8, text.data(), text.size());
  std::size_t at = 8 + text.size();
  for (const auto& [name, t] : order) {
    if (!t->data.empty()) std::memcpy(out.data() + at, t->data.data(), t->data.size());
    at += t->data.size();
  }
  return out;
}

void write_file_atomically(const std::filesystem::path& path, std::span<const std::byte> bytes) {
  const std::filesystem::path tmp = path.string() + ".partial-" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) {
      std::error_code ec;
      std::filesystem::remove(tmp, ec);
      throw std::runtime_error("cannot write '" + path.string() + "': cannot write the temporary file '" +
                               tmp.string() + "'");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw std::runtime_error("cannot write '" + path.string() + "': " + ec.message());
  }
}

void write_safetensors(const std::filesystem::path& path, const SafetensorsFile& file) {
  const auto bytes = serialize_safetensors(file);
  write_file_atomically(path, bytes);
}

}  // namespace cdna::golden
