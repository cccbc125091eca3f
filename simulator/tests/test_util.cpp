#include "simulator/tests/test_util.hpp"

#include <fstream>
#include <iterator>
#include <stdexcept>

namespace cdna::simulator::testing {

std::vector<std::byte> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return {};
  std::vector<char> c((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<std::byte> b(c.size());
  std::memcpy(b.data(), c.data(), c.size());
  return b;
}

std::vector<std::byte> testdata(const std::string& name) {
  std::string path = std::string(CDNA_SIM_TESTDATA) + "/" + name + ".hsaco";
  auto b = read_bytes(path);
  if (b.empty()) throw std::runtime_error("test code object missing: " + path);
  return b;
}

device::Dispatch dispatch(std::string kernel, std::array<std::uint32_t, 3> grid,
                          std::array<std::uint32_t, 3> block, std::vector<device::KernelArg> args,
                          std::uint32_t dynamic_lds) {
  device::Dispatch d;
  d.kernel = std::move(kernel);
  d.grid = grid;
  d.block = block;
  d.args = std::move(args);
  d.dynamic_lds_bytes = dynamic_lds;
  return d;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return {};
}

std::vector<std::uint32_t> random_u32(std::size_t n, std::uint32_t seed) {
  std::vector<std::uint32_t> v(n);
  std::uint64_t s = 0x9e3779b97f4a7c15ull * (seed + 1);
  for (auto& x : v) {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    x = static_cast<std::uint32_t>((s * 0x2545f4914f6cdd1dull) >> 32);
  }
  return v;
}

}  // namespace cdna::simulator::testing
