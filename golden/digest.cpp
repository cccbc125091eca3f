#include "golden/digest.hpp"

#include <openssl/evp.h>

#include <array>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string_view>

namespace cdna::golden {
namespace {

// Feeds bytes into one EVP SHA-256 context.
class Sha256 {
 public:
  Sha256() : ctx_(EVP_MD_CTX_new(), &EVP_MD_CTX_free) {
    if (!ctx_ || EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) != 1) fail();
  }
  void add(const void* data, std::size_t n) {
    if (n != 0 && EVP_DigestUpdate(ctx_.get(), data, n) != 1) fail();
  }
  void add_u64(std::uint64_t v) {
    std::array<unsigned char, 8> le{};
    for (std::size_t i = 0; i < 8; ++i) le[i] = static_cast<unsigned char>(v >> (8 * i));
    add(le.data(), le.size());
  }
  void add_text(std::string_view s) {
    add_u64(s.size());
    add(s.data(), s.size());
  }
  std::string hex() {
    std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
    unsigned int n = 0;
    if (EVP_DigestFinal_ex(ctx_.get(), md.data(), &n) != 1) fail();
    static const char* const digits = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < n; ++i) {
      out += digits[md[i] >> 4];
      out += digits[md[i] & 15];
    }
    return out;
  }

 private:
  [[noreturn]] static void fail() { throw std::runtime_error("SHA-256 (OpenSSL EVP) failed"); }
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx_;
};

}  // namespace

std::string sha256_hex(std::span<const std::byte> bytes) {
  Sha256 h;
  h.add(bytes.data(), bytes.size());
  return h.hex();
}

std::string golden_digest(const SafetensorsFile& file) {
  Sha256 h;
  static constexpr std::string_view kTag = "cdna-verify golden digest v1";
  h.add(kTag.data(), kTag.size());
  h.add("", 1);  // the zero byte after the tag
  // std::map<std::string, ...> orders keys by unsigned byte comparison (char_traits<char>::lt).
  for (const auto& [key, value] : file.metadata) {
    if (key == kDigestKey) continue;
    h.add_text(key);
    h.add_text(value);
  }
  for (const auto& [name, t] : file.tensors) {
    h.add_text(name);
    h.add_text(to_string(t.dtype));
    h.add_u64(t.shape.size());
    for (std::int64_t e : t.shape) h.add_u64(static_cast<std::uint64_t>(e));
    h.add_u64(t.data.size());
    h.add(t.data.data(), t.data.size());
  }
  return "sha256:" + h.hex();
}

}  // namespace cdna::golden
