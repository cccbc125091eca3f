// The args.json of `cdna-verify sim`: a JSON array, one entry per explicit kernel argument in
// declaration order:
//   {"buffer": "in.bin"}               input buffer read from a file
//   {"output": "out.bin", "bytes": N}  N zero bytes (N <= 2^34), written to the file after the run
//   {"inout": "x.bin"}                 read from the file, written back after the run
//   {"null": true}                     a buffer argument passed as the null pointer (address 0)
//   {"i32": 5} {"u32": 5} {"i64": 5} {"u64": 5}  integers, range-checked for their type
//   {"f32": 1.5} {"f64": 1.5}          numbers (f32: rounded to nearest, must be within fp32 range)
//   {"bytes_hex": "0a0b"}              raw bytes
// Relative file names are relative to the directory of args.json. Each entry is checked against
// the kernel's metadata (a buffer for a global_buffer argument, a value of the argument's size
// otherwise).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "simulator/decode/code_object.hpp"

namespace cdna::tools {

// One explicit argument as args.json gives it.
struct SimArg {
  std::vector<std::byte> data;  // a buffer's bytes, or a value's little-endian bytes
  std::uint64_t output_bytes = 0;  // outputs: the size; the caller allocates the zero bytes
  bool buffer = false, writable = false;
  bool null = false;                   // a buffer passed as the null pointer (address 0)
  std::filesystem::path write_to;      // outputs and inouts: where the buffer goes after the run
  std::filesystem::path read_from;     // buffers and inouts: the file the bytes came from
};

// Reads a buffer file: (path, what) -> its bytes; throws std::runtime_error one line naming the
// path if it cannot (sim: read_whole_file; the fuzzer: files in memory).
using FileReader = std::function<std::vector<std::byte>(const std::filesystem::path&, const std::string&)>;

// Parses args.json text against the explicit arguments of `kernel` (`explicit_args`, in
// declaration order). `args_path` is the file as the user gave it: messages name it
// ("<args_path> entry 3: ...", entries counted from 0 like the kernel's arguments) and relative
// file names resolve against its directory. Files are read only through `read` (buffer and
// inout entries); output files are not touched and their bytes not allocated. Throws std::runtime_error with one line on bad
// JSON, a top level that is not an array, a count other than the kernel's, or any bad entry.
std::vector<SimArg> parse_sim_args(std::string_view text, const std::string& args_path, const std::string& kernel,
                                   const std::vector<simulator::ArgInfo>& explicit_args, const FileReader& read);

}  // namespace cdna::tools
