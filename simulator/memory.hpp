// Simulated global memory: exactly the set of buffers the host allocated (plus the kernarg
// segment). Any access that is not entirely inside one of them is an error; so is a store
// into a buffer the host passed as input.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cdna::simulator {

struct Region {
  std::uint64_t base = 0;
  std::uint64_t size = 0;
  std::uint8_t* data = nullptr;
  bool writable = false;
  std::string name;
};

class GlobalMemory {
 public:
  // First device address handed out; buffers are 64 KiB aligned with a 64 KiB unmapped gap
  // after each, so running off the end of one buffer never lands in the next.
  static constexpr std::uint64_t kBase = 0x0000'7f00'0000'0000ull;

  void clear();
  // Maps host storage [data, data+size) at a fresh device address and returns it.
  std::uint64_t map(std::uint8_t* data, std::uint64_t size, bool writable, std::string name);
  // Maps host storage at a given device address (code-object sections); must not overlap.
  void map_at(std::uint64_t base, std::uint8_t* data, std::uint64_t size, bool writable,
              std::string name);

  // Host pointer for [addr, addr+n) if it lies inside one region, else nullptr.
  std::uint8_t* translate(std::uint64_t addr, std::uint32_t n, bool write) {
    const Region& h = regions_.empty() ? empty_ : regions_[hint_];
    if (addr - h.base < h.size && n <= h.size - (addr - h.base) && (!write || h.writable))
      return h.data + (addr - h.base);
    return translate_slow(addr, n, write);
  }

  // One-line description of why [addr, addr+n) is not accessible (outside every buffer, or
  // a store to a read-only buffer), naming the nearest buffer.
  std::string describe_fault(std::uint64_t addr, std::uint32_t n, bool write) const;
  const std::vector<Region>& regions() const { return regions_; }

 private:
  std::uint8_t* translate_slow(std::uint64_t addr, std::uint32_t n, bool write);
  std::vector<Region> regions_;  // sorted by base
  std::size_t hint_ = 0;
  std::uint64_t next_ = kBase;
  Region empty_{};
};

}  // namespace cdna::simulator
