#include "simulator/schedule/simulator_executor.hpp"
#include "simulator/schedule/parallel.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <stdexcept>

#include "simulator/decode/decoder.hpp"
#include "simulator/decode/inst_class.hpp"
#include "simulator/state/memory.hpp"
#include "simulator/state/wave.hpp"
#include "simulator/state/kernel_fault.hpp"

namespace cdna::simulator {

struct SimulatorExecutor::Entry {
  std::vector<std::byte> bytes;
  std::uint64_t hash = 0;
  CodeObject co;
  std::map<std::string, std::shared_ptr<const Program>, std::less<>> programs;
};

namespace {

constexpr std::size_t kCacheEntries = 16;
constexpr std::uint32_t kMaxLds = 65536;

std::uint64_t fnv1a(std::span<const std::byte> b) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::byte x : b) {
    h ^= static_cast<std::uint8_t>(x);
    h *= 0x100000001b3ull;
  }
  return h;
}

[[noreturn]] void launch_fail(const std::string& kernel, const std::string& what) {
  throw std::runtime_error("simulator: kernel '" + kernel + "': " + what);
}

std::string arg_name(const ArgInfo& a, std::size_t i) {
  return "argument " + std::to_string(i) + (a.name.empty() ? "" : " ('" + a.name + "')");
}
// The argument, with the host's name of the buffer if it gave one (KernelArg::name).
std::string buffer_name(const ArgInfo& a, std::size_t i, const std::string& host_name) {
  return host_name.empty() ? arg_name(a, i) : arg_name(a, i) + ", buffer '" + host_name + "'";
}

void put(std::vector<std::uint8_t>& seg, std::uint32_t offset, std::uint32_t size, std::uint64_t v) {
  for (std::uint32_t i = 0; i < size && i < 8; ++i) seg[offset + i] = static_cast<std::uint8_t>(v >> (8 * i));
}

}  // namespace

SimulatorExecutor::SimulatorExecutor() = default;
SimulatorExecutor::~SimulatorExecutor() = default;

namespace {
// The host CPU's "model name" from /proc/cpuinfo (Linux), or "unknown (no /proc/cpuinfo model name)".
std::string host_cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    const auto value = line.find_first_not_of(" \t", line.find(':') + 1);  // find npos + 1 = 0: the whole line
    if (value != std::string::npos) return line.substr(value);
  }
  return "unknown (no /proc/cpuinfo model name)";
}
}  // namespace

device::Description SimulatorExecutor::describe() const {
  return {{"executor", "simulator"},
          {"device", "CDNA3 functional simulator (gfx942 code objects on the CPU)"},
          {"host_cpu", host_cpu_model()},
          {"threads", std::to_string(options_.threads ? options_.threads : usable_cores())},
          {"schedule", options_.schedule == Schedule::Random ? "random seed " + std::to_string(options_.seed)
                                                             : "round-robin"},
          {"transcendental_envelope",
           options_.transcendental_envelope ? "seed " + std::to_string(*options_.transcendental_envelope)
                                            : "none (correctly rounded)"}};
}

std::shared_ptr<SimulatorExecutor::Entry> SimulatorExecutor::entry_for(std::span<const std::byte> bytes,
                                                                      const std::string& name) {
  std::uint64_t h = fnv1a(bytes);
  for (auto it = cache_.begin(); it != cache_.end(); ++it) {
    auto& e = *it;
    if (e->hash == h && e->bytes.size() == bytes.size() &&
        std::equal(e->bytes.begin(), e->bytes.end(), bytes.begin())) {
      auto keep = e;
      cache_.erase(it);
      cache_.push_back(keep);
      return keep;
    }
  }
  std::string label = name.empty() ? label_ : name;
  if (label.empty()) {
    label = std::to_string(bytes.size());
    label.insert(0, 1, '<');
    label.append("-byte code object>");
  }
  auto e = std::make_shared<Entry>();
  e->co = CodeObject::load(bytes, label);
  e->bytes.assign(bytes.begin(), bytes.end());
  e->hash = h;
  if (cache_.size() >= kCacheEntries) cache_.erase(cache_.begin());
  cache_.push_back(e);
  return e;
}

const CodeObject& SimulatorExecutor::code_object(std::span<const std::byte> bytes) {
  return entry_for(bytes)->co;
}

std::shared_ptr<const Program> SimulatorExecutor::program(std::span<const std::byte> bytes,
                                                          std::string_view kernel) {
  auto e = entry_for(bytes);
  auto it = e->programs.find(kernel);
  if (it != e->programs.end()) return it->second;
  const KernelInfo& k = e->co.kernel(kernel);
  auto p = decode_kernel(e->co, k);
  e->programs.emplace(std::string(kernel), p);
  return p;
}

void SimulatorExecutor::merge_hazards() { merge_hazard_sites(all_hazards_, hazards_); }

void SimulatorExecutor::run(std::span<const std::byte> bytes, const device::Dispatch& dispatch) {
  lds_races_.clear();
  std::vector<LdsRace> found;
  try {
    run_once(bytes, dispatch, nullptr, found);
  } catch (const LdsRaceFound& f) {
    // LdsRaces::Error: the same dispatch again (the simulation is deterministic) with a watch on
    // the racing byte; it stops at the same barrier with the error naming both pcs.
    std::vector<LdsWatch> watch{LdsWatch{f.race}};
    watch[0].race.pc = watch[0].race.other_pc = kNoPc;
    run_once(bytes, dispatch, &watch, found);
    throw KernelFault("simulator: " + f.race.message +
                             " (the second run, which recovers the pcs, did not find it again: not deterministic)");
  }
  if (found.empty()) return;
  // LdsRaces::Report: once more with a watch on each race found (the first kMaxWatches) for the pcs.
  constexpr std::size_t kMaxWatches = 64;
  std::vector<LdsWatch> watches;
  for (const LdsRace& r : found) {
    if (watches.size() == kMaxWatches) break;
    watches.push_back(LdsWatch{r});
    watches.back().race.pc = watches.back().race.other_pc = kNoPc;
  }
  run_once(bytes, dispatch, &watches, found);
  LdsRaceLog log;
  for (const LdsRace& r : found) log.add(r);
  lds_races_ = log.races();
  for (const LdsRace& r : lds_races_) all_lds_races_.add(r);
}

void SimulatorExecutor::run_once(std::span<const std::byte> bytes, const device::Dispatch& dispatch,
                                 std::vector<LdsWatch>* watches, std::vector<LdsRace>& found) {
  auto t0 = std::chrono::steady_clock::now();
  stats_ = SimStats{};
  hazards_.clear();
  auto entry = entry_for(bytes, dispatch.code_object_name);
  const KernelInfo& k = entry->co.kernel(dispatch.kernel);
  auto prog = program(bytes, dispatch.kernel);
  const std::string& kn = k.name;
  const KernelDescriptor& d = k.descriptor;

  // ---- the launch
  for (int i = 0; i < 3; ++i) {
    if (dispatch.grid[i] == 0 || dispatch.block[i] == 0)
      launch_fail(kn, "grid " + std::to_string(dispatch.grid[0]) + "x" + std::to_string(dispatch.grid[1]) +
                          "x" + std::to_string(dispatch.grid[2]) + " block " +
                          std::to_string(dispatch.block[0]) + "x" + std::to_string(dispatch.block[1]) +
                          "x" + std::to_string(dispatch.block[2]) +
                          " has a zero extent; expected every extent >= 1");
    if (dispatch.block[i] > 1024)
      launch_fail(kn, "block extent " + std::to_string(dispatch.block[i]) + " exceeds 1024");
    if (std::uint64_t{dispatch.grid[i]} * dispatch.block[i] > 0xffffffffull)
      launch_fail(kn, "grid size in work-items exceeds 2^32-1 in dimension " + std::to_string(i));
  }
  std::uint64_t items = std::uint64_t{dispatch.block[0]} * dispatch.block[1] * dispatch.block[2];
  if (items > k.max_flat_workgroup_size)
    launch_fail(kn, "workgroup of " + std::to_string(items) + " work-items exceeds the kernel's "
                    ".max_flat_workgroup_size " + std::to_string(k.max_flat_workgroup_size));
  std::uint64_t lds = std::uint64_t{d.group_segment_fixed_size} + dispatch.dynamic_lds_bytes;
  if (lds > kMaxLds)
    launch_fail(kn, "LDS of " + std::to_string(lds) + " bytes (static " +
                    std::to_string(d.group_segment_fixed_size) + " + dynamic " +
                    std::to_string(dispatch.dynamic_lds_bytes) + ") exceeds the 65536 bytes of a CU");
  if (k.uses_dynamic_stack)
    launch_fail(kn, "the kernel uses a dynamic stack; the simulator supports fixed-size private segments only");
  const std::uint16_t props = d.kernel_code_properties;
  if (props & (kPrivateSegmentBuffer | kFlatScratchInit | kQueuePtr))
    launch_fail(kn, "kernel descriptor enables a private-segment-buffer, flat-scratch-init or "
                    "queue-pointer user SGPR (kernel_code_properties " + hex(props) +
                    "); gfx942 uses architected flat scratch and code object v5 hidden arguments");
  if (d.workgroup_info_enabled())
    launch_fail(kn, "kernel descriptor enables the workgroup-info SGPR, which the simulator does not provide");
  std::uint32_t user = ((props & kDispatchPtr) ? 2 : 0) + ((props & kKernargSegmentPtr) ? 2 : 0) +
                       ((props & kDispatchId) ? 2 : 0) + ((props & kPrivateSegmentSize) ? 1 : 0) +
                       d.kernarg_preload_length();
  if (user != d.user_sgpr_count())
    launch_fail(kn, "kernel descriptor USER_SGPR_COUNT is " + std::to_string(d.user_sgpr_count()) +
                    " but the enabled user SGPRs add up to " + std::to_string(user) +
                    "; expected them to agree");

  // One execution of the dispatch on fresh memory (Differential runs it more than once): returns
  // the contents of every writable buffer, in argument order.
  using Outputs = std::vector<std::vector<std::uint8_t>>;
  std::vector<std::string> output_labels;
  auto execute = [&](HazardMonitor* monitor, RunCounters& counters) -> Outputs {
    // ---- memory: code object image, buffers, kernarg segment, dispatch packet
    GlobalMemory mem;
    mem.set_track_writes(options_.poison);
    std::vector<std::vector<std::uint8_t>> storage;
    storage.reserve(dispatch.args.size() + entry->co.sections().size() + 2);
    const std::size_t first_section = storage.size();
    for (const auto& sec : entry->co.sections()) {
      storage.emplace_back(sec.bytes.begin(), sec.bytes.end());
      mem.map_at(kCodeBase + sec.address, storage.back().data(), storage.back().size(), sec.writable,
                 "code object section " + sec.name);
    }

    // The loader's relocations (GOT entries of __device__ variables), against where the image lies.
    for (const Relocation& r : entry->co.relocations()) {
      const std::uint64_t v = kCodeBase + r.value;
      std::memcpy(storage[first_section + r.section].data() + r.offset, &v, sizeof v);
    }
    for (const device::SymbolWrite& w : dispatch.symbols) {
      const CodeObject::ObjectLocation at = entry->co.object_location(w.symbol);
      if (w.bytes.size() > at.size)
        launch_fail(kn, "writes " + std::to_string(w.bytes.size()) + " bytes into symbol '" + w.symbol + "' of " +
                        std::to_string(at.size) + " bytes; expected at most its size");
      std::memcpy(storage[first_section + at.section].data() + at.offset, w.bytes.data(), w.bytes.size());
    }

    std::vector<const ArgInfo*> explicit_args;
    for (const auto& a : k.args)
      if (!a.is_hidden()) explicit_args.push_back(&a);
    if (explicit_args.size() != dispatch.args.size())
      launch_fail(kn, "dispatch passes " + std::to_string(dispatch.args.size()) +
                      " arguments; the kernel declares " + std::to_string(explicit_args.size()));

    std::vector<std::uint8_t> kernarg(std::max<std::uint32_t>(k.kernarg_segment_size, 1), 0);
    struct Out {
      std::size_t storage_index;
      std::string label;
    };
    std::vector<Out> outputs;
    for (std::size_t i = 0; i < explicit_args.size(); ++i) {
      const ArgInfo& a = *explicit_args[i];
      const device::KernelArg& arg = dispatch.args[i];
      if (arg.kind == device::KernelArg::Kind::Buffer) {
        if (a.kind != ArgKind::GlobalBuffer || a.size != 8)
          launch_fail(kn, arg_name(a, i) + " is passed as a buffer but the kernel declares value_kind '" +
                          a.value_kind + "' of " + std::to_string(a.size) +
                          " bytes; expected a global_buffer pointer (8 bytes)");
        if (arg.null) {
          put(kernarg, a.offset, 8, 0);
          continue;
        }
        storage.emplace_back(arg.buffer.size());
        if (arg.writable && options_.poison)
          std::fill(storage.back().begin(), storage.back().end(), std::uint8_t{0xff});  // NaN bytes
        else if (!arg.buffer.empty())
          std::memcpy(storage.back().data(), arg.buffer.data(), arg.buffer.size());
        std::uint64_t addr = mem.map(storage.back().data(), storage.back().size(), arg.writable,
                                     buffer_name(a, i, arg.name) + (arg.writable ? " (output)" : " (input)"));
        put(kernarg, a.offset, 8, addr);
        if (arg.writable) outputs.push_back(Out{storage.size() - 1, arg_name(a, i)});
      } else {
        if (a.kind != ArgKind::ByValue)
          launch_fail(kn, arg_name(a, i) + " is passed as a " + std::to_string(arg.value.size()) +
                          "-byte value but the kernel declares value_kind '" + a.value_kind +
                          "'; expected a buffer");
        if (arg.value.size() != a.size)
          launch_fail(kn, arg_name(a, i) + " is " + std::to_string(arg.value.size()) +
                          " bytes; the kernel's by_value argument is " + std::to_string(a.size) + " bytes");
        std::memcpy(kernarg.data() + a.offset, arg.value.data(), a.size);
      }
    }
    // Hidden arguments, as the HIP runtime fills them. The grid is a whole number of
    // workgroups, so the remainders are 0; HIP launches always have 3 dimensions.
    for (std::size_t i = 0; i < k.args.size(); ++i) {
      const ArgInfo& a = k.args[i];
      if (!a.is_hidden()) continue;
      std::uint64_t v = 0;
      switch (a.kind) {
        case ArgKind::HiddenBlockCountX: v = dispatch.grid[0]; break;
        case ArgKind::HiddenBlockCountY: v = dispatch.grid[1]; break;
        case ArgKind::HiddenBlockCountZ: v = dispatch.grid[2]; break;
        case ArgKind::HiddenGroupSizeX: v = dispatch.block[0]; break;
        case ArgKind::HiddenGroupSizeY: v = dispatch.block[1]; break;
        case ArgKind::HiddenGroupSizeZ: v = dispatch.block[2]; break;
        case ArgKind::HiddenRemainderX: case ArgKind::HiddenRemainderY: case ArgKind::HiddenRemainderZ:
        case ArgKind::HiddenGlobalOffsetX: case ArgKind::HiddenGlobalOffsetY: case ArgKind::HiddenGlobalOffsetZ:
        case ArgKind::HiddenNone: case ArgKind::HiddenZeroPointer:
          v = 0;
          break;
        case ArgKind::HiddenGridDims: v = 3; break;
        case ArgKind::HiddenDynamicLdsSize: v = dispatch.dynamic_lds_bytes; break;
        case ArgKind::HiddenPrivateBase: v = kPrivateAperture >> 32; break;
        case ArgKind::HiddenSharedBase: v = kSharedAperture >> 32; break;
        default:
          launch_fail(kn, "hidden argument kind '" + a.value_kind + "' (" + arg_name(a, i) +
                          ") is not supported by the simulator");
      }
      put(kernarg, a.offset, a.size, v);
    }
    storage.push_back(std::move(kernarg));
    LaunchAddresses addrs;
    addrs.kernarg = mem.map(storage.back().data(), k.kernarg_segment_size, false, "kernarg segment");

    if (props & kDispatchPtr) {
      std::vector<std::uint8_t> pkt(64, 0);
      put(pkt, 0, 2, 2);  // HSA_PACKET_TYPE_KERNEL_DISPATCH
      put(pkt, 2, 2, 3);  // setup: dimensions
      for (int i = 0; i < 3; ++i) {
        put(pkt, 4 + 2 * static_cast<std::uint32_t>(i), 2, dispatch.block[i]);
        put(pkt, 12 + 4 * static_cast<std::uint32_t>(i), 4, std::uint64_t{dispatch.grid[i]} * dispatch.block[i]);
      }
      put(pkt, 24, 4, k.private_segment_fixed_size);
      put(pkt, 28, 4, lds);
      put(pkt, 32, 8, kCodeBase + k.descriptor_address);
      put(pkt, 40, 8, addrs.kernarg);
      storage.push_back(std::move(pkt));
      addrs.dispatch_packet = mem.map(storage.back().data(), 64, false, "dispatch packet");
    }

    DispatchEnv env;
    env.memory = &mem;
    env.kernel = &k;
    env.program = prog.get();
    for (int i = 0; i < 3; ++i) {
      env.grid[static_cast<std::size_t>(i)] = dispatch.grid[i];
      env.block[static_cast<std::size_t>(i)] = dispatch.block[i];
    }
    env.kernarg_address = addrs.kernarg;
    env.private_lane_bytes = k.private_segment_fixed_size;
    env.lds_bytes = static_cast<std::uint32_t>(lds);
    env.transcendental_envelope = options_.transcendental_envelope;
    env.lds_watches = watches;
    run_dispatch(env, addrs, options_, counters, monitor);
    Outputs result;
    output_labels.clear();
    for (const auto& o : outputs) {
      result.push_back(std::move(storage[o.storage_index]));
      output_labels.push_back(o.label);
    }
    return result;
  };

  RunCounters counters;
  Outputs result;
  try {
    const bool differential = options_.check_hazards && options_.hazard_policy == HazardPolicy::Differential;
    if (differential) {
      std::size_t runs = 0;
      RunCounters first;
      DifferentialResult judged = judge_differential(
          *prog,
          [&](HazardMonitor& m) {
            // The statistics (counters and instruction classes) are the first, new-value run's.
            RunCounters c;
            InstStats discard;
            std::optional<InstStatsScope> quiet;
            if (runs > 0) quiet.emplace(discard);
            Outputs o = execute(&m, c);
            if (runs++ == 0) first = c;
            return o;
          },
          output_labels, result);
      counters = first;
      hazards_ = std::move(judged.violations);
      if (!judged.error.empty() && options_.differential_throws) throw KernelFault(judged.error);
    } else if (options_.check_hazards && options_.hazard_policy == HazardPolicy::Report) {
      HazardMonitor m(*prog);
      result = execute(&m, counters);
      hazards_ = m.violations();
    } else {
      result = execute(nullptr, counters);
    }
    found = std::move(counters.lds_races);  // the first (new-value) run's
  } catch (...) {
    stats_.wave_instructions = counters.wave_instructions;
    stats_.mfma_instructions = counters.mfma_instructions;
    stats_.workgroups = counters.workgroups;
  stats_.parallel = counters.parallel;
    stats_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!watches) merge_hazards();  // a watched rerun (LDS race pcs) would count the sites twice
    throw;
  }

  std::size_t j = 0;
  for (const auto& arg : dispatch.args)
    if (arg.kind == device::KernelArg::Kind::Buffer && arg.writable && !arg.null) {
      const auto& r = result[j++];
      if (!arg.buffer.empty()) std::memcpy(arg.buffer.data(), r.data(), arg.buffer.size());
    }
  if (!watches) merge_hazards();

  stats_.wave_instructions = counters.wave_instructions;
  stats_.mfma_instructions = counters.mfma_instructions;
  stats_.workgroups = counters.workgroups;
  stats_.parallel = counters.parallel;
  stats_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace cdna::simulator
