// Instruction classes and memory footprints for run statistics (cdna-verify sim): derived once
// per dispatch from the disassembly text, counted in the scheduler's dispatch loop.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

namespace cdna::simulator {

enum class InstClass : std::uint8_t { Salu, Smem, Valu, Vmem, Lds, Mfma, Other, kCount };
inline constexpr std::size_t kInstClassCount = static_cast<std::size_t>(InstClass::kCount);
// "SALU", "SMEM", "VALU", "VMEM", "LDS", "MFMA", "branch/other".
std::string_view inst_class_name(InstClass c);

// Bytes one active lane reads and writes (global/flat, scratch or LDS): an estimate of traffic
// as active lanes x access size (atomics count both; ds_permute/bpermute/swizzle count none).
struct InstFootprint {
  InstClass cls = InstClass::Other;
  bool scratch = false;               // scratch_*: private memory, not global
  std::uint8_t read_per_lane = 0;
  std::uint8_t write_per_lane = 0;
};

// Classifies one instruction by its disassembly (mnemonic first).
InstFootprint classify_instruction(std::string_view text);

// Counters the scheduler fills while `InstStatsScope` is alive on the thread that runs the
// dispatch (SimulatorExecutor opens one per run); no scope: nothing is counted.
struct InstStats {
  std::array<std::uint64_t, kInstClassCount> by_class{};
  std::uint64_t global_read_bytes = 0, global_write_bytes = 0;
  std::uint64_t scratch_read_bytes = 0, scratch_write_bytes = 0;
  std::uint64_t lds_read_bytes = 0, lds_write_bytes = 0;

  // Memory traffic of one instruction about to run with `exec`.
  void count_traffic(const InstFootprint& f, std::uint64_t exec) {
    const auto lanes = static_cast<std::uint64_t>(__builtin_popcountll(exec));
    if (f.cls == InstClass::Lds) {
      lds_read_bytes += lanes * f.read_per_lane;
      lds_write_bytes += lanes * f.write_per_lane;
    } else if (f.scratch) {
      scratch_read_bytes += lanes * f.read_per_lane;
      scratch_write_bytes += lanes * f.write_per_lane;
    } else {
      global_read_bytes += lanes * f.read_per_lane;
      global_write_bytes += lanes * f.write_per_lane;
    }
  }
};
InstStats* current_inst_stats();
class InstStatsScope {
 public:
  explicit InstStatsScope(InstStats& s);
  ~InstStatsScope();
  InstStatsScope(const InstStatsScope&) = delete;
  InstStatsScope& operator=(const InstStatsScope&) = delete;

 private:
  InstStats* previous_;
};

}  // namespace cdna::simulator
