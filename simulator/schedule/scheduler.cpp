#include "simulator/schedule/scheduler.hpp"
#include "simulator/decode/inst_class.hpp"
#include "simulator/checks/watchdog.hpp"
#include "simulator/schedule/parallel.hpp"
#include "simulator/state/kernel_fault.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>

#include <sys/mman.h>

namespace cdna::simulator {
namespace {

// The vector register files of one workgroup's waves, in one mapping: reserved with mmap so
// that the pages a kernel never touches (rows beyond its allocation) cost no memory, whatever
// the number of resident waves (one mapping per workgroup keeps the map count low).
class VectorFiles {
 public:
  explicit VectorFiles(std::size_t waves) : bytes_(std::max<std::size_t>(waves, 1) * kWaveBytes) {
    void* p = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error("simulator: cannot reserve the waves' registers");
    data_ = static_cast<std::uint32_t*>(p);
  }
  ~VectorFiles() {
    if (data_) ::munmap(data_, bytes_);
  }
  VectorFiles(const VectorFiles&) = delete;
  VectorFiles& operator=(const VectorFiles&) = delete;
  std::uint32_t* wave(std::size_t i) { return data_ + i * (kWaveBytes / sizeof(std::uint32_t)); }
  // Zeroes the rows of wave i that a kernel with `live_rows` allocated registers can touch.
  void clear(std::size_t i, std::size_t live_rows) {
    std::uint32_t* v = wave(i);
    std::memset(v, 0, live_rows * kLanes * sizeof(std::uint32_t));
    std::memset(v + std::size_t{kScratchRow0} * kLanes, 0,
                std::size_t{kScratchRows} * kLanes * sizeof(std::uint32_t));
  }

 private:
  static constexpr std::size_t kWaveBytes = std::size_t{kVectorRowsTotal} * kLanes * sizeof(std::uint32_t);
  std::size_t bytes_ = 0;
  std::uint32_t* data_ = nullptr;
};

// One resident workgroup: its LDS, waves and their storage (addresses stay stable).
struct Resident {
  Workgroup wg;
  std::unique_ptr<LdsShadow> lds_shadow;  // LDS race check (lds_race.hpp), when on
  std::vector<Wave> waves;
  std::unique_ptr<VectorFiles> vregs;
  std::vector<std::vector<std::uint8_t>> priv;
  std::vector<HazardMonitor::Shadow> shadows;  // per wave, with a HazardMonitor in old-value mode
};

std::string wave_name(const Workgroup& wg, std::uint32_t wave) {
  return "workgroup (" + std::to_string(wg.id[0]) + "," + std::to_string(wg.id[1]) + "," +
         std::to_string(wg.id[2]) + ") wave " + std::to_string(wave);
}

[[noreturn]] void fail_at(const DispatchEnv& env, const Workgroup& wg, const Wave& w,
                          std::uint32_t index, const std::string& what) {
  const Program& p = *env.program;
  throw KernelFault("simulator: kernel '" + p.kernel + "' (code object '" + p.code_object +
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
  w.vector_mode = 0;
  w.mask_of = 0;
  w.hazards.reset();
  w.polls = {};
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


// What every wave turn of a dispatch reads (fixed for the dispatch).
struct TurnContext {
  const DispatchEnv& env;
  const Program& prog;
  const Inst* insts;
  const HazardInfo* hz;
  std::uint32_t ninsts;
  bool check;                  // SchedulerOptions::check_hazards
  HazardMonitor* monitor;      // null unless the hazard policy needs one
  InstStats* stats;            // null unless statistics were asked for
  const InstFootprint* foot;   // per instruction, when stats
};

// One turn of wave `wave` of `r`: at most `turn` instructions; it ends early when the wave
// ends or waits at s_barrier, at a taken backward branch and at s_sleep. Returns the number of
// instructions executed (the caller adds them to the wave's count). Errors become a KernelFault
// naming kernel, workgroup, wave and pc (fail_at).
std::uint64_t run_wave_turn(const TurnContext& c, Resident& r, std::uint32_t wave, std::uint32_t turn) {
  Wave& w = r.waves[wave];
  std::uint32_t index = 0;
  std::uint64_t n = 0;
  try {
    while (n < turn && w.state == WaveState::Running) {
      index = w.pc;
      if (index >= c.ninsts) sim_fail("control left the decoded code");
      const Inst& I = c.insts[index];
      const HazardInfo& h = c.hz[index];
      bool swapped = false;
      if (c.check && hazard_check_due(w.hazards, h)) {
        if (!c.monitor) check_hazards(w.hazards, h, c.prog, index);
        else swapped = c.monitor->before(w, r.shadows[wave], r.wg.id, wave, index, h);
      }
      if (c.monitor && c.monitor->saves_at(index)) c.monitor->save(w, r.shadows[wave], index, h);
      w.pc = index + 1;
      ++n;
      if (c.stats) {
        const InstFootprint& f = c.foot[index];
        ++c.stats->by_class[static_cast<std::size_t>(f.cls)];
        if ((f.read_per_lane | f.write_per_lane) != 0) c.stats->count_traffic(f, w.exec());
      }
      if (w.vector_mode == 0) [[likely]] I.fn(w, I);
      else run_vector_mode(w, I, h.kind);
      if (swapped) c.monitor->restore(w, h);
      retire_hazards(w.hazards, h, index);
      // Yield points: a taken backward branch (a loop, perhaps a spin) and s_sleep.
      if (w.pc <= index || I.op == Opcode::s_sleep) break;
    }
  } catch (const std::exception& e) {
    fail_at(c.env, r.wg, w, index, e.what());
  }
  return n;
}

// What every workgroup of a dispatch needs allocated and cleared.
struct WorkgroupShape {
  std::uint32_t nwaves;
  std::size_t live_rows;  // VGPR rows the kernel can touch (cleared per workgroup)
  bool race_check;        // LDS race shadow
  bool shadows;           // hazard monitor shadows
};

std::unique_ptr<Resident> new_resident(const DispatchEnv& env, const WorkgroupShape& s) {
  auto r = std::make_unique<Resident>();
  r->wg.lds.assign(env.lds_bytes, 0);
  r->waves.resize(s.nwaves);
  r->vregs = std::make_unique<VectorFiles>(s.nwaves);
  if (s.race_check) r->lds_shadow = std::make_unique<LdsShadow>(env.lds_bytes, s.nwaves);
  for (std::uint32_t i = 0; i < s.nwaves; ++i)
    r->priv.emplace_back(std::size_t{kLanes} * env.private_lane_bytes, std::uint8_t{0});
  return r;
}

// Makes `r` workgroup number `lin` (grid order, x fastest) with its waves at their entry.
void start_workgroup(Resident& r, DispatchEnv& env, const LaunchAddresses& addresses,
                     const WorkgroupShape& s, std::uint64_t lin) {
  Workgroup& wg = r.wg;
  wg.id = {static_cast<std::uint32_t>(lin % env.grid[0]),
           static_cast<std::uint32_t>(lin / env.grid[0] % env.grid[1]),
           static_cast<std::uint32_t>(lin / env.grid[0] / env.grid[1])};
  std::fill(wg.lds.begin(), wg.lds.end(), std::uint8_t{0});
  wg.waves = s.nwaves;
  wg.waves_at_barrier = 0;
  wg.waves_done = 0;
  wg.lds_shadow = r.lds_shadow.get();
  wg.barriers = 0;
  wg.cu = cu_of_workgroup(lin);
  for (std::uint32_t i = 0; i < s.nwaves; ++i) {
    r.vregs->clear(i, s.live_rows);
    std::fill(r.priv[i].begin(), r.priv[i].end(), std::uint8_t{0});
    Wave& w = r.waves[i];
    w.v = r.vregs->wave(i);
    w.priv = r.priv[i].empty() ? nullptr : r.priv[i].data();
    init_wave(w, env, wg, i, addresses);
  }
  if (s.shadows) {
    r.shadows.resize(s.nwaves);
    for (auto& sh : r.shadows) sh.reset();
  }
}

// Releases the workgroup's s_barrier when every wave that has not ended waits at it; true if so.
bool release_barrier(DispatchEnv& env, Resident& r) {
  Workgroup& wg = r.wg;
  if (wg.waves_at_barrier == 0 || wg.waves_at_barrier != wg.waves - wg.waves_done) return false;
  for (auto& w : r.waves)
    if (w.state == WaveState::AtBarrier) w.state = WaveState::Running;
  wg.waves_at_barrier = 0;
  if (wg.lds_shadow) end_lds_interval(env, wg);  // accesses before the barrier are ordered
  ++wg.barriers;                                 // before those after it
  return true;
}

}  // namespace

namespace {

std::uint64_t hash_bytes(const std::vector<std::uint8_t>& b, std::uint64_t h) {
  std::size_t n = b.size() / 8;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t x;
    std::memcpy(&x, b.data() + 8 * i, 8);
    h = (h ^ x) * 0x100000001b3ull;
    h ^= h >> 29;
  }
  for (std::size_t i = 8 * n; i < b.size(); ++i) h = (h ^ b[i]) * 0x100000001b3ull;
  return h;
}

}  // namespace

namespace {

WorkgroupShape shape_of(const DispatchEnv& env, const SchedulerOptions& options, bool shadows) {
  const std::uint32_t items = env.block[0] * env.block[1] * env.block[2];
  const std::uint32_t nwaves = (items + kLanes - 1) / kLanes;
  // Registers beyond the descriptor's allocation are never accessed (the decoder refuses
  // them), so only the allocated rows are cleared per workgroup.
  const std::size_t live_rows = std::min<std::size_t>(env.kernel->descriptor.allocated_vgprs(), kVgprFileRows);
  // LDS race check: only where two waves share LDS.
  const bool race_check = options.lds_races != LdsRaces::Off && nwaves >= 2 && env.lds_bytes > 0;
  return WorkgroupShape{nwaves, live_rows, race_check, shadows};
}

// Per instruction, its class and traffic (inst_class.hpp); empty without statistics.
std::vector<InstFootprint> footprints(const Program& prog, const InstStats* stats) {
  std::vector<InstFootprint> foot(stats ? prog.insts.size() : 0);
  for (std::size_t i = 0; i < foot.size() && i < prog.text.size(); ++i) foot[i] = classify_instruction(prog.text[i]);
  return foot;
}

// The interleaved scheduler described in scheduler.hpp (every workgroup of the dispatch).
void run_serial(DispatchEnv& env, const LaunchAddresses& addresses, const SchedulerOptions& options,
                RunCounters& counters, HazardMonitor* monitor) {
  const Program& prog = *env.program;
  const WorkgroupShape shape = shape_of(env, options, monitor != nullptr);
  const std::uint32_t nwaves = shape.nwaves;
  const std::uint64_t total_wgs = std::uint64_t{env.grid[0]} * env.grid[1] * env.grid[2];
  const std::size_t cap = std::max<std::uint32_t>(options.max_resident_workgroups, 1);

  const Inst* insts = prog.insts.data();
  const HazardInfo* hz = prog.hazards.data();
  const bool check = options.check_hazards;
  const bool random = options.schedule == Schedule::Random;
  const std::uint32_t quantum = std::max<std::uint32_t>(options.quantum, 1);
  const std::uint32_t ninsts = static_cast<std::uint32_t>(prog.insts.size());
  std::mt19937_64 rng(options.seed);
  // Starvation (SchedulerOptions::starve_seed): its own generator, so that a seed holds the same
  // stores whatever the schedule's seed.
  const bool starve = options.starve_seed.has_value();
  std::mt19937_64 starve_rng(options.starve_seed.value_or(0));
  if (starve && options.memory_model != MemoryModel::Cdna3)
    throw std::invalid_argument("simulator: SchedulerOptions::starve_seed holds pending stores, which only the "
                                "memory-model mode has (memory_model = Cdna3)");
  if (starve && (options.starve_rounds == 0 || options.starve_rounds >= options.hang_rounds ||
                 options.starve_one_in == 0))
    throw std::invalid_argument("simulator: SchedulerOptions::starve_rounds = " +
                                std::to_string(options.starve_rounds) + " must be in [1, hang_rounds = " +
                                std::to_string(options.hang_rounds) + ") and starve_one_in ≥ 1");
  env.lds_races = options.lds_races;
  env.lds_race_log = &counters.lds_races;
  // Statistics by instruction class (simulator/decode/inst_class.hpp), when someone asked for them.
  InstStats* const stats = current_inst_stats();
  const std::vector<InstFootprint> foot = footprints(prog, stats);

  const TurnContext ctx{env, prog, insts, hz, ninsts, check, monitor, stats, foot.data()};

  std::vector<std::unique_ptr<Resident>> resident, pool;
  std::uint64_t next_wg = 0;
  std::uint64_t total_instructions = 0;

  auto admit = [&] {
    while (resident.size() < cap && next_wg < total_wgs) {
      std::unique_ptr<Resident> r;
      if (!pool.empty()) {
        r = std::move(pool.back());
        pool.pop_back();
      } else {
        r = new_resident(env, shape);
      }
      start_workgroup(*r, env, addresses, shape, next_wg++);
      resident.push_back(std::move(r));
    }
  };

  // Every live wave's pc, for the watchdog and limit errors.
  auto all_waves = [&] {
    std::string m = "; live waves:";
    std::size_t listed = 0, more = 0;
    for (const auto& r : resident)
      for (const Wave& w : r->waves) {
        if (w.state == WaveState::Done) continue;
        if (listed == 256) {
          ++more;
          continue;
        }
        ++listed;
        const std::string pending =
            w.pending.empty() ? std::string()
                              : ", " + std::to_string(w.pending.outstanding()) + " vector memory operations outstanding";
        m += "\n  " + wave_name(r->wg, w.index_in_group) + ": " +
             (w.state == WaveState::AtBarrier ? "at s_barrier, " : "") +
             (w.pc < ninsts ? prog.where(w.pc) : "pc outside the decoded code") +
             pending + describe_polls(w, prog, *env.memory);
      }
    if (more) m += "\n  (" + std::to_string(more) + " more waves not listed)";
    if (next_wg < total_wgs)
      m += "\n  " + std::to_string(total_wgs - next_wg) +
           " workgroups not yet resident (SchedulerOptions::max_resident_workgroups = " +
           std::to_string(cap) + ")";
    return m;
  };
  auto dispatch_fail = [&](const std::string& what) {
    throw KernelFault("simulator: kernel '" + prog.kernel + "' (code object '" + prog.code_object + "'): " + what +
                      all_waves());
  };

  struct Turn {
    Resident* r;
    std::uint32_t wave;
  };
  std::vector<Turn> order;
  std::uint64_t idle_rounds = 0, last_writes = env.memory->writes();
  bool have_snapshot = false;
  std::uint64_t snapshot = 0;

  // Memory-model mode: the caches of this dispatch (empty at its start, as the CP leaves them).
  std::optional<CacheModel> caches;
  if (options.memory_model == MemoryModel::Cdna3) caches.emplace(*env.memory);
  env.caches = caches ? &*caches : nullptr;
  env.trace_loads = false;
  env.global_hooks = env.caches != nullptr;
  env.round = 0;

  for (;; ++env.round) {
    admit();
    if (resident.empty()) break;
    bool progress = false;
    order.clear();
    for (const auto& r : resident)
      for (std::uint32_t i = 0; i < nwaves; ++i)
        if (r->waves[i].state == WaveState::Running) order.push_back(Turn{r.get(), i});
    if (random)
      for (std::size_t i = order.size(); i > 1; --i)
        std::swap(order[i - 1], order[static_cast<std::size_t>(rng() % i)]);

    for (const Turn& t : order) {
      Workgroup& wg = t.r->wg;
      Wave& w = t.r->waves[t.wave];
      const std::uint32_t turn =
          random ? 1 + static_cast<std::uint32_t>(rng() % quantum) : quantum;
      const std::uint64_t n = run_wave_turn(ctx, *t.r, t.wave, turn);
      w.instructions += n;
      total_instructions += n;
      if (w.state == WaveState::Done) {
        ++wg.waves_done;
        progress = true;
      }
      if (w.instructions > options.max_wave_instructions)
        dispatch_fail(wave_name(wg, w.index_in_group) + " executed more than " +
                      std::to_string(options.max_wave_instructions) +
                      " instructions without ending (hung?; SchedulerOptions::max_wave_instructions)");
      if (total_instructions > options.max_total_instructions)
        dispatch_fail("the dispatch executed more than " +
                      std::to_string(options.max_total_instructions) +
                      " wave instructions in total without ending (SchedulerOptions::"
                      "max_total_instructions; `cdna-verify sim --max-instructions N` raises it)");
    }

    // Memory-model mode: per round each wave (ended ones too) performs the stores of its youngest
    // instruction that has pending stores: later stores overtake earlier ones (checks/pending_stores.hpp).
    // Starvation (SchedulerOptions::starve_seed): the store instructions issued this round are
    // held, each with probability 1/starve_one_in, for a seeded number of rounds.
    if (caches)
      for (const auto& r : resident)
        for (Wave& w : r->waves) {
          if (w.pending.empty()) continue;
          if (starve)
            w.pending.hold_new([&]() -> std::uint64_t {
              return starve_rng() % options.starve_one_in ? 0
                                                          : env.round + 1 + starve_rng() % options.starve_rounds;
            });
          w.pending.complete_youngest(*caches, r->wg.cu, env.round);
        }

    // s_barrier: released when every wave that has not ended is waiting at it.
    for (const auto& r : resident)
      if (release_barrier(env, *r)) progress = true;
    // Retire finished workgroups (their storage is reused by the next admitted ones) once their
    // waves' stores are all performed.
    auto stores_pending = [](const Resident& r) {
      return std::any_of(r.waves.begin(), r.waves.end(), [](const Wave& w) { return !w.pending.empty(); });
    };
    for (std::size_t i = 0; i < resident.size();) {
      if (resident[i]->wg.waves_done == nwaves && !stores_pending(*resident[i])) {
        if (resident[i]->wg.lds_shadow) end_lds_interval(env, resident[i]->wg);
        for (const auto& w : resident[i]->waves) {
          counters.wave_instructions += w.instructions;
          counters.mfma_instructions += w.mfma_instructions;
        }
        ++counters.workgroups;
        if (options.workgroup_done) options.workgroup_done(counters.workgroups, total_wgs);
        pool.push_back(std::move(resident[i]));
        resident.erase(resident.begin() + static_cast<std::ptrdiff_t>(i));  // keeps grid order
      } else {
        ++i;
      }
    }

    // Progress watchdog.
    std::uint64_t writes = env.memory->writes();
    if (writes != last_writes) progress = true;
    last_writes = writes;
    if (progress) {
      idle_rounds = 0;
      have_snapshot = false;
      if (env.trace_loads) {  // not hung after all
        env.trace_loads = false;
        env.global_hooks = env.caches != nullptr;
        for (const auto& r : resident)
          for (Wave& w : r->waves) w.polls = {};
      }
      continue;
    }
    if (++idle_rounds < options.hang_rounds) continue;
    std::uint64_t hsh = 0xcbf29ce484222325ull;
    for (const auto& r : resident) hsh = hash_bytes(r->wg.lds, hsh);
    if (have_snapshot && hsh == snapshot)
      dispatch_fail("no progress for " + std::to_string(2 * options.hang_rounds) +
                    " scheduler rounds (no wave stored to global memory or LDS, ended or passed a "
                    "barrier; SchedulerOptions::hang_rounds = " +
                    std::to_string(options.hang_rounds) +
                    "): the waves are hung, e.g. spinning on a flag nobody sets");
    snapshot = hsh;
    have_snapshot = true;
    idle_rounds = 0;
    // Suspected hang: record what the waves load during the second window (watchdog.hpp).
    env.trace_loads = true;
    env.global_hooks = true;
  }
  // End of the dispatch: dirty L2 lines reach memory (the CP's end-of-kernel release).
  if (caches) caches->end_dispatch();
  env.caches = nullptr;
}

// Why the dispatch cannot take the parallel path, or "" if it can.
std::string serial_only(const DispatchEnv& env, const SchedulerOptions& options, const HazardMonitor* monitor,
                        std::uint64_t total_wgs) {
  if (total_wgs < 2) return "one workgroup";
  if (options.schedule == Schedule::Random) return "Schedule::Random interleaves all workgroups";
  if (options.memory_model != MemoryModel::Cdna3 && !monitor && !options.poison &&
      options.lds_races != LdsRaces::Report && !env.lds_watches && options.max_resident_workgroups >= 2)
    return "";
  if (options.memory_model == MemoryModel::Cdna3) return "the memory-model mode's caches are shared";
  if (monitor) return "the hazard monitor runs serially";
  if (options.poison) return "poison mode's written-byte maps are shared";
  if (options.lds_races == LdsRaces::Report) return "LDS races are reported in the serial order";
  if (env.lds_watches) return "the LDS race rerun records pcs serially";
  return "max_resident_workgroups < 2";
}

// State shared by the threads of a parallel dispatch.
struct ParallelRun {
  const SchedulerOptions& options;
  std::uint64_t total_wgs;
  std::atomic<std::uint64_t> next{0};
  std::atomic<bool> abort{false};
  std::atomic<std::uint64_t> total_instructions{0};
  std::mutex mutex;                     // guards what follows and options.workgroup_done
  std::string abort_reason;             // the first thread's
  RunCounters counters;                 // summed over the threads
  InstStats stats;                      // summed over the threads, when asked for
  std::vector<std::vector<AccessInterval>> logs;  // by linear workgroup id
  void stop(std::string why) {
    std::lock_guard<std::mutex> lock(mutex);
    if (abort_reason.empty()) abort_reason = std::move(why);
    abort = true;
  }
};

// Runs one workgroup alone to its end with the serial scheduler's rounds restricted to its waves
// (the same turns in the same order, so the same results when workgroups do not communicate).
// Returns "" or why the parallel run must be abandoned: an error (the serial rerun reports it as
// today), a limit, or no progress for hang_rounds rounds (it may wait on another workgroup).
std::string run_alone(const TurnContext& ctx, DispatchEnv& env, Resident& r, ParallelRun& run,
                      const AccessLog& log) {
  const SchedulerOptions& o = run.options;
  const std::uint32_t quantum = std::max<std::uint32_t>(o.quantum, 1);
  std::uint64_t idle_rounds = 0, last_writes = log.writes;
  const std::string who = wave_name(r.wg, 0);
  const std::string wg_text = who.substr(0, who.find(" wave"));
  try {
    for (;; ++env.round) {
      if (run.abort) return "stopped";
      bool progress = false;
      for (std::uint32_t i = 0; i < r.waves.size(); ++i) {
        Wave& w = r.waves[i];
        if (w.state != WaveState::Running) continue;
        const std::uint64_t n = run_wave_turn(ctx, r, i, quantum);
        w.instructions += n;
        if (w.state == WaveState::Done) {
          ++r.wg.waves_done;
          progress = true;
        }
        if (w.instructions > o.max_wave_instructions ||
            (run.total_instructions += n) > o.max_total_instructions)
          return "an instruction limit was reached in " + wg_text;
      }
      if (release_barrier(env, r)) progress = true;
      if (r.wg.waves_done == r.waves.size()) {
        if (r.wg.lds_shadow) end_lds_interval(env, r.wg);
        return "";
      }
      if (log.writes != last_writes) progress = true;
      last_writes = log.writes;
      if (progress) idle_rounds = 0;
      else if (++idle_rounds >= o.hang_rounds)
        return wg_text + " made no progress for " + std::to_string(o.hang_rounds) +
               " rounds (it may wait for another workgroup)";
    }
  } catch (const std::exception& e) {
    return std::string("an error in ") + wg_text;
  }
}

// One thread of a parallel dispatch: takes workgroups in grid order until none is left.
void parallel_worker(const DispatchEnv& shared_env, const LaunchAddresses& addresses, const WorkgroupShape& shape,
                     const std::vector<InstFootprint>& foot, bool with_stats, ParallelRun& run) try {
  DispatchEnv env = shared_env;  // own round counter and race log; memory and program are shared
  std::vector<LdsRace> races;    // LdsRaces::Report runs serially: stays empty
  env.lds_race_log = &races;
  AccessLog log;
  GlobalMemory::bind_log(&log);
  InstStats stats;
  const Program& prog = *env.program;
  const TurnContext ctx{env, prog, prog.insts.data(), prog.hazards.data(),
                        static_cast<std::uint32_t>(prog.insts.size()), run.options.check_hazards, nullptr,
                        with_stats ? &stats : nullptr, foot.data()};
  RunCounters mine;
  std::unique_ptr<Resident> r = new_resident(env, shape);
  for (std::uint64_t lin; !run.abort && (lin = run.next++) < run.total_wgs;) {
    log.clear();
    env.round = 0;
    start_workgroup(*r, env, addresses, shape, lin);
    std::string why = run_alone(ctx, env, *r, run, log);
    if (!why.empty()) {
      run.stop(std::move(why));
      break;
    }
    for (const Wave& w : r->waves) {
      mine.wave_instructions += w.instructions;
      mine.mfma_instructions += w.mfma_instructions;
    }
    std::lock_guard<std::mutex> lock(run.mutex);
    run.logs[lin] = std::move(log.intervals);
    log.intervals = {};
    ++run.counters.workgroups;
    if (run.options.workgroup_done) run.options.workgroup_done(run.counters.workgroups, run.total_wgs);
  }
  GlobalMemory::bind_log(nullptr);
  std::lock_guard<std::mutex> lock(run.mutex);
  run.counters.wave_instructions += mine.wave_instructions;
  run.counters.mfma_instructions += mine.mfma_instructions;
  for (std::size_t i = 0; i < stats.by_class.size(); ++i) run.stats.by_class[i] += stats.by_class[i];
  run.stats.global_read_bytes += stats.global_read_bytes;
  run.stats.global_write_bytes += stats.global_write_bytes;
  run.stats.scratch_read_bytes += stats.scratch_read_bytes;
  run.stats.scratch_write_bytes += stats.scratch_write_bytes;
  run.stats.lds_read_bytes += stats.lds_read_bytes;
  run.stats.lds_write_bytes += stats.lds_write_bytes;
} catch (const std::exception& e) {
  GlobalMemory::bind_log(nullptr);
  run.stop(std::string("a thread failed: ") + e.what());
}

// The optimistic parallel run: "" if kept (counters and statistics added), else why not (the
// buffers are then restored to their contents before the dispatch).
std::string run_parallel(DispatchEnv& env, const LaunchAddresses& addresses, const SchedulerOptions& options,
                         RunCounters& counters, unsigned threads, std::uint64_t total_wgs) {
  const WorkgroupShape shape = shape_of(env, options, false);
  InstStats* const stats = current_inst_stats();
  const std::vector<InstFootprint> foot = footprints(*env.program, stats);
  env.lds_races = options.lds_races;
  env.caches = nullptr;
  env.trace_loads = false;
  env.global_hooks = false;
  env.round = 0;
  const BufferSnapshot before(*env.memory);
  ParallelRun run{options, total_wgs};
  run.logs.resize(total_wgs);
  env.memory->set_logging(true);
  {
    std::vector<std::jthread> pool;
    for (unsigned t = 0; t < threads; ++t)
      pool.emplace_back([&] { parallel_worker(env, addresses, shape, foot, stats != nullptr, run); });
  }
  env.memory->set_logging(false);
  std::string why = run.abort_reason;
  if (why.empty()) why = find_communication(run.logs, env.grid, env.memory->regions()).value_or("");
  if (!why.empty()) {
    before.restore();
    return why;
  }
  counters.wave_instructions += run.counters.wave_instructions;
  counters.mfma_instructions += run.counters.mfma_instructions;
  counters.workgroups += run.counters.workgroups;
  if (stats) {
    for (std::size_t i = 0; i < stats->by_class.size(); ++i) stats->by_class[i] += run.stats.by_class[i];
    stats->global_read_bytes += run.stats.global_read_bytes;
    stats->global_write_bytes += run.stats.global_write_bytes;
    stats->scratch_read_bytes += run.stats.scratch_read_bytes;
    stats->scratch_write_bytes += run.stats.scratch_write_bytes;
    stats->lds_read_bytes += run.stats.lds_read_bytes;
    stats->lds_write_bytes += run.stats.lds_write_bytes;
  }
  return "";
}

}  // namespace

void run_dispatch(DispatchEnv& env, const LaunchAddresses& addresses, const SchedulerOptions& options,
                  RunCounters& counters, HazardMonitor* monitor) {
  const std::uint64_t total_wgs = std::uint64_t{env.grid[0]} * env.grid[1] * env.grid[2];
  const unsigned threads = static_cast<unsigned>(std::min<std::uint64_t>(
      {options.threads == 0 ? usable_cores() : options.threads, total_wgs,
       std::max<std::uint32_t>(options.max_resident_workgroups, 1)}));
  if (threads <= 1) {
    counters.parallel = "no (" + std::string(total_wgs < 2 ? "one workgroup" : "1 thread") + ")";
    return run_serial(env, addresses, options, counters, monitor);
  }
  if (std::string why = serial_only(env, options, monitor, total_wgs); !why.empty()) {
    counters.parallel = "no (" + why + ")";
    return run_serial(env, addresses, options, counters, monitor);
  }
  const std::size_t races_before = counters.lds_races.size();
  std::string why = run_parallel(env, addresses, options, counters, threads, total_wgs);
  if (why.empty()) {
    counters.parallel = "yes (" + std::to_string(threads) + " threads)";
    return;
  }
  counters.lds_races.resize(races_before);
  counters.parallel = "no (" + why + "; reran on the serial scheduler)";
  run_serial(env, addresses, options, counters, monitor);
}

}  // namespace cdna::simulator
