// The bf16 rounding mode recorded in each code object (device/attention_launcher.hpp,
// kRoundingSymbol) and adapters::load_attention_code_object's check of it against the declared mode.
#include "adapters/code_object_mode.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <optional>
#include <string>

#include "device/attention_launcher.hpp"
#include "simulator/decode/code_object.hpp"

namespace cdna::adapters {
namespace {

using numerics::Rounding;
const std::filesystem::path kDir = CDNA_CODE_OBJECT_DIR;

std::optional<Rounding> recorded(const std::filesystem::path& path) {
  const auto bytes = device::read_file(path, "code object");
  const auto tag = simulator::CodeObject::load(bytes, path.string()).object_bytes(device::kRoundingSymbol);
  if (!tag) return std::nullopt;
  return device::decode_rounding_symbol(*tag, path.string());
}

TEST(CodeObjectMode, EachBuiltCodeObjectRecordsItsMode) {
  for (Rounding mode : numerics::kAllRoundings) EXPECT_EQ(recorded(device::attention_code_object(mode)), mode);
  // The mutants are built RTNE (device/CMakeLists.txt).
  EXPECT_EQ(recorded(kDir / "attention_fwd_mutant_o_rtz.hsaco"), Rounding::RTNE);
  EXPECT_EQ(recorded(kDir / "attention_fwd_mutant_topleft.hsaco"), Rounding::RTNE);
}

TEST(CodeObjectMode, DeclaredModeMustMatchTheRecordedOne) {
  const auto rtne = device::attention_code_object(Rounding::RTNE);
  const auto ok = load_attention_code_object(rtne, Rounding::RTNE, device::kAttentionKernels);
  EXPECT_TRUE(ok.mode_recorded);
  EXPECT_FALSE(ok.bytes.empty());
  try {
    load_attention_code_object(rtne, Rounding::RTZ, device::kAttentionKernels);
    FAIL() << "an RTNE code object declared RTZ was accepted";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("built for bf16 rounding RTNE"), std::string::npos) << what;
    EXPECT_NE(what.find("declared RTZ"), std::string::npos) << what;
  }
}

// A code object without the symbol (here: ours with the symbol renamed, the same length so the
// ELF stays valid) is taken as declared and says so.
TEST(CodeObjectMode, ACodeObjectWithoutTheSymbolIsTakenAsDeclared) {
  const auto bytes = device::read_file(device::attention_code_object(Rounding::RTNE), "code object");
  std::string text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  const std::string from = device::kRoundingSymbol, to = from.substr(0, from.size() - 1) + "X";
  int renamed = 0;
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + 1), ++renamed)
    text.replace(at, from.size(), to);
  ASSERT_GE(renamed, 1);
  const auto path = std::filesystem::path(testing::TempDir()) / "nomode.hsaco";
  std::ofstream(path, std::ios::binary) << text;
  const auto c = load_attention_code_object(path, Rounding::RTZ, device::kAttentionKernels);
  EXPECT_FALSE(c.mode_recorded);
  EXPECT_EQ(c.declared, Rounding::RTZ);
  EXPECT_NE(unchecked_mode_notice(path.string(), "RTZ").find("RTZ is the user's declaration and is not checked"),
            std::string::npos);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace cdna::adapters
