#include "device/executor.hpp"

namespace cdna::device {

KernelArg KernelArg::input(std::span<const std::byte> bytes) {
  KernelArg a;
  a.kind = Kind::Buffer;
  // The executor only reads a non-writable buffer; the span type is shared with outputs.
  a.buffer = std::span<std::byte>(const_cast<std::byte*>(bytes.data()), bytes.size());
  a.writable = false;
  return a;
}

KernelArg KernelArg::output(std::span<std::byte> bytes) {
  KernelArg a;
  a.kind = Kind::Buffer;
  a.buffer = bytes;
  a.writable = true;
  return a;
}

KernelArg KernelArg::null_pointer() {
  KernelArg a;
  a.kind = Kind::Buffer;
  a.null = true;
  return a;
}

}  // namespace cdna::device
