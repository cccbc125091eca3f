#include "tools/sim_args.hpp"

#include <nlohmann/json.hpp>

#include <cfloat>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <stdexcept>

#include "golden/printable.hpp"

namespace cdna::tools {

namespace {

namespace fs = std::filesystem;
using golden::printable;
using nlohmann::json;

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error(what); }

template <class T>
std::vector<std::byte> bytes_of(T v) {
  std::vector<std::byte> b(sizeof(T));
  std::memcpy(b.data(), &v, sizeof(T));
  return b;
}

// True if the JSON integer v lies in [lo, hi] (JSON parses non-negative integers as unsigned,
// negative ones as signed; either may be compared against either bound without wrapping).
bool integer_in(const json& v, std::int64_t lo, std::uint64_t hi) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>() <= hi;
  const std::int64_t x = v.get<std::int64_t>();
  return x >= lo && (x < 0 || static_cast<std::uint64_t>(x) <= hi);
}

// An integer entry: its bytes as T, after checking that the value is an integer T holds.
template <class T>
std::vector<std::byte> integer_bytes(const json& v, const std::string& who, const std::string& key) {
  if (!v.is_number_integer()) fail(who + ": \"" + key + "\" takes an integer");
  constexpr auto lo = std::numeric_limits<T>::min();
  constexpr auto hi = std::numeric_limits<T>::max();
  if (!integer_in(v, lo, hi))
    fail(who + ": \"" + key + "\" " + v.dump() + " is out of range (" + std::to_string(lo) + " .. " +
         std::to_string(hi) + ")");
  if (v.is_number_unsigned()) return bytes_of(static_cast<T>(v.get<std::uint64_t>()));
  return bytes_of(static_cast<T>(v.get<std::int64_t>()));
}

std::vector<std::byte> hex_bytes(const json& v, const std::string& who) {
  if (!v.is_string()) fail(who + ": \"bytes_hex\" takes a string of hex digits");
  const std::string h = v.get<std::string>();
  if (h.size() % 2 != 0) fail(who + ": \"bytes_hex\" needs an even number of hex digits");
  std::vector<std::byte> out;
  for (std::size_t k = 0; k < h.size(); k += 2) {
    unsigned x = 0;
    for (std::size_t j = k; j < k + 2; ++j) {
      const char c = h[j];
      const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
      if (d < 0) fail(who + ": \"bytes_hex\" has a non-hex character '" + printable(std::string(1, c)) + "'");
      x = x * 16 + static_cast<unsigned>(d);
    }
    out.push_back(static_cast<std::byte>(x));
  }
  return out;
}

// A value entry {"i32": 5}, ... as little-endian bytes.
std::vector<std::byte> value_bytes(const std::string& key, const json& v, const std::string& who) {
  if (key == "i32") return integer_bytes<std::int32_t>(v, who, key);
  if (key == "u32") return integer_bytes<std::uint32_t>(v, who, key);
  if (key == "i64") return integer_bytes<std::int64_t>(v, who, key);
  if (key == "u64") return integer_bytes<std::uint64_t>(v, who, key);
  if (key == "f32" || key == "f64") {
    if (!v.is_number()) fail(who + ": \"" + key + "\" takes a number");
    const double d = v.get<double>();
    if (key == "f64") return bytes_of(d);
    // A double past the fp32 range has no fp32 value: ISO C++ leaves the conversion undefined,
    // and gcc and clang give +-inf, which nobody writing 1e300 meant.
    if (d > FLT_MAX || d < -FLT_MAX) fail(who + ": \"f32\" " + v.dump() + " is outside the fp32 range (|x| <= 3.40282347e38)");
    return bytes_of(static_cast<float>(d));
  }
  if (key == "bytes_hex") return hex_bytes(v, who);
  fail(who + ": unknown key \"" + printable(key) +
       "\"; expected buffer, output, inout, null, i32, u32, i64, u64, f32, f64 or bytes_hex");
}

// The key that says what an entry is ("output" also carries "bytes"); checks there is no other.
std::string entry_key(const json& e, const std::string& who) {
  if (!e.is_object() || e.empty()) fail(who + ": expected an object such as {\"buffer\": \"in.bin\"} or {\"i32\": 5}");
  std::string key = e.begin().key();
  for (const char* k : {"buffer", "output", "inout"})
    if (e.contains(k)) key = k;
  if (e.size() != (key == "output" ? 2u : 1u)) fail(who + ": expected exactly one key (\"output\" also takes \"bytes\")");
  return key;
}

SimArg parse_entry(const json& e, const std::string& who, const fs::path& base, const FileReader& read) {
  const std::string key = entry_key(e, who);
  const auto path_of = [&](const char* k) {
    if (!e.at(k).is_string()) fail(who + ": \"" + k + "\" takes a file name");
    fs::path p = e.at(k).get<std::string>();
    if (p.empty()) fail(who + ": \"" + k + "\" takes a file name, not \"\"");
    return p.is_absolute() ? p : base / p;
  };
  SimArg a;
  if (key == "output") {
    if (!e.contains("bytes") || !e.at("bytes").is_number_unsigned())
      fail(who + ": {\"output\": FILE, \"bytes\": N} needs a non-negative integer \"bytes\"");
    const auto n = e.at("bytes").get<std::uint64_t>();
    if (n > (std::uint64_t{1} << 34)) fail(who + ": \"bytes\" " + std::to_string(n) + " is too large (at most 2^34)");
    a.buffer = a.writable = true;
    a.write_to = path_of("output");
    a.output_bytes = n;
  } else if (key == "buffer") {
    a.buffer = true;
    a.read_from = path_of("buffer");
    a.data = read(a.read_from, "buffer file");
  } else if (key == "inout") {
    a.buffer = a.writable = true;
    a.write_to = a.read_from = path_of("inout");
    a.data = read(a.write_to, "buffer file");
  } else if (key == "null") {
    if (!e.at("null").is_boolean() || !e.at("null").get<bool>())
      fail(who + ": \"null\" takes true (a buffer argument passed as the null pointer)");
    a.buffer = a.null = true;
  } else {
    a.data = value_bytes(key, e.begin().value(), who);
  }
  return a;
}

std::string describe(const simulator::ArgInfo& a, std::size_t i) {
  return "argument " + std::to_string(i) + (a.name.empty() ? "" : " ('" + printable(a.name) + "')");
}

// The entry against the kernel's metadata: a buffer for a global buffer, else a value of its size.
void check_against_kernel(const SimArg& a, const simulator::ArgInfo& info, std::size_t i, const std::string& who) {
  const bool wants_buffer = info.kind == simulator::ArgKind::GlobalBuffer;
  if (a.buffer != wants_buffer)
    fail(who + ": " + describe(info, i) + " of the kernel is " + printable(info.value_kind) + ", not " +
         (a.buffer ? "a buffer" : "a value"));
  if (!a.buffer && a.data.size() != info.size)
    fail(who + ": " + describe(info, i) + " is " + std::to_string(info.size) + " bytes, the entry gives " +
         std::to_string(a.data.size()));
}

}  // namespace

std::vector<SimArg> parse_sim_args(std::string_view text, const std::string& args_path, const std::string& kernel,
                                   const std::vector<simulator::ArgInfo>& explicit_args, const FileReader& read) {
  json j;
  try {
    j = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    fail("arguments file '" + args_path + "' is not valid JSON: " + printable(e.what(), 200));
  }
  if (!j.is_array()) fail("arguments file '" + args_path + "': expected a JSON array of arguments");
  if (j.size() != explicit_args.size())
    fail("kernel '" + kernel + "' takes " + std::to_string(explicit_args.size()) + " explicit argument(s), '" +
         args_path + "' lists " + std::to_string(j.size()));
  const fs::path base = fs::path(args_path).parent_path();
  std::vector<SimArg> args;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const std::string who = args_path + " entry " + std::to_string(i);
    try {
      args.push_back(parse_entry(j[i], who, base, read));
    } catch (const json::exception& x) {  // a type the checks above did not foresee
      fail(who + ": " + printable(x.what(), 200));
    }
    check_against_kernel(args.back(), explicit_args[i], i, who);
  }
  return args;
}

}  // namespace cdna::tools
