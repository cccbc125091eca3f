#include "simulator/checks/pending_stores.hpp"

#include <cstring>
#include <stdexcept>

namespace cdna::simulator {

void PendingStores::note_access(std::uint64_t stamp) {
  if (!entries_.empty() && entries_.back().stamp != stamp) entries_.push_back(Entry{stamp, {}});
}

void PendingStores::add(std::uint64_t stamp, std::uint64_t addr, std::uint32_t n, Scope scope, const void* src) {
  Store s{addr, n, scope, {}};
  if (n == 0 || n > s.bytes.size()) throw std::logic_error("memory model: a lane store of more than 16 bytes");
  std::memcpy(s.bytes.data(), src, n);
  if (entries_.empty() || entries_.back().stamp != stamp) entries_.push_back(Entry{stamp, {}});
  entries_.back().stores.push_back(s);
  per_dword(addr, n, [&](std::uint64_t d) { ++dwords_[d]; });
}

bool PendingStores::overlaps(std::uint64_t addr, std::uint32_t n) const {
  if (dwords_.empty() || n == 0) return false;
  bool hit = false;
  per_dword(addr, n, [&](std::uint64_t d) { hit = hit || dwords_.count(d) != 0; });
  return hit;
}

void PendingStores::perform(Entry& e, CacheModel& caches, std::uint32_t cu) {
  for (const Store& s : e.stores) {
    caches.store(cu, s.addr, s.n, s.scope, s.bytes.data());
    per_dword(s.addr, s.n, [&](std::uint64_t d) {
      if (auto it = dwords_.find(d); it != dwords_.end() && --it->second == 0) dwords_.erase(it);
    });
  }
  e.stores.clear();
}

void PendingStores::pop_completed() {
  while (!entries_.empty() && entries_.front().stores.empty()) entries_.pop_front();
}

void PendingStores::complete_all(CacheModel& caches, std::uint32_t cu) {
  for (Entry& e : entries_) perform(e, caches, cu);
  entries_.clear();
}

void PendingStores::complete_youngest(CacheModel& caches, std::uint32_t cu, std::uint64_t round) {
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it)
    if (!it->stores.empty() && it->not_before <= round) {
      perform(*it, caches, cu);
      break;
    }
  pop_completed();
}

}  // namespace cdna::simulator
