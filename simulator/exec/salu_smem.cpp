// The rarer SALU instructions (M0-relative SGPR moves, quad masks, bit replication, s_call_b64,
// fork/join, VGPR index mode, VSKIP, s_wakeup) and the SMEM stores, atomics and cache/translation hints.
// Semantics: CDNA3 ISA guide, chapter 12 (SOP1/SOPC/SOPK/SOPP opcode pseudo-code) and the
// "Scalar Memory Operations" chapter; VGPR index mode: the guide's GPR-indexing description and
// LLVM's AMDGPU docs (gfx940 imask: M0 bits 12..15 = SRC0, SRC1, SRC2, DST).
#include <bit>
#include <cstring>

#include "simulator/exec/smem.hpp"
#include "simulator/exec/handlers.hpp"
#include "simulator/state/wave.hpp"

namespace cdna::simulator {

void exec_sdwa(Wave& w, const Inst& I);
void exec_dpp(Wave& w, const Inst& I);

namespace {

using u32 = std::uint32_t;
using u64 = std::uint64_t;
using i32 = std::int32_t;
using i64 = std::int64_t;

constexpr std::uint8_t kGprIdx = 1, kVskip = 2;  // Wave::vector_mode bits

// ---- SOP1

template <int Quads>
void s_quadmask(Wave& w, const Inst& I) {  // D bit q = any bit of quad q of S0; SCC = D != 0
  const u64 s = Quads == 8 ? read_s32(w, I.ops[1]) : read_s64(w, I.ops[1]);
  u64 d = 0;
  for (int q = 0; q < Quads; ++q) d |= u64{((s >> (4 * q)) & 0xf) != 0} << q;
  if (Quads == 8) write_s32(w, I.ops[0], static_cast<u32>(d));
  else write_s64(w, I.ops[0], d);
  w.scc = d != 0;
}

void s_bitreplicate_b64_b32(Wave& w, const Inst& I) {  // D bits 2i, 2i+1 = S0 bit i
  const u32 s = read_s32(w, I.ops[1]);
  u64 d = 0;
  for (int i = 0; i < 32; ++i) d |= u64{(s >> i) & 1} * (3ull << (2 * i));
  write_s64(w, I.ops[0], d);
}

// SGPR number of an M0-relative operand; an index outside s0..s101 (or an unaligned pair) is an
// error: the guide does not define what such an access reads or writes.
u32 relative_sgpr(const Wave& w, const Operand& o, u32 width) {
  const u64 r = u64{o.reg} + w.s[kM0];
  if (r + width > kSgprCount)
    sim_fail("M0-relative SGPR s" + std::to_string(r) + " (s" + std::to_string(o.reg) + " + M0 " +
             std::to_string(w.s[kM0]) + ") is beyond s101: not modelled");
  if (width == 2 && (r & 1))
    sim_fail("M0-relative SGPR pair starts at odd s" + std::to_string(r) + ": not modelled");
  return static_cast<u32>(r);
}

template <u32 Width>
void s_movrels(Wave& w, const Inst& I) {  // D = SGPR[S0.addr + M0]
  const u32 r = relative_sgpr(w, I.ops[1], Width);
  for (u32 i = 0; i < Width; ++i) w.s[I.ops[0].reg + i] = w.s[r + i];
}
template <u32 Width>
void s_movreld(Wave& w, const Inst& I) {  // SGPR[D.addr + M0] = S0
  const u32 r = relative_sgpr(w, I.ops[0], Width);
  if (Width == 1) {
    w.s[r] = read_s32(w, I.ops[1]);
  } else {
    const u64 v = read_s64(w, I.ops[1]);
    w.s[r] = static_cast<u32>(v);
    w.s[r + 1] = static_cast<u32>(v >> 32);
  }
}

// ---- VGPR index mode and VSKIP. The index (M0[7:0]) and the operand mask (M0[15:12]) live in
// M0; the enable bit is the wave's vector_mode (kept outside MODE: see simulator/README.md).

void s_set_gpr_idx_on(Wave& w, const Inst& I) {
  const u32 idx = read_s32(w, I.ops[0]) & 0xffu;
  w.s[kM0] = (w.s[kM0] & ~0xf0ffu) | idx | ((static_cast<u32>(I.simm) & 0xfu) << 12);
  w.vector_mode |= kGprIdx;
}
void s_set_gpr_idx_off(Wave& w, const Inst&) {
  w.vector_mode = static_cast<std::uint8_t>(w.vector_mode & ~kGprIdx);
}
void s_set_gpr_idx_idx(Wave& w, const Inst& I) {
  w.s[kM0] = (w.s[kM0] & ~0xffu) | (read_s32(w, I.ops[0]) & 0xffu);  // SOP1 without destination
}
void s_set_gpr_idx_mode(Wave& w, const Inst& I) {
  w.s[kM0] = (w.s[kM0] & ~0xf000u) | ((static_cast<u32>(I.simm) & 0xfu) << 12);
}
void s_setvskip(Wave& w, const Inst& I) {  // VSKIP = S0[S1[4:0]]
  const bool on = (read_s32(w, I.ops[0]) >> (read_s32(w, I.ops[1]) & 31)) & 1;
  w.vector_mode = static_cast<std::uint8_t>(on ? (w.vector_mode | kVskip) : (w.vector_mode & ~kVskip));
}

// ---- SOPK / SOPP

void s_call_b64(Wave& w, const Inst& I) {  // D = address of the next instruction; PC = target
  write_s64(w, I.ops[0], kCodeBase + I.address + 4);
  w.pc = I.target;
}
void no_effect(Wave&, const Inst&) {}

// ---- fork/join branch stack (ISA guide S_CBRANCH_I_FORK/G_FORK/JOIN pseudo-code). CSP, the
// stack pointer, is MODE[31:29]; entry n is SGPR[4n .. 4n+3] = {EXEC mask (low 64 bits), byte
// address to resume at (high 64 bits)}. Of the two sides of a fork, the one with fewer active
// lanes runs first; the other is pushed and resumed by the first s_cbranch_join.

u32 csp(const Wave& w) { return w.mode >> 29; }
void set_csp(Wave& w, u32 c) { w.mode = (w.mode & 0x1fffffffu) | (c << 29); }

// Forks on `cond` to `target` (byte address; `target_index` if the decoder resolved it, else
// kNoIndex and the address is looked up).
constexpr u32 kNoIndex = ~0u;
void fork(Wave& w, const Inst& I, u64 cond, u64 target, u32 target_index) {
  const u64 exec = w.exec(), pass = cond & exec, fail = ~cond & exec;
  const u64 next = kCodeBase + I.address + 4;
  auto go = [&] {
    if (target_index != kNoIndex) w.pc = target_index;
    else jump_to(w, target);
  };
  if (pass == exec) return go();
  if (fail == exec) return;
  const u32 c = csp(w);
  if (c == 7) sim_fail("fork with CSP 7: the 3-bit branch-stack pointer would overflow");
  const bool fail_first = std::popcount(fail) < std::popcount(pass);
  const u64 saved_mask = fail_first ? pass : fail, saved_pc = fail_first ? target : next;
  u32* e = &w.s[4 * c];
  e[0] = static_cast<u32>(saved_mask);
  e[1] = static_cast<u32>(saved_mask >> 32);
  e[2] = static_cast<u32>(saved_pc);
  e[3] = static_cast<u32>(saved_pc >> 32);
  set_csp(w, c + 1);
  w.set_exec(fail_first ? fail : pass);
  if (!fail_first) go();
}
void s_cbranch_i_fork(Wave& w, const Inst& I) {
  const u64 target = kCodeBase + I.address + 4 + static_cast<u64>(static_cast<i64>(I.simm) * 4);
  fork(w, I, read_s64(w, I.ops[0]), target, I.target);
}
void s_cbranch_g_fork(Wave& w, const Inst& I) {
  fork(w, I, read_s64(w, I.ops[0]), read_s64(w, I.ops[1]), kNoIndex);
}
void s_cbranch_join(Wave& w, const Inst& I) {  // first arrival: resume the pushed side
  if (csp(w) == read_s32(w, I.ops[0])) return;
  if (csp(w) == 0) sim_fail("s_cbranch_join with CSP 0 and a different saved CSP: empty branch stack");
  const u32 c = csp(w) - 1;
  set_csp(w, c);
  const u32* e = &w.s[4 * c];
  w.set_exec(e[0] | (u64{e[1]} << 32));
  jump_to(w, e[2] | (u64{e[3]} << 32));
}

// ---- SMEM stores and atomics

std::uint8_t* smem_host(Wave& w, u64 addr, u32 bytes) {
  if (w.env->caches)
    sim_fail("scalar store or atomic under --memory-model cdna3: the scalar cache's write-back "
             "(s_dcache_wb) is not modelled");
  std::uint8_t* p = w.env->memory->translate(addr, bytes, true);
  if (!p) sim_fail("scalar " + w.env->memory->describe_fault(addr, bytes, true));
  return p;
}

template <u32 N>
void s_store(Wave& w, const Inst& I) {
  const u64 addr = (read_s64(w, I.ops[1]) + smem_offset(w, I)) & ~u64{3};  // 2 LSBs ignored
  std::memcpy(smem_host(w, addr, 4 * N), &w.s[I.ops[0].reg], 4 * N);
}

template <u32 N>
void s_buffer_store(Wave& w, const Inst& I) {  // per dword: out of range (>= num_records) dropped
  const auto [base, num_records] = scalar_buffer(w, I.ops[1]);
  const u64 off = smem_offset(w, I) & ~u64{3};
  for (u32 i = 0; i < N; ++i)
    if (off + 4 * i + 4 <= num_records)
      std::memcpy(smem_host(w, base + off + 4 * i, 4), &w.s[I.ops[0].reg + i], 4);
}

enum class AK { Add, Sub, Swap, CmpSwap, UMin, UMax, SMin, SMax, And, Or, Xor, Inc, Dec };

template <AK K, typename T>
T atomic_op(T old, T data, T cmp) {
  using S = std::make_signed_t<T>;
  switch (K) {
    case AK::Add: return old + data;
    case AK::Sub: return old - data;
    case AK::Swap: return data;
    case AK::CmpSwap: return old == cmp ? data : old;
    case AK::UMin: return old < data ? old : data;
    case AK::UMax: return old > data ? old : data;
    case AK::SMin: return static_cast<S>(old) < static_cast<S>(data) ? old : data;
    case AK::SMax: return static_cast<S>(old) > static_cast<S>(data) ? old : data;
    case AK::And: return old & data;
    case AK::Or: return old | data;
    case AK::Xor: return old ^ data;
    case AK::Inc: return old >= data ? T{0} : static_cast<T>(old + 1);
    case AK::Dec: return (old == 0 || old > data) ? data : static_cast<T>(old - 1);
  }
  return old;
}

// Data in sdata (cmpswap: new value, then the compare value); with glc the old value returns
// to the first register(s) of sdata. `p` null: a buffer atomic out of range (no memory access,
// returns 0).
template <AK K, bool Wide>
void atomic_at(Wave& w, const Inst& I, std::uint8_t* p) {
  using T = std::conditional_t<Wide, u64, u32>;
  constexpr u32 n = Wide ? 2 : 1;
  const u32* d = &w.s[I.ops[0].reg];
  auto get = [&](u32 at) {
    T v{};
    std::memcpy(&v, d + at, sizeof(T));
    return v;
  };
  T old{};
  if (p) {
    std::memcpy(&old, p, sizeof(T));
    const T next = atomic_op<K, T>(old, get(0), K == AK::CmpSwap ? get(n) : T{});
    std::memcpy(p, &next, sizeof(T));
  }
  if (I.sc0) std::memcpy(&w.s[I.ops[0].reg], &old, sizeof(T));
}

template <AK K, bool Wide>
void s_atomic(Wave& w, const Inst& I) {
  const u64 addr = (read_s64(w, I.ops[1]) + smem_offset(w, I)) & ~u64{3};
  atomic_at<K, Wide>(w, I, smem_host(w, addr, Wide ? 8 : 4));
}

template <AK K, bool Wide>
void s_buffer_atomic(Wave& w, const Inst& I) {
  const auto [base, num_records] = scalar_buffer(w, I.ops[1]);
  const u64 off = smem_offset(w, I) & ~u64{3};
  const u32 bytes = Wide ? 8 : 4;
  atomic_at<K, Wide>(w, I, off + bytes <= num_records ? smem_host(w, base + off, bytes) : nullptr);
}

}  // namespace

// Runs a vector instruction while VSKIP or VGPR index mode is on (Wave::vector_mode != 0);
// scalar instructions run normally.
void run_vector_mode(Wave& w, const Inst& I, HazardInfo::Kind kind) {
  if (kind == HazardInfo::Kind::Other) return I.fn(w, I);
  if (w.vector_mode & kVskip) return;  // VSKIP: vector instructions are not issued
  if (kind != HazardInfo::Kind::Valu)
    sim_fail("a vector memory, LDS or MFMA instruction while VGPR index mode is on: indexing is "
             "modelled for VALU operands only");
  if (I.fn == &exec_sdwa || I.fn == &exec_dpp)
    sim_fail("an SDWA or DPP instruction while VGPR index mode is on: not modelled");
  const u32 idx = w.s[kM0] & 0xffu, mask = (w.s[kM0] >> 12) & 0xfu;
  const Program& p = *w.env->program;
  Inst J = I;
  auto shift = [&](Operand& o, const char* what) {
    if (o.kind != OperandKind::Vreg)
      sim_fail(std::string("VGPR index mode is on for ") + what +
               ", which is not a VGPR: the effect is not published; not modelled");
    const u32 limit = o.agpr ? p.allocated_vgprs : p.accum_offset;
    if (o.reg + idx + o.width > limit)
      sim_fail(std::string("VGPR index mode: ") + what + " + M0[7:0] (" + std::to_string(idx) +
               ") lies beyond the kernel's " + (o.agpr ? "AGPRs" : "VGPRs") +
               ": out-of-range indexing is not modelled");
    o.reg = static_cast<std::uint16_t>(o.reg + idx);
  };
  // A destination that is not a VGPR (compares, v_readfirstlane) has nothing to index.
  if ((mask & 8) && I.nops > 0 && I.ops[0].kind == OperandKind::Vreg) shift(J.ops[0], "the destination");
  static const char* const kSrc[] = {"src0", "src1", "src2"};
  for (int k = 0; k < 3; ++k)
    if (((mask >> k) & 1) && I.src0 + k < I.nops) shift(J.ops[I.src0 + k], kSrc[k]);
  J.fn(w, J);
}

void register_salu_smem(HandlerTable& t) {
  auto set = [&](Opcode op, Handler h) { t[static_cast<std::size_t>(op)] = h; };
  using O = Opcode;
  set(O::s_quadmask_b32, s_quadmask<8>);
  set(O::s_quadmask_b64, s_quadmask<16>);
  set(O::s_bitreplicate_b64_b32, s_bitreplicate_b64_b32);
  set(O::s_movrels_b32, s_movrels<1>);
  set(O::s_movrels_b64, s_movrels<2>);
  set(O::s_movreld_b32, s_movreld<1>);
  set(O::s_movreld_b64, s_movreld<2>);
  set(O::s_set_gpr_idx_on, s_set_gpr_idx_on);
  set(O::s_set_gpr_idx_off, s_set_gpr_idx_off);
  set(O::s_set_gpr_idx_idx, s_set_gpr_idx_idx);
  set(O::s_set_gpr_idx_mode, s_set_gpr_idx_mode);
  set(O::s_setvskip, s_setvskip);
  set(O::s_call_b64, s_call_b64);
  set(O::s_cbranch_i_fork, s_cbranch_i_fork);
  set(O::s_cbranch_g_fork, s_cbranch_g_fork);
  set(O::s_cbranch_join, s_cbranch_join);
  set(O::s_wakeup, no_effect);  // wakes waves from s_sleep, which does not wait here
  // Cache and translation hints: global memory is always coherent here and translation is
  // the identity, so they have no architectural effect.
  set(O::s_dcache_inv_vol, no_effect);
  set(O::s_dcache_wb_vol, no_effect);
  set(O::s_atc_probe, no_effect);
  set(O::s_atc_probe_buffer, no_effect);
  set(O::s_store_dword, s_store<1>);
  set(O::s_store_dwordx2, s_store<2>);
  set(O::s_store_dwordx4, s_store<4>);
  set(O::s_buffer_store_dword, s_buffer_store<1>);
  set(O::s_buffer_store_dwordx2, s_buffer_store<2>);
  set(O::s_buffer_store_dwordx4, s_buffer_store<4>);
#define CDNA_SMEM_ATOMIC(name, kind)                            \
  set(O::s_atomic_##name, s_atomic<AK::kind, false>);           \
  set(O::s_atomic_##name##_x2, s_atomic<AK::kind, true>);       \
  set(O::s_buffer_atomic_##name, s_buffer_atomic<AK::kind, false>); \
  set(O::s_buffer_atomic_##name##_x2, s_buffer_atomic<AK::kind, true>);
  CDNA_SMEM_ATOMIC(add, Add)
  CDNA_SMEM_ATOMIC(sub, Sub)
  CDNA_SMEM_ATOMIC(swap, Swap)
  CDNA_SMEM_ATOMIC(cmpswap, CmpSwap)
  CDNA_SMEM_ATOMIC(umin, UMin)
  CDNA_SMEM_ATOMIC(umax, UMax)
  CDNA_SMEM_ATOMIC(smin, SMin)
  CDNA_SMEM_ATOMIC(smax, SMax)
  CDNA_SMEM_ATOMIC(and, And)
  CDNA_SMEM_ATOMIC(or, Or)
  CDNA_SMEM_ATOMIC(xor, Xor)
  CDNA_SMEM_ATOMIC(inc, Inc)
  CDNA_SMEM_ATOMIC(dec, Dec)
#undef CDNA_SMEM_ATOMIC
}

}  // namespace cdna::simulator
