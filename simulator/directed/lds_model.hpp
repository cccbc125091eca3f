// The DS cases' model of LDS (cases_lds.cpp, cases_ds_atomic.cpp): a byte image with a
// written flag per byte, the 4 KiB image every DS body writes first, its read-back, the
// partial-EXEC helpers and ds_case (a body and its model from a per-lane operation).
//
// The simulator starts LDS zeroed, the hardware does not: every body first writes a 4 KiB LDS
// image (prefill below) and reads only bytes it wrote; the model's LDS throws on a read of an
// unwritten byte, so a body that relied on the zeroes fails instead of passing by accident.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "simulator/directed/harness.hpp"

namespace cdna::simulator::directed {

using u8 = std::uint8_t;

// The model's LDS: bytes plus a written flag per byte (64 KiB, the kernel's allocation).
struct Lds {
  std::vector<u8> bytes = std::vector<u8>(65536, 0);
  std::vector<bool> known = std::vector<bool>(65536, false);
  u64 rd(u32 a, int n) const {
    u64 v = 0;
    for (int i = 0; i < n; ++i) {
      const std::size_t at = a + static_cast<u32>(i);
      if (at >= bytes.size() || !known[at])
        throw std::logic_error("model reads LDS byte " + std::to_string(at) + " the body never wrote");
      v |= static_cast<u64>(bytes[at]) << (8 * i);
    }
    return v;
  }
  void wr(u32 a, u64 v, int n) {
    for (int i = 0; i < n; ++i) {
      const std::size_t at = a + static_cast<u32>(i);
      bytes.at(at) = static_cast<u8>(v >> (8 * i));
      known[at] = true;
    }
  }
};

constexpr u32 kXor = 0x9e3779b9u;  // regions 2 and 3 of the image: vin ^ kXor

// Body prefix: v64 = 16 * lane; the image's region r (r = 0..3, at byte r*1024) holds, in the
// 16 bytes of lane l, the words w(r, k, l) = vin[(4r + k) % 8][l] ^ (r >= 2 ? kXor : 0).
// v65 = 4 * (lane & 15) (16 words shared by 4 lanes each, for accumulating atomics).
inline std::string prefill() {
  std::string b = "  v_lshlrev_b32 v64, 4, v0\n  v_and_b32 v65, 15, v0\n  v_lshlrev_b32 v65, 2, v65\n";
  for (int k = 0; k < 8; ++k)
    b += "  v_xor_b32 v" + std::to_string(70 + k) + ", 0x9e3779b9, v" + std::to_string(10 + k) + "\n";
  for (int r = 0; r < 4; ++r)
    for (int k = 0; k < 4; ++k)
      b += "  ds_write_b32 v64, v" + std::to_string((r < 2 ? 10 : 70) + 4 * (r % 2) + k) +
           " offset:" + std::to_string(1024 * r + 4 * k) + "\n";
  return b;
}

inline void prefill_model(const State& s, Lds& m) {
  for (int l = 0; l < kLanes; ++l)
    for (int r = 0; r < 4; ++r)
      for (int k = 0; k < 4; ++k)
        m.wr(static_cast<u32>(1024 * r + 16 * l + 4 * k),
             s.vin[static_cast<std::size_t>((4 * r + k) % 8)][static_cast<std::size_t>(l)] ^ (r >= 2 ? kXor : 0u), 4);
}

// Reads back the whole 4 KiB image into v36..v51 (lane l: its 16 bytes of each region).
inline const char* const kReadBack =
    "  s_waitcnt lgkmcnt(0)\n"
    "  ds_read_b128 v[36:39], v64\n  ds_read_b128 v[40:43], v64 offset:1024\n"
    "  ds_read_b128 v[44:47], v64 offset:2048\n  ds_read_b128 v[48:51], v64 offset:3072\n"
    "  s_waitcnt lgkmcnt(0)\n";

inline void read_back_model(State& s, const Lds& m) {
  for (int l = 0; l < kLanes; ++l)
    for (int r = 0; r < 4; ++r)
      for (int k = 0; k < 4; ++k)
        s.vout[static_cast<std::size_t>(4 + 4 * r + k)][static_cast<std::size_t>(l)] =
            static_cast<u32>(m.rd(static_cast<u32>(1024 * r + 16 * l + 4 * k), 4));
}

inline u32& vo(State& s, int k, int l) { return s.vout[static_cast<std::size_t>(k)][static_cast<std::size_t>(l)]; }
inline u32 vi(const State& s, int k, int l) { return s.vin[static_cast<std::size_t>(k)][static_cast<std::size_t>(l)]; }
inline u32 addr(int l) { return static_cast<u32>(16 * l); }

// The lanes an instruction bracketed by kMaskOn/kMaskOff runs on: s[16:17].
inline const char* const kMaskOn = "  s_mov_b64 exec, s[16:17]\n";
inline const char* const kMaskOff = "  s_mov_b64 exec, -1\n";
inline u64 mask_of(const State& s) { return sgpr_pair(s, 0); }
inline bool on(u64 mask, int l) { return (mask >> l) & 1; }
// A mixed, seed-dependent mask (the Int values of s16/s17 may be 0 or all ones).
inline void mixed_mask(State& s) {
  s.sin[0] = s.mem[0] | 0x00000101u;
  s.sin[1] = s.mem[1] & 0xfeffffffu;
}

using LaneOp = std::function<void(State&, Lds&, int)>;
using Init = std::function<void(State&)>;

// Body: prefill, the ops (under the mixed EXEC mask s[16:17] when `masked`), read-back. Model:
// `op` for every active lane in lane order, then the read-back.
inline void ds_case(std::vector<Case>& cs, const std::string& m, const std::string& ops, bool masked,
                    LaneOp op, Values values = Values::Int, Init init = nullptr) {
  const std::string body = prefill() + "  s_waitcnt lgkmcnt(0)\n" + (masked ? kMaskOn : "") + ops +
                           (masked ? kMaskOff : "") + kReadBack;
  cs.push_back({m, body,
                [=](State& s) {
                  Lds lds;
                  prefill_model(s, lds);
                  const u64 mask = masked ? mask_of(s) : ~0ull;
                  for (int l = 0; l < kLanes; ++l)
                    if (on(mask, l)) op(s, lds, l);
                  read_back_model(s, lds);
                },
                values, [=](State& s) {
                  if (masked) mixed_mask(s);
                  if (init) init(s);
                }});
}

}  // namespace cdna::simulator::directed
