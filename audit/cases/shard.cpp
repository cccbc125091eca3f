#include "audit/cases/shard.hpp"

#include <charconv>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace cdna::audit {
namespace {

// A whole decimal integer, or nullopt.
std::optional<long long> parse_int(std::string_view s) {
  long long v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

std::uint64_t fnv1a64(std::string_view text) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

ShardSpec ShardSpec::parse(const std::string& text, const std::string& option) {
  const std::string head = option + " '" + text + "': ";
  const auto slash = text.find('/');
  if (slash == std::string::npos)
    throw std::invalid_argument(head + "expected I/N, e.g. 2/3 (shard I of N, 1 <= I <= N)");
  const auto i = parse_int(std::string_view(text).substr(0, slash));
  const auto n = parse_int(std::string_view(text).substr(slash + 1));
  if (!i || !n) throw std::invalid_argument(head + "expected I/N with whole numbers, e.g. 2/3");
  if (*n < 1 || *n > 1000000) throw std::invalid_argument(head + "N must be in 1..1000000");
  if (*i < 1 || *i > *n) throw std::invalid_argument(head + "I must be in 1..N");
  return {static_cast<int>(*i), static_cast<int>(*n)};
}

std::optional<ShardSpec> ShardSpec::from_gtest_env() {
  const char* index = std::getenv("GTEST_SHARD_INDEX");
  const char* total = std::getenv("GTEST_TOTAL_SHARDS");
  if (!index && !total) return std::nullopt;
  if (!index || !total)
    throw std::invalid_argument(std::string("GTEST_SHARD_INDEX and GTEST_TOTAL_SHARDS go together; only ") +
                                (index ? "GTEST_SHARD_INDEX" : "GTEST_TOTAL_SHARDS") + " is set");
  const auto i = parse_int(index);
  const auto n = parse_int(total);
  if (!i || !n || *n < 1 || *n > 1000000 || *i < 0 || *i >= *n)
    throw std::invalid_argument(std::string("GTEST_SHARD_INDEX='") + index + "', GTEST_TOTAL_SHARDS='" + total +
                                "': need 0 <= GTEST_SHARD_INDEX < GTEST_TOTAL_SHARDS (0-based, as GoogleTest takes them)");
  return ShardSpec{static_cast<int>(*i) + 1, static_cast<int>(*n)};
}

int ShardSpec::of(std::string_view case_id, int count) {
  return 1 + static_cast<int>(fnv1a64(case_id) % static_cast<std::uint64_t>(count));
}

std::string ShardSpec::text() const { return std::to_string(index) + "/" + std::to_string(count); }

bool apply_shard_argument(int& argc, char** argv) {
  std::optional<ShardSpec> shard;
  bool allow_empty = false;
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--allow-empty-shard") {
      allow_empty = true;
    } else if (a == "--shard") {
      if (i + 1 >= argc) throw std::invalid_argument("--shard needs a value I/N, e.g. --shard 2/3");
      shard = ShardSpec::parse(argv[++i]);
    } else if (a.rfind("--shard=", 0) == 0) {
      shard = ShardSpec::parse(a.substr(8));
    } else {
      argv[out++] = argv[i];
    }
  }
  argc = out;
  argv[argc] = nullptr;
  if (!shard) return allow_empty;
  // Both ways at once must agree, or which shard ran would depend on who reads first.
  if (const auto env = ShardSpec::from_gtest_env(); env && (env->index != shard->index || env->count != shard->count))
    throw std::invalid_argument("--shard " + shard->text() + " contradicts GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS (shard " +
                                env->text() + "); give one of them");
  setenv("GTEST_SHARD_INDEX", std::to_string(shard->index - 1).c_str(), 1);
  setenv("GTEST_TOTAL_SHARDS", std::to_string(shard->count).c_str(), 1);
  return allow_empty;
}

}  // namespace cdna::audit
