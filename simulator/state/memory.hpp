// Simulated global memory: exactly the set of buffers the host allocated (plus the kernarg
// segment). Any access that is not entirely inside one of them is an error; so is a store
// into a buffer the host passed as input.
//
// Write tracking (poison mode, SchedulerOptions::poison): every writable buffer mapped with
// map() while tracking is on gets a bitmap of the bytes the kernel stored; a load that touches a
// never-written byte of such a buffer is an error (describe_fault says which byte). Atomics
// count as stores (their read half is not checked). writes() counts successful store
// translations; the scheduler's progress watchdog watches it.
//
// Access logging (the parallel dispatch, schedule/parallel.hpp): while on, each translation of a
// byte range inside a writable buffer is appended to the calling thread's AccessLog (bound with
// bind_log), which also counts that thread's stores; the shared lookup hint and write counter
// are then not touched, so threads may translate at once.
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
  std::vector<std::uint64_t> written;  // poison mode: bit i = byte i was stored (else empty)
};

// One run of bytes [begin, end) of buffer `region` (index into GlobalMemory::regions()) that a
// workgroup loaded (write false) or stored (write true; atomics too).
struct AccessInterval {
  std::uint32_t region = 0;
  std::uint64_t begin = 0, end = 0;
  bool write = false;
};

// The accesses to writable buffers of the workgroup a thread is running (access logging).
struct AccessLog {
  std::vector<AccessInterval> intervals;  // adjacent runs of one kind are merged
  std::uint64_t writes = 0;               // store translations (the workgroup's watchdog)
  std::size_t hint = 0;                   // this thread's lookup hint
  void add(std::uint32_t region, std::uint64_t off, std::uint32_t n, bool write);
  void clear() {
    intervals.clear();
    writes = 0;
  }
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

  // Poison mode: buffers mapped writable by map() from now on track their written bytes.
  void set_track_writes(bool on) {
    track_ = on;
    special_ = track_ || logging_;
  }
  // Access logging on or off (not together with write tracking: the parallel dispatch does not
  // run in poison mode). Every thread translating while it is on must have bound a log.
  void set_logging(bool on) {
    logging_ = on;
    special_ = track_ || logging_;
  }
  bool logging() const { return logging_; }
  // The calling thread's log (nullptr unbinds).
  static void bind_log(AccessLog* log);
  bool tracks_writes() const { return track_; }
  // Number of store translations so far (progress watchdog).
  std::uint64_t writes() const { return writes_; }

  // Host pointer for [addr, addr+n) if it lies inside one region, else nullptr (also for a
  // load of never-written bytes of a tracked buffer).
  std::uint8_t* translate(std::uint64_t addr, std::uint32_t n, bool write) {
    if (special_) return track_ ? translate_tracked(addr, n, write) : translate_logged(addr, n, write);
    const Region& h = regions_.empty() ? empty_ : regions_[hint_];
    if (addr - h.base < h.size && n <= h.size - (addr - h.base) && (!write || h.writable)) {
      writes_ += write ? 1u : 0u;
      return h.data + (addr - h.base);
    }
    return translate_slow(addr, n, write);
  }

  // One-line description of why [addr, addr+n) is not accessible (outside every buffer, or
  // a store to a read-only buffer), naming the nearest buffer.
  std::string describe_fault(std::uint64_t addr, std::uint32_t n, bool write) const;
  const std::vector<Region>& regions() const { return regions_; }
  // The buffer holding byte `addr`, or nullptr.
  const Region* find(std::uint64_t addr) const;

 private:
  std::uint8_t* translate_slow(std::uint64_t addr, std::uint32_t n, bool write);
  std::uint8_t* translate_tracked(std::uint64_t addr, std::uint32_t n, bool write);
  std::uint8_t* translate_logged(std::uint64_t addr, std::uint32_t n, bool write);
  // First never-written byte of [off, off+n) in a tracked region, or ~0 if all were written.
  static std::uint64_t first_unwritten(const Region& r, std::uint64_t off, std::uint32_t n);
  std::vector<Region> regions_;  // sorted by base
  std::size_t hint_ = 0;
  std::uint64_t next_ = kBase;
  Region empty_{};
  bool track_ = false;
  bool logging_ = false;
  bool special_ = false;  // track_ || logging_: one test on the fast path
  std::uint64_t writes_ = 0;
};

}  // namespace cdna::simulator
