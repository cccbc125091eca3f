// Hazards the gfx942 hardware does not interlock (cdna3-facts.md §5; LLVM GCNHazardRecognizer.cpp,
// the gfx940 paths): some producer/consumer
// pairs of instructions need a number of independent instructions ("wait states"; s_nop N gives
// N + 1) in between. The compiler inserts them for its own code but not inside inline asm or
// hand-written assembly. On hardware a missing wait state gives wrong data silently; the
// simulator, which computes every result immediately, would otherwise pass such a kernel.
//
// Every rule is one entry of a table (hazard_rules.cpp: producer roles, consumer roles, one
// function per rule giving the wait states needed for a related pair, its source), listed with
// its numbers in simulator/README.md "Hazard rules". Two users read the table:
//  - the scheduler checks every dynamic instruction of every wave (check_hazards /
//    retire_hazards) and reports a violation as an error naming both instructions;
//  - `cdna-verify lint` (tools/lint_command.cpp) walks every path of a kernel's control flow.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "simulator/decode/isa.hpp"

namespace cdna::simulator {

struct VRange {
  std::uint16_t row = 0;
  std::uint8_t n = 0;  // 0: none
};

// A set of scalar registers (indices of the 128-entry scalar file: SGPRs, VCC 106/107, M0 124,
// EXEC 126/127; simulator/decode/isa.hpp SregIndex).
struct SMask {
  std::uint64_t lo = 0, hi = 0;
  bool any() const { return (lo | hi) != 0; }
  bool meets(SMask o) const { return ((lo & o.lo) | (hi & o.hi)) != 0; }
  void add(unsigned reg, unsigned n) {
    for (unsigned r = reg; r < reg + n && r < 128; ++r) (r < 64 ? lo : hi) |= std::uint64_t{1} << (r & 63);
  }
  static SMask of(unsigned reg, unsigned n) {
    SMask m;
    m.add(reg, n);
    return m;
  }
};

// What one instruction is for the rules: its roles (below), the registers it reads and writes,
// and which rules it can be the producer or the consumer of (bits of the rule table).
struct HazardInfo {
  enum class Kind : std::uint8_t { Other, Valu, Vmem, Lds, Mfma };
  enum Role : std::uint32_t {
    kValu = 1u << 0,        // VALU, not MFMA (v_*, including DPP/SDWA forms)
    kTrans = 1u << 1,       // transcendental VALU (LLVM VOP1Instructions.td TRANS = 1)
    kMfma = 1u << 2,        // v_mfma_* / v_smfmac_*
    kDgemm = 1u << 3,       // v_mfma_f64_* (LLVM getMAIIsDGEMM)
    kXdl = 1u << 4,         // MFMA on the XDL unit (gfx940: not f32, not f64; getMAIIsGFX940XDL)
    kVmem = 1u << 5,        // global/flat/scratch/buffer
    kLds = 1u << 6,         // ds_*
    kSalu = 1u << 7,        // s_* that is not SMEM or a branch
    kDpp = 1u << 8,         // VALU in the DPP encoding
    kRwLane = 1u << 9,      // v_readlane_b32, v_readfirstlane_b32, v_writelane_b32
    kReadLane = 1u << 10,   // v_readlane_b32, v_readfirstlane_b32 (src0 read across lanes)
    kDot = 1u << 11,        // v_dot* (LLVM SIInstrInfo::isDOT)
    kDivFmas = 1u << 12,    // v_div_fmas_f32/f64
    kFma64 = 1u << 13,      // v_fma_f64, v_fmac_f64
    kSetreg = 1u << 14,     // s_setreg_b32, s_setreg_imm32_b32
    kGetreg = 1u << 15,     // s_getreg_b32
    kReadsM0 = 1u << 16,    // s_movrel*, ds_*_addtid_b32, s_sendmsg, s_ttracedata (LDS DMA loads: kM0LdsLoad)
    kWideStore = 1u << 17,  // VMEM store of more than 64 bits of data (LLVM createsVALUHazard)
    kShiftedDst = 1u << 18, // VALU writing part of its VGPR at a shift (SDWA dst_sel, op_sel[3])
    kSmfmac = 1u << 19,     // v_smfmac_* (reads[3] = the index VGPR)
    kValuVgpr = 1u << 20,   // VALU that writes a VGPR
    kValuSgpr = 1u << 21,   // VALU that writes an SGPR or VCC (compares, readlane, carry-out)
    kValuExec = 1u << 22,   // VALU that writes EXEC (v_cmpx)
    kReadsSgpr = 1u << 23,  // VALU or MFMA that reads an SGPR or VCC
    kSaluM0 = 1u << 24,     // SALU that writes M0
    kM0LdsLoad = 1u << 25,  // LDS DMA load (buffer_load_* ... lds, global/scratch_load_lds_*): M0 the LDS address
  };
  Kind kind = Kind::Other;
  std::uint8_t wait_states = 1;  // wait states this instruction provides (s_nop N: N + 1)
  std::uint8_t passes = 0;       // MFMA passes (LLVM SISchedule.td)
  std::uint8_t window = 0;       // as a producer: largest wait-state count any rule can need
  std::uint8_t hwreg = 0xff;     // s_setreg/s_getreg: hardware register id
  std::uint16_t lane_select = 0xffff;  // v_readlane/v_writelane: the lane-select SGPR
  Opcode op = Opcode::kUnsupported;
  std::uint32_t roles = 0;
  std::uint64_t produces = 0;  // bit r: can be rule r's producer
  std::uint64_t consumes = 0;  // bit r: can be rule r's consumer
  // The same as byte masks (byte r % 8 of word r / 8 is 0xff for rule r), for the scheduler's
  // fast path (HazardState::ends); set with produces/consumes by classify_hazards.
  std::uint64_t produce_bytes[4] = {}, consume_bytes[4] = {};
  std::uint8_t nreads = 0;
  VRange write;
  VRange reads[5];  // MFMA: [0] SrcA, [1] SrcB, [2] SrcC, [3] v_smfmac index
  VRange store_data;  // kWideStore: the data VGPRs
  SMask swrite, sread;  // scalar registers written / read (VCC and EXEC included)
  // Of sread, the ones read as a per-lane mask (v_cndmask select, carry-in, v_div_fmas VCC), not
  // as a constant: the ISA guide's §4.5 case 18 asks wait states only for a read "as constant".
  SMask smask;
};

// Classifies a decoded instruction.
HazardInfo classify_hazards(const Inst& inst);
// Sets h.produce_bytes / consume_bytes from h.produces / consumes (classify_hazards does).
void set_rule_bytes(HazardInfo& h);

// Where a producer and a consumer meet: a VGPR range or one scalar register (for messages).
struct Clash {
  VRange v;
  int sreg = -1;
};

// Where a rule comes from (simulator/README.md "Hazard rules", column "source"): the CDNA3 ISA
// guide (§4.5 "Manually inserted wait states", §7.5 "Required independent instructions"), or
// LLVM's GCNHazardRecognizer alone (stricter than the guide). A finding of an LLVM-only rule is
// reported and counted but never fails a run or a kernel by itself.
enum class HazardSource : std::uint8_t { Isa, LlvmOnly };
std::string_view to_string(HazardSource s);  // "ISA", "LLVM only"
// Which later write supersedes a producer's hazard on a register: a later producer of the same
// rule that writes it (LLVM getWaitStatesSinceDef: the latest def of the register that matches
// the rule's producer class; the hardware checks the latest writer, e.g. each MFMA of a chain
// waits for its predecessor). Never: the hazard is not on a register the producer writes
// (write-after-read, EXEC, MODE, hardware registers).
enum class Superseded : std::uint8_t { Never, ByVgprWrite, BySgprWrite };

// One hazard rule (hazard_rules.cpp). `need` returns the wait states the pair needs (0: the
// two are unrelated) and says in `at` which register they share.
struct HazardRule {
  std::string_view id;     // short name, e.g. "trans-use"
  std::uint32_t producers; // HazardInfo roles that can produce (any bit)
  std::uint32_t consumers; // HazardInfo roles that can consume (any bit)
  int (*need)(const HazardInfo& producer, const HazardInfo& consumer, Clash& at);
  int max_need;            // the largest value `need` returns (the producer's window)
  std::string_view what;   // message: "<what> (<reg>) N wait states after ..."
  std::string source;      // where the rule and its numbers come from (ISA case, LLVM function)
  HazardSource source_class = HazardSource::Isa;
  Superseded superseded = Superseded::Never;
  bool llvm_only() const { return source_class == HazardSource::LlvmOnly; }
};
// The table (at most 64 rules: the produces/consumes masks).
const std::vector<HazardRule>& hazard_rules();

// One violated rule between a producer and a consumer.
struct HazardHit {
  const HazardRule* rule = nullptr;
  int need = 0;
  std::string reg;  // the shared register, e.g. "v[0:3]", "s4", "EXEC"; may be empty
};
// Every rule the pair violates with `present` wait states between them.
void hazard_hits(const HazardInfo& producer, const HazardInfo& consumer, int present,
                 std::uint32_t accum_offset, std::vector<HazardHit>& out);

// Whether `later`, issued after `earlier`, supersedes `earlier` as rule r's producer on every
// register r's hazard can be on: r.superseded is not Never, `later` produces r and writes all of
// earlier's VGPRs (ByVgprWrite) or scalar registers (BySgprWrite). Lint's walk uses it.
bool supersedes(const HazardInfo& later, const HazardInfo& earlier, const HazardRule& r);

// Per-wave record of recent producers (every producer within its window is kept: a window is at
// most 19 wait states and every instruction provides at least one).
struct HazardState {
  struct Producer {
    std::uint64_t clock = 0;
    std::uint32_t index = 0;
    std::uint8_t window = 0;  // 0: empty slot
    std::uint64_t produces = 0;
  };
  static constexpr unsigned kRing = 32;
  static constexpr unsigned kMaxRules = 32;
  std::uint64_t clock = 100;  // wait-state clock of the next instruction
  // The scheduler's fast path: per rule r (byte r % 8 of ends[r / 8]) the end of the latest
  // window of a producer of r, as clocks after `base`; rule r matters now when its byte exceeds
  // clock - base. retire_hazards moves `base` up to `clock` once clock - base reaches kRebase, so
  // a byte is at most kRebase - 1 + 20 (rule windows stay below 20, hazard_rules_test) < 0x80:
  // the byte-wise arithmetic never borrows across bytes.
  static constexpr std::uint64_t kRebase = 100;
  std::uint64_t base = 100;
  std::uint64_t ends[kMaxRules / 8] = {};
  Producer ring[kRing];
  unsigned next = 0;

  void reset() { *this = HazardState{}; }
};

// One violated rule found for an instruction about to issue: its producer (instruction index
// and the wait-state clock it issued at), the wait states present and the rule's hit.
struct HazardEvent {
  std::uint32_t producer = 0;
  std::uint64_t producer_clock = 0;
  int present = 0;
  HazardHit hit;
};
// Every violation of the instruction about to issue (`h`) against the wave's recent producers,
// oldest ring slot first; `out` is cleared first. A producer whose every register the hit is on
// was written again by a later producer of the same rule is left out (Superseded).
void collect_hazards(const HazardState& s, const HazardInfo& h, const Program& program,
                     std::vector<HazardEvent>& out);
// The one-line message of a violation ("hazard: ... gfx942 needs N (rule ..., source; ...)").
std::string hazard_message(const HazardEvent& e, const Program& program);
// Checks the instruction at `index` (about to issue) against the wave's recent producers;
// throws SimError naming the producer, the rule, the wait states needed and present (the
// first producer with a violation, its rule needing the most wait states). Violations of
// LLVM-only rules never throw.
void check_hazards(HazardState& s, const HazardInfo& h, const Program& program, std::uint32_t index);
// Records the instruction as a producer and advances the wait-state clock.
inline void retire_hazards(HazardState& s, const HazardInfo& h, std::uint32_t index);
// Whether the scheduler must call check_hazards for `h` now (the fast path skips the rest).
// True when some rule `h` consumes has a producer whose window reaches s.clock. Byte-wise
// (SWAR), no branch: the per-rule walk it replaces mispredicted on every VALU instruction.
inline bool hazard_check_due(const HazardState& s, const HazardInfo& h) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ull, kTops = 0x8080808080808080ull;
  const std::uint64_t now = kOnes * (s.clock - s.base + 1);  // bytes: a byte >= now ends later
  std::uint64_t due = 0;
  for (unsigned w = 0; w < HazardState::kMaxRules / 8; ++w)
    due |= ((s.ends[w] | kTops) - now) & h.consume_bytes[w];
  return (due & kTops) != 0;
}

// ---- inline implementation of the hot part

// Byte-wise (SWAR) on HazardState::ends: 0x80 set in every byte before subtracting keeps each
// byte's borrow inside it, and the byte's top bit then says whether no borrow happened.
inline void retire_hazards(HazardState& s, const HazardInfo& h, std::uint32_t index) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ull, kTops = 0x8080808080808080ull;
  // All-ones in the bytes whose top bit is set in `tops` (a mask of kTops bits).
  const auto bytes_of = [](std::uint64_t tops) { return (tops - (tops >> 7)) | tops; };
  if (h.produces) {
    auto& p = s.ring[s.next++ % HazardState::kRing];
    p.clock = s.clock;
    p.index = index;
    p.window = h.window;
    p.produces = h.produces;
    // ends = max(ends, end of this window) for the rules it produces.
    const std::uint64_t v = kOnes * (s.clock + 1 + h.window - s.base);
    for (unsigned w = 0; w < HazardState::kMaxRules / 8; ++w) {
      const std::uint64_t x = s.ends[w];
      const std::uint64_t keep = bytes_of(((x | kTops) - v) & kTops);  // bytes with x >= v
      const std::uint64_t mx = (x & keep) | (v & ~keep);
      s.ends[w] = (mx & h.produce_bytes[w]) | (x & ~h.produce_bytes[w]);
    }
  }
  s.clock += h.wait_states;
  const std::uint64_t d = s.clock - s.base;
  if (d >= HazardState::kRebase) [[unlikely]] {  // ends = max(ends - d, 0), base = clock
    for (unsigned w = 0; w < HazardState::kMaxRules / 8; ++w) {
      const std::uint64_t t = (s.ends[w] | kTops) - kOnes * (d < 0x80 ? d : 0x7f);
      s.ends[w] = d < 0x80 ? t & bytes_of(t & kTops) & ~kTops : 0;
    }
    s.base = s.clock;
  }
}

}  // namespace cdna::simulator
