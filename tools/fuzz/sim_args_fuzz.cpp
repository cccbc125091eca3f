// libFuzzer target: the args.json parser of `cdna-verify sim` (tools/sim_args.hpp) on arbitrary
// text. Files are read from memory (a name containing "missing" cannot be read), so the fuzzer
// exercises the parser, not the filesystem. Each input is parsed against three kernels with as
// many explicit arguments as the text has entries: one whose arguments are what the entries ask
// for (so good entries are accepted), one of 4-byte values and one of global buffers (so the
// checks against the kernel's metadata reject them).
//
// Allowed outcomes: an argument list that agrees with the kernel (one per argument, a buffer
// exactly for a global buffer, a value of the argument's size holding the number the text gives:
// an integer exactly, a float finite), or std::runtime_error with a one-line message. Anything else (crash, sanitizer report, leak, another exception type, a
// message of several lines, a list the kernel does not take) aborts.
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "simulator/fuzz/fuzz_outcome.hpp"
#include "tools/sim_args.hpp"

namespace {

using cdna::fuzz::bug;
using cdna::simulator::ArgInfo;
using cdna::simulator::ArgKind;
using cdna::tools::SimArg;

std::vector<std::byte> read_in_memory(const std::filesystem::path& p, const std::string& what) {
  if (p.string().find("missing") != std::string::npos)
    throw std::runtime_error(what + " '" + p.string() + "' cannot be read (missing or unreadable)");
  return std::vector<std::byte>(p.string().size() % 9, std::byte{0x5a});
}

ArgInfo value(std::uint32_t size) { return {0, size, "by_value", ArgKind::ByValue, "v"}; }
ArgInfo buffer() { return {0, 8, "global_buffer", ArgKind::GlobalBuffer, "p"}; }

// The argument an entry asks for: a buffer for the file and null keys, else a value of the
// key's size (bytes_hex: its byte count); anything unreadable gets a 4-byte value.
ArgInfo asked_for(const nlohmann::json& e) {
  if (!e.is_object() || e.empty()) return value(4);
  for (const char* k : {"buffer", "output", "inout", "null"})
    if (e.contains(k)) return buffer();
  const std::string& key = e.begin().key();
  if (key == "i64" || key == "u64" || key == "f64") return value(8);
  if (key == "bytes_hex" && e.begin().value().is_string())
    return value(static_cast<std::uint32_t>(e.begin().value().get_ref<const std::string&>().size() / 2));
  return value(4);
}

template <class T>
T load(const SimArg& a) {
  T v{};
  std::memcpy(&v, a.data.data(), sizeof v);
  return v;
}

// The integer x equals the JSON integer v (JSON parses non-negative integers as unsigned).
bool same_integer(std::int64_t x, const nlohmann::json& v) {
  if (v.is_number_unsigned()) return x >= 0 && static_cast<std::uint64_t>(x) == v.get<std::uint64_t>();
  return x == v.get<std::int64_t>();
}

// An accepted value entry holds the number the text gives: an integer exactly, an f32 or f64 a
// finite value (JSON numbers are finite).
void check_value(const nlohmann::json& e, const SimArg& a) {
  const std::string& key = e.begin().key();
  const nlohmann::json& v = e.begin().value();
  bool ok = true;
  if (key == "i32") ok = same_integer(load<std::int32_t>(a), v);
  else if (key == "u32") ok = same_integer(load<std::uint32_t>(a), v);
  else if (key == "i64") ok = same_integer(load<std::int64_t>(a), v);
  else if (key == "u64") ok = v.is_number_unsigned() && load<std::uint64_t>(a) == v.get<std::uint64_t>();
  else if (key == "f32") ok = std::isfinite(load<float>(a));
  else if (key == "f64") ok = std::isfinite(load<double>(a));
  if (!ok) bug("parse_sim_args", "accepted " + e.dump() + " as another value");
}

void parse_against(std::string_view text, const nlohmann::json& j, const std::vector<ArgInfo>& kernel) {
  std::vector<SimArg> args;
  const bool parsed = cdna::fuzz::returns_or_documented<std::runtime_error>("parse_sim_args", [&] {
    args = cdna::tools::parse_sim_args(text, "/fuzz/dir/args.json", "fuzz_kernel", kernel, read_in_memory);
  });
  if (!parsed) return;
  if (args.size() != kernel.size()) bug("parse_sim_args", "returned a list of another length than the kernel's");
  for (std::size_t i = 0; i < args.size(); ++i) {
    const SimArg& a = args[i];
    if (a.buffer != (kernel[i].kind == ArgKind::GlobalBuffer)) bug("parse_sim_args", "a buffer/value mismatch passed");
    if (!a.buffer && a.data.size() != kernel[i].size) bug("parse_sim_args", "a value of the wrong size passed");
    if (a.null && (!a.data.empty() || a.writable)) bug("parse_sim_args", "a null pointer with data or writable");
    if (a.writable != !a.write_to.empty()) bug("parse_sim_args", "a writable buffer without a file, or the reverse");
    if (!a.buffer) check_value(j[i], a);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const nlohmann::json j = nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  std::vector<ArgInfo> asked, values, buffers;
  if (j.is_array()) {
    for (const auto& e : j) {
      asked.push_back(asked_for(e));
      values.push_back(value(4));
      buffers.push_back(buffer());
    }
  }
  for (const auto* kernel : {&asked, &values, &buffers}) parse_against(text, j, *kernel);
  return 0;
}
