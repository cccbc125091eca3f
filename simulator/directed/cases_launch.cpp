// Directed cases for facts the shipped peer kernels reach (issue 10 §2): the unified VGPR
// file, where v[n] for n >= ACCUM_OFFSET is the row of a[n - ACCUM_OFFSET] (the case kernels
// allocate 256 rows with ACCUM_OFFSET 128, harness.cpp), in both directions and through a
// ds_read_b128 into v[160:163] as AITER's FMHA v3 does. Sources: simulator/README.md "Unified
// VGPR file". s_nop 7 between a write and the aliased read keeps every hazard rule satisfied
// (the hazard checker works on rows, so an alias is the same register to it).
// Also v_pk_fma_f32 with inline-constant operands, which clang emits (exec/valu_misc.cpp): a
// constant read with half select 0 is its 32-bit value in either element; half select 1 of a
// constant is refused. The model is the host's fmaf (one rounding, to nearest even, the
// hardware's default MODE), on inputs made normal floats of moderate size.
#include <bit>
#include <cmath>
#include <string>

#include "simulator/directed/cases.hpp"

namespace cdna::simulator::directed {
namespace {

u32& out(State& s, int k, int l) { return s.vout[static_cast<std::size_t>(k)][static_cast<std::size_t>(l)]; }
u32 in(const State& s, int k, int l) { return s.vin[static_cast<std::size_t>(k)][static_cast<std::size_t>(l)]; }
float fin(const State& s, int k, int l) { return std::bit_cast<float>(in(s, k, l)); }
// v10, v11: normal floats in [-64, 64) with 12 significant bits (no NaN, inf or denormal).
void moderate(State& s) {
  for (int k = 0; k < 2; ++k)
    for (auto& x : s.vin[static_cast<std::size_t>(k)]) x = std::bit_cast<u32>(static_cast<float>(static_cast<int>(x % 8192u) - 4096) / 64.0f + 0.25f);
}

}  // namespace

void add_launch_cases(std::vector<Case>& cs) {
  // v write -> a read: v130 is a2.
  cs.push_back({"v_accvgpr_read_b32", "  v_mov_b32 v130, v10\n  s_nop 7\n  v_accvgpr_read_b32 v32, a2\n", [](State& s) {
                  for (int l = 0; l < kLanes; ++l) out(s, 0, l) = in(s, 0, l);
                }});
  // a write -> v read: a3 is v131.
  cs.push_back({"v_accvgpr_write_b32", "  v_accvgpr_write_b32 a3, v11\n  s_nop 7\n  v_mov_b32 v32, v131\n", [](State& s) {
                  for (int l = 0; l < kLanes; ++l) out(s, 0, l) = in(s, 1, l);
                }});
  // ds_read_b128 into v[160:163] (= a[32:35]), read back through the AGPR names.
  cs.push_back({"ds_read_b128",
                "  v_lshlrev_b32 v64, 4, v0\n  ds_write_b128 v64, v[10:13]\n  s_waitcnt lgkmcnt(0)\n"
                "  ds_read_b128 v[160:163], v64\n  s_waitcnt lgkmcnt(0)\n  s_nop 7\n"
                "  v_accvgpr_read_b32 v32, a32\n  v_accvgpr_read_b32 v33, a33\n"
                "  v_accvgpr_read_b32 v34, a34\n  v_accvgpr_read_b32 v35, a35\n",
                [](State& s) {
                  for (int l = 0; l < kLanes; ++l)
                    for (int k = 0; k < 4; ++k) out(s, k, l) = in(s, k, l);
                }});
  // Inline constants in src1/src2 (op_sel_hi 0 there, as LLVM emits) and in src0 (op_sel_hi 0).
  cs.push_back({"v_pk_fma_f32",
                "  v_pk_fma_f32 v[32:33], v[10:11], 2.0, 1.0 op_sel_hi:[1,0,0]\n"
                "  v_pk_fma_f32 v[34:35], 4.0, v[10:11], 0.5 op_sel_hi:[0,1,0]\n",
                [](State& s) {
                  for (int l = 0; l < kLanes; ++l)
                    for (int h = 0; h < 2; ++h) {
                      out(s, h, l) = std::bit_cast<u32>(std::fmaf(fin(s, h, l), 2.0f, 1.0f));
                      out(s, 2 + h, l) = std::bit_cast<u32>(std::fmaf(4.0f, fin(s, h, l), 0.5f));
                    }
                },
                Values::Int, moderate});
  // The default op_sel_hi (1) on a constant reads its unpublished high half: refused.
  cs.push_back({"v_pk_fma_f32", "  v_pk_fma_f32 v[32:33], v[10:11], 2.0, 1.0\n", nullptr, Values::Int, moderate,
                "high half of an inline constant"});
}

}  // namespace cdna::simulator::directed
