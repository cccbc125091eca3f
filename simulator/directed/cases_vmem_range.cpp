// Directed cases: the buffer range check with a nonzero SOFFSET and instruction offset, for
// every MUBUF/MTBUF form the simulator executes (loads of 1-4 dwords and sub-dword, stores,
// atomics, loads to LDS, format loads/stores, MTBUF loads/stores). The rule modelled here
// (simulator/README.md "Buffer range checking"): a raw V# (stride 0) counts num_records in
// bytes, and a piece of an access at byte offset rel = voffset + inst offset + soffset from the
// V# base is in range iff rel + its size <= num_records; the pieces are the dwords of a 1-4
// dword load/store (a sub-dword element is one piece), while atomics, format and MTBUF accesses
// are one piece (all or nothing). Out-of-range loads give 0 (to LDS too), stores and atomics
// are dropped, a returning atomic returns 0.
//
// Every case: V# in s[56:59] over `mem` (stride 0), soffset s64 = 0x100, inst offset 8,
// voffset v64 = E * lane for an element of E bytes, so lane l's element starts at byte
// rel(l) = 0x108 + E*l. num_records puts the edge at lane 40: lane 39 ends exactly at the
// limit or inside it, lane 40 crosses it (mid-element where the form has pieces) and later
// lanes lie past it, all inside the 16 KiB `mem` buffer, so a check that ignored SOFFSET
// would read or write real memory there and the case would fail.
#include <string>

#include "simulator/directed/cases.hpp"

namespace cdna::simulator::directed {
namespace {

constexpr u32 kBase = 0x100 + 8;  // soffset + inst offset

u32& out(State& s, int k, int l) { return s.vout[static_cast<std::size_t>(k)][static_cast<std::size_t>(l)]; }
u32 in(const State& s, int k, int l) { return s.vin[static_cast<std::size_t>(k)][static_cast<std::size_t>(l)]; }
u32 rel(u32 e, int l) { return kBase + e * static_cast<u32>(l); }

// V# (raw, base = mem, num_records `nr`, word3 `w3`), soffset and voffset = e * lane.
std::string setup(u32 nr, u32 w3, u32 e) {
  // s7 < 2^16 (a user address is below 2^48): stride and swizzle bits stay 0.
  return "  s_mov_b32 s56, s6\n  s_mov_b32 s57, s7\n  s_mov_b32 s58, " + std::to_string(nr) +
         "\n  s_mov_b32 s59, " + std::to_string(w3) + "\n  s_movk_i32 s64, 0x100\n  v_mul_u32_u24 v64, " +
         std::to_string(e) + ", v0\n";
}
const std::string kTail = ", v64, s[56:59], s64 offen offset:8\n  s_waitcnt vmcnt(0)\n";
constexpr u32 kUntyped = 0x27000;  // word3 of the untyped cases (format ignored)

// Loads (into v32..) or stores (from v10..) of `dwords` dwords: E = 4*dwords, lane 40 keeps
// its first `keep` dwords.
void dword_access(std::vector<Case>& cs, bool load, u32 dwords, u32 keep) {
  const std::string m = std::string(load ? "buffer_load_dword" : "buffer_store_dword") + (dwords > 1 ? "x" + std::to_string(dwords) : "");
  const u32 e = 4 * dwords, nr = rel(e, 40) + 4 * keep;
  const int first = load ? 32 : 10;
  const std::string regs = dwords == 1 ? "v" + std::to_string(first) : "v[" + std::to_string(first) + ":" + std::to_string(first + static_cast<int>(dwords) - 1) + "]";
  cs.push_back({m, setup(nr, kUntyped, e) + "  " + m + " " + regs + kTail, [=](State& s) {
                  for (int l = 0; l < kLanes; ++l)
                    for (u32 d = 0; d < dwords; ++d) {
                      const u32 at = rel(e, l) + 4 * d;
                      const bool inside = at + 4 <= nr;
                      if (load) out(s, static_cast<int>(d), l) = inside ? static_cast<u32>(peek(s, at, 4)) : 0u;
                      else if (inside) poke(s, at, in(s, static_cast<int>(d), l), 4);
                    }
                }});
}

// Format and MTBUF accesses of the 16_16 UINT format (E = 4: two 16-bit components), lane 40's
// element crossing the limit by 2 bytes: all or nothing, so lane 40 reads 0 / writes nothing.
constexpr u32 kSelXyzw = 4u | 5u << 3 | 6u << 6 | 7u << 9;
constexpr u32 kFmt1616Uint = (5u << 15) | (4u << 12);
void format_cases(std::vector<Case>& cs) {
  const u32 e = 4, nr = rel(e, 40) + 2;
  for (const bool typed : {false, true}) {
    // MTBUF: the V#'s own format (32 FLOAT) must not be the one used.
    const u32 w3 = kSelXyzw | (typed ? (4u << 15) | (7u << 12) : kFmt1616Uint);
    const std::string fmt = typed ? " format:[BUF_DATA_FORMAT_16_16,BUF_NUM_FORMAT_UINT]" : "";
    const std::string pre = typed ? "tbuffer_" : "buffer_";
    const std::string tail = ", v64, s[56:59], s64" + fmt + " offen offset:8\n  s_waitcnt vmcnt(0)\n";
    cs.push_back({pre + "load_format_xy", setup(nr, w3, e) + "  " + pre + "load_format_xy v[32:33]" + tail, [=](State& s) {
                    for (int l = 0; l < kLanes; ++l) {
                      const bool inside = rel(e, l) + e <= nr;
                      out(s, 0, l) = inside ? static_cast<u32>(peek(s, rel(e, l), 2)) : 0u;
                      out(s, 1, l) = inside ? static_cast<u32>(peek(s, rel(e, l) + 2, 2)) : 0u;
                    }
                  }});
    cs.push_back({pre + "store_format_xy", setup(nr, w3, e) + "  " + pre + "store_format_xy v[10:11]" + tail, [=](State& s) {
                    for (int l = 0; l < kLanes; ++l) {
                      if (rel(e, l) + e > nr) continue;
                      poke(s, rel(e, l), in(s, 0, l) & 0xffffu, 2);
                      poke(s, rel(e, l) + 2, in(s, 1, l) & 0xffffu, 2);
                    }
                  }});
  }
}

}  // namespace

void add_vmem_range_cases(std::vector<Case>& cs) {
  // Lane 39 ends exactly at the limit; lane 40 is the first one out.
  dword_access(cs, true, 1, 0);
  dword_access(cs, false, 1, 0);
  // Lane 40 keeps its first dword (ends at the limit) and loses the second: checked per dword.
  dword_access(cs, true, 2, 1);
  dword_access(cs, false, 2, 1);
  // A dword that starts inside the limit but ends past it is out (num_records 2 bytes into it).
  {
    const u32 e = 16, nr = rel(e, 40) + 4 + 2;
    cs.push_back({"buffer_load_dwordx4", setup(nr, kUntyped, e) + "  buffer_load_dwordx4 v[32:35]" + kTail, [=](State& s) {
                    for (int l = 0; l < kLanes; ++l)
                      for (u32 d = 0; d < 4; ++d) {
                        const u32 at = rel(e, l) + 4 * d;
                        out(s, static_cast<int>(d), l) = at + 4 <= nr ? static_cast<u32>(peek(s, at, 4)) : 0u;
                      }
                  }});
  }
  // A sub-dword element is one piece: lane 40's short has one byte in range and reads 0.
  {
    const u32 e = 2, nr = rel(e, 40) + 1;
    cs.push_back({"buffer_load_ushort", setup(nr, kUntyped, e) + "  buffer_load_ushort v32" + kTail, [=](State& s) {
                    for (int l = 0; l < kLanes; ++l)
                      out(s, 0, l) = rel(e, l) + 2 <= nr ? static_cast<u32>(peek(s, rel(e, l), 2)) : 0u;
                  }});
  }
  // Atomics are all or nothing: lane 40's 8-byte element has its first dword in range, yet
  // nothing is read or written and 0 returns (data v[10:11] copied into v[32:33], sc0).
  {
    const u32 e = 8, nr = rel(e, 40) + 4;
    cs.push_back({"buffer_atomic_add_x2",
                  setup(nr, kUntyped, e) + "  v_mov_b32 v32, v10\n  v_mov_b32 v33, v11\n  buffer_atomic_add_x2 v[32:33]" +
                      ", v64, s[56:59], s64 offen offset:8 sc0\n  s_waitcnt vmcnt(0)\n",
                  [=](State& s) {
                    for (int l = 0; l < kLanes; ++l) {
                      u64 old = 0;
                      if (rel(e, l) + e <= nr) {
                        old = peek(s, rel(e, l), 8);
                        poke(s, rel(e, l), old + (u64{in(s, 0, l)} | (u64{in(s, 1, l)} << 32)), 8);
                      }
                      out(s, 0, l) = static_cast<u32>(old);
                      out(s, 1, l) = static_cast<u32>(old >> 32);
                    }
                  }});
  }
  // Load to LDS: M0 = 0x400, lane l's dword lands at M0 + inst offset + 4l = 0x408 + 4l (those
  // LDS words first hold v10); lanes past the limit write 0 there. Read back into v32.
  {
    const u32 e = 4, nr = rel(e, 40);
    cs.push_back({"buffer_load_dword",
                  setup(nr, kUntyped, e) + "  s_movk_i32 m0, 0x400\n  v_lshlrev_b32 v65, 2, v0\n  v_add_u32 v65, 0x408, v65\n"
                  "  ds_write_b32 v65, v10\n  s_waitcnt lgkmcnt(0)\n  buffer_load_dword v64, s[56:59], s64 offen offset:8 lds\n"
                  "  s_waitcnt vmcnt(0)\n  ds_read_b32 v32, v65\n  s_waitcnt lgkmcnt(0)\n",
                  [=](State& s) {
                    s.m0 = 0x400;
                    for (int l = 0; l < kLanes; ++l)
                      out(s, 0, l) = rel(e, l) + 4 <= nr ? static_cast<u32>(peek(s, rel(e, l), 4)) : 0u;
                  }});
  }
  format_cases(cs);
}

}  // namespace cdna::simulator::directed
