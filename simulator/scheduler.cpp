#include "simulator/scheduler.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace cdna::simulator {
namespace {

struct WaveStorage {
  std::vector<std::uint32_t> vgprs;  // kVectorRowsTotal * 64 per wave
  std::vector<std::uint8_t> priv;    // 64 * private bytes per wave
};

std::string wave_name(const Workgroup& wg, std::uint32_t wave) {
  return "workgroup (" + std::to_string(wg.id[0]) + "," + std::to_string(wg.id[1]) + "," +
         std::to_string(wg.id[2]) + ") wave " + std::to_string(wave);
}

[[noreturn]] void fail_at(const DispatchEnv& env, const Workgroup& wg, const Wave& w,
                          std::uint32_t index, const std::string& what) {
  const Program& p = *env.program;
  throw std::runtime_error("simulator: kernel '" + p.kernel + "' (code object '" + p.code_object +
                           "') " + wave_name(wg, w.index_in_group) + ", " + p.where(index) +
                           ": " + what);
}

// Initial state of one wave (AMDGPUUsage "Initial Kernel Execution State").
void init_wave(Wave& w, DispatchEnv& env, Workgroup& wg, std::uint32_t index,
               const LaunchAddresses& addr) {
  const KernelInfo& k = *env.kernel;
  const KernelDescriptor& d = k.descriptor;
  std::memset(w.s, 0, sizeof w.s);
  w.scc = false;
  w.pc = env.program->entry_index;
  w.state = WaveState::Running;
  w.env = &env;
  w.wg = &wg;
  w.index_in_group = index;
  w.instructions = 0;
  w.mfma_instructions = 0;
  w.priority = 0;
  w.mask_of = 0;
  w.hazards.reset();
  // MODE: round 3:0 and denorm 7:4 from rsrc1 bits 15:12 / 19:16, DX10_CLAMP bit 8, IEEE bit 9.
  w.mode = ((d.compute_pgm_rsrc1 >> 12) & 0xffu) | (d.dx10_clamp() ? 1u << 8 : 0u) |
           (d.ieee_mode() ? 1u << 9 : 0u);

  // User SGPRs, in the order the enables list them.
  std::uint32_t s = 0;
  auto put64 = [&](std::uint64_t v) {
    w.s[s++] = static_cast<std::uint32_t>(v);
    w.s[s++] = static_cast<std::uint32_t>(v >> 32);
  };
  std::uint16_t p = d.kernel_code_properties;
  if (p & kDispatchPtr) put64(addr.dispatch_packet);
  if (p & kKernargSegmentPtr) put64(addr.kernarg);
  if (p & kDispatchId) put64(0);
  if (p & kPrivateSegmentSize) w.s[s++] = env.private_lane_bytes;
  // Preloaded kernel arguments follow the other user SGPRs.
  for (std::uint32_t i = 0; i < d.kernarg_preload_length(); ++i) {
    std::uint64_t a = addr.kernarg + 4ull * (d.kernarg_preload_offset() + i);
    std::uint8_t* src = env.memory->translate(a, 4, false);
    w.s[s++] = src ? std::uint32_t{src[0]} | (std::uint32_t{src[1]} << 8) |
                         (std::uint32_t{src[2]} << 16) | (std::uint32_t{src[3]} << 24)
                   : 0u;
  }
  // System SGPRs start after USER_SGPR_COUNT.
  s = d.user_sgpr_count();
  for (int dim = 0; dim < 3; ++dim)
    if (d.workgroup_id_enabled(dim)) w.s[s++] = wg.id[static_cast<std::size_t>(dim)];

  // Work-item ids packed in v0: x 9:0, y 19:10, z 29:20.
  const auto& b = env.block;
  std::uint32_t items = b[0] * b[1] * b[2];
  std::uint32_t* v0 = w.row(0);
  std::uint64_t exec = 0;
  for (int l = 0; l < kLanes; ++l) {
    std::uint32_t f = index * kLanes + static_cast<std::uint32_t>(l);
    if (f >= items) {
      v0[l] = 0;
      continue;
    }
    std::uint32_t x = f % b[0], y = (f / b[0]) % b[1], z = f / (b[0] * b[1]);
    v0[l] = x | (y << 10) | (z << 20);
    exec |= 1ull << l;
  }
  w.set_exec(exec);
}

}  // namespace

void run_dispatch(DispatchEnv& env, const LaunchAddresses& addresses,
                  const SchedulerOptions& options, RunCounters& counters) {
  const KernelInfo& k = *env.kernel;
  const Program& prog = *env.program;
  const std::uint32_t items = env.block[0] * env.block[1] * env.block[2];
  const std::uint32_t nwaves = (items + kLanes - 1) / kLanes;

  std::vector<Wave> waves(nwaves);
  std::vector<WaveStorage> storage(nwaves);
  for (std::uint32_t i = 0; i < nwaves; ++i) {
    storage[i].vgprs.assign(std::size_t{kVectorRowsTotal} * kLanes, 0);
    storage[i].priv.assign(std::size_t{kLanes} * env.private_lane_bytes, 0);
    waves[i].v = storage[i].vgprs.data();
    waves[i].priv = storage[i].priv.empty() ? nullptr : storage[i].priv.data();
  }
  // Registers beyond the descriptor's allocation are never accessed (the decoder refuses
  // them), so only the allocated rows are cleared per workgroup.
  const std::size_t live_words = std::size_t{k.descriptor.allocated_vgprs()} * kLanes;

  Workgroup wg;
  wg.lds.assign(env.lds_bytes, 0);
  const Inst* insts = prog.insts.data();
  const HazardInfo* hz = prog.hazards.data();
  const bool check = options.check_hazards;
  const std::uint32_t ninsts = static_cast<std::uint32_t>(prog.insts.size());
  for (std::uint32_t gz = 0; gz < env.grid[2]; ++gz) {
    for (std::uint32_t gy = 0; gy < env.grid[1]; ++gy) {
      for (std::uint32_t gx = 0; gx < env.grid[0]; ++gx) {
        wg.id = {gx, gy, gz};
        std::fill(wg.lds.begin(), wg.lds.end(), std::uint8_t{0});
        wg.waves = nwaves;
        wg.waves_at_barrier = 0;
        wg.waves_done = 0;
        for (std::uint32_t i = 0; i < nwaves; ++i) {
          std::fill(storage[i].vgprs.begin(),
                    storage[i].vgprs.begin() + static_cast<std::ptrdiff_t>(std::min(live_words, storage[i].vgprs.size())), 0u);
          std::fill(storage[i].priv.begin(), storage[i].priv.end(), std::uint8_t{0});
          init_wave(waves[i], env, wg, i, addresses);
        }
        while (wg.waves_done < nwaves) {
          for (std::uint32_t i = 0; i < nwaves; ++i) {
            Wave& w = waves[i];
            if (w.state != WaveState::Running) continue;
            std::uint32_t index = 0;
            std::uint64_t n = 0;
            try {
              while (n < options.quantum && w.state == WaveState::Running) {
                index = w.pc;
                if (index >= ninsts) sim_fail("control left the decoded code");
                const Inst& I = insts[index];
                const HazardInfo& h = hz[index];
                if (check && h.kind != HazardInfo::Kind::Other &&
                    (w.hazards.clock < w.hazards.quiet_after || h.kind == HazardInfo::Kind::Mfma))
                  check_hazards(w.hazards, h, prog, index);
                w.pc = index + 1;
                ++n;
                I.fn(w, I);
                retire_hazards(w.hazards, h, index);
              }
            } catch (const std::exception& e) {
              fail_at(env, wg, w, index, e.what());
            }
            w.instructions += n;
            if (w.state == WaveState::Done) ++wg.waves_done;
            if (w.instructions > options.max_wave_instructions)
              fail_at(env, wg, w, w.pc < ninsts ? w.pc : index,
                      "wave executed more than " + std::to_string(options.max_wave_instructions) +
                          " instructions without ending (hung?)");
          }
          // s_barrier: released when every wave that has not ended is waiting at it.
          if (wg.waves_at_barrier > 0 && wg.waves_at_barrier == nwaves - wg.waves_done) {
            for (auto& w : waves)
              if (w.state == WaveState::AtBarrier) w.state = WaveState::Running;
            wg.waves_at_barrier = 0;
          }
        }
        for (const auto& w : waves) {
          counters.wave_instructions += w.instructions;
          counters.mfma_instructions += w.mfma_instructions;
        }
        ++counters.workgroups;
      }
    }
  }
}

}  // namespace cdna::simulator
