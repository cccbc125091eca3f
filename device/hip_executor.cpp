#include "device/hip_executor.hpp"

#include <hip/hip_runtime_api.h>

#include <fstream>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace cdna::device {
namespace {

void check(hipError_t err, std::string_view what) {
  if (err != hipSuccess) {
    throw std::runtime_error("HIP runtime: " + std::string(what) + " failed: " +
                             hipGetErrorName(err));
  }
}

// A HIP call's integer result as text, or "unknown (<error name>)".
template <class F>
std::string hip_int(F&& call) {
  int value = 0;
  const hipError_t err = call(&value);
  return err == hipSuccess ? std::to_string(value) : std::string("unknown (") + hipGetErrorName(err) + ")";
}

// The first line of /opt/rocm/.info/version (ROCm's installed version), or "" when unreadable.
std::string installed_rocm_version() {
  std::ifstream in("/opt/rocm/.info/version");
  std::string line;
  std::getline(in, line);
  return in ? line : "";
}

class HipExecutor final : public Executor {
 public:
  HipExecutor(int device, std::string name) : device_(device), name_(std::move(name)) {}

  std::string name() const override { return "hip:" + name_; }

  Description describe() const override {
    Description d{{"executor", "hip"}};
    hipDeviceProp_t prop{};
    if (const hipError_t err = hipGetDeviceProperties(&prop, device_); err != hipSuccess) {
      d.emplace_back("device", std::string("unknown (hipGetDeviceProperties: ") + hipGetErrorName(err) + ")");
    } else {
      d.emplace_back("device", prop.name);
      d.emplace_back("gcn_arch_name", prop.gcnArchName);
      char bus[64] = {};
      d.emplace_back("pci_bus_id", hipDeviceGetPCIBusId(bus, sizeof bus, device_) == hipSuccess ? bus : "unknown");
    }
    // Through hipDeviceGetAttribute (kHz, as the HIP runtime API reference documents these
    // attributes), which every HIP version has, rather than hipDeviceProp_t fields whose set changes
    // between HIP versions.
    auto attribute = [this](hipDeviceAttribute_t a) {
      return hip_int([&](int* v) { return hipDeviceGetAttribute(v, a, device_); });
    };
    d.emplace_back("compute_units", attribute(hipDeviceAttributeMultiprocessorCount));
    d.emplace_back("clock_rate_khz", attribute(hipDeviceAttributeClockRate));
    d.emplace_back("memory_clock_rate_khz", attribute(hipDeviceAttributeMemoryClockRate));
    d.emplace_back("driver_version", hip_int([](int* v) { return hipDriverGetVersion(v); }));
    d.emplace_back("hip_runtime_version", hip_int([](int* v) { return hipRuntimeGetVersion(v); }));
    d.emplace_back("build_hip", build_hip());
    if (const std::string v = installed_rocm_version(); !v.empty()) d.emplace_back("rocm_installed", v);
    return d;
  }

  // Occupancy API (blocks per CU for this kernel, block size and dynamic LDS) × CU count.
  std::uint64_t max_resident_workgroups(std::span<const std::byte> code_object,
                                        const Dispatch& dispatch) override {
    check(hipSetDevice(device_), "hipSetDevice");
    hipModule_t module = nullptr;
    check(hipModuleLoadData(&module, code_object.data()), "hipModuleLoadData");
    int per_cu = 0;
    hipDeviceProp_t prop{};
    hipFunction_t fn = nullptr;
    hipError_t err = hipModuleGetFunction(&fn, module, dispatch.kernel.c_str());
    if (err == hipSuccess) {
      err = hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(
          &per_cu, fn, static_cast<int>(dispatch.block[0] * dispatch.block[1] * dispatch.block[2]),
          dispatch.dynamic_lds_bytes);
    }
    if (err == hipSuccess) err = hipGetDeviceProperties(&prop, device_);
    (void)hipModuleUnload(module);
    check(err, "occupancy of '" + dispatch.kernel + "'");
    return static_cast<std::uint64_t>(per_cu) * static_cast<std::uint64_t>(prop.multiProcessorCount);
  }

  void run(std::span<const std::byte> code_object, const Dispatch& dispatch) override {
    check(hipSetDevice(device_), "hipSetDevice");
    hipModule_t module = nullptr;
    check(hipModuleLoadData(&module, code_object.data()), "hipModuleLoadData");
    std::vector<void*> device_ptrs(dispatch.args.size(), nullptr);
    try {
      hipFunction_t fn = nullptr;
      check(hipModuleGetFunction(&fn, module, dispatch.kernel.c_str()),
            "hipModuleGetFunction('" + dispatch.kernel + "')");
      std::vector<void*> params(dispatch.args.size(), nullptr);
      for (std::size_t i = 0; i < dispatch.args.size(); ++i) {
        const KernelArg& a = dispatch.args[i];
        if (a.kind == KernelArg::Kind::Buffer && a.null) {
          params[i] = &device_ptrs[i];  // stays nullptr
        } else if (a.kind == KernelArg::Kind::Buffer) {
          check(hipMalloc(&device_ptrs[i], a.buffer.size()), "hipMalloc");
          check(hipMemcpyHtoD(device_ptrs[i], a.buffer.data(), a.buffer.size()), "hipMemcpyHtoD");
          params[i] = &device_ptrs[i];
        } else {
          params[i] = const_cast<std::byte*>(a.value.data());
        }
      }
      for (const SymbolWrite& w : dispatch.symbols) {
        hipDeviceptr_t at = nullptr;
        std::size_t size = 0;
        check(hipModuleGetGlobal(&at, &size, module, w.symbol.c_str()), "hipModuleGetGlobal('" + w.symbol + "')");
        if (w.bytes.size() > size)
          throw std::runtime_error("symbol '" + w.symbol + "' holds " + std::to_string(size) + " bytes; " +
                                   std::to_string(w.bytes.size()) + " given");
        check(hipMemcpyHtoD(at, const_cast<std::byte*>(w.bytes.data()), w.bytes.size()), "hipMemcpyHtoD(symbol)");
      }
      check(hipModuleLaunchKernel(fn, dispatch.grid[0], dispatch.grid[1], dispatch.grid[2],
                                  dispatch.block[0], dispatch.block[1], dispatch.block[2],
                                  dispatch.dynamic_lds_bytes, nullptr, params.data(), nullptr),
            "hipModuleLaunchKernel");
      check(hipDeviceSynchronize(), "kernel execution");
      for (std::size_t i = 0; i < dispatch.args.size(); ++i) {
        const KernelArg& a = dispatch.args[i];
        if (a.kind == KernelArg::Kind::Buffer && a.writable && !a.null) {
          check(hipMemcpyDtoH(a.buffer.data(), device_ptrs[i], a.buffer.size()), "hipMemcpyDtoH");
        }
      }
    } catch (...) {
      for (void* p : device_ptrs) (void)hipFree(p);
      (void)hipModuleUnload(module);
      throw;
    }
    for (void* p : device_ptrs) (void)hipFree(p);
    (void)hipModuleUnload(module);
  }

 private:
  int device_;
  std::string name_;
};

}  // namespace

std::string build_hip() { return CDNA_BUILD_HIP; }

std::unique_ptr<Executor> make_hip_executor(std::string& why_not, bool* wrong_device) {
  if (wrong_device) *wrong_device = false;
  int count = 0;
  if (hipError_t err = hipGetDeviceCount(&count); err != hipSuccess || count == 0) {
    why_not = std::string("HIP runtime: no device (") +
              (err != hipSuccess ? hipGetErrorName(err) : "0 devices") + ")";
    return nullptr;
  }
  std::string archs;
  for (int d = 0; d < count; ++d) {
    hipDeviceProp_t prop{};
    if (hipGetDeviceProperties(&prop, d) != hipSuccess) continue;
    const std::string_view arch(prop.gcnArchName);
    if (arch.substr(0, 6) == "gfx942") return std::make_unique<HipExecutor>(d, prop.name);
    archs += (archs.empty() ? "" : ", ") + std::string(prop.name) + " " + std::string(arch);
  }
  why_not = "HIP runtime: " + std::to_string(count) + " device(s), none is gfx942 (" + archs + ")";
  if (wrong_device) *wrong_device = true;
  return nullptr;
}

}  // namespace cdna::device
