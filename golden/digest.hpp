// The digest of a golden file: SHA-256 (FIPS 180-4, computed by OpenSSL's EVP interface) over a
// canonical serialisation of every tensor and every metadata key/value except "digest" itself,
// stored as metadata "digest" = "sha256:<64 lowercase hex digits>". Readers recompute it, so a
// file edited after it was written (a tensor byte, a metadata value, a removed key) is refused.
//
// Canonical serialisation (docs/golden-files.md, "Digest"; u64 = 8 bytes little-endian):
//   "cdna-verify golden digest v1" followed by one zero byte;
//   for each metadata key except "digest", in byte order of the UTF-8 key:
//     u64 len(key), key, u64 len(value), value;
//   for each tensor, in byte order of its name:
//     u64 len(name), name, u64 len(dtype), dtype (e.g. "BF16"), u64 rank, each extent as u64,
//     u64 len(data), data (the tensor's bytes as stored, little-endian).
// Lengths make the serialisation unambiguous: no two different contents give the same bytes.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "golden/safetensors.hpp"

namespace cdna::golden {

// The metadata key that holds the digest.
inline constexpr const char* kDigestKey = "digest";

// Lowercase hex SHA-256 of `bytes` (64 characters). Throws std::runtime_error if OpenSSL fails.
std::string sha256_hex(std::span<const std::byte> bytes);

// "sha256:<hex>" of the canonical serialisation of `file` (the "digest" key is left out).
std::string golden_digest(const SafetensorsFile& file);

}  // namespace cdna::golden
