// Directed instruction tests (issue 3, item 2): one small kernel per case, assembled at build
// time by llvm-mc-19 from the case's assembly body, run in the simulator, and compared with a
// model of the instruction written for the test (independently of simulator/exec_*.cpp).
//
// Every case kernel has the same frame (assembly_source() writes it):
//   prologue  loads the initial State: v10..v17 (8 input VGPRs, per lane), v32..v63 (32 output
//             VGPRs, preset), s16..s31 (16 input SGPRs), s40..s55 (16 output SGPRs, preset);
//             VCC = s[30:31], M0 = s29, SCC = bit 0 of s28, EXEC = all 64 lanes;
//             v[96:97] = address of the `mem` buffer (16 KiB, also in s[6:7]),
//             v[94:95] = 4 * lane (u64), v0 = lane.
//   body      the case's instructions. Scratch registers: v64..v93, s56..s87, a0..a127.
//             It must not write v0, v94..v100, s[0:7], s[88:95].
//   epilogue  waits 24 wait states (any MFMA result is then readable), saves EXEC, VCC, SCC, M0,
//             sets EXEC to all lanes and stores every output register and the mem buffer back.
// The comparison covers all of them, so a write to an output the model does not expect fails.
// Units: registers are 32-bit words; `mem` is 4096 words. A wave of 64 lanes, one workgroup.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace cdna::simulator::directed {

using u16 = std::uint16_t;
using u32 = std::uint32_t;
using u64 = std::uint64_t;
using i32 = std::int32_t;
using i64 = std::int64_t;

inline constexpr int kLanes = 64;
inline constexpr int kVIn = 8;      // v10..v17
inline constexpr int kVOut = 32;    // v32..v63
inline constexpr int kSIn = 16;     // s16..s31
inline constexpr int kSOut = 16;    // s40..s55
inline constexpr int kMemWords = 4096;

using Lanes = std::array<u32, kLanes>;

// Architectural state visible to a case: before the body (initial) and after it (final).
struct State {
  std::array<Lanes, kVIn> vin{};    // vin[k][lane] = v(10+k)
  std::array<Lanes, kVOut> vout{};  // vout[k][lane] = v(32+k)
  std::array<u32, kSIn> sin{};      // s(16+k)
  std::array<u32, kSOut> sout{};    // s(40+k)
  u64 exec = ~0ull;
  u64 vcc = 0;
  bool scc = false;
  u32 m0 = 0;
  std::vector<u32> mem = std::vector<u32>(kMemWords, 0);  // the 'mem' buffer, 16 KiB

  bool active(int lane) const { return (exec >> lane) & 1; }
};

// Operand values a case starts from (see initial_state()).
enum class Values {
  Int,  // random words with 0, 1, -1, INT_MIN, INT_MAX, 0xffff, 31, 32 in some lanes
  F32,  // f32: zeros, ±1, inf, NaN, denormals, f16 range edges, random magnitudes 2^-15..2^17
  F16,  // two f16 per word: zeros, ±1, inf, NaN, denormals, max, random
  F64,  // f64 in register pairs (v10:v11, v12:v13, ...; s16:s17, ...): specials and random
};

struct Case {
  std::string mnemonic;  // the instruction under test, spelled as `sim --list-instructions`
  std::string body;      // assembly lines, '\n'-separated
  std::function<void(State&)> model;  // turns the initial state into the expected final state
  Values values = Values::Int;
  std::function<void(State&)> init = nullptr;  // optional: adjusts the initial state
  // Non-empty: the run must fail with a simulator error containing this text (and naming the
  // kernel and pc, as every simulator error does); `model` is then not used.
  std::string expect_error = {};
};

// The initial state of `c` for `seed`: values of c.values in vin, sin and mem, the presets of
// vout/sout, VCC/M0/SCC from sin as above, then c.init.
State initial_state(const Case& c, u32 seed);

// Kernel symbol of case `index`.
std::string kernel_name(std::size_t index);

// The whole assembly source (text, kernel descriptors, code-object metadata) of `cases`.
std::string assembly_source(const std::vector<Case>& cases);

// Byte layouts of the kernel's buffers (little-endian words).
std::vector<u32> pack_input(const State& s);
State unpack_output(const std::vector<u32>& out, const std::vector<u32>& mem, const State& initial);
inline constexpr std::size_t kInputWords = (kVIn + kVOut) * kLanes + kSIn + kSOut;
inline constexpr std::size_t kOutputWords = kVOut * kLanes + kLanes;

// Human-readable differences between two final states ("" if equal); at most `max_lines` lines.
std::string differences(const State& expected, const State& got, int max_lines = 8);

// ---- helpers for models ----
// f(lane) for each lane active in s.exec.
void for_active(const State& s, const std::function<void(int)>& f);
u64 lane_pair(const Lanes& lo, const Lanes& hi, int lane);
void set_lane_pair(Lanes& lo, Lanes& hi, int lane, u64 v);
u64 sgpr_pair(const State& s, int first_sin);  // s[16+first_sin : 17+first_sin]
// Little-endian access to `n` (1..8) bytes of s.mem at byte `at`.
u64 peek(const State& s, u32 at, u32 n);
void poke(State& s, u32 at, u64 v, u32 n);

}  // namespace cdna::simulator::directed
