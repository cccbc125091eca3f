// A kernel's explicit arguments built by field name from its code object's metadata
// (NT_AMDGPU_METADATA `.args`, simulator::CodeObject): the layout of a foreign kernel's packed
// argument block is read from the code object, never from a copy of its struct. Every field the
// metadata lists must be set, except those named `pad` (AITER pads each field to 16 bytes), which
// are zero.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "device/executor.hpp"
#include "simulator/decode/code_object.hpp"

namespace cdna::adapters {

class KernelArgs {
 public:
  // `kernel`: the metadata of the kernel to launch; `label` names it in errors.
  KernelArgs(const simulator::KernelInfo& kernel, std::string label);

  // Sets field `name`. Throws std::runtime_error (one line) if the kernel declares no such
  // field, or declares it with another kind or size (value: its exact size in bytes).
  KernelArgs& input(const std::string& name, std::span<const std::byte> bytes);
  KernelArgs& output(const std::string& name, std::span<std::byte> bytes);
  KernelArgs& null_pointer(const std::string& name);
  KernelArgs& u32(const std::string& name, std::uint32_t v);
  KernelArgs& i32(const std::string& name, std::int32_t v);
  KernelArgs& f32(const std::string& name, float v);

  // Whether the kernel declares a field `name` (fields that some variants of a kernel lack).
  bool declares(const std::string& name) const;

  // The arguments in declaration order. Throws std::runtime_error naming every field not set.
  std::vector<device::KernelArg> build() const;

 private:
  const simulator::ArgInfo& field(const std::string& name, bool buffer, std::size_t size) const;
  KernelArgs& value(const std::string& name, const void* bytes, std::size_t size);

  const simulator::KernelInfo& kernel_;
  std::string label_;
  std::map<std::string, device::KernelArg> set_;
};

}  // namespace cdna::adapters
