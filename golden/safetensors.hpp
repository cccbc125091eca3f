// The safetensors file format (Hugging Face; format notes in the huggingface/safetensors
// README): an 8-byte little-endian unsigned header length N, N bytes of UTF-8 JSON mapping each
// tensor name to {"dtype", "shape", "data_offsets": [begin, end)} plus an optional
// "__metadata__" object of string -> string, then the data buffer: every tensor's elements,
// little-endian, row-major, at [begin, end) relative to the buffer's start.
//
// The reader trusts nothing in a file: it checks every number before using it and rejects,
// with one line naming the file and what is wrong (SafetensorsError):
//   - a file shorter than 8 bytes; N < 2, N > 100,000,000 (the reference implementation's
//     limit) or 8 + N past the end of the file;
//   - a header that is not a JSON object (it must start with '{'; trailing spaces, which
//     writers use to align the data, are allowed), invalid UTF-8 or JSON, a duplicate key at
//     any level;
//   - "__metadata__" that is not an object of strings;
//   - a tensor entry that is not exactly {dtype, shape, data_offsets}, an unknown dtype, a
//     shape or offset that is not a non-negative integer, an element count or byte size that
//     overflows 64 bits, end < begin, end - begin != elements * dtype size;
//   - offsets that leave a hole or overlap (sorted by offset, each tensor must begin where the
//     previous one ends, the first at 0) or a last end that is not the end of the file.
// Empty tensors (a zero extent) and scalars (shape []) are allowed, as in the format notes.
//
// The writer emits "__metadata__" first, then the tensors in data order: by descending element
// size (so every tensor is aligned to its element size, as the reference writer does), then by
// name; the header is padded with spaces to a multiple of 8 bytes. The same content always
// gives the same bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace cdna::golden {

// Every dtype of the format except the packed 4-bit ones. Typed accessors exist for the
// ones cdna-verify uses (BF16, F32, F64, I32, U8); the rest are read and written as bytes.
enum class Dtype : std::uint8_t { BOOL, U8, I8, F8_E5M2, F8_E4M3, I16, U16, F16, BF16, I32, U32, F32, F64, I64, U64 };

std::string_view to_string(Dtype dtype);                 // "BF16", ...
std::optional<Dtype> parse_dtype(std::string_view name);  // exact spelling, as in the format
std::size_t dtype_size(Dtype dtype);                      // bytes per element

// A malformed file or a tensor that is not what the caller asked for: what() is one line,
// "<file>: <what is wrong>".
class SafetensorsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Tensor {
  Dtype dtype = Dtype::U8;
  std::vector<std::int64_t> shape;  // row-major; [] is a scalar
  std::vector<std::byte> data;      // elements() * dtype_size(dtype) bytes, little-endian

  // Product of the extents (1 for a scalar).
  std::int64_t elements() const;
};

// Typed tensors from host values (stored little-endian whatever the host order). Throw
// std::invalid_argument if values.size() is not the shape's element count or an extent < 0.
Tensor make_bf16(std::vector<std::int64_t> shape, std::span<const std::uint16_t> bits);
Tensor make_f32(std::vector<std::int64_t> shape, std::span<const float> values);
Tensor make_f64(std::vector<std::int64_t> shape, std::span<const double> values);
Tensor make_i32(std::vector<std::int64_t> shape, std::span<const std::int32_t> values);
Tensor make_u8(std::vector<std::int64_t> shape, std::span<const std::uint8_t> values);

// Host values of a tensor. Throw SafetensorsError "<label>: tensor has dtype X, expected Y"
// if the dtype differs (label names the file and tensor in messages).
std::vector<std::uint16_t> as_bf16(const Tensor& t, std::string_view label);
std::vector<float> as_f32(const Tensor& t, std::string_view label);
std::vector<double> as_f64(const Tensor& t, std::string_view label);
std::vector<std::int32_t> as_i32(const Tensor& t, std::string_view label);
std::vector<std::uint8_t> as_u8(const Tensor& t, std::string_view label);

struct SafetensorsFile {
  std::map<std::string, std::string> metadata;  // "__metadata__"; empty: not written
  std::map<std::string, Tensor> tensors;

  // The tensor `name`, or SafetensorsError "<label>: no tensor 'name'".
  const Tensor& at(const std::string& name, std::string_view label) const;
  const Tensor* find(const std::string& name) const;
};

// Parses a whole file held in memory; `label` (the file name) starts every error message.
SafetensorsFile parse_safetensors(std::span<const std::byte> bytes, std::string_view label);
// Reads and parses a file; SafetensorsError "<path>: cannot read: <reason>" if unreadable.
SafetensorsFile read_safetensors(const std::filesystem::path& path);

// The file's bytes. Throws std::invalid_argument for a tensor whose data size does not match
// its dtype and shape, or the tensor name "__metadata__".
std::vector<std::byte> serialize_safetensors(const SafetensorsFile& file);

// Writes `bytes` to `path` atomically: to a temporary file in the same directory, renamed over
// `path` when complete, so a reader never sees a partial file. Throws std::runtime_error
// "cannot write '<path>': <reason>" (and removes the temporary file) on failure.
void write_file_atomically(const std::filesystem::path& path, std::span<const std::byte> bytes);

// serialize_safetensors + write_file_atomically.
void write_safetensors(const std::filesystem::path& path, const SafetensorsFile& file);

}  // namespace cdna::golden
