// Wave64 state and the operand access helpers every executor uses.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "simulator/checks/hazard.hpp"
#include "simulator/decode/isa.hpp"
#include "simulator/checks/lds_race.hpp"
#include "simulator/state/memory.hpp"
#include "simulator/checks/memory_model.hpp"
#include "simulator/checks/pending_stores.hpp"

namespace cdna::simulator {

struct KernelInfo;

inline constexpr int kLanes = 64;

// An error raised while executing one instruction; the scheduler adds kernel, pc,
// instruction text and wave to the message.
class SimError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
[[noreturn]] void sim_fail(const std::string& message);
std::string hex(std::uint64_t v);

// Apertures for flat addressing (the values src_shared_base / src_private_base return as
// the high 32 bits): each aperture is 4 GiB, aligned to 2^32 (AMDGPUUsage "Address Spaces").
inline constexpr std::uint64_t kSharedAperture = 0x0001'0000'0000'0000ull;
inline constexpr std::uint64_t kPrivateAperture = 0x0002'0000'0000'0000ull;
// The code object's allocated sections are mapped (read-only unless SHF_WRITE) at
// kCodeBase + their virtual address; s_getpc_b64 returns addresses in that image.
inline constexpr std::uint64_t kCodeBase = 0x0000'1000'0000'0000ull;

struct Workgroup {
  std::array<std::uint32_t, 3> id{};
  std::vector<std::uint8_t> lds;
  std::uint32_t waves = 0;
  std::uint32_t waves_at_barrier = 0;
  std::uint32_t waves_done = 0;
  // LDS race check (lds_race.hpp): null when the check is off or the workgroup has one wave.
  LdsShadow* lds_shadow = nullptr;
  std::uint32_t barriers = 0;  // s_barriers this workgroup has passed
  std::uint32_t cu = 0;        // the CU it runs on (checks/memory_model.hpp: cu_of_workgroup)
};

// What all waves of one dispatch share.
struct DispatchEnv {
  GlobalMemory* memory = nullptr;
  const KernelInfo* kernel = nullptr;
  const Program* program = nullptr;
  std::array<std::uint32_t, 3> grid{};   // workgroups
  std::array<std::uint32_t, 3> block{};  // work-items per workgroup
  std::uint64_t kernarg_address = 0;
  std::uint32_t private_lane_bytes = 0;
  std::uint32_t lds_bytes = 0;  // group_segment_fixed_size + dynamic LDS of the launch
  std::optional<std::uint64_t> transcendental_envelope;  // SchedulerOptions, same name
  LdsRaces lds_races = LdsRaces::Error;                  // SchedulerOptions, same name
  std::vector<LdsRace>* lds_race_log = nullptr;          // where LdsRaces::Report puts races
  std::vector<LdsWatch>* lds_watches = nullptr;          // set on the run that recovers pcs
  // Memory-model mode (checks/memory_model.hpp): the caches, or null (coherent memory).
  CacheModel* caches = nullptr;
  // Set by the progress watchdog once it suspects a hang: global loads are recorded per wave
  // (Wave::polls) so that the hang report names what each wave polls. `round` is the
  // scheduler's round counter.
  bool trace_loads = false;
  std::uint64_t round = 0;
  // caches || trace_loads: global accesses take the slow path (exec/vmem.cpp).
  bool global_hooks = false;
};

// One global load a wave executed while the watchdog traced loads (the first active lane's):
// where, what it read, and since which round it has read that value there.
struct PolledLoad {
  std::uint32_t index = 0;  // instruction index (Program::where)
  std::uint64_t addr = 0;
  std::uint32_t bytes = 0;
  std::uint64_t value = 0;  // the first min(bytes, 8) bytes read, little-endian
  std::uint64_t since = 0;  // scheduler round of the first read of this value at this pc
  bool used = false;
};
inline constexpr std::size_t kPolledLoads = 4;  // distinct load pcs remembered per wave

enum class WaveState : std::uint8_t { Running, AtBarrier, Done };

struct alignas(64) Lanes {
  std::uint32_t u[kLanes];
};
struct alignas(64) Lanes64 {
  std::uint64_t u[kLanes];
};

struct Wave {
  std::uint32_t s[kSregFileSize]{};
  std::uint32_t* v = nullptr;  // kVectorRowsTotal rows of 64 lanes
  bool scc = false;
  std::uint32_t mode = 0;      // MODE register (cdna3-facts.md §6)
  std::uint32_t pc = 0;        // index of the next instruction
  WaveState state = WaveState::Running;
  DispatchEnv* env = nullptr;
  Workgroup* wg = nullptr;
  std::uint32_t index_in_group = 0;
  std::uint8_t* priv = nullptr;  // private segment: lane l owns [l*size, (l+1)*size)
  std::uint64_t instructions = 0;
  std::uint64_t mfma_instructions = 0;
  std::uint32_t priority = 0;
  // Bit 0: VGPR index mode (s_set_gpr_idx_on), bit 1: VSKIP (s_setvskip). Nonzero routes each
  // instruction through run_vector_mode() (exec/salu_smem.cpp) instead of its handler.
  std::uint8_t vector_mode = 0;
  HazardState hazards;
  std::array<PolledLoad, kPolledLoads> polls{};  // DispatchEnv::trace_loads
  // Memory-model mode: stores issued and not yet performed (checks/pending_stores.hpp).
  PendingStores pending;
  // Unique per executed instruction of this wave (a pc repeats only in a later turn: a turn
  // ends at every branch that does not advance the pc).
  std::uint64_t stamp() const { return (env->round << 32) | pc; }

  // Cached per-lane masks of EXEC (all-ones where the lane is active).
  std::uint64_t mask_of = 0;
  alignas(64) std::uint32_t lane_mask[kLanes]{};

  std::uint64_t exec() const { return s[kExecLo] | (std::uint64_t{s[kExecHi]} << 32); }
  void set_exec(std::uint64_t e) {
    s[kExecLo] = static_cast<std::uint32_t>(e);
    s[kExecHi] = static_cast<std::uint32_t>(e >> 32);
  }
  std::uint64_t vcc() const { return s[kVccLo] | (std::uint64_t{s[kVccHi]} << 32); }
  std::uint32_t* row(std::uint32_t r) { return v + std::size_t{r} * kLanes; }
  const std::uint32_t* masks() {
    std::uint64_t e = exec();
    if (e != mask_of || e == 0) {
      for (int l = 0; l < kLanes; ++l) lane_mask[l] = ((e >> l) & 1) ? ~0u : 0u;
      mask_of = e;
    }
    return lane_mask;
  }

  // MODE fields.
  std::uint32_t round32() const { return mode & 3; }
  std::uint32_t round16_64() const { return (mode >> 2) & 3; }
  bool flush_in32() const { return ((mode >> 4) & 3) == 0 || ((mode >> 4) & 3) == 2; }
  bool flush_out32() const { return ((mode >> 4) & 3) <= 1; }
  bool flush_in16_64() const { return ((mode >> 6) & 3) == 0 || ((mode >> 6) & 3) == 2; }
  bool flush_out16_64() const { return ((mode >> 6) & 3) <= 1; }
  bool dx10_clamp() const { return (mode >> 8) & 1; }
  bool ieee() const { return (mode >> 9) & 1; }
};

// ---- scalar operands

inline std::uint32_t read_s32(const Wave& w, const Operand& o) {
  switch (o.kind) {
    case OperandKind::Sreg: return w.s[o.reg];
    case OperandKind::Const: return o.k32;
    case OperandKind::Scc: return w.scc ? 1u : 0u;
    case OperandKind::Vccz: return w.vcc() == 0 ? 1u : 0u;
    case OperandKind::Execz: return w.exec() == 0 ? 1u : 0u;
    default: sim_fail("operand is not a scalar source");
  }
}

inline std::uint64_t read_s64(const Wave& w, const Operand& o) {
  switch (o.kind) {
    case OperandKind::Sreg: return w.s[o.reg] | (std::uint64_t{w.s[o.reg + 1]} << 32);
    case OperandKind::Const: return o.k64;
    case OperandKind::Scc: return w.scc ? 1u : 0u;
    case OperandKind::Vccz: return w.vcc() == 0 ? 1u : 0u;
    case OperandKind::Execz: return w.exec() == 0 ? 1u : 0u;
    default: sim_fail("operand is not a 64-bit scalar source");
  }
}

inline void write_s32(Wave& w, const Operand& o, std::uint32_t x) { w.s[o.reg] = x; }
inline void write_s64(Wave& w, const Operand& o, std::uint64_t x) {
  w.s[o.reg] = static_cast<std::uint32_t>(x);
  w.s[o.reg + 1] = static_cast<std::uint32_t>(x >> 32);
}

// ---- vector operands

// Lane values of a 32-bit source (part = register within a multi-register operand, or the
// high half of a 64-bit scalar/constant when `wide`).
inline const std::uint32_t* vsrc(Wave& w, const Operand& o, Lanes& tmp, unsigned part = 0,
                                 bool wide = false) {
  if (o.kind == OperandKind::Vreg) return w.row(o.reg + part);
  std::uint32_t x;
  if (wide) {
    std::uint64_t x64 = read_s64(w, o);
    x = static_cast<std::uint32_t>(part ? x64 >> 32 : x64);
  } else if (o.kind == OperandKind::Sreg) {
    x = w.s[o.reg + part];
  } else {
    x = read_s32(w, o);
  }
  for (int l = 0; l < kLanes; ++l) tmp.u[l] = x;
  return tmp.u;
}

// Lane values of a 64-bit source.
inline void vsrc64(Wave& w, const Operand& o, Lanes64& out) {
  if (o.kind == OperandKind::Vreg) {
    const std::uint32_t* lo = w.row(o.reg);
    const std::uint32_t* hi = w.row(o.reg + 1);
    for (int l = 0; l < kLanes; ++l) out.u[l] = lo[l] | (std::uint64_t{hi[l]} << 32);
  } else {
    std::uint64_t x = read_s64(w, o);
    for (int l = 0; l < kLanes; ++l) out.u[l] = x;
  }
}

// Writes lanes of `r` into register row `row` for the lanes active in EXEC.
inline void vwrite_row(Wave& w, std::uint32_t row, const std::uint32_t* r) {
  std::uint32_t* d = w.row(row);
  std::uint64_t e = w.exec();
  if (e == ~0ull) {
    std::memcpy(d, r, sizeof(std::uint32_t) * kLanes);
    return;
  }
  const std::uint32_t* m = w.masks();
  for (int l = 0; l < kLanes; ++l) d[l] = (r[l] & m[l]) | (d[l] & ~m[l]);
}

inline void vwrite(Wave& w, const Operand& dst, const std::uint32_t* r, unsigned part = 0) {
  vwrite_row(w, dst.reg + part, r);
}

inline void vwrite64(Wave& w, const Operand& dst, const Lanes64& r) {
  Lanes lo, hi;
  for (int l = 0; l < kLanes; ++l) {
    lo.u[l] = static_cast<std::uint32_t>(r.u[l]);
    hi.u[l] = static_cast<std::uint32_t>(r.u[l] >> 32);
  }
  vwrite(w, dst, lo.u, 0);
  vwrite(w, dst, hi.u, 1);
}

// A lane mask (carry-out, compare result) written to an SGPR pair / VCC: inactive lanes 0.
inline void write_mask(Wave& w, const Operand& dst, std::uint64_t bits) {
  write_s64(w, dst, bits & w.exec());
}

inline float as_float(std::uint32_t u) { return std::bit_cast<float>(u); }
inline std::uint32_t fbits(float f) { return std::bit_cast<std::uint32_t>(f); }
inline double as_double(std::uint64_t u) { return std::bit_cast<double>(u); }
inline std::uint64_t dbits(double d) { return std::bit_cast<std::uint64_t>(d); }

// Continues at byte address `target` of the code image (kCodeBase + address); an address that
// is not decoded code of the kernel is an error (exec/scalar.cpp).
void jump_to(Wave& w, std::uint64_t target);
// Runs `I` (hazard class `kind`) while Wave::vector_mode is nonzero (VSKIP, VGPR index mode).
void run_vector_mode(Wave& w, const Inst& I, HazardInfo::Kind kind);

void watch_lds_access(Wave& w, std::uint64_t addr, std::uint32_t n, LdsAccess kind);  // lds_race.cpp
inline void note_lds_access(Wave& w, std::uint64_t addr, std::uint32_t n, LdsAccess kind) {
  w.wg->lds_shadow->mark(w.index_in_group, addr, n, kind);
  if (w.env->lds_watches) [[unlikely]] watch_lds_access(w, addr, n, kind);
}

}  // namespace cdna::simulator
