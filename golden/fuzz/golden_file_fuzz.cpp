// libFuzzer target: the safetensors reader (parse_safetensors) and the golden-file reader on top
// of it (from_safetensors: format key, metadata keys, digest, extents, dtypes and shapes, v2 and
// v3 features, layouts, varlen and paged tensors, stored-value sanity).
//
// Every input is read as `golden verify` reads a file. If the safetensors layer accepts it, it is
// read a second time with its metadata "digest" replaced by the recomputed one: a mutated
// metadata value or tensor byte then reaches the checks behind the digest instead of stopping at
// "digest mismatch".
//
// Allowed outcomes (golden/safetensors.hpp, golden/golden_file.hpp): a parsed result, or
// SafetensorsError with a one-line message. On a parsed result two round trips must hold:
// serialize_safetensors then parse_safetensors gives the same content, and a golden file that
// was read is written (to_safetensors) as a file that reads back and writes the same bytes.
// Anything else (crash, sanitizer report, leak, another exception type, a message of several
// lines, a broken round trip) aborts, and libFuzzer keeps the input.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>

#include "golden/digest.hpp"
#include "golden/golden_file.hpp"
#include "golden/safetensors.hpp"
#include "simulator/fuzz/fuzz_outcome.hpp"

namespace {

using namespace cdna::golden;
using cdna::fuzz::bug;

bool same(const Tensor& a, const Tensor& b) { return a.dtype == b.dtype && a.shape == b.shape && a.data == b.data; }

bool same(const SafetensorsFile& a, const SafetensorsFile& b) {
  if (a.metadata != b.metadata || a.tensors.size() != b.tensors.size()) return false;
  for (const auto& [name, t] : a.tensors) {
    const Tensor* u = b.find(name);
    if (!u || !same(t, *u)) return false;
  }
  return true;
}

// Calls f; true if it returned, false on a one-line SafetensorsError; anything else aborts.
template <class F>
bool reads(const char* stage, F&& f) {
  return cdna::fuzz::returns_or_documented<SafetensorsError>(stage, std::forward<F>(f));
}

void check_safetensors_round_trip(const SafetensorsFile& file) {
  std::vector<std::byte> bytes;
  try {
    bytes = serialize_safetensors(file);
  } catch (const std::exception& e) {
    bug("serialize_safetensors refused a file parse_safetensors accepted", e.what());
  }
  SafetensorsFile again;
  if (!reads("parse_safetensors (round trip)", [&] { again = parse_safetensors(bytes, "round trip"); }) ||
      !same(file, again))
    bug("safetensors round trip", "serialize(parse(x)) does not parse to the same content");
}

void check_golden_round_trip(const GoldenFile& g) {
  SafetensorsFile written;
  try {
    written = to_safetensors(g);
  } catch (const std::exception& e) {
    bug("to_safetensors refused a golden file from_safetensors accepted", e.what());
  }
  GoldenFile again;
  if (!reads("from_safetensors (round trip)", [&] { again = from_safetensors(written, "round trip"); }))
    bug("golden round trip", "the written file is refused by the reader");
  if (serialize_safetensors(to_safetensors(again)) != serialize_safetensors(written))
    bug("golden round trip", "reading and writing the written file changes it");
}

void read_golden_checked(const SafetensorsFile& file) {
  GoldenFile g;
  if (reads("from_safetensors", [&] { g = from_safetensors(file, "fuzz.safetensors"); })) check_golden_round_trip(g);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  SafetensorsFile file;
  if (!reads("parse_safetensors", [&] { file = parse_safetensors(bytes, "fuzz.safetensors"); })) return 0;
  check_safetensors_round_trip(file);
  read_golden_checked(file);
  if (file.metadata.count(kDigestKey)) {
    const std::string digest = golden_digest(file);
    if (file.metadata[kDigestKey] != digest) {
      file.metadata[kDigestKey] = digest;
      read_golden_checked(file);
    }
  }
  return 0;
}
