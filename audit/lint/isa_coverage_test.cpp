// The instruction coverage (audit/lint/isa_coverage.hpp): instruction forms keep every modifier
// and source modifier and drop operands; a code object's counts agree with llvm-objdump's
// instruction count and its refusals name the reason and the first instruction.
#include "audit/lint/isa_coverage.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <cstring>

#include "simulator/decode/code_object.hpp"

namespace cdna::audit {
namespace {

TEST(IsaCoverage, FormsNameModifiersNotOperands) {
  EXPECT_EQ(instruction_form("v_mov_b32_dpp v0, v1 row_newbcast:3 row_mask:0xf bank_mask:0xf"),
            "v_mov_b32_dpp bank_mask row_mask row_newbcast");
  EXPECT_EQ(instruction_form("v_add_f32_e64 v0, -v1, |v2| clamp"), "v_add_f32_e64 abs clamp neg");
  EXPECT_EQ(instruction_form("v_add_f32_e32 v0, -1.0, v2"), "v_add_f32_e32");  // a negative constant is no neg
  EXPECT_EQ(instruction_form("v_pk_fma_f32 v[0:1], v[2:3], v[4:5], v[6:7] op_sel:[0,1,0] op_sel_hi:[1,0,1]"),
            "v_pk_fma_f32 op_sel op_sel_hi");
  EXPECT_EQ(instruction_form("s_waitcnt vmcnt(0) lgkmcnt(0)"), "s_waitcnt lgkmcnt vmcnt");
  EXPECT_EQ(instruction_form("global_load_dwordx4 v[0:3], v4, s[2:3] offset:16 sc0 nt"), "global_load_dwordx4 nt offset sc0");
  EXPECT_EQ(instruction_form("buffer_load_dword v1, v2, s[4:7], 0 offen lds"), "buffer_load_dword lds offen");
  EXPECT_EQ(instruction_form("v_mov_b32_sdwa v1, sext(v2) dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:BYTE_0"),
            "v_mov_b32_sdwa dst_sel dst_unused sext src0_sel");
  EXPECT_EQ(instruction_form("s_endpgm"), "s_endpgm");
  EXPECT_EQ(instruction_form("s_mov_b64 exec, vcc"), "s_mov_b64");
  EXPECT_EQ(instruction_form("v_accvgpr_read_b32 v1, a7"), "v_accvgpr_read_b32");
}

TEST(IsaCoverage, CountsEveryInstructionAndNamesTheRefusedOne) {
  const std::filesystem::path path = std::filesystem::path(CDNA_SIM_TESTDATA) / "unsupported.hsaco";
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << path;
  std::vector<char> raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(raw.size());
  std::memcpy(bytes.data(), raw.data(), raw.size());
  const CodeObjectCoverage c = isa_coverage(simulator::CodeObject::load(bytes, path.string()));
  EXPECT_EQ(c.kernels, std::vector<std::string>{"uses_screen_partition"});
  EXPECT_GT(c.instructions, 10u);
  EXPECT_EQ(c.decoded + 1, c.instructions);
  ASSERT_EQ(c.refused.size(), 1u);
  EXPECT_EQ(c.refused[0].count, 1u);
  EXPECT_NE(c.refused[0].example.find("v_screen_partition_4se_b32"), std::string::npos) << c.refused[0].example;
  EXPECT_NE(c.refused[0].reason.find("screen partition"), std::string::npos) << c.refused[0].reason;
  EXPECT_FALSE(c.complete());
  std::size_t in_forms = 0;
  for (const auto& [form, n] : c.forms) in_forms += n;
  EXPECT_EQ(in_forms, c.instructions - c.undecodable_words);
}

}  // namespace
}  // namespace cdna::audit
