#include "simulator/checks/memory_model.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace cdna::simulator {

const char* to_string(MemoryModel m) { return m == MemoryModel::Cdna3 ? "cdna3" : "coherent"; }

bool parse_memory_model(const std::string& text, MemoryModel& out) {
  for (MemoryModel m : {MemoryModel::Coherent, MemoryModel::Cdna3})
    if (text == to_string(m)) {
      out = m;
      return true;
    }
  return false;
}

CacheModel::CacheModel(GlobalMemory& memory)
    : memory_(memory), l1_(kXcds * kCusPerXcd), scalar_(kXcds * kCusPerXcd), l2_(kXcds) {}

template <class F>
void CacheModel::per_line(std::uint64_t addr, std::uint32_t n, F&& f) {
  std::uint32_t done = 0;
  while (done < n) {
    const std::uint64_t a = addr + done;
    const std::uint64_t base = a & ~std::uint64_t{kLineBytes - 1};
    const std::uint32_t off = static_cast<std::uint32_t>(a - base);
    const std::uint32_t count = std::min(n - done, kLineBytes - off);
    f(base, off, done, count);
    done += count;
  }
}

std::uint8_t* CacheModel::host(std::uint64_t addr, std::uint32_t n) {
  const Region* r = memory_.find(addr);
  if (!r || n > r->size - (addr - r->base))  // the executors checked the access first
    throw std::logic_error("memory model: access outside the buffers reached the caches");
  return r->data + (addr - r->base);
}

CacheModel::Line& CacheModel::l2_line(std::uint32_t xcd, std::uint64_t base) { return l2_[xcd][base]; }

// Fills the invalid bytes of `line` that lie in buffer `r` from `from` (the byte at address a at
// the next level).
namespace {
template <class Line, class From>
void fill(Line& line, std::uint64_t base, const Region& r, From&& from) {
  if (line.valid.all()) return;  // the common case once a line has been filled
  const std::uint64_t lo = std::max(base, r.base), hi = std::min(base + kLineBytes, r.base + r.size);
  for (std::uint64_t a = lo; a < hi; ++a) {
    const std::size_t i = static_cast<std::size_t>(a - base);
    if (!line.valid[i]) {
      line.bytes[i] = from(a);
      line.valid[i] = true;
    }
  }
}
}  // namespace

void CacheModel::load(std::uint32_t cu, std::uint64_t addr, std::uint32_t n, Scope scope, void* dst) {
  const std::uint32_t xcd = cu / kCusPerXcd;
  const Region& r = *memory_.find(addr);
  auto* out = static_cast<std::uint8_t*>(dst);
  per_line(addr, n, [&](std::uint64_t base, std::uint32_t off, std::uint32_t at, std::uint32_t count) {
    if (scope >= Scope::Agent) {
      // Agent/system scope: past the (non-coherent) L1 and L2 to memory; the XCD's own dirty
      // bytes are its newest stores. The caches are not refreshed (nothing requires it).
      const std::uint8_t* m = host(base + off, count);
      auto it = l2_[xcd].find(base);
      for (std::uint32_t i = 0; i < count; ++i)
        out[at + i] = it != l2_[xcd].end() && it->second.dirty[off + i] ? it->second.bytes[off + i] : m[i];
      return;
    }
    // Wavefront/workgroup scope: L1 hit allowed; a miss fills the L1 line from the L2, whose
    // misses fill from memory.
    Line& l2 = l2_line(xcd, base);
    fill(l2, base, r, [&](std::uint64_t a) { return *host(a, 1); });
    Line& l1 = l1_[cu][base];
    fill(l1, base, r, [&](std::uint64_t a) { return l2.bytes[a - base]; });
    std::memcpy(out + at, l1.bytes.data() + off, count);
  });
}

void CacheModel::store(std::uint32_t cu, std::uint64_t addr, std::uint32_t n, Scope scope, const void* src) {
  const std::uint32_t xcd = cu / kCusPerXcd;
  const auto* in = static_cast<const std::uint8_t*>(src);
  per_line(addr, n, [&](std::uint64_t base, std::uint32_t off, std::uint32_t at, std::uint32_t count) {
    // The L1 is write-through: its copy (if any) takes the new bytes.
    auto l1 = l1_[cu].find(base);
    if (l1 != l1_[cu].end())
      for (std::uint32_t i = 0; i < count; ++i) {
        l1->second.bytes[off + i] = in[at + i];
        l1->second.valid[off + i] = true;
      }
    Line& l2 = l2_line(xcd, base);
    const bool through = scope >= Scope::Agent;  // written through the L2 to memory
    for (std::uint32_t i = 0; i < count; ++i) {
      l2.bytes[off + i] = in[at + i];
      l2.valid[off + i] = true;
      l2.dirty[off + i] = !through;
    }
    if (through) std::memcpy(host(base + off, count), in + at, count);
  });
}

void CacheModel::before_atomic(std::uint32_t cu, std::uint64_t addr, std::uint32_t n) {
  const std::uint32_t xcd = cu / kCusPerXcd;
  per_line(addr, n, [&](std::uint64_t base, std::uint32_t off, std::uint32_t, std::uint32_t count) {
    auto it = l2_[xcd].find(base);
    if (it == l2_[xcd].end()) return;
    std::uint8_t* m = host(base + off, count);
    for (std::uint32_t i = 0; i < count; ++i)
      if (it->second.dirty[off + i]) {
        m[i] = it->second.bytes[off + i];
        it->second.dirty[off + i] = false;
      }
  });
}

void CacheModel::after_atomic(std::uint32_t cu, std::uint64_t addr, std::uint32_t n) {
  const std::uint32_t xcd = cu / kCusPerXcd;
  per_line(addr, n, [&](std::uint64_t base, std::uint32_t off, std::uint32_t, std::uint32_t count) {
    const std::uint8_t* m = host(base + off, count);
    for (Cache* c : {&l1_[cu], &l2_[xcd]}) {
      auto it = c->find(base);
      if (it == c->end()) continue;
      for (std::uint32_t i = 0; i < count; ++i) {
        it->second.bytes[off + i] = m[i];
        it->second.valid[off + i] = true;
      }
    }
  });
}

void CacheModel::invalidate(std::uint32_t cu, Scope scope) {
  if (scope == Scope::Wavefront) return;
  l1_[cu].clear();
  if (scope < Scope::Agent) return;
  Cache& l2 = l2_[cu / kCusPerXcd];
  for (auto it = l2.begin(); it != l2.end();) {
    it->second.valid = it->second.dirty;  // clean bytes dropped, dirty ones kept
    it = it->second.valid.none() ? l2.erase(it) : std::next(it);
  }
}

void CacheModel::write_back(std::uint64_t base, Line& line) {
  for (std::uint32_t i = 0; i < kLineBytes; ++i)
    if (line.dirty[i]) *host(base + i, 1) = line.bytes[i];
  line.dirty.reset();
}

void CacheModel::writeback(std::uint32_t cu, Scope scope) {
  if (scope < Scope::Agent) return;
  for (auto& [base, line] : l2_[cu / kCusPerXcd])
    if (line.dirty.any()) write_back(base, line);
}

void CacheModel::scalar_load(std::uint32_t cu, std::uint64_t addr, std::uint32_t n, void* dst) {
  const std::uint32_t xcd = cu / kCusPerXcd;
  const Region& r = *memory_.find(addr);
  auto* out = static_cast<std::uint8_t*>(dst);
  per_line(addr, n, [&](std::uint64_t base, std::uint32_t off, std::uint32_t at, std::uint32_t count) {
    Line& l2 = l2_line(xcd, base);
    fill(l2, base, r, [&](std::uint64_t a) { return *host(a, 1); });
    Line& k = scalar_[cu][base];
    fill(k, base, r, [&](std::uint64_t a) { return l2.bytes[a - base]; });
    std::memcpy(out + at, k.bytes.data() + off, count);
  });
}

void CacheModel::end_dispatch() {
  for (Cache& l2 : l2_)
    for (auto& [base, line] : l2)
      if (line.dirty.any()) write_back(base, line);
}

}  // namespace cdna::simulator
