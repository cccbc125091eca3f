// Loader: well-formed code objects parse into kernel descriptors and metadata; every malformed
// input is a one-line std::runtime_error, never a crash.
#include <gtest/gtest.h>

#include <cstring>

#include "simulator/decode/code_object.hpp"
#include "simulator/tests/test_util.hpp"

namespace cdna::simulator {
namespace {

using testing::testdata;

std::string load_error(std::span<const std::byte> bytes) {
  try {
    CodeObject::load(bytes, "x.hsaco");
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return {};
}

void expect_one_line(const std::string& msg) {
  EXPECT_FALSE(msg.empty());
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  EXPECT_EQ(msg.rfind("code object 'x.hsaco': ", 0), 0u) << msg;
}

TEST(SimCodeObject, ParsesKernelsDescriptorsAndArguments) {
  auto bytes = testdata("vector_add");
  CodeObject co = CodeObject::load(bytes, "vector_add.hsaco");
  const KernelInfo& k = co.kernel("vector_add");
  EXPECT_EQ(k.explicit_arg_count(), 4u);
  ASSERT_GE(k.args.size(), 4u);
  EXPECT_EQ(k.args[0].kind, ArgKind::GlobalBuffer);
  EXPECT_EQ(k.args[0].offset, 0u);
  EXPECT_EQ(k.args[0].size, 8u);
  EXPECT_EQ(k.args[3].kind, ArgKind::ByValue);
  EXPECT_EQ(k.args[3].offset, 24u);
  EXPECT_EQ(k.args[3].size, 4u);
  bool has_block_count = false, has_group_size = false;
  for (const auto& a : k.args) {
    has_block_count |= a.kind == ArgKind::HiddenBlockCountX;
    has_group_size |= a.kind == ArgKind::HiddenGroupSizeX;
  }
  EXPECT_TRUE(has_block_count);
  EXPECT_TRUE(has_group_size);
  EXPECT_EQ(k.wavefront_size, 64u);
  EXPECT_GE(k.kernarg_segment_size, 256u);
  EXPECT_EQ(k.descriptor.kernarg_size, k.kernarg_segment_size);
  EXPECT_TRUE(k.descriptor.kernel_code_properties & kKernargSegmentPtr);
  EXPECT_TRUE(k.descriptor.workgroup_id_enabled(0));
  EXPECT_EQ(k.descriptor.user_sgpr_count(), 2u);
  EXPECT_NE(co.section_at(k.entry_address), nullptr);
  EXPECT_EQ((co.e_flags() & 0xff), 0x4cu);
  EXPECT_EQ(co.kernels().size(), 3u);
}

TEST(SimCodeObject, LdsKernelReportsGroupSegment) {
  auto bytes = testdata("lds_sync");
  CodeObject co = CodeObject::load(bytes, "lds_sync.hsaco");
  EXPECT_EQ(co.kernel("reverse_neighbour").group_segment_fixed_size, 1024u);
  EXPECT_EQ(co.kernel("reverse_neighbour").descriptor.group_segment_fixed_size, 1024u);
  EXPECT_EQ(co.kernel("block_sum").group_segment_fixed_size, 2048u);
}

TEST(SimCodeObject, MissingKernelListsThePresentOnes) {
  auto bytes = testdata("vector_add");
  CodeObject co = CodeObject::load(bytes, "x.hsaco");
  std::string msg;
  try {
    co.kernel("foo");
  } catch (const std::runtime_error& e) {
    msg = e.what();
  }
  expect_one_line(msg);
  EXPECT_NE(msg.find("kernel 'foo' not found; kernels present: "), std::string::npos) << msg;
  EXPECT_NE(msg.find("vector_add"), std::string::npos) << msg;
  EXPECT_NE(msg.find("index_2d"), std::string::npos) << msg;
}

TEST(SimCodeObject, TruncatedFile) {
  auto bytes = testdata("vector_add");
  for (std::size_t n : {std::size_t{0}, std::size_t{3}, std::size_t{40}, std::size_t{100},
                        bytes.size() / 2, bytes.size() - 1}) {
    std::vector<std::byte> t(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
    std::string msg = load_error(t);
    SCOPED_TRACE(n);
    expect_one_line(msg);
  }
}

TEST(SimCodeObject, RandomBytes) {
  auto r = testing::random_u32(1024, 7);
  std::vector<std::byte> bytes(r.size() * 4);
  std::memcpy(bytes.data(), r.data(), bytes.size());
  std::string msg = load_error(bytes);
  expect_one_line(msg);
  EXPECT_NE(msg.find("not an ELF"), std::string::npos) << msg;
}

TEST(SimCodeObject, HostElfIsRejectedByMachine) {
  auto exe = testing::read_bytes("/proc/self/exe");
  ASSERT_FALSE(exe.empty());
  std::string msg = load_error(exe);
  expect_one_line(msg);
  EXPECT_NE(msg.find("EM_X86_64"), std::string::npos) << msg;
  EXPECT_NE(msg.find("expected EM_AMDGPU"), std::string::npos) << msg;
}

TEST(SimCodeObject, OtherGpuIsRejectedByMach) {
  auto bytes = testdata("vector_add");
  bytes[48] = std::byte{0x40};  // e_flags low byte: mach gfx940 instead of gfx942 (0x4c)
  std::string msg = load_error(bytes);
  expect_one_line(msg);
  EXPECT_NE(msg.find("mach is 0x40; expected gfx942 (0x4c)"), std::string::npos) << msg;
}

TEST(SimCodeObject, OffloadBundleIsNamed) {
  std::string s = "__CLANG_OFFLOAD_BUNDLE__ and then some more bytes";
  std::vector<std::byte> b(s.size());
  std::memcpy(b.data(), s.data(), s.size());
  std::string msg = load_error(b);
  expect_one_line(msg);
  EXPECT_NE(msg.find("offload bundle"), std::string::npos) << msg;
}

TEST(SimCodeObject, BrokenSectionTable) {
  auto bytes = testdata("vector_add");
  std::uint64_t shoff = 0x7fffffff00ull;  // e_shoff far beyond the file
  std::memcpy(bytes.data() + 40, &shoff, 8);
  expect_one_line(load_error(bytes));
}

// Single-byte and multi-byte corruptions anywhere in the file: either a code object that still
// loads, or a one-line error; never a crash.
// The dynamic relocation of a __device__ variable's GOT entry is read (R_AMDGPU_ABS64, the
// variable's address); any other type is refused by name rather than left unapplied.
TEST(SimCodeObject, DynamicRelocationsAreReadAndUnknownTypesRefused) {
  auto bytes = testdata("device_global");
  const CodeObject co = CodeObject::load(bytes, "x.hsaco");
  ASSERT_EQ(co.relocations().size(), 1u);
  const Relocation& r = co.relocations()[0];
  EXPECT_EQ(co.sections()[r.section].name, ".got");
  EXPECT_EQ(r.value, co.sections()[co.object_location("_ZN12_GLOBAL__N_110cdna_tableE").section].address +
                         co.object_location("_ZN12_GLOBAL__N_110cdna_tableE").offset);
  // Patch the entry's type (low 32 bits of r_info, 8 bytes into the SHT_RELA section) to 1.
  auto u64 = [&](std::size_t at) {
    std::uint64_t v;
    std::memcpy(&v, bytes.data() + at, 8);
    return v;
  };
  const std::uint64_t shoff = u64(0x28);
  std::uint16_t shnum;
  std::memcpy(&shnum, bytes.data() + 0x3c, 2);
  bool patched = false;
  for (std::size_t i = 0; i < shnum && !patched; ++i) {
    const std::size_t sh = shoff + 64 * i;
    std::uint32_t type;
    std::memcpy(&type, bytes.data() + sh + 4, 4);
    if (type != 4) continue;  // SHT_RELA
    const std::uint32_t abs32_lo = 1;
    std::memcpy(bytes.data() + u64(sh + 24) + 8, &abs32_lo, 4);
    patched = true;
  }
  ASSERT_TRUE(patched);
  const std::string msg = load_error(bytes);
  expect_one_line(msg);
  EXPECT_NE(msg.find("dynamic relocation type 1"), std::string::npos) << msg;
}

TEST(SimCodeObject, CorruptionNeverCrashes) {
  auto good = testdata("vector_add");
  auto r = testing::random_u32(3000, 11);
  int errors = 0;
  for (std::size_t i = 0; i + 2 < r.size(); i += 3) {
    auto b = good;
    std::size_t pos = r[i] % b.size();
    b[pos] = static_cast<std::byte>(r[i + 1]);
    if (r[i + 2] & 1) b[(pos + 1) % b.size()] = static_cast<std::byte>(r[i + 2] >> 8);
    try {
      CodeObject co = CodeObject::load(b, "x.hsaco");
      for (const auto& k : co.kernels()) (void)co.kernel(k.name);
    } catch (const std::runtime_error& e) {
      std::string msg = e.what();
      EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
      ++errors;
    }
  }
  EXPECT_GT(errors, 0);
}

}  // namespace
}  // namespace cdna::simulator
