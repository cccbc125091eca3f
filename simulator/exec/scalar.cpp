// Scalar ALU (SOP1, SOP2, SOPC, SOPK), program control (SOPP) and scalar memory (SMEM).
//
// Loads complete immediately: their data is in the registers before the next instruction runs.
// s_waitcnt waits only for the stores the memory-model mode holds back (checks/pending_stores.hpp).
#include <bit>
#include <cstring>

#include "simulator/decode/code_object.hpp"
#include "simulator/exec/handlers.hpp"
#include "simulator/exec/smem.hpp"
#include "simulator/state/wave.hpp"

namespace cdna::simulator {
namespace {

using u32 = std::uint32_t;
using u64 = std::uint64_t;
using i32 = std::int32_t;
using i64 = std::int64_t;

const Operand& D(const Inst& I) { return I.ops[0]; }
const Operand& S0(const Inst& I) { return I.ops[1]; }
const Operand& S1(const Inst& I) { return I.ops[2]; }

// ---- SOP2

template <auto F>
void sop2_32(Wave& w, const Inst& I) {  // D = F(S0, S1); SCC = D != 0
  u32 d = F(read_s32(w, S0(I)), read_s32(w, S1(I)));
  write_s32(w, D(I), d);
  w.scc = d != 0;
}
template <auto F>
void sop2_64(Wave& w, const Inst& I) {  // 64-bit logical: SCC = D != 0
  u64 d = F(read_s64(w, S0(I)), read_s64(w, S1(I)));
  write_s64(w, D(I), d);
  w.scc = d != 0;
}
template <auto F>
void sop2_64_s32(Wave& w, const Inst& I) {  // 64-bit shifts: S1 is 32-bit
  u64 d = F(read_s64(w, S0(I)), read_s32(w, S1(I)));
  write_s64(w, D(I), d);
  w.scc = d != 0;
}
template <auto F>
void sop2_32_noscc(Wave& w, const Inst& I) {
  write_s32(w, D(I), F(read_s32(w, S0(I)), read_s32(w, S1(I))));
}

void s_add_u32(Wave& w, const Inst& I) {
  u64 r = u64{read_s32(w, S0(I))} + read_s32(w, S1(I));
  write_s32(w, D(I), static_cast<u32>(r));
  w.scc = (r >> 32) != 0;
}
void s_addc_u32(Wave& w, const Inst& I) {
  u64 r = u64{read_s32(w, S0(I))} + read_s32(w, S1(I)) + (w.scc ? 1 : 0);
  write_s32(w, D(I), static_cast<u32>(r));
  w.scc = (r >> 32) != 0;
}
void s_sub_u32(Wave& w, const Inst& I) {
  u32 a = read_s32(w, S0(I)), b = read_s32(w, S1(I));
  write_s32(w, D(I), a - b);
  w.scc = b > a;
}
void s_subb_u32(Wave& w, const Inst& I) {
  u32 a = read_s32(w, S0(I)), b = read_s32(w, S1(I));
  u32 c = w.scc ? 1 : 0;
  write_s32(w, D(I), a - b - c);
  w.scc = u64{b} + c > a;
}
void s_add_i32(Wave& w, const Inst& I) {
  u32 a = read_s32(w, S0(I)), b = read_s32(w, S1(I));
  u32 d = a + b;
  write_s32(w, D(I), d);
  w.scc = ((a >> 31) == (b >> 31)) && ((a >> 31) != (d >> 31));
}
void s_sub_i32(Wave& w, const Inst& I) {
  u32 a = read_s32(w, S0(I)), b = read_s32(w, S1(I));
  u32 d = a - b;
  write_s32(w, D(I), d);
  w.scc = ((a >> 31) != (b >> 31)) && ((a >> 31) != (d >> 31));
}
template <bool Max, bool Signed>
void s_minmax(Wave& w, const Inst& I) {
  u32 a = read_s32(w, S0(I)), b = read_s32(w, S1(I));
  // CDNA3 ISA guide 12.1: min selects S0 iff S0 < S1, max iff S0 >= S1 (a tie sets SCC).
  bool first = Signed ? (Max ? static_cast<i32>(a) >= static_cast<i32>(b)
                             : static_cast<i32>(a) < static_cast<i32>(b))
                      : (Max ? a >= b : a < b);
  write_s32(w, D(I), first ? a : b);
  w.scc = first;
}
void s_cselect_b32(Wave& w, const Inst& I) {
  write_s32(w, D(I), w.scc ? read_s32(w, S0(I)) : read_s32(w, S1(I)));
}
void s_cselect_b64(Wave& w, const Inst& I) {
  write_s64(w, D(I), w.scc ? read_s64(w, S0(I)) : read_s64(w, S1(I)));
}
template <bool Signed>
void s_bfe32(Wave& w, const Inst& I) {
  u32 s = read_s32(w, S0(I)), c = read_s32(w, S1(I));
  u32 off = c & 31, width = (c >> 16) & 0x7f;
  u32 d;
  if (width == 0) {
    d = 0;
  } else {
    u64 field = (u64{s} >> off) & ((width >= 32) ? 0xffffffffull : ((1ull << width) - 1));
    if (Signed && width < 32 && ((field >> (width - 1)) & 1)) field |= ~((1ull << width) - 1);
    d = static_cast<u32>(field);
  }
  write_s32(w, D(I), d);
  w.scc = d != 0;
}
template <bool Signed>
void s_bfe64(Wave& w, const Inst& I) {
  u64 s = read_s64(w, S0(I));
  u32 c = read_s32(w, S1(I));
  u32 off = c & 63, width = (c >> 16) & 0x7f;
  u64 d;
  if (width == 0) {
    d = 0;
  } else {
    u64 field = s >> off;
    if (width < 64) {
      field &= (1ull << width) - 1;
      if (Signed && ((field >> (width - 1)) & 1)) field |= ~((1ull << width) - 1);
    }
    d = field;
  }
  write_s64(w, D(I), d);
  w.scc = d != 0;
}
template <int N>
void s_lshl_add(Wave& w, const Inst& I) {
  u64 r = (u64{read_s32(w, S0(I))} << N) + read_s32(w, S1(I));
  write_s32(w, D(I), static_cast<u32>(r));
  w.scc = (r >> 32) != 0;
}

// ---- SOP1

template <auto F>
void sop1_32(Wave& w, const Inst& I) {
  u32 d = F(read_s32(w, S0(I)));
  write_s32(w, D(I), d);
  w.scc = d != 0;
}
template <auto F>
void sop1_64(Wave& w, const Inst& I) {
  u64 d = F(read_s64(w, S0(I)));
  write_s64(w, D(I), d);
  w.scc = d != 0;
}
template <auto F>
void sop1_32_noscc(Wave& w, const Inst& I) {
  write_s32(w, D(I), F(read_s32(w, S0(I))));
}
template <auto F>
void sop1_64_to32_noscc(Wave& w, const Inst& I) {
  write_s32(w, D(I), F(read_s64(w, S0(I))));
}
template <auto F>
void sop1_64_to32_scc(Wave& w, const Inst& I) {  // bcnt
  u32 d = F(read_s64(w, S0(I)));
  write_s32(w, D(I), d);
  w.scc = d != 0;
}
void s_mov_b32(Wave& w, const Inst& I) { write_s32(w, D(I), read_s32(w, S0(I))); }
void s_mov_b64(Wave& w, const Inst& I) { write_s64(w, D(I), read_s64(w, S0(I))); }
void s_cmov_b32(Wave& w, const Inst& I) {
  if (w.scc) write_s32(w, D(I), read_s32(w, S0(I)));
}
void s_cmov_b64(Wave& w, const Inst& I) {
  if (w.scc) write_s64(w, D(I), read_s64(w, S0(I)));
}
void s_bitset_b32(Wave& w, const Inst& I, bool one) {
  u32 bit = read_s32(w, S0(I)) & 31;
  u32 d = w.s[D(I).reg];
  d = one ? d | (1u << bit) : d & ~(1u << bit);
  write_s32(w, D(I), d);
}
void s_bitset0_b32(Wave& w, const Inst& I) { s_bitset_b32(w, I, false); }
void s_bitset1_b32(Wave& w, const Inst& I) { s_bitset_b32(w, I, true); }
void s_bitset_b64(Wave& w, const Inst& I, bool one) {
  u32 bit = read_s32(w, S0(I)) & 63;
  u64 d = read_s64(w, D(I));
  d = one ? d | (1ull << bit) : d & ~(1ull << bit);
  write_s64(w, D(I), d);
}
void s_bitset0_b64(Wave& w, const Inst& I) { s_bitset_b64(w, I, false); }
void s_bitset1_b64(Wave& w, const Inst& I) { s_bitset_b64(w, I, true); }

void s_getpc_b64(Wave& w, const Inst& I) { write_s64(w, D(I), kCodeBase + I.address + 4); }

void s_setpc_b64(Wave& w, const Inst& I) { jump_to(w, read_s64(w, I.ops[0])); }
void s_swappc_b64(Wave& w, const Inst& I) {
  u64 target = read_s64(w, S0(I));
  write_s64(w, D(I), kCodeBase + I.address + 4);
  jump_to(w, target);
}

template <auto F>
void saveexec(Wave& w, const Inst& I) {  // D = EXEC; EXEC = F(S0, EXEC); SCC = EXEC != 0
  u64 s = read_s64(w, S0(I));
  u64 e = w.exec();
  u64 ne = F(s, e);
  write_s64(w, D(I), e);
  w.set_exec(ne);
  w.scc = ne != 0;
}
template <auto F>
void wrexec(Wave& w, const Inst& I) {  // EXEC = F(S0, EXEC); D = EXEC; SCC = EXEC != 0
  u64 ne = F(read_s64(w, S0(I)), w.exec());
  w.set_exec(ne);
  write_s64(w, D(I), ne);
  w.scc = ne != 0;
}

// ---- SOPC

template <auto F>
void sopc_32(Wave& w, const Inst& I) {
  w.scc = F(read_s32(w, I.ops[0]), read_s32(w, I.ops[1]));
}
template <auto F>
void sopc_64(Wave& w, const Inst& I) {
  w.scc = F(read_s64(w, I.ops[0]), read_s64(w, I.ops[1]));
}
template <bool One>
void s_bitcmp_b64(Wave& w, const Inst& I) {
  u64 v = read_s64(w, I.ops[0]);
  u32 b = read_s32(w, I.ops[1]) & 63;
  w.scc = ((v >> b) & 1) == (One ? 1u : 0u);
}

// ---- SOPK

void s_movk_i32(Wave& w, const Inst& I) { write_s32(w, D(I), static_cast<u32>(I.simm)); }
void s_cmovk_i32(Wave& w, const Inst& I) {
  if (w.scc) write_s32(w, D(I), static_cast<u32>(I.simm));
}
template <auto F, bool Signed>
void s_cmpk(Wave& w, const Inst& I) {
  u32 a = read_s32(w, I.ops[0]);
  u32 k = Signed ? static_cast<u32>(I.simm) : (static_cast<u32>(I.simm) & 0xffffu);
  w.scc = F(a, k);
}
void s_addk_i32(Wave& w, const Inst& I) {
  u32 a = w.s[D(I).reg], b = static_cast<u32>(I.simm);
  u32 d = a + b;
  write_s32(w, D(I), d);
  w.scc = ((a >> 31) == (b >> 31)) && ((a >> 31) != (d >> 31));
}
void s_mulk_i32(Wave& w, const Inst& I) {
  write_s32(w, D(I), w.s[D(I).reg] * static_cast<u32>(I.simm));
}

constexpr int kHwRegMode = 1;

u32 hwreg_mask(const Inst& I) {
  u32 size = ((static_cast<u32>(I.simm) >> 11) & 31) + 1;
  return size == 32 ? ~0u : ((1u << size) - 1);
}
u32 hwreg_offset(const Inst& I) { return (static_cast<u32>(I.simm) >> 6) & 31; }
int hwreg_id(const Inst& I) { return I.simm & 63; }

void s_getreg_b32(Wave& w, const Inst& I) {
  u32 value;
  switch (hwreg_id(I)) {
    case kHwRegMode: value = w.mode; break;
    // Informational registers (wave/SIMD/CU/XCC placement): the simulator has no placement;
    // they read as 0.
    case 4: case 20: value = 0; break;
    default:
      sim_fail("s_getreg_b32 of hardware register " + std::to_string(hwreg_id(I)) +
               " is not supported (MODE, HW_ID and XCC_ID are)");
  }
  write_s32(w, D(I), (value >> hwreg_offset(I)) & hwreg_mask(I));
}
void set_hwreg(Wave& w, const Inst& I, u32 value) {
  if (hwreg_id(I) != kHwRegMode)
    sim_fail("s_setreg of hardware register " + std::to_string(hwreg_id(I)) +
             " is not supported (only HW_REG_MODE is)");
  u32 mask = hwreg_mask(I) << hwreg_offset(I);
  w.mode = (w.mode & ~mask) | ((value << hwreg_offset(I)) & mask);
}
void s_setreg_b32(Wave& w, const Inst& I) { set_hwreg(w, I, read_s32(w, I.ops[0])); }
void s_setreg_imm32_b32(Wave& w, const Inst& I) { set_hwreg(w, I, read_s32(w, I.ops[0])); }

// ---- SOPP

void s_nop(Wave&, const Inst&) {}
// Loads complete at once; in the memory-model mode stores may still be pending
// (checks/pending_stores.hpp): until at most vmcnt (I.simm) operations are outstanding the wave stalls
// here, retrying in its next turn (the scheduler ends a turn whose pc does not advance).
void s_waitcnt(Wave& w, const Inst& I) {
  if (w.env->caches && !w.pending.met(static_cast<std::uint32_t>(I.simm))) --w.pc;
}
void s_endpgm(Wave& w, const Inst&) { w.state = WaveState::Done; }
void s_branch(Wave& w, const Inst& I) { w.pc = I.target; }
void s_cbranch_scc0(Wave& w, const Inst& I) { if (!w.scc) w.pc = I.target; }
void s_cbranch_scc1(Wave& w, const Inst& I) { if (w.scc) w.pc = I.target; }
void s_cbranch_vccz(Wave& w, const Inst& I) { if (w.vcc() == 0) w.pc = I.target; }
void s_cbranch_vccnz(Wave& w, const Inst& I) { if (w.vcc() != 0) w.pc = I.target; }
void s_cbranch_execz(Wave& w, const Inst& I) { if (w.exec() == 0) w.pc = I.target; }
void s_cbranch_execnz(Wave& w, const Inst& I) { if (w.exec() != 0) w.pc = I.target; }
void s_barrier(Wave& w, const Inst&) {
  w.state = WaveState::AtBarrier;
  ++w.wg->waves_at_barrier;
}
void s_setprio(Wave& w, const Inst& I) { w.priority = static_cast<u32>(I.simm) & 3; }
void s_trap(Wave&, const Inst& I) {
  sim_fail("s_trap " + std::to_string(I.simm) + " executed (a device-side trap: assert or abort)");
}
// CDNA3 ISA guide 12.5: HALT = SIMM16[0]; `s_sethalt 0` only clears the bit (no effect here).
void s_sethalt(Wave&, const Inst& I) {
  if (I.simm & 1) sim_fail("s_sethalt 1 executed (the wave would halt)");
}

// ---- SMEM

// In the memory-model mode the bytes come through the CU's scalar cache (checks/memory_model.hpp); glc
// (which asks for a coherent read) is refused there rather than guessed.
void smem_read(Wave& w, u64 addr, u32* dst, u32 n, const Inst& I) {
  addr &= ~u64{3};  // scalar memory accesses are dword aligned
  std::uint8_t* p = w.env->memory->translate(addr, 4 * n, false);
  if (!p) sim_fail("scalar " + w.env->memory->describe_fault(addr, 4 * n, false));
  if (CacheModel* c = w.env->caches) [[unlikely]] {
    if (I.sc0)
      sim_fail("scalar load with glc under --memory-model cdna3: what glc does to the scalar cache is not "
               "modelled; poll with a vector load (sc1) or invalidate with s_dcache_inv");
    return c->scalar_load(w.wg->cu, addr, 4 * n, dst);
  }
  std::memcpy(dst, p, 4 * n);
}

// s_dcache_inv: drops the CU's scalar cache in the memory-model mode (memory is coherent otherwise).
void s_dcache_inv(Wave& w, const Inst&) {
  if (w.env->caches) w.env->caches->scalar_invalidate(w.wg->cu);
}

template <u32 N>
void s_load(Wave& w, const Inst& I) {
  u64 base = read_s64(w, S0(I));
  u32 tmp[16];
  smem_read(w, base + smem_offset(w, I), tmp, N, I);
  for (u32 i = 0; i < N; ++i) w.s[D(I).reg + i] = tmp[i];
}

template <u32 N>
void s_buffer_load(Wave& w, const Inst& I) {
  const auto [base, num_records] = scalar_buffer(w, S0(I));
  u64 off = smem_offset(w, I) & ~u64{3};
  for (u32 i = 0; i < N; ++i) {
    u64 o = off + 4 * i;
    u32 v = 0;
    if (o + 4 <= num_records) smem_read(w, base + o, &v, 1, I);  // out of range reads 0
    w.s[D(I).reg + i] = v;
  }
}

void s_memtime(Wave& w, const Inst& I) { write_s64(w, D(I), w.instructions); }

}  // namespace

void jump_to(Wave& w, std::uint64_t target) {
  const Program& p = *w.env->program;
  auto it = p.index_of.find(target - kCodeBase);
  if (it == p.index_of.end())
    sim_fail("indirect jump to " + hex(target) +
             ", which is not decoded code of this kernel (only code reachable by direct "
             "branches from the entry is decoded)");
  w.pc = it->second;
}
void register_scalar(HandlerTable& t) {
  auto set = [&](Opcode op, Handler h) { t[static_cast<std::size_t>(op)] = h; };
  using O = Opcode;
  // SOP2
  set(O::s_add_u32, s_add_u32);
  set(O::s_sub_u32, s_sub_u32);
  set(O::s_add_i32, s_add_i32);
  set(O::s_sub_i32, s_sub_i32);
  set(O::s_addc_u32, s_addc_u32);
  set(O::s_subb_u32, s_subb_u32);
  set(O::s_min_i32, s_minmax<false, true>);
  set(O::s_min_u32, s_minmax<false, false>);
  set(O::s_max_i32, s_minmax<true, true>);
  set(O::s_max_u32, s_minmax<true, false>);
  set(O::s_cselect_b32, s_cselect_b32);
  set(O::s_cselect_b64, s_cselect_b64);
  set(O::s_and_b32, sop2_32<([](u32 a, u32 b) { return a & b; })>);
  set(O::s_and_b64, sop2_64<([](u64 a, u64 b) { return a & b; })>);
  set(O::s_or_b32, sop2_32<([](u32 a, u32 b) { return a | b; })>);
  set(O::s_or_b64, sop2_64<([](u64 a, u64 b) { return a | b; })>);
  set(O::s_xor_b32, sop2_32<([](u32 a, u32 b) { return a ^ b; })>);
  set(O::s_xor_b64, sop2_64<([](u64 a, u64 b) { return a ^ b; })>);
  set(O::s_andn2_b32, sop2_32<([](u32 a, u32 b) { return a & ~b; })>);
  set(O::s_andn2_b64, sop2_64<([](u64 a, u64 b) { return a & ~b; })>);
  set(O::s_orn2_b32, sop2_32<([](u32 a, u32 b) { return a | ~b; })>);
  set(O::s_orn2_b64, sop2_64<([](u64 a, u64 b) { return a | ~b; })>);
  set(O::s_nand_b32, sop2_32<([](u32 a, u32 b) { return ~(a & b); })>);
  set(O::s_nand_b64, sop2_64<([](u64 a, u64 b) { return ~(a & b); })>);
  set(O::s_nor_b32, sop2_32<([](u32 a, u32 b) { return ~(a | b); })>);
  set(O::s_nor_b64, sop2_64<([](u64 a, u64 b) { return ~(a | b); })>);
  set(O::s_xnor_b32, sop2_32<([](u32 a, u32 b) { return ~(a ^ b); })>);
  set(O::s_xnor_b64, sop2_64<([](u64 a, u64 b) { return ~(a ^ b); })>);
  set(O::s_lshl_b32, sop2_32<([](u32 a, u32 b) { return a << (b & 31); })>);
  set(O::s_lshl_b64, sop2_64_s32<([](u64 a, u32 b) { return a << (b & 63); })>);
  set(O::s_lshr_b32, sop2_32<([](u32 a, u32 b) { return a >> (b & 31); })>);
  set(O::s_lshr_b64, sop2_64_s32<([](u64 a, u32 b) { return a >> (b & 63); })>);
  set(O::s_ashr_i32, sop2_32<([](u32 a, u32 b) { return static_cast<u32>(static_cast<i32>(a) >> (b & 31)); })>);
  set(O::s_ashr_i64, sop2_64_s32<([](u64 a, u32 b) { return static_cast<u64>(static_cast<i64>(a) >> (b & 63)); })>);
  set(O::s_bfm_b32, sop2_32_noscc<([](u32 a, u32 b) { return static_cast<u32>(((1ull << (a & 31)) - 1) << (b & 31)); })>);
  set(O::s_bfm_b64, [](Wave& w, const Inst& I) {
    u32 a = read_s32(w, S0(I)) & 63, b = read_s32(w, S1(I)) & 63;
    write_s64(w, D(I), (a == 0 ? 0 : (~0ull >> (64 - a))) << b);
  });
  set(O::s_mul_i32, sop2_32_noscc<([](u32 a, u32 b) { return a * b; })>);
  set(O::s_mul_hi_u32, sop2_32_noscc<([](u32 a, u32 b) { return static_cast<u32>((u64{a} * b) >> 32); })>);
  set(O::s_mul_hi_i32, sop2_32_noscc<([](u32 a, u32 b) {
        return static_cast<u32>(static_cast<u64>(i64{static_cast<i32>(a)} * static_cast<i32>(b)) >> 32); })>);
  set(O::s_bfe_u32, s_bfe32<false>);
  set(O::s_bfe_i32, s_bfe32<true>);
  set(O::s_bfe_u64, s_bfe64<false>);
  set(O::s_bfe_i64, s_bfe64<true>);
  // CDNA3 ISA guide 12.1: the difference wraps to 32 bits before the absolute value
  // (its examples: (0x80000000, 1) => 0x7fffffff, (0x80000000, 0) => 0x80000000).
  set(O::s_absdiff_i32, sop2_32<([](u32 a, u32 b) {
        const u32 d = a - b;
        return static_cast<i32>(d) < 0 ? 0u - d : d; })>);
  set(O::s_lshl1_add_u32, s_lshl_add<1>);
  set(O::s_lshl2_add_u32, s_lshl_add<2>);
  set(O::s_lshl3_add_u32, s_lshl_add<3>);
  set(O::s_lshl4_add_u32, s_lshl_add<4>);
  set(O::s_pack_ll_b32_b16, sop2_32_noscc<([](u32 a, u32 b) { return (a & 0xffff) | (b << 16); })>);
  set(O::s_pack_lh_b32_b16, sop2_32_noscc<([](u32 a, u32 b) { return (a & 0xffff) | (b & 0xffff0000u); })>);
  set(O::s_pack_hh_b32_b16, sop2_32_noscc<([](u32 a, u32 b) { return (a >> 16) | (b & 0xffff0000u); })>);
  // SOP1
  set(O::s_mov_b32, s_mov_b32);
  set(O::s_mov_b64, s_mov_b64);
  set(O::s_cmov_b32, s_cmov_b32);
  set(O::s_cmov_b64, s_cmov_b64);
  set(O::s_not_b32, sop1_32<([](u32 a) { return ~a; })>);
  set(O::s_not_b64, sop1_64<([](u64 a) { return ~a; })>);
  set(O::s_wqm_b32, sop1_32<([](u32 a) {
        u32 d = 0;
        for (int q = 0; q < 8; ++q) if ((a >> (4 * q)) & 0xf) d |= 0xfu << (4 * q);
        return d; })>);
  set(O::s_wqm_b64, sop1_64<([](u64 a) {
        u64 d = 0;
        for (int q = 0; q < 16; ++q) if ((a >> (4 * q)) & 0xf) d |= 0xfull << (4 * q);
        return d; })>);
  set(O::s_brev_b32, sop1_32_noscc<([](u32 a) {
        u32 d = 0;
        for (int i = 0; i < 32; ++i) d |= ((a >> i) & 1) << (31 - i);
        return d; })>);
  set(O::s_brev_b64, [](Wave& w, const Inst& I) {
    u64 a = read_s64(w, S0(I)), d = 0;
    for (int i = 0; i < 64; ++i) d |= ((a >> i) & 1) << (63 - i);
    write_s64(w, D(I), d);
  });
  set(O::s_bcnt0_i32_b32, sop1_32<([](u32 a) { return static_cast<u32>(std::popcount(~a)); })>);
  set(O::s_bcnt0_i32_b64, sop1_64_to32_scc<([](u64 a) { return static_cast<u32>(std::popcount(~a)); })>);
  set(O::s_bcnt1_i32_b32, sop1_32<([](u32 a) { return static_cast<u32>(std::popcount(a)); })>);
  set(O::s_bcnt1_i32_b64, sop1_64_to32_scc<([](u64 a) { return static_cast<u32>(std::popcount(a)); })>);
  set(O::s_ff0_i32_b32, sop1_32_noscc<([](u32 a) { return ~a ? static_cast<u32>(std::countr_zero(~a)) : ~0u; })>);
  set(O::s_ff0_i32_b64, sop1_64_to32_noscc<([](u64 a) { return ~a ? static_cast<u32>(std::countr_zero(~a)) : ~0u; })>);
  set(O::s_ff1_i32_b32, sop1_32_noscc<([](u32 a) { return a ? static_cast<u32>(std::countr_zero(a)) : ~0u; })>);
  set(O::s_ff1_i32_b64, sop1_64_to32_noscc<([](u64 a) { return a ? static_cast<u32>(std::countr_zero(a)) : ~0u; })>);
  set(O::s_flbit_i32_b32, sop1_32_noscc<([](u32 a) { return a ? static_cast<u32>(std::countl_zero(a)) : ~0u; })>);
  set(O::s_flbit_i32_b64, sop1_64_to32_noscc<([](u64 a) { return a ? static_cast<u32>(std::countl_zero(a)) : ~0u; })>);
  set(O::s_flbit_i32, sop1_32_noscc<([](u32 a) {
        u32 x = (a >> 31) ? ~a : a;
        return (a == 0 || a == ~0u) ? ~0u : static_cast<u32>(std::countl_zero(x)); })>);
  set(O::s_flbit_i32_i64, sop1_64_to32_noscc<([](u64 a) {
        u64 x = (a >> 63) ? ~a : a;
        return (a == 0 || a == ~0ull) ? ~0u : static_cast<u32>(std::countl_zero(x)); })>);
  set(O::s_sext_i32_i8, sop1_32_noscc<([](u32 a) { return static_cast<u32>(static_cast<i32>(static_cast<std::int8_t>(a))); })>);
  set(O::s_sext_i32_i16, sop1_32_noscc<([](u32 a) { return static_cast<u32>(static_cast<i32>(static_cast<std::int16_t>(a))); })>);
  set(O::s_bitset0_b32, s_bitset0_b32);
  set(O::s_bitset1_b32, s_bitset1_b32);
  set(O::s_bitset0_b64, s_bitset0_b64);
  set(O::s_bitset1_b64, s_bitset1_b64);
  set(O::s_getpc_b64, s_getpc_b64);
  set(O::s_setpc_b64, s_setpc_b64);
  set(O::s_swappc_b64, s_swappc_b64);
  set(O::s_abs_i32, sop1_32<([](u32 a) { return static_cast<i32>(a) < 0 ? 0u - a : a; })>);
  set(O::s_and_saveexec_b64, saveexec<([](u64 s, u64 e) { return s & e; })>);
  set(O::s_or_saveexec_b64, saveexec<([](u64 s, u64 e) { return s | e; })>);
  set(O::s_xor_saveexec_b64, saveexec<([](u64 s, u64 e) { return s ^ e; })>);
  set(O::s_andn2_saveexec_b64, saveexec<([](u64 s, u64 e) { return s & ~e; })>);
  set(O::s_orn2_saveexec_b64, saveexec<([](u64 s, u64 e) { return s | ~e; })>);
  set(O::s_nand_saveexec_b64, saveexec<([](u64 s, u64 e) { return ~(s & e); })>);
  set(O::s_nor_saveexec_b64, saveexec<([](u64 s, u64 e) { return ~(s | e); })>);
  set(O::s_xnor_saveexec_b64, saveexec<([](u64 s, u64 e) { return ~(s ^ e); })>);
  set(O::s_andn1_saveexec_b64, saveexec<([](u64 s, u64 e) { return ~s & e; })>);
  set(O::s_orn1_saveexec_b64, saveexec<([](u64 s, u64 e) { return ~s | e; })>);
  set(O::s_andn1_wrexec_b64, wrexec<([](u64 s, u64 e) { return ~s & e; })>);
  set(O::s_andn2_wrexec_b64, wrexec<([](u64 s, u64 e) { return s & ~e; })>);
  // SOPC
  set(O::s_cmp_eq_i32, sopc_32<([](u32 a, u32 b) { return a == b; })>);
  set(O::s_cmp_lg_i32, sopc_32<([](u32 a, u32 b) { return a != b; })>);
  set(O::s_cmp_gt_i32, sopc_32<([](u32 a, u32 b) { return static_cast<i32>(a) > static_cast<i32>(b); })>);
  set(O::s_cmp_ge_i32, sopc_32<([](u32 a, u32 b) { return static_cast<i32>(a) >= static_cast<i32>(b); })>);
  set(O::s_cmp_lt_i32, sopc_32<([](u32 a, u32 b) { return static_cast<i32>(a) < static_cast<i32>(b); })>);
  set(O::s_cmp_le_i32, sopc_32<([](u32 a, u32 b) { return static_cast<i32>(a) <= static_cast<i32>(b); })>);
  set(O::s_cmp_eq_u32, sopc_32<([](u32 a, u32 b) { return a == b; })>);
  set(O::s_cmp_lg_u32, sopc_32<([](u32 a, u32 b) { return a != b; })>);
  set(O::s_cmp_gt_u32, sopc_32<([](u32 a, u32 b) { return a > b; })>);
  set(O::s_cmp_ge_u32, sopc_32<([](u32 a, u32 b) { return a >= b; })>);
  set(O::s_cmp_lt_u32, sopc_32<([](u32 a, u32 b) { return a < b; })>);
  set(O::s_cmp_le_u32, sopc_32<([](u32 a, u32 b) { return a <= b; })>);
  set(O::s_cmp_eq_u64, sopc_64<([](u64 a, u64 b) { return a == b; })>);
  set(O::s_cmp_lg_u64, sopc_64<([](u64 a, u64 b) { return a != b; })>);
  set(O::s_bitcmp0_b32, sopc_32<([](u32 a, u32 b) { return ((a >> (b & 31)) & 1) == 0; })>);
  set(O::s_bitcmp1_b32, sopc_32<([](u32 a, u32 b) { return ((a >> (b & 31)) & 1) == 1; })>);
  set(O::s_bitcmp0_b64, s_bitcmp_b64<false>);
  set(O::s_bitcmp1_b64, s_bitcmp_b64<true>);
  // SOPK
  set(O::s_movk_i32, s_movk_i32);
  set(O::s_cmovk_i32, s_cmovk_i32);
  set(O::s_cmpk_eq_i32, s_cmpk<([](u32 a, u32 b) { return a == b; }), true>);
  set(O::s_cmpk_lg_i32, s_cmpk<([](u32 a, u32 b) { return a != b; }), true>);
  set(O::s_cmpk_gt_i32, s_cmpk<([](u32 a, u32 b) { return static_cast<i32>(a) > static_cast<i32>(b); }), true>);
  set(O::s_cmpk_ge_i32, s_cmpk<([](u32 a, u32 b) { return static_cast<i32>(a) >= static_cast<i32>(b); }), true>);
  set(O::s_cmpk_lt_i32, s_cmpk<([](u32 a, u32 b) { return static_cast<i32>(a) < static_cast<i32>(b); }), true>);
  set(O::s_cmpk_le_i32, s_cmpk<([](u32 a, u32 b) { return static_cast<i32>(a) <= static_cast<i32>(b); }), true>);
  set(O::s_cmpk_eq_u32, s_cmpk<([](u32 a, u32 b) { return a == b; }), false>);
  set(O::s_cmpk_lg_u32, s_cmpk<([](u32 a, u32 b) { return a != b; }), false>);
  set(O::s_cmpk_gt_u32, s_cmpk<([](u32 a, u32 b) { return a > b; }), false>);
  set(O::s_cmpk_ge_u32, s_cmpk<([](u32 a, u32 b) { return a >= b; }), false>);
  set(O::s_cmpk_lt_u32, s_cmpk<([](u32 a, u32 b) { return a < b; }), false>);
  set(O::s_cmpk_le_u32, s_cmpk<([](u32 a, u32 b) { return a <= b; }), false>);
  set(O::s_addk_i32, s_addk_i32);
  set(O::s_mulk_i32, s_mulk_i32);
  set(O::s_getreg_b32, s_getreg_b32);
  set(O::s_setreg_b32, s_setreg_b32);
  set(O::s_setreg_imm32_b32, s_setreg_imm32_b32);
  // SOPP
  set(O::s_nop, s_nop);
  set(O::s_endpgm, s_endpgm);
  set(O::s_branch, s_branch);
  set(O::s_cbranch_scc0, s_cbranch_scc0);
  set(O::s_cbranch_scc1, s_cbranch_scc1);
  set(O::s_cbranch_vccz, s_cbranch_vccz);
  set(O::s_cbranch_vccnz, s_cbranch_vccnz);
  set(O::s_cbranch_execz, s_cbranch_execz);
  set(O::s_cbranch_execnz, s_cbranch_execnz);
  set(O::s_barrier, s_barrier);
  set(O::s_waitcnt, s_waitcnt);
  set(O::s_sleep, s_nop);
  set(O::s_setprio, s_setprio);
  set(O::s_icache_inv, s_nop);
  set(O::s_incperflevel, s_nop);
  set(O::s_decperflevel, s_nop);
  set(O::s_trap, s_trap);
  set(O::s_sethalt, s_sethalt);
  // SMEM
  set(O::s_load_dword, s_load<1>);
  set(O::s_load_dwordx2, s_load<2>);
  set(O::s_load_dwordx4, s_load<4>);
  set(O::s_load_dwordx8, s_load<8>);
  set(O::s_load_dwordx16, s_load<16>);
  set(O::s_buffer_load_dword, s_buffer_load<1>);
  set(O::s_buffer_load_dwordx2, s_buffer_load<2>);
  set(O::s_buffer_load_dwordx4, s_buffer_load<4>);
  set(O::s_buffer_load_dwordx8, s_buffer_load<8>);
  set(O::s_buffer_load_dwordx16, s_buffer_load<16>);
  set(O::s_memtime, s_memtime);
  set(O::s_memrealtime, s_memtime);
  set(O::s_dcache_inv, s_dcache_inv);
  set(O::s_dcache_wb, s_nop);
}

}  // namespace cdna::simulator
