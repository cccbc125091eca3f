#include "golden/safetensors.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>
#include <string>

namespace cdna::golden {
namespace {

std::vector<std::byte> bytes_of(std::string_view s) {
  std::vector<std::byte> b(s.size());
  std::memcpy(b.data(), s.data(), s.size());
  return b;
}

// A file from a header text and a data size (data bytes = 0, 1, 2, ...).
std::vector<std::byte> file_with(std::string_view header, std::size_t data_bytes, std::uint64_t n_override = ~0ull) {
  std::vector<std::byte> f(8);
  const std::uint64_t n = n_override != ~0ull ? n_override : header.size();
  for (int i = 0; i < 8; ++i) f[static_cast<std::size_t>(i)] = static_cast<std::byte>((n >> (8 * i)) & 0xff);
  const auto h = bytes_of(header);
  f.insert(f.end(), h.begin(), h.end());
  for (std::size_t i = 0; i < data_bytes; ++i) f.push_back(static_cast<std::byte>(i & 0xff));
  return f;
}

SafetensorsFile sample() {
  SafetensorsFile f;
  f.metadata["case"] = "sample";
  f.metadata["note"] = "quotes \" and unicode \xc3\xa9 survive";
  const std::uint16_t bf[] = {0x3f80, 0xc000, 0x7fc0, 0x0001, 0x8000, 0x7f80};
  f.tensors["a_bf16"] = make_bf16({2, 3}, bf);
  const float f32[] = {1.5f, -0.0f, std::numeric_limits<float>::infinity(), 0x1p-149f};
  f.tensors["b_f32"] = make_f32({4}, f32);
  const double f64[] = {0.1, -1e300, std::numeric_limits<double>::quiet_NaN()};
  f.tensors["c_f64"] = make_f64({3, 1}, f64);
  const std::int32_t i32[] = {-7, 2147483647};
  f.tensors["d_i32"] = make_i32({2}, i32);
  const std::uint8_t u8[] = {0, 255, 7};
  f.tensors["e_u8"] = make_u8({1, 3}, u8);
  const double scalar[] = {3.25};
  f.tensors["f_scalar"] = make_f64({}, scalar);
  f.tensors["g_empty"] = make_f32({0, 5}, std::span<const float>());
  return f;
}

// Parses `bytes` and expects a SafetensorsError whose message is one line, starts with the
// label and contains `want`.
void expect_error(const std::vector<std::byte>& bytes, const std::string& want) {
  try {
    parse_safetensors(bytes, "bad.safetensors");
    FAIL() << "no error, expected one containing '" << want << "'";
  } catch (const SafetensorsError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    EXPECT_EQ(what.rfind("bad.safetensors: ", 0), 0u) << what;
    EXPECT_NE(what.find(want), std::string::npos) << "message: " << what << "\nwanted: " << want;
  }
}

TEST(GoldenSafetensors, RoundTripKeepsEveryDtypeValueAndMetadata) {
  const SafetensorsFile f = sample();
  const auto bytes = serialize_safetensors(f);
  const SafetensorsFile g = parse_safetensors(bytes, "mem");
  EXPECT_EQ(g.metadata, f.metadata);
  ASSERT_EQ(g.tensors.size(), f.tensors.size());
  for (const auto& [name, t] : f.tensors) {
    const Tensor& u = g.at(name, "mem");
    EXPECT_EQ(u.dtype, t.dtype) << name;
    EXPECT_EQ(u.shape, t.shape) << name;
    EXPECT_EQ(u.data, t.data) << name;
  }
  EXPECT_EQ(as_bf16(g.at("a_bf16", "mem"), "mem")[2], 0x7fc0);
  EXPECT_EQ(as_i32(g.at("d_i32", "mem"), "mem")[0], -7);
  EXPECT_EQ(as_u8(g.at("e_u8", "mem"), "mem")[1], 255);
  EXPECT_EQ(std::signbit(as_f32(g.at("b_f32", "mem"), "mem")[1]), true);
  EXPECT_EQ(as_f32(g.at("b_f32", "mem"), "mem")[3], 0x1p-149f);
  EXPECT_TRUE(std::isnan(as_f64(g.at("c_f64", "mem"), "mem")[2]));
  EXPECT_EQ(as_f64(g.at("f_scalar", "mem"), "mem"), std::vector<double>{3.25});
  EXPECT_EQ(g.at("f_scalar", "mem").elements(), 1);
  EXPECT_EQ(g.at("g_empty", "mem").elements(), 0);
  // Deterministic: the same content gives the same bytes.
  EXPECT_EQ(serialize_safetensors(g), bytes);
}

TEST(GoldenSafetensors, WriterAlignsDataAndEveryTensor) {
  const auto bytes = serialize_safetensors(sample());
  std::uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= std::uint64_t{std::to_integer<std::uint8_t>(bytes[static_cast<std::size_t>(i)])} << (8 * i);
  EXPECT_EQ(n % 8, 0u);
  const std::string header(reinterpret_cast<const char*>(bytes.data() + 8), n);
  EXPECT_EQ(header.rfind("{\"__metadata__\":", 0), 0u) << header;
  // F64 tensors first (8-aligned), then F32/I32, BF16, U8.
  EXPECT_LT(header.find("c_f64"), header.find("b_f32"));
  EXPECT_LT(header.find("b_f32"), header.find("a_bf16"));
  EXPECT_LT(header.find("a_bf16"), header.find("e_u8"));
}

// The example file of the format's own documentation (an I32 [2, 2] tensor, 60-byte header).
TEST(GoldenSafetensors, ReadsTheFormatDocumentationExample) {
  const std::string header = R"({"test":{"dtype":"I32","shape":[2,2],"data_offsets":[0,16]}})";
  ASSERT_EQ(header.size(), 60u);
  std::vector<std::byte> f = file_with(header, 0);
  f.resize(f.size() + 16, std::byte{0});
  const SafetensorsFile g = parse_safetensors(f, "doc");
  EXPECT_EQ(as_i32(g.at("test", "doc"), "doc"), std::vector<std::int32_t>(4, 0));
  EXPECT_TRUE(g.metadata.empty());
}

TEST(GoldenSafetensors, AcceptsPaddedHeaderAndAnyTensorOrder) {
  const std::string header = R"({"b":{"dtype":"U8","shape":[2],"data_offsets":[2,4]},)"
                             R"("a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}}   )";
  const SafetensorsFile g = parse_safetensors(file_with(header, 4), "x");
  EXPECT_EQ(as_u8(g.at("a", "x"), "x"), (std::vector<std::uint8_t>{0, 1}));
  EXPECT_EQ(as_u8(g.at("b", "x"), "x"), (std::vector<std::uint8_t>{2, 3}));
}

TEST(GoldenSafetensors, TruncatedFilesGiveOneLineErrors) {
  expect_error({}, "truncated: 0 bytes");
  expect_error(bytes_of("abc"), "truncated: 3 bytes");
  const auto good = serialize_safetensors(sample());
  for (std::size_t cut : {std::size_t{8}, std::size_t{9}, std::size_t{40}, good.size() - 1}) {
    expect_error(std::vector<std::byte>(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(cut)), "");
  }
  expect_error(std::vector<std::byte>(good.begin(), good.end() - 1), "past the end of the data");
}

TEST(GoldenSafetensors, BadHeaderLengthsGiveOneLineErrors) {
  const std::string h = R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})";
  expect_error(file_with(h, 1, 0), "header length 0 is too small");
  expect_error(file_with(h, 1, 1), "header length 1 is too small");
  expect_error(file_with(h, 1, 1ull << 63), "exceeds the format's limit");
  expect_error(file_with(h, 1, 100'000'001), "exceeds the format's limit");
  expect_error(file_with(h, 1, h.size() + 2), "truncated: header length");
}

TEST(GoldenSafetensors, BadJsonGivesOneLineErrors) {
  expect_error(file_with("[1, 2]", 0), "does not start with '{'");
  expect_error(file_with(" {}", 0), "does not start with '{'");
  expect_error(file_with(R"({"a": )", 0), "not valid JSON");
  expect_error(file_with("{\"a\xff\": 1}", 0), "not valid JSON");           // invalid UTF-8
  expect_error(file_with("{}\nxyz", 0), "not valid JSON");                   // trailing garbage
  expect_error(file_with(std::string("{}\0\0", 4), 0), "NUL byte at header offset 2");  // NUL padding
  expect_error(file_with(std::string("{}\0 junk", 8), 0), "NUL byte");
  expect_error(file_with(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},)"
                         R"("a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}})", 2),
               "the key 'a' twice");
  expect_error(file_with(R"({"__metadata__":{"k":"1","k":"2"}})", 0), "the key 'k' twice");
  expect_error(file_with(R"({"__metadata__":{"k":1}})", 0), "value of 'k' is not a string");
  expect_error(file_with(R"({"__metadata__":[1]})", 0), "__metadata__ is not a JSON object");
  expect_error(file_with(R"({"a":[1]})", 0), "tensor 'a' is not a JSON object");
}

TEST(GoldenSafetensors, BadTensorEntriesGiveOneLineErrors) {
  auto one = [](std::string_view entry, std::size_t data) {
    return file_with(std::string(R"({"t":)") + std::string(entry) + "}", data);
  };
  expect_error(one(R"({"dtype":"F128","shape":[1],"data_offsets":[0,16]})", 16), "unknown dtype 'F128'");
  expect_error(one(R"({"dtype":"F32","shape":[3],"data_offsets":[0,8]})", 8), "8 data bytes but dtype F32");
  expect_error(one(R"({"dtype":"BF16","shape":[3],"data_offsets":[0,3]})", 3), "need 6");
  expect_error(one(R"({"dtype":"U8","shape":[-1],"data_offsets":[0,0]})", 0), "not a non-negative integer");
  expect_error(one(R"({"dtype":"U8","shape":[1.5],"data_offsets":[0,0]})", 0), "not a non-negative integer");
  expect_error(one(R"({"dtype":"U8","shape":[1099511627776,1099511627776],"data_offsets":[0,0]})", 0),
               "overflows 64 bits");
  expect_error(one(R"({"dtype":"U8","shape":[1],"data_offsets":[0.0,1]})", 1), "not non-negative integers");
  expect_error(one(R"({"dtype":"U8","shape":[1],"data_offsets":[1]})", 1), "'data_offsets' of two integers");
  expect_error(one(R"({"dtype":"U8","shape":[1],"data_offsets":[2,1]})", 2), "end before begin");
  expect_error(one(R"({"dtype":"U8","shape":[1]})", 1), "'data_offsets' of two integers");
  expect_error(one(R"({"shape":[1],"data_offsets":[0,1]})", 1), "no string field 'dtype'");
  expect_error(one(R"({"dtype":"U8","data_offsets":[0,1]})", 1), "no array field 'shape'");
  expect_error(one(R"({"dtype":"U8","shape":[1],"data_offsets":[0,1],"extra":1})", 1), "unknown field 'extra'");
  expect_error(one(R"({"dtype":"U8","shape":[1],"data_offsets":[0,18446744073709551615]})", 1), "");
}

TEST(GoldenSafetensors, OffsetsMustTileTheDataExactly) {
  const std::string overlap = R"({"a":{"dtype":"U8","shape":[8],"data_offsets":[0,8]},)"
                              R"("b":{"dtype":"U8","shape":[8],"data_offsets":[4,12]}})";
  expect_error(file_with(overlap, 12), "overlap tensor 'a'");
  const std::string same = R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},)"
                           R"("b":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}})";
  expect_error(file_with(same, 4), "overlap");
  const std::string hole = R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},)"
                           R"("b":{"dtype":"U8","shape":[4],"data_offsets":[8,12]}})";
  expect_error(file_with(hole, 12), "leaving unreferenced bytes from 4");
  const std::string late = R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[2,6]}})";
  expect_error(file_with(late, 6), "begins at 2");
  const std::string out_of_range = R"({"a":{"dtype":"U8","shape":[16],"data_offsets":[0,16]}})";
  expect_error(file_with(out_of_range, 8), "run past the end of the data (8 bytes");
  const std::string trailing = R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}})";
  expect_error(file_with(trailing, 5), "1 bytes after the last tensor's data are not referenced");
}

// Random damage to a valid file: every outcome is a parsed file or a one-line SafetensorsError,
// never a crash or a read outside the buffer.
TEST(GoldenSafetensors, DamagedFilesNeverCrash) {
  const auto good = serialize_safetensors(sample());
  std::mt19937_64 rng(7);
  int errors = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<std::byte> f = good;
    const int kind = trial % 3;
    if (kind == 0) {
      f.resize(rng() % (f.size() + 1));
    } else if (kind == 1) {
      for (int k = 0; k < 1 + static_cast<int>(rng() % 4); ++k) f[rng() % f.size()] = static_cast<std::byte>(rng() & 0xff);
    } else {
      f[rng() % 8] = static_cast<std::byte>(rng() & 0xff);
    }
    try {
      (void)parse_safetensors(f, "fuzz");
    } catch (const SafetensorsError& e) {
      ++errors;
      ASSERT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
  }
  EXPECT_GT(errors, 1000);
}

TEST(GoldenSafetensors, TypedAccessAndFilesystemErrors) {
  const SafetensorsFile f = sample();
  EXPECT_THROW(as_f32(f.at("a_bf16", "x"), "x: a_bf16"), SafetensorsError);
  try {
    (void)f.at("missing", "x.safetensors");
    FAIL();
  } catch (const SafetensorsError& e) {
    EXPECT_STREQ(e.what(), "x.safetensors: no tensor 'missing'");
  }
  try {
    (void)read_safetensors("/nonexistent/dir/f.safetensors");
    FAIL();
  } catch (const SafetensorsError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/f.safetensors: cannot read: No such file"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(make_f32({2, 2}, std::vector<float>(3)), std::invalid_argument);
  EXPECT_THROW(make_f32({-1}, std::vector<float>()), std::invalid_argument);
}

TEST(GoldenSafetensors, AtomicWriteThenRead) {
  const auto dir = std::filesystem::temp_directory_path() / ("golden_st_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::create_directories(dir);
  const auto path = dir / "f.safetensors";
  write_safetensors(path, sample());
  const SafetensorsFile g = read_safetensors(path);
  EXPECT_EQ(g.metadata, sample().metadata);
  for (const auto& e : std::filesystem::directory_iterator(dir)) EXPECT_EQ(e.path().filename(), "f.safetensors");
  EXPECT_THROW(write_safetensors(dir / "no" / "such" / "dir.safetensors", sample()), std::runtime_error);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace cdna::golden
