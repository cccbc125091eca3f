#include "simulator/schedule/parallel.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include <sched.h>

namespace cdna::simulator {

unsigned usable_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  return static_cast<unsigned>(std::max(CPU_COUNT(&set), 1));
}

namespace {

struct Tagged {
  AccessInterval a;
  std::uint64_t wg;
};

std::string wg_text(std::uint64_t lin, const std::array<std::uint32_t, 3>& g) {
  return "workgroup (" + std::to_string(lin % g[0]) + "," + std::to_string(lin / g[0] % g[1]) + "," +
         std::to_string(lin / g[0] / g[1]) + ")";
}

// The largest end among the intervals seen so far of one kind, and the largest among those of
// other workgroups than the first's: enough to tell whether any earlier interval of another
// workgroup than a given one reaches past a point.
struct Reach {
  std::uint64_t end1 = 0, end2 = 0;
  const Tagged* by1 = nullptr;
  const Tagged* by2 = nullptr;
  void add(const Tagged& t) {
    if (by1 && t.wg == by1->wg) {
      if (t.a.end > end1) end1 = t.a.end, by1 = &t;
    } else if (t.a.end > end1) {
      end2 = end1, by2 = by1;
      end1 = t.a.end, by1 = &t;
    } else if (t.a.end > end2) {
      end2 = t.a.end, by2 = &t;
    }
  }
  // An earlier interval of another workgroup than t's that overlaps t, or null.
  const Tagged* overlap(const Tagged& t) const {
    if (by1 && by1->wg != t.wg) return end1 > t.a.begin ? by1 : nullptr;
    return by2 && end2 > t.a.begin ? by2 : nullptr;
  }
};

}  // namespace

std::optional<std::string> find_communication(const std::vector<std::vector<AccessInterval>>& logs,
                                              const std::array<std::uint32_t, 3>& grid,
                                              const std::vector<Region>& regions) {
  std::vector<Tagged> all;
  for (std::size_t i = 0; i < logs.size(); ++i)
    for (const AccessInterval& a : logs[i])
      if (a.end > a.begin) all.push_back(Tagged{a, i});
  std::sort(all.begin(), all.end(), [](const Tagged& x, const Tagged& y) {
    return x.a.region != y.a.region ? x.a.region < y.a.region : x.a.begin < y.a.begin;
  });
  Reach loads, stores;
  std::uint32_t region = ~0u;
  for (const Tagged& t : all) {
    if (t.a.region != region) loads = {}, stores = {}, region = t.a.region;
    // A store meets earlier loads and stores of others; a load meets earlier stores of others.
    const Tagged* other = stores.overlap(t);
    if (!other && t.a.write) other = loads.overlap(t);
    if (other) {
      // Name the loader (if any) first: "X loads bytes Y stores" or "X and Y store bytes".
      const Tagged& first = t.a.write ? *other : t;
      const Tagged& second = t.a.write ? t : *other;
      const std::uint64_t b = t.a.begin, e = std::min(t.a.end, other->a.end);
      const std::string where = "bytes [" + std::to_string(b) + ", " + std::to_string(e) + ") of buffer '" +
                                (region < regions.size() ? regions[region].name : "?") + "'";
      if (first.a.write)
        return wg_text(std::min(first.wg, second.wg), grid) + " and " +
               wg_text(std::max(first.wg, second.wg), grid) + " both store " + where;
      return wg_text(first.wg, grid) + " loads " + where + " that " + wg_text(second.wg, grid) + " stores";
    }
    (t.a.write ? stores : loads).add(t);
  }
  return std::nullopt;
}

BufferSnapshot::BufferSnapshot(const GlobalMemory& memory) {
  for (const Region& r : memory.regions())
    if (r.writable && r.size > 0) saved_.push_back(Saved{r.data, std::vector<std::uint8_t>(r.data, r.data + r.size)});
}

void BufferSnapshot::restore() const {
  for (const Saved& s : saved_) std::memcpy(s.data, s.bytes.data(), s.bytes.size());
}

}  // namespace cdna::simulator
