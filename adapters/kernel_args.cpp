#include "adapters/kernel_args.hpp"

#include <cstring>
#include <stdexcept>

namespace cdna::adapters {

KernelArgs::KernelArgs(const simulator::KernelInfo& kernel, std::string label)
    : kernel_(kernel), label_(std::move(label)) {}

const simulator::ArgInfo& KernelArgs::field(const std::string& name, bool buffer, std::size_t size) const {
  for (const auto& a : kernel_.args) {
    if (a.is_hidden() || a.name != name) continue;
    const bool is_buffer = a.kind == simulator::ArgKind::GlobalBuffer;
    if (is_buffer != buffer || (!buffer && a.size != size))
      throw std::runtime_error(label_ + ": kernel argument '" + name + "' is " + a.value_kind + " of " +
                               std::to_string(a.size) + " bytes; the adapter passes " +
                               (buffer ? "a buffer" : "a " + std::to_string(size) + "-byte value"));
    return a;
  }
  throw std::runtime_error(label_ + ": kernel " + kernel_.name + " declares no argument '" + name +
                           "'; its metadata does not match the layout this adapter expects");
}

bool KernelArgs::declares(const std::string& name) const {
  for (const auto& a : kernel_.args)
    if (!a.is_hidden() && a.name == name) return true;
  return false;
}

KernelArgs& KernelArgs::input(const std::string& name, std::span<const std::byte> bytes) {
  field(name, true, 8);
  set_[name] = device::KernelArg::input(bytes);
  return *this;
}

KernelArgs& KernelArgs::output(const std::string& name, std::span<std::byte> bytes) {
  field(name, true, 8);
  set_[name] = device::KernelArg::output(bytes);
  return *this;
}

KernelArgs& KernelArgs::null_pointer(const std::string& name) {
  field(name, true, 8);
  set_[name] = device::KernelArg::null_pointer();
  return *this;
}

KernelArgs& KernelArgs::value(const std::string& name, const void* bytes, std::size_t size) {
  field(name, false, size);
  device::KernelArg a;
  a.kind = device::KernelArg::Kind::Value;
  a.value.resize(size);
  std::memcpy(a.value.data(), bytes, size);
  set_[name] = std::move(a);
  return *this;
}

KernelArgs& KernelArgs::u32(const std::string& name, std::uint32_t v) { return value(name, &v, 4); }
KernelArgs& KernelArgs::i32(const std::string& name, std::int32_t v) { return value(name, &v, 4); }
KernelArgs& KernelArgs::f32(const std::string& name, float v) { return value(name, &v, 4); }

std::vector<device::KernelArg> KernelArgs::build() const {
  std::vector<device::KernelArg> out;
  std::string missing;
  for (const auto& a : kernel_.args) {
    if (a.is_hidden()) continue;
    if (a.name == "pad") {
      if (a.kind == simulator::ArgKind::GlobalBuffer) {
        out.push_back(device::KernelArg::null_pointer());
      } else {
        device::KernelArg z;
        z.kind = device::KernelArg::Kind::Value;
        z.value.assign(a.size, std::byte{0});
        out.push_back(std::move(z));
      }
      continue;
    }
    auto it = set_.find(a.name);
    if (it == set_.end()) {
      missing += (missing.empty() ? "" : ", ") + (a.name.empty() ? "@" + std::to_string(a.offset) : a.name);
      continue;
    }
    out.push_back(it->second);
  }
  if (!missing.empty())
    throw std::runtime_error(label_ + ": the adapter sets no value for argument(s) " + missing + " of kernel " +
                             kernel_.name);
  return out;
}

}  // namespace cdna::adapters
