#include "simulator/state/memory.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace cdna::simulator {
namespace {
std::string hex(std::uint64_t v) {
  std::ostringstream o;
  o << "0x" << std::hex << v;
  return o.str();
}
thread_local AccessLog* t_log = nullptr;
}  // namespace

void AccessLog::add(std::uint32_t region, std::uint64_t off, std::uint32_t n, bool write) {
  writes += write ? 1u : 0u;
  if (!intervals.empty()) {
    AccessInterval& last = intervals.back();
    // Lanes of one instruction usually touch consecutive or repeated bytes: extend the last run.
    if (last.region == region && last.write == write && off <= last.end && off + n >= last.begin) {
      last.begin = std::min(last.begin, off);
      last.end = std::max(last.end, off + n);
      return;
    }
  }
  intervals.push_back(AccessInterval{region, off, off + n, write});
}

void GlobalMemory::bind_log(AccessLog* log) { t_log = log; }

std::uint8_t* GlobalMemory::translate_logged(std::uint64_t addr, std::uint32_t n, bool write) {
  if (!t_log) throw std::logic_error("simulator: global memory access logging without a bound log");
  auto inside = [&](const Region& r) { return addr - r.base < r.size && n <= r.size - (addr - r.base); };
  std::size_t i = t_log->hint < regions_.size() && inside(regions_[t_log->hint]) ? t_log->hint : regions_.size();
  for (std::size_t j = 0; i == regions_.size() && j < regions_.size(); ++j)
    if (inside(regions_[j])) i = j;
  if (i == regions_.size()) return nullptr;
  const Region& r = regions_[i];
  if (write && !r.writable) return nullptr;
  t_log->hint = i;
  // Read-only buffers cannot carry anything between workgroups: only writable ones are logged.
  if (r.writable) t_log->add(static_cast<std::uint32_t>(i), addr - r.base, n, write);
  return r.data + (addr - r.base);
}

void GlobalMemory::clear() {
  regions_.clear();
  hint_ = 0;
  next_ = kBase;
  writes_ = 0;
}

std::uint64_t GlobalMemory::map(std::uint8_t* data, std::uint64_t size, bool writable,
                                std::string name) {
  constexpr std::uint64_t kAlign = 0x10000;
  std::uint64_t base = next_;
  regions_.push_back(Region{base, size, data, writable, std::move(name), {}});
  if (track_ && writable) regions_.back().written.assign((size + 63) / 64, 0);
  next_ = (base + size + kAlign - 1) / kAlign * kAlign + kAlign;  // leave an unmapped gap
  return base;
}

void GlobalMemory::map_at(std::uint64_t base, std::uint8_t* data, std::uint64_t size,
                          bool writable, std::string name) {
  regions_.push_back(Region{base, size, data, writable, std::move(name), {}});
}

std::uint8_t* GlobalMemory::translate_slow(std::uint64_t addr, std::uint32_t n, bool write) {
  // Regions are few (one per kernel argument): a linear scan is fine off the fast path.
  for (std::size_t i = 0; i < regions_.size(); ++i) {
    const Region& r = regions_[i];
    if (addr - r.base < r.size && n <= r.size - (addr - r.base)) {
      if (write && !r.writable) return nullptr;
      hint_ = i;
      writes_ += write ? 1u : 0u;
      return r.data + (addr - r.base);
    }
  }
  return nullptr;
}

const Region* GlobalMemory::find(std::uint64_t addr) const {
  for (const Region& r : regions_)
    if (addr - r.base < r.size) return &r;
  return nullptr;
}

std::uint64_t GlobalMemory::first_unwritten(const Region& r, std::uint64_t off, std::uint32_t n) {
  for (std::uint64_t i = off; i < off + n; ++i)
    if (!((r.written[i / 64] >> (i % 64)) & 1)) return i;
  return ~0ull;
}

std::uint8_t* GlobalMemory::translate_tracked(std::uint64_t addr, std::uint32_t n, bool write) {
  std::uint8_t* p = translate_slow(addr, n, write);
  if (!p) return nullptr;
  Region& r = regions_[hint_];
  if (r.written.empty()) return p;
  std::uint64_t off = addr - r.base;
  if (write) {
    for (std::uint64_t i = off; i < off + n; ++i) r.written[i / 64] |= 1ull << (i % 64);
    return p;
  }
  return first_unwritten(r, off, n) == ~0ull ? p : nullptr;
}

std::string GlobalMemory::describe_fault(std::uint64_t addr, std::uint32_t n, bool write) const {
  std::ostringstream o;
  o << (write ? "store to " : "load from ") << "address " << hex(addr) << " (" << n
    << " bytes) ";
  const Region* nearest = nullptr;
  std::uint64_t best = ~0ull;
  for (const Region& r : regions_) {
    if (addr - r.base < r.size && n <= r.size - (addr - r.base)) {
      std::uint64_t u = (!write && !r.written.empty()) ? first_unwritten(r, addr - r.base, n) : ~0ull;
      if (u != ~0ull) {
        o << "reads byte " << hex(r.base + u) << " (offset " << u << ") of output buffer " << r.name
          << " [" << hex(r.base) << ", +" << r.size
          << "), which the kernel never wrote (poison mode: output buffers start as 0xff bytes, "
             "not the host's contents); expected every byte read from an output buffer to be "
             "written first";
        return o.str();
      }
      o << "is inside read-only buffer " << r.name << " [" << hex(r.base) << ", +" << r.size
        << "); expected a store into a writable (output) buffer";
      return o.str();
    }
    std::uint64_t d = addr < r.base ? r.base - addr : addr - (r.base + r.size);
    if (addr >= r.base && addr < r.base + r.size) d = 0;
    if (d < best) {
      best = d;
      nearest = &r;
    }
  }
  o << "is outside every buffer";
  if (nearest) {
    o << " (nearest: " << nearest->name << " [" << hex(nearest->base) << ", +" << nearest->size
      << "))";
  }
  o << "; expected an address inside a buffer the host allocated";
  return o.str();
}

}  // namespace cdna::simulator
