// Directed cases: the rarer SALU instructions (s_quadmask, s_bitreplicate, M0-relative
// s_movrels/s_movreld, VGPR index mode s_set_gpr_idx_*, s_setvskip, s_call_b64, fork/join,
// s_wakeup) and
// the SMEM stores, atomics and cache/translation hints. Models follow the CDNA3 ISA guide
// (chapter 12 opcode pseudo-code; "Scalar Memory Operations"; GPR indexing: M0[7:0] = index,
// M0[15:12] = SRC0, SRC1, SRC2, DST enables, as LLVM's AMDGPU imask docs spell them), written for
// the tests, not taken from simulator/exec/salu_smem.cpp.
//
// Frame: harness.hpp. `mem` (s[6:7]) offsets are bytes; stores use 0x100..0x2ff, atomics
// 0x300..0x4ff, buffer stores/atomics a V# whose num_records is 0x1000 bytes.
#include <algorithm>
#include <bit>
#include <string>

#include "simulator/directed/cases.hpp"

namespace cdna::simulator::directed {
namespace {

void put(State& s, int reg, u32 v) { s.sout[static_cast<std::size_t>(reg - 40)] = v; }
void put64(State& s, int reg, u64 v) {
  put(s, reg, static_cast<u32>(v));
  put(s, reg + 1, static_cast<u32>(v >> 32));
}
u32 sv(const State& s, int reg) { return s.sin[static_cast<std::size_t>(reg - 16)]; }
u32& vo(State& s, int k, int l) { return s.vout[static_cast<std::size_t>(k - 32)][static_cast<std::size_t>(l)]; }
u32 vi(const State& s, int k, int l) { return s.vin[static_cast<std::size_t>(k - 10)][static_cast<std::size_t>(l)]; }
std::string sregs(int first, int n) {
  return n == 1 ? "s" + std::to_string(first)
                : "s[" + std::to_string(first) + ":" + std::to_string(first + n - 1) + "]";
}
std::string capture_scc(int reg) { return "  s_cselect_b32 s" + std::to_string(reg) + ", 1, 0\n"; }

// ---------------------------------------------------------------- bit manipulation

// Quad q of the result is set when any of bits 4q..4q+3 is: fold each nibble onto its low bit.
u64 quadmask_model(u64 x, int quads) {
  const u64 folded = x | (x >> 1) | (x >> 2) | (x >> 3);
  u64 d = 0;
  for (int q = 0; q < quads; ++q)
    if (folded & (u64{1} << (4 * q))) d |= u64{1} << q;
  return d;
}
// Each bit twice: spread the 32 bits to the even positions (interleave with zeros), then OR the
// copy shifted left by one.
u64 bitreplicate_model(u32 x) {
  u64 y = x;
  y = (y | (y << 16)) & 0x0000ffff0000ffffull;
  y = (y | (y << 8)) & 0x00ff00ff00ff00ffull;
  y = (y | (y << 4)) & 0x0f0f0f0f0f0f0f0full;
  y = (y | (y << 2)) & 0x3333333333333333ull;
  y = (y | (y << 1)) & 0x5555555555555555ull;
  return y | (y << 1);
}

void add_bit_cases(std::vector<Case>& cs) {
  cs.push_back({"s_quadmask_b32",
                "  s_quadmask_b32 s40, s16\n" + capture_scc(41) +
                    "  s_quadmask_b32 s42, 0x0f00f001\n" + capture_scc(43) +
                    "  s_quadmask_b32 s44, 0\n" + capture_scc(45) + "  s_quadmask_b32 s46, m0\n",
                [](State& s) {
                  const u32 a = static_cast<u32>(quadmask_model(sv(s, 16), 8));
                  put(s, 40, a);
                  put(s, 41, a != 0);
                  put(s, 42, static_cast<u32>(quadmask_model(0x0f00f001u, 8)));
                  put(s, 43, 1);
                  put(s, 44, 0);
                  put(s, 45, 0);
                  const u32 m = static_cast<u32>(quadmask_model(s.m0, 8));
                  put(s, 46, m);
                  s.scc = m != 0;
                }});
  cs.push_back({"s_quadmask_b64",
                "  s_quadmask_b64 s[40:41], s[16:17]\n" + capture_scc(42) +
                    "  s_quadmask_b64 s[44:45], exec\n  s_quadmask_b64 s[46:47], vcc\n" +
                    capture_scc(48) + "  s_quadmask_b64 s[50:51], 0\n",
                [](State& s) {
                  const u64 a = quadmask_model(sgpr_pair(s, 0), 16);
                  put64(s, 40, a);
                  put(s, 42, a != 0);
                  put64(s, 44, 0xffff);
                  const u64 v = quadmask_model(s.vcc, 16);
                  put64(s, 46, v);
                  put(s, 48, v != 0);
                  put64(s, 50, 0);
                  s.scc = false;
                }});
  // No SCC result (guide 12.2): SCC keeps its preset value, captured at the end.
  cs.push_back({"s_bitreplicate_b64_b32",
                "  s_bitreplicate_b64_b32 s[40:41], s16\n  s_bitreplicate_b64_b32 s[42:43], 0x80000001\n"
                "  s_bitreplicate_b64_b32 s[44:45], m0\n  s_bitreplicate_b64_b32 s[46:47], -1\n" +
                    capture_scc(48),
                [](State& s) {
                  put64(s, 40, bitreplicate_model(sv(s, 16)));
                  put64(s, 42, 0xc000000000000003ull);
                  put64(s, 44, bitreplicate_model(s.m0));
                  put64(s, 46, ~0ull);
                  put(s, 48, s.scc);
                }});
}

// ---------------------------------------------------------------- M0-relative SGPR moves

// LLVM's GCNHazardRecognizer (gfx9 ReadM0MovRelInterpHazard) wants one wait state between an
// SALU write of M0 and s_movrel: hence the s_nop 0.
void add_movrel_cases(std::vector<Case>& cs) {
  cs.push_back({"s_movrels_b32",
                "  s_mov_b32 m0, 3\n  s_nop 0\n  s_movrels_b32 s40, s16\n  s_movrels_b32 s41, s20\n"
                "  s_mov_b32 m0, 0\n  s_nop 0\n  s_movrels_b32 s42, s17\n"
                "  s_mov_b32 m0, 15\n  s_nop 0\n  s_movrels_b32 s43, s16\n",
                [](State& s) {
                  put(s, 40, sv(s, 19));
                  put(s, 41, sv(s, 23));
                  put(s, 42, sv(s, 17));
                  put(s, 43, sv(s, 31));
                  s.m0 = 15;
                }});
  cs.push_back({"s_movrels_b64",
                "  s_mov_b32 m0, 4\n  s_nop 0\n  s_movrels_b64 s[40:41], s[16:17]\n"
                "  s_movrels_b64 s[42:43], s[24:25]\n  s_mov_b32 m0, 0\n  s_nop 0\n"
                "  s_movrels_b64 s[44:45], s[18:19]\n",
                [](State& s) {
                  put64(s, 40, sgpr_pair(s, 4));
                  put64(s, 42, sgpr_pair(s, 12));
                  put64(s, 44, sgpr_pair(s, 2));
                  s.m0 = 0;
                }});
  cs.push_back({"s_movreld_b32",
                "  s_mov_b32 m0, 2\n  s_nop 0\n  s_movreld_b32 s40, s16\n  s_movreld_b32 s41, 0x1234\n"
                "  s_mov_b32 m0, 9\n  s_nop 0\n  s_movreld_b32 s40, -7\n  s_movreld_b32 s46, s17\n",
                [](State& s) {
                  put(s, 42, sv(s, 16));
                  put(s, 43, 0x1234);
                  put(s, 49, static_cast<u32>(-7));
                  put(s, 55, sv(s, 17));
                  s.m0 = 9;
                }});
  cs.push_back({"s_movreld_b64",
                "  s_mov_b32 m0, 4\n  s_nop 0\n  s_movreld_b64 s[40:41], s[16:17]\n"
                "  s_mov_b32 m0, 8\n  s_nop 0\n  s_movreld_b64 s[42:43], exec\n"
                "  s_movreld_b64 s[44:45], 0x12345\n",
                [](State& s) {
                  put64(s, 44, sgpr_pair(s, 0));
                  put64(s, 50, ~0ull);
                  put64(s, 52, 0x12345);
                  s.m0 = 8;
                }});
  // Out of the SGPR file (s16 + 90) and an odd pair: refused (the guide defines neither).
  Case far{"s_movrels_b32", "  s_mov_b32 m0, 90\n  s_nop 0\n  s_movrels_b32 s40, s16\n", nullptr};
  far.expect_error = "is beyond s101";
  cs.push_back(far);
  Case odd{"s_movreld_b64", "  s_mov_b32 m0, 1\n  s_nop 0\n  s_movreld_b64 s[40:41], s[16:17]\n", nullptr};
  odd.expect_error = "starts at odd s41";
  cs.push_back(odd);
}

// ---------------------------------------------------------------- VGPR index mode, VSKIP

// M0 after s_set_gpr_idx_on with index `idx` and operand mask `mask`: bits 7:0 and 15:12
// replaced, the others kept.
u32 gpr_idx_m0(u32 m0, u32 idx, u32 mask) { return (m0 & ~0xf0ffu) | (idx & 0xffu) | (mask << 12); }
// s[16:17]: a mask with active and inactive lanes in both halves (partial EXEC).
void mixed_mask(State& s) {
  s.sin[0] = s.vin[7][5] | 0x00010001u;
  s.sin[1] = s.vin[7][9] & 0x7fffffffu;
}

void add_gpr_idx_cases(std::vector<Case>& cs) {
  // SRC0 indexing by an SGPR, then DST indexing by an inline constant under a partial EXEC, then
  // all four operands of a three-source VALU op and a compare (its SGPR destination has nothing to
  // index, its sources do).
  Case on{"s_set_gpr_idx_on",
          "  s_mov_b32 s56, 3\n  s_set_gpr_idx_on s56, gpr_idx(SRC0)\n  v_mov_b32 v32, v10\n"
          "  s_set_gpr_idx_off\n  v_mov_b32 v33, v10\n"
          "  s_mov_b64 exec, s[16:17]\n  s_set_gpr_idx_on 2, gpr_idx(DST)\n  v_mov_b32 v34, v11\n"
          "  v_add_u32 v40, v12, v13\n  s_set_gpr_idx_off\n  s_mov_b64 exec, -1\n"
          "  s_set_gpr_idx_on 1, gpr_idx(SRC0,SRC1,SRC2,DST)\n  v_add3_u32 v44, v10, v11, v12\n"
          "  v_cmp_gt_u32 vcc, v10, v12\n  s_set_gpr_idx_off\n",
          [](State& s) {
            const u64 mask = sgpr_pair(s, 0);
            u64 vcc = 0;
            for (int l = 0; l < kLanes; ++l) {
              vo(s, 32, l) = vi(s, 13, l);
              vo(s, 33, l) = vi(s, 10, l);
              if ((mask >> l) & 1) {
                vo(s, 36, l) = vi(s, 11, l);
                vo(s, 42, l) = vi(s, 12, l) + vi(s, 13, l);
              }
              vo(s, 45, l) = vi(s, 11, l) + vi(s, 12, l) + vi(s, 13, l);
              if (vi(s, 11, l) > vi(s, 13, l)) vcc |= u64{1} << l;
            }
            s.vcc = vcc;
            s.m0 = gpr_idx_m0(s.m0, 1, 15);
          },
          Values::Int, mixed_mask};
  cs.push_back(on);
  cs.push_back({"s_set_gpr_idx_off",
                "  s_set_gpr_idx_on 5, gpr_idx(SRC0)\n  v_mov_b32 v32, v10\n  s_set_gpr_idx_off\n"
                "  v_mov_b32 v33, v10\n  v_mov_b32 v34, v11\n",
                [](State& s) {
                  for (int l = 0; l < kLanes; ++l) {
                    vo(s, 32, l) = vi(s, 15, l);
                    vo(s, 33, l) = vi(s, 10, l);
                    vo(s, 34, l) = vi(s, 11, l);
                  }
                  s.m0 = gpr_idx_m0(s.m0, 5, 1);  // off leaves M0 alone
                }});
  // s_set_gpr_idx_idx replaces M0[7:0] only (its operand's bits above 7 are dropped).
  cs.push_back({"s_set_gpr_idx_idx",
                "  s_set_gpr_idx_on 1, gpr_idx(SRC0)\n  s_mov_b32 s57, 0x304\n  s_set_gpr_idx_idx s57\n"
                "  v_mov_b32 v32, v10\n  s_set_gpr_idx_idx 6\n  v_mov_b32 v33, v10\n  s_set_gpr_idx_off\n",
                [](State& s) {
                  for (int l = 0; l < kLanes; ++l) {
                    vo(s, 32, l) = vi(s, 14, l);
                    vo(s, 33, l) = vi(s, 16, l);
                  }
                  s.m0 = gpr_idx_m0(s.m0, 6, 1);
                }});
  // s_set_gpr_idx_mode replaces M0[15:12] only; an empty mask indexes nothing.
  cs.push_back({"s_set_gpr_idx_mode",
                "  s_set_gpr_idx_on 2, gpr_idx(SRC0)\n  s_set_gpr_idx_mode gpr_idx(DST)\n"
                "  v_mov_b32 v32, v10\n  s_set_gpr_idx_mode gpr_idx()\n  v_mov_b32 v33, v11\n"
                "  s_set_gpr_idx_mode gpr_idx(SRC1)\n  v_sub_u32 v38, v10, v11\n  s_set_gpr_idx_off\n",
                [](State& s) {
                  for (int l = 0; l < kLanes; ++l) {
                    vo(s, 34, l) = vi(s, 10, l);
                    vo(s, 33, l) = vi(s, 11, l);
                    vo(s, 38, l) = vi(s, 10, l) - vi(s, 13, l);
                  }
                  s.m0 = gpr_idx_m0(s.m0, 2, 2);
                }});
  Case range{"s_set_gpr_idx_on",
             "  s_movk_i32 s56, 0xc8\n  s_set_gpr_idx_on s56, gpr_idx(SRC0)\n  v_mov_b32 v32, v10\n", nullptr};
  range.expect_error = "lies beyond the kernel's VGPRs";
  cs.push_back(range);
  Case sgpr{"s_set_gpr_idx_on", "  s_set_gpr_idx_on 1, gpr_idx(SRC0)\n  v_mov_b32 v32, s16\n", nullptr};
  sgpr.expect_error = "which is not a VGPR";
  cs.push_back(sgpr);
  Case mem{"s_set_gpr_idx_on",
           "  s_set_gpr_idx_on 1, gpr_idx(SRC0)\n  global_store_dword v94, v10, s[6:7]\n", nullptr};
  mem.expect_error = "modelled for VALU operands only";
  cs.push_back(mem);

  // VSKIP = S0[S1[4:0]]; while set, vector instructions (VALU and memory) are not issued, scalar
  // ones are. The guide asks for one wait state after s_setvskip.
  cs.push_back({"s_setvskip",
                "  s_mov_b32 s57, 0x10\n  s_setvskip s57, 4\n  s_nop 0\n  v_mov_b32 v32, v10\n"
                "  global_store_dword v94, v10, s[6:7]\n  s_mov_b32 s40, s16\n  s_setvskip s57, 3\n"
                "  s_nop 0\n  v_mov_b32 v33, v11\n  s_setvskip s16, s17\n  s_nop 0\n  v_mov_b32 v34, v12\n"
                "  s_setvskip 0, 0\n  s_nop 0\n  v_mov_b32 v35, v13\n",
                [](State& s) {
                  put(s, 40, sv(s, 16));
                  const bool skip = (sv(s, 16) >> (sv(s, 17) & 31)) & 1;
                  for (int l = 0; l < kLanes; ++l) {
                    vo(s, 33, l) = vi(s, 11, l);
                    if (!skip) vo(s, 34, l) = vi(s, 12, l);
                    vo(s, 35, l) = vi(s, 13, l);
                  }
                }});
}

// ---------------------------------------------------------------- program control

void add_flow_cases(std::vector<Case>& cs) {
  // Byte layout (every instruction 4 bytes): 0 s_call (target 0+4+2*4 = 12), 4 after the return,
  // 8 s_branch to 28, 12 the subroutine: 16 s_getpc (returns 20), 20 distance to the saved return
  // address (20 - 4 = 16), 24 return through s_setpc.
  cs.push_back({"s_call_b64",
                "  s_call_b64 s[56:57], 2\n  s_mov_b32 s41, 1\n  s_branch 4\n  s_mov_b32 s40, s16\n"
                "  s_getpc_b64 s[58:59]\n  s_sub_u32 s42, s58, s56\n  s_setpc_b64 s[56:57]\n",
                [](State& s) {
                  put(s, 40, sv(s, 16));
                  put(s, 41, 1);
                  put(s, 42, 16);
                  s.scc = false;  // s_sub_u32 without borrow
                }});
  // s_wakeup wakes waves of the workgroup sleeping in s_sleep; s_sleep does not wait here, so it
  // changes no state.
  cs.push_back({"s_wakeup", "  s_wakeup\n  s_mov_b32 s40, s16\n",
                [](State& s) { put(s, 40, sv(s, 16)); }});
}

// ---------------------------------------------------------------- fork/join branch stack

// Guide pseudo-code (S_CBRANCH_I_FORK/G_FORK/JOIN): pass = mask & EXEC, fail = ~mask & EXEC; all
// lanes on one side: a plain branch (or none); otherwise the side with fewer lanes runs first and
// {other side's EXEC (low 64 bits), its resume address (high 64)} is pushed to SGPR[4*CSP] with
// CSP (MODE[31:29]) incremented; s_cbranch_join pops it unless CSP equals the saved value. CSP
// starts at 5 here, so the entry lands in s[20:23] (inputs; the frame's s[0:7] stay intact).
// Records: s[58:59] EXEC of the fall-through side, s[60:61] of the target side, s[62:63] after
// the join, s56 saved CSP, s57 CSP at the end.
void set_mask(State& s, u64 mask) {
  s.sin[0] = static_cast<u32>(mask);
  s.sin[1] = static_cast<u32>(mask >> 32);
}
void fork_model(State& s) {
  const u64 mask = sgpr_pair(s, 0), pass = mask, fail = ~mask;  // EXEC is all lanes
  const bool fail_first = std::popcount(fail) < std::popcount(pass);
  for (int l = 0; l < kLanes; ++l) {
    if ((fail >> l) & 1) vo(s, 32, l) = vi(s, 10, l);
    if ((pass >> l) & 1) vo(s, 33, l) = vi(s, 11, l);
  }
  put64(s, 40, fail);
  put64(s, 42, pass);
  put64(s, 44, fail_first ? pass : fail);  // EXEC after the join: the side that ran last
  put(s, 46, 5);
  put(s, 47, 5);
  put64(s, 48, fail_first ? pass : fail);  // the pushed entry's mask half, still in s[20:21]
}

void add_fork_cases(std::vector<Case>& cs) {
  // Byte layout: 0 s_setreg (8, literal), 8 s_getreg, 12 fork (target 12+4+4*3 = 28),
  // 16 fall-through side, 24 s_branch to 36, 28 target side, 36 join.
  const std::string tail =
      "  s_cbranch_join s56\n  s_mov_b64 s[62:63], exec\n  s_mov_b64 exec, -1\n"
      "  s_getreg_b32 s57, hwreg(HW_REG_MODE, 29, 3)\n  s_mov_b64 s[40:41], s[58:59]\n"
      "  s_mov_b64 s[42:43], s[60:61]\n  s_mov_b64 s[44:45], s[62:63]\n  s_mov_b32 s46, s56\n"
      "  s_mov_b32 s47, s57\n  s_mov_b64 s[48:49], s[20:21]\n";
  // Masks in s[16:17] with 12 and with 52 passing lanes: the passing side runs first in one, the
  // failing side in the other.
  for (u64 mask : {0x0000000f000000ffull, ~0x0000000f000000ffull}) {
    cs.push_back({"s_cbranch_i_fork",
                  "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 29, 3), 5\n  s_nop 1\n  s_getreg_b32 s56, hwreg(HW_REG_MODE, 29, 3)\n"
                  "  s_cbranch_i_fork s[16:17], 3\n  v_mov_b32 v32, v10\n  s_mov_b64 s[58:59], exec\n  s_branch 2\n"
                  "  v_mov_b32 v33, v11\n  s_mov_b64 s[60:61], exec\n" + tail +
                  // uniform masks: all lanes pass (a branch over s50's write), none pass (no branch)
                  "  s_mov_b64 s[64:65], -1\n  s_cbranch_i_fork s[64:65], 1\n  s_mov_b32 s50, 1\n"
                  "  s_mov_b64 s[66:67], 0\n  s_cbranch_i_fork s[66:67], 1\n  s_mov_b32 s51, 2\n",
                  [](State& s) {
                    fork_model(s);
                    put(s, 51, 2);
                  },
                  Values::Int, [mask](State& s) { set_mask(s, mask); }});
  }
  // g_fork: target from an SGPR pair. Layout: 0 s_setreg (8), 8 s_getreg, 12 s_getpc (returns
  // 16), 16 s_add (+28: target byte 44), 20 s_addc, 24 fork, 28..35 fall-through side, 36 a
  // never-taken s_cbranch_scc1 to 44 (SCC = 0 after s_addc; it makes the decoder see the target
  // side), 40 s_branch to 52, 44..51 target side, 52 join.
  cs.push_back({"s_cbranch_g_fork",
                "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 29, 3), 5\n  s_nop 1\n  s_getreg_b32 s56, hwreg(HW_REG_MODE, 29, 3)\n"
                "  s_getpc_b64 s[68:69]\n  s_add_u32 s68, s68, 28\n  s_addc_u32 s69, s69, 0\n"
                "  s_cbranch_g_fork s[16:17], s[68:69]\n  v_mov_b32 v32, v10\n  s_mov_b64 s[58:59], exec\n"
                "  s_cbranch_scc1 1\n  s_branch 2\n  v_mov_b32 v33, v11\n  s_mov_b64 s[60:61], exec\n" + tail,
                [](State& s) {
                  fork_model(s);
                  s.scc = false;
                },
                Values::Int, [](State& s) { set_mask(s, 0xfff0ffff00ff0f0full); }});
  // s_cbranch_join alone: saved CSP equal to CSP (nothing pushed) continues.
  cs.push_back({"s_cbranch_join",
                "  s_getreg_b32 s56, hwreg(HW_REG_MODE, 29, 3)\n  s_cbranch_join s56\n  s_mov_b32 s40, s16\n",
                [](State& s) { put(s, 40, sv(s, 16)); }});
  Case empty{"s_cbranch_join", "  s_mov_b32 s56, 3\n  s_cbranch_join s56\n", nullptr};
  empty.expect_error = "empty branch stack";
  cs.push_back(empty);
}

// ---------------------------------------------------------------- SMEM stores

u32& mw(State& s, u32 byte) { return s.mem.at(byte / 4); }

void add_store_cases(std::vector<Case>& cs) {
  for (int n : {1, 2, 4}) {
    const std::string suffix = n == 1 ? "" : "x" + std::to_string(n);
    const std::string m = "s_store_dword" + suffix;
    // (1) immediate offset, read back by s_load; (2) SGPR offset 0x203 + offset:0x8 (2 LSBs of the
    // sum ignored: 0x208) with glc; (3) a negative immediate from a moved base.
    const u32 a1 = 0x100u, a2 = 0x208u, a3 = 0x280u - 0x10u;
    std::string body = "  " + m + " " + sregs(16, n) + ", s[6:7], 0x100\n  s_waitcnt lgkmcnt(0)\n"
                       "  s_load_dword" + suffix + " " + sregs(40, n) + ", s[6:7], 0x100\n"
                       "  s_movk_i32 s56, 0x203\n  " + m + " " + sregs(20, n) + ", s[6:7], s56 offset:0x8 glc\n"
                       "  s_add_u32 s58, s6, 0x280\n  s_addc_u32 s59, s7, 0\n  " + m + " " + sregs(24, n) +
                       ", s[58:59], -0x10\n  s_waitcnt lgkmcnt(0)\n  s_dcache_wb\n";
    cs.push_back({m, body, [n, a1, a2, a3](State& s) {
                    for (int k = 0; k < n; ++k) {
                      const u32 b = 4u * static_cast<u32>(k);
                      mw(s, a1 + b) = sv(s, 16 + k);
                      put(s, 40 + k, sv(s, 16 + k));
                      mw(s, a2 + b) = sv(s, 20 + k);
                      mw(s, a3 + b) = sv(s, 24 + k);
                    }
                    s.scc = false;  // s_addc_u32: no carry out of the address's high word
                  }});
    // V# in s[60:63]: base = mem, stride 0, num_records 0x1000 bytes. Each dword at offset o is
    // stored iff o + 4 <= num_records: at 0xff8 a dwordx4 stores its first two dwords only.
    const std::string bm = "s_buffer_store_dword" + suffix;
    std::string bbody =
        "  s_mov_b32 s60, s6\n  s_and_b32 s61, s7, 0xffff\n  s_movk_i32 s62, 0x1000\n  s_mov_b32 s63, 0x20000\n"
        "  " + bm + " " + sregs(16, n) + ", s[60:63], 0x180\n"
        "  s_movk_i32 s64, 0xff8\n  " + bm + " " + sregs(20, n) + ", s[60:63], s64\n"
        "  " + bm + " " + sregs(24, n) + ", s[60:63], 0x1000 glc\n  s_waitcnt lgkmcnt(0)\n  s_cmp_eq_u32 0, 0\n";
    cs.push_back({bm, bbody, [n](State& s) {
                    for (int k = 0; k < n; ++k) {
                      const u32 b = 4u * static_cast<u32>(k);
                      mw(s, 0x180u + b) = sv(s, 16 + k);
                      if (0xff8u + b + 4u <= 0x1000u) mw(s, 0xff8u + b) = sv(s, 20 + k);
                    }
                    s.scc = true;
                  }});
  }
  // A scalar store into the input buffer (read-only) and one outside every buffer fail.
  Case ro{"s_store_dword", "  s_store_dword s16, s[2:3], 0x0\n  s_waitcnt lgkmcnt(0)\n", nullptr};
  ro.expect_error = "is inside read-only buffer";
  cs.push_back(ro);
  Case outside{"s_store_dwordx4", "  s_store_dwordx4 s[16:19], s[6:7], 0x3ff8\n  s_waitcnt lgkmcnt(0)\n", nullptr};
  outside.expect_error = "is outside every buffer";
  cs.push_back(outside);

  // Cache and translation hints: no architectural effect (memory is coherent, translation the
  // identity), so the state is what the other instructions make it.
  for (const char* h : {"s_dcache_inv_vol", "s_dcache_wb_vol"})
    cs.push_back({h, std::string("  s_store_dword s16, s[6:7], 0x2f0\n  ") + h +
                         "\n  s_load_dword s40, s[6:7], 0x2f0\n  s_waitcnt lgkmcnt(0)\n",
                  [](State& s) {
                    mw(s, 0x2f0) = sv(s, 16);
                    put(s, 40, sv(s, 16));
                  }});
  cs.push_back({"s_atc_probe", "  s_atc_probe 7, s[6:7], 0x40\n  s_atc_probe 0, s[2:3], s16\n  s_mov_b32 s40, s17\n",
                [](State& s) { put(s, 40, sv(s, 17)); }});
  cs.push_back({"s_atc_probe_buffer",
                "  s_mov_b32 s60, s6\n  s_and_b32 s61, s7, 0xffff\n  s_movk_i32 s62, 0x1000\n  s_mov_b32 s63, 0x20000\n"
                "  s_atc_probe_buffer 7, s[60:63], 0x40\n  s_mov_b32 s40, s17\n  s_cmp_eq_u32 0, 0\n",
                [](State& s) {
                  put(s, 40, sv(s, 17));
                  s.scc = true;
                }});
}

// ---------------------------------------------------------------- SMEM atomics

// The new memory value of atomic `op` (guide: SMEM atomics share the buffer atomics' semantics):
// old value `m`, data `d`, compare value `c` (cmpswap), in `bits` (32 or 64) wide integers.
u64 atomic_model(const std::string& op, u64 m, u64 d, u64 c, int bits) {
  const u64 mask = bits == 32 ? 0xffffffffull : ~0ull;
  auto sgn = [bits](u64 v) { return bits == 32 ? static_cast<i64>(static_cast<i32>(static_cast<u32>(v))) : static_cast<i64>(v); };
  m &= mask;
  d &= mask;
  c &= mask;
  u64 r = m;
  if (op == "add") r = m + d;
  else if (op == "sub") r = m - d;
  else if (op == "swap") r = d;
  else if (op == "cmpswap") r = (m == c) ? d : m;
  else if (op == "umin") r = std::min(m, d);
  else if (op == "umax") r = std::max(m, d);
  else if (op == "smin") r = sgn(m) <= sgn(d) ? m : d;
  else if (op == "smax") r = sgn(m) >= sgn(d) ? m : d;
  else if (op == "and") r = m & d;
  else if (op == "or") r = m | d;
  else if (op == "xor") r = m ^ d;
  else if (op == "inc") r = (m >= d) ? 0 : m + 1;  // wraps to 0 at the data value
  else if (op == "dec") r = (m == 0 || m > d) ? d : m - 1;
  return r & mask;
}

u64 mem_word(const State& s, u32 byte, int words) {
  u64 v = s.mem.at(byte / 4);
  if (words == 2) v |= u64{s.mem.at(byte / 4 + 1)} << 32;
  return v;
}
void set_mem_word(State& s, u32 byte, int words, u64 v) {
  s.mem.at(byte / 4) = static_cast<u32>(v);
  if (words == 2) s.mem.at(byte / 4 + 1) = static_cast<u32>(v >> 32);
}

void add_atomic_cases(std::vector<Case>& cs) {
  static const char* const kOps[] = {"add", "sub", "swap", "cmpswap", "umin", "umax", "smin",
                                     "smax", "and", "or", "xor", "inc", "dec"};
  for (bool buffer : {false, true})
    for (const char* opc : kOps)
      for (int w : {1, 2}) {
        const std::string op = opc;
        const bool cmp = op == "cmpswap";
        const int regs = w * (cmp ? 2 : 1);  // data (then compare value) registers
        const std::string m = std::string(buffer ? "s_buffer_atomic_" : "s_atomic_") + op + (w == 2 ? "_x2" : "");
        const std::string base = buffer ? "s[64:67]" : "s[6:7]";
        // Instance 1 at 0x300 without return (data s[56..]); instance 2 at 0x400 with glc
        // (data s[60..], the old value comes back in s60 or s[60:61]); its compare value is the
        // current memory word, so cmpswap swaps once and fails once. Buffer form: instance 3 at
        // num_records (0x1000) is out of range: no access, glc returns 0 (s[68..]).
        std::string body;
        if (buffer)
          body += "  s_mov_b32 s64, s6\n  s_and_b32 s65, s7, 0xffff\n  s_movk_i32 s66, 0x1000\n  s_mov_b32 s67, 0x20000\n";
        body += "  s_mov_b64 s[56:57], s[16:17]\n  s_mov_b64 s[58:59], s[18:19]\n"
                "  s_mov_b64 s[60:61], s[20:21]\n  s_mov_b64 s[62:63], s[22:23]\n  s_mov_b64 s[68:69], s[24:25]\n";
        if (cmp) body += "  s_load_dword" + std::string(w == 2 ? "x2 " : " ") + sregs(60 + w, w) + ", s[6:7], 0x400\n  s_waitcnt lgkmcnt(0)\n";
        body += "  " + m + " " + sregs(56, regs) + ", " + base + ", 0x300\n";
        body += "  " + m + " " + sregs(60, regs) + ", " + base + ", 0x400 glc\n";
        if (buffer) body += "  s_movk_i32 s72, 0x1000\n  " + m + " " + sregs(68, regs) + ", " + base + ", s72 glc\n";
        body += "  s_waitcnt lgkmcnt(0)\n  s_mov_b64 s[40:41], s[56:57]\n  s_mov_b64 s[42:43], s[58:59]\n"
                "  s_mov_b64 s[44:45], s[60:61]\n  s_mov_b64 s[46:47], s[62:63]\n  s_mov_b64 s[48:49], s[68:69]\n";
        if (buffer) body += "  s_cmp_eq_u32 0, 0\n";
        // inc/dec: make instance 2 hit the wrap rule (inc: memory == data -> 0; dec: memory 0).
        auto init = [op, w](State& s) {
          if (op == "inc") set_mem_word(s, 0x400, w, sgpr_pair(s, 4) & (w == 2 ? ~0ull : 0xffffffffull));
          if (op == "dec") set_mem_word(s, 0x400, w, 0);
        };
        cs.push_back({m, body, [op, w, cmp, buffer](State& s) {
                        const int bits = 32 * w;
                        auto reg = [&](int first) { return w == 2 ? sgpr_pair(s, first - 16) : u64{sv(s, first)}; };
                        // s56..s63 and s68..s69 after the copies from s16..s25.
                        u32 r[10];
                        for (int k = 0; k < 10; ++k) r[k] = sv(s, 16 + k);
                        const u64 m1 = mem_word(s, 0x300, w);
                        set_mem_word(s, 0x300, w, atomic_model(op, m1, reg(16), reg(16 + w), bits));
                        const u64 m2 = mem_word(s, 0x400, w);
                        // cmpswap instance 2: compare value = memory before the instance.
                        const u64 c2 = cmp ? m2 : 0;
                        if (cmp) {
                          r[4 + w] = static_cast<u32>(m2);
                          if (w == 2) r[4 + w + 1] = static_cast<u32>(m2 >> 32);
                        }
                        const u64 d2 = w == 2 ? (u64{r[4]} | (u64{r[5]} << 32)) : r[4];
                        set_mem_word(s, 0x400, w, atomic_model(op, m2, d2, c2, bits));
                        r[4] = static_cast<u32>(m2);
                        if (w == 2) r[5] = static_cast<u32>(m2 >> 32);
                        if (buffer) {
                          r[8] = 0;
                          if (w == 2) r[9] = 0;
                        }
                        for (int k = 0; k < 8; ++k) put(s, 40 + k, r[k]);
                        put(s, 48, r[8]);
                        put(s, 49, r[9]);
                        if (buffer) s.scc = true;
                      },
                      Values::Int, init});
      }
  Case ro{"s_atomic_add", "  s_atomic_add s16, s[2:3], 0x0\n  s_waitcnt lgkmcnt(0)\n", nullptr};
  ro.expect_error = "is inside read-only buffer";
  cs.push_back(ro);
}

}  // namespace

void add_salu_smem_cases(std::vector<Case>& cases) {
  add_bit_cases(cases);
  add_movrel_cases(cases);
  add_gpr_idx_cases(cases);
  add_flow_cases(cases);
  add_fork_cases(cases);
  add_store_cases(cases);
  add_atomic_cases(cases);
}

}  // namespace cdna::simulator::directed
