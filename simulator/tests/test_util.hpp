// Helpers for the simulator tests: test code objects, kernel arguments, dispatches.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "device/executor.hpp"
#include "simulator/schedule/simulator_executor.hpp"

namespace cdna::simulator::testing {

// Bytes of <CDNA_SIM_TESTDATA>/<name>.hsaco (built from simulator/testdata/<name>.hip).
std::vector<std::byte> testdata(const std::string& name);
// Bytes of a file; empty if it does not exist.
std::vector<std::byte> read_bytes(const std::string& path);

template <class T>
device::KernelArg in(const std::vector<T>& v) {
  device::KernelArg a;
  a.kind = device::KernelArg::Kind::Buffer;
  a.buffer = std::span<std::byte>(reinterpret_cast<std::byte*>(const_cast<T*>(v.data())),
                                  v.size() * sizeof(T));
  a.writable = false;
  return a;
}
template <class T>
device::KernelArg out(std::vector<T>& v) {
  device::KernelArg a;
  a.kind = device::KernelArg::Kind::Buffer;
  a.buffer = std::span<std::byte>(reinterpret_cast<std::byte*>(v.data()), v.size() * sizeof(T));
  a.writable = true;
  return a;
}
template <class T>
device::KernelArg val(const T& v) {
  device::KernelArg a;
  a.kind = device::KernelArg::Kind::Value;
  a.value.resize(sizeof(T));
  std::memcpy(a.value.data(), &v, sizeof(T));
  return a;
}

device::Dispatch dispatch(std::string kernel, std::array<std::uint32_t, 3> grid,
                          std::array<std::uint32_t, 3> block, std::vector<device::KernelArg> args,
                          std::uint32_t dynamic_lds = 0);

// The message of the std::runtime_error `f` throws ("" if it does not throw).
std::string error_of(const std::function<void()>& f);

// Deterministic pseudo-random 32-bit values.
std::vector<std::uint32_t> random_u32(std::size_t n, std::uint32_t seed);

inline float as_f(std::uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
inline std::uint32_t as_u(float f) { std::uint32_t u; std::memcpy(&u, &f, 4); return u; }

}  // namespace cdna::simulator::testing
