// parse_sim_args (tools/sim_args.hpp): every entry kind, the integer and fp32 range checks at
// their bounds, messages that name the args file given and stay one line, and files read only
// through the reader (relative names against the args file's directory).
#include "tools/sim_args.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace cdna::tools {
namespace {

using simulator::ArgInfo;
using simulator::ArgKind;

ArgInfo value(std::uint32_t size) { return {0, size, "by_value", ArgKind::ByValue, ""}; }
ArgInfo buffer(std::string name = "") { return {0, 8, "global_buffer", ArgKind::GlobalBuffer, std::move(name)}; }

// Records the paths asked for; each file holds its path's length in bytes.
struct Reader {
  std::vector<std::string> asked;
  FileReader fn() {
    return [this](const std::filesystem::path& p, const std::string& what) {
      if (p.filename() == "missing.bin") throw std::runtime_error(what + " '" + p.string() + "' cannot be read");
      asked.push_back(p.string());
      return std::vector<std::byte>(p.string().size(), std::byte{1});
    };
  }
};

std::vector<SimArg> parse(const std::string& text, const std::vector<ArgInfo>& kernel, Reader* r = nullptr) {
  Reader local;
  return parse_sim_args(text, "/tmp/x/my_args.json", "k", kernel, (r ? r : &local)->fn());
}

// The message parse throws (fails the test if it returns).
std::string error(const std::string& text, const std::vector<ArgInfo>& kernel) {
  try {
    parse(text, kernel);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  ADD_FAILURE() << "accepted: " << text;
  return "";
}

template <class T>
T as(const SimArg& a) {
  EXPECT_EQ(a.data.size(), sizeof(T));
  T v{};
  std::memcpy(&v, a.data.data(), sizeof(T));
  return v;
}

TEST(SimArgs, EveryEntryKind) {
  Reader r;
  const auto a = parse(R"([{"buffer": "a.bin"}, {"inout": "/abs/b.bin"}, {"output": "out/c.bin", "bytes": 12},
                          {"null": true}, {"i32": -1}, {"u32": 4294967295}, {"i64": -9223372036854775808},
                          {"u64": 18446744073709551615}, {"f32": 1.5}, {"f64": -0.25}, {"bytes_hex": "0aFf"}])",
                       {buffer(), buffer(), buffer(), buffer(), value(4), value(4), value(8), value(8), value(4),
                        value(8), value(2)},
                       &r);
  ASSERT_EQ(a.size(), 11u);
  EXPECT_EQ(r.asked, (std::vector<std::string>{"/tmp/x/a.bin", "/abs/b.bin"}));
  EXPECT_TRUE(a[0].buffer && !a[0].writable && a[0].data.size() == 12);
  EXPECT_TRUE(a[1].writable && a[1].write_to == "/abs/b.bin");
  EXPECT_TRUE(a[2].writable && a[2].write_to == "/tmp/x/out/c.bin");
  EXPECT_EQ(a[2].output_bytes, 12u);
  EXPECT_TRUE(a[2].data.empty());  // allocated by the caller, after every check
  EXPECT_TRUE(a[3].null && a[3].buffer && a[3].data.empty());
  EXPECT_EQ(as<std::int32_t>(a[4]), -1);
  EXPECT_EQ(as<std::uint32_t>(a[5]), 4294967295u);
  EXPECT_EQ(as<std::int64_t>(a[6]), INT64_MIN);
  EXPECT_EQ(as<std::uint64_t>(a[7]), UINT64_MAX);
  EXPECT_EQ(as<float>(a[8]), 1.5f);
  EXPECT_EQ(as<double>(a[9]), -0.25);
  EXPECT_EQ(a[10].data, (std::vector<std::byte>{std::byte{0x0a}, std::byte{0xff}}));
}

TEST(SimArgs, MessagesNameTheArgsFileGiven) {
  EXPECT_EQ(error(R"([{"i32": 1}, {"i32": 2}, {"i32": 3}, {"q32": 4}])", {value(4), value(4), value(4), value(4)}),
            "/tmp/x/my_args.json entry 3: unknown key \"q32\"; expected buffer, output, inout, null, i32, u32, i64, "
            "u64, f32, f64 or bytes_hex");
  EXPECT_EQ(error("[1]", {value(4)}),
            "/tmp/x/my_args.json entry 0: expected an object such as {\"buffer\": \"in.bin\"} or {\"i32\": 5}");
  EXPECT_EQ(error("[]", {value(4)}), "kernel 'k' takes 1 explicit argument(s), '/tmp/x/my_args.json' lists 0");
  EXPECT_EQ(error("{}", {}), "arguments file '/tmp/x/my_args.json': expected a JSON array of arguments");
  EXPECT_NE(error("[", {}).find("arguments file '/tmp/x/my_args.json' is not valid JSON: "), std::string::npos);
}

TEST(SimArgs, IntegersAtTheirBounds) {
  for (const char* ok : {R"([{"i32": 2147483647}])", R"([{"i32": -2147483648}])", R"([{"u32": 0}])"})
    EXPECT_NO_THROW(parse(ok, {value(4)})) << ok;
  // 2^64 - 1 used to wrap to -1 and pass as an i32.
  for (const char* v : {"18446744073709551615", "2147483648", "-2147483649"})
    EXPECT_EQ(error(std::string(R"([{"i32": )") + v + "}]", {value(4)}),
              std::string("/tmp/x/my_args.json entry 0: \"i32\" ") + v + " is out of range (-2147483648 .. 2147483647)");
  EXPECT_NE(error(R"([{"u32": 4294967296}])", {value(4)}).find("out of range (0 .. 4294967295)"), std::string::npos);
  EXPECT_NE(error(R"([{"u32": -1}])", {value(4)}).find("out of range"), std::string::npos);
  EXPECT_NE(error(R"([{"i64": 9223372036854775808}])", {value(8)}).find("out of range"), std::string::npos);
  EXPECT_NE(error(R"([{"u64": -1}])", {value(8)}).find("out of range"), std::string::npos);
  EXPECT_NE(error(R"([{"i32": 1.0}])", {value(4)}).find("\"i32\" takes an integer"), std::string::npos);
}

TEST(SimArgs, Fp32Range) {
  // FLT_MAX itself passes; one double past it has no fp32 value (it used to become +-inf).
  const auto a = parse(R"([{"f32": 3.4028234663852886e38}, {"f32": -3.4028234663852886e38}])", {value(4), value(4)});
  EXPECT_EQ(as<float>(a[0]), 3.4028234663852886e38f);
  for (const char* v : {"3.4028234663852890e38", "-1e39", "1e300"})
    EXPECT_NE(error(std::string(R"([{"f32": )") + v + "}]", {value(4)}).find("is outside the fp32 range"),
              std::string::npos) << v;
  EXPECT_NO_THROW(parse(R"([{"f64": 1e300}])", {value(8)}));
}

TEST(SimArgs, AgainstTheKernel) {
  EXPECT_EQ(error(R"([{"i32": 3}])", {buffer("b")}),
            "/tmp/x/my_args.json entry 0: argument 0 ('b') of the kernel is global_buffer, not a value");
  EXPECT_EQ(error(R"([{"null": true}])", {value(4)}),
            "/tmp/x/my_args.json entry 0: argument 0 of the kernel is by_value, not a buffer");
  EXPECT_EQ(error(R"([{"i64": 3}])", {value(4)}), "/tmp/x/my_args.json entry 0: argument 0 is 4 bytes, the entry gives 8");
}

TEST(SimArgs, EntryShapes) {
  EXPECT_NE(error(R"([{"null": false}])", {buffer()}).find("\"null\" takes true"), std::string::npos);
  EXPECT_NE(error(R"([{"buffer": 5}])", {buffer()}).find("\"buffer\" takes a file name"), std::string::npos);
  EXPECT_NE(error(R"([{"buffer": ""}])", {buffer()}).find("takes a file name, not \"\""), std::string::npos);
  EXPECT_NE(error(R"([{"output": "c.bin"}])", {buffer()}).find("(\"output\" also takes \"bytes\")"), std::string::npos);
  EXPECT_NE(error(R"([{"output": "c.bin", "bytes": -1}])", {buffer()}).find("needs a non-negative integer \"bytes\""),
            std::string::npos);
  EXPECT_NE(error(R"([{"output": "c.bin", "bytes": 17179869185}])", {buffer()}).find("is too large"), std::string::npos);
  EXPECT_EQ(parse(R"([{"output": "c.bin", "bytes": 17179869184}])", {buffer()})[0].output_bytes, std::uint64_t{1} << 34);
  EXPECT_NE(error(R"([{"i32": 1, "u32": 2}])", {value(4)}).find("expected exactly one key"), std::string::npos);
  EXPECT_NE(error(R"([{"bytes_hex": "abc"}])", {value(2)}).find("even number"), std::string::npos);
  EXPECT_NE(error(R"([{"bytes_hex": "zz"}])", {value(1)}).find("non-hex character 'z'"), std::string::npos);
  EXPECT_NE(error(R"([{"buffer": "missing.bin"}])", {buffer()}).find("'/tmp/x/missing.bin' cannot be read"),
            std::string::npos);
}

TEST(SimArgs, MessagesStayOneLine) {
  // A key or character with a newline is shown as '?': the CLI's error is one line.
  EXPECT_EQ(error("[{\"a\\nb\": 1}]", {value(4)}).find('\n'), std::string::npos);
  EXPECT_EQ(error("[{\"bytes_hex\": \"0\\n\"}]", {value(1)}).find('\n'), std::string::npos);
  EXPECT_EQ(error("[1,\n2", {value(4)}).find('\n'), std::string::npos);
}

}  // namespace
}  // namespace cdna::tools
