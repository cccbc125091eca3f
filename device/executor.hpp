// One interface, two executors: the HIP runtime on a gfx942 device (device/hip_executor.*)
// and the CDNA3 simulator (simulator/). Both run the same code object.
#pragma once

#include <array>
#include <cstring>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace cdna::device {

// What an executor runs on, as key/value pairs in display order (e.g. {"device", "AMD Instinct
// MI300X"}, {"gcn_arch_name", "gfx942:sramecc+:xnack-"}): printed by `cdna-verify device`, `run`,
// `golden verify` and `crosscheck`, written to report.json ("executor_description").
using Description = std::vector<std::pair<std::string, std::string>>;

// One explicit kernel argument, in the kernel's declaration order.
struct KernelArg {
  enum class Kind : std::uint8_t { Buffer, Value };
  Kind kind = Kind::Value;
  // Buffer: host memory copied to the device before the launch and, if `writable`, copied
  // back after it. The kernel receives a global pointer to the device copy.
  std::span<std::byte> buffer;
  bool writable = false;
  // Value: the argument's bytes, exactly its size in the kernarg segment.
  std::vector<std::byte> value;
  // Buffer passed as the null pointer (address 0): the kernel's optional buffers, e.g. AITER's
  // varlen sequence starts in batch mode or MoonMath's unused skip lists.
  bool null = false;
  // Optional name of a buffer (e.g. "h_l0"), used in messages: the simulator's watchdog names the
  // buffer a hung wave polls by it, beside the argument index and the kernel's own argument name.
  std::string name;

  // A copy with `name` set: KernelArg::output(bytes).named("exchange").
  KernelArg named(std::string n) const {
    KernelArg a = *this;
    a.name = std::move(n);
    return a;
  }

  static KernelArg input(std::span<const std::byte> bytes);
  static KernelArg output(std::span<std::byte> bytes);
  static KernelArg null_pointer();
  template <class T>
  static KernelArg scalar(const T& v) {
    KernelArg a;
    a.kind = Kind::Value;
    a.value.resize(sizeof(T));
    std::memcpy(a.value.data(), &v, sizeof(T));
    return a;
  }
};

// Bytes written into a global variable of the code object before the launch, as
// hipMemcpyToSymbol does (MoonMath's `__device__ int4 tail_sched[]`, its tail-split schedule).
// `bytes` must fit the symbol (ELF st_size); they overwrite its first bytes.
struct SymbolWrite {
  std::string symbol;
  std::vector<std::byte> bytes;
};

// One kernel dispatch: which kernel, its grid in workgroups, workgroup size in work-items.
struct Dispatch {
  std::string kernel;                   // symbol name in the code object
  std::array<std::uint32_t, 3> grid{};  // workgroups in x, y, z
  std::array<std::uint32_t, 3> block{}; // work-items per workgroup in x, y, z
  std::uint32_t dynamic_lds_bytes = 0;
  std::vector<KernelArg> args;
  std::vector<SymbolWrite> symbols;  // applied before the launch, to this dispatch's copy of the code object
  // Names the code object in error messages (e.g. its file name); empty: the executor's own label.
  std::string code_object_name;
};

class Executor {
 public:
  virtual ~Executor() = default;
  // "simulator" or "hip:<device name>", for reports.
  virtual std::string name() const = 0;
  // What the executor runs on (see Description); the default names the executor only. Never
  // throws: a value the executor cannot read is "unknown (<why>)".
  virtual Description describe() const { return {{"executor", name()}}; }
  // Loads `code_object` (a gfx942 ELF) and runs one dispatch to completion; buffers marked
  // writable hold the results afterwards. Throws std::runtime_error with a one-line message
  // on any failure (bad code object, unknown kernel, argument mismatch, simulator error).
  virtual void run(std::span<const std::byte> code_object, const Dispatch& dispatch) = 0;
  // How many workgroups of `dispatch` (its kernel, block and dynamic LDS) can be resident at
  // once, for kernels whose workgroups wait on each other (device/decode_launcher.hpp); 0 when
  // the executor cannot tell. Throws std::runtime_error as run() does.
  virtual std::uint64_t max_resident_workgroups(std::span<const std::byte> /*code_object*/,
                                                const Dispatch& /*dispatch*/) {
    return 0;
  }
};

}  // namespace cdna::device
