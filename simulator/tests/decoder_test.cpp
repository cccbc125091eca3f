// Decoder: LLVM disassembly text -> typed instruction records.
#include <gtest/gtest.h>

#include <cstring>

#include "simulator/decode/decoder.hpp"
#include "simulator/checks/hazard.hpp"
#include "simulator/tests/test_util.hpp"
#include "simulator/state/wave.hpp"

namespace cdna::simulator {
namespace {

Inst parse(const std::string& text, std::string* reason = nullptr, std::uint32_t accum = 64,
           std::uint32_t alloc = 128) {
  Inst I;
  std::string r = parse_instruction(text, 0x1000, accum, alloc, I);
  if (reason) *reason = r;
  else EXPECT_EQ(r, "") << text;
  return I;
}

TEST(SimDecoder, Vop2WithRegisters) {
  Inst I = parse("v_add_f32_e32 v1, v2, v3");
  EXPECT_EQ(I.op, Opcode::v_add_f32);
  EXPECT_EQ(I.enc, Encoding::E32);
  ASSERT_EQ(I.nops, 3);
  EXPECT_EQ(I.ops[0].kind, OperandKind::Vreg);
  EXPECT_EQ(I.ops[0].reg, 1);
  EXPECT_EQ(I.ops[2].reg, 3);
  EXPECT_EQ(I.address, 0x1000u);
}

TEST(SimDecoder, InlineConstantsFollowTheOperandType) {
  EXPECT_EQ(parse("v_mov_b32_e32 v0, 0.5").ops[1].k32, 0x3f000000u);
  EXPECT_EQ(parse("v_cvt_f32_f16_e32 v0, 1.0").ops[1].k32, 0x3c00u);
  EXPECT_EQ(parse("v_fma_f64 v[0:1], v[0:1], 0.5, v[2:3]").ops[2].k64, 0x3fe0000000000000ull);
  EXPECT_EQ(parse("v_mov_b32_e32 v0, 0.15915494").ops[1].k32, 0x3e22f983u);
  Inst m = parse("s_mov_b64 s[0:1], -5");
  EXPECT_EQ(m.ops[1].k64, static_cast<std::uint64_t>(-5));
  EXPECT_EQ(m.ops[1].k32, static_cast<std::uint32_t>(-5));
  EXPECT_EQ(parse("s_mov_b64 s[0:1], 1.0").ops[1].k64, 0x3ff0000000000000ull);
  EXPECT_EQ(parse("s_and_b32 s3, s3, 0xffff").ops[2].k32, 0xffffu);
  // 64-bit unsigned operands zero-extend a literal, signed ones sign-extend.
  EXPECT_EQ(parse("v_cmp_eq_u64_e32 vcc, 0xffffffff, v[0:1]").ops[1].k64, 0xffffffffull);
  EXPECT_EQ(parse("v_cmp_eq_i64_e32 vcc, 0xffffffff, v[0:1]").ops[1].k64, ~0ull);
}

TEST(SimDecoder, SpecialRegisters) {
  Inst I = parse("s_and_saveexec_b64 s[2:3], vcc");
  EXPECT_EQ(I.ops[0].reg, 2);
  EXPECT_EQ(I.ops[0].width, 2);
  EXPECT_EQ(I.ops[1].reg, kVccLo);
  EXPECT_EQ(parse("s_mov_b32 vcc_lo, exec_hi").ops[1].reg, kExecHi);
  EXPECT_EQ(parse("s_mov_b32 m0, s1").ops[0].reg, kM0);
  EXPECT_EQ(parse("s_mov_b32 s0, src_scc").ops[1].kind, OperandKind::Scc);
  Inst ap = parse("s_mov_b64 s[4:5], src_private_base");
  EXPECT_EQ(ap.ops[1].k64, kPrivateAperture);
  EXPECT_EQ(ap.ops[1].k32, static_cast<std::uint32_t>(kPrivateAperture >> 32));
}

TEST(SimDecoder, Vop3Modifiers) {
  Inst I = parse("v_fma_f32 v0, -|v1|, |v2|, -v3 clamp mul:2");
  EXPECT_TRUE(I.ops[1].neg && I.ops[1].abs);
  EXPECT_TRUE(I.ops[2].abs && !I.ops[2].neg);
  EXPECT_TRUE(I.ops[3].neg && !I.ops[3].abs);
  EXPECT_TRUE(I.clamp);
  EXPECT_EQ(I.omod, 1);
  EXPECT_EQ(parse("v_add_f32_e64 v0, v1, v2 div:2").omod, 3);
  Inst p = parse("v_pk_mul_f32 v[0:1], v[2:3], s[4:5] op_sel_hi:[1,0]");
  EXPECT_TRUE(p.op_sel_hi_given);
  EXPECT_EQ(p.op_sel_hi, 1);
  Inst f = parse("v_pk_fma_f32 v[2:3], v[2:3], v[4:5], v[6:7] op_sel:[1,0,0] neg_lo:[0,0,1] neg_hi:[1,0,0]");
  EXPECT_EQ(f.op_sel, 1);
  EXPECT_EQ(f.neg_lo, 4);
  EXPECT_EQ(f.neg_hi, 1);
}

TEST(SimDecoder, CarryOutPutsTheFirstSourceAfterIt) {
  Inst I = parse("v_mad_u64_u32 v[0:1], s[2:3], v2, v3, v[4:5]");
  EXPECT_EQ(I.src0, 2);
  EXPECT_EQ(I.ops[1].kind, OperandKind::Sreg);
  EXPECT_EQ(parse("v_add_co_u32_e32 v0, vcc, v1, v2").src0, 2);
  EXPECT_EQ(parse("v_add_u32_e32 v0, v1, v2").src0, 1);
}

TEST(SimDecoder, MemoryModifiers) {
  Inst g = parse("global_load_dwordx4 v[0:3], v4, s[0:1] offset:-16 sc0 nt sc1");
  EXPECT_EQ(g.offset, -16);
  EXPECT_TRUE(g.sc0 && g.sc1 && g.nt);
  EXPECT_EQ(g.ops[0].width, 4);
  EXPECT_EQ(parse("global_load_dword v3, v[4:5], off").ops[2].kind, OperandKind::Off);
  Inst d = parse("ds_read2_b32 v[0:1], v2 offset0:1 offset1:2");
  EXPECT_EQ(d.offset0, 1);
  EXPECT_EQ(d.offset1, 2);
  Inst s = parse("s_load_dword s0, s[0:1], -0x10");
  EXPECT_EQ(static_cast<std::int32_t>(s.ops[2].k32), -16);
  EXPECT_EQ(parse("s_load_dword s0, s[0:1], s4 offset:0x10").offset, 16);
}

TEST(SimDecoder, BranchesAndImmediates) {
  EXPECT_EQ(parse("s_cbranch_execz 65533").simm, -3);
  EXPECT_EQ(parse("s_branch 22").simm, 22);
  EXPECT_EQ(parse("s_movk_i32 s0, 0xfffe").simm, -2);
  EXPECT_EQ(parse("s_nop 7").simm, 7);
  Inst h = parse("s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 0");
  EXPECT_EQ(h.simm & 63, 1);
  EXPECT_EQ((h.simm >> 6) & 31, 4);
  EXPECT_EQ(((h.simm >> 11) & 31) + 1, 2);
  EXPECT_EQ(parse("s_getreg_b32 s0, hwreg(HW_REG_MODE)").simm, 1 | (31 << 11));
  // s_waitcnt keeps vmcnt (63: no wait on it); a raw simm16 has it in bits 3:0 and 15:14 (gfx9).
  EXPECT_EQ(parse("s_waitcnt vmcnt(0) lgkmcnt(0)").simm, 0);
  EXPECT_EQ(parse("s_waitcnt vmcnt(5)").simm, 5);
  EXPECT_EQ(parse("s_waitcnt lgkmcnt(0)").simm, 63);
  EXPECT_EQ(parse("s_waitcnt vmcnt(63) expcnt(7) lgkmcnt(15)").simm, 63);
  EXPECT_EQ(parse("s_waitcnt 0x4f72").simm, 2 | (1 << 4));
  std::string why;
  parse("s_waitcnt vmcnt(64)", &why);
  EXPECT_NE(why.find("s_waitcnt operand"), std::string::npos) << why;
}

TEST(SimDecoder, SdwaAndDpp) {
  Inst s = parse("v_add_u32_sdwa v0, v1, sext(v2) dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_1 src1_sel:WORD_0");
  EXPECT_EQ(s.enc, Encoding::Sdwa);
  EXPECT_EQ(s.dst_sel, 5);
  EXPECT_EQ(s.dst_unused, 2);
  EXPECT_EQ(s.src0_sel, 1);
  EXPECT_EQ(s.src1_sel, 4);
  EXPECT_TRUE(s.ops[2].sext);
  Inst d = parse("v_mov_b32_dpp v0, v1 row_shr:1 row_mask:0xa bank_mask:0x3 bound_ctrl:1");
  EXPECT_EQ(d.enc, Encoding::Dpp);
  EXPECT_EQ(d.dpp_ctrl, 0x111);
  EXPECT_EQ(d.row_mask, 0xa);
  EXPECT_EQ(d.bank_mask, 0x3);
  EXPECT_TRUE(d.bound_ctrl);
  EXPECT_EQ(parse("v_add_f32_dpp v0, v1, v2 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf").dpp_ctrl,
            1 | (0 << 2) | (3 << 4) | (2 << 6));
  EXPECT_EQ(parse("v_mov_b32_dpp v0, v1 row_bcast:31 row_mask:0xf bank_mask:0xf").dpp_ctrl, 0x143);
}

TEST(SimDecoder, AgprsMapIntoTheUnifiedFile) {
  Inst I = parse("v_accvgpr_read_b32 v0, a1", nullptr, 8, 32);
  EXPECT_EQ(I.ops[1].reg, 9);
  EXPECT_TRUE(I.ops[1].agpr);
  Inst m = parse("v_mfma_f32_16x16x16_bf16 a[0:3], v[4:5], v[6:7], a[0:3]", nullptr, 8, 32);
  EXPECT_EQ(m.ops[0].reg, 8);
  EXPECT_EQ(m.ops[0].width, 4);
}

// The unified file: v[n] at or past ACCUM_OFFSET is the row of a[n - ACCUM_OFFSET] (AMD's
// shipped AITER code objects name v160-v235 with ACCUM_OFFSET 160), up to the allocated rows.
TEST(SimDecoder, VgprNamesPastAccumOffsetAliasAgprRows) {
  std::string reason;
  Inst v = parse("ds_read_b128 v[160:163], v2 offset:17408", &reason, 160, 256);
  EXPECT_EQ(reason, "");
  EXPECT_EQ(v.ops[0].reg, 160);
  EXPECT_FALSE(v.ops[0].agpr);
  Inst a = parse("v_accvgpr_read_b32 v0, a0", &reason, 160, 256);
  EXPECT_EQ(a.ops[1].reg, 160);
  parse("v_mov_b32_e32 v255, v1", &reason, 160, 256);
  EXPECT_EQ(reason, "");
  parse("v_mov_b32_e32 v255, v1", &reason, 160, 248);
  EXPECT_NE(reason.find("outside the 248 vector registers"), std::string::npos) << reason;
}

// The hazard rules see rows: an MFMA writing a[0:3] (rows 160-163 with ACCUM_OFFSET 160) and a
// VALU reading v160 5 wait states later is AITER's "MFMA result read early"; v164 is another row.
TEST(SimDecoder, HazardRulesTreatAnAliasedRowAsTheSameRegister) {
  const HazardInfo mfma = classify_hazards(parse("v_mfma_f32_16x16x16_bf16 a[0:3], v[0:1], v[2:3], a[0:3]", nullptr, 160, 256));
  std::vector<HazardHit> hits;
  hazard_hits(mfma, classify_hazards(parse("v_max3_f32 v25, v160, v161, v28", nullptr, 160, 256)), 5, 160, hits);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(std::string(hits[0].rule->id), "mfma-result-valu");
  EXPECT_EQ(hits[0].reg, "a[0:3]");
  hits.clear();
  hazard_hits(mfma, classify_hazards(parse("v_max3_f32 v25, v164, v165, v28", nullptr, 160, 256)), 5, 160, hits);
  EXPECT_TRUE(hits.empty());
}

TEST(SimDecoder, RefusesWhatItCannotHonour) {
  std::string reason;
  parse("v_screen_partition_4se_b32_e32 v0, v1", &reason);
  EXPECT_NE(reason.find("not implemented"), std::string::npos);
  parse("v_mov_b32_e32 v[127:128], v1", &reason, 64, 128);
  EXPECT_NE(reason.find("outside the 128 vector registers"), std::string::npos) << reason;
  parse("v_accvgpr_read_b32 v0, a70", &reason, 64, 128);
  EXPECT_NE(reason.find("outside"), std::string::npos) << reason;
  parse("v_mfma_f32_32x32x8_f16 v[0:15], v[4:5], v[6:7], v[0:15] cbsz:1 abid:1 blgp:2", &reason);
  EXPECT_NE(reason.find("cbsz"), std::string::npos) << reason;
  parse("v_mov_b32_e32 v0, frobnicate", &reason);
  EXPECT_NE(reason.find("frobnicate"), std::string::npos) << reason;
}

// Matrix modifiers: the calculator's ranges are accepted and kept, the rest refused (decoder.cpp
// check_mai_modifiers).
TEST(SimDecoder, MatrixModifiers) {
  Inst m = parse("v_mfma_f32_16x16x4_4b_f16 v[0:15], v[16:17], v[18:19], v[0:15] cbsz:2 abid:3 blgp:5");
  EXPECT_EQ(m.cbsz, 2);
  EXPECT_EQ(m.abid, 3);
  EXPECT_EQ(m.blgp, 5);
  Inst f = parse("v_mfma_f64_16x16x4_f64 v[0:7], v[8:9], v[10:11], v[0:7] neg:[1,0,1]");
  EXPECT_EQ(f.neg_lo, 5);
  Inst s = parse("v_smfmac_f32_16x16x32_f16 v[0:3], v[4:5], v[6:9], v10 cbsz:3 abid:7");
  EXPECT_EQ(s.op, Opcode::v_smfmac_f32_16x16x32_f16);
  EXPECT_EQ(s.abid, 7);  // ignored by the hardware when cbsz != 0
  std::string reason;
  parse("v_mfma_f32_4x4x4_16b_f16 v[0:3], v[4:5], v[6:7], v[0:3] cbsz:5", &reason);
  EXPECT_NE(reason.find("log2(blocks)"), std::string::npos) << reason;
  parse("v_mfma_f32_32x32x4_2b_bf16 v[0:31], v[32:33], v[34:35], v[0:31] cbsz:1 abid:2", &reason);
  EXPECT_NE(reason.find("abid below 2^cbsz"), std::string::npos) << reason;
  parse("v_smfmac_f32_16x16x64_fp8_fp8 v[0:3], v[4:5], v[6:9], v10 abid:2", &reason);
  EXPECT_NE(reason.find("index segment"), std::string::npos) << reason;
  parse("v_smfmac_f32_16x16x32_bf16 v[0:3], v[4:5], v[6:9], v10 abid:3", &reason);
  EXPECT_EQ(reason, "");
  parse("v_add_f32_e64 v0, v1, v2 blgp:1", &reason);
  EXPECT_NE(reason.find("only to matrix"), std::string::npos) << reason;
}

TEST(SimDecoder, DisassemblerGivesLlvmText) {
  Disassembler dis;
  const std::uint8_t code[] = {0x06, 0x0f, 0x04, 0x02};  // v_add_f32_e32 v2, v6, v7
  auto d = dis.at(code, sizeof code, 0);
  EXPECT_EQ(d.size, 4u);
  EXPECT_EQ(d.text, "v_add_f32_e32 v2, v6, v7");
  const std::uint8_t lit[] = {0x03, 0xff, 0x03, 0x86, 0xff, 0xff, 0x00, 0x00};  // s_and_b32 s3, s3, 0xffff
  auto l = dis.at(lit, sizeof lit, 0);
  EXPECT_EQ(l.size, 8u);
  EXPECT_EQ(l.text, "s_and_b32 s3, s3, 0xffff");
}

// SDWA words whose operand select is 7 (no such select) crash LLVM 19's printer: refused as
// undecodable (size 0) before LLVM sees them; the same words with a valid select still decode.
TEST(SimDecoder, SdwaWithInvalidSelectIsUndecodableNotACrash) {
  Disassembler dis;
  const std::uint8_t vop2_dst[] = {0xf9, 0x54, 0x28, 0x27, 0x00, 0x07, 0x06, 0x06};
  const std::uint8_t vop2_src0[] = {0xf9, 0x54, 0x28, 0x27, 0x00, 0x06, 0x07, 0x06};
  const std::uint8_t vop2_src1[] = {0xf9, 0x54, 0x28, 0x27, 0x00, 0x06, 0x06, 0x07};
  const std::uint8_t vopc_src0[] = {0xf9, 0x00, 0x84, 0x7c, 0x00, 0x00, 0x07, 0x06};
  for (const auto* code : {vop2_dst, vop2_src0, vop2_src1, vopc_src0}) EXPECT_EQ(dis.at(code, 8, 0).size, 0u);
  const std::uint8_t vop2_ok[] = {0xf9, 0x54, 0x28, 0x27, 0x00, 0x06, 0x06, 0x06};
  EXPECT_EQ(dis.at(vop2_ok, 8, 0).text,
            "v_and_b32_sdwa v148, v0, v42 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:DWORD");
  // VOPC has no dst_sel: bits 14:8 are its SDST (0x87: SD set, SGPR 7), whose low bits may be 7;
  // LLVM decodes it (with a warning on the unaligned pair), so it is not refused.
  const std::uint8_t vopc_sdst[] = {0xf9, 0x00, 0x84, 0x7c, 0x00, 0x87, 0x06, 0x06};
  EXPECT_EQ(dis.at(vopc_sdst, 8, 0).size, 8u);
}

TEST(SimDecoder, KernelDecodeFollowsControlFlowOnly) {
  auto bytes = testing::testdata("vector_add");
  CodeObject co = CodeObject::load(bytes, "vector_add.hsaco");
  const KernelInfo& k = co.kernel("vector_add");
  auto p = decode_kernel(co, k);
  ASSERT_FALSE(p->insts.empty());
  EXPECT_EQ(p->insts.front().address, k.entry_address);
  EXPECT_EQ(p->insts.back().op, Opcode::s_endpgm);  // the s_nop padding is never decoded
  for (std::size_t i = 0; i < p->insts.size(); ++i) EXPECT_EQ(p->reason[i], "") << p->text[i];
  EXPECT_LT(p->insts.size(), 40u);
}

}  // namespace
}  // namespace cdna::simulator

namespace cdna::simulator {
namespace {

// Whatever LLVM prints for arbitrary bytes, parsing it never crashes: it yields a record or a
// reason.
TEST(SimDecoder, ArbitraryInstructionWordsNeverCrash) {
  Disassembler dis;
  auto r = testing::random_u32(3 * 20000, 17);
  int decoded = 0, supported = 0;
  for (std::size_t i = 0; i + 2 < r.size(); i += 3) {
    std::uint8_t bytes[12];
    std::memcpy(bytes, &r[i], 12);
    auto d = dis.at(bytes, sizeof bytes, 0x1000);
    if (d.size == 0) continue;
    ++decoded;
    Inst I;
    std::string reason = parse_instruction(d.text, 0x1000, 64, 128, I);
    if (reason.empty()) ++supported;
  }
  EXPECT_GT(decoded, 1000);
  EXPECT_GT(supported, 100);
}

}  // namespace
}  // namespace cdna::simulator
